"""ConRAG A-stage tagging: each passage gets Support / Refute / Irrelevant and a confidence.

The tagger is the NLI cross-encoder with premise = passage and hypothesis = the claim that
`claims.py` derives from the query (the query itself, the declarative form of a yes/no
question, or the leading candidate answer of a wh-question).

The query's acronyms are first spelled out as the passages spell them ("CEO" becomes "chief
executive officer" when that is what the passages write, `text.spell_out_acronyms`), so the
subject, the relation words and the claim do not depend on which of the two the question uses.

Topicality first, hybrid like the retriever: the mean of two ratios to the best passage,
dense (embedding cosine with the query, when the pipeline gives it) and lexical (the share of
the query's idf-weighted content words the passage contains); lexical alone without
embeddings. A passage below half the best (TOPICAL_RATIO) is about something else: it is tagged Irrelevant with confidence 1 − topicality, without an NLI call,
and takes no part in choosing candidate answers (method "topicality").

Then the subject: the query's name-like words — written with a capital in the query other than
at its start, or found in two passages or more and never in lower case there (proper names
whatever their case in the query) — compared in their variants (possessive, legal suffix,
hyphen, plural) and weighted by rarity (`names.py`: a rare name word 1, a common word, number
or short code 0.25, a legal suffix 0). When the query has some and a passage covers less than
half of their weight (SUBJECT_RATIO) while another covers more, and the passage names another
entity where it names its topic (title, key sentence or a repeated name, `names_a_rival`), it
is about another entity than the question's: it is off-topic too (method "subject"), so it
cannot lead, take a tag or count toward κ. The name a passage gives as its answer to a "who"
or "which" question is no rival (`answer_names`): before that rule the gate set aside 178
topical QACC train passages, 79 of them answering the question (gold SUPPORTS or
CONTRADICTS), and 17 RAMDocs ones, 12 answering; after it 122 (59) and 15 (11)
(`scripts/eval_gates.py`). On those sets it sets aside answering passages at about their
share of all passages, so it is kept for what it is for (a passage naming another entity
where the subject should be) and does not fire more widely.

Key sentences (a passage's most query-relevant sentences, see `text.ranked_sentences`) weigh
the query's words by their idf among the on-topic passages, so the words of the relation
asked about count more than the topic's name, which they all share.

For the others, tag = the NLI label with the highest probability (entailment → Support,
contradiction → Refute, neutral → Irrelevant) and confidence u_i = that probability; all of
them are scored in one batched `classify` call."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from conflictdesk import vocabulary as vocab
from conflictdesk.analysis import names
from conflictdesk.analysis import text as tx
from conflictdesk.analysis.calls import nli_batch
from conflictdesk.analysis.claims import (
    PassageReader,
    answer_kind,
    frame_query,
    passage_answer,
    query_form,
)
from conflictdesk.analysis.dates import without_dates
from conflictdesk.analysis.types import PassageTag, QueryForm, Tagging
from conflictdesk.backends.base import NLI, JudgmentCache
from conflictdesk.types import NLIScores, Passage, Tag

if TYPE_CHECKING:
    from conflictdesk.analysis.answer_rank import AnswerRanker

TOPICAL_RATIO = 0.5
SUBJECT_RATIO = 0.5


def relevance_weights(passages: Sequence[Passage]) -> dict[int, float]:
    """rel_i = relevance / max relevance (all 1.0 when no passage has a positive score)."""
    top = max((p.relevance for p in passages), default=0.0)
    if top <= 0:
        return {p.id: 1.0 for p in passages}
    return {p.id: max(p.relevance, 0.0) / top for p in passages}


def lexical_similarity(
    query: str, passages: Sequence[Passage], idf: Mapping[str, float]
) -> dict[int, float]:
    """Share of the query's idf-weighted content words found in each passage."""
    query_words = set(tx.content_words(query))
    total = sum(idf.get(w, 1.0) for w in query_words)
    if total <= 0:
        return {p.id: 1.0 for p in passages}
    return {
        p.id: sum(idf.get(w, 1.0) for w in query_words & set(tx.content_words(p.text))) / total
        for p in passages
    }


def topicality(similarity: Mapping[int, float]) -> dict[int, float]:
    """Similarity over the best passage's, clipped to [0, 1]; all 1 when no similarity is
    positive (nothing tells the passages apart)."""
    top = max(similarity.values(), default=0.0)
    if top <= 0:
        return {pid: 1.0 for pid in similarity}
    return {pid: min(max(s, 0.0) / top, 1.0) for pid, s in similarity.items()}


