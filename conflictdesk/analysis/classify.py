"""The evidence set's conflict type in the CONFLICTS taxonomy (Cattan et al.).

With a GGUF model: the paper's Figure 2 prompt, answered as JSON {explanation, category}.
Without one, the trained type model over measured signals (`type_model`, method
"model:<id>"), the default, with one guard from the taxonomy's definition: a yes/no
question (or a claim) on which every on-topic passage that takes a side takes the same one,
each confidently (tag confidence ≥ UNANIMOUS_CONFIDENCE), has no conflict — there are no two
sides to weigh —, whatever the model says (`unanimous_statement`; method
"model:<id>+unanimous"). The rule classifier below (method "rules") is kept as the baseline
the model is compared with; it reads no phrases:

1. Conflict is present when a pair of packet passages conflicts (ConflictRAG) or when κ ≥ τ
   with both Support and Refute mass (ConRAG's trigger). Without conflict: "complementary"
   when distinct answers stand side by side and no on-topic packet passage refutes (a
   wh-question whose on-topic packet passages hold different answers — a passage that
   entails the leading answer holds it —, or a yes/no question or claim supported by
   passages in two or more distinct clusters), else "no_conflict". A conflict whose
   passages all hold the same answer (wh) or stance has fewer than two sides: it is not a
   conflict about the question, and rule 1 applies.
2. "outdated": temporal pairs are the most frequent type of the conflicting pairs, or the
   conflicting answers are separated in time (every passage of one answer is dated strictly
   earlier than every passage of the other, by metadata or by dates in the text other than
   the answer itself).
3. "conflicting_opinions": opinion pairs are the most frequent type, or a yes/no question
   (or claim) whose two sides are balanced (minority share > 1/3).
4. "misinformation": the rest — a factual conflict over a verifiable answer, typically a
   small minority against a majority (minority share ≤ 1/3 of the conflict's mass).
The verdict records the rationale and the signals the rule read."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

import numpy as np

from conflictdesk.analysis.calls import llm_json
from conflictdesk.analysis.dates import passage_date
from conflictdesk.analysis.type_model import TypeModel, classify_by_model
from conflictdesk.analysis.types import (
    Cluster,
    ConflictPair,
    ConflictScore,
    ConflictVerdict,
    PairDetection,
    PassageTag,
    QueryForm,
    Tagging,
)
from conflictdesk.analysis.typing_features import Evidence
from conflictdesk.backends.base import Generator, JudgmentCache
from conflictdesk.errors import ModelOutputError
from conflictdesk.types import ConflictType, PairType, Passage, Tag

MINORITY_SHARE = 1.0 / 3.0
CATEGORIES = (
    ConflictType.NO_CONFLICT,
    ConflictType.COMPLEMENTARY,
    ConflictType.CONFLICTING_OPINIONS,
    ConflictType.OUTDATED,
    ConflictType.MISINFORMATION,
)

FIGURE2_PROMPT = """You are tasked with analyzing the search results provided for a given query \
and classifying the type of knowledge conflict present (if any). Consider the query and the search \
results carefully, then classify the conflict into *one* of the following categories, using the \
descriptions and examples provided below.
1. **No Conflict:** The search results refer to the same concept and are in agreement. Differences \
are superficial, such as variations in detail or granularity.
* *Example:*
* *Query:* What is the meaning of the name Apoorva?
* *Search Results:* Unique, Quite new, Not seen before
2. **Complementary Information:** The question is underspecified or allows for multiple valid \
perspectives or answers that do not contradict each other. All provided answers can be considered \
correct.
* *Example:*
* *Query:* Is public transportation faster than driving in cities?
* *Search Results:* Depends on the city and situation (e.g., rush hour vs. off-peak), specific \
routes matter, availability of parking is relevant.
3. **Conflicting Opinions or Research Outcomes:** The query addresses a subjective or contentious \
topic, leading to genuinely opposing viewpoints or contradictory research findings.
* *Example:*
* *Query:* Is online learning as effective as traditional classroom learning?
* *Search Results:* Some sources argue "yes," citing flexibility and accessibility. Others argue \
"no," emphasizing the importance of in-person interaction.
4. **Conflict Due to Outdated Information:** The question has a verifiable factual answer, but the \
search results contain conflicting information due to changes over time.
* *Example:*
* *Query:* Do Tesla and X Corp. have the same CEO?
* *Search Results:* Some articles say yes (dated before the change), others say no (dated after \
the change).
5. **Conflict Due to Misinformation:** The question has a verifiable factual answer, but some of \
the search results contain factually incorrect or misleading information.
* *Example:*
* *Query:* What is the capital of Israel?
* *Search Results:* One source correctly states Jerusalem, while another incorrectly states Tel Aviv.
**Input:**
* QUERY: {query}
* SEARCH RESULTS: {search_results}
**Output:**
Please provide your response as a JSON object with the following fields:
- * **explanation:** (String) A brief explanation of why you chose this category.
- * **category:** (Integer) The number (1-5) corresponding to the category of the knowledge \
conflict."""

FIGURE2_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "explanation": {"type": "string"},
        "category": {"type": "integer", "minimum": 1, "maximum": 5},
    },
    "required": ["explanation", "category"],
}


def format_search_results(passages: Sequence[Passage]) -> str:
    """Each result as "[id] title (date, source): text", one per line."""
    lines = []
    for p in passages:
        meta = ", ".join(x for x in (p.date, p.source or p.url) if x)
        head = " ".join(x for x in (p.title or "", f"({meta})" if meta else "") if x)
        lines.append(f"[{p.id}] {head + ': ' if head else ''}{p.text}")
    return "\n".join(lines)


def classify_with_llm(
    query: str, passages: Sequence[Passage], llm: Generator, cache: JudgmentCache | None = None
) -> ConflictVerdict:
    """CONFLICTS Figure 2 prompt, JSON answer; a malformed answer raises ModelOutputError."""
    prompt = FIGURE2_PROMPT.format(query=query, search_results=format_search_results(passages))
    answer = llm_json(
        llm,
        [{"role": "user", "content": prompt}],
        FIGURE2_SCHEMA,
        stage="classify",
        cache=cache,
        max_tokens=300,
    )
    category = answer.get("category") if isinstance(answer, dict) else None
    if isinstance(category, str) and category.strip().isdigit():
        category = int(category.strip())
    if not isinstance(category, int) or not 1 <= category <= 5:
        raise ModelOutputError(f"conflict category is not 1-5: {answer!r}")
    return ConflictVerdict(
        CATEGORIES[category - 1],
        str(answer.get("explanation", "")),
        f"llm:{llm.model_id}",
        {"category": category},
    )


def classify_conflict(
    query: str,
    packet: Sequence[Passage],
    tagging: Tagging,
    clusters: Sequence[Cluster],
    score: ConflictScore,
    detection: PairDetection,
    *,
    llm: Generator | None = None,
    cache: JudgmentCache | None = None,
    tau: float = 0.5,
    type_model: TypeModel | None = None,
    vectors: Mapping[int, np.ndarray] | None = None,
    query_vector: np.ndarray | None = None,
) -> ConflictVerdict:
    """The CONFLICTS type of the packet: the LLM's Figure 2 answer, else the type model's,
    else (no model given) the rules."""
    if llm is not None:
        return classify_with_llm(query, packet, llm, cache)
    if type_model is not None:
        evidence = Evidence(
            query, packet, tagging, clusters, score, detection, vectors, query_vector
        )
        return _unless_unanimous(classify_by_model(type_model, evidence), tagging, packet)
    return classify_by_rules(query, packet, tagging, clusters, score, detection, tau=tau)


# Chosen on ConflictQA DEV pairs (yes/no questions, 32 agreeing and 150 conflicting, one per
# question) and typed_dev among 0.5-0.9: the highest question-level conflict F1 there
# (0.918 against 0.904 without the guard) that changes no typed_dev case; 0.9 almost never
# fires, 0.7 and below also overrule typed_dev opinion and misinformation cases.
UNANIMOUS_CONFIDENCE = 0.8


def unanimous_statement(tagging: Tagging, packet: Sequence[Passage]) -> tuple[Tag, int] | None:
    """(the side, how many passages take it) when the question is a yes/no question or a
    claim and every on-topic packet passage that takes a side (support or refute) takes the
    same one with confidence ≥ UNANIMOUS_CONFIDENCE; None otherwise."""
    if tagging.frame.form is QueryForm.WH:
        return None
    tags = tagging.by_id()
    polar = [tags[p.id] for p in packet if p.id in tags and tags[p.id].on_topic
             and tags[p.id].tag is not Tag.IRRELEVANT]  # fmt: skip
    sides = {t.tag for t in polar}
    if len(sides) != 1 or min(t.confidence for t in polar) < UNANIMOUS_CONFIDENCE:
        return None
    return sides.pop(), len(polar)


def _unless_unanimous(
    verdict: ConflictVerdict, tagging: Tagging, packet: Sequence[Passage]
) -> ConflictVerdict:
    """The model's verdict, or no_conflict when the statement is unanimous (module docstring)."""
    unanimous = unanimous_statement(tagging, packet)
    if unanimous is None or verdict.type is ConflictType.NO_CONFLICT:
        return verdict
    side, count = unanimous
    word = "support" if side is Tag.SUPPORT else "refute"
    why = (f"every on-topic passage that takes a side ({count}) {word}s the statement, each "
           f"with confidence ≥ {UNANIMOUS_CONFIDENCE:.1f}: no two sides, so no conflict "
           f"(the type model said {verdict.type.value}, p={verdict.confidence:.2f})")  # fmt: skip
    signals = {**verdict.signals, "unanimous": {"side": side.value, "passages": count}}
    # no calibrated probability: the definition decided, not the model (its probabilities
    # stay in the signals)
    return ConflictVerdict(ConflictType.NO_CONFLICT, why, f"{verdict.method}+unanimous", signals)


