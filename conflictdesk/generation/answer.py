"""The G-stage entry point: `answer(analysis, backends, strategy=...) -> Answer`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from conflictdesk.analysis.types import Analysis
from conflictdesk.backends.base import Backends, Generator, JudgmentCache
from conflictdesk.errors import CapabilityError, InputError, UsageError
from conflictdesk.generation.adjudicate import (
    adjudicate,
    citation_violations,
    conflict_statement,
    evidence_table,
)
from conflictdesk.generation.extractive import extractive_answer
from conflictdesk.generation.llm import llm_answer
from conflictdesk.generation.parametric import NO_LLM, parametric_check
from conflictdesk.generation.types import Answer, ParametricCheck, Strategy
from conflictdesk.types import ConflictType, Passage

if TYPE_CHECKING:
    from conflictdesk.analysis.pipeline import AnalysisOptions

__all__ = ["Answer", "Strategy", "answer", "ask", "default_strategy", "parse_strategy"]

STANCE_METHOD = "conrag-delta-rule"


def default_strategy(backends: Backends) -> Strategy:
    """Pipeline with an LLM (the best non-oracle strategy in CONFLICTS), else extractive."""
    return Strategy.PIPELINE if backends.llm is not None else Strategy.EXTRACTIVE


def parse_strategy(name: str | None, backends: Backends) -> Strategy:
    """A strategy name (or None for the default), refused when it needs a missing LLM."""
    if name is None:
        return default_strategy(backends)
    try:
        strategy = Strategy(name)
    except ValueError:
        known = ", ".join(s.value for s in Strategy)
        raise UsageError(f"unknown strategy {name!r}; choose one of: {known}") from None
    if strategy is not Strategy.EXTRACTIVE and backends.llm is None:
        raise CapabilityError(
            f"the {strategy.value} strategy needs an LLM (--llm PATH.gguf or --llm-url URL); "
            "without one use --strategy extractive"
        )
    return strategy


def answer(
    analysis: Analysis,
    backends: Backends,
    strategy: Strategy | str | None = None,
    *,
    gold_type: ConflictType | None = None,
    check_parametric: bool = True,
    cache: JudgmentCache | None = None,
) -> Answer:
    """Sort, adjudicate and cite (ConRAG G-stage) over an analysis.

    `strategy` None picks `default_strategy`; `gold_type` is required by the oracle strategy.
    The parametric check runs only with an LLM and when `check_parametric` is set. LLM calls
    are recorded in `cache` (the store's judgment cache)."""
    strategy = parse_strategy(
        strategy.value if isinstance(strategy, Strategy) else strategy, backends
    )
    stance = adjudicate(analysis)
    method: dict[str, Any] = {
        "stance": f"{STANCE_METHOD} (delta={analysis.score.delta})",
        "evidence_rationale": "a-stage tag, confidence and key sentence",
        "resolution": analysis.resolution.rule,
        "conflict_type": analysis.verdict.method,
        "answer_ranker": _ranker_method(analysis),
    }
    conflict = conflict_statement(analysis, stance)
    predicted_type = None
    if strategy is Strategy.EXTRACTIVE:
        sentences = extractive_answer(analysis)
        method["generation"] = f"extractive:{analysis.resolution.rule}"
    else:
        llm = _require_llm(backends)
        reply = llm_answer(analysis, llm, strategy, gold_type, cache=cache)
        sentences = reply.sentences
        method["generation"] = f"llm:{llm.model_id}:{strategy.value}"
        method["generation_type_source"] = reply.type_source
        if reply.dropped_cites:
            method["dropped_citations"] = list(reply.dropped_cites)
        if reply.conflict:
            conflict = f"{conflict} Model: {reply.conflict}"
        predicted_type = reply.predicted_type.value if reply.predicted_type else None
    violations = citation_violations(analysis, sentences)
    if violations:
        method["citation_violations"] = violations
    parametric = _parametric(analysis, backends, sentences, check_parametric, cache)
    method["parametric"] = parametric.status
    return Answer(
        query=analysis.query,
        stance=stance,
        evidence=evidence_table(analysis),
        sentences=sentences,
        conflict=conflict,
        method=method,
        parametric=parametric,
        predicted_type=predicted_type,
    )


def _ranker_method(analysis: Analysis) -> str:
    """Which ranker chose the leading answer: the trained one, the rule's votes, or none
    (no candidate answers: claims, yes/no and sentence answers)."""
    frame = analysis.tagging.frame
    if "+ranker:" in frame.method:
        return frame.method.split("+ranker:", 1)[1]
    return f"rule votes ({frame.method})" if frame.candidates else "none (no candidate answers)"


def _require_llm(backends: Backends) -> Generator:
    if backends.llm is None:
        raise CapabilityError("this strategy needs an LLM (--llm PATH.gguf or --llm-url URL)")
    return backends.llm


def _parametric(
    analysis: Analysis,
    backends: Backends,
    sentences: Any,
    enabled: bool,
    cache: JudgmentCache | None,
) -> ParametricCheck:
    if backends.llm is None:
        return ParametricCheck(ran=False, status=NO_LLM)
    if not enabled:
        return ParametricCheck(ran=False, status="not run: disabled")
    open_book = " ".join(s.text for s in sentences)
    return parametric_check(analysis.query, open_book, backends.llm, cache=cache)


def ask(
    query: str,
    passages: Sequence[Passage],
    backends: Backends,
    *,
    cache: JudgmentCache | None = None,
    strategy: Strategy | str | None = None,
    gold_type: ConflictType | None = None,
    record_id: Any = None,
    check_parametric: bool = True,
    on_event: Callable[[str, Any], None] | None = None,
    options: AnalysisOptions | None = None,
) -> tuple[Analysis, Answer, dict[str, Any]]:
    """The whole `ask` job on given passages: analysis (with `options`), answer and the batch
    JSON record."""
    from conflictdesk.analysis.pipeline import analyze
    from conflictdesk.generation.report import batch_record

    if not passages:
        raise InputError("no passages to answer from (empty collection or no match)")
    analysis = analyze(
        query, list(passages), backends, cache=cache, on_event=on_event, options=options
    )
    result = answer(
        analysis,
        backends,
        strategy,
        gold_type=gold_type,
        check_parametric=check_parametric,
        cache=cache,
    )
    if on_event is not None:
        on_event("answer", result)
    return analysis, result, batch_record(record_id, analysis, result)
