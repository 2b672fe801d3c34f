"""Light text features the stages share: sentences, content words, numbers, entities.

Everything here is rule-based and deterministic; no model is called. The word lists and
`content_words` are in conflictdesk/vocabulary.py."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

from conflictdesk.analysis.quantities import CLOCK, group_digits
from conflictdesk.text import split_sentences
from conflictdesk.vocabulary import ABBREVIATIONS, NON_ENTITY_CAPITALS, content_words

NUMBER = re.compile(
    rf"(?<![\w.:])(?:{CLOCK})|"  # a time of day ("9am", "13:00": `quantities.clock_minutes`)
    r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d{1,3}(?:[ \u00a0\u202f]\d{3}(?![\d,]))+|\d+)(?:\.\d+){0,2}(?!\.\d)(?:(?:\s|-)?(?:%|percent|per cent|"
    r"km/hr?|kph|mph|m/s|knots|kWh|MWh|GWh|Wh|kW|watts?|kilowatts?|megawatts?|hp|horsepower|mAh|"
    r"GB|MB|TB|kB|gigabytes?|megabytes?|terabytes?|months?|weeks?|years?|days?|hours?|minutes?|"
    r"seconds?|decades?|W|million|"
    r"billion|thousand|km|kilometres|kilometers|miles|metres|meters|m|kg|tonnes|tons|IU|mg|"
    r"µg|mcg|micrograms?|milligrams?|grams?|g|ml|millilitres?|litres?|mmHg|people|countries|degrees|°C|°F|feet|ft|acres|"
    r"hectares|GW|MW|km²|square miles|square kilometres|dollars|euros|USD|cm|mm|centimetres|"
    r"centimeters|millimetres|millimeters|inches|inch|yards|yd|lb|lbs|oz|ounces)\b(?!-))?\b",
    re.IGNORECASE,
)
CAPITALISED = re.compile(r"\b[A-Z][\w'\-]*(?:\s+(?:of|the|de|von|van|and|&)?\s*[A-Z][\w'\-]*)*")


def sentences(text: str) -> list[str]:
    """Sentences of `text` (conflictdesk.text.split_sentences), inner whitespace collapsed."""
    return [" ".join(sentence.split()) for _, _, sentence in split_sentences(text)]


def numbers(text: str) -> list[str]:
    """Numbers with an optional unit, normalised (commas dropped, lower case); a run of two or
    three dotted groups (a version "2.4.1") is one span, four (an address "10.0.0.1") none."""
    return [normalise_span(m.group(0)) for m in NUMBER.finditer(text)]


def entities(text: str) -> list[str]:
    """Runs of capitalised words, minus leading function words; lower-cased."""
    return [surface.lower() for _, surface in entity_spans(text)]


def entity_spans(
    text: str, known: frozenset[str] | set[str] | None = None
) -> list[tuple[int, str]]:
    """(start, surface) of capitalised runs minus leading function words. With `known`
    (lower-cased words seen capitalised mid-sentence, see `midsentence_capitals`), a
    single word at the start of a sentence counts only when it is known, since sentence
    case capitalises any word."""
    found = []
    for start, run in _with_initials(text):
        tokens, end = run.split(), start + len(run)
        while tokens and tokens[0].lower() in NON_ENTITY_CAPITALS:
            start = text.index(tokens[1], start + len(tokens[0])) if len(tokens) > 1 else start
            tokens = tokens[1:]
        if (
            len(tokens) > 1
            and _LABEL_BY.match(text, end)
            and tokens[-1].lower().endswith(("ed", "en"))
        ):
            # an infobox's next field label ("Directed by Jon Hewitt Written by ..."): a
            # participle before "by" ends the name
            tokens = tokens[:-1]
        if not tokens or (len(tokens) == 1 and tokens[0].lower() in ABBREVIATIONS):
            continue  # nothing left, or a bare title such as "Dr"
        if _PREFIXED.search(text[:start]):
            continue  # the second part of a prefixed adjective ("anti-Communist", "pre-Roman")
        before = text[:start].rstrip()
        after_title = (
            before.endswith(".") and before[:-1].rsplit(" ", 1)[-1].lower() in ABBREVIATIONS
        )
        # sentence case, or the capital after a slash or a dash between words ("ball/
        # Yeah", "2017 - Full team"), which starts a heading or a line as often as a name
        initial = not before or (
            (before[-1:] in ".!?:\"'(" and not after_title) or _BREAK_BEFORE.search(before)
        )
        if (
            known is not None
            and initial
            and len(tokens) == 1
            and tokens[0].lower() not in known
            and not _subject_of_auxiliary(text, end, tokens[0])
        ):
            continue
        found.append((start, " ".join(tokens)))
    return found


_LABEL_BY = re.compile(r"\s+by\b")
_NEXT_WORD = re.compile(r"\s+([a-z']+)\b")


def _subject_of_auxiliary(text: str, end: int, token: str) -> bool:
    """Whether a sentence's first word is the subject of the auxiliary right after it
    ("Pocahontas was the first woman ..."), not an adverb ("Currently is ..."): a name."""
    following = _NEXT_WORD.match(text, end)
    if not following or token.endswith("ly"):
        return False
    # only a singular form: a plural one, or a modal, follows a common noun as often
    # ("Responses were mixed", "Residents can apply")
    return following.group(1) in _SINGULAR_AUXILIARIES


_SINGULAR_AUXILIARIES = frozenset(
    {"is", "was", "has", "does", "isn't", "wasn't", "hasn't", "doesn't"}
)

# English prefixes that make an adjective of a name ("anti-Communist", "non-English")
_PREFIXED = re.compile(
    r"(?<![\w-])(?:anti|non|pro|pre|post|ex|mid|neo|pan|semi|trans|ultra|un|sub|super|inter"
    r"|intra|multi|counter|quasi|pseudo|half|all)-$"
)
_BREAK_BEFORE = re.compile(r"(?:/|\s[-–—|])$")


def _with_initials(text: str) -> list[tuple[int, str]]:
    """(start, surface) of the capitalised runs, a name's initials joined to it: a first
    name and one initial ("John F" of "John F. Kennedy"), or initials alone ("J", "M", "W"
    of "J. M. W. Turner", two at least), joined over the full stop to the run after them.
    One letter after a longer run, or one before a run, stays apart ("Max Factor B",
    "A" of a list "A. Max Factor B. Charles Nessler")."""
    out: list[tuple[int, str]] = []
    for match in CAPITALISED.finditer(text):
        start, run = match.start(), match.group(0)
        if out and re.fullmatch(r"\.\s+", text[out[-1][0] + len(out[-1][1]) : start]):
            before = out[-1][1].split()
            initials = all(len(t.rstrip(".")) == 1 for t in before)
            named = len(before) == 2 and len(before[0]) > 1 and len(before[1]) == 1
            # initials go on to the next run from the second one, or into a next lone letter
            if named or (initials and (len(before) >= 2 or len(run) == 1)):
                out[-1] = (out[-1][0], text[out[-1][0] : start + len(run)])
                continue
        out.append((start, run))
    return out


def midsentence_capitals(text: str) -> set[str]:
    """Lower-cased words written with a capital somewhere other than a sentence start."""
    known = set()
    for match in re.finditer(r"(?<=[a-z0-9,;] )([A-Z][\w'\-]*)", text):
        known.add(match.group(1).lower())
    return known


def normalise_span(span: str) -> str:
    span = span.strip().lower().replace(",", "")
    return re.sub(r"\s+", " ", group_digits(span))


# a bracket right after a word: an encyclopaedia's qualifier of a title ("Bobby Carpenter
# (American football)", "Greg_Boyer_ ( water_polo )" in a page address)
_QUALIFIED = re.compile(r"([\w'’.-]+?)_?\s*\(\s*([^()]{2,40}?)\s*\)")


def bracketed_qualifiers(sentence: str) -> list[tuple[str, str]]:
    """(the word before, the content) of each bracket right after a word, underscores read
    as spaces ("Greg_Boyer_ ( water_polo )": ("Boyer", "water polo"))."""
    out = []
    for found in _QUALIFIED.finditer(sentence):
        before = found.group(1).replace("_", " ").split()
        if before:
            out.append((before[-1], found.group(2).replace("_", " ").strip()))
    return out


def question_words(query: str) -> set[str]:
    """The question's words, lower-cased, a possessive apart ("Brill's": "brill", "s")."""
    return set(re.findall(r"[a-z0-9]+", query.lower()))


