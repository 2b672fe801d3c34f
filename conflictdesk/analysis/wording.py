"""The question a query asks, in the one form the analysis reads.

Users type the same question many ways: "Who is the head coach of the Dunmore Falcons?",
"Tell me who coaches the Dunmore Falcons.", "Dunmore Falcons head coach", "Dunmore Falcons -
who is their coach?". The reader (`claims.py`) takes a question's form (wh, yes/no or a
declarative claim) and the kind of answer it asks for from its first words, so before this
step a keyword query was read as a claim to verify and a polite request as a yes/no question
("Can you tell me who ...?"). `asked_question` rewrites the wrappings of English, never the
content words, in this order:

1. a wh-word contracted with "is" opens the question in full ("who's" → "who is");
2. a request around a question is dropped ("Can you tell me", "Please tell me", "I would like
   to know", "Do you know", "Would you say", ...): an embedded wh-clause becomes the
   question, put back in question order when its auxiliary closes it or follows its subject
   ("who the writer of X is" → "who is the writer of X"); a statement ("whether X was Y",
   "X was Y") becomes its yes/no question ("Was X Y?"; without an auxiliary "Is it true that
   X causes Y?", whose statement `claims.declarative` reads after "that"); a noun phrase
   becomes "What is <phrase>?";
3. a question (it ends with "?") after a topic or a fronted phrase ("X - did it ...?", "X: is
   ...?", "In 2019, did ...?") is read whole (a topic and a predicate of at most three words
   after a dash or colon, asked without an auxiliary, "X archive - free?", is the yes/no
   question "Is it true that X archive free?"): a fronted phrase opened by a preposition or a subordinating
   word moves to the question's end; a topic replaces the question's first "it"/"they"
   ("its"/"their" become the topic's possessive), or follows the question in parentheses;
4. a keyword query (no question mark, no sentence ending, no sign of a finite verb outside a
   relative clause: an auxiliary, a third-person "-s" verb after its subject, an "-ed" verb
   before an article, a number or a preposition of place or time) asks "What is the
   <attribute> of <name>?" when it is a name (capitalised words and numbers) followed by at
   most five lowercase words or an acronym ("Mount Orla height" → "What is the height of
   Mount Orla?", "Orla Insurance CEO"), "What is <query>?" for a bare name or a single word
   (a description), else "What is the <query>?" ("the" keeps it a question for a value).

A query in none of these shapes is returned as it was, so every question and claim of the
development sets reads as before. Each rule names function words
of English only. The analysis reports the rewording in its `method` ("query")."""

from __future__ import annotations

import re

from conflictdesk import vocabulary as vocab

_WH = ("what", "who", "whom", "whose", "when", "where", "which", "why", "how")
_WH_CONTRACTION = re.compile(r"^(what|who|where|when|how)['’]s\b", re.IGNORECASE)
# A request around the question: an optional "please", an optional "can/could/would you",
# then a verb of telling or knowing and its optional "me/us".
_REQUEST = re.compile(
    r"^(?:please[,]?\s+)?"
    r"(?:(?:can|could|would|will)\s+(?:you|someone|anyone)\s+(?:please\s+)?)?"
    r"(?:tell|show|give|explain|find|say|confirm|remind)(?:\s+(?:to\s+)?(?:me|us))?"
    r"(?:\s+please)?[,:]?\s+",
    re.IGNORECASE,
)
_KNOWING = re.compile(
    r"^(?:please[,]?\s+)?(?:i(?:['’]d|\s+would)\s+like\s+to\s+know|i\s+(?:want|need)\s+to\s+know"
    r"|i(?:['’]m|\s+am)\s+(?:wondering|curious)(?:\s+about)?|i\s+wonder"
    r"|(?:do|does)\s+(?:you|anyone|anybody)\s+know|any\s+idea"
    r"|(?:would|do)\s+you\s+(?:say|think))(?:\s+that)?[,:]?\s+",
    re.IGNORECASE,
)
_RELATIVES = vocab.wordset("who whom whose which that where when")
# Words that open a fronted adverbial phrase or clause ("In 2019, did ...?").
_FRONTED = vocab.wordset(
    "in on at for from under over after before during since until by with without within "
    "across among between according if when whenever while once unless although though "
    "as given assuming apart besides compared"
)
_SEPARATOR = re.compile(r"\s[-–—]\s|:\s|,\s")
_SUBJECT_PRONOUNS = re.compile(r"\b(it|they|them|he|she|him)\b", re.IGNORECASE)
_POSSESSIVES = re.compile(r"\b(its|their|his|her)\b", re.IGNORECASE)
_DETERMINERS = vocab.wordset(
    "a an the this that these those my your his her its our their some any each every no"
)
_PREPOSITIONS = vocab.PREPOSITIONS
_NAME_JOINERS = vocab.wordset("of the and de du la von van")  # inside a name: "Gallery of Art"
_MAX_ATTRIBUTE_WORDS = 5
# After an "-ed" verb these open its complement ("opened in 1889", "won the prize").
_AFTER_PAST = vocab.wordset("a an the in on at to into from during since until")