def subject_words(
    query: str, passages: Sequence[Passage], lower_seen: set[str] | None = None
) -> set[str]:
    """The query's name-like content words (module docstring) as comparable word forms
    (`names.word_form`: lower case, possessive and plural "-s" dropped). `lower_seen`: the
    passages' lower-case word forms, when the caller has them already."""
    texts = [f"{p.title or ''}. {p.text}" for p in passages]
    capital_in_query = {names.word_form(w) for w in re.findall(r"(?<=\S )([A-Z][\w'’\-]*)", query)}
    capital_in_query |= {part for w in capital_in_query for part in w.split("-") if part}
    passages_with = Counter(w for text in texts for w in names.name_tokens(text))
    if lower_seen is None:
        lower_seen = _lower_case_forms(texts)
    return {
        w
        for w in names.name_tokens(" ".join(tx.content_words(query)))
        if w in capital_in_query or (passages_with[w] >= 2 and w not in lower_seen)
    }


def _lower_case_forms(texts: Sequence[str]) -> set[str]:
    return names.name_tokens(" ".join(re.findall(r"\b[a-z][\w'’\-]*", " ".join(texts))))


def subject_coverage(query: str, passages: Sequence[Passage]) -> dict[int, float] | None:
    """Share of the subject words' weight (`names.subject_weights`) each passage (title and
    text) holds, name variants matched by `names.name_tokens`; None when the query names no
    subject or no passage covers it."""
    lower_seen = _lower_case_forms([f"{p.title or ''}. {p.text}" for p in passages])
    subject = subject_words(query, passages, lower_seen)
    weights = names.subject_weights(subject, lower_seen)
    total = sum(weights.values())
    if total <= 0:
        return None
    coverage = {
        p.id: sum(weights[w] for w in subject & names.name_tokens(f"{p.title or ''} {p.text}"))
        / total
        for p in passages
    }
    return coverage if max(coverage.values()) >= SUBJECT_RATIO else None


def names_a_rival(
    query: str, passage: Passage, idf: Mapping[str, float], answer: frozenset[str] = frozenset()
) -> bool:
    """True when the passage names, where it names its topic — in its title, in its most
    query-relevant sentence, or twice or more in its text — an entity (a capitalised run;
    dates and weekdays aside) with a name word the query lacks (four letters or more, no
    number, no legal suffix: weight 1 in `names.subject_weights` without the lower-case
    test, as names of substances are often written in lower case): another entity in the
    subject's place. A title word counts as a name when the text writes it with the same
    capital. A passage that names nothing there ("the ward", "each permit") speaks of the
    question's subject without repeating its name. `answer` holds the name words of the
    passage's own answer to the question (`answer_names`): the answer to "who ...?" is a
    name in the key sentence, not a rival of the subject."""
    asked = names.name_tokens(" ".join(tx.content_words(query))) | answer
    title = passage.title or ""
    in_text = set(vocab.WORD.findall(passage.text))
    known = tx.midsentence_capitals(passage.text) | {
        w.lower() for w in vocab.WORD.findall(title) if w[:1].isupper() and w in in_text
    }
    key = tx.key_sentence(query, passage.text, idf)
    spans = Counter(surface for _, surface in tx.entity_spans(without_dates(passage.text), known))
    topical = [s for s, n in spans.items() if n >= 2]
    topical += [s for _, s in tx.entity_spans(without_dates(f"{title}. {key}"), known)]
    for surface in topical:
        other = names.name_tokens(surface) - asked
        rare = names.subject_weights(other, set()).values()
        if not names.is_calendar_word(surface) and any(w == 1.0 for w in rare):
            return True
    return False


def answer_names(query: str, passage: Passage, idf: Mapping[str, float]) -> frozenset[str]:
    """Name words of the span the passage gives as the answer to a wh-question that asks
    for a name or for any kind of value (`claims.passage_answer` over its sentences, most
    query-relevant first); empty for other questions and other answer kinds."""
    if query_form(query) is not QueryForm.WH:
        return frozenset()
    kind = answer_kind(query)
    if kind not in ("entity", "any"):
        return frozenset()
    known = tx.midsentence_capitals(passage.text)
    found = passage_answer(query, kind, tx.ranked_sentences(query, passage.text, idf), known)
    return frozenset(names.name_tokens(found[1])) if found else frozenset()


def tag_from_scores(scores: NLIScores) -> tuple[Tag, float]:
    """Entailment → Support, contradiction → Refute, neutral → Irrelevant; u_i = its prob."""
    label = scores.label
    tag = {"entailment": Tag.SUPPORT, "contradiction": Tag.REFUTE}.get(label, Tag.IRRELEVANT)
    return tag, float(getattr(scores, label))


