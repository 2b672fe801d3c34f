"""The development report: every step's output as a section; --only runs some steps again and
puts their sections in place, the others kept as they were."""

from __future__ import annotations

from pathlib import Path

from conflictdesk.evaluation.dev_report import dev_report, refresh_sections


def _script(folder: Path, name: str, text: str, code: int = 0) -> None:
    (folder / name).write_text(f"import sys\nprint({text!r})\nsys.exit({code})\n")


def test_a_refreshed_section_replaces_its_old_text_and_keeps_the_others(tmp_path):
    _script(tmp_path, "a.py", "first A")
    _script(tmp_path, "b.py", "first B")
    steps = [("Section A", ["a.py"]), ("Section B", ["b.py", "--flag"])]
    report, failed = dev_report(tmp_path, steps)
    assert failed == 0 and report.index("first A") < report.index("first B")
    _script(tmp_path, "a.py", "second A")
    _script(tmp_path, "b.py", "second B", code=3)
    refreshed, failed = refresh_sections(report, tmp_path, [steps[1]])
    assert failed == 1  # the step run again failed, and the section says so
    assert "first A" in refreshed and "second A" not in refreshed
    assert "first B" not in refreshed and "## Section B — FAILED (exit 3)" in refreshed
    assert refreshed.index("## Section A") < refreshed.index("## Section B")
    assert refreshed.startswith("# Development report")
    again, failed = refresh_sections(refreshed, tmp_path, [steps[0]])
    assert failed == 0 and "second A" in again and again.count("## Section B") == 1


def test_a_section_the_report_lacks_is_appended(tmp_path):
    _script(tmp_path, "a.py", "A")
    _script(tmp_path, "c.py", "C")
    report, _ = dev_report(tmp_path, [("Section A", ["a.py"])])
    refreshed, failed = refresh_sections(report, tmp_path, [("Section C", ["c.py"])])
    assert failed == 0 and refreshed.index("## Section A") < refreshed.index("## Section C")


def test_a_heading_inside_a_steps_output_stays_in_its_section(tmp_path):
    _script(tmp_path, "p.py", "table\n## Pairs (held-out)\nrows")
    _script(tmp_path, "a.py", "A")
    steps = [("Pairs", ["p.py"]), ("Section A", ["a.py"])]
    report, _ = dev_report(tmp_path, steps)
    _script(tmp_path, "p.py", "new table")
    refreshed, failed = refresh_sections(report, tmp_path, [steps[0]])
    assert failed == 0 and "new table" in refreshed
    assert "## Pairs (held-out)" not in refreshed and "rows" not in refreshed  # no stale copy
    assert refreshed.index("## Pairs") < refreshed.index("## Section A")
