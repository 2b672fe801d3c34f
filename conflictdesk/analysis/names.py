"""Name variants: when two spellings name the same thing, and how much of a name a text holds.

A question and a passage rarely write a name the same way: "Acme" against "Acme Ltd" or
"ACME Limited", "Acme's" against "Acme", "Acme-Dorn" against "Acme Dorn", "Falls" against
"falls". Two rules, both closed and independent of any text they are used on:

- `name_tokens` reduces a text to comparable word forms: lower case, the possessive ending
  dropped ("'s", "s'", curly or straight), hyphenated words split into their parts (the whole
  kept too), and a plural "-s" reduced to its singular stem for words of five letters or more.
- `answer_key` is the key two answers share when they name the same value: possessive and
  punctuation dropped, articles dropped (`conflictdesk.text.normalise_answer`), and a trailing
  legal or corporate suffix (`LEGAL_SUFFIXES`, a closed word class: "Ltd", "Inc", "GmbH", ...)
  dropped when a name remains before it.

`subject_weights` weighs the words of a question's subject for `tag.subject_coverage`: a
legal suffix weighs nothing (it says what kind of body a name is, not which); a word the
passages also write in lower case ("falls", "river"), a number, or a word of three letters
or fewer weighs `GENERIC_WEIGHT` (a common word or code that many entities share); any other
name word weighs 1. So a passage naming a multi-word subject by its rare part
("Zembrook" for "Mount Zembrook") covers most of it, and one sharing only its common part
("Systems" of "Acme Systems") does not."""

from __future__ import annotations

import re
from collections.abc import Iterable

from conflictdesk.text import normalise_answer

# Legal and corporate designations that follow a name (compared lower-case, no periods).
# fmt: off
LEGAL_SUFFIXES = frozenset((
    "ltd", "limited", "inc", "incorporated", "corp", "corporation", "co", "company", "plc",
    "llc", "llp", "lp", "gmbh", "ag", "sa", "sas", "srl", "spa", "bv", "nv", "oy", "ab", "as",
    "pty", "pte", "kk", "fc", "afc",
))
# fmt: on
GENERIC_WEIGHT = 0.25
# Calendar words written with a capital that name no entity (months are dates, `dates.py`).
WEEKDAYS = frozenset(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))
_POSSESSIVE = re.compile(r"(?<=\w)(?:['’]s|(?<=s)['’])(?=\W|$)", re.IGNORECASE)
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*(?:-[^\W_]+)*")


def drop_possessive(text: str) -> str:
    """`text` without possessive endings ("Acme's" → "Acme", "Brothers'" → "Brothers")."""
    return _POSSESSIVE.sub("", text)


def word_form(word: str) -> str:
    """One word's comparable form: lower case, possessive dropped, plural "-s" of a word of
    five letters or more reduced (not "-ss", "-us", "-is")."""
    word = drop_possessive(word.lower().replace("’", "'")).strip("'")
    if len(word) >= 5 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def name_tokens(text: str) -> set[str]:
    """The comparable word forms of `text`; a hyphenated word gives its parts and itself."""
    forms = set()
    for token in _TOKEN.findall(text):
        forms.add(word_form(token))
        if "-" in token:
            forms.update(word_form(part) for part in token.split("-") if part)
    return forms


def is_calendar_word(surface: str) -> bool:
    """True for a capitalised run made of weekday names only ("Tuesday")."""
    return all(w in WEEKDAYS for w in name_tokens(surface))


def answer_key(text: str) -> str:
    """The form under which two answers naming the same value compare equal (module
    docstring); "" for an empty answer."""
    words = normalise_answer(drop_possessive(text.replace("’", "'"))).split()
    while len(words) > 1 and words[-1] in LEGAL_SUFFIXES:
        words.pop()
    return " ".join(words)


def subject_weights(subject: Iterable[str], lower_case_words: set[str]) -> dict[str, float]:
    """Weight of each subject word form (module docstring): 0 for a legal suffix,
    GENERIC_WEIGHT for a word the texts write in lower case, a number or a short word,
    else 1. `lower_case_words`: the word forms the texts write in lower case."""
    weights = {}
    for word in subject:
        if word in LEGAL_SUFFIXES:
            weights[word] = 0.0
        elif word in lower_case_words or word.isdigit() or len(word) <= 3:
            weights[word] = GENERIC_WEIGHT
        else:
            weights[word] = 1.0
    return weights
