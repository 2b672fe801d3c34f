"""Typed cases by author: the hand-written training cases of `data/typed_written/` and the
leave-one-author-out check of the type model.

typed_dev is one author's 150 cases; `typed_written` holds sixteen more authors' ten cases
each (README there). Cross-validation within typed_dev measures how well a model fits one
author's way of writing cases; a new user's documents, and the kept-back hand-written cases,
are written by someone else. `leave_one_author_out` predicts every typed case by a model that
never saw a case of its author (trained on every other author's cases and, weighted by the
recipe, the public-provenance cases), so it measures what carries over between authors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.training.type_transfer import Recipe, fit, scores, sources_of
from conflictdesk.training.types import CaseRows, TypedCase, load_typed_cases

WRITTEN = Path(__file__).parent / "data" / "typed_written" / "cases.jsonl"
TYPED_DEV = "typed_dev"


def written_cases(path: Path = WRITTEN) -> list[TypedCase]:
    """The hand-written training cases (`data/typed_written/cases.jsonl`)."""
    return load_typed_cases(path)


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


def leave_one_author_out(typed: CaseRows, pub: CaseRows, recipe: Recipe) -> dict[str, Any]:
    """`scores` of every typed case predicted by a model fitted on the other authors' typed
    cases and the public cases (the recipe's features, L2 and typed share): over all of them,
    over typed_dev (predicted from the written cases) and over the written cases (each author
    predicted from typed_dev and the other written authors)."""
    cols = recipe.columns()
    authors = np.array([author_of(i) for i in typed.ids])
    pred = np.zeros(len(typed.y), dtype=int)
    for author in sorted(set(authors)):
        train, test = authors != author, authors == author
        x = np.vstack([typed.x[train][:, cols], pub.x[:, cols]])
        y = np.concatenate([typed.y[train], pub.y])
        src = [TYPED_DEV] * int(train.sum()) + sources_of(pub)
        model = fit(x, y, src, recipe.l2, recipe.typed_dev_share)
        pred[test] = model.probs(typed.x[test][:, cols]).argmax(-1)
    own = authors == TYPED_DEV
    return {
        "all": scores(typed.y, pred),
        "typed_dev": scores(typed.y[own], pred[own]) if own.any() else None,
        "written": scores(typed.y[~own], pred[~own]) if (~own).any() else None,
        "correct": (pred == typed.y).astype(float).tolist(),
    }
