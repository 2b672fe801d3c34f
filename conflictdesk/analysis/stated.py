"""Answers a sentence states by its construction, before the span nearest the question's
words: the other side of a copula ("The final electron acceptor is oxygen"), a labelled
field ("State Flower: Palash"), the number before what a "how many" question counts ("150
contributing buildings"), the value right after a measure ("a total population of 66,495"),
the date right after a when-question's verb ("was founded on 2 May 1887"), the end of a
lifespan for a death question, and for who-questions a passive's agent ("written by X"), an
actor before "as" ("stars X as Y") or the doer of the question's verb ("X, the actress who
played Y"), and for "which/what <class>" a name headed by the class ("the Orlen Delta" for
"Which delta ...?"). A lifespan's dates answer only birth and death questions. The values a
number or date question's own words anchor (`anchored_value`) are looked for in every
sentence of a passage before its most relevant sentence's nearest span
(`claims.passage_answer`).

The word lists are English grammar (auxiliaries, birth and death words, acting verbs), none
names any document's content."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from conflictdesk import vocabulary as vocab
from conflictdesk.analysis import text as tx
from conflictdesk.analysis.copula import (
    asked_attribute,
    copular_answer,
    same_event,
    same_verb,
    verbal,
)
from conflictdesk.analysis.dates import find_dates, without_dates
from conflictdesk.analysis.names import word_form
from conflictdesk.analysis.text import matches

Span = tuple[int, str, str, str]  # (start, key, surface, kind), as `claims.answer_spans`


def stated_answer(
    sentence: str, spans: Sequence[Span], query: str, kind: str
) -> tuple[Span | None, list[Span]]:
    """The span the sentence states as the answer, if a construction says so, and the spans
    left to choose among otherwise (a lifespan's dates dropped unless the question asks a
    birth or a death)."""
    spans = _answerable(sentence, spans, query, kind)
    for found in _rules(sentence, spans, query, kind):
        if found:
            return found[0], spans
    return None, spans


def anchored_value(sentence: str, spans: Sequence[Span], query: str, kind: str) -> Span | None:
    """The value a number or date question's own words anchor in the sentence: the number
    before the noun "how many" counts, the value right after the measure asked for, the date
    right after the question's verb; None for other kinds or when no anchor holds one."""
    answerable = _answerable(sentence, spans, query, kind)
    found = next((f for f in _value_rules(sentence, answerable, query, kind) if f), None)
    return found[0] if found else None


def _answerable(sentence: str, spans: Sequence[Span], query: str, kind: str) -> list[Span]:
    """The spans that may answer: a lifespan's dates only for a birth or death question; for
    a population question, no number counting another plural noun ("the two electoral
    wards"), unless nothing else is left."""
    if kind == "date" and not (_asks_birth(query) or _asks_death(query)):
        return [s for s in spans if not in_lifespan(sentence, s)] or list(spans)
    if kind == "number" and _POPULATION & (attribute := asked_attribute(query)):
        # a population is no count of wards or towns, whichever construction reads it
        return [s for s in spans if not _counts_other_noun(sentence, s, attribute)] or list(spans)
    return list(spans)


def _value_rules(sentence: str, spans: list[Span], query: str, kind: str) -> Iterator[list[Span]]:
    """The anchored-value constructions of `anchored_value`, in turn (lazily)."""
    if kind == "number":
        counted = _counted_noun(query)
        attribute = asked_attribute(query)
        by_noun = [s for s in spans if _counts(sentence, s, counted)] if counted else []
        valued = spans
        if _POPULATION & attribute:  # `_answerable` keeps such counts when nothing else is
            # left; the value after the word "population" is still never one of them
            valued = [s for s in spans if not _counts_other_noun(sentence, s, attribute)]
        after = _first_after(sentence, valued, lambda w: matches(w, attribute)) if attribute else []
        # "how many X" reads the number before X first; a population the value after the
        # word itself ("a population of 3,879") before a figure of people
        yield from ((after, by_noun) if _POPULATION & attribute else (by_noun, after))
    if kind == "date":
        event = _date_event(query)
        yield _first_after(sentence, spans, lambda w: same_event(w.lower(), event)) if event else []


