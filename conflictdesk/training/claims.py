"""In-domain claim-versus-document pairs from RAMDocs and QACC.

A claim reads "The answer to the question Q is A." (`claim_text`); a hedged claim joins
several answers ("A or B"). Labels follow ConflictScore / the data README: SUPPORTS ↔
entailment, CONTRADICTS ↔ contradiction, IRRELEVANT ↔ neutral; a document that supports only
part of a hedged claim counts as SUPPORTS.

HONEST SPLIT. RAMDocs has one file (dev.jsonl); its questions are split deterministically by
a hash of the normalised question text (`ramdocs_half`) into a TRAIN half and an EVAL half:
only the TRAIN half is ever used for training, figures are reported on the EVAL half (and,
labelled as such, on the full set). QACC: `train.jsonl` only for training, `dev.jsonl` only
for evaluation."""

from __future__ import annotations

import ast
import hashlib
import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from conflictdesk.training.nli_data import LABEL_ID, NLIExample, data_root

RELATION_TO_LABEL = {
    "SUPPORTS": "entailment",
    "CONTRADICTS": "contradiction",
    "IRRELEVANT": "neutral",
}
LABEL_TO_RELATION = {v: k for k, v in RELATION_TO_LABEL.items()}
E, N, C = LABEL_ID["entailment"], LABEL_ID["neutral"], LABEL_ID["contradiction"]
WINDOW_WORDS = 160  # about 210 word pieces: a 256-piece pair with a ~30-piece claim


def claim_text(question: str, answers: str | Sequence[str]) -> str:
    """'The answer to the question Q is A.'; several answers make a hedged claim 'A or B'."""
    if isinstance(answers, str):
        answers = [answers]
    answers = [a.strip() for a in answers if a and a.strip()]
    if not answers:
        raise ValueError("a claim needs at least one answer")
    joined = answers[0] if len(answers) == 1 else ", ".join(answers[:-1]) + " or " + answers[-1]
    return f"The answer to the question {question.strip()} is {joined}."


def _hash_int(text: str) -> int:
    normal = " ".join(text.lower().split())
    return int.from_bytes(hashlib.sha256(normal.encode("utf-8")).digest()[:8], "big")


def ramdocs_half(question: str) -> str:
    """'train' or 'eval', from a hash of the normalised question text (stable across runs)."""
    return "train" if _hash_int(question) % 2 == 0 else "eval"


def unique(values: Iterable[str]) -> list[str]:
    """Distinct non-empty strings, case-insensitively, in first-seen order."""
    seen: set[str] = set()
    out: list[str] = []
    for value in values:
        key = value.strip().lower() if value else ""
        if key and key != "unknown" and key not in seen:
            seen.add(key)
            out.append(value.strip())
    return out


def contains(text: str, answer: str) -> bool:
    """Case-insensitive containment on word boundaries (so '12' is not found in '2012')."""
    needle = re.escape(answer.strip().lower())
    return bool(answer.strip()) and re.search(rf"(?<!\w){needle}(?!\w)", text.lower()) is not None


