"""Training data, fit and held-out comparison of the span reader
(`conflictdesk.analysis.span_reader`).

A question is read exactly as `tag_passages` reads it (embedding cosine for topicality, then
the claim frame); a recording reader collects every on-topic passage's spans and feature rows
where the product would consult the reader. A span is positive when it and one of ITS
PASSAGE's gold answers contain one another as whole words after SQuAD normalisation (RAMDocs:
the document's own answer, correct or misinformation; QACC: the answers whose contexts list
the passage), so the reader learns what a passage says, not which answer is right. Passages
without a gold answer of their own, or none of whose spans is gold, add no rows to the fit.

Training sets: QACC train and the RAMDocs TRAIN half. Held out: QACC dev, the RAMDocs EVAL
half and typed_dev (question-level gold answers only), compared with the rule on the same
questions: per-passage accuracy (the passage's answer is one of its gold answers), lead
(the frame's leading answer is gold) and candidate recall (some candidate is gold)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.analysis.claims import frame_query, query_form
from conflictdesk.analysis.span_reader import (
    FEATURES,
    MODEL_NAME,
    Answer,
    SpanReader,
    question_spans,
)
from conflictdesk.analysis.tag import read_passages, set_aside
from conflictdesk.analysis.types import QueryForm
from conflictdesk.evaluation.ask_scoring import (
    Case,
    is_gold_answer,
    load_qacc,
    load_ramdocs,
    load_typed_dev,
)

L2 = 1.0  # the penalty of the conditional regression (module `fit`)


def training_cases(data: Path) -> list[Case]:
    """QACC train and the RAMDocs TRAIN half."""
    ramdocs = [c for c in load_ramdocs(data / "ramdocs" / "dev.jsonl") if c.half == "train"]
    return load_qacc(data / "qacc" / "train.jsonl") + ramdocs


def held_out_cases(data: Path) -> dict[str, list[Case]]:
    ramdocs = [c for c in load_ramdocs(data / "ramdocs" / "dev.jsonl") if c.half == "eval"]
    return {
        "QACC dev": load_qacc(data / "qacc" / "dev.jsonl"),
        "RAMDocs EVAL half": ramdocs,
        "typed_dev": load_typed_dev(data / "typed_dev" / "cases.jsonl"),
    }


class _Recorder:
    """A reader that keeps the rule's answers and records what the span reader would see."""

    model_id = "recorder"

    def __init__(self) -> None:
        # passage id -> (its spans, their feature rows); empty when the frame never asked
        # (yes/no, sentence answers, no passage with an answer)
        self.spans: dict[int, tuple[list, np.ndarray]] = {}

    def choose(self, query, kind, passages, ranked, topicality, found) -> dict[int, Answer]:
        self.spans = question_spans(query, kind, passages, ranked, topicality, found)
        return dict(found)


@dataclass
class Reading:
    """One question read for the reader: its similarity-weighted reading of the passages."""

    case: Case
    reading: Any


def read_case(case: Case, embedder: Any) -> Reading:
    from conflictdesk.analysis.pipeline import embed_passages, with_relevance

    vectors = embed_passages(case.query, case.passages, embedder, {})
    similarity = {p.id: float(c) for p, c in zip(case.passages, vectors[1:] @ vectors[0])}
    passages, _ = with_relevance(case.passages, similarity)
    return Reading(case, (passages, read_passages(case.query, passages, similarity)))


def passage_golds(case: Case, pid: int) -> list[str]:
    return [answer for answer, ids in case.support.items() if pid in ids]


@dataclass(frozen=True)
class Rows:
    x: np.ndarray
    y: np.ndarray
    group: np.ndarray  # one id per (question, passage): the choice the reader makes
    question: np.ndarray

    def save(self, path: Path) -> None:
        np.savez(path, x=self.x, y=self.y, group=self.group, question=self.question)

    @classmethod
    def load(cls, path: Path) -> Rows:
        blob = np.load(path)
        return cls(blob["x"], blob["y"], blob["group"], blob["question"])


def build_rows(
    readings: Sequence[Reading], on_progress: Callable[[int, int], None] | None = None
) -> Rows:
    """Rows of every span of the passages that have a gold answer of their own and a gold
    span among theirs."""
    xs, ys, groups, questions = [], [], [], []
    for n, item in enumerate(readings):
        if query_form(item.case.query) is not QueryForm.WH:
            continue
        passages, reading = item.reading
        recorder = _Recorder()
        frame_query(reading.query, passages, reading.ranked, reading.on_topic, recorder)
        for pid, (found, matrix) in recorder.spans.items():
            golds = passage_golds(item.case, pid)
            labels = np.array([float(is_gold_answer(s.surface, golds)) for s in found])
            if not golds or not labels.any():
                continue
            xs.append(matrix)
            ys.append(labels)
            groups.append(np.full(len(labels), len(groups)))
            questions.append(np.full(len(labels), n))
        if on_progress is not None:
            on_progress(n + 1, len(readings))
    return Rows(
        np.vstack(xs), np.concatenate(ys), np.concatenate(groups), np.concatenate(questions)
    )