def _rules(sentence: str, spans: list[Span], query: str, kind: str) -> Iterator[list[Span]]:
    """Each construction's spans in turn (lazily: a later rule runs only when the earlier
    found nothing)."""
    if kind == "any":
        phrase = copular_answer(sentence, query)
        yield within(spans, phrase) if phrase else []
    if kind in ("entity", "any"):
        yield _names_of_class(spans, query)
        if "name" in asked_attribute(query):  # "What is the original name of X?"
            yield _first_after(sentence, spans, lambda w: w.lower() in _NAMING)
    yield from _value_rules(sentence, spans, query, kind)
    if kind == "date" and _asks_death(query):
        yield [s for s in spans if _LIFESPAN_END.search(sentence[: s[0]])]
    if kind == "date" and _asks_birth(query):
        yield [s for s in spans if _lifespan_start(sentence, s)]
    if (kind == "entity" and vocab.words(query.lower())[:1] == ["where"]) or (
        kind in ("entity", "any") and _PLACE_ATTRIBUTES & asked_attribute(query)
    ):  # "Where is X?", "What is the location of X?"
        yield _located(sentence, spans, query)
    if asks_who(query):
        yield _role_of(sentence, spans, query)
        distances = span_distances(sentence, spans, query) or [0] * len(spans)
        yield _agents(sentence, spans, query, distances, by_verb=True)
        yield _after_stranded(sentence, spans, query)
        yield _cast(sentence, spans, query)
        yield _doers(sentence, spans, query)
        yield _agents(sentence, spans, query, distances, by_verb=False)
        yield _subject(sentence, spans, query)


# what may open a snippet's sentence before its subject: a date stamp's remains and ellipses
_OPENING = re.compile(r"^(?:[\W\d]|\.\.\.|…)*$")


def _subject(sentence: str, spans: Sequence[Span], query: str) -> list[Span]:
    """For a who-question: the name that opens the sentence as its subject, right before an
    auxiliary ("X is the author of <the question's title>", "X was named 2017 sportsman of
    the year"), when the question's words come after it; the nearest span is otherwise a
    name of the predicate."""
    if (
        not spans
        or spans[0][3] != "entity"
        or not _OPENING.match(without_dates(sentence[: spans[0][0]]))
    ):
        return []
    rest = sentence[spans[0][0] + len(spans[0][2]) :]
    words = vocab.words(rest.lower())[:1]
    if not words or words[0] not in vocab.AUXILIARIES:
        return []
    asked = set(tx.content_words(query))
    return [spans[0]] if any(matches(w, asked) for w in vocab.WORD.findall(rest)) else []


def _names_of_class(spans: Sequence[Span], query: str) -> list[Span]:
    """For "which/what <class> ...?", the names whose head, the last word, is the class asked
    about ("the Orlen Delta" for "Which delta ...?"; a name opening with the class, "Lake
    Ossery", repeats the question's word and is no span: `claims.repeats_query`)."""
    asked = {word_form(w) for w in asked_attribute(query)}
    named = []
    for span in spans if asked else ():
        words = [word_form(w) for w in tx.content_words(span[2])] if span[3] == "entity" else []
        if len(words) > 1 and words[-1] in asked:
            named.append(span)
    return named


def within(spans: Sequence[Span], phrase: tuple[int, str]) -> list[Span]:
    """The spans that stand for the phrase (start, surface): a date or number that is its
    value ("about 12.5 kg"), a name that is all of it ("Lake Victoria"), the phrase's own span;
    not a name or a year inside a longer phrase ("American" of "a former American water polo
    player", "1948" of "a 1948 American romantic comedy")."""
    start, end = phrase[0], phrase[0] + len(phrase[1])
    inside = [s for s in spans if start <= s[0] and s[0] + len(s[2]) <= end]
    return [s for s in inside if (s[0], s[2]) == phrase or _stands_for(s, phrase)]


def _stands_for(span: Span, phrase: tuple[int, str]) -> bool:
    """A date or number is the phrase's value when at most one content word of the phrase
    lies outside it ("about 12.5 kg", "open Monday"), not a modifier of a longer phrase
    ("a 1948 American romantic comedy") nor of the noun after it ("a 1883 farce")."""
    if span[3] == "entity":
        return False
    offset = span[0] - phrase[0]
    before, after = phrase[1][:offset], phrase[1][offset + len(span[2]) :]
    rest = before + " " + after
    following = vocab.words(after)[:1]
    if following and following[0] not in vocab.STOPWORDS:
        return False  # the noun it qualifies follows ("a 1883 farce"; "12.5 kg of lime" is one)
    return len(vocab.content_words(rest)) <= 1