def classify_by_rules(
    query: str,
    packet: Sequence[Passage],
    tagging: Tagging,
    clusters: Sequence[Cluster],
    score: ConflictScore,
    detection: PairDetection,
    *,
    tau: float = 0.5,
) -> ConflictVerdict:
    """The documented rule classifier (module docstring); `tau` is ConRAG's κ threshold."""
    tags = tagging.by_id()
    in_packet = {p.id for p in packet}
    conflicting = [p for p in detection.conflicting if p.i in in_packet and p.j in in_packet]
    type_counts = Counter(p.pair_type.value for p in conflicting)
    signals: dict[str, Any] = {
        "kappa": round(score.kappa, 4),
        "conflicting_pairs": len(conflicting),
        "pair_types": dict(type_counts),
        "form": tagging.frame.form.value,
    }
    both_sides = score.u_support > 0 and score.u_refute > 0
    tag_conflict = both_sides and score.kappa >= tau
    signals["tag_conflict"] = tag_conflict
    if not conflicting and not tag_conflict:
        return _without_conflict(packet, tags, clusters, tagging, signals)
    sides = _sides(conflicting, tags, tagging, packet)
    signals["sides"] = len(sides)
    if len(sides) < 2:  # every passage in conflict holds the same answer or stance
        return _without_conflict(packet, tags, clusters, tagging, signals)
    share = _minority_share(sides, tags, tagging.frame.form)
    signals["minority_share"] = round(share, 4)
    plurality = type_counts.most_common(1)[0][0] if type_counts else PairType.FACTUAL.value
    outdated = _outdated_reason(packet, tags, sides, plurality, signals)
    if outdated:
        return _verdict(ConflictType.OUTDATED, outdated, signals)
    opinions = _opinion_reason(plurality, share, tagging.frame.form)
    if opinions:
        return _verdict(ConflictType.CONFLICTING_OPINIONS, opinions, signals)
    split = "a minority" if share <= MINORITY_SHARE else "one side"
    return _verdict(
        ConflictType.MISINFORMATION,
        f"a factual conflict over a verifiable answer: {split} ({share:.0%} of the evidence) "
        "contradicts the rest",
        signals,
    )


