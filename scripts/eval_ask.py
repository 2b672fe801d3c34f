"""Evaluate `ask` on QACC dev and RAMDocs (inline documents) beside a relevance-only baseline.

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
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conflictdesk.analysis.text import idf_weights, key_sentence
from conflictdesk.cli import common
from conflictdesk.evaluation.ask_scoring import (
    Case,
    Prediction,
    load_qacc,
    load_ramdocs,
    premise,
    score,
)
from conflictdesk.generation.answer import ask
from conflictdesk.generation.types import AnswerSentence
from conflictdesk.training.nli_data import data_root
from conflictdesk.types import ConflictType

# -- systems -----------------------------------------------------------------------------------


def run_system(case: Case, backends: Any, strategy: str | None) -> Prediction:
    started = time.perf_counter()
    analysis, result, _ = ask(
        case.query,
        case.passages,
        backends,
        strategy=strategy,
        gold_type=case.gold_type,
        check_parametric=False,
    )
    ms = (time.perf_counter() - started) * 1000.0
    return Prediction(
        conflict=analysis.verdict.type is not ConflictType.NO_CONFLICT,
        conflict_type=analysis.verdict.type.value,
        rule=analysis.resolution.rule,
        sentences=result.sentences,
        tags={t.passage_id: t.tag for t in analysis.tags},
        packet={i: premise(analysis.passage(i)) for i in analysis.packet.passage_ids},
        ms=ms,
    )


def run_baseline(case: Case, backends: Any) -> Prediction:
    """Relevance-only: the most relevant passage's best sentence; never a conflict."""
    started = time.perf_counter()
    vectors = backends.embedder.embed([case.query] + [p.text for p in case.passages])
    cosine = vectors[1:] @ vectors[0]
    best = case.passages[int(cosine.argmax())]
    idf = idf_weights([p.text for p in case.passages])
    sentence = key_sentence(case.query, best.text, idf)
    ms = (time.perf_counter() - started) * 1000.0
    return Prediction(
        False,
        ConflictType.NO_CONFLICT.value,
        "direct",
        (AnswerSentence(sentence, (best.id,)),),
        packet={best.id: premise(best)},
        ms=ms,
    )


# -- main --------------------------------------------------------------------------------------


def evaluate(cases: list[Case], backends: Any, args: argparse.Namespace) -> dict[str, Any]:
    system, baseline = [], []
    for n, case in enumerate(cases, start=1):
        system.append(run_system(case, backends, args.strategy))
        baseline.append(run_baseline(case, backends))
        baseline[-1].tags = system[-1].tags  # leakage of the baseline judged by the same tags
        if n % 10 == 0:
            sys.stderr.write(f"\r{case.dataset}: {n}/{len(cases)}")
            sys.stderr.flush()
    sys.stderr.write("\n")
    nli = backends.nli if args.nli_metrics else None
    subsets = {"all": list(range(len(cases)))}
    if cases and cases[0].dataset == "ramdocs" and any(c.half != "eval" for c in cases):
        subsets = {"eval_half": [i for i, c in enumerate(cases) if c.half == "eval"], **subsets}
    elif cases and cases[0].dataset == "ramdocs":
        subsets = {"eval_half": subsets["all"]}
    report = {}
    for name, index in subsets.items():
        chosen = [cases[i] for i in index]
        report[name] = {
            "system": score(chosen, [system[i] for i in index], nli),
            "baseline": score(chosen, [baseline[i] for i in index], nli),
        }
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog=__doc__.split("\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--datasets", nargs="+", choices=("qacc", "ramdocs"), default=["qacc", "ramdocs"]
    )
    parser.add_argument("--limit", type=int, default=None, help="first N questions per data set")
    parser.add_argument(
        "--ramdocs-half",
        choices=("eval", "all"),
        default="all",
        help="RAMDocs questions to run: the EVAL half only, or all (default)",
    )
    parser.add_argument("--strategy", default=None, help="answer strategy (default as `ask`)")
    parser.add_argument(
        "--nli-metrics",
        action="store_true",
        help="also compute the NLI-judged citation and grounding metrics",
    )
    parser.add_argument("--data", type=Path, default=None,
                        help="data folder (default: the data_dir setting, CONFLICTDESK_DATA)")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    common.add_model_arguments(parser)
    args = parser.parse_args(argv)
    from conflictdesk.backends.registry import load_backends

    backends = load_backends(common.config_from_args(args))
    data = args.data or data_root()
    loaders = {
        "qacc": lambda: load_qacc(data / "qacc" / "dev.jsonl"),
        "ramdocs": lambda: load_ramdocs(data / "ramdocs" / "dev.jsonl"),
    }
    results = {}
    for name in args.datasets:
        cases = loaders[name]()
        if name == "ramdocs" and args.ramdocs_half == "eval":
            cases = [c for c in cases if c.half == "eval"]
        cases = cases[: args.limit]
        results[name] = evaluate(cases, backends, args)
    results["method"] = backends.methods()
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(render(results))
    return 0


def render(results: dict[str, Any]) -> str:
    lines = []
    for dataset, subsets in results.items():
        if dataset == "method":
            continue
        for subset, systems in subsets.items():
            n = systems["system"]["questions"]
            gold = systems["system"]["gold_conflicts"]
            lines.append(f"\n{dataset} ({subset}, {n} questions, {gold} gold conflicts)")
            lines.append(f"  {'metric':<28}{'system':>10}{'baseline':>10}")
            for label, getter in ROWS:
                values = [getter(systems[s]) for s in ("system", "baseline")]
                if all(v is None for v in values):
                    continue
                cells = "".join(f"{_fmt(v):>10}" for v in values)
                lines.append(f"  {label:<28}{cells}")
            lines.append(f"  predicted types: {systems['system']['predicted_types']}")
    lines.append(f"\nmodels: {results['method']}")
    return "\n".join(lines)


ROWS = (
    ("conflict precision", lambda r: r["detection"]["precision"]),
    ("conflict recall", lambda r: r["detection"]["recall"]),
    ("conflict F1", lambda r: r["detection"]["f1"]),
    ("answer recall", lambda r: r["answer_recall"]),
    ("lead answer recall", lambda r: r["lead_answer_recall"]),
    ("citation precision (gold)", lambda r: r["citation_precision_gold"]),
    ("citation recall (gold)", lambda r: r["citation_recall_gold"]),
    ("judged sentences", lambda r: r["judged_sentences"]),
    ("CARS", lambda r: r.get("cars", {}).get("cars")),
    ("  RA (rule = gold type's)", lambda r: r.get("cars", {}).get("ra")),
    ("NLI citation precision", lambda r: r.get("nli", {}).get("precision")),
    ("NLI citation recall", lambda r: r.get("nli", {}).get("recall")),
    ("citation leakage", lambda r: r.get("nli", {}).get("leakage")),
    ("factual grounding", lambda r: r.get("nli", {}).get("grounding")),
    ("contradiction rate", lambda r: r.get("nli", {}).get("contradiction_rate")),
    ("mean ms / question", lambda r: r["mean_ms"]),
)


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, int):
        return str(value)
    return f"{value:.3f}" if value < 10 else f"{value:.0f}"


if __name__ == "__main__":
    raise SystemExit(main())