# a passive's agent: "written by X", "a song by the band X" (up to four words between)
_AGENT = re.compile(r"(\S+)\s+by\s+(?:[\w'.\-]+\s+){0,4}$", re.IGNORECASE)


def _agents(
    sentence: str, spans: Sequence[Span], query: str, distances: Sequence[int], *, by_verb: bool
) -> list[Span]:
    """The spans that are a passive's agent ("written by X", "a novel by M. T. X"), nearest
    the question's words first. With `by_verb`, those after the participle of the
    question's verb ("written by" for "Who wrote"); otherwise those after a noun or another
    participle, the noun's first ("a song by the band X" before "directed by Y")."""
    verb = _question_verb(query)
    agents = []
    for i, span in enumerate(spans):
        match = _AGENT.search(sentence[: span[0]])
        if match is None:
            continue
        word = match.group(1).lower()
        same = verb is not None and _same_act(word, verb)
        if same == by_verb:
            agents.append((verbal(word), i))
    return [spans[i] for _, i in sorted(agents, key=lambda a: (a[0], distances[a[1]], a[1]))]


# what a population counts: the nouns a census figure is written with ("3,171 people")
_POPULATION = vocab.wordset("population inhabitants residents")
_PEOPLE = vocab.wordset("people inhabitants residents persons")


def anchored_agent(sentence: str, spans: Sequence[Span], query: str) -> Span | None:
    """For "Who <verb> ...?": the passive agent of the question's verb in the sentence
    ("She is portrayed by X" for "Who plays ...?", "written by X" for "Who wrote ...?"),
    looked for in every stating sentence of a passage before its most relevant one's
    nearest span; None for other questions or without one."""
    if not asks_who(query):
        return None
    maker = _maker_in_brackets(sentence, spans, query)
    if maker is not None:
        return maker
    if _question_verb(query) is None:
        return None
    distances = span_distances(sentence, spans, query) or [0] * len(spans)
    agents = _agents(sentence, spans, query, distances, by_verb=True)
    return agents[0] if agents else None


# an encyclopaedia's bracketed qualifier naming a work's maker after its title ("The Heat
# (Needtobreathe album)", "Lullaby (Ana Brill song)")
_MAKER_BRACKET = re.compile(
    r"(?:'s|’s)?\s+(?:album|song|single|ep|novel|book|play|opera|musical|painting|poem)\s*\)",
    re.IGNORECASE,
)


def _maker_in_brackets(sentence: str, spans: Sequence[Span], query: str) -> Span | None:
    """For a who-question about a work (its artist, author, composer), the name a bracketed
    qualifier gives right after a title of the question ("The Heat (Needtobreathe album)")."""
    for span in spans:
        start, end = span[0], span[0] + len(span[2])
        opened = sentence.rfind("(", 0, start)
        if (
            span[3] != "entity"
            or opened < 0
            or sentence[opened + 1 : start].strip().lower() not in ("", "the")
        ):
            continue
        title = sentence[:opened].rstrip().lower()
        if _MAKER_BRACKET.match(sentence, end) and any(
            title.endswith(w) for w in vocab.words(query.lower())[-3:]
        ):
            return span
    return None


def _same_act(word: str, verb: str) -> bool:
    """The same verb, or both verbs of acting ("portrayed" for "plays")."""
    return same_verb(word, verb) or (word in _ACTING and verb in _ACTING)


def _counted_noun(query: str) -> set[str] | None:
    """The nouns a count question counts: the word after "how many" ("buildings" in "How
    many buildings are in X?"); for a population, the nouns a census figure is written with
    ("3,171 people"); None for other questions."""
    words = vocab.words(query.lower())
    for i in range(len(words) - 2):
        if words[i] == "how" and words[i + 1] == "many" and words[i + 2] not in vocab.STOPWORDS:
            return {words[i + 2]}
    return set(_PEOPLE) if _POPULATION & set(words) else None


_ONE_OF = re.compile(r"\bone\s+of\s+(?:the\s+|its\s+|their\s+)?$", re.IGNORECASE)


def counts_other(sentence: str, span: Span, query: str) -> bool:
    """Whether the number span sizes a class the question's subject belongs to ("one of the
    sixteen townships of X") rather than what the question counts: "one of (the)" before
    it, and the noun after it not the counted one ("How many townships are in X?" keeps it)."""
    if not _ONE_OF.search(sentence[: span[0]]):
        return False
    counted = _counted_noun(query)
    return not (counted and _counts(sentence, span, counted))


