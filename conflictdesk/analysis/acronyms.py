"""Questions about what an abbreviation stands for, and the expansions passages write.

"What does SHO stand for?", "Full form of ANZ?", "What does cf mean on a camera?" ask for the
words whose initials spell the abbreviation. The rule reader's other kinds miss them: the
answer is no date, number or single name, and a name spelling a word of the question counts
as repeating it (`claims.repeats_query`). Here a passage's answer is the first run of words, in
its most query-relevant sentences first, whose initials spell the abbreviation in order, with
the function words of a name ("of", "and", "&", "the") between them allowed ("District of
Columbia" for DC, "Australia and New Zealand" for ANZ). A run counts only when every matched
word is capitalised or the sentence writes the abbreviation too ("mean platelet volume (MPV)"),
so that ordinary words that happen to share initials are not read as an expansion, and never
when every matched word is a single letter (the abbreviation itself, "D.J.").

English function words only; no list names a case of any data set."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from conflictdesk import vocabulary as vocab

# "What does X stand for", "What is X short for", "(the) full form of X"
_STANDS_FOR = re.compile(
    r"\b(?:what|whats)\s+(?:does|do|did|is|was|'s)?\s*(?:the\s+)?(?P<a>[a-z0-9.&' ]+?)\s+"
    r"(?:stands?|stood)\s+for\b"
    r"|\bwhat\s+is\s+(?:the\s+)?(?P<b>[a-z0-9.&']+)\s+short\s+for\b"
    r"|\bfull\s+form\s+of\s+(?:the\s+)?(?P<c>[a-z0-9.&' ]+)"
)
# "What does X mean", "the meaning of X": X is read as an abbreviation only when it is short
# (three letters at most) or written in capitals, since these forms also ask about words
_MEANS = re.compile(
    r"\bwhat\s+(?:does|do|did)\s+(?:the\s+)?(?P<a>[a-z0-9.&' ]+?)\s+mean\b"
    r"|\bmeaning\s+of\s+(?:the\s+)?(?P<b>[a-z0-9.&' ]+)"
)
# words a name's expansion may hold between its initials
CONNECTORS = vocab.wordset("of and the for & in on to de du des la le")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*|&")


def asked_abbreviation(query: str) -> str | None:
    """The letters of the abbreviation a question asks the expansion of, lower case ("sho"
    for "What does sho stand for on ford taurus?", "dj" for "What does d j stand for ...?"),
    or None."""
    lowered = " ".join(query.lower().replace("’", "'").split())
    match = _STANDS_FOR.search(lowered)
    strict = False
    if match is None:
        match, strict = _MEANS.search(lowered), True
    if match is None:
        return None
    phrase = next(group for group in match.groups() if group is not None)
    letters = _leading_letters(phrase)
    if letters is None or not 2 <= len(letters) <= 6:
        return None
    if strict and len(letters) > 3 and letters.upper() not in query:
        return None
    return letters


def _leading_letters(phrase: str) -> str | None:
    """The abbreviation at the start of `phrase`: its first word ("ip" of "ip in ip
    address"), or a run of single letters ("d j", "u.s.")."""
    words = phrase.replace(".", " ").split()
    if not words or not words[0].isalpha():
        return None
    if len(words[0]) > 1:
        return words[0]
    run = list(itertools.takewhile(lambda w: len(w) == 1 and w.isalpha(), words))
    return "".join(run) if len(run) > 1 else None


def expansion(sentence: str, letters: str) -> str | None:
    """The first run of words of `sentence` whose initials spell `letters`, with CONNECTORS
    allowed between them, when its matched words are all capitalised or the sentence also
    writes the abbreviation ("Super High Output" in "SHO stands for Super High Output");
    None when there is none."""
    tokens = [(m.start(), m.end(), m.group(0)) for m in _TOKEN.finditer(sentence)]
    written = any(word.lower() == letters for _, _, word in tokens)
    for first in range(len(tokens)):
        matched = _spell(tokens, first, letters)
        if matched is None:
            continue
        if all(len(tokens[i][2]) == 1 for i in matched):
            continue  # the abbreviation itself, written with stops ("D.J.")
        capitalised = all(tokens[i][2][0].isupper() for i in matched)
        if capitalised or written:
            return sentence[tokens[matched[0]][0] : tokens[matched[-1]][1]]
    return None


def _spell(tokens: Sequence[tuple[int, int, str]], first: int, letters: str) -> list[int] | None:
    """Indices of the tokens from `first` on whose initials spell `letters` in order, with
    connectors skipped between them; None when they do not."""
    matched: list[int] = []
    index = first
    while index < len(tokens) and len(matched) < len(letters):
        word = tokens[index][2]
        if word[0].lower() == letters[len(matched)] and word.lower() != letters:
            matched.append(index)
        elif not matched or word.lower() not in CONNECTORS:
            return None
        index += 1
    return matched if len(matched) == len(letters) else None


def expansion_answer(sentences: Sequence[str], letters: str) -> tuple[str, str, str, str] | None:
    """(key, surface, kind, sentence) of the first sentence, in the order given (most
    query-relevant first), that writes an expansion of `letters`; None when none does. The
    kind is "entity" for a capitalised expansion, else "phrase"."""
    for sentence in sentences:
        surface = expansion(sentence, letters)
        if surface is not None:
            words = [w.lower() for w in _TOKEN.findall(surface)]
            key = "exp:" + " ".join("and" if w == "&" else w for w in words)
            kind = "entity" if surface[0].isupper() else "phrase"
            return key, surface, kind, sentence
    return None
