"""The gold-label scoring of `ask` on QACC dev and RAMDocs (inline documents): cases with
their gold answers, supports and type, and the question-level metrics `scripts/eval_ask.py`
reports (its docstring defines each one)."""

from __future__ import annotations

import ast
import gzip
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conflictdesk.analysis.dates import find_dates
from conflictdesk.analysis.dimensions import NUMBER_WORDS, number_word_value
from conflictdesk.analysis.quantities import clock_times, quantity, same_quantity
from conflictdesk.generation.types import AnswerSentence, SentenceRole
from conflictdesk.metrics.cars import (
    CarsComponents,
    answer_contains,
    cars,
    detection_prf,
    resolution_appropriate,
)
from conflictdesk.metrics.citations import citation_quality, factual_grounding
from conflictdesk.training.claims import ramdocs_half
from conflictdesk.types import ConflictType, Passage, Tag

ORDINALS = ("first", "second", "third", "fourth")


@dataclass(frozen=True)
class Case:
    id: str
    dataset: str
    query: str
    passages: tuple[Passage, ...]
    gold_conflict: bool
    gold_answers: tuple[str, ...]  # for answer recall
    support: dict[str, frozenset[int]]  # answer text -> passages supporting it (gold)
    gold_type: ConflictType | None = None
    half: str | None = None


@dataclass
class Prediction:
    conflict: bool
    conflict_type: str
    rule: str
    sentences: tuple[AnswerSentence, ...]
    tags: dict[int, Tag] = field(default_factory=dict)
    packet: dict[int, str] = field(default_factory=dict)
    ms: float = 0.0
    leading: str | None = None  # the claim frame's leading answer: "" none found; None no wh
    shown: str | None = None  # the short answer `ask --json` gives ("leading"), same convention


# -- data --------------------------------------------------------------------------------------


def _letters(value: str | None) -> frozenset[int]:
    if not value:
        return frozenset()
    return frozenset(ord(letter) - ord("A") for letter in ast.literal_eval(value))


def load_qacc(path: Path) -> list[Case]:
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        passages = tuple(
            Passage(id=i, text=text, document_id=i, source=source)
            for i, (text, source) in enumerate(zip(row["contexts"], row["sources"]))
        )
        support = {row["firstAnswer"]: _letters(row["firstContext"])} if row["firstAnswer"] else {}
        for name in ORDINALS[1:3]:
            if row.get(f"{name}AnswerExist") == "A" and row.get(f"{name}Answer"):
                support[row[f"{name}Answer"]] = _letters(row.get(f"{name}Context"))
        n_answers = 1 + sum(row.get(f"{n}AnswerExist") == "A" for n in ORDINALS[1:])
        gold = row["correctAnswer"] or row["firstAnswer"]
        cases.append(
            Case(
                f"qacc-{row['annotation_task_id']}",
                "qacc",
                row["question"],
                passages,
                n_answers > 1,
                (gold,),
                support,
            )
        )
    return cases


def load_ramdocs(path: Path) -> list[Case]:
    cases = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        row = json.loads(line)
        docs = row["documents"]
        passages = tuple(Passage(id=i, text=d["text"], document_id=i) for i, d in enumerate(docs))
        support: dict[str, set[int]] = {}
        for i, d in enumerate(docs):
            if d["type"] in ("correct", "misinfo") and d.get("answer"):
                support.setdefault(d["answer"], set()).add(i)
        types = {d["type"] for d in docs}
        conflict = {"correct", "misinfo"} <= types
        if conflict:
            gold_type = ConflictType.MISINFORMATION
        elif len(row["gold_answers"]) > 1:
            gold_type = ConflictType.COMPLEMENTARY
        else:
            gold_type = ConflictType.NO_CONFLICT
        cases.append(
            Case(
                f"ramdocs-{n}",
                "ramdocs",
                row["question"],
                passages,
                conflict,
                tuple(row["gold_answers"]),
                {a: frozenset(ids) for a, ids in support.items()},
                gold_type,
                ramdocs_half(row["question"]),
            )
        )
    return cases


