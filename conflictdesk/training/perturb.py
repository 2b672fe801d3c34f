"""Rule-based contradiction pairs: what conflicts between documents are made of.

Each rule rewrites one sentence so that it can no longer be true together with the original
(a changed number, year or month, an inserted or removed negation, two named entities swapped,
a flipped quantifier); the pair (original, rewritten) is a contradiction and (original,
original) an entailment. Rules return None when they do not apply."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence

from conflictdesk.training.nli_data import LABEL_ID, NLIExample

Rule = Callable[[str, random.Random], "str | None"]

_YEAR = re.compile(r"(?<![\d.,])(1[5-9]\d\d|20[0-4]\d)(?![\d.,])")
_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\w,]|\.\d)")
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_MONTH = re.compile(r"\b(" + "|".join(_MONTHS) + r")\b")
_NEGATED = re.compile(
    r"\b(is|are|was|were|has|have|had|does|do|did|can|could|will|would|should|must)"
    r"(\s+not\b|n't\b)",
    re.IGNORECASE,
)
_AUX = re.compile(r"\b(is|are|was|were|can|could|will|would|should|must)\b")
_NEVER = re.compile(r"\bnever\s+", re.IGNORECASE)
_ENTITY = re.compile(r"(?<!^)(?<![.!?]\s)\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)\b")
_QUANTIFIERS = [
    (re.compile(r"\bAll\b"), "No"),
    (re.compile(r"\ball\b"), "no"),
    (re.compile(r"\bEvery\b"), "No"),
    (re.compile(r"\bevery\b"), "no"),
    (re.compile(r"\bNone of\b"), "All of"),
    (re.compile(r"\bnone of\b"), "all of"),
    (re.compile(r"\bSome\b"), "No"),
    (re.compile(r"\bsome\b"), "no"),
    (re.compile(r"\balways\b"), "never"),
    (re.compile(r"\bnever\b"), "always"),
    (re.compile(r"\bNobody\b"), "Everybody"),
    (re.compile(r"\bnobody\b"), "everybody"),
    (re.compile(r"\bno one\b"), "everyone"),
    (re.compile(r"\beveryone\b"), "no one"),
]
_STOP_ENTITIES = {
    "The",
    "A",
    "An",
    "In",
    "On",
    "At",
    "He",
    "She",
    "It",
    "They",
    "This",
    "That",
    "His",
    "Her",
    "Its",
    "Their",
    "There",
    "I",
    "We",
    "You",
    "After",
    "Before",
    *_MONTHS,
}


def change_year(sentence: str, rng: random.Random) -> str | None:
    """Move one year by 1-15 years."""
    matches = list(_YEAR.finditer(sentence))
    if not matches:
        return None
    m = rng.choice(matches)
    year = int(m.group(1)) + rng.choice([-1, 1]) * rng.randint(1, 15)
    return sentence[: m.start()] + str(year) + sentence[m.end() :]


def change_month(sentence: str, rng: random.Random) -> str | None:
    """Replace a month name with another month."""
    m = _MONTH.search(sentence)
    if not m:
        return None
    other = rng.choice([x for x in _MONTHS if x != m.group(1)])
    return sentence[: m.start()] + other + sentence[m.end() :]


def change_number(sentence: str, rng: random.Random) -> str | None:
    """Change one number that is not a year (scaled or shifted, same format)."""
    matches = [m for m in _NUMBER.finditer(sentence) if not _YEAR.fullmatch(m.group(0))]
    if not matches:
        return None
    m = rng.choice(matches)
    value = int(m.group(1).replace(",", ""))
    if value < 10:
        new = rng.choice([v for v in range(13) if v != value])
    else:
        new = int(value * rng.choice([0.5, 0.7, 1.3, 1.5, 2.0, 3.0]))
        if new == value:
            new = value + 1
    text = f"{new:,}" if "," in m.group(1) else str(new)
    if m.group(2):
        text += "." + m.group(2)
    return sentence[: m.start()] + text + sentence[m.end() :]


def toggle_negation(sentence: str, rng: random.Random) -> str | None:
    """Remove a negation ("was not" → "was", "never " → "") or insert "not" after the first
    auxiliary verb."""
    m = _NEGATED.search(sentence)
    if m:
        return sentence[: m.start()] + m.group(1) + sentence[m.end() :]
    m = _NEVER.search(sentence)
    if m:
        return sentence[: m.start()] + sentence[m.end() :]
    m = _AUX.search(sentence)
    if m:
        return sentence[: m.end()] + " not" + sentence[m.end() :]
    return None


def swap_entities(sentence: str, rng: random.Random) -> str | None:
    """Swap two different capitalised names (not the sentence's first word)."""
    found = [m for m in _ENTITY.finditer(sentence) if m.group(1) not in _STOP_ENTITIES]
    distinct: list[re.Match[str]] = []
    for m in found:
        if all(m.group(1) != d.group(1) for d in distinct):
            distinct.append(m)
    if len(distinct) < 2:
        return None
    a, b = sorted(rng.sample(distinct, 2), key=lambda m: m.start())
    return (
        sentence[: a.start()]
        + b.group(1)
        + sentence[a.end() : b.start()]
        + a.group(1)
        + sentence[b.end() :]
    )


def flip_quantifier(sentence: str, rng: random.Random) -> str | None:
    """all/every/some → no, none of → all of, always ↔ never, nobody ↔ everybody."""
    options = [(p, r) for p, r in _QUANTIFIERS if p.search(sentence)]
    if not options:
        return None
    pattern, replacement = rng.choice(options)
    return pattern.sub(replacement, sentence, count=1)


RULES: dict[str, Rule] = {
    "year": change_year,
    "month": change_month,
    "number": change_number,
    "negation": toggle_negation,
    "entities": swap_entities,
    "quantifier": flip_quantifier,
}


def perturb(
    sentence: str, rng: random.Random, rules: Sequence[str] | None = None
) -> tuple[str, str] | None:
    """(rule name, rewritten sentence) for the first applicable rule in a random order."""
    names = list(rules or RULES)
    rng.shuffle(names)
    for name in names:
        out = RULES[name](sentence, rng)
        if out is not None and out != sentence:
            return name, out
    return None


def rule_pairs(
    premises: Iterable[str], n: int, seed: int = 5, entail_share: float = 0.3, max_words: int = 60
) -> list[NLIExample]:
    """About `n` rows: (premise, rewritten) contradictions, plus (premise, premise)
    entailments for a share `entail_share`. Number/date/year rules are preferred (they are
    what most document conflicts are made of) by trying them first half of the time."""
    rng = random.Random(seed)
    pool = sorted({p for p in premises if 4 <= len(p.split()) <= max_words})
    rng.shuffle(pool)
    rows: list[NLIExample] = []
    for premise in pool:
        if len(rows) >= n:
            break
        if rng.random() < entail_share:
            rows.append(NLIExample(premise, premise, LABEL_ID["entailment"], "rules:identity"))
            continue
        result = None
        if rng.random() < 0.5:
            result = perturb(premise, rng, ["year", "month", "number"])
        result = result or perturb(premise, rng)
        if result:
            name, changed = result
            rows.append(NLIExample(premise, changed, LABEL_ID["contradiction"], f"rules:{name}"))
    return rows
