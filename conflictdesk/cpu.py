"""What this CPU offers the int8 runtimes: the instruction-set flags that decide their speed
(AVX-512 VNNI runs CTranslate2's and ONNX Runtime's int8 matrix products about 2-3x faster
than AVX2 alone; AVX-512 BF16 makes bf16 training about 1.75-2.7x faster than fp32), for
`doctor` and for every speed figure a benchmark prints."""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any

# avx512_bf16: whether bf16 autocast speeds up training here (scripts/train_nli_mpnet.py --bf16)
CPU_FLAGS = (
    "avx", "avx2", "fma", "f16c", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile", "neon",
    "asimd",
)  # fmt: skip


def cpu_features(cpuinfo: Path = Path("/proc/cpuinfo")) -> list[str]:
    """The flags of CPU_FLAGS this CPU reports (Linux /proc/cpuinfo; [] elsewhere)."""
    try:
        text = cpuinfo.read_text("utf-8", errors="replace")
    except OSError:
        return []
    flags = set()
    for line in text.splitlines():
        if line.lower().startswith(("flags", "features")):
            flags.update(line.split(":", 1)[-1].split())
    return [flag for flag in CPU_FLAGS if flag in flags]


def machine() -> dict[str, Any]:
    """Where a speed figure was measured: architecture, cores, the flags and the load."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {"arch": platform.machine(), "cores": os.cpu_count(), "cpu_flags": cpu_features(),
            "load_1min": round(load, 2) if load is not None else None}  # fmt: skip
