"""Run reports: Markdown, a self-contained HTML page with inline SVG plots, and the TSV of
every checked response (`ragability_2tsv`)."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from conflictdesk.bench.cases import METRICS, TestCase
from conflictdesk.bench.checkers import Check
from conflictdesk.bench.metrics import McNemar, Outcome, Score, score, score_table
from conflictdesk.bench.testees import Reply

REASONING_TAGS = tuple(
    f"reasoning:{r}"
    for r in ("categorical", "numerical", "temporal.numerical", "temporal.relational")
)
BREAKDOWN_TAGS = ("hint", "no_hint", "contradictory", "non_contradictory", *REASONING_TAGS)
TSV_COLUMNS = (
    "testee", "case_id", "task", "expected", "tags", "query", "contexts", "response",
    "refused", "correct", "said_contradiction", "ok", "check_method",
)  # fmt: skip


@dataclass(frozen=True)
class Checked:
    testee: str
    case: TestCase
    reply: Reply
    check: Check


@dataclass(frozen=True)
class ReportData:
    title: str
    checker: str
    outcomes: Sequence[Outcome]
    comparisons: Sequence[McNemar]
    checker_accuracy: str = ""  # e.g. "0.93 (37/40) on examples/ragability/checker_sample.jsonl"
    metrics: Sequence[str] = METRICS  # another evaluation through the runner names its own
    breakdown: Sequence[str] = BREAKDOWN_TAGS
    mcnemar_metric: str = "correct_answer_all"
    notes: Sequence[str] = ()  # e.g. which judge ran and what it is not

    @property
    def ragability(self) -> bool:
        return tuple(self.metrics) == METRICS

    def scores(self) -> list[Score]:
        return score_table(self.outcomes, (), self.metrics)

    def scores_by_tag(self) -> list[Score]:
        return [s for s in score_table(self.outcomes, self.breakdown, self.metrics) if s.tag]


def _fmt(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.3f}"


def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def score_lines(scores: Sequence[Score]) -> list[str]:
    lines = ["| metric | tag | testee | accuracy | 95 % CI | n |", "|---|---|---|---|---|---|"]
    for s in scores:
        low, high = s.interval
        lines.append(
            f"| {s.metric} | {s.tag or 'all'} | {s.testee} | {_fmt(s.accuracy)} "
            f"| {_fmt(low)}–{_fmt(high)} | {s.n} |"
        )
    return lines


def mcnemar_lines(comparisons: Sequence[McNemar]) -> list[str]:
    if not comparisons:
        return ["(one testee: no pairwise comparison)"]
    lines = ["| pairwise comparison | n10 | n01 | χ² | p |", "|---|---|---|---|---|"]
    for c in comparisons:
        lines.append(f"| {c.first} vs {c.second} | {c.n10} | {c.n01} | {c.chi2:.3f} | {_p(c.p)} |")
    return lines


def by_tag(outcomes: Sequence[Outcome]) -> list[Score]:
    """The scores broken down by tag (the overall rows left out)."""
    return [s for s in score_table(outcomes, BREAKDOWN_TAGS) if s.tag]


def markdown_report(data: ReportData) -> str:
    """The whole report as Markdown."""
    lines = [f"# {data.title}", "", f"Checker: `{data.checker}`."]
    if data.checker_accuracy:
        lines.append(f"Checker accuracy on the hand-labelled sample: {data.checker_accuracy}.")
    lines += [f"{note}" for note in data.notes]
    lines += ["", "## Metrics", "", *score_lines(data.scores())]
    lines += ["", "## By tag", "", *score_lines(data.scores_by_tag())]
    lines += ["", f"## McNemar ({data.mcnemar_metric}, continuity correction)", ""]
    lines += mcnemar_lines(data.comparisons)
    return "\n".join(lines) + "\n"


def _bars(title: str, bars: Sequence[tuple[str, Score]]) -> str:
    """One horizontal bar per score with its Wilson interval as a whisker."""
    width, left, row = 640, 260, 22
    height = 30 + row * len(bars)
    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'role="img" aria-label="{html.escape(title)}">'
        ),
        f'<text x="4" y="16" font-weight="bold">{html.escape(title)}</text>',
    ]
    scale = width - left - 110  # room for the value label right of a full bar
    for i, (label, s) in enumerate(bars):
        y = 26 + i * row
        acc = 0.0 if math.isnan(s.accuracy) else s.accuracy
        low, high = s.interval
        parts += [
            f'<text x="4" y="{y + 13}" font-size="12">{html.escape(label)}</text>',
            f'<rect x="{left}" y="{y}" width="{acc * scale:.1f}" height="16" fill="#4a7ab5"/>',
            (
                f'<line x1="{left + low * scale:.1f}" x2="{left + high * scale:.1f}" '
                f'y1="{y + 8}" y2="{y + 8}" stroke="#222" stroke-width="2"/>'
            ),
            (
                f'<text x="{left + acc * scale + 4:.1f}" y="{y + 13}" font-size="11">'
                f"{_fmt(s.accuracy)} (n={s.n})</text>"
            ),
        ]
    return "\n".join(parts + ["</svg>"])


def plots(outcomes: Sequence[Outcome]) -> list[str]:
    """Metric per testee; hint versus no hint; by reasoning type (correct_answer_all)."""
    testees = list(dict.fromkeys(o.testee for o in outcomes))
    per_metric = [(f"{m} · {t}", score(outcomes, m, t)) for m in METRICS for t in testees]
    hint = [
        (f"{tag} · {c} · {t}", score(outcomes, "correct_answer_all", t, tag_pair))
        for t in testees
        for c in ("contradictory", "non_contradictory")
        for tag in ("hint", "no_hint")
        for tag_pair in [f"{tag}+{c}"]
    ]
    reasoning = [
        (f"{tag.split(':')[1]} · {t}", score(outcomes, "correct_answer_all", t, tag))
        for t in testees
        for tag in REASONING_TAGS
    ]
    return [
        _bars("Accuracy per metric and testee (95 % Wilson CI)", [b for b in per_metric if b[1].n]),
        _bars("Query cases: hint versus no hint", [b for b in hint if b[1].n]),
        _bars("correct_answer_all by reasoning type", [b for b in reasoning if b[1].n]),
    ]


def suite_plots(data: ReportData) -> list[str]:
    """Another evaluation's plots: each metric per testee, and each metric by tag."""
    overall = [(f"{s.metric} · {s.testee}", s) for s in data.scores()]
    tagged = [(f"{s.metric} · {s.tag} · {s.testee}", s) for s in data.scores_by_tag()]
    return [
        _bars("Accuracy per metric and testee (95 % Wilson CI)", overall),
        _bars("By tag", tagged),
    ]