def asked_question(query: str) -> str:
    """The question `query` asks, in the form the reader reads (module docstring); `query`
    itself, unchanged, when no rule rewrites it."""
    typed = " ".join(query.split())
    text = _WH_CONTRACTION.sub(lambda m: f"{m.group(1)} is", typed)
    text = _unwrap_request(text)
    text = _fronted(text)
    if _keyword_query(text):
        text = _keyword_question(text)
    if text == typed:
        return query
    return text[:1].upper() + text[1:]


def _keyword_question(text: str) -> str:
    """ "What is the <attribute> of <name>?" for a name followed by a few lowercase words
    ("Mount Orla height", "Orla Arena seating capacity"), else "What is the <query>?"."""
    tokens = text.split()
    end = index = 0
    while index < len(tokens):
        token = tokens[index]
        if token[:1].isupper() or token[:1].isdigit():
            index += 1
            end = index
        elif token in _NAME_JOINERS and index + 1 < len(tokens) and tokens[index + 1][:1].isupper():
            index += 1
        else:
            break
    if end == len(tokens) and end > 1 and _acronym(tokens[-1]):
        end -= 1  # "Orla Insurance CEO": the acronym is the attribute
    attribute = tokens[end:]
    if end == len(tokens) or len(tokens) == 1:
        return f"What is {text}?"  # a bare name or term asks what it is
    if (
        end
        and 1 <= len(attribute) <= _MAX_ATTRIBUTE_WORDS
        and all(w.isalpha() and (w.islower() or _acronym(w)) for w in attribute)
        and not any(w in _PREPOSITIONS and w not in ("of", "per") for w in attribute)
    ):
        return f"What is the {' '.join(attribute)} of {' '.join(tokens[:end])}?"
    return f"What is the {text}?" if _first_word(text) not in _DETERMINERS else f"What is {text}?"


def _acronym(word: str) -> bool:
    return len(word) >= 2 and word.isalpha() and word.isupper()


def _first_word(text: str) -> str:
    found = vocab.words(text)
    return found[0] if found else ""


def _unwrap_request(text: str) -> str:
    """The question inside a request, or `text` unchanged."""
    match = _REQUEST.match(text) or _KNOWING.match(text)
    if match is None:
        return text
    rest = text[match.end() :].strip()
    rest = re.sub(r"^(?:please\s+)", "", rest, flags=re.IGNORECASE)
    if not set(vocab.words(rest)) - {"me", "us", "please"}:
        return text  # "Can you tell me?": nothing asked inside
    body = rest.rstrip("?.! ").strip()
    first = _first_word(body)
    if first in ("if", "whether"):
        body = body.split(None, 1)[1] if len(body.split()) > 1 else body
        first = _first_word(body)
    if first in _WH:
        return _question_order(body) + "?"
    if first in vocab.AUXILIARIES:
        return body + "?"
    polar = _polar(body)
    if polar is not None:
        return polar
    if not _keyword_query(body):  # a statement without an auxiliary
        return f"Is it true that {body[:1].lower() + body[1:] if not _proper(body) else body}?"
    return _keyword_question(body)  # a noun phrase: "the name of the mayor"


def _polar(clause: str) -> str | None:
    """A statement's yes/no question, its first auxiliary moved before its subject ("the
    project was successful" → "was the project successful?"); an auxiliary right after a
    relative pronoun belongs to a noun's clause ("the person who is head coach"), and
    a statement without an auxiliary gives None."""
    tokens = clause.split()
    for index in range(1, len(tokens)):
        word, before = tokens[index].lower(), tokens[index - 1].lower()
        if word in vocab.AUXILIARIES and before not in _RELATIVES:
            rest = tokens[:index] + tokens[index + 1 :]
            return " ".join([tokens[index], *rest]) + "?"
    return None


