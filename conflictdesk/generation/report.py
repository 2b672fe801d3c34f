"""The two forms of an answer: the batch JSON record and the human-readable report."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from conflictdesk.analysis.types import Analysis, QueryForm, Tagging
from conflictdesk.generation.types import Answer, AnswerSentence, EvidenceRow, SentenceRole

WIDTH = 100


def batch_record(record_id: Any, analysis: Analysis, result: Answer) -> dict[str, Any]:
    """The `ask` batch schema: id, stance, conflict_type, type_confidence (the type model's
    probability of it; null for a rule or an LLM), type_uncertain (below the model's
    threshold: a reviewer should look), kappa, leading (`leading_answer`: the short answer
    of a wh-question, else null), evidence, clusters, pairs (the conflicting ones), answer
    [{sent, cites}], conflict, method."""
    confidence = analysis.verdict.confidence
    return {
        "id": record_id,
        "stance": result.stance.value,
        "conflict_type": analysis.verdict.type.value,
        "type_confidence": None if confidence is None else round(confidence, 6),
        "type_uncertain": analysis.verdict.uncertain,
        "kappa": round(analysis.kappa, 6),
        "leading": leading_answer(analysis, result),
        "evidence": {
            name: [_row_json(row) for row in getattr(result.evidence, name)]
            for name in ("support", "refute", "irrelevant")
        },
        "clusters": [c.to_json() for c in analysis.clusters],
        "pairs": [p.to_json() for p in analysis.detection.conflicting],
        "answer": [s.as_json() for s in result.sentences],
        "conflict": result.conflict,
        "method": {**analysis.methods, **result.method},
    }


def leading_answer(analysis: Analysis, result: Answer) -> dict[str, Any] | None:
    """The short answer a wh-question's answer leads with, {"text", "passages", "by"}; None
    for other questions or when the reading found no answer (`short_answer`)."""
    return short_answer(analysis.tagging, analysis.resolution.rule, result.sentences)


def short_answer(
    tagging: Tagging, rule: str, sentences: Sequence[AnswerSentence]
) -> dict[str, Any] | None:
    """{"text", "kind", "passages", "by"}. Under the recency rule (outdated information) the
    answer the passage cited first by the answer's first claim gives: the newest source's
    ("by": "recency"), as the answer text leads. Otherwise the reading's most voted answer
    (`ClaimFrame.leading`, "by": "votes"), with the passages that hold it. "kind" is the
    reading's ("number", "date", "entity", or "sentence" when the answer read is a whole
    sentence: the report and the TUI do not repeat it), "text" for a passage's answer the
    reading did not list as a candidate. None for a question that is not a
    wh-question, or when the reading found no answer."""
    frame = tagging.frame
    if frame.form is not QueryForm.WH or not frame.leading:
        return None
    kinds = {c.text: c.kind for c in frame.candidates}
    if rule == "recency":
        answers = {t.passage_id: t.answer for t in tagging.tags if t.answer}
        first = next((s for s in sentences if s.role is SentenceRole.CLAIM), None)
        for passage_id in first.cites if first else ():
            if passage_id in answers:
                text = answers[passage_id]
                return {"text": text, "kind": kinds.get(text, "text"), "passages": [passage_id],
                        "by": "recency"}  # fmt: skip
    held = next((c for c in frame.candidates if c.text == frame.leading), None)
    passages = list(held.passage_ids) if held else []
    return {"text": frame.leading, "kind": kinds.get(frame.leading, "text"), "passages": passages,
            "by": "votes"}  # fmt: skip


def shown_short_answer(short: dict[str, Any] | None) -> bool:
    """Whether the report and the TUI show the short answer: not when it is a whole sentence,
    which the answer text already is."""
    return short is not None and short["kind"] != "sentence"


def short_answer_basis(short: dict[str, Any], rule: str) -> str:
    """What a short answer rests on, in words; under the complementary and opinion rules the
    sources give several answers, and the words say so."""
    if short["by"] == "recency":
        return "the newest source"
    if rule in ("consolidate", "viewpoints"):
        return "most passages; the sources give several answers"
    return "most passages"


def _row_json(row: EvidenceRow) -> dict[str, Any]:
    return {
        "id": row.passage_id,
        "confidence": round(row.confidence, 6),
        "rationale": row.rationale,
    }


def is_disputed(analysis: Analysis) -> bool:
    """The "disputed" badge: κ at or above the packet threshold τ (ConRAG's high conflict)
    with mass on both sides; κ is 1 − 0/ε = 1 when nothing supports or refutes, which is a
    lack of evidence, not a dispute."""
    score = analysis.score
    return score.u_support > 0 and score.u_refute > 0 and score.kappa >= analysis.packet.tau


def render_report(analysis: Analysis, result: Answer, width: int = WIDTH) -> str:
    """A plain-text report: badge, stance, type and why, evidence table, cited answer."""
    lines = [f"Q: {analysis.query}"]
    if analysis.asked != analysis.query:  # a keyword query or a request, reworded (wording.py)
        lines += _wrapped(f"   read as: {analysis.asked}", width, indent=13)
    lines.append("")
    badge = "[DISPUTED] " if is_disputed(analysis) else ""
    kind = analysis.verdict.type.value.replace("_", " ")
    lines.append(
        f"{badge}stance: {result.stance.value.replace('_', ' ')} · κ = {analysis.kappa:.2f} · "
        f"type: {kind}"
    )
    lines += _wrapped(f"why: {analysis.verdict.rationale} ({analysis.verdict.method})", width)
    lines += _wrapped(
        f"resolution: {analysis.resolution.rule} — {analysis.resolution.rationale}", width
    )
    lines += ["", "Evidence"]
    for name in ("support", "refute", "irrelevant"):
        rows = getattr(result.evidence, name)
        if not rows:
            lines.append(f"  {name:<10} (none)")
        for row in rows:
            lines += _wrapped(f"  {name:<10} [{row.passage_id}] {row.rationale}", width, indent=16)
    lines += ["", "Answer"]
    short = leading_answer(analysis, result)
    if shown_short_answer(short):
        cites = "".join(f"[{c}]" for c in short["passages"])
        by = short_answer_basis(short, analysis.resolution.rule)
        lines += _wrapped(f'  in short: "{short["text"]}" {cites} ({by})', width, indent=4)
    for sentence in result.sentences:
        cites = "".join(f"[{c}]" for c in sentence.cites)
        lines += _wrapped(f"  {sentence.text} {cites}".rstrip(), width, indent=4)
    lines += ["", *_wrapped(f"Conflict: {result.conflict}", width)]
    if result.parametric is not None:
        lines += _wrapped(f"Parametric check: {_parametric_line(result)}", width)
    lines += ["", "Sources"]
    cited = sorted({c for s in result.sentences for c in s.cites})
    for passage_id in cited:
        p = analysis.passage(passage_id)
        meta = ", ".join(x for x in (p.date, p.source or p.url) if x)
        lines += _wrapped(
            f"  [{passage_id}] {p.title or p.text[:60]}" + (f" ({meta})" if meta else ""),
            width,
            indent=6,
        )
    lines += [
        "",
        f"method: {result.method.get('generation')} · stance {result.method.get('stance')}",
    ]
    return "\n".join(lines)


def _parametric_line(result: Answer) -> str:
    check = result.parametric
    if check is None or not check.ran:
        return check.status if check else "not run"
    return f'{check.status}: closed-book answer "{check.closed_book}". {check.explanation or ""}'.strip()


def _wrapped(text: str, width: int, indent: int = 2) -> list[str]:
    return textwrap.wrap(text, width=width, subsequent_indent=" " * indent) or [""]