def html_report(data: ReportData) -> str:
    """A self-contained page: the Markdown tables as HTML and three inline SVG plots."""
    body = [f"<h1>{html.escape(data.title)}</h1>", f"<p>Checker: {html.escape(data.checker)}"]
    if data.checker_accuracy:
        body.append(f"; accuracy on the hand-labelled sample: {html.escape(data.checker_accuracy)}")
    body.append("</p>")
    body += [f"<p>{html.escape(note)}</p>" for note in data.notes]
    figures = plots(combined_tags(data.outcomes)) if data.ragability else suite_plots(data)
    body += [f"<figure>{svg}</figure>" for svg in figures]
    body.append(_table(score_lines(data.scores())))
    body.append(f"<h2>McNemar ({html.escape(data.mcnemar_metric)})</h2>")
    body.append(_table(mcnemar_lines(data.comparisons)))
    style = "body{font-family:sans-serif;margin:2em}td,th{border:1px solid #ccc;padding:2px 6px}"
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(data.title)}"
        f"</title><style>{style}</style></head><body>{''.join(body)}</body></html>\n"
    )


def combined_tags(outcomes: Sequence[Outcome]) -> list[Outcome]:
    """Outcomes with `hint+contradictory`-style tags added for the hint plot."""
    result = []
    for o in outcomes:
        hint = "hint" if "hint" in o.tags else "no_hint"
        kind = "contradictory" if "contradictory" in o.tags else "non_contradictory"
        extra = (f"{hint}+{kind}",) if "task:query" in o.tags else ()
        result.append(Outcome(o.testee, o.case_id, o.tags + extra, o.metrics, o.ok))
    return result


def _table(lines: Sequence[str]) -> str:
    if len(lines) < 2:
        return f"<p>{html.escape(lines[0]) if lines else ''}</p>"
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows[2:]
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    return " ".join(text.split())


def tsv_export(checked: Sequence[Checked]) -> str:
    """Every checked response, one row each (`ragability_2tsv`)."""
    lines = ["\t".join(TSV_COLUMNS)]
    for item in checked:
        c, r, k = item.case, item.reply, item.check
        cells = (
            item.testee, c.case_id, c.task.value, c.expected.value, ",".join(c.tags), c.query,
            " || ".join(c.contexts), r.text, k.refused, k.correct, k.said_contradiction,
            int(k.ok), k.method,
        )  # fmt: skip
        lines.append("\t".join(_cell(v) for v in cells))
    return "\n".join(lines) + "\n"


SUITE_TSV_COLUMNS = (
    "testee",
    "case_id",
    "tags",
    "prompt",
    "response",
    "ok",
    "check_method",
    "detail",
)


def suite_tsv(rows: Sequence[tuple[str, str, Sequence[str], Reply, Check]]) -> str:
    """Every checked response of another evaluation: (testee, case id, tags, reply, check)."""
    lines = ["\t".join(SUITE_TSV_COLUMNS)]
    for testee, case_id, tags, reply, check in rows:
        detail = {**reply.detail, **check.detail}
        cells = (testee, case_id, ",".join(tags), reply.prompt, reply.text, int(check.ok),
                 check.method, json.dumps(detail, ensure_ascii=False, sort_keys=True))  # fmt: skip
        lines.append("\t".join(_cell(v) for v in cells))
    return "\n".join(lines) + "\n"
