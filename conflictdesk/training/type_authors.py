"""Typed cases by author: the hand-written training cases of `data/typed_written/` and the
leave-one-author-out check of the type model.

typed_dev is one author's 150 cases; `typed_written` holds sixteen more authors' ten cases
each (README there). Cross-validation within typed_dev measures how well a model fits one
author's way of writing cases; a new user's documents, and the kept-back hand-written cases,
are written by someone else. `leave_one_author_out` predicts every typed case by a model that
never saw a case of its author (trained on every other author's cases and, weighted by the
recipe, the public-provenance cases), so it measures what carries over between authors."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.training.type_transfer import Recipe, fit, scores, sources_of
from conflictdesk.training.types import CaseRows, TypedCase, load_typed_cases

WRITTEN = Path(__file__).parent / "data" / "typed_written" / "cases.jsonl"
PARAPHRASES = WRITTEN.with_name("paraphrases.jsonl")
TYPED_DEV = "typed_dev"
WORDING = "~"  # a paraphrased case's id: "<case id>~<k>"


def written_cases(path: Path = WRITTEN) -> list[TypedCase]:
    """The hand-written training cases (`data/typed_written/cases.jsonl`)."""
    return load_typed_cases(path)


def rewordings(path: Path = PARAPHRASES) -> dict[str, list[str]]:
    """Case id → the other wordings of its question (`data/typed_written/paraphrases.jsonl`)."""
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    return {row["id"]: list(row["wordings"]) for row in rows}


def gold_answers(path: Path = WRITTEN) -> dict[str, str]:
    """Case id → its short gold answer ("" for complementary and opinions) in `path`."""
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    return {row["id"]: row["gold_answer"] for row in rows}


def paraphrased_cases(cases: list[TypedCase], path: Path = PARAPHRASES) -> list[TypedCase]:
    """Each case once more per other wording of its question (`rewordings`), documents and
    type unchanged, id "<case id>~<k>"."""
    wordings = rewordings(path)
    return [
        dataclasses.replace(case, id=f"{case.id}{WORDING}{k}", query=query)
        for case in cases
        for k, query in enumerate(wordings.get(case.id, ()), 1)
    ]


def is_rewording(case_id: str) -> bool:
    return WORDING in case_id


def author_of(case_id: str) -> str:
    """ "written-<k>" for a case of `typed_written` ("w<k>-…"), "typed_dev" for any other."""
    head = case_id.split("-", 1)[0]
    if head[:1] == "w" and head[1:].isdigit():
        return f"written-{head[1:]}"
    return TYPED_DEV


def join_rows(*parts: CaseRows) -> CaseRows:
    """The rows of several sets, in order."""
    return CaseRows(
        [i for p in parts for i in p.ids],
        np.vstack([p.x for p in parts]),
        np.concatenate([p.y for p in parts]),
        [r for p in parts for r in p.rules],
    )


def leave_one_author_out(
    typed: CaseRows, pub: CaseRows, recipe: Recipe, *, train_rewordings: bool = True
) -> dict[str, Any]:
    """`scores` of every typed case predicted by a model fitted on the other authors' typed
    cases and the public cases (the recipe's features, L2 and typed share): over all of them,
    over typed_dev (predicted from the written cases) and over the written cases (each author
    predicted from typed_dev and the other written authors). Reworded cases (`is_rewording`)
    among `typed` are training rows of the other authors' models and are predicted with
    their author, but the scores are over the cases as written; `wordings` adds how the
    reworded ones fare: their accuracy, and the share of cases whose every wording gets one
    type. `train_rewordings=False`: the reworded cases are predicted but never trained on
    (the model as it was before they were written)."""
    cols = recipe.columns()
    authors = np.array([author_of(i) for i in typed.ids])
    reworded = np.array([is_rewording(i) for i in typed.ids], dtype=bool)
    pred = np.zeros(len(typed.y), dtype=int)
    for author in sorted(set(authors)):
        train, test = authors != author, authors == author
        if not train_rewordings:
            train = train & ~reworded
        x = np.vstack([typed.x[train][:, cols], pub.x[:, cols]])
        y = np.concatenate([typed.y[train], pub.y])
        src = [TYPED_DEV] * int(train.sum()) + sources_of(pub)
        model = fit(x, y, src, recipe.l2, recipe.typed_dev_share)
        pred[test] = model.probs(typed.x[test][:, cols]).argmax(-1)
    asked, gold = pred[~reworded], typed.y[~reworded]
    own = authors[~reworded] == TYPED_DEV
    out = {
        "all": scores(gold, asked),
        "typed_dev": scores(gold[own], asked[own]) if own.any() else None,
        "written": scores(gold[~own], asked[~own]) if (~own).any() else None,
        "correct": (asked == gold).astype(float).tolist(),
    }
    if reworded.any():
        out["wordings"] = _wordings(typed.ids, pred, typed.y, reworded)
    return out


def _wordings(ids, pred: np.ndarray, gold: np.ndarray, reworded: np.ndarray) -> dict[str, Any]:
    """Accuracy on the reworded cases, beside their cases as written, and the share of
    reworded cases whose every wording (the written one too) gets one type."""
    by_case: dict[str, list[int]] = {}
    for n, case_id in enumerate(ids):
        by_case.setdefault(case_id.split(WORDING, 1)[0], []).append(int(pred[n]))
    written = {i.split(WORDING, 1)[0] for i, r in zip(ids, reworded, strict=True) if r}
    originals = np.array([not r and i in written for i, r in zip(ids, reworded, strict=True)])
    return {
        "cases": len(written),
        "reworded": int(reworded.sum()),
        "accuracy_as_written": float((pred[originals] == gold[originals]).mean()),
        "accuracy_reworded": float((pred[reworded] == gold[reworded]).mean()),
        "one_type": float(np.mean([len(set(by_case[c])) == 1 for c in sorted(written)])),
    }
