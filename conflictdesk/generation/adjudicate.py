"""ConRAG's G-stage protocol: sort (the evidence table), adjudicate (the stance) and the
checks that bind answer sentences to citations (cite)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from conflictdesk.analysis.types import Analysis, PassageTag, Stance
from conflictdesk.generation.types import (
    AnswerSentence,
    EvidenceRow,
    EvidenceTable,
    SentenceRole,
)
from conflictdesk.types import Tag

RATIONALE_CHARS = 160


def evidence_table(analysis: Analysis) -> EvidenceTable:
    """Step 1 (Sort): the packet's passages in three lists, each with a one-line rationale.

    The rationale is the A-stage's reading of the passage: its tag and confidence, the
    candidate answer it holds (wh-questions) and its most query-relevant sentence."""
    tags = analysis.tagging.by_id()
    rows: dict[Tag, list[EvidenceRow]] = {tag: [] for tag in Tag}
    for passage_id in analysis.packet.passage_ids:
        tag = tags[passage_id]
        rows[tag.tag].append(EvidenceRow(passage_id, tag.tag, tag.confidence, rationale(tag)))
    return EvidenceTable(
        support=tuple(rows[Tag.SUPPORT]),
        refute=tuple(rows[Tag.REFUTE]),
        irrelevant=tuple(rows[Tag.IRRELEVANT]),
    )


def rationale(tag: PassageTag) -> str:
    """One line: `<tag> (<confidence>)[, answers "<answer>"]: "<key sentence>"`."""
    head = f"{tag.tag.value} ({tag.confidence:.2f})"
    if tag.answer:
        head += f', answers "{tag.answer}"'
    sentence = " ".join(tag.key_sentence.split())
    if len(sentence) > RATIONALE_CHARS:
        sentence = sentence[: RATIONALE_CHARS - 1].rstrip() + "…"
    return f'{head}: "{sentence}"' if sentence else head


def adjudicate(analysis: Analysis) -> Stance:
    """Step 2 (Adjudicate): the stance from the A-stage's δ rule (`analysis.score`), which
    owns ConRAG's decision; the G-stage never overrides it with a model's opinion."""
    return analysis.score.stance


def sides(analysis: Analysis, ids: Iterable[int]) -> tuple[list[int], list[int]]:
    """The supporting and refuting passages among `ids`, in the given order."""
    tags = analysis.tagging.by_id()
    support = [i for i in ids if tags[i].tag is Tag.SUPPORT]
    refute = [i for i in ids if tags[i].tag is Tag.REFUTE]
    return support, refute


def citation_violations(analysis: Analysis, sentences: Sequence[AnswerSentence]) -> list[str]:
    """Step 3 (Cite) checks: claims cite a packet passage, sentences about the disagreement
    cite both a supporting and a refuting passage when the packet holds both sides."""
    packet = set(analysis.packet.passage_ids)
    has_both = all(sides(analysis, analysis.packet.passage_ids))
    problems: list[str] = []
    for index, sentence in enumerate(sentences, start=1):
        outside = [c for c in sentence.cites if c not in packet]
        if outside:
            problems.append(f"sentence {index} cites passages outside the packet: {outside}")
        if sentence.role is SentenceRole.CLAIM and not sentence.cites:
            problems.append(f"sentence {index} is a claim without a citation")
        if sentence.role is SentenceRole.CONFLICT and has_both:
            support, refute = sides(analysis, sentence.cites)
            if not (support and refute):
                problems.append(
                    f"sentence {index} states the disagreement without citing both sides"
                )
    return problems


def conflict_statement(analysis: Analysis, stance: Stance) -> str:
    """The explicit conflict explanation ConRAG requires, from the evidence structure."""
    support, refute = sides(analysis, analysis.packet.passage_ids)
    frame = analysis.tagging.frame
    claim = f'"{frame.leading}"' if frame.leading else f'"{frame.hypothesis}"'
    kind = analysis.verdict.type.value.replace("_", " ")
    if analysis.verdict.uncertain:
        kind += " (uncertain: a reviewer should look)"
    answers = packet_answers(analysis)
    if len(answers) > 1 and not (support and refute):
        # The tags read every passage against the leading answer's claim; passages that give
        # another value can still read as support or neutral, so "no disagreement" would be
        # false: the answers themselves differ.
        listed = "; ".join(f'"{text}" {_ids(ids)}' for text, ids in answers[:MAX_LISTED])
        more = f"; and {len(answers) - MAX_LISTED} more" if len(answers) > MAX_LISTED else ""
        return (
            f"The passages give {len(answers)} different answers: {listed}{more}; "
            f"conflict type: {kind}."
        )
    if stance is Stance.NOT_ENOUGH_INFO:
        return f"Not enough information: no passage in the evidence supports or refutes {claim}."
    if not refute:
        return f"No disagreement: {len(support)} passage(s) support {claim} and none refute it."
    if not support:
        return (
            f"No disagreement: {len(refute)} passage(s) {_ids(refute)} contradict {claim} and "
            "none supports it."
        )
    lead = {Stance.SUPPORT: "Mostly supported", Stance.REFUTE: "Mostly refuted"}.get(
        stance, "Disputed"
    )
    return (
        f"{lead} (κ = {analysis.kappa:.2f}): {len(support)} passage(s) {_ids(support)} support "
        f"{claim} while {len(refute)} {_ids(refute)} contradict it; conflict type: {kind}."
    )


MAX_LISTED = 4  # answers named in the conflict statement


def packet_answers(analysis: Analysis) -> list[tuple[str, tuple[int, ...]]]:
    """The wh-question's candidate answers held by packet passages, each with those passages
    (the reading's order: most votes first)."""
    packet = set(analysis.packet.passage_ids)
    held = []
    for candidate in analysis.tagging.frame.candidates:
        ids = tuple(pid for pid in candidate.passage_ids if pid in packet)
        if ids and candidate.kind != "sentence":
            held.append((candidate.text, ids))
    return held


def _ids(ids: Sequence[int]) -> str:
    return "[" + ", ".join(str(i) for i in ids) + "]"
