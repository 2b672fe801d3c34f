"""Train the CONFLICTS type model on typed_dev and print its cross-validated figures.

Usage:
  .venv/bin/python scripts/train_type_classifier.py
  .venv/bin/python scripts/train_type_classifier.py --eval-only --report type_report.json

Runs every case through the pipeline once (cached in --work), trains the subjectivity probe
on PERSPECTRUM / FEVER / Fool Me Twice, then picks the feature set and L2 strength by CV
grouped by case and measures that choice by nested CV (5 folds, 3 seeds), beside the previous
configuration, the majority class and the rule classifier. Without --eval-only it fits the
chosen configuration on every case, writes models/types/type_model.json and lists it in
models/manifest.json."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from conflictdesk.backends.registry import load_backends
from conflictdesk.config import load_config
from conflictdesk.training.nli_data import data_root
from conflictdesk.training.subjectivity import cached_probe
from conflictdesk.training.type_cache import cached_evidence
from conflictdesk.training.type_report import print_report, save_model
from conflictdesk.training.type_selection import evaluate, fit_chosen, grid
from conflictdesk.training.types import case_rows, load_typed_cases

NAME = "conflictdesk-type-lr"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cases",
        type=Path,
        default=None,
        help="typed cases (default: typed_dev/cases.jsonl in the data folder, "
        "CONFLICTDESK_DATA or data_dir in the configuration file)",
    )
    parser.add_argument("--work", type=Path, default=Path(".train/types"), help="cache folder")
    parser.add_argument("--report", type=Path, help="write the figures as JSON here")
    parser.add_argument("--eval-only", action="store_true", help="do not write the model")
    args = parser.parse_args()
    backends = load_backends(load_config(), roles=("embedder", "nli", "pair"))
    cases = load_typed_cases(args.cases or data_root() / "typed_dev" / "cases.jsonl")
    evidence = cached_evidence(cases, backends, args.work / "evidence.pkl")
    probe, probe_accuracy = cached_probe(backends.embedder, data_root(), args.work)
    print(f"subjectivity probe: held-out accuracy {probe_accuracy:.3f} (PERSPECTRUM dev vs facts)")
    rows = case_rows(evidence, probe)
    report = evaluate(rows, grid())
    print_report(report)
    if args.report:
        args.report.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if not args.eval_only:
        save_model(fit_chosen(rows, report, probe, NAME))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
