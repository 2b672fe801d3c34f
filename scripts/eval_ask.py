"""Evaluate `ask` on QACC dev, RAMDocs and typed_dev (inline documents) beside a relevance-only
baseline.

Usage:
  .venv/bin/python scripts/eval_ask.py --limit 50
  .venv/bin/python scripts/eval_ask.py --datasets ramdocs --json > ramdocs.json
  .venv/bin/python scripts/eval_ask.py --nli-metrics --limit 30   (adds the NLI-judged metrics)

Definitions (question level unless said otherwise):
- Gold conflict. QACC: more than one answer is supported by the contexts (`*AnswerExist` is
  "A" for a second, third or fourth answer). RAMDocs: the question has both `correct` and
  `misinfo` documents.
- Predicted conflict: the CONFLICTS type of the evidence is not `no_conflict` (complementary
  answers count as a conflict, as in CONFLICTS). The baseline never predicts a conflict.
- Answer recall: a gold answer occurs in the answer text after SQuAD normalisation (QACC:
  `correctAnswer`; RAMDocs: any of `gold_answers`). Lead answer recall: the same test on the
  first claim sentence only — what a reader takes as "the" answer.
- Gold citation precision and recall, over judged sentences: claim sentences that mention at
  least one answer of the question's gold answer set (QACC: every supported answer; RAMDocs:
  the answers of the correct and misinfo documents). A citation is correct when the cited
  passage supports an answer the sentence mentions, per the gold labels (QACC
  `firstContext`... letters; RAMDocs a document's `answer`). Precision = correct citations /
  citations of judged sentences; recall = judged sentences with at least one correct citation
  / judged sentences.
- CARS (ConflictRAG eq. 5, see conflictdesk/metrics/cars.py): AC = answer recall, CDA =
  detection F1, RA = the applied resolution rule is the one the gold type calls for, SF = gold
  citation precision. Reported for RAMDocs only, where a gold type can be derived: misinfo and
  correct documents → misinformation; else several gold answers → complementary; else
  no_conflict. QACC has no gold type in the taxonomy.
- typed_dev (`--datasets typed_dev`; hand-written cases with a gold CONFLICTS type): gold
  conflict = any type but no_conflict; answer recall and lead over the cases with a gold
  answer (not conflicting opinions); type accuracy per gold type beside the majority class;
  answer coverage = mean share of the gold answers the answer holds, where there are several
  (complementary). No per-passage gold, so no gold citations. The shipped type model was
  fitted on typed_dev: its type accuracy there is in-sample (the cross-validated figure is
  `scripts/train_type_classifier.py`'s).
- conflictqa (`--datasets conflictqa`): ConflictQA TEST pairs (StrategyQA yes/no questions,
  two passages), one per question, 150 agreeing and 150 conflicting; gold conflict = the
  pair's label; answer recall over the agreeing ones ("Yes" / "No" in the answer); type
  accuracy over the agreeing ones (gold no_conflict). The NLI and the pair model were trained
  on ConflictQA TRAIN questions only.
- Type accuracy (every set with gold types: RAMDocs' derived ones, typed_dev, conflictqa's
  agreeing pairs) beside the majority class of the same cases.
- Baseline (relevance-only, no conflict handling): the passage with the highest relevance
  (the same embedding cosine the system uses for inline documents) and its most
  query-relevant sentence as the whole answer, citing that passage.

RAMDocs halves: the NLI cross-encoder was trained on RAMDocs' TRAIN half
(`conflictdesk.training.claims.ramdocs_half`), so RAMDocs is reported on the EVAL half and,
labelled, on all questions. QACC dev was not used for training."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from conflictdesk.cli import common
from conflictdesk.evaluation.ask_run import evaluate, load_dataset, render


def progress(dataset: str, done: int, total: int) -> None:
    if done % 10 == 0 or done == total:
        sys.stderr.write(f"\r{dataset}: {done}/{total}" + ("\n" if done == total else ""))
        sys.stderr.flush()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], epilog=__doc__.split("\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--datasets", nargs="+", choices=("qacc", "ramdocs", "typed_dev", "conflictqa"),
                        default=["qacc", "ramdocs"])  # fmt: skip
    parser.add_argument("--limit", type=int, default=None, help="first N questions per data set")
    parser.add_argument("--ramdocs-half", choices=("eval", "all"), default="all",
                        help="RAMDocs questions to run: the EVAL half only, or all (default)")  # fmt: skip
    parser.add_argument("--strategy", default=None, help="answer strategy (default as `ask`)")
    parser.add_argument("--ranker", choices=("model", "rules"), default="rules",
                        help="who picks a wh-question's leading answer: the rule's votes "
                        "(default, as `ask`) or the trained answer ranker")  # fmt: skip
    parser.add_argument("--reader", choices=("model", "rules"), default="rules",
                        help="who reads each passage's answer span: the rule (default, as "
                        "`ask`) or the trained span reader")  # fmt: skip
    parser.add_argument("--verdict", choices=("pairs", "type", "model"), default="pairs",
                        help="who makes the question-level conflict call: the type classifier "
                        "or a conflicting pair (default, as `ask`), the type classifier alone, "
                        "or the verdict model (models/verdict)")  # fmt: skip
    parser.add_argument("--tiers", choices=("fast", "cascade"), default="fast",
                        help="NLI tiers of the analysis: the MiniLM alone (default, as `ask`) "
                        "or the labelling cascade")  # fmt: skip
    parser.add_argument("--nli-metrics", action="store_true",
                        help="also compute the NLI-judged citation and grounding metrics")  # fmt: skip
    parser.add_argument("--data", type=Path, default=None,
                        help="data folder (default: the data_dir setting, CONFLICTDESK_DATA)")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    common.add_model_arguments(parser)
    args = parser.parse_args(argv)
    from conflictdesk.analysis.pipeline import (
        AnalysisOptions,
        analysis_backends,
        default_answer_ranker,
    )
    from conflictdesk.app import load_settings
    from conflictdesk.backends.registry import load_backends

    data = args.data or load_settings().data_dir
    if data is None:
        parser.error("no data folder: pass --data or set CONFLICTDESK_DATA")
    backends = load_backends(common.config_from_args(args))
    results = {}
    for name in args.datasets:
        cases = load_dataset(name, data, args.ramdocs_half == "eval")[: args.limit]
        results[name] = evaluate(cases, backends, args.strategy, args.nli_metrics, progress,
                                 AnalysisOptions(ranker=args.ranker, reader=args.reader, verdict=args.verdict,
                                                 cascade=args.tiers == "cascade"))  # fmt: skip
    ranker = default_answer_ranker().model_id if args.ranker == "model" else "rule votes"
    analysed = analysis_backends(backends, args.tiers == "cascade")
    results["method"] = {**analysed.methods(), "answer_ranker": ranker, "span_reader": args.reader,
                         "conflict_call": args.verdict}  # fmt: skip
    print(json.dumps(results, indent=2) if args.json else render(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