def _date_event(query: str) -> str | None:
    """The event a "when" question dates: its last word when that is a verb form
    ("established" in "When was X established?", "die" in "When did X die?"), not a name."""
    tokens = query.strip().rstrip("?").split()
    words = vocab.words(query.lower())
    if len(words) < 3 or words[0] != "when" or not tokens or tokens[-1][:1].isupper():
        return None
    last = words[-1]
    return None if last in vocab.STOPWORDS else last


REACH = 30  # characters from a value's anchor word to the value
# verbs that give something its name: the name follows ("named the island San Juan Bautista")
_NAMING = vocab.wordset("named renamed called christened dubbed titled entitled subtitled")


def _first_after(sentence: str, spans: Sequence[Span], anchor: Callable[[str], bool]) -> list[Span]:
    """The first span within REACH characters after a word `anchor` accepts: the date after
    a when-question's verb ("was established on 2 December 1848"), the value after the
    measure asked for ("a total population of 66,495, of whom 35,048 were men")."""
    for word in vocab.WORD.finditer(sentence):
        if anchor(word.group(0)):
            after = [s for s in spans if 0 <= s[0] - word.end() <= REACH]
            if after:
                return after[:1]
    return []


# a plural noun right after a number (one adjective between allowed): what the number counts
_PLURAL_AFTER = re.compile(r"\s+(?:[a-z]+\s+)?([a-z]{3,}s)\b")


def _counts_other_noun(sentence: str, span: Span, attribute: set[str]) -> bool:
    """Whether the number counts a plural noun that is neither the attribute asked for nor
    people ("the population of the parish and the two electoral wards was 1,234")."""
    found = _PLURAL_AFTER.match(sentence, span[0] + len(span[2]))
    if found is None or found.group(1) in vocab.STOPWORDS:
        return False
    noun = found.group(1)
    return not (matches(noun, attribute) or noun in _PEOPLE)


def _counts(sentence: str, span: Span, counted: set[str]) -> bool:
    """Whether the number span is followed, within three words, by a counted noun ("150
    contributing buildings" for "how many buildings"), or ends with one as its unit ("3,168
    people")."""
    after = sentence[span[0] + len(span[2]) :]
    words = vocab.words(span[2])[-1:] + vocab.words(after)[:3]
    return any(matches(word, counted) for word in words)


_DEATH_WORDS = vocab.wordset("die died dies death dead")
# the end of a lifespan in parentheses: "(1684 – 2 December 1716)", "(born ...; died ...)"
_LIFESPAN_END = re.compile(r"\([^()]*(?:[–—-]|\bdied?)\s*$")


def _asks_death(query: str) -> bool:
    return any(w in _DEATH_WORDS for w in vocab.words(query.lower()))


_BIRTH_WORDS = vocab.wordset("born birth birthday birthdate")


def _asks_birth(query: str) -> bool:
    return any(w in _BIRTH_WORDS for w in vocab.words(query.lower()))


def asks_life_date(query: str) -> bool:
    """Whether the question asks when someone was born or died (a lifespan's own dates)."""
    return _asks_birth(query) or _asks_death(query)


def _lifespan_start(sentence: str, span: Span) -> bool:
    """Whether the span is the first date of a lifespan ("(3 July 1750 – 28 February
    1825)")."""
    opened = sentence.rfind("(", 0, span[0])
    return in_lifespan(sentence, span) and not any(c.isdigit() for c in sentence[opened : span[0]])


def in_lifespan(sentence: str, span: Span) -> bool:
    """Whether the span lies in parentheses that hold a range of dates, a lifespan after a
    name ("Ralph Cole (June 12, 1914 – September 2, 1999)")."""
    opened = sentence.rfind("(", 0, span[0])
    closed = sentence.find(")", span[0])
    if opened < 0 or closed < 0 or ")" in sentence[opened : span[0]]:
        return False
    inside = sentence[opened + 1 : closed]
    return bool(re.search(r"\d\s*[–—-]\s*\S", inside)) and len(find_dates(inside)) >= 2


DOER_GAP = 40  # characters between the doer and its verb ("X, the actress who played")


