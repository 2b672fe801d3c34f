"""Questions asking what sport someone or something is associated with.

"What sport is X associated with?" is answered in text by a person's description ("a former
English cricketer", "an American football coach"), not by the sport's name, which is what
the question asks for. `sport_of` reads the sport out of such a description: the words
before a head noun of a role in a sport ("player", "coach"), or an agent noun's stem
("cricketer" → "cricket", "footballer" → "football"), without qualifiers of career or
nationality ("former", "professional", "English"). A nationality stays where it names the
sport itself ("American football", "Gaelic football"). English words only."""

from __future__ import annotations

import re

from conflictdesk import vocabulary as vocab
from conflictdesk.analysis import text as tx

_ASKS_SPORT = re.compile(
    r"\b(?:what|which)\s+(?:kind\s+of\s+|type\s+of\s+)?sports?\b", re.IGNORECASE
)
# head nouns of a role or an event in a sport: the words before them name it ("rugby union
# player", "tennis event")
HEADS = vocab.wordset(
    "player players coach coaches manager athlete athletes champion international referee "
    "umpire official administrator commentator broadcaster executive event events "
    "competition competitions tournament tournaments championship championships league "
    "club team match"
)
# qualifiers of a career, not of the sport
CAREER_WORDS = vocab.wordset(
    "former retired professional semi-professional amateur international national "
    "olympic paralympic a an the"
)
# a nationality that, before this word, is part of the sport's name ("American football")
_NAMED_WITH = vocab.wordset("football rules")


# English names of sports (a general list, longest forms first when matched)
SPORTS = frozenset(
    line.strip()
    for line in """
    football; american football; association football; australian rules football;
    gaelic football; canadian football; soccer; rugby; rugby union; rugby league; cricket;
    baseball; softball; basketball; netball; volleyball; beach volleyball; handball;
    ice hockey; field hockey; hockey; lacrosse; hurling; shinty; polo; water polo; tennis;
    table tennis; badminton; squash; golf; boxing; kickboxing; wrestling; judo; karate;
    taekwondo; fencing; mixed martial arts; swimming; diving; rowing; sailing; canoeing;
    kayaking; surfing; athletics; track and field; marathon; triathlon; cycling;
    road cycling; track cycling; mountain biking; gymnastics; artistic gymnastics;
    rhythmic gymnastics; weightlifting; powerlifting; bodybuilding; archery; shooting;
    equestrianism; show jumping; horse racing; motor racing; auto racing; motorsport;
    formula one; rallying; speedway; skiing; alpine skiing; cross-country skiing;
    ski jumping; biathlon; snowboarding; speed skating; figure skating; bobsleigh; luge;
    curling; bowling; darts; snooker; billiards; pool; chess; climbing; skateboarding
    """.replace("\n", " ").split(";")
    if line.strip()
)
_LONGEST = max(len(name.split()) for name in SPORTS)


def named_sport(sentences: list[str]) -> str | None:
    """The first sport of SPORTS that `sentences` write, in their order, the longest name
    at each word ("rugby union" before "rugby"); None when they name none."""
    for sentence in sentences:
        words = vocab.words(sentence)
        for i in range(len(words)):
            for n in range(min(_LONGEST, len(words) - i), 0, -1):
                name = " ".join(words[i : i + n])
                if name in SPORTS:  # as the sentence writes it
                    pattern = r"\b" + r"\W+".join(map(re.escape, name.split())) + r"\b"
                    found = re.search(pattern, sentence, re.IGNORECASE)
                    return found.group(0) if found else name
    return None


def bracketed_sport(query: str, sentences: list[str]) -> tuple[str, str] | None:
    """(the sport, its sentence) a bracketed qualifier right after a word of the question
    names (an encyclopaedia's title "Bobby Carpenter (American football)" for "What sport is
    Bobby Carpenter associated with?"); None when none does."""
    asked = tx.question_words(query)
    for sentence in sentences:
        for before, content in tx.bracketed_qualifiers(sentence):
            if before.lower() in asked and " ".join(vocab.words(content.lower())) in SPORTS:
                return content, sentence
    return None


def asks_sport(query: str) -> bool:
    """Whether the question asks for a sport ("What sport is X associated with?")."""
    return _ASKS_SPORT.search(query) is not None


def sport_of(description: str) -> str | None:
    """The sport a description of a role or an event names: up to two lower-case words
    before its head noun, a role or event ("rugby union player", "WTA Tour tennis event":
    "tennis") or an agent noun ("baseball pitcher"), with a nationality that is part of the
    sport's name ("American football coach"); else an agent noun's stem after nothing but
    nationalities ("a former English cricketer": "cricket"); None when it names none (a
    sport's own name, "rugby union", is kept as read)."""
    words = [w for w in description.replace(",", " ").split() if w.lower() not in CAREER_WORDS]
    if not words:
        return None
    head = words[-1].lower()
    agent = head.endswith(("er", "or", "ist", "man")) and head.isalpha()
    if head not in HEADS and not agent:
        return None
    sport: list[str] = []
    for word in reversed(words[:-1]):
        if len(sport) == 2 or not (word.isalpha() and word.islower()):
            break
        sport.insert(0, word)
    if sport:
        before = words[len(words) - 2 - len(sport)] if len(words) > len(sport) + 1 else ""
        if sport[0] in _NAMED_WITH and before.lower() in vocab.NATIONALITIES:
            sport.insert(0, before)
        return " ".join(sport)
    if head in HEADS or not all(w.lower() in vocab.NATIONALITIES for w in words[:-1]):
        return None
    return _agent_stem(head)


def _agent_stem(word: str) -> str | None:
    """The noun an agent noun in "-er" is made from, where removing the ending leaves a
    word of four letters or more not ending in a vowel or a doubled consonant other than
    "ll", or in a consonant and "l" ("cricketer" → "cricket", "footballer" → "football",
    "golfer" → "golf"; not "swimmer", "boxer", "wrestler")."""
    if not word.endswith("er") or not word.isalpha():
        return None
    stem = word[:-2]
    if len(stem) < 4 or stem[-1] in "aeiou" or (stem[-1] == stem[-2] and stem[-1] != "l"):
        return None
    if stem[-1] == "l" and stem[-2] not in "aeiouwl":
        return None  # "wrestler": "wrestl" is no word
    return stem