def load_typed_dev(path: Path) -> list[Case]:
    """typed_dev: hand-written cases with a gold CONFLICTS type; gold conflict = any type but
    no_conflict (as `ask` counts complementary answers); gold answers = `gold_answer`, or
    every answer of `gold_answers_all` (complementary), none for conflicting opinions. No
    per-passage support, so no gold citations."""
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        passages = tuple(
            Passage(id=i, text=d["text"], document_id=i, title=d.get("title"),
                    date=d.get("date"), source=d.get("source"))
            for i, d in enumerate(row["documents"])
        )  # fmt: skip
        gold = ConflictType(row["conflict_type"])
        answers = row.get("gold_answers_all") or (
            [row["gold_answer"]] if row["gold_answer"] else []
        )
        cases.append(Case(row["id"], "typed_dev", row["query"], passages,
                          gold is not ConflictType.NO_CONFLICT, tuple(answers), {}, gold))  # fmt: skip
    return cases


def load_conflictqa(path: Path, per_kind: int = 150) -> list[Case]:
    """ConflictQA (StrategyQA part) passage pairs, one pair per question, the first `per_kind`
    agreeing and the first `per_kind` conflicting questions in file order: yes/no questions
    with two passages. Gold conflict = the pair's label; gold answer = "Yes" / "No" from the
    ground truth (agreeing pairs only: a conflicting pair holds both); gold type no_conflict
    for agreeing pairs, none for conflicting ones (their counter-passages are written by an
    LLM, the dataset gives no CONFLICTS type)."""
    cases: list[Case] = []
    taken = {True: 0, False: 0}
    seen: set[str] = set()
    with gzip.open(path, "rt", encoding="utf-8") as rows:
        for line in rows:
            row = json.loads(line)
            conflict = bool(row["conflict"])
            if row["question"] in seen or taken[conflict] >= per_kind:
                continue
            seen.add(row["question"])
            taken[conflict] += 1
            truth = row["ground_truth"]
            truth = truth if isinstance(truth, list) else ast.literal_eval(truth)
            gold = ("Yes" if str(truth[0]) == "True" else "No",) if not conflict else ()
            passages = (Passage(0, row["passage_a"], 0), Passage(1, row["passage_b"], 1))
            kind = None if conflict else ConflictType.NO_CONFLICT
            cases.append(Case(row["id"], "conflictqa", row["question"], passages, conflict,
                              gold, {}, kind))  # fmt: skip
    return cases


def premise(p: Passage) -> str:
    """A passage as the NLI judge sees it: date and title first, as CONFLICTS shows sources."""
    head = " ".join(x for x in (p.date, p.title) if x)
    return f"{head}\n{p.text}" if head else p.text


# -- scoring -----------------------------------------------------------------------------------


def gold_citations(case: Case, sentences: Sequence[AnswerSentence]) -> tuple[int, int, int, int]:
    """(correct citations, citations, sentences with a correct citation, judged sentences)."""
    correct = total = hit = judged = 0
    for sentence in sentences:
        if sentence.role is not SentenceRole.CLAIM:
            continue
        mentioned = [a for a in case.support if answer_contains(sentence.text, [a])]
        if not mentioned:
            continue
        judged += 1
        good = set().union(*(case.support[a] for a in mentioned))
        n_good = sum(1 for c in sentence.cites if c in good)
        correct, total, hit = correct + n_good, total + len(sentence.cites), hit + (n_good > 0)
    return correct, total, hit, judged


def is_gold_answer(answer: str | None, gold: Sequence[str]) -> bool:
    """A short answer is gold when it contains a gold answer or a gold answer contains it
    (whole words, normalised; as `scripts/train_span_reader.py` scores a passage's answer),
    or when both are one date, however written ("January 15th, 2009" is "15 January 2009";
    "6 July 1840" answers "1840"), or one number, in digits or in words ("3" is "three"), or
    one name, with or without its initials ("James H. Meredith" is "James Meredith") or its
    middle names ("Tatyana Ali" is "Tatyana Marisol Ali"), or one
    quantity in another unit, within the precision both are written to ("133 miles" is
    "214 km": what the reader itself merges, `quantities.same_quantity`), or the same times
    of day in the same order ("09:00-13:00" is "9am to 1pm"), or when a gold answer is a
    list and the answer holds every item of it ("X and Y" is "X,Y")."""
    if not answer:
        return False
    return (
        answer_contains(answer, gold)
        or any(holds_list(answer, g) for g in gold)
        or any(answer_contains(g, [answer]) for g in gold)
        or any(same_date(answer, g) for g in gold)
        or any(same_number(answer, g) for g in gold)
        or any(same_name(answer, g) for g in gold)
        or any(same_person(answer, g) for g in gold)
        or any(same_measure(answer, g) for g in gold)
        or any(same_clock(answer, g) for g in gold)
    )


