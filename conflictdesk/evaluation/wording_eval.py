"""Whether the analysis changes with the wording of a question.

Each hand-written training case of `training/data/typed_written` is analysed as written and
under the two other wordings of `paraphrases.jsonl` (keyword queries, requests, a topic before
the question, longer formal forms), with its documents inline, as `ask` analyses them. Per case:
whether every wording gets one question form, one CONFLICTS type and one answer (the leading
candidate of a wh-question, the stance of a yes/no question: what the paraphrase test of
`tests/integration` compares); per wording: type accuracy and, for cases whose question as
written is a wh-question with a gold answer, whether the leading candidate is it (a wording
not read as a wh-question has none: a miss). A system that ignored the question would be
perfectly stable, so stability is shown beside the accuracy under each wording, never alone.
The type model was fitted on these cases (in-sample for the type; the unseen-author figures are
`scripts/train_type_classifier.py`'s)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from conflictdesk.analysis.types import QueryForm
from conflictdesk.evaluation.ask_scoring import is_gold_answer

if TYPE_CHECKING:
    from conflictdesk.training.types import TypedCase


@dataclass(frozen=True)
class Reading:
    """One case under one wording (0: as written)."""

    case_id: str
    wording: int
    query: str
    asked: str
    form: str
    type: str
    answer: str
    gold_type: str
    gold_answer: str
    # None: the case as written is no wh-question with one gold answer (yes/no, several
    # answers, opinions); False also when a wording was not read as a wh-question
    gold_hit: bool | None


def read_wordings(
    cases: Sequence[TypedCase],
    wordings: Mapping[str, Sequence[str]],
    gold_answers: Mapping[str, str],
    backends: Any,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> list[Reading]:
    """Every case analysed under its written wording and each other one."""
    from conflictdesk.analysis.pipeline import analyze

    readings = []
    for n, case in enumerate(cases, 1):
        findable = None  # whether the case as written is a wh-question with a gold answer
        for k, query in enumerate([case.query, *wordings.get(case.id, ())]):
            analysis = analyze(query, list(case.passages), backends)
            frame = analysis.tagging.frame
            wh = frame.form is QueryForm.WH
            answer = (frame.leading or "").lower() if wh else analysis.stance.value
            gold = gold_answers.get(case.id, "")
            if findable is None:
                findable = wh and bool(gold)
            # a wording read as a claim or a yes/no question leads with no answer: a miss
            hit = (wh and is_gold_answer(frame.leading, [gold])) if findable else None
            readings.append(
                Reading(case.id, k, query, analysis.asked, frame.form.value,
                        analysis.verdict.type.value, answer, case.gold.value, gold, hit)
            )  # fmt: skip
        if progress is not None:
            progress(n, len(cases))
    return readings


def wording_figures(readings: Sequence[Reading]) -> dict[str, Any]:
    """Agreement across each case's wordings, and accuracy as written against reworded."""
    by_case: dict[str, list[Reading]] = {}
    for r in readings:
        by_case.setdefault(r.case_id, []).append(r)
    groups = [g for g in by_case.values() if len(g) > 1]

    def one(field: str) -> float:
        return _mean([len({getattr(r, field) for r in g}) == 1 for g in groups])

    def per_wording(test: Callable[[Reading], bool | None], written: bool) -> float | None:
        values = [test(r) for r in readings if (r.wording == 0) == written]
        kept = [v for v in values if v is not None]
        return _mean(kept) if kept else None

    def type_right(r: Reading) -> bool:
        return r.type == r.gold_type

    def answer_right(r: Reading) -> bool | None:
        return r.gold_hit

    type_accuracy = {"as_written": per_wording(type_right, True),
                     "reworded": per_wording(type_right, False)}  # fmt: skip
    gold_leads = {"as_written": per_wording(answer_right, True),
                  "reworded": per_wording(answer_right, False)}  # fmt: skip
    return {
        "cases": len(groups),
        "reworded": sum(len(g) - 1 for g in groups),
        "one_form": one("form"),
        "one_type": one("type"),
        "one_answer": one("answer"),
        "type_accuracy": type_accuracy,
        "gold_answer_leads": gold_leads,
        "readings": [asdict(r) for r in readings],
    }


def render(figures: Mapping[str, Any]) -> str:
    acc, lead = figures["type_accuracy"], figures["gold_answer_leads"]
    agree = (
        f"  one question form {figures['one_form']:.3f}   one CONFLICTS type "
        f"{figures['one_type']:.3f}   one answer {figures['one_answer']:.3f}"
    )
    types = (
        "  type (in-sample: the type model was fitted on these cases) "
        f"{_fmt(acc['as_written'])} → {_fmt(acc['reworded'])}"
    )
    leads = (
        "  gold answer leads (wh-questions with one gold answer) "
        f"{_fmt(lead['as_written'])} → {_fmt(lead['reworded'])}"
    )
    lines = [
        f"{figures['cases']} written cases, {figures['reworded']} other wordings in all",
        "agreement across every wording of a case (a system that ignored the question: 1.000):",
        agree,
        "accuracy, as written → reworded:",
        types,
        leads,
    ]
    return "\n".join(lines)


def _mean(values: Sequence[bool | float]) -> float:
    return float(sum(values) / len(values)) if values else 0.0


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
