"""The development report: each evaluation script run in turn, its output kept as printed,
in one Markdown file (`scripts/eval_dev.py` is its command line)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

STEPS: tuple[tuple[str, list[str]], ...] = (
    ("Conflict detection (ConflictScore, shipped labeller)", ["eval_conflictscore.py"]),
    ("Fusion labeller", ["train_fusion.py", "--no-write"]),
    ("Abstention", ["eval_abstention.py"]),
    (
        "Question-level `ask` (QACC dev, RAMDocs eval half, typed_dev, ConflictQA test pairs)",
        [
            "eval_ask.py",
            "--ramdocs-half",
            "eval",
            "--datasets",
            "qacc",
            "ramdocs",
            "typed_dev",
            "conflictqa",
        ],
    ),
    ("CONFLICTS type (typed_dev, CV by case)", ["train_type_classifier.py", "--eval-only"]),
    ("Wording of the question (written cases, three wordings each)", ["eval_wording.py"]),
    ("Stage-1 pair detector", ["train_pair_detector.py", "--report-only"]),
    ("Span reader (opt-in) against the rule", ["train_span_reader.py", "--no-write"]),
    ("Relevance gates of the tagger (RAMDocs, QACC train)", ["eval_gates.py"]),
)
NLI_STEP = ("NLI dev sets and relations", ["eval_models.py"])
HEADER = (
    "# Development report\n\nWritten by `.venv/bin/python scripts/eval_dev.py`. Development "
    "figures only: kept-back sets are measured independently.\n\n"
)


def run_step(scripts: Path, title: str, argv: list[str]) -> str:
    """One evaluation script as a Markdown section: its command, output and duration."""
    command = [sys.executable, str(scripts / argv[0]), *argv[1:]]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    status = "" if done.returncode == 0 else f" — FAILED (exit {done.returncode})"
    body = done.stdout.strip() or done.stderr.strip()[-3000:]
    shown = " ".join(["scripts/" + argv[0], *argv[1:]])
    return (
        f"## {title}{status}\n\n`.venv/bin/python {shown}` ({seconds:.0f} s)\n\n```\n{body}\n```\n"
    )


def dev_report(
    scripts: Path,
    steps: Sequence[tuple[str, list[str]]],
    on_step: Callable[[str], None] | None = None,
) -> tuple[str, int]:
    """The report's Markdown and how many steps failed; a failing step does not stop the rest."""
    sections = []
    for title, argv in steps:
        if on_step is not None:
            on_step(argv[0])
        sections.append(run_step(scripts, title, argv))
    failed = sum("— FAILED" in s.splitlines()[0] for s in sections)
    return HEADER + "\n".join(sections), failed


def refresh_sections(
    report: str,
    scripts: Path,
    steps: Sequence[tuple[str, list[str]]],
    on_step: Callable[[str], None] | None = None,
) -> tuple[str, int]:
    """`report` with the sections of `steps` run again and put in place of their old text (or
    appended when the report has none), the other sections left as they were; and how many
    of the steps run failed."""
    fresh = {}
    for title, argv in steps:
        if on_step is not None:
            on_step(argv[0])
        fresh[title] = run_step(scripts, title, argv)
    head, sections = _split_sections(report)
    titled = [(_title(section), section) for section in sections]
    known = {title for title, _ in titled}
    kept = [fresh.get(title, section).rstrip("\n") + "\n" for title, section in titled]
    kept += [section for title, section in fresh.items() if title not in known]
    failed = sum("— FAILED" in s.splitlines()[0] for s in fresh.values())
    return head.rstrip("\n") + "\n\n" + "\n".join(kept), failed


def _split_sections(report: str) -> tuple[str, list[str]]:
    """The report's text before its first section, and its sections: each from a "## " line
    outside a code block (a step's printed output may hold Markdown headings of its own)."""
    head: list[str] = []
    sections: list[list[str]] = []
    fenced = False
    for line in report.splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        if line.startswith("## ") and not fenced:
            sections.append([])
        (sections[-1] if sections else head).append(line)
    return "".join(head), ["".join(lines) for lines in sections]


def _title(section: str) -> str:
    first = section.splitlines()[0][3:]
    return first.split(" — FAILED")[0]