_LIST_BREAK = re.compile(r"\s*(?:[,;&/]|\band\b)\s*", re.IGNORECASE)


def holds_list(answer: str, gold: str) -> bool:
    """Whether `gold` lists two answers or more (commas, semicolons, "and", "&") and
    `answer` holds every one of them as whole words."""
    items = [item for item in _LIST_BREAK.split(gold) if item.strip()]
    return len(items) > 1 and all(answer_contains(answer, [item]) for item in items)


def same_clock(answer: str, gold: str) -> bool:
    """Whether both write the same times of day, in the same order, however written."""
    times = clock_times(answer)
    return bool(times) and times == clock_times(gold)


def same_measure(answer: str, gold: str) -> bool:
    """Whether both are one quantity with a unit, the same once converted."""
    a, g = quantity(answer), quantity(gold)
    return a is not None and g is not None and same_quantity(a, g)


def same_name(answer: str, gold: str) -> bool:
    """Whether one holds the other once a name's initials are left out ("James H. Meredith"
    is "James Meredith"); only when one of them has an initial."""
    a, g = _no_initials(answer), _no_initials(gold)
    if (a, g) == (answer, gold) or not a.strip() or not g.strip():
        return False
    return answer_contains(a, [g]) or answer_contains(g, [a])


def same_person(answer: str, gold: str) -> bool:
    """Whether one is a full name and the other its first and last words ("Tatyana Ali" of
    "Tatyana Marisol Ali"), every word of both capitalised."""
    short, full = sorted((_name_words(answer), _name_words(gold)), key=len)
    return len(short) == 2 and len(full) > 2 and short == [full[0], full[-1]]


def _name_words(text: str) -> list[str]:
    words = re.findall(r"[^\W\d_][\w'’.-]*", text)
    return [w.lower().rstrip(".") for w in words] if all(w[0].isupper() for w in words) else []


def _no_initials(text: str) -> str:
    return re.sub(r"\b[A-Z]\.(?=\s)", "", text)


def same_number(answer: str, gold: str) -> bool:
    """Whether two short answers hold the same numbers, in digits or in words, in the same
    order: one value ("3" is "three") or a range whose unit is written another way
    ("2.1 to 2.4 metres" is "2.1 to 2.4 m"); not two quantities of different dimensions
    ("20 kg" is not "20 km")."""
    a, g = _values(answer), _values(gold)
    stated, wanted = quantity(answer), quantity(gold)
    if stated is not None and wanted is not None and stated.dimension != wanted.dimension:
        return False
    return bool(a) and a == g


def _values(text: str) -> tuple[float, ...]:
    """The values of the numbers a short answer holds, in text order."""
    found = [(m.start(), float(m.group(0).replace(",", ""))) for m in _DIGITS.finditer(text)]
    found += [
        (m.start(), float(number_word_value(m.group(0)))) for m in NUMBER_WORDS.finditer(text)
    ]
    return tuple(value for _, value in sorted(found))


_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")


def same_date(answer: str, gold: str) -> bool:
    """Whether two short answers each name one date and the dates agree at the coarser
    precision of the two."""
    found, wanted = find_dates(answer), find_dates(gold)
    if len(found) != 1 or len(wanted) != 1:
        return False
    a, g = found[0].iso(), wanted[0].iso()
    return a == g or a.startswith(g + "-") or g.startswith(a + "-")


def lead_text(sentences: Sequence[AnswerSentence]) -> str:
    return next((s.text for s in sentences if s.role is SentenceRole.CLAIM), "")


