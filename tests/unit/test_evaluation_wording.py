"""Agreement across a case's wordings and accuracy per wording (evaluation/wording_eval.py)."""

from conflictdesk.evaluation.wording_eval import Reading, render, wording_figures


def _reading(case, k, form="wh", type_="outdated", answer="a", gold_type="outdated", hit=True):
    return Reading(case, k, f"q{k}", f"q{k}", form, type_, answer, gold_type, "a", hit)


def test_agreement_counts_cases_whose_every_wording_agrees():
    readings = [
        _reading("c1", 0), _reading("c1", 1), _reading("c1", 2),
        _reading("c2", 0), _reading("c2", 1, type_="no_conflict", answer="b", hit=False),
        _reading("c2", 2, form="claim", hit=None),
    ]  # fmt: skip
    figures = wording_figures(readings)
    assert figures["cases"] == 2 and figures["reworded"] == 4
    assert figures["one_type"] == 0.5 and figures["one_answer"] == 0.5
    assert figures["one_form"] == 0.5
    assert figures["type_accuracy"] == {"as_written": 1.0, "reworded": 0.75}
    # a wording with no gold answer to find (None) is left out, not counted wrong
    assert figures["gold_answer_leads"] == {"as_written": 1.0, "reworded": 2 / 3}
    assert "one CONFLICTS type 0.500" in render(figures)


def test_a_case_without_other_wordings_is_not_counted_as_agreeing():
    figures = wording_figures([_reading("c1", 0), _reading("c2", 0), _reading("c2", 1)])
    assert figures["cases"] == 1 and figures["one_type"] == 1.0