def idf_weights(texts: Sequence[str]) -> dict[str, float]:
    """Smoothed inverse document frequency of content words over `texts`."""
    n = len(texts)
    df: Counter[str] = Counter()
    for text in texts:
        df.update(set(content_words(text)))
    return {w: math.log((n + 1) / (c + 0.5)) for w, c in df.items()}


def overlap_score(query: str, sentence: str, idf: Mapping[str, float]) -> float:
    """Sum of idf of the query's content words present in `sentence`, over its length's root."""
    q_words = set(content_words(query))
    s_words = content_words(sentence)
    if not s_words:
        return 0.0
    hit = sum(idf.get(w, 1.0) for w in q_words & set(s_words))
    return hit / math.sqrt(len(s_words))


def ranked_sentences(query: str, text: str, idf: Mapping[str, float]) -> list[str]:
    """The passage's sentences, most query-relevant first (idf-weighted word overlap over the
    root of the sentence length; text order on ties). Full sentences (ending in . ! ?) come
    before headings and fragments, which state nothing."""
    candidates = sentences(text) or [text]
    return sorted(
        candidates, key=lambda s: (not s.endswith((".", "!", "?")), -overlap_score(query, s, idf))
    )


def key_sentence(query: str, text: str, idf: Mapping[str, float]) -> str:
    """The passage's most query-relevant sentence."""
    return ranked_sentences(query, text, idf)[0]


def jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


def specificity(text: str) -> float:
    """(numbers + named entities) per content token."""
    tokens = content_words(text)
    if not tokens:
        return 0.0
    return (len(numbers(text)) + len(entities(text))) / len(tokens)


def clip_words(text: str, anchor: str | None = None, limit: int = 60) -> str:
    """At most `limit` words of `text`: a window centred on `anchor` when it occurs, else
    the first words. Long "sentences" come from text without punctuation (tables, lists)."""
    tokens = text.split()
    if len(tokens) <= limit:
        return text
    start = 0
    if anchor:
        position = text.find(anchor)
        if position >= 0:
            start = max(len(text[:position].split()) - limit // 2, 0)
            start = min(start, len(tokens) - limit)
    return " ".join(tokens[start : start + limit])


ACRONYM = re.compile(r"\b[A-Z]{3,6}\b")


def spelled_out(acronym: str, texts: Sequence[str]) -> str | None:
    """The run of words in `texts` whose initials spell `acronym` ("chief executive officer"
    for CEO), the most frequent one; None when no text spells it or a text uses the acronym
    itself (then the texts share the question's wording)."""
    if any(re.search(rf"\b{acronym}\b", text) for text in texts):
        return None
    size, initials = len(acronym), acronym.lower()
    runs: Counter[str] = Counter()
    for text in texts:
        tokens = re.findall(r"[A-Za-z][a-z'\-]*", text)
        for start in range(len(tokens) - size + 1):
            run = tokens[start : start + size]
            if "".join(t[0] for t in run).lower() == initials:
                runs[" ".join(t.lower() for t in run)] += 1
    return runs.most_common(1)[0][0] if runs else None


def spell_out_acronyms(query: str, texts: Sequence[str]) -> str:
    """`query` with each acronym (3–6 capitals) replaced by the words the texts spell it
    with, so "Who is the CEO of X?" reads like "Who is the chief executive officer of X?"
    when the passages say the latter; acronyms the texts do not spell out stay."""
    expansions = {a: spelled_out(a, texts) for a in set(ACRONYM.findall(query))}
    for acronym, words in expansions.items():
        if words:
            query = re.sub(rf"\b{acronym}\b", words, query)
    return query


def matches(word: str, query_words: set[str]) -> bool:
    """Whether a sentence word matches a query word: the same word, or one a prefix (4+
    letters) of the other ("play" / "played")."""
    word = word.lower()
    return word in query_words or any(
        len(q) >= 4 and len(word) >= 4 and (word.startswith(q) or q.startswith(word))
        for q in query_words
    )
