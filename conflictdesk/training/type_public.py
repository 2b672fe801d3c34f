"""Typed training cases built by provenance from public data (no hand labels, no word lists).

Each builder reads the TRAINING part of one public source and gives a CONFLICTS type from how
the source was made, never from the documents' wording:

- conflicting_opinions: a PERSPECTRUM debate claim (train split) with perspectives labelled
  SUPPORT and others labelled UNDERMINE by crowd workers: sources arguing opposite sides.
- no_conflict: a RAMDocs question (TRAIN half) whose `correct` documents give one answer and
  no document is `misinfo`; a QACC train question whose contexts support one answer only
  (`secondAnswerExist` = no); a ConflictQA (StrategyQA part, train split) yes/no question with
  passages written for the same answer.
- misinformation: a RAMDocs TRAIN-half question with one or more `misinfo` documents (a
  planted false answer) beside its `correct` ones.
- complementary: a RAMDocs TRAIN-half question with several gold answers (AmbigDocs: one name,
  several entities) whose `correct` documents give two or more of them and none is `misinfo`:
  every answer is right for one reading of the question (with a `misinfo` document beside
  them the case is misinformation: a false source is the conflict to resolve); a QACC train
  question (AmbigQA: a question with several readings by construction) whose contexts the
  annotators found supporting two or more distinct answers, each with its own contexts:
  real search snippets, the retrieval the CONFLICTS benchmark draws its queries from.
- outdated: no public source here dates an answer that changed, so none is built.

RAMDocs' EVAL half, QACC dev and the other splits are never read here."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.evaluation.cases import same_answer
from conflictdesk.training.claims import _hash_int, load_qacc, load_ramdocs, qacc_answers
from conflictdesk.training.types import TypedCase
from conflictdesk.types import ConflictType, Passage

MAX_DOCUMENTS = 8
LIMITS = {"perspectrum": 60, "ramdocs": 80, "qacc": 40, "conflictqa": 30}


def public_cases(root: Path, limits: dict[str, int] | None = None) -> list[TypedCase]:
    """Every builder's cases (at most `limits[source]` each, chosen by a hash of the
    question, so the choice is stable)."""
    limits = {**LIMITS, **(limits or {})}
    return [
        *perspectrum_cases(root, limits["perspectrum"]),
        *ramdocs_cases(root, limits["ramdocs"]),
        *qacc_cases(root, limits["qacc"]),
        *conflictqa_cases(root, limits["conflictqa"]),
    ]


def source_of(case_id: str) -> str:
    """The public source of a case built here ("typed_dev" for any other id)."""
    parts = case_id.split("-")
    return parts[1] if parts[0] == "pub" else "typed_dev"


def _case(case_id: str, query: str, texts: Sequence[str], kind: str, sources=None) -> TypedCase:
    sources = list(sources) if sources is not None else [None] * len(texts)
    passages = tuple(
        Passage(id=i, text=t, document_id=i, source=s)
        for i, (t, s) in enumerate(zip(texts, sources, strict=True))
    )
    return TypedCase(case_id, query, passages, ConflictType(kind))


def _rng(key: str) -> np.random.Generator:
    return np.random.default_rng(_hash_int(key) % (2**32))


def _by_hash(keys: Sequence[Any], salt: str) -> list[Any]:
    return sorted(keys, key=lambda k: _hash_int(f"{salt}{k}"))


def _gz_rows(path: Path) -> Iterator[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            yield json.loads(line)


def _side_documents(perspectives: Sequence[str], rng: np.random.Generator) -> list[str]:
    """1–3 documents of one side, each one or two of its perspectives joined."""
    picked = [perspectives[i] for i in rng.permutation(len(perspectives))[:6]]
    documents, i = [], 0
    while i < len(picked) and len(documents) < 3:
        take = int(rng.integers(1, 3))
        documents.append(" ".join(p.rstrip(".") + "." for p in picked[i : i + take]))
        i += take
    return documents


def perspectrum_cases(root: Path, limit: int) -> list[TypedCase]:
    """conflicting_opinions (module docstring); the query is the debate claim."""
    sides: dict[int, dict[str, dict[str, None]]] = {}
    claims: dict[int, str] = {}
    for row in _gz_rows(root / "perspectrum" / "pairs_train.jsonl.gz"):
        claims[row["claim_id"]] = row["question"]
        by_stance = sides.setdefault(row["claim_id"], {"SUPPORT": {}, "UNDERMINE": {}})
        for text, stance in ((row["passage_a"], row["stance_a"]), (row["passage_b"], row["stance_b"])):  # fmt: skip
            by_stance[stance].setdefault(text.strip(), None)
    cases = []
    for claim_id in _by_hash(list(sides), "persp"):
        support, undermine = sides[claim_id]["SUPPORT"], sides[claim_id]["UNDERMINE"]
        if not support or not undermine:
            continue
        rng = _rng(f"persp{claim_id}")
        documents = _side_documents(list(support), rng) + _side_documents(list(undermine), rng)
        texts = [documents[i] for i in rng.permutation(len(documents))]
        query = claims[claim_id]
        cases.append(_case(f"pub-perspectrum-{claim_id}", query, texts, "conflicting_opinions"))
        if len(cases) >= limit:
            break
    return cases


def _distinct(answers: Sequence[str]) -> list[str]:
    out: list[str] = []
    for answer in answers:
        if answer.strip() and not any(same_answer(answer, seen) for seen in out):
            out.append(answer)
    return out


def ramdocs_type(record: dict[str, Any]) -> str | None:
    """The type a RAMDocs question's provenance gives (module docstring), or None."""
    docs = record["documents"]
    correct = [d["answer"] for d in docs if d["type"] == "correct"]
    misinfo = sum(d["type"] == "misinfo" for d in docs)
    answers = _distinct(correct)
    if len(answers) == 1:
        if not misinfo:
            return "no_conflict"
        return "misinformation"
    golds = [g for g in record.get("gold_answers", []) if g and g.strip()]
    if len(answers) >= 2 and len(golds) >= 2:
        return "misinformation" if misinfo else "complementary"
    return None


