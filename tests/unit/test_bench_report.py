from __future__ import annotations

from conflictdesk.bench.cases import generate_cases
from conflictdesk.bench.checkers import OfflineChecker
from conflictdesk.bench.corpus import read_corpus
from conflictdesk.bench.metrics import mcnemar_all
from conflictdesk.bench.report import Checked, ReportData, html_report, markdown_report, tsv_export
from conflictdesk.bench.runner import MemoryRecorder, run_bench
from tests.unit.test_bench_corpus import EXAMPLE
from tests.unit.test_bench_runner import CountingTestee


def _run():
    cases = generate_cases(read_corpus(EXAMPLE), limit=40)
    testees = [CountingTestee("a"), CountingTestee("b")]
    recorder, checker = MemoryRecorder(), OfflineChecker(None)
    outcomes = run_bench(cases, testees, checker, recorder)
    checked = [
        Checked(t.name, c, recorder.reply(t.name, c.case_id),
                recorder.check(t.name, c.case_id, checker.name))
        for t in testees for c in cases
    ]  # fmt: skip
    data = ReportData("run", checker.name, outcomes, mcnemar_all(outcomes), "0.9 (9/10) on s")
    return data, checked


def test_markdown_has_metrics_breakdown_mcnemar_and_checker_accuracy():
    data, _ = _run()
    text = markdown_report(data)
    assert "| correct_answer_all | all | a |" in text
    assert "| refusal_not_answerable | hint | b |" in text
    assert "| a vs b | 0 | 0 | 0.000 | 1.000 |" in text  # identical testees never disagree
    assert "0.9 (9/10) on s" in text


def test_html_is_self_contained_with_three_svg_plots():
    data, _ = _run()
    page = html_report(data)
    assert page.count("<svg") == 3
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org", "")
    assert "hint versus no hint" in page and "by reasoning type" in page


def test_tsv_has_one_row_per_checked_response():
    _, checked = _run()
    lines = tsv_export(checked).splitlines()
    assert len(lines) == 1 + 80
    assert all(len(line.split("\t")) == 13 for line in lines)
    assert lines[1].split("\t")[:2] == ["a", checked[0].case.case_id]