def _doers(sentence: str, spans: Sequence[Span], query: str) -> list[Span]:
    """For "Who <verb> ...?": the span just before the question's verb in the sentence, an
    appositive or relative clause between allowed ("X, the actress who played Y"), no other
    span between; the first such. A span after a preposition or in brackets is no subject,
    and an aside in brackets does not count in the gap ("Lee, from Eastbourne, played",
    "Lee (born 1955, credited as Y) played": Lee)."""
    verb = _question_verb(query)
    if verb is None:
        return []
    found = []
    for match in vocab.WORD.finditer(sentence):
        if not _same_act(match.group(0).lower(), verb):
            continue
        before = [
            s
            for s in spans
            if s[0] + len(s[2]) <= match.start()
            and not _after_preposition(sentence, s)
            and not _bracketed(sentence, s)
        ]
        if before:
            gap = _ASIDE.sub("", sentence[before[-1][0] + len(before[-1][2]) : match.start()])
            if len(gap) <= DOER_GAP:  # an aside in brackets does not count
                found.append(before[-1])
    return found


_ASIDE = re.compile(r"\([^()]*\)")


def _bracketed(sentence: str, span: Span) -> bool:
    """Whether the span stands inside brackets: an aside, not the sentence's subject
    ("X (born 1955, credited as Y) played ...": X)."""
    before = sentence[: span[0]]
    return before.count("(") > before.count(")")


def _after_preposition(sentence: str, span: Span) -> bool:
    before = vocab.words(sentence[: span[0]].lower())[-1:]
    return bool(before) and before[0] in vocab.PREPOSITIONS


_ACTING = vocab.wordset("play plays played playing portray portrays portrayed voice voices voiced")
_CAST_AS = re.compile(r"^(?:['’]s)?\s*(?:\w+\s+)?as\b")


def asks_actor(query: str) -> bool:
    """Whether a question asks who plays, played, portrays or voices a role ("Who plays Zuko
    in X?"), not which role someone plays ("Who did Karen Gillan play?")."""
    return _question_verb(query) in _ACTING


# "Who did X play in Y?", "Who does X voice?": X is the actor, the role is asked
_ROLE_QUESTION = re.compile(
    r"^who(?:m)?\s+(?:did|does|do|has)\s+(.+?)\s+(?:play|portray|voice)(?:ed)?\b(?!\s+for\b)",
    re.IGNORECASE,
)
_ROLE_VERB = r"(?:play(?:s|ed)?|portray(?:s|ed)?|voice(?:s|d)?)"


def role_actor(query: str) -> str | None:
    """The actor of a question asking the role someone plays ("phil daniels" in "Who did
    phil daniels play in east enders?"), or None ("Who did X play for?" asks a team)."""
    found = _ROLE_QUESTION.match(query.strip())
    return found.group(1) if found else None


def _role_of(sentence: str, spans: Sequence[Span], query: str) -> list[Span]:
    """For "Who did X play (in Y)?": the role the sentence gives X — the name right after
    "X played" or "X as" ("Tim Allen voiced Buzz Lightyear", "starring Tim Allen as Buzz"),
    else the sentence's first name when the role is "played by X" ("Kevin Wicks is a
    character from EastEnders, played by Phil Daniels"); never X's own name."""
    actor = role_actor(query)
    if actor is None:
        return []
    surname = re.escape(actor.split()[-1])
    own = set(vocab.words(actor.lower()))
    named = [s for s in spans if not set(vocab.words(s[2].lower())) <= own]
    doing = re.compile(
        rf"\b{surname}(?:['’]s)?\s+(?:\w+\s+)?(?:{_ROLE_VERB}|as|role\s+as)\s+(?:the\s+role\s+of\s+)?$",
        re.IGNORECASE,
    )
    after = [s for s in named if doing.search(sentence[: s[0]])]
    if after:
        return after[:1]
    done_by = re.search(rf"\b{_ROLE_VERB}\s+by\s+(?:\w+\s+)?{surname}\b", sentence, re.IGNORECASE)
    if done_by:
        before = [s for s in named if s[0] < done_by.start()]
        return before[:1]
    return []


def _cast(sentence: str, spans: Sequence[Span], query: str) -> list[Span]:
    """For "Who plays / played / voices <role>?": the name followed by "as" ("starring Y as
    the judge", "Y stars as Joy"), the actor of a cast list."""
    if not _ACTING & set(vocab.words(query.lower())):
        return []
    return [s for s in spans if _CAST_AS.match(sentence[s[0] + len(s[2]) :])]


_PLACE_ATTRIBUTES = vocab.wordset("location whereabouts")
_LOCATIVE = re.compile(r"\b(?:in|at|on|near)\s+(?:the\s+)?(?:[a-z]+\s+)?$")