def score(cases: Sequence[Case], preds: Sequence[Prediction], nli: Any = None) -> dict[str, Any]:
    prf = detection_prf([p.conflict for p in preds], [c.gold_conflict for c in cases])
    text = [" ".join(s.text for s in p.sentences) for p in preds]
    answered = [i for i, c in enumerate(cases) if c.gold_answers]  # recall: where gold exists
    recall = _mean([answer_contains(text[i], cases[i].gold_answers) for i in answered])
    lead = _mean(
        [answer_contains(lead_text(preds[i].sentences), cases[i].gold_answers) for i in answered]
    )
    framed = [i for i in answered if preds[i].leading is not None]  # wh-questions
    leading = _mean([is_gold_answer(preds[i].leading, cases[i].gold_answers) for i in framed])
    shown = _mean([is_gold_answer(preds[i].shown, cases[i].gold_answers) for i in framed])
    cites = [gold_citations(c, p.sentences) for c, p in zip(cases, preds)]
    correct, total, hit, judged = (sum(x[i] for x in cites) for i in range(4))
    out: dict[str, Any] = {
        "questions": len(cases),
        "gold_conflicts": sum(c.gold_conflict for c in cases),
        "detection": {
            "precision": prf.precision,
            "recall": prf.recall,
            "f1": prf.f1,
            "tp": prf.tp,
            "fp": prf.fp,
            "fn": prf.fn,
            "tn": prf.tn,
        },
        "always_conflict_f1": detection_prf(
            [True] * len(cases), [c.gold_conflict for c in cases]
        ).f1,
        "answer_recall": recall,
        "lead_answer_recall": lead,
        # the frame's short leading answer (what `ask --json` reports as `leading`): the
        # sentence-level figure above also counts a right name beside a misread one
        "leading_answer_recall": leading if framed else None,
        # the short answer `ask --json` reports as "leading" (`report.leading_answer`): the
        # newest source's under the recency rule, else the frame's
        "short_answer_recall": shown if framed else None,
        "citation_precision_gold": correct / total if total else None,
        "citation_recall_gold": hit / judged if judged else None,
        "judged_sentences": judged,
        "predicted_types": dict(Counter(p.conflict_type for p in preds)),
        "mean_ms": _mean([p.ms for p in preds]),
    }
    typed = [(c, p) for c, p in zip(cases, preds) if c.gold_type is not None]
    if typed:
        out["answered_questions"] = len(answered)
        out["types"] = type_scores(typed)
    if typed and cases[0].dataset != "conflictqa":  # CARS needs every case's gold type
        ra = _mean([resolution_appropriate(p.rule, c.gold_type) for c, p in typed])
        sf = out["citation_precision_gold"] or 0.0
        parts = CarsComponents(ac=recall, cda=prf.f1, ra=ra, sf=sf)
        out["cars"] = {"cars": cars(parts), "ac": recall, "cda": prf.f1, "ra": ra, "sf": sf}
    if nli is not None:
        out["nli"] = nli_metrics(preds, nli)
    return out


def type_scores(typed: Sequence[tuple[Case, Prediction]]) -> dict[str, Any]:
    """Type accuracy, per gold type, beside the majority class of the same cases, and the
    share of gold answers the answer covers where there are several (complementary)."""
    gold = [c.gold_type.value for c, _ in typed if c.gold_type is not None]
    hits = [c.gold_type is not None and p.conflict_type == c.gold_type.value for c, p in typed]
    per_type = {t: _mean([h for h, g in zip(hits, gold) if g == t]) for t in sorted(set(gold))}
    several = [
        _mean([answer_contains(" ".join(s.text for s in p.sentences), [a]) for a in c.gold_answers])
        for c, p in typed
        if len(c.gold_answers) > 1
    ]
    return {
        "accuracy": _mean(hits),
        "majority_class": Counter(gold).most_common(1)[0][1] / len(gold),
        "per_type": per_type,
        "answer_coverage": _mean(several) if several else None,
    }


def nli_metrics(preds: Sequence[Prediction], nli: Any) -> dict[str, float | None]:
    """ALCE citation quality, leakage, factual grounding and contradiction rate, macro-averaged
    over the questions where each is defined (conflictdesk/metrics/citations.py)."""
    rows: dict[str, list[float]] = {
        k: [] for k in ("precision", "recall", "leakage", "grounding", "contradiction_rate")
    }
    for p in preds:
        quality = citation_quality(p.sentences, p.packet, nli, p.tags)
        grounding = factual_grounding(p.sentences, p.packet, nli)
        for name, value in (
            ("precision", quality.precision),
            ("recall", quality.recall),
            ("leakage", quality.leakage),
            ("grounding", grounding.grounding),
            ("contradiction_rate", grounding.contradiction_rate),
        ):
            if value is not None:
                rows[name].append(value)
    return {name: _mean(values) if values else None for name, values in rows.items()}


def _mean(values: Sequence[float | bool]) -> float:
    return sum(float(v) for v in values) / len(values) if values else 0.0