def answer_window(text: str, answers: Sequence[str], max_words: int = WINDOW_WORDS) -> str:
    """The `max_words`-word window around the first occurrence of any answer (else the start);
    the whole text when it is short enough. Training only: inference windows the premise."""
    words = text.split()
    if len(words) <= max_words:
        return text
    lowered = [w.lower() for w in words]
    for answer in answers:
        first = answer.split()[0].lower() if answer.split() else ""
        for index, word in enumerate(lowered):
            if first and first in word and contains(" ".join(words[index : index + 12]), answer):
                start = max(0, min(index - max_words // 3, len(words) - max_words))
                return " ".join(words[start : start + max_words])
    return " ".join(words[:max_words])


_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"


def answer_kind(answer: str) -> str:
    """'year', 'date', 'number' or 'text' (swapped answers keep the kind)."""
    text = answer.strip().lower()
    if re.fullmatch(r"(1[0-9]|20)\d\d", text):
        return "year"
    if re.search(rf"\b({_MONTHS})\b", text) and re.search(r"\d", text):
        return "date"
    if re.search(r"\d", text):
        return "number"
    return "text"


# ---------------------------------------------------------------- RAMDocs


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def load_ramdocs(half: str | None, root: Path | None = None) -> list[dict]:
    """RAMDocs records of one half ('train' / 'eval') or all of them (None)."""
    records = read_jsonl((root or data_root()) / "ramdocs" / "dev.jsonl")
    return [r for r in records if half is None or ramdocs_half(r["question"]) == half]


def ramdocs_candidates(record: dict) -> tuple[list[str], list[str]]:
    """(correct answers, wrong answers) of a RAMDocs question, distinct."""
    golds = unique(record.get("gold_answers", []))
    wrong_pool = list(record.get("wrong_answers", [])) + [
        d["answer"] for d in record["documents"] if d["type"] == "misinfo"
    ]
    gold_keys = {g.lower() for g in golds}
    wrongs = [w for w in unique(wrong_pool) if w.lower() not in gold_keys]
    return golds, wrongs


@dataclass(frozen=True)
class ClaimPair:
    """One labelled claim × document case for evaluation."""

    question: str
    claim: str
    document: str
    relation: str  # SUPPORTS | CONTRADICTS | IRRELEVANT
    candidates: tuple[str, ...]  # the claim's answers
    others: tuple[str, ...]  # other candidate answers of the question (string-match baseline)


def ramdocs_eval_pairs(
    records: Sequence[dict], seed: int = 13, hedged: bool = True
) -> list[ClaimPair]:
    """The claim × document cases of the report: per question, the hedged claim with all its
    correct answers against each of its documents (correct → SUPPORTS, misinfo → CONTRADICTS,
    noise → IRRELEVANT) and against one document of another question (IRRELEVANT: topical
    but unrelated). `hedged=False` uses the first correct answer alone (the README's literal
    "the answer to Q is X"; the other correct answers then count as other candidates)."""
    rng = random.Random(seed)
    pairs: list[ClaimPair] = []
    relation = {"correct": "SUPPORTS", "misinfo": "CONTRADICTS", "noise": "IRRELEVANT"}
    for index, record in enumerate(records):
        golds, wrongs = ramdocs_candidates(record)
        if not golds:
            continue
        claimed = golds if hedged else golds[:1]
        others = wrongs if hedged else golds[1:] + wrongs
        claim = claim_text(record["question"], claimed)
        for doc in record["documents"]:
            pairs.append(
                ClaimPair(
                    record["question"],
                    claim,
                    doc["text"],
                    relation[doc["type"]],
                    tuple(claimed),
                    tuple(others),
                )
            )
        if len(records) > 1:
            other = records[(index + rng.randrange(1, len(records))) % len(records)]
            doc = rng.choice(other["documents"])
            pairs.append(
                ClaimPair(
                    record["question"],
                    claim,
                    doc["text"],
                    "IRRELEVANT",
                    tuple(claimed),
                    tuple(others),
                )
            )
    return pairs


def claim_match_relation(pair: ClaimPair) -> str:
    """The claim-only answer-string-match baseline (the inputs a labeller gets): SUPPORTS if
    the document contains one of the claim's answers, else CONTRADICTS."""
    return "SUPPORTS" if any(contains(pair.document, a) for a in pair.candidates) else "CONTRADICTS"


def string_match_relation(pair: ClaimPair) -> str:
    """The oracle answer-string-match baseline, which also knows the question's other candidate
    answers: SUPPORTS if the document contains one of the claim's answers, CONTRADICTS if it
    contains another candidate answer, else IRRELEVANT."""
    if any(contains(pair.document, a) for a in pair.candidates):
        return "SUPPORTS"
    if any(contains(pair.document, a) for a in pair.others):
        return "CONTRADICTS"
    return "IRRELEVANT"


class AnswerBank:
    """Answers of other questions by kind, for the swapped-answer variant."""

    def __init__(self, answers_by_question: dict[str, list[str]]) -> None:
        self.by_kind: dict[str, list[tuple[str, str]]] = {}
        for question, answers in answers_by_question.items():
            for answer in answers:
                self.by_kind.setdefault(answer_kind(answer), []).append((question, answer))

    def swap(
        self, question: str, answer: str, avoid: Iterable[str], rng: random.Random
    ) -> str | None:
        """A different answer of the same kind from another question, not in `avoid`."""
        pool = self.by_kind.get(answer_kind(answer), [])
        banned = {a.lower() for a in avoid} | {answer.lower()}
        for _ in range(20):
            if not pool:
                return None
            q, candidate = rng.choice(pool)
            if (
                q != question
                and candidate.lower() not in banned
                and not contains(answer, candidate)
            ):
                return candidate
        return None


def ramdocs_training_pairs(records: Sequence[dict], seed: int = 7) -> list[NLIExample]:
    """Training rows from RAMDocs records (call with the TRAIN half only)."""
    for record in records:
        if ramdocs_half(record["question"]) != "train":
            raise ValueError("RAMDocs EVAL-half question passed to the training builder")
    rng = random.Random(seed)
    bank = AnswerBank({r["question"]: ramdocs_candidates(r)[0] for r in records})
    rows: list[NLIExample] = []
    src = "ramdocs_train"
    for index, record in enumerate(records):
        q = record["question"]
        golds, wrongs = ramdocs_candidates(record)
        if not golds:
            continue
        hedged = claim_text(q, golds)
        for doc in record["documents"]:
            text, kind, own = doc["text"], doc["type"], doc["answer"]
            if kind == "correct":
                window = answer_window(text, [own] + golds)
                rows.append(NLIExample(window, claim_text(q, own), E, src))
                rows.append(NLIExample(window, hedged, E, src))
                for wrong in wrongs:
                    rows.append(NLIExample(window, claim_text(q, wrong), C, src))
                swapped = bank.swap(q, own, golds + wrongs, rng)
                if swapped and not contains(text, swapped):
                    rows.append(NLIExample(window, claim_text(q, swapped), C, src + "_swap"))
            elif kind == "misinfo":
                window = answer_window(text, [own])
                rows.append(NLIExample(window, claim_text(q, own), E, src))
                rows.append(NLIExample(window, hedged, C, src))
                for gold in golds[:2]:
                    if not contains(text, gold):
                        rows.append(NLIExample(window, claim_text(q, gold), C, src))
            else:  # noise
                window = answer_window(text, golds)
                rows.append(NLIExample(window, hedged, N, src))
                rows.append(NLIExample(window, claim_text(q, rng.choice(golds + wrongs)), N, src))
        if len(records) > 1:
            for claim in (hedged, claim_text(q, rng.choice(golds + wrongs))):
                other = records[(index + rng.randrange(1, len(records))) % len(records)]
                doc = rng.choice(other["documents"])
                rows.append(NLIExample(answer_window(doc["text"], []), claim, N, src + "_other"))
    return rows


# ---------------------------------------------------------------- QACC


def load_qacc(split: str, root: Path | None = None) -> list[dict]:
    if split not in ("train", "dev"):
        raise ValueError("QACC split is train or dev")
    return read_jsonl((root or data_root()) / "qacc" / f"{split}.jsonl")


def _letters(raw: object) -> list[int]:
    if not raw:
        return []
    try:
        letters = ast.literal_eval(str(raw))
    except (ValueError, SyntaxError):
        letters = re.findall(r"[A-Z]", str(raw))
    return [ord(x.strip().upper()) - ord("A") for x in letters if isinstance(x, str) and x.strip()]


def qacc_answers(record: dict) -> list[tuple[str, set[int]]]:
    """[(answer, indices of the contexts supporting it)], the distinct answers of a record."""
    out: list[tuple[str, set[int]]] = []
    slots = (
        ("firstAnswer", "firstContext", None),
        ("secondAnswer", "secondContext", "secondAnswerExist"),
        ("thirdAnswer", "thirdContext", "thirdAnswerExist"),
    )
    seen: set[str] = set()
    n = len(record.get("contexts", []))
    for answer_key, context_key, exist_key in slots:
        answer = record.get(answer_key)
        if exist_key and record.get(exist_key) != "A":
            continue
        if not answer or not str(answer).strip() or str(answer).strip().lower() in seen:
            continue
        seen.add(str(answer).strip().lower())
        idx = {i for i in _letters(record.get(context_key)) if 0 <= i < n}
        out.append((" ".join(str(answer).split()), idx))
    return out


def qacc_claim_pairs(records: Sequence[dict]) -> list[ClaimPair]:
    """Claim × context cases: a context listed as supporting answer X SUPPORTS claim X and
    CONTRADICTS claim Y (another answer some other context supports); a context supporting no
    answer is IRRELEVANT to every claim."""
    pairs: list[ClaimPair] = []
    for record in records:
        answers = qacc_answers(record)
        names = [a for a, _ in answers]
        for i, context in enumerate(record.get("contexts", [])):
            supported = {a for a, idx in answers if i in idx}
            for answer, _ in answers:
                if supported:
                    relation = "SUPPORTS" if answer in supported else "CONTRADICTS"
                else:
                    relation = "IRRELEVANT"
                others = tuple(a for a in names if a != answer)
                pairs.append(
                    ClaimPair(
                        record["question"],
                        claim_text(record["question"], answer),
                        context,
                        relation,
                        (answer,),
                        others,
                    )
                )
    return pairs


def qacc_training_pairs(records: Sequence[dict], seed: int = 11) -> list[NLIExample]:
    """Training rows from QACC train records (never dev): the claim × context cases plus a
    swapped-answer contradiction per supporting context and an unrelated-context neutral."""
    for record in records:
        if record.get("split", "train") != "train":
            raise ValueError("QACC dev record passed to the training builder")
    rng = random.Random(seed)
    bank = AnswerBank({r["question"]: [a for a, _ in qacc_answers(r)] for r in records})
    rows = [
        NLIExample(p.document, p.claim, LABEL_ID[RELATION_TO_LABEL[p.relation]], "qacc_train")
        for p in qacc_claim_pairs(records)
    ]
    for index, record in enumerate(records):
        answers = qacc_answers(record)
        contexts = record.get("contexts", [])
        for answer, idx in answers:
            for i in sorted(idx):
                swapped = bank.swap(record["question"], answer, [a for a, _ in answers], rng)
                if swapped and not contains(contexts[i], swapped):
                    rows.append(
                        NLIExample(
                            contexts[i],
                            claim_text(record["question"], swapped),
                            C,
                            "qacc_train_swap",
                        )
                    )
        if answers and len(records) > 1:
            other = records[(index + rng.randrange(1, len(records))) % len(records)]
            if other.get("contexts"):
                rows.append(
                    NLIExample(
                        rng.choice(other["contexts"]),
                        claim_text(record["question"], answers[0][0]),
                        N,
                        "qacc_train_other",
                    )
                )
    return rows