def fit(rows: Rows, l2: float = L2, steps: int = 600, lr: float = 0.05) -> SpanReader:
    """Conditional logistic regression: a softmax over each passage's spans, maximising the
    probability of its gold spans (Adam on standardised features)."""
    mean, scale = rows.x.mean(axis=0), rows.x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    z = (rows.x - mean) / scale
    group = np.unique(rows.group, return_inverse=True)[1]
    groups = int(group.max()) + 1
    target = rows.y / np.bincount(group, weights=rows.y, minlength=groups)[group]
    w, m, v = np.zeros(z.shape[1]), np.zeros(z.shape[1]), np.zeros(z.shape[1])
    for t in range(1, steps + 1):
        s = z @ w
        top = np.full(groups, -np.inf)
        np.maximum.at(top, group, s)
        e = np.exp(s - top[group])
        p = e / np.bincount(group, weights=e, minlength=groups)[group]
        grad = (z.T @ (p - target) + l2 * w) / groups
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        w -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return SpanReader(mean, scale, w, 0.0)


def choice_accuracy(rows: Rows, scores: np.ndarray) -> float:
    """Share of the (question, passage) choices whose best-scored span is gold."""
    hits = [rows.y[idx[int(np.argmax(scores[idx]))]] for idx in _groups(rows.group)]
    return float(np.mean(hits)) if hits else 0.0


def _groups(group: np.ndarray) -> list[np.ndarray]:
    order = np.argsort(group, kind="stable")
    cuts = np.flatnonzero(np.diff(group[order])) + 1
    return np.split(order, cuts)


def rule_scores(rows: Rows) -> np.ndarray:
    return rows.x[:, FEATURES.index("rule_choice")]


def grouped_cv(rows: Rows, folds: int = 5, l2: float = L2) -> dict[str, float]:
    """Choice accuracy of the reader fitted on the other folds (split by question), beside
    the rule's, over the training choices."""
    fold_of = rows.question % folds
    scores = np.zeros(len(rows.y))
    for k in range(folds):
        test = fold_of == k
        train = Rows(rows.x[~test], rows.y[~test], rows.group[~test], rows.question[~test])
        scores[test] = fit(train, l2).scores(rows.x[test])
    return {
        "choices": len(_groups(rows.group)),
        "reader_accuracy": choice_accuracy(rows, scores),
        "rule_accuracy": choice_accuracy(rows, rule_scores(rows)),
    }


def compare(readings: Sequence[Reading], reader: SpanReader) -> dict[str, dict[str, float]]:
    """Per-passage accuracy, lead and candidate recall of the rule and of `reader` over the
    wh-questions with a gold answer."""
    out = {}
    for name, chosen in (("rule", None), ("reader", reader)):
        passage_hits, passage_n, lead, candidates, n = 0, 0, 0, 0, 0
        for item in readings:
            case = item.case
            if query_form(case.query) is not QueryForm.WH or not case.gold_answers:
                continue
            passages, reading = item.reading
            aside = set_aside(reading)
            frame, answers = frame_query(
                reading.query, passages, reading.ranked, reading.on_topic, chosen, aside
            )
            n += 1
            texts = [c.text for c in frame.candidates]
            lead += bool(texts) and is_gold_answer(texts[0], case.gold_answers)
            candidates += any(is_gold_answer(t, case.gold_answers) for t in texts)
            for pid in reading.on_topic:
                golds = passage_golds(case, pid)
                if golds:
                    passage_n += 1
                    passage_hits += pid in answers and is_gold_answer(answers[pid][0], golds)
        out[name] = {
            "questions": n,
            "passage_accuracy": passage_hits / passage_n if passage_n else float("nan"),
            "passages": passage_n,
            "lead": lead / n if n else 0.0,
            "candidates": candidates / n if n else 0.0,
        }
    return out


ARTEFACT = "reader/span_reader.json"
LICENCE = "MIT (conflictdesk); fitted on features of RAMDocs (MIT) and QACC train (CC BY-SA 3.0)"
REBUILD = ".venv/bin/python scripts/train_span_reader.py"


def write_reader(reader: SpanReader, models_dir: Path, figures: dict[str, Any]) -> str:
    """Write the weights under models_dir and upsert their manifest entry; the model id."""
    from conflictdesk.backends.manifest import write_json_model

    return write_json_model(models_dir, ARTEFACT, reader.to_json(), MODEL_NAME, "reader",
                            licence=LICENCE, rebuild=REBUILD,
                            extra={"features": len(FEATURES), "l2": L2, **figures},
                            source="fitted by scripts/train_span_reader.py on QACC train and "
                            "the RAMDocs TRAIN half")  # fmt: skip
