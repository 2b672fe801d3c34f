"""`ask` and the relevance-only baseline run over QACC dev and RAMDocs cases, scored by
`ask_scoring`, and the text table; `scripts/eval_ask.py` is the command line (its docstring
defines each metric)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from conflictdesk.analysis.conflict_call import claim_evidence
from conflictdesk.analysis.pipeline import AnalysisOptions, analyze
from conflictdesk.analysis.text import idf_weights, key_sentence
from conflictdesk.analysis.types import Analysis, QueryForm
from conflictdesk.evaluation.ask_scoring import (
    Case,
    Prediction,
    load_conflictqa,
    load_qacc,
    load_ramdocs,
    load_typed_dev,
    premise,
    score,
)
from conflictdesk.generation.answer import ask
from conflictdesk.generation.report import leading_answer
from conflictdesk.generation.types import AnswerSentence
from conflictdesk.training.claims import contains
from conflictdesk.types import ConflictType


def load_dataset(name: str, data: Path, eval_half_only: bool = False) -> list[Case]:
    """QACC dev, RAMDocs dev or typed_dev under the data folder; RAMDocs' EVAL half alone
    when asked."""
    if name == "qacc":
        return load_qacc(data / "qacc" / "dev.jsonl")
    if name == "typed_dev":
        return load_typed_dev(data / "typed_dev" / "cases.jsonl")
    if name == "conflictqa":
        return load_conflictqa(data / "conflictqa_strategyqa" / "pairs_test.jsonl.gz")
    cases = load_ramdocs(data / "ramdocs" / "dev.jsonl")
    return [c for c in cases if c.half == "eval"] if eval_half_only else cases


def verdict_sets(data: Path) -> dict[str, list[Case]]:
    """The question sets of the verdict model: its training sets (QACC train, the RAMDocs
    TRAIN half) and the held-out ones `scripts/eval_ask.py` reports."""
    ramdocs = load_ramdocs(data / "ramdocs" / "dev.jsonl")
    return {
        "QACC train": load_qacc(data / "qacc" / "train.jsonl"),
        "RAMDocs train half": [c for c in ramdocs if c.half == "train"],
        "QACC dev": load_qacc(data / "qacc" / "dev.jsonl"),
        "RAMDocs eval half": [c for c in ramdocs if c.half == "eval"],
    }


def verdict_row(case: Case, analysis: Analysis, nli: Any) -> dict[str, Any]:
    """What the verdict model reads of one `ask` analysis (the on-topic passages' NLI
    probabilities toward the leading answer and their candidate answers, the passage count), with the gold conflict and
    the type classifier's call beside it."""
    on_topic = [t for t in analysis.tags if t.on_topic]
    judged = [[t.entailment, t.contradiction, t.neutral] for t in on_topic]
    return {"id": case.id, "gold": case.gold_conflict, "documents": len(case.passages),
            "judged": [[round(v, 5) for v in row] for row in judged],
            "answers": [t.answer for t in on_topic],
            "leading": analysis.tagging.frame.leading,
            "claim_judged": _rounded(claim_evidence(
                case.query, analysis.tagging.frame.leading, analysis.passages, nli)),
            "type": analysis.verdict.type.value, "string_match": string_match_call(case)}  # fmt: skip


def _rounded(rows: Any) -> Any:
    return None if rows is None else [[round(v, 5) for v in row] for row in rows]


def string_match_call(case: Case) -> bool:
    """The answer-string baseline's conflict call: some passages contain the first gold
    answer and some do not (claim-only string match, as `detect`'s baseline)."""
    answer = case.gold_answers[0] if case.gold_answers else ""
    hits = [contains(p.text, answer) for p in case.passages] if answer.strip() else []
    return any(hits) and not all(hits)


def collect_verdict_rows(
    cases: list[Case], backends: Any, done: set[str], options: AnalysisOptions | None = None
) -> Iterator[dict[str, Any]]:
    """`verdict_row` of every case not in `done`, one `analyze` each (no generation)."""
    for case in cases:
        if case.id not in done:
            analysis = analyze(case.query, case.passages, backends, options=options)
            yield verdict_row(case, analysis, backends.nli)


def run_system(
    case: Case, backends: Any, strategy: str | None, options: AnalysisOptions | None = None
) -> Prediction:
    started = time.perf_counter()
    analysis, result, _ = ask(
        case.query,
        case.passages,
        backends,
        strategy=strategy,
        gold_type=case.gold_type,
        check_parametric=False,
        options=options,
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
        leading=_frame_leading(analysis),
        shown=_shown(analysis, result),
    )


def _frame_leading(analysis: Any) -> str | None:
    """The claim frame's leading answer of a wh-question ("" when it found none; None for
    other questions, which have no short answer)."""
    frame = analysis.tagging.frame
    return (frame.leading or "") if frame.form is QueryForm.WH else None


def _shown(analysis: Any, result: Any) -> str | None:
    """The short answer `ask --json` reports ("" when a wh-question has none; None for other
    questions), as `_frame_leading`."""
    if analysis.tagging.frame.form is not QueryForm.WH:
        return None
    short = leading_answer(analysis, result)
    return short["text"] if short else ""


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


def evaluate(
    cases: list[Case],
    backends: Any,
    strategy: str | None = None,
    nli_metrics: bool = False,
    on_progress: Callable[[str, int, int], None] | None = None,
    options: AnalysisOptions | None = None,
) -> dict[str, Any]:
    """System and baseline scored on each subset (RAMDocs: the EVAL half, and all)."""
    system, baseline = [], []
    for n, case in enumerate(cases, start=1):
        system.append(run_system(case, backends, strategy, options))
        baseline.append(run_baseline(case, backends))
        baseline[-1].tags = system[-1].tags  # leakage of the baseline judged by the same tags
        if on_progress is not None:
            on_progress(case.dataset, n, len(cases))
    nli = backends.nli if nli_metrics else None
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
            always = systems["system"]["always_conflict_f1"]
            lines.append(f"  {'conflict F1, always-conflict':<28}{always:>10.3f}{always:>10.3f}")
            lines.append(f"  predicted types: {systems['system']['predicted_types']}")
            if dataset == "typed_dev":
                lines.append("  note: the shipped type model was fitted on typed_dev (and public "
                             "cases), so its type accuracy here is in-sample; cross-validated: "
                             "scripts/train_type_classifier.py")  # fmt: skip
            if "types" in systems["system"]:
                per_type = systems["system"]["types"]["per_type"]
                lines.append("  type accuracy per gold type: "
                             + ", ".join(f"{t} {v:.3f}" for t, v in per_type.items()))  # fmt: skip
    lines.append(f"\nmodels: {results['method']}")
    return "\n".join(lines)


ROWS = (
    ("conflict precision", lambda r: r["detection"]["precision"]),
    ("conflict recall", lambda r: r["detection"]["recall"]),
    ("conflict F1", lambda r: r["detection"]["f1"]),
    ("answer recall", lambda r: r["answer_recall"]),
    ("lead answer recall", lambda r: r["lead_answer_recall"]),
    ("leading answer (frame) recall", lambda r: r.get("leading_answer_recall")),
    ("short answer (shown) recall", lambda r: r.get("short_answer_recall")),
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
    ("type accuracy", lambda r: r.get("types", {}).get("accuracy")),
    ("  majority type", lambda r: r.get("types", {}).get("majority_class")),
    ("answer coverage (several)", lambda r: r.get("types", {}).get("answer_coverage")),
    ("mean ms / question", lambda r: r["mean_ms"]),
)


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, int):
        return str(value)
    return f"{value:.3f}" if value < 10 else f"{value:.0f}"
