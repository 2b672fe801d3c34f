"""The cascade-rule report: its offline combination matches CascadeNLI, and the table's
columns, means and worst differences on a worked example."""

from __future__ import annotations

import numpy as np
import pytest

from conflictdesk.backends.cascade_nli import CascadeNLI
from conflictdesk.training.cascade_rules import combine, rule_table
from conflictdesk.types import NLIScores
from tests.fakes import FakeNLI

FAST = [[0.95, 0.03, 0.02], [0.5, 0.3, 0.2], [0.58, 0.37, 0.05]]
ACCURATE = [[0.9, 0.05, 0.05], [0.1, 0.1, 0.8], [0.40, 0.55, 0.05]]


@pytest.mark.parametrize("rule", ["replace", "geometric"])
def test_offline_combination_is_what_the_cascade_returns(rule):
    pairs = [(f"p{i}", f"h{i}") for i in range(3)]
    fast = FakeNLI({p: NLIScores(*row) for p, row in zip(pairs, FAST, strict=True)})
    accurate = FakeNLI({p: NLIScores(*row) for p, row in zip(pairs, ACCURATE, strict=True)})
    accurate.model_id = "other"
    live = CascadeNLI(fast, accurate, 0.9, rule).classify(pairs)
    offline = combine(np.array(FAST), np.array(ACCURATE), 0.9, rule)
    for scores, row in zip(live, offline, strict=True):
        assert [scores.entailment, scores.neutral, scores.contradiction] == pytest.approx(row)


def test_rule_table_on_a_worked_example():
    # gold: entailment, contradiction, neutral. The fast tier gets row 0 only; replacing at
    # 0.9 gets all three; the geometric mean keeps row 2's entailment (0.232 > 0.2035)
    store = {"set/a": {"gold": [0, 2, 1], "fast": FAST, "accurate": ACCURATE}}
    table = rule_table(store, bands=(0.9,))
    row = table["rows"]["set/a"]
    assert row == pytest.approx({"fast": 1 / 3, "replace@0.9": 1.0, "geometric@0.9": 2 / 3})
    assert table["worst_vs_fast"]["replace@0.9"] == pytest.approx(2 / 3)
    assert table["mean"] == pytest.approx(row)


def test_tier_probabilities_resume_from_the_file_and_log_each_set(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from conflictdesk.training import cascade_rules

    rows = [SimpleNamespace(premise="p", hypothesis="h", label=0)]
    monkeypatch.setattr(
        cascade_rules, "comparison_sets", lambda limit, seed: {"a": rows, "b": rows}
    )
    loaded = []

    def load_model(spec, threads):
        loaded.append(spec)
        return FakeNLI()

    monkeypatch.setattr(cascade_rules, "load_model", load_model)
    path = tmp_path / "probs.json"
    path.write_text('{"a": {"gold": [0], "fast": [[1, 0, 0]], "accurate": [[1, 0, 0]]}}')
    lines = []
    store = cascade_rules.tier_probabilities(path, "f", "a", 1, 42, 1, log=lines.append)
    assert set(store) == {"a", "b"} and lines == ["  [2/2] b: 1 rows through both tiers"]
    assert loaded == ["f", "a"] and not list(tmp_path.glob("*.tmp"))
    again = cascade_rules.tier_probabilities(path, "f", "a", 1, 42, 1, log=lines.append)
    assert again == store and loaded == ["f", "a"]  # nothing left to compute: no model loaded
