"""Evaluate the shipped NLI cross-encoder (models/nli) and stage-1 pair detector (models/pair),
and write docs/model_report.md (the pair section re-measures the shipped pair model; its tau_c is
chosen on development pairs by scripts/train_pair_detector.py).

    .venv/bin/python scripts/eval_models.py            # full report (several minutes on 2 cores)
    .venv/bin/python scripts/eval_models.py --limit 300  # quick smoke run (not for the report)

Everything runs on the product back-ends (CTranslate2 int8 + numpy head with the windowed
max-evidence rule; onnxruntime int8 for the pair detector); no torch. The RAMDocs figures use
the EVAL half of the hash split (never trained on); the full set is reported, labelled,
beside it. QACC figures use dev.jsonl only. The code is conflictdesk/evaluation/embedded_models.py
(figures) and embedded_models_report.py (the Markdown)."""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

from conflictdesk.config import load_settings
from conflictdesk.evaluation.embedded_models import evaluate_models
from conflictdesk.evaluation.embedded_models_report import write_report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="sample each NLI set (smoke runs)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--work", type=Path, default=Path(".train"), help="training caches, logs")
    parser.add_argument("--report", type=Path, default=Path("docs/model_report.md"))
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    out = evaluate_models(load_settings().models_dir, args.work, threads=args.threads,
                          limit=args.limit, seed=args.seed)  # fmt: skip
    (args.work / "eval.json").write_text(json.dumps(out, indent=2), "utf-8")
    write_report(out, args.report)
    print(f"wrote {args.report}")


if __name__ == "__main__":
    main()
