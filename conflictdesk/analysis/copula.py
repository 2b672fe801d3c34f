"""Answers stated by a copula: "The final electron acceptor is oxygen", "X is now the state
flower of Y", "is known as matter", "also called masala bonds"; and by a labelled field,
"State Flower: Palash".

A question that asks "what is the A of B?" without asking for a date, a number or a name is
answered, in text, by a sentence that equates the question's phrase with the answer: one
side of "is / are / was / were / is called / known as / also called" holds the question's
words, the other side the answer. The answer is the side that shares fewer of the question's
words, provided the other side names the attribute the question asks for ("boiling point"
in "What is the boiling point of X?"; for other questions, a word outside its capitalised
names), so the sentence is about that attribute: "X is a soft grey metal" describes X, it
does not answer. A question for the subject's class (its profession, genre, type, ...) is
the exception: "X is a water polo player" answers it. On a tie the predicate (right) side
answers. Each side is cut to its noun phrase: the right side ends at punctuation, a
relative or subordinating word, a preposition other than "of" or a participle, and does not
start with one (a passive: "is located near"); the left side starts after the last such
boundary before the copula, skipping a parenthesis just before it ("Palash (Butea
monosperma) is ..."). A field whose label names the attribute states its value the same way
(`labelled_value`). Rule-based and language-general: the word lists are English grammar
(boundaries, participles, class nouns), none names any document's content."""

from __future__ import annotations

import functools
import re

from conflictdesk import vocabulary as vocab
from conflictdesk.analysis import text as tx
from conflictdesk.analysis.text import matches

_COPULA = re.compile(
    r"\b(?:(?:is|are|was|were)(?:\s+(?:now|also|still|often|commonly|usually|generally))?"
    r"(?:\s+(?:called|known\s+as|named|termed|referred\s+to\s+as|defined\s+as))?"
    r"|(?:also\s+)?called|(?:also\s+)?known\s+as)\s+",
    re.IGNORECASE,
)
# words that end a noun phrase (the article-less, preposition-less core of either side)
_BOUNDARY_WORDS = vocab.wordset(
    "who whom whose which that because when where while since although though if "
    "unless than as and but or nor so yet in on at by with from for to into onto "
    "over under after before during about against between through without within via "
    "per near off across along around behind beside beyond inside outside toward "
    "towards upon among amid throughout like unlike despite is are was were be been "
    "being has have had do does did will would can could should may might must not"
)
_LEADING = vocab.wordset("a an the its their his her our your this that these those")
_PRONOUNS = vocab.wordset("it they he she this that these those there which who what one")
# nouns that ask what class the subject belongs to ("What is the profession of X?", "What
# sport / party / instrument ...?"): "X is a <noun phrase>" answers them ("a footballer", "a
# Republican politician", "a double bass player"), where it does not answer "What is the
# boiling point of X?"
_CLASS_NOUNS = vocab.wordset(
    "profession occupation job trade type kind sort genre category class species breed "
    "role nationality medium form style religion sport position instrument party"
)
_WHICH = vocab.wordset("what which")
# words that end the attribute a question asks for ("the boiling point | of X")
_ATTRIBUTE_END = _BOUNDARY_WORDS | vocab.wordset("of 's s")
# a participle or gerund right after the copula is a verb phrase, not an answer ("is located
# near", "was listed as", "is based on", "was born in"): a regular ending, or the participle
# of `_IRREGULAR_VERBS`
_VERBAL_ENDINGS = ("ed", "ing")
# punctuation that ends a phrase; a decimal point or a thousands separator does not
_PUNCTUATION = re.compile(r"[;:!?()\[\]\"“”—–·•|]|[.,](?!\d)|\s-\s")
MAX_WORDS = 6


@functools.lru_cache(maxsize=4096)  # `answer_spans` and `stated_answer` read each sentence
def copular_answer(sentence: str, query: str) -> tuple[int, str] | None:
    """(start, surface) of the answer side of the sentence's first copula whose other side
    shares a word with `query` (`text.matches`), else of a labelled field; None when there is
    none."""
    query_words = set(vocab.content_words(query))
    if not query_words:
        return None
    names = {w for name in tx.entities(query) for w in vocab.content_words(name)}
    attribute = asked_attribute(query)
    if attribute & _CLASS_NOUNS:  # "X is a water polo player" states X's profession
        relation = query_words
    else:
        relation = attribute or (query_words - names) or query_words
    for copula in _COPULA.finditer(sentence):
        left = _left_phrase(sentence, copula.start())
        right = _right_phrase(sentence, copula.end())
        if left is None or right is None:
            continue
        shared_left = _shared(left[1], query_words)
        shared_right = _shared(right[1], query_words)
        if shared_right > shared_left and shared_right > 0:
            answer, anchor = left, right
        elif shared_left > 0:
            answer, anchor = right, left
        else:
            continue
        if not _shared(anchor[1], relation):
            continue  # "X is a metal" describes X, not the boiling point asked for
        if _is_answer(answer[1], query_words):
            return answer
    return labelled_value(sentence, attribute)


