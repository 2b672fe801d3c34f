"""The four Ragability metrics (§3.4), overall and by tag, and McNemar's test (Table 3)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from conflictdesk.bench.cases import METRICS

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Outcome:
    """One checked response, reduced to what the metrics need."""

    testee: str
    case_id: str
    tags: tuple[str, ...]
    metrics: tuple[str, ...]
    ok: bool


@dataclass(frozen=True)
class Score:
    """An accuracy with its Wilson 95 % interval."""

    metric: str
    testee: str
    tag: str  # "" for overall
    correct: int
    n: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else float("nan")

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.correct, self.n)


def wilson_interval(correct: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = correct / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def score(outcomes: Iterable[Outcome], metric: str, testee: str, tag: str = "") -> Score:
    """Accuracy of `testee` on `metric` over the cases counted in it (and carrying `tag`)."""
    chosen = [
        o
        for o in outcomes
        if o.testee == testee and metric in o.metrics and (not tag or tag in o.tags)
    ]
    return Score(metric, testee, tag, sum(o.ok for o in chosen), len(chosen))


def score_table(
    outcomes: Sequence[Outcome], tags: Sequence[str] = (), metrics: Sequence[str] = METRICS
) -> list[Score]:
    """Every metric × testee, overall and for each tag in `tags`."""
    testees = list(dict.fromkeys(o.testee for o in outcomes))
    rows = []
    for tag in ("", *tags):
        for metric in metrics:
            rows += [score(outcomes, metric, t, tag) for t in testees]
    return [row for row in rows if row.n]


@dataclass(frozen=True)
class McNemar:
    """Paired comparison of two testees: n10 = cases only `first` got right, n01 only
    `second`; χ² with continuity correction, p from the χ² distribution with 1 df."""

    first: str
    second: str
    n10: int
    n01: int

    @property
    def chi2(self) -> float:
        discordant = self.n10 + self.n01
        if discordant == 0:
            return 0.0
        return (abs(self.n10 - self.n01) - 1) ** 2 / discordant

    @property
    def p(self) -> float:
        if self.n10 + self.n01 == 0:
            return 1.0
        return math.erfc(math.sqrt(self.chi2 / 2))


def mcnemar(outcomes: Sequence[Outcome], first: str, second: str, metric: str) -> McNemar:
    """McNemar's test (Ragability Table 3) on the cases both testees answered."""
    a = {o.case_id: o.ok for o in outcomes if o.testee == first and metric in o.metrics}
    b = {o.case_id: o.ok for o in outcomes if o.testee == second and metric in o.metrics}
    shared = a.keys() & b.keys()
    n10 = sum(a[c] and not b[c] for c in shared)
    n01 = sum(b[c] and not a[c] for c in shared)
    return McNemar(first, second, n10, n01)


def mcnemar_all(outcomes: Sequence[Outcome], metric: str = "correct_answer_all") -> list[McNemar]:
    """Every pair of testees, in the order they first appear."""
    testees = list(dict.fromkeys(o.testee for o in outcomes))
    return [mcnemar(outcomes, a, b, metric) for a, b in combinations(testees, 2)]
