"""The verdict models' report: `ask` rows read back by set, the rivals scored on them, and
`wins` only when the model beats every rival on every held-out set."""

from __future__ import annotations

import json

import pytest

from conflictdesk.evaluation.ask_run import string_match_call
from conflictdesk.evaluation.ask_scoring import Case
from conflictdesk.training.verdict_report import (
    HELD_OUT,
    TRAINING_SETS,
    ask_rivals,
    ask_rows,
    fit_use,
    report,
)
from conflictdesk.types import Passage

BOTH = [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1]]
ONE = [[0.9, 0.05, 0.05], [0.1, 0.1, 0.8]]


def write_rows(path, rows_per_set: int = 40) -> None:
    """Every set: conflicts exactly where both sides show; the type call always says conflict,
    the string match never."""
    lines = []
    for name in (*TRAINING_SETS, *HELD_OUT):
        for i in range(rows_per_set):
            gold = i % 3 == 0
            lines.append({"set": name, "id": f"q{i}", "gold": gold, "documents": 3,
                          "judged": BOTH if gold else ONE, "answers": ["a", "b"], "type": "outdated",
                          "string_match": False})  # fmt: skip
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\n", "utf-8")


def test_rows_rivals_and_wins(tmp_path):
    path = tmp_path / "rows.jsonl"
    write_rows(path)
    rows = ask_rows(path)
    assert set(rows) == {*TRAINING_SETS, *HELD_OUT} and len(rows["QACC dev"].gold) == 40
    rivals = ask_rivals(path)
    assert rivals["QACC dev"]["type_call"]["recall"] == 1.0
    assert rivals["QACC dev"]["type_call"]["precision"] == pytest.approx(14 / 40)
    assert rivals["QACC dev"]["string_match"]["f1"] == 0.0
    model, choices = fit_use(rows, "ask")
    result = report("ask", rows, model, choices, rivals)
    assert result["sets"]["QACC dev"]["verdict_model"]["f1"] == pytest.approx(1.0)
    assert set(result["sets"]["QACC dev"]) >= {"paper_rule", "always_conflict", "type_call"}
    # The paper's rule is as perfect on these rows, so the model does not beat every rival.
    assert result["wins"] is False


def test_string_match_call():
    passages = (Passage(id=0, text="It is 38 games."), Passage(id=1, text="It is 40 games."))
    case = Case("q", "qacc", "How many?", passages, True, ("38",), {})
    assert string_match_call(case) is True
    same = Case("q", "qacc", "How many?", passages[:1], False, ("38",), {})
    assert string_match_call(same) is False