@dataclass(frozen=True)
class Reading:
    """What the tagger reads before any NLI call: the query with its acronyms spelled out,
    each passage's topicality, the on-topic passages with their vote weights, the passages
    about another entity, and each passage's sentences, most query-relevant first."""

    query: str
    topical: dict[int, float]
    on_topic: dict[int, float]
    about_other: frozenset[int]
    ranked: dict[int, list[str]]


def read_passages(
    query: str, passages: Sequence[Passage], similarity: Mapping[int, float] | None = None
) -> Reading:
    """Topicality, subject and key sentences of every passage (module docstring rules)."""
    query = tx.spell_out_acronyms(query, [f"{p.title or ''}. {p.text}" for p in passages])
    idf = tx.idf_weights([p.text for p in passages])
    topical = topicality(lexical_similarity(query, passages, idf))
    if similarity is not None:
        dense = topicality(similarity)
        topical = {pid: (topical[pid] + dense[pid]) / 2 for pid in topical}
    coverage = subject_coverage(query, passages)
    about_other = {
        p.id
        for p in passages
        if coverage
        and coverage[p.id] < SUBJECT_RATIO
        and names_a_rival(query, p, idf, answer_names(query, p, idf))
    }
    on_topic = {
        pid: w for pid, w in topical.items() if w >= TOPICAL_RATIO and pid not in about_other
    }
    # Key sentences weigh query words by their idf among the on-topic passages: the topic's
    # name, shared by all of them, matters less than the words of the relation asked about.
    topic_idf = tx.idf_weights([p.text for p in passages if p.id in on_topic])
    ranked = {
        p.id: tx.ranked_sentences(query, p.text, topic_idf if p.id in on_topic else idf)
        for p in passages
    }
    return Reading(query, topical, on_topic, frozenset(about_other), ranked)


def set_aside(reading: Reading) -> dict[int, float]:
    """The passages the topicality gate set aside, minus those about another entity, with
    their topicality: what may back an on-topic passage's answer (`claims.frame_query`)."""
    return {
        pid: w
        for pid, w in reading.topical.items()
        if pid not in reading.on_topic and pid not in reading.about_other
    }


def tag_passages(
    query: str,
    passages: Sequence[Passage],
    nli: NLI,
    *,
    similarity: Mapping[int, float] | None = None,
    cache: JudgmentCache | None = None,
    ranker: AnswerRanker | None = None,
    statement_nli: NLI | None = None,
    reader: PassageReader | None = None,
) -> Tagging:
    """Tag every passage against the claim derived from `query` (module docstring rule);
    with `ranker`, a wh-question's candidate answers are ranked by it (`answer_rank.py`);
    with `statement_nli`, a yes/no or declarative query's statement is read by it instead
    of `nli` (the analysis hands it the labelling cascade, AnalysisOptions.statement_tags);
    with `reader`, each passage's answer span is its choice (`span_reader.py`)."""
    reading = read_passages(query, passages, similarity)
    query, topical, on_topic = reading.query, reading.topical, reading.on_topic
    about_other, ranked = reading.about_other, reading.ranked
    frame, answers = frame_query(query, passages, ranked, on_topic, reader, set_aside(reading))
    if ranker is not None:
        frame = ranker.rerank(frame, answers, passages, reading, nli, cache)
    key_sentences = {pid: answers[pid][1] if pid in answers else ranked[pid][0] for pid in ranked}
    scored_passages = [p for p in passages if p.id in on_topic]
    if statement_nli is not None and frame.form is not QueryForm.WH:
        nli = statement_nli
    scores = nli_batch(
        nli, [(p.text, frame.hypothesis) for p in scored_passages], stage="tag", cache=cache
    )
    by_id = dict(zip((p.id for p in scored_passages), scores, strict=True))
    tags = [
        _tag(
            passage.id,
            by_id.get(passage.id),
            key_sentences[passage.id],
            topical[passage.id],
            answers[passage.id][0] if passage.id in answers else None,
            "subject" if passage.id in about_other else "topicality",
        )
        for passage in passages
    ]
    return Tagging(frame, tuple(tags), f"nli:{nli.model_id}")


def _tag(
    passage_id: int,
    scores: NLIScores | None,
    key: str,
    weight: float,
    answer: str | None,
    off_topic_method: str,
) -> PassageTag:
    if scores is None:  # off-topic: no NLI call
        return PassageTag(
            passage_id, Tag.IRRELEVANT, 1.0 - weight, 0.0, 0.0, 0.0,
            key_sentence=key, topicality=weight, method=off_topic_method,
        )  # fmt: skip
    tag, confidence = tag_from_scores(scores)
    return PassageTag(
        passage_id, tag, confidence, scores.entailment, scores.neutral, scores.contradiction,
        key_sentence=key, answer=answer, topicality=weight,
    )  # fmt: skip
