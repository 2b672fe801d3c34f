"""Test-case generation (`ragability_cc_wc1`): 20 cases per corpus entry (Ragability §4.1).

Thirteen query cases (no context; context 1; context 2; contexts 1+2, 2+1, 1+3, 3+1 and
1+2+3+4, each without and with the contradiction hint) and seven yes/no contradiction
identification cases (1; 2; 1+2; 2+1; 1+3; 3+1; 1+2+3+4)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from conflictdesk.bench.corpus import CorpusEntry

CONTRADICTORY_SETS = frozenset({(1, 2), (2, 1), (1, 2, 3, 4)})


class Task(str, Enum):
    QUERY = "query"
    IDENTIFY = "identify"  # "is there a contradiction, yes or no?"


class Expected(str, Enum):
    ANSWER_1 = "answer_1"  # the answer of context 1 (context 3 agrees with it)
    ANSWER_2 = "answer_2"
    REFUSE = "refuse"  # no context, or contradictory contexts
    YES = "yes"
    NO = "no"


METRICS = (
    "correct_answer_all",
    "correct_answer_answerable",
    "refusal_not_answerable",
    "contradiction_identification",
)


@dataclass(frozen=True)
class CaseSpec:
    code: str
    task: Task
    contexts: tuple[int, ...]
    hint: bool = False


QUERY_SETS: tuple[tuple[int, ...], ...] = ((1, 2), (2, 1), (1, 3), (3, 1), (1, 2, 3, 4))
IDENTIFY_SETS: tuple[tuple[int, ...], ...] = ((1,), (2,)) + QUERY_SETS


def _code(contexts: tuple[int, ...]) -> str:
    return "".join(str(c) for c in contexts) or "0"


def case_specs() -> tuple[CaseSpec, ...]:
    """The 20 combinations, in the paper's order."""
    specs = [CaseSpec("q0", Task.QUERY, ()), CaseSpec("q1", Task.QUERY, (1,))]
    specs.append(CaseSpec("q2", Task.QUERY, (2,)))
    for hint in (False, True):
        suffix = "h" if hint else ""
        specs += [CaseSpec(f"q{_code(s)}{suffix}", Task.QUERY, s, hint) for s in QUERY_SETS]
    specs += [CaseSpec(f"ic{_code(s)}", Task.IDENTIFY, s) for s in IDENTIFY_SETS]
    return tuple(specs)


@dataclass(frozen=True)
class TestCase:
    """One prompt to a testee, with what a correct response is and the tags it counts under."""

    __test__ = False  # not a pytest class

    case_id: str
    entry_id: str
    task: Task
    query: str
    contexts: tuple[str, ...]
    hint: bool
    expected: Expected
    answer_short: str
    answer_long: str
    reasoning: str
    tags: tuple[str, ...]
    metrics: tuple[str, ...]


def _expected(spec: CaseSpec) -> Expected:
    contradictory = spec.contexts in CONTRADICTORY_SETS
    if spec.task is Task.IDENTIFY:
        return Expected.YES if contradictory else Expected.NO
    if not spec.contexts or contradictory:
        return Expected.REFUSE
    return Expected.ANSWER_2 if spec.contexts == (2,) else Expected.ANSWER_1


def _metrics(spec: CaseSpec, expected: Expected) -> tuple[str, ...]:
    if spec.task is Task.IDENTIFY:
        return ("correct_answer_all", "contradiction_identification")
    if expected is Expected.REFUSE:
        return ("correct_answer_all", "refusal_not_answerable")
    return ("correct_answer_all", "correct_answer_answerable")


def _tags(spec: CaseSpec, expected: Expected, reasoning: str) -> tuple[str, ...]:
    n = len(spec.contexts)
    order = "+".join(str(c) for c in spec.contexts) or "none"
    tags = [
        f"task:{spec.task.value}",
        f"contexts:{n}",
        f"order:{order}",
        "contradictory" if spec.contexts in CONTRADICTORY_SETS else "non_contradictory",
        "hint" if spec.hint else "no_hint",
        f"reasoning:{reasoning}",
    ]
    if spec.task is Task.QUERY:
        tags.append("not_answerable" if expected is Expected.REFUSE else "answerable")
    return tuple(tags)


def _context_texts(entry: CorpusEntry, numbers: Sequence[int]) -> tuple[str, ...]:
    texts = {
        1: entry.context_1,
        2: entry.context_2,
        3: entry.context_3_nc1_c2,
        4: entry.context_4_nc1_nc2_nc3,
    }
    return tuple(texts[n] for n in numbers)


def entry_cases(entry: CorpusEntry) -> list[TestCase]:
    """The 20 test cases of one corpus entry."""
    cases = []
    for spec in case_specs():
        expected = _expected(spec)
        second = expected is Expected.ANSWER_2
        cases.append(
            TestCase(
                case_id=f"{entry.entry_id}-{spec.code}",
                entry_id=entry.entry_id,
                task=spec.task,
                query=entry.query_text,
                contexts=_context_texts(entry, spec.contexts),
                hint=spec.hint,
                expected=expected,
                answer_short=entry.answer_context2 if second else entry.answer_context1,
                answer_long=entry.answer_context2_long if second else entry.answer_context1_long,
                reasoning=entry.reasoning_required_c1c2,
                tags=_tags(spec, expected, entry.reasoning_required_c1c2),
                metrics=_metrics(spec, expected),
            )
        )
    return cases


def generate_cases(
    entries: Iterable[CorpusEntry],
    *,
    tags: Sequence[str] = (),
    limit: int | None = None,
) -> list[TestCase]:
    """All cases of all entries; `tags` keeps cases carrying every listed tag, `limit` the
    first N after that."""
    cases = [case for entry in entries for case in entry_cases(entry)]
    if tags:
        wanted = set(tags)
        cases = [case for case in cases if wanted <= set(case.tags)]
    return cases[:limit] if limit is not None else cases
