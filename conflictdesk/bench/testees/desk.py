"""conflictdesk's own `ask` pipeline as a RAG system under test.

The pipeline comes in as an `ask(query, passages) -> (analysis, answer)` callable: the
application layer passes one that goes through `Desk.ask`. Mapping: no passages, or stance
not_enough_info, is a refusal; conflicting pairs or a disputed stance is a contradiction
(and a refusal to pick one answer); identification cases answer yes/no from that flag."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from conflictdesk.analysis.types import Stance
from conflictdesk.bench.cases import Task, TestCase
from conflictdesk.bench.prompts import numbered
from conflictdesk.bench.testees import Reply
from conflictdesk.types import Passage

AskFunction = Callable[[str, Sequence[Passage]], tuple[Any, Any]]  # → (Analysis, Answer)


class AskTestee:
    """The ask pipeline over the case's contexts as inline passages; `llm` names the GGUF
    the pipeline generates with ("no-llm" for the extractive answer)."""

    def __init__(self, ask: AskFunction, llm: str = "no-llm") -> None:
        self.ask = ask
        self.name = f"ask:{llm}"

    def respond(self, case: TestCase) -> Reply:
        prompt = f"{numbered(case.contexts)}\n\nQuestion: {case.query}".strip()
        if not case.contexts:
            text = "No passages were retrieved, so the question cannot be answered."
            no = "no" if case.task is Task.IDENTIFY else text
            return Reply(no, prompt, refused=True, contradiction=False, detail={"passages": 0})
        passages = [Passage(id=i, text=t) for i, t in enumerate(case.contexts)]
        analysis, result = self.ask(case.query, passages)
        flagged = bool(analysis.detection.conflicting) or result.stance is Stance.DISPUTED
        refused = flagged or result.stance is Stance.NOT_ENOUGH_INFO
        detail = _detail(analysis, result)
        if case.task is Task.IDENTIFY:
            return Reply("yes" if flagged else "no", prompt, None, flagged, detail)
        text = f"{result.text} {result.conflict if flagged else ''}".strip()
        return Reply(text, prompt, refused=refused, contradiction=flagged, detail=detail)


def _detail(analysis: Any, result: Any) -> dict[str, Any]:
    return {
        "stance": result.stance.value,
        "conflict_type": analysis.verdict.type.value,
        "conflicting_pairs": len(analysis.detection.conflicting),
        "kappa": round(float(analysis.kappa), 4),
    }
