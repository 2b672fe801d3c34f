"""scripts/setup.sh builds llama.cpp only for the instruction sets the CPU has."""

from __future__ import annotations

import platform
import subprocess
from pathlib import Path

import pytest

SETUP = Path(__file__).resolve().parents[2] / "scripts" / "setup.sh"

pytestmark = pytest.mark.skipif(
    platform.system() != "Linux" or platform.machine() != "x86_64", reason="x86-64 Linux flags"
)


def flags_for(tmp_path: Path, cpu_flags: str) -> str:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nflags\t\t: {cpu_flags}\n")
    script = f"source <(sed -n '/^cpu_flags()/,/^}}/p' {SETUP}); CPUINFO={cpuinfo} cpu_flags"
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                          check=True).stdout.split()  # fmt: skip


def test_avx2_only_cpu_gets_no_avx512(tmp_path):
    flags = flags_for(tmp_path, "fpu sse2 avx avx2 fma f16c bmi2")
    assert "-DGGML_AVX2=ON" in flags and "-DGGML_AVX512=OFF" in flags
    assert "-DGGML_AVX512_VNNI=OFF" in flags and "-DGGML_AMX_TILE=OFF" in flags


def test_avx512_cpu_gets_avx512_and_still_no_amx(tmp_path):
    flags = flags_for(tmp_path, "avx avx2 fma f16c avx512f avx512_vnni amx_tile")
    assert "-DGGML_AVX512=ON" in flags and "-DGGML_AVX512_VNNI=ON" in flags
    assert "-DGGML_AMX_TILE=OFF" in flags and "-DGGML_NATIVE=OFF" in flags


def test_old_cpu_gets_no_avx2(tmp_path):
    flags = flags_for(tmp_path, "fpu sse2 sse4_2")
    assert "-DGGML_AVX2=OFF" in flags and "-DGGML_AVX=OFF" in flags