# "Label: value" fields of an infobox or a fact list, separated by "·", "|", "•" or ";"
_FIELD = re.compile(r"([^:·|•;\n]{1,40}?)\s*:\s*((?:(?<=\d):(?=\d)|[^:·|•;\n]){1,80})")


def labelled_value(sentence: str, attribute: set[str]) -> tuple[int, str] | None:
    """(start, surface) of the value of a field whose label is the attribute asked for
    ("State Flower: Palash · State Dance: ..." for "What is the state flower of X?"); a
    field running into the next label ("Sport: Ice Hockey Club: ...") loses that label's
    last word. None when no label names every attribute word."""
    if not attribute:
        return None
    for field in _FIELD.finditer(sentence):
        label = vocab.content_words(field.group(1))[-4:]
        if not label or not all(any(matches(w, {a}) for w in label) for a in attribute):
            continue
        value = field.group(2)
        words = list(re.finditer(r"\S+", value))
        if field.end() < len(sentence) and sentence[field.end()] == ":" and len(words) > 1:
            words = words[:-1]  # the next field's label
        if not words or len(words) > MAX_WORDS:
            continue
        start = field.start(2) + words[0].start()
        return start, sentence[start : field.start(2) + words[-1].end()].rstrip(",.")
    return None


def asked_attribute(query: str) -> set[str]:
    """The content words of the attribute a "what/which" question asks for: "boiling point"
    in "What is the boiling point of X?", "profession" in "What is X's profession?",
    "instrument" in "What instrument does X play?", "vitamin" in "Deficiency of which vitamin
    causes X?"; empty for other questions."""
    words = vocab.words(query.lower())
    at = next((i for i, w in enumerate(words) if w in _WHICH), None)
    if at is None or at + 1 >= len(words):
        return set()
    words = words[at:]
    if words[1] in vocab.COPULAS:
        rest = words[2:]
        owner = [i for i, w in enumerate(rest) if w.endswith(("'s", "s'"))]
        rest = rest[owner[-1] + 1 :] if owner else rest
    else:  # "what/which <noun> <verb> ...": the noun, perhaps with a modifier
        rest = words[1:3]
    attribute: list[str] = []
    for word in rest:
        if word in _ATTRIBUTE_END and attribute:
            break
        attribute.append(word)
    return {w for w in attribute if w not in vocab.STOPWORDS and w not in _LEADING}


def _shared(phrase: str, query_words: set[str]) -> int:
    return sum(1 for word in vocab.content_words(phrase) if matches(word, query_words))


def _is_answer(phrase: str, query_words: set[str]) -> bool:
    """A phrase that says something the question does not: a content word outside the
    question's, and not a lone pronoun."""
    words = vocab.words(phrase)
    if len(words) == 1 and words[0] in _PRONOUNS:
        return False
    return any(not matches(word, query_words) for word in vocab.content_words(phrase))


def _right_phrase(sentence: str, start: int) -> tuple[int, str] | None:
    """The noun phrase from `start`: up to a boundary, at most MAX_WORDS words, leading
    articles and possessives dropped."""
    tail = sentence[start:]
    cut = _PUNCTUATION.search(tail)
    tail = tail[: cut.start()] if cut else tail
    tokens: list[re.Match[str]] = []
    for match in re.finditer(r"\S+", tail):
        word = match.group(0)
        if not tokens and verbal(word):
            return None  # a passive ("is offered free", "was listed as"), not a noun phrase
        if tokens and (word.lower() in _BOUNDARY_WORDS or verbal(word)):
            break  # "a tool | used to ...", "a metal | which ..."
        tokens.append(match)
    if not tokens or tokens[0].group(0).lower().endswith("ly"):
        return None  # "is actually played by"
    while tokens and tokens[0].group(0).lower() in _LEADING:
        tokens = tokens[1:]
    if not tokens or len(tokens) > MAX_WORDS:
        return None
    first, last = tokens[0], tokens[-1]
    return start + first.start(), tail[first.start() : last.end()]


def verbal(word: str) -> bool:
    """A participle or gerund ("listed", "located", "born", "being", "used"); short words
    ending so ("red", "king", "seed") are not."""
    word = word.lower()
    if len(word) == 4 and word.endswith("ed") and word[0] in "aeiou":
        return True  # "used", "owed", "aged": a short stem that opens with a vowel
    return (len(word) > 4 and word.endswith(_VERBAL_ENDINGS)) or word in _IRREGULAR_PARTICIPLES


