"""ConflictBench-style detection cases from RAMDocs and QACC, their trivial baselines and
Table 2's metrics (shared by the evaluation scripts and the fusion labeller's training).

Cases: the claim "The answer to the question Q is A." for one answer A of the question;
RAMDocs `correct` documents giving A SUPPORT, `misinfo` documents CONTRADICT, `noise` documents
are IRRELEVANT (`correct` documents giving another answer are left out); QACC contexts listed
for A SUPPORT, contexts listed only for another answer CONTRADICT, the rest are IRRELEVANT.
A case is a conflict when it has at least one SUPPORTS and one CONTRADICTS document."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conflictdesk.training.claims import (
    claim_text,
    contains,
    load_qacc,
    qacc_answers,
    ramdocs_half,
    read_jsonl,
)
from conflictdesk.training.nli_data import data_root

RELATIONS = ("SUPPORTS", "CONTRADICTS", "IRRELEVANT")


@dataclass(frozen=True)
class Case:
    """One conflict-detection case: a claim, its documents and their gold relations."""

    dataset: str
    question: str
    claim: str
    answer: str
    others: tuple[str, ...]
    documents: tuple[str, ...]
    gold: tuple[str, ...]
    half: str  # RAMDocs: "train" / "eval"; QACC: the split

    @property
    def conflict(self) -> bool:
        return "SUPPORTS" in self.gold and "CONTRADICTS" in self.gold


def same_answer(a: str, b: str) -> bool:
    a, b = a.strip().lower(), b.strip().lower()
    return bool(a and b) and (a in b or b in a)


def ramdocs_case(record: dict[str, Any]) -> Case | None:
    docs = record["documents"]
    answers = Counter(d["answer"].strip() for d in docs if d["type"] == "correct")
    golds = [g for g in record.get("gold_answers", []) if g and g.strip()]
    if answers:
        answer = answers.most_common(1)[0][0]
    elif golds:
        answer = golds[0].strip()
    else:
        return None
    texts, gold = [], []
    for doc in docs:
        if doc["type"] == "correct" and doc["answer"].strip().lower() != answer.lower():
            continue  # another correct answer: not scored
        texts.append(doc["text"])
        gold.append(
            {"correct": "SUPPORTS", "misinfo": "CONTRADICTS"}.get(doc["type"], "IRRELEVANT")
        )
    pool = golds + list(record.get("wrong_answers", []))
    others = _others(answer, pool)
    q = record["question"]
    return Case("ramdocs", q, claim_text(q, answer), answer, others, tuple(texts), tuple(gold),
                ramdocs_half(q))  # fmt: skip


def _others(answer: str, pool: Sequence[str]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for candidate in pool:
        candidate = (candidate or "").strip()
        if candidate and candidate.lower() != "unknown" and not same_answer(candidate, answer):
            seen.setdefault(candidate.lower(), candidate)
    return tuple(seen.values())


def qacc_case(record: dict[str, Any], split: str) -> Case | None:
    answers = qacc_answers(record)
    if not answers:
        return None
    (answer, supporting), rest = answers[0], answers[1:]
    contradicting = set().union(*(idx for _, idx in rest)) if rest else set()
    gold = []
    for i, _ in enumerate(record["contexts"]):
        if i in supporting:
            gold.append("SUPPORTS")
        elif i in contradicting:
            gold.append("CONTRADICTS")
        else:
            gold.append("IRRELEVANT")
    q = record["question"]
    others = _others(answer, [a for a, _ in rest] + [record.get("correctAnswer") or ""])
    return Case("qacc", q, claim_text(q, answer), answer, others, tuple(record["contexts"]),
                tuple(gold), split)  # fmt: skip


def load_cases(dataset: str, split: str, root: Path | None = None) -> list[Case]:
    """RAMDocs (`split` is ignored: one file, halves in `Case.half`) or QACC `split` cases."""
    data = root or data_root()
    if dataset == "ramdocs":
        records = read_jsonl(data / "ramdocs" / "dev.jsonl")
        cases = [ramdocs_case(r) for r in records]
    else:
        cases = [qacc_case(r, split) for r in load_qacc(split, data)]
    return [c for c in cases if c is not None and c.documents]


def claim_match(case: Case) -> list[str]:
    """The claim-only answer-string-match baseline."""
    return ["SUPPORTS" if contains(text, case.answer) else "CONTRADICTS" for text in case.documents]


def string_match(case: Case) -> list[str]:
    """The oracle answer-string-match baseline (knows the other candidate answers)."""
    out = []
    for text in case.documents:
        if contains(text, case.answer):
            out.append("SUPPORTS")
        elif any(contains(text, other) for other in case.others):
            out.append("CONTRADICTS")
        else:
            out.append("IRRELEVANT")
    return out


def ratio(a: float, b: float) -> float:
    """a / b, or 0 when b is 0."""
    return a / b if b else 0.0


def detection_metrics(gold: Sequence[bool], predicted: Sequence[bool]) -> dict[str, float]:
    """Table 2's columns: precision, recall, F1, accuracy, Acc_conf (= recall), Acc_noConf."""
    tp = sum(g and p for g, p in zip(gold, predicted))
    fp = sum(p and not g for g, p in zip(gold, predicted))
    fn = sum(g and not p for g, p in zip(gold, predicted))
    tn = sum(not g and not p for g, p in zip(gold, predicted))
    precision, recall = ratio(tp, tp + fp), ratio(tp, tp + fn)
    return {
        "precision": precision, "recall": recall,
        "f1": ratio(2 * precision * recall, precision + recall),
        "accuracy": ratio(tp + tn, len(gold)), "acc_conf": recall,
        "acc_noconf": ratio(tn, tn + fp), "conflicts": tp + fn, "cases": len(gold),
    }  # fmt: skip


def relation_metrics(gold: Sequence[str], predicted: Sequence[str]) -> dict[str, float]:
    """Per-relation F1 over all scored claim × document pairs and their macro average."""
    out: dict[str, float] = {}
    for relation in RELATIONS:
        tp = sum(g == relation and p == relation for g, p in zip(gold, predicted))
        precision = ratio(tp, sum(p == relation for p in predicted))
        recall = ratio(tp, sum(g == relation for g in gold))
        out[f"f1_{relation.lower()}"] = ratio(2 * precision * recall, precision + recall)
    out["macro_f1"] = sum(out[f"f1_{r.lower()}"] for r in RELATIONS) / len(RELATIONS)
    out["pair_accuracy"] = ratio(sum(g == p for g, p in zip(gold, predicted)), len(gold))
    out["pairs"] = len(gold)
    return out


def evaluate(cases: Sequence[Case], predictions: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Case-level detection and pair-level relation metrics of one labeller's predictions."""
    gold_pairs = [g for case in cases for g in case.gold]
    predicted_pairs = [p for row in predictions for p in row]
    predicted_conflict = ["SUPPORTS" in row and "CONTRADICTS" in row for row in predictions]
    return {
        "detection": detection_metrics([c.conflict for c in cases], predicted_conflict),
        "relations": relation_metrics(gold_pairs, predicted_pairs),
    }