def _outdated_reason(
    packet: Sequence[Passage],
    tags: dict[int, PassageTag],
    sides: Sequence[set[int]],
    plurality: str,
    signals: dict[str, Any],
) -> str | None:
    """Rule 2 of the module docstring; None when it does not apply."""
    if plurality == PairType.TEMPORAL.value:
        return "the conflicting pairs are mostly temporal"
    separated, evidence = _time_separated(sides, packet, tags)
    signals["time_separated"] = separated
    if separated:
        return f"the conflicting answers differ in time ({evidence})"
    return None


def _opinion_reason(plurality: str, share: float, form: QueryForm) -> str | None:
    """Rule 3 of the module docstring; None when it does not apply."""
    if plurality == PairType.OPINION.value:
        return "the conflicting pairs are mostly opinions"
    if form is not QueryForm.WH and share > MINORITY_SHARE:
        return "both sides of a yes/no question carry comparable evidence"
    return None


def _verdict(kind: ConflictType, why: str, signals: dict[str, Any]) -> ConflictVerdict:
    return ConflictVerdict(kind, why, "rules", signals)


def _without_conflict(
    packet: Sequence[Passage],
    tags: dict[int, PassageTag],
    clusters: Sequence[Cluster],
    tagging: Tagging,
    signals: dict[str, Any],
) -> ConflictVerdict:
    """Rule 1: complementary when distinct answers stand side by side and none refutes."""
    on_topic = [p.id for p in packet if tags[p.id].on_topic]
    if any(tags[pid].tag is Tag.REFUTE for pid in on_topic):
        why = "a passage leans against the others but no pair of them conflicts"
        return _verdict(ConflictType.NO_CONFLICT, why, signals)
    if tagging.frame.form is QueryForm.WH:
        groups = _answer_groups(on_topic, tags, tagging)
        signals["answers"] = sorted(groups)
        if len(groups) > 1:
            why = f"on-topic passages give {len(groups)} different answers, none refuted"
            return _verdict(ConflictType.COMPLEMENTARY, why, signals)
    else:
        supporting = {c.id for c in clusters for pid in c.members if pid in on_topic
                      and tags[pid].tag is Tag.SUPPORT}  # fmt: skip
        signals["supporting_clusters"] = len(supporting)
        if len(supporting) > 1:
            why = f"{len(supporting)} distinct clusters support the claim, none refutes it"
            return _verdict(ConflictType.COMPLEMENTARY, why, signals)
    why = "no pair of packet passages conflicts and the on-topic passages agree"
    return _verdict(ConflictType.NO_CONFLICT, why, signals)