def _left_phrase(sentence: str, end: int) -> tuple[int, str] | None:
    """The noun phrase ending at `end` (a parenthesis just before it skipped): back to a
    boundary, at most MAX_WORDS words, leading articles dropped."""
    head = sentence[:end].rstrip()
    if head.endswith("),"):  # "X (born 1941), is a politician"
        head = head[:-1]
    if head.endswith(")") and "(" in head:
        head = head[: head.rindex("(")].rstrip()
    cut = max((m.end() for m in _PUNCTUATION.finditer(head)), default=0)
    tokens = list(re.finditer(r"\S+", head[cut:]))
    kept: list[re.Match[str]] = []
    for match in reversed(tokens):
        if match.group(0).lower() in _BOUNDARY_WORDS:
            break
        kept.insert(0, match)
    while kept and kept[0].group(0).lower() in _LEADING:
        kept = kept[1:]
    if not kept or len(kept) > MAX_WORDS or kept[-1].group(0).lower().endswith("ly"):
        return None
    return cut + kept[0].start(), head[cut + kept[0].start() : cut + kept[-1].end()]


# common irregular English verbs: base, past, participle. `same_verb` matches a question's
# verb ("wrote") to a passive's participle ("written by"); `verbal` knows the participles.
_IRREGULAR_VERBS = tuple(
    tuple(forms.split())
    for forms in (
        "write wrote written", "sing sang sung", "draw drew drawn", "build built built",
        "make made made", "lead led led", "take took taken", "give gave given",
        "find found found", "buy bought bought", "teach taught taught", "speak spoke spoken",
        "choose chose chosen", "begin began begun", "win won won", "hold held held",
        "run ran run", "think thought thought", "bring brought brought", "do did done",
        "see saw seen", "know knew known", "grow grew grown", "throw threw thrown",
        "fly flew flown", "drive drove driven", "ride rode ridden", "steal stole stolen",
        "break broke broken", "eat ate eaten", "fall fell fallen", "forget forgot forgotten",
        "hide hid hidden", "beat beat beaten", "get got gotten", "shoot shot shot",
        "sell sold sold", "tell told told", "pay paid paid", "lay laid laid",
        "strike struck struck", "wear wore worn", "tear tore torn", "swear swore sworn",
        "freeze froze frozen", "rise rose risen", "catch caught caught", "fight fought fought",
        "seek sought sought", "lose lost lost", "send sent sent", "spend spent spent",
        "feel felt felt", "keep kept kept", "leave left left", "meet met met", "set set set",
        "put put put", "become became become", "come came come", "go went gone",
        "say said said", "show showed shown", "sew sewed sewn", "bear bore born",
        "mean meant meant", "hang hung hung",
    )
)  # fmt: skip
_LEMMA = {form: forms[0] for forms in _IRREGULAR_VERBS for form in forms}
_IRREGULAR_PARTICIPLES = frozenset(forms[2] for forms in _IRREGULAR_VERBS)


# verbs English uses for one dated event: a when-question's verb dates the event a passage may
# tell with another ("When was X established?" / "X was founded in 1874"). Only the forms that
# cannot be read otherwise ("found" also means "discovered"; "formerly" is no "form").
_SAME_EVENT = tuple(
    frozenset(group.split())
    for group in (
        "founded established formed created incorporated",
        "built constructed erected",
        "released issued",
        "opened inaugurated",
        "began begun started commenced",
        "married wed wedded",
    )
)
_EVENT_BASE = {"establish": "established", "form": "formed", "create": "created",
               "build": "built", "construct": "constructed", "erect": "erected",
               "release": "released", "issue": "issued",
               "open": "opened", "inaugurate": "inaugurated", "begin": "began",
               "start": "started", "commence": "commenced", "marry": "married",
               "incorporate": "incorporated", "wed": "wed"}  # fmt: skip


def same_event(word: str, verb: str) -> bool:
    """Whether a passage's word tells the event a question's verb asks about: a form of the
    verb itself (`same_verb`) or a verb English uses for the same event ("founded" for
    "established", "constructed" for "built")."""
    if same_verb(word, verb):
        return True
    asked = _EVENT_BASE.get(verb, verb)
    return any(asked in group and word in group for group in _SAME_EVENT)


def same_verb(word: str, verb: str) -> bool:
    """Whether two lower-case words are forms of one verb: an irregular pair ("wrote",
    "written") or a shared stem of four letters or more ("directed", "directs")."""
    if word == verb or (word in _LEMMA and _LEMMA[word] == _LEMMA.get(verb, verb)):
        return True
    stem = 0
    for a, b in zip(word, verb, strict=False):
        if a != b:
            break
        stem += 1
    return stem >= 4 and stem >= min(len(word), len(verb)) - 3
