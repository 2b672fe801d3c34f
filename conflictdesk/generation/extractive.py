"""The answer without an LLM: extracted sentences from the evidence packet, ordered and
framed by the resolution rule of the conflict type, each bound to its citations.

One sentence per evidence group: a group is a cluster's packet members that are not tagged
irrelevant and share a tag and a candidate answer (a cluster whose members disagree splits);
its representative is the member the resolution ranks first (newest, most credible or most
relevant) and its sentence is that passage's most query-relevant sentence
(`PassageTag.key_sentence`); it cites every member. Rules (CONFLICTS §2 expected behaviour):

- direct (no conflict): the leading group's sentence alone.
- consolidate (complementary): every group's sentence (the leading answer's first), without
  framing a debate, then one sentence for each other candidate answer that an on-topic
  packet passage tagged Irrelevant holds (`other_answers`): tagged against the claim of the
  leading answer, a passage giving a compatible other answer reads as neutral, and the rule
  combines every answer (session 13: answer recall QACC dev 0.480 → 0.588, RAMDocs EVAL
  0.809 → 0.830, gold citation precision 0.910 → 0.915 and 0.963 → 0.964; typed_dev answer
  coverage of complementary cases 0.489 → 0.556; `scripts/eval_ask.py`).
- viewpoints (opinions): a neutral note that sources disagree, then every viewpoint (no
  note when every group takes the same side with the same answer: nothing to disagree on).
- recency (outdated): newest first, each sentence with its date, then a note on older ones.
- entropy_topsis (misinformation, factual): the most credible group first, then each
  conflicting claim quoted and flagged as disputed, citing both sides (when the type is
  uncertain, flagged only as a disagreement).

Under direct, consolidate and entropy_topsis a wh-question's answer leads with the
best-ranked group that states the claim frame's leading answer (tagged Support), when one
does: a passage that supports the claim without stating the answer, ranked first, would
otherwise give a sentence that does not answer (`_leading_first`; typed_dev lead answer
recall 0.533 → 0.575, RAMDocs EVAL 0.649 → 0.638, QACC dev unchanged, on 2026-11-28; for
consolidate on 2026-12-02, once set-aside passages backed the leading answer: QACC dev
0.383 → 0.417, RAMDocs EVAL and typed_dev unchanged).

A yes/no question asks for yes or no: under the rules that give one answer (direct, recency,
entropy_topsis) the leading sentence opens with "Yes." when its passages support the
question's statement and "No." when they contradict it (their tag against the statement,
`tag.py`); consolidate and viewpoints, and leads tagged neither way, give no verdict."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from conflictdesk.analysis.types import Analysis, PassageTag, QueryForm
from conflictdesk.generation.adjudicate import sides
from conflictdesk.generation.types import AnswerSentence, SentenceRole
from conflictdesk.types import Tag

MAX_GROUPS = 5
NO_ANSWER = "The retrieved passages do not answer this question."


@dataclass(frozen=True)
class Group:
    """An evidence group: relevant packet members of one cluster with one tag and answer,
    representative first."""

    cluster_id: int
    ids: tuple[int, ...]
    cites: tuple[int, ...]
    sentence: str
    tag: Tag
    answer: str | None


def extractive_answer(analysis: Analysis) -> tuple[AnswerSentence, ...]:
    """Sentences for `analysis` by its resolution rule; an abstention when nothing is relevant."""
    groups = evidence_groups(analysis)
    if not groups:
        return (AnswerSentence(NO_ANSWER, (), SentenceRole.ABSTAIN),)
    build = RULES.get(analysis.resolution.rule)
    if build is None:
        raise ValueError(f"no extractive rule for resolution {analysis.resolution.rule!r}")
    if analysis.resolution.rule == "consolidate":
        groups = (groups + other_answers(analysis, groups))[:MAX_GROUPS]
    return tuple(build(analysis, groups))


def evidence_groups(analysis: Analysis) -> list[Group]:
    """Groups in resolution order (by their representative's rank), duplicates merged."""
    tags = analysis.tagging.by_id()
    rank = _rank(analysis)
    relevant = [i for i in analysis.packet.passage_ids if tags[i].tag is not Tag.IRRELEVANT]
    cluster_of = {m: c.id for c in analysis.clusters for m in c.members}
    by_key: dict[tuple[int, Tag, str], list[int]] = {}
    for passage_id in sorted(relevant, key=rank):
        tag = tags[passage_id]
        # A cluster whose members disagree (mixed tags or answers) splits into one group per
        # side, so that no side of a disagreement is lost inside a mixed cluster.
        key = (cluster_of.get(passage_id, -1 - passage_id), tag.tag, (tag.answer or "").lower())
        by_key.setdefault(key, []).append(passage_id)
    groups = [_group(analysis, key[0], ids, tags) for key, ids in by_key.items()]
    groups.sort(key=lambda g: rank(g.ids[0]))
    return _merge_same(groups)[:MAX_GROUPS]


def other_answers(analysis: Analysis, groups: Sequence[Group]) -> list[Group]:
    """Groups of the packet's on-topic passages tagged Irrelevant that hold a candidate answer
    no group holds, one per answer, in resolution order: against the claim of the leading
    answer, a passage giving another, compatible answer reads as neutral, and a
    complementary answer combines every answer."""
    tags = analysis.tagging.by_id()
    held = {(g.answer or "").lower() for g in groups}
    rank = _rank(analysis)
    by_answer: dict[str, list[int]] = {}
    for passage_id in sorted(analysis.packet.passage_ids, key=rank):
        tag = tags[passage_id]
        answer = (tag.answer or "").lower()
        if tag.tag is Tag.IRRELEVANT and tag.on_topic and answer and answer not in held:
            by_answer.setdefault(answer, []).append(passage_id)
    return [_group(analysis, -1, ids, tags) for ids in by_answer.values()]


def _rank(analysis: Analysis) -> Callable[[int], tuple[int, int]]:
    ranking = {pid: pos for pos, pid in enumerate(analysis.resolution.ranking)}
    packet = {pid: pos for pos, pid in enumerate(analysis.packet.passage_ids)}
    return lambda pid: (ranking.get(pid, len(ranking)), packet.get(pid, len(packet)))


def _group(
    analysis: Analysis, cluster_id: int, ids: list[int], tags: dict[int, PassageTag]
) -> Group:
    lead = tags[ids[0]]
    sentence = lead.key_sentence.strip() or _first_sentence(analysis.passage(ids[0]).text)
    return Group(cluster_id, tuple(ids), tuple(ids), _as_sentence(sentence), lead.tag, lead.answer)


def _merge_same(groups: list[Group]) -> list[Group]:
    """Groups holding the same sentence become one that cites both."""
    merged: list[Group] = []
    for group in groups:
        twin = next((g for g in merged if g.sentence == group.sentence), None)
        if twin is None:
            merged.append(group)
            continue
        index = merged.index(twin)
        merged[index] = Group(
            twin.cluster_id,
            twin.ids + group.ids,
            twin.cites + tuple(c for c in group.cites if c not in twin.cites),
            twin.sentence,
            twin.tag,
            twin.answer,
        )
    return merged


def _first_sentence(text: str) -> str:
    from conflictdesk.text import split_sentences

    spans = split_sentences(text)
    return spans[0][2] if spans else text.strip()


def _as_sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text[-1:] in ".!?\"”')" else text + "."


def _claim(group: Group, prefix: str = "") -> AnswerSentence:
    return AnswerSentence(prefix + group.sentence, group.cites, SentenceRole.CLAIM)


VERDICTS = {Tag.SUPPORT: "Yes. ", Tag.REFUTE: "No. "}


def _verdict(analysis: Analysis, group: Group) -> str:
    """ "Yes. " / "No. " before the leading sentence of a yes/no question (module docstring)."""
    if analysis.tagging.frame.form is not QueryForm.YES_NO:
        return ""
    return VERDICTS.get(group.tag, "")


def _agrees(a: Group, b: Group) -> bool:
    return a.tag is b.tag and (a.answer == b.answer or not (a.answer and b.answer))


def _both_sides(analysis: Analysis, first: Sequence[int], rest: Sequence[int]) -> tuple[int, ...]:
    """Citations for a sentence about a disagreement: the given passages plus, when they
    all sit on one side, the leading passage of the other side in the packet."""
    cites = list(dict.fromkeys([*first, *rest]))
    support, refute = sides(analysis, cites)
    if not (support and refute):
        all_support, all_refute = sides(analysis, analysis.packet.passage_ids)
        missing = all_refute if support else all_support
        cites += missing[:1]
    return tuple(cites)


def _leading_first(analysis: Analysis, groups: list[Group]) -> list[Group]:
    """For a wh-question, the best-ranked group holding the frame's leading answer moves to
    the front (the others keep their order); unchanged when none holds it."""
    leading = analysis.tagging.frame.leading
    if analysis.tagging.frame.form is not QueryForm.WH or not leading:
        return groups
    holder = next((g for g in groups if g.answer == leading and g.tag is Tag.SUPPORT), None)
    if holder is None or holder is groups[0]:
        return groups
    return [holder, *(g for g in groups if g is not holder)]


def _direct(analysis: Analysis, groups: list[Group]) -> list[AnswerSentence]:
    groups = _leading_first(analysis, groups)
    lead = groups[0]
    extra = [c for g in groups[1:] if _agrees(lead, g) and lead.answer for c in g.cites]
    sentence = _verdict(analysis, lead) + lead.sentence
    return [AnswerSentence(sentence, lead.cites + tuple(extra), SentenceRole.CLAIM)]


def _consolidate(analysis: Analysis, groups: list[Group]) -> list[AnswerSentence]:
    return [_claim(group) for group in _leading_first(analysis, groups)]


def _viewpoints(analysis: Analysis, groups: list[Group]) -> list[AnswerSentence]:
    # The note says the sources disagree: only when some group takes another side (tag) or
    # holds another answer than the first; agreeing groups of other clusters are listed as
    # they are.
    if not any(not _agrees(groups[0], g) for g in groups[1:]):
        return [_claim(group) for group in groups]
    note = AnswerSentence(
        "The sources take different positions on this question; each view is given with its sources.",
        _both_sides(analysis, [g.cites[0] for g in groups], []),
        SentenceRole.CONFLICT,
    )
    return [note] + [_claim(group) for group in groups]


def _recency(analysis: Analysis, groups: list[Group]) -> list[AnswerSentence]:
    # The resolution ranks newest first; groups keep that order, undated ones go last.
    dated = [g for g in groups if _date(analysis, g.ids[0])]
    undated = [g for g in groups if not _date(analysis, g.ids[0])]
    out = []
    for position, group in enumerate(dated + undated):
        when = _date(analysis, group.ids[0])
        if when is None:
            prefix = "Undated: "
        else:
            prefix = f"As of {when}: " if position == 0 else f"Earlier ({when}): "
        out.append(_claim(group, prefix + (_verdict(analysis, group) if position == 0 else "")))
    newest, older = (dated + undated)[0], (dated + undated)[1:]
    if any(not _agrees(newest, g) for g in older):
        out.append(
            AnswerSentence(
                "Older sources give different information; the most recent source is given first.",
                _both_sides(analysis, newest.cites[:1], [g.cites[0] for g in older]),
                SentenceRole.CONFLICT,
            )
        )
    return out


def _date(analysis: Analysis, passage_id: int) -> str | None:
    return analysis.resolution.dates.get(passage_id) or analysis.passage(passage_id).date


def _credible(analysis: Analysis, groups: list[Group]) -> list[AnswerSentence]:
    groups = _leading_first(analysis, groups)
    lead = groups[0]
    out = [_claim(lead, _verdict(analysis, lead))]
    # an uncertain type (below the type model's threshold) does not assert that the other
    # source is the less credible one: it only says the sources disagree
    flag = (
        "Another source disagrees (the conflict's type is uncertain; a reviewer should look)"
        if analysis.verdict.uncertain
        else "A conflicting claim from a less credible source is disputed"
    )
    for group in groups[1:]:
        if _agrees(lead, group):
            continue
        out.append(
            AnswerSentence(
                f'{flag}: "{group.sentence}"',
                _both_sides(analysis, lead.cites[:1], group.cites),
                SentenceRole.CONFLICT,
            )
        )
    return out


RULES: dict[str, Callable[[Analysis, list[Group]], list[AnswerSentence]]] = {
    "direct": _direct,
    "consolidate": _consolidate,
    "viewpoints": _viewpoints,
    "recency": _recency,
    "entropy_topsis": _credible,
}