def _located(sentence: str, spans: Sequence[Span], query: str) -> list[Span]:
    """For a where-question: the names after a preposition of place ("kept ... at the Tower
    of London", not "the Yeoman Warders" before it), nearest the question's words first."""
    distances = span_distances(sentence, spans, query) or [0] * len(spans)
    located = [i for i, s in enumerate(spans) if _LOCATIVE.search(sentence[: s[0]])]
    return [spans[i] for i in sorted(located, key=lambda i: (distances[i], i))]


_STRANDED = vocab.wordset("for with from to after about against")


def stranded_preposition(query: str) -> str | None:
    """The preposition a question ends in ("Who was X built for?", "Who did X gain
    independence from in 1960?": a year after it is left out), or None."""
    undated = without_dates(query)
    words = vocab.words(undated.lower())
    if undated != query and words[-1:] == ["in"]:  # "... from in 1960?"
        words = words[:-1]
    return words[-1] if words and words[-1] in vocab.PREPOSITIONS else None


def _after_stranded(sentence: str, spans: Sequence[Span], query: str) -> list[Span]:
    """For a who-question that ends in its preposition ("Who was X built for?", "Who did X
    gain independence from in 1960?"): the names right after that preposition ("constructed
    for Pharaoh Djoser")."""
    stranded = stranded_preposition(query)
    if stranded is None or stranded not in _STRANDED:
        return []
    after = re.compile(rf"\b{stranded}\s+(?:the\s+)?$", re.IGNORECASE)
    return [s for s in spans if after.search(sentence[: s[0]])]


def _question_verb(query: str) -> str | None:
    """The main verb of "Who <verb> ...?" ("played" in "Who played X in Y?"; the word after
    an auxiliary: "won" in "Who has won X?"; "written" in "X was written by?"; the agent
    noun of "Who is the director of X?"), lower-cased; None for "Who is X?"."""
    words = vocab.words(query.lower())
    if len(words) > 1 and words[-1] == "by":  # "X was written by?"
        return words[-2]
    if not words or words[0] not in ("who", "whom"):
        return None
    agent = _AGENT_NOUN.match(" ".join(words))
    if agent:  # "Who is the director of X?": the verb the noun is made of
        return agent.group(1)
    rest = words[1:]
    while rest and rest[0] in vocab.AUXILIARIES:
        rest = rest[1:]
    if not rest or rest[0] in vocab.STOPWORDS or len(words) - len(rest) > 2:
        return None
    return rest[0]


# "who is the director of", "who was the original composer of": a noun of one who does
# something (-er, -or), whose verb's forms share its stem ("directed", "composed")
_AGENT_NOUN = re.compile(r"^who (?:is|was|are|were) the (?:\w+ )?(\w{4,}(?:er|or)) of\b")


def asks_who(query: str) -> bool:
    """Whether the question asks who did something ("who", "whom", "by whom", "X was
    written by?")."""
    words = vocab.words(query.lower())
    return any(w in ("who", "whom") for w in words[:3]) or words[-1:] == ["by"]


def nearest_span(sentence: str, spans: Sequence[Span], query: str) -> Span:
    """The span closest (in characters) to the query's relation words found in the sentence
    (its content words outside the query's capitalised names, e.g. "chief executive" in
    "Who is the chief executive of Acme Corp?"), else to any query content word. A sentence
    word matches a query word when one is a prefix (4+ letters) of the other."""
    distances = span_distances(sentence, spans, query)
    if distances is None:
        return spans[0]
    return spans[min(range(len(spans)), key=lambda i: (distances[i], i))]


def span_distances(sentence: str, spans: Sequence[Span], query: str) -> list[int] | None:
    """Each span's distance in characters to the nearest anchor of `nearest_span` outside it
    (a query word inside a span is the span's own, as "Basin" of "Amazon Basin": no sign that
    the sentence relates it to the question; the sentence's length when no anchor lies
    outside it); None when the sentence holds no query word."""
    names = {w for e in tx.entities(query) for w in tx.content_words(e)}
    query_words = set(tx.content_words(query))
    anchors: list[int] = []
    for words in (query_words - names, query_words):
        anchors = [m.start() for m in vocab.WORD.finditer(sentence) if matches(m.group(0), words)]
        if anchors:
            break
    if not anchors:
        return None

    def distance(span: Span) -> int:
        start, end = span[0], span[0] + len(span[2])
        outside = [a for a in anchors if not start <= a < end]
        return min((min(abs(a - start), abs(a - end)) for a in outside), default=len(sentence))

    return [distance(span) for span in spans]