def ramdocs_cases(root: Path, limit: int) -> list[TypedCase]:
    """RAMDocs TRAIN-half questions typed by `ramdocs_type`, at most MAX_DOCUMENTS each
    (noise documents dropped first), at most `limit` per type."""
    counts: dict[str, int] = {}
    cases = []
    records = load_ramdocs("train", root)
    for record in _by_hash(records, "ramdocs"):
        kind = ramdocs_type(record)
        if kind is None or counts.get(kind, 0) >= limit:
            continue
        docs = record["documents"]
        keep = sorted(range(len(docs)), key=lambda i: (docs[i]["type"] == "noise", i))
        kept = sorted(keep[:MAX_DOCUMENTS])
        texts = [docs[i]["text"] for i in kept]
        case_id = f"pub-ramdocs-{_hash_int(record['question']) % 10**8}"
        cases.append(_case(case_id, record["question"], texts, kind))
        counts[kind] = counts.get(kind, 0) + 1
    return cases


def qacc_cases(root: Path, limit: int, split: str = "train") -> list[TypedCase]:
    """QACC questions of `split` (AmbigQA questions with Google-snippet contexts): no_conflict
    when the contexts support one answer only; complementary when annotators found contexts
    supporting two or more distinct answers (an AmbigQA question has several readings by
    construction, each answered by its own contexts). At most `limit` per type. The public
    training cases read "train"; "dev" is a held-out check of real search snippets."""
    counts: dict[str, int] = {}
    cases = []
    for record in _by_hash(load_qacc(split, root), "qacc"):
        answers = qacc_answers(record)
        if len(answers) == 1 and record.get("secondAnswerExist") == "B":
            kind = "no_conflict"
        elif len(_distinct([a for a, _ in answers])) >= 2 and all(ids for _, ids in answers):
            kind = "complementary"
        else:
            continue
        if counts.get(kind, 0) >= limit:
            continue
        texts, sources = record["contexts"][:MAX_DOCUMENTS], record.get("sources") or []
        sources = (list(sources) + [None] * len(texts))[: len(texts)]
        case_id = f"pub-qacc-{record['annotation_task_id']}"
        cases.append(_case(case_id, record["question"], texts, kind, sources))
        counts[kind] = counts.get(kind, 0) + 1
    return cases


def conflictqa_cases(root: Path, limit: int) -> list[TypedCase]:
    """no_conflict: 2–4 ConflictQA train passages written for one answer of a question."""
    by_answer: dict[str, dict[str, dict[str, None]]] = {}
    for row in _gz_rows(root / "conflictqa_strategyqa" / "pairs_train.jsonl.gz"):
        answers = by_answer.setdefault(row["question"], {})
        for text, answer in ((row["passage_a"], row["answer_a"]), (row["passage_b"], row["answer_b"])):  # fmt: skip
            answers.setdefault(answer, {}).setdefault(text.strip(), None)
    cases = []
    for question in _by_hash(list(by_answer), "cqa"):
        rng = _rng(f"cqa{question}")
        groups = [list(g) for g in by_answer[question].values() if len(g) >= 2]
        if not groups:
            continue
        group = groups[int(rng.integers(len(groups)))]
        texts = [group[i] for i in rng.permutation(len(group))[:4]]
        case_id = f"pub-conflictqa-{_hash_int(question) % 10**8}"
        cases.append(_case(case_id, question, texts, "no_conflict"))
        if len(cases) >= limit:
            break
    return cases
