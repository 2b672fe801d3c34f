"""Train ConflictRAG's stage-1 pair detector, calibrate it on development pairs, export it to
int8 ONNX in models/pair/, register it and report held-out figures beside the baselines.

    nice .venv/bin/python scripts/train_pair_detector.py    # train, export, register, report
    nice .venv/bin/python scripts/train_pair_detector.py --layout emb4 --dry-run  # ablation
    .venv/bin/python scripts/train_pair_detector.py --report-only  # report of the shipped model

Features (conflictdesk/analysis/pair_features.py, shared with inference) are cached in
.train/pair/ (embeddings by text, NLI probabilities by pair), so a killed run resumes. Data
and splits: conflictdesk/training/pair_data.py. Training-only dependency: torch."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from conflictdesk.analysis.pair_features import EMBEDDING_LAYOUT, STANCE_DIM, STATEMENT_STANCES
from conflictdesk.training import pair_detector, pair_report
from conflictdesk.training.pair_eval import LAYOUTS
from conflictdesk.training.pair_model import TrainConfig


def train_config(args: argparse.Namespace) -> TrainConfig:
    return TrainConfig(
        lr=args.lr,
        batch_size=args.batch_size,
        max_epochs=args.max_epochs,
        patience=args.patience,
        dropout=args.dropout,
        weight_decay=args.weight_decay,
        threads=args.threads,
        seed=args.seed,
        conflict_tail=STANCE_DIM if args.conflict_head_stance else 0,
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--layout",
        choices=LAYOUTS,
        default=None,
        help="(default emb4; with --report-only, the shipped model's) emb4: ConflictRAG's embedding features; emb4+nli6: plus NLI both ways on the "
        "first words; emb4+stance: plus each passage's stance towards the question's answer; "
        "stance: the stance block alone",
    )
    parser.add_argument("--work", type=Path, default=Path(".train/pair"))
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--max-epochs", type=int, default=60)
    parser.add_argument("--patience", type=int, default=5)
    parser.add_argument("--dropout", type=float, default=0.2)
    parser.add_argument("--weight-decay", type=float, default=1e-4)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--conflict-head-stance",
        action="store_true",
        help="head 1 (conflict) reads only the stance block; head 2 (types) reads every feature",
    )
    parser.add_argument(
        "--statement-stance",
        choices=STATEMENT_STANCES,
        default="first-tier",
        help="which NLI reads a passage's stance towards a statement (yes/no and declarative "
        "queries): first-tier (the MiniLM, as every other stance) or cascade (the labelling "
        "cascade, MPNet on the unsure readings); wh answer-claim stances stay with the first tier",
    )
    parser.add_argument("--report", type=Path, default=Path("docs/model_report.md"))
    parser.add_argument(
        "--report-only", action="store_true", help="rewrite the report from the last run's metrics"
    )
    parser.add_argument("--dry-run", action="store_true", help="report only; write no model")
    parser.add_argument(
        "--held-back",
        default="",
        help="with --report-only and a --layout: why that variant is not the shipped model",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    args.layout_given = args.layout is not None
    args.layout = args.layout or EMBEDDING_LAYOUT
    config = train_config(args)
    work = args.work
    work.mkdir(parents=True, exist_ok=True)

    def log(event: dict) -> None:
        line = json.dumps({"time": time.strftime("%H:%M:%S"), **event})
        print(line, flush=True)
        with open(work / "log.jsonl", "a", encoding="utf-8") as handle:
            handle.write(line + "\n")

    name = pair_detector.variant(args.layout, config, args.statement_stance)
    if args.report_only and not args.layout_given:
        name = pair_detector.shipped_variant()
    metrics = work / f"metrics-{name}.json"
    if args.report_only and not metrics.exists():
        print(pair_report.committed_report(args.report, metrics))
        return
    if args.report_only:
        result = json.loads(metrics.read_text("utf-8"))
    else:
        result = pair_detector.run(config, args.layout, work, log, write=not args.dry_run,
                                   statement_stance=args.statement_stance)  # fmt: skip
    if not args.dry_run:
        write_report(args, work, name, result)


def write_report(args: argparse.Namespace, work: Path, name: str, result: dict) -> None:
    """The pair section of the report, the other variants' metrics as the ablation."""
    others = sorted(p for p in work.glob("metrics-*.json") if p.name != f"metrics-{name}.json")
    ablations = [json.loads(path.read_text("utf-8")) for path in others]
    command = result.get("command", pair_detector.REBUILD)
    lines = pair_report.markdown(result, command, ablations, args.held_back)
    pair_report.replace_section(args.report, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