def _answer_of(t: PassageTag, leading: str) -> str:
    """The answer a passage holds, lower-cased: the leading answer when it entails it
    (Support) whatever its own wording, else its own candidate answer ("" for none)."""
    if t.tag is Tag.SUPPORT and leading:
        return leading.lower()
    return (t.answer or "").lower()


def _answer_groups(
    on_topic: Sequence[int], tags: dict[int, PassageTag], tagging: Tagging
) -> dict[str, list[int]]:
    """On-topic passages by the answer they hold; one with no answer is left out."""
    groups: dict[str, list[int]] = {}
    for pid in on_topic:
        answer = _answer_of(tags[pid], tagging.frame.leading or "")
        if answer:
            groups.setdefault(answer, []).append(pid)
    return groups


def _sides(
    conflicting: Sequence[ConflictPair],
    tags: dict[int, PassageTag],
    tagging: Tagging,
    packet: Sequence[Passage],
) -> list[set[int]]:
    """The sides of the conflict: the passages of conflicting pairs and the on-topic packet
    passages tagged Support or Refute, plus (wh) those holding the same answers, grouped by
    answer (wh, `_answer_of`) or tag; a passage with neither takes no side."""
    wh, leading = tagging.frame.form is QueryForm.WH, tagging.frame.leading or ""
    involved = {pid for p in conflicting for pid in (p.i, p.j)}
    involved |= {
        p.id for p in packet if tags[p.id].on_topic and tags[p.id].tag is not Tag.IRRELEVANT
    }
    answers = {_answer_of(tags[pid], leading) for pid in involved} - {""}
    if wh:
        involved |= {p.id for p in packet if _answer_of(tags[p.id], leading) in answers}
    groups: dict[str, set[int]] = {}
    for pid in involved:
        t = tags[pid]
        label = _answer_of(t, leading) if wh else ""
        if not label and t.tag is not Tag.IRRELEVANT:
            label = f"tag:{t.tag.value}"
        if label:  # a passage with neither an answer nor a stance takes no side
            groups.setdefault(label, set()).add(pid)
    return sorted(groups.values(), key=lambda g: (-len(g), min(g)))


def _minority_share(
    sides: Sequence[set[int]], tags: dict[int, PassageTag], form: QueryForm
) -> float:
    """Mass of all but the largest side over the total (mass = passage count, or tag mass)."""
    if len(sides) < 2:
        return 0.0
    sizes = [float(len(side)) for side in sides]
    if form is not QueryForm.WH:
        sizes = [sum(tags[pid].confidence for pid in side) for side in sides]
    total = sum(sizes)
    return (total - max(sizes)) / total if total else 0.0


def _time_separated(
    sides: Sequence[set[int]], packet: Sequence[Passage], tags: dict[int, PassageTag]
) -> tuple[bool, str]:
    """True when the sides' date ranges do not overlap (every date known)."""
    by_id = {p.id: p for p in packet}
    ranges = []
    for side in sides:
        dated = []
        for pid in side:
            answer = tags[pid].answer
            found = passage_date(by_id[pid], {answer.lower()} if answer else set())
            if found is None:
                return False, "some passages are undated"
            dated.append(found[0])
        ranges.append((min(dated), max(dated)))
    if len(ranges) < 2:
        return False, "one side only"
    ranges.sort()
    separated = all(earlier[1] < later[0] for earlier, later in pairwise(ranges))
    spans = "; ".join(f"{a.isoformat()}..{b.isoformat()}" for a, b in ranges)
    return separated, spans