def _question_order(clause: str) -> str:
    """An embedded wh-clause in question order: its auxiliary moves to just after the
    wh-phrase when a subject stands between them ("who the writer of X is" → "who is the
    writer of X", "how tall Mount Orla is" → "how tall is Mount Orla"). The wh-phrase is the
    wh-word with, after "how", its next word, after "which" or "whose" its noun, and after
    "what" the lowercase words before a determiner or a name ("what colour the eggs are")."""
    tokens = clause.split()
    lowered = [t.lower() for t in tokens]
    end = 1
    if lowered[0] in ("how", "which", "whose") and len(tokens) > 2:
        end = 2
    if lowered[0] in ("how", "what"):
        probe = end
        while probe < len(tokens) - 1 and tokens[probe].isalpha() and tokens[probe].islower():
            following = tokens[probe + 1]
            if following.lower() in _DETERMINERS or following[:1].isupper():
                end = probe + 1
                break
            if following.lower() in vocab.AUXILIARIES:
                break
            probe += 1
    for index in range(end + 1, len(tokens)):
        if lowered[index] in vocab.AUXILIARIES:
            aux = tokens[index]
            rest = tokens[end:index] + tokens[index + 1 :]
            return " ".join([*tokens[:end], aux, *rest])
    return clause


def _fronted(text: str) -> str:
    """A question after a fronted phrase or a topic, read whole (module docstring, rule 3)."""
    if _first_word(text) in _WH or _first_word(text) in vocab.AUXILIARIES:
        return text
    if not text.endswith("?"):
        return text  # "Paris, the capital, is large": a claim with an apposition
    for match in reversed(list(_SEPARATOR.finditer(text))):
        left, right = text[: match.start()].strip(), text[match.end() :].strip()
        opener = _first_word(right)
        if not vocab.words(left) or (opener not in _WH and opener not in vocab.AUXILIARIES):
            continue
        body = right.rstrip("?").strip()
        lead = _first_word(left)
        if lead in _FRONTED and match.group().strip() == ",":
            phrase = left[:1].lower() + left[1:]  # its first word is a function word
            return f"{body} {phrase}?"
        if lead in _DETERMINERS:  # "The trial: did it ...?" → "did the trial"
            left = left[:1].lower() + left[1:]
        possessive = _POSSESSIVES.search(body)
        pronoun = _SUBJECT_PRONOUNS.search(body)
        if pronoun is not None and (possessive is None or pronoun.start() < possessive.start()):
            body = body[: pronoun.start()] + left + body[pronoun.end() :]
        elif possessive is not None:
            body = body[: possessive.start()] + _possessive(left) + body[possessive.end() :]
        else:
            body = f"{body} ({left})"
        return body + "?"
    return _telegraphic_polar(text)


_POLAR_TAIL_WORDS = 3


def _telegraphic_polar(text: str) -> str:
    """A topic and a short predicate after a dash or a colon, asked without an auxiliary
    ("Tallowmere Gazette archive - free?", "Halvern deck: permit required?"): a yes/no
    question about the statement they make together; `text` unchanged otherwise."""
    found = [m for m in _SEPARATOR.finditer(text) if m.group().strip() != ","]
    if not found:
        return text
    left, right = text[: found[-1].start()].strip(), text[found[-1].end() :].rstrip("?").strip()
    words = vocab.words(right)
    if not vocab.words(left) or not 1 <= len(right.split()) <= _POLAR_TAIL_WORDS:
        return text
    if set(words) & set(_WH) or words[0] in vocab.AUXILIARIES:
        return text
    statement = f"{left} {right}"
    if not _proper(statement):
        statement = statement[:1].lower() + statement[1:]
    return f"Is it true that {statement}?"


def _proper(phrase: str) -> bool:
    """Whether the phrase's first word is a name (capitalised and not a function word)."""
    first = phrase.split()[0]
    return first[:1].isupper() and first.lower() not in vocab.STOPWORDS


def _possessive(phrase: str) -> str:
    return phrase + ("'" if phrase.endswith("s") else "'s")


def _keyword_query(text: str) -> bool:
    """A query that neither asks (no question mark, no opening wh-word or auxiliary) nor
    states (no sentence ending, no sign of a finite verb): a list of keywords."""
    if text.endswith(("?", ".", "!")) or not vocab.words(text):
        return False
    tokens = text.replace(",", " ").split()
    lowered = [t.lower() for t in tokens]
    if not lowered or lowered[0] in _WH:
        return False
    if any(w in vocab.AUXILIARIES and (i == 0 or lowered[i - 1] not in _RELATIVES)
           for i, w in enumerate(lowered)):  # fmt: skip
        return False  # an auxiliary outside a relative clause ("the person who is coach")
    for index in range(1, len(tokens) - 1):
        word, before, after = tokens[index], lowered[index - 1], lowered[index + 1]
        if not word.isalpha() or not word.islower() or before in _RELATIVES:
            continue  # a verb of a relative clause ("the architect who designed X")
        third_person = (
            len(word) >= 4
            and word.endswith("s")
            and not word.endswith(("ss", "us", "is"))
            and before not in _DETERMINERS
            and before not in _PREPOSITIONS
            and not before.replace(".", "").isdigit()
        )
        past = word.endswith("ed") and (after in _AFTER_PAST or after.isdigit())
        if third_person or past:
            return False
    return True
