"""Train the CONFLICTS type model on typed_dev and print its cross-validated figures.

Usage:
  .venv/bin/python scripts/train_type_classifier.py
  .venv/bin/python scripts/train_type_classifier.py --eval-only --report type_report.json

Prints CV accuracy (5 folds over cases, 3 seeds) and per-type accuracy beside the majority
class and the rule classifier, and the accuracy-coverage curve; then fits on every case,
writes models/types/type_model.json and lists it in models/manifest.json."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from conflictdesk.analysis.type_model import MODEL_FILE, REBUILD, ROLE
from conflictdesk.analysis.typing_features import FEATURE_NAMES
from conflictdesk.backends.manifest import Manifest, entry_for, models_dir
from conflictdesk.backends.registry import load_backends
from conflictdesk.config import load_config
from conflictdesk.training.nli_data import data_root
from conflictdesk.training.types import case_rows, evaluate, load_typed_cases, train_model

NAME = "conflictdesk-type-lr"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cases",
        type=Path,
        default=None,
        help="typed cases (default: typed_dev/cases.jsonl in the data folder, "
        "CONFLICTDESK_DATA or ../shared/data)",
    )
    parser.add_argument("--l2", type=float, default=3.0, help="L2 strength (default 3)")
    parser.add_argument("--report", type=Path, help="write the figures as JSON here")
    parser.add_argument("--eval-only", action="store_true", help="do not write the model")
    args = parser.parse_args()
    backends = load_backends(load_config(), roles=("embedder", "nli", "pair"))
    cases = args.cases or data_root() / "typed_dev" / "cases.jsonl"
    rows = case_rows(load_typed_cases(cases), backends)
    report = evaluate(rows, l2=args.l2)
    print_report(report)
    if args.report:
        args.report.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if not args.eval_only:
        save(train_model(rows.x, rows.y, FEATURE_NAMES, l2=args.l2,
                         threshold=report["threshold"], model_id=NAME))  # fmt: skip
    return 0


def print_report(report: dict) -> None:
    model, rules = report["model"], report["rules"]
    print(f"typed_dev, {report['cases']} cases, {report['folds']}-fold CV grouped by case")
    print(f"{'type':24s}{'model (CV)':>12s}{'rules':>8s}")
    for kind, acc in model["per_type"].items():
        print(f"{kind:24s}{acc:12.3f}{rules['per_type'][kind]:8.3f}")
    print(f"{'accuracy':24s}{model['accuracy']:12.3f}{rules['accuracy']:8.3f}")
    majority = report["majority"]
    print(f"majority class ({majority['type']}): {majority['accuracy']:.3f}")
    print("threshold  coverage  accuracy")
    for row in report["coverage"]:
        print(f"{row['threshold']:9.2f}{row['coverage']:10.3f}{row['accuracy']:10.3f}")
    print(f"abstention threshold: {report['threshold']:.2f}")


def save(model) -> None:
    base = models_dir()
    path = base / MODEL_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
    manifest = Manifest.load(base / "manifest.json")
    entry = entry_for(
        NAME, ROLE, path,
        licence="MIT (conflictdesk); trained on typed_dev (CC0, hand-written for this project)",
        source="multinomial logistic regression over conflictdesk.analysis.typing_features, "
        "fitted on /work/shared/data/typed_dev/cases.jsonl by scripts/train_type_classifier.py",
        rebuild=REBUILD, base=base,
    )  # fmt: skip
    entry.extra = {"features": len(model.feature_names), "threshold": model.threshold}
    manifest.upsert(entry)
    manifest.save()
    print(f"wrote {path} and its manifest entry ({entry.model_id})")


if __name__ == "__main__":
    raise SystemExit(main())
