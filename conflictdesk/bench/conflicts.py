"""The CONFLICTS expected-behaviour evaluation (Cattan et al., "DRAGged into Conflicts", §4)
through the bench runner: each case is a query with its documents and a gold conflict type.

A response is checked for adherence to the expected behaviour of the gold type. With a GGUF
the judge is an LLM prompted with the paper's type definition and expected behaviour (§2),
zero-shot (the paper adds 2–3 examples per type); without one, the rule check stands in: the
testee's applied resolution rule is the one the type calls for (`metrics.cars`), which only a
testee that states its rule (the ask pipeline) can pass. Answer recall and, where the testee
states it, the predicted type are scored beside it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conflictdesk.backends.base import Generator, Message
from conflictdesk.bench.checkers import Check
from conflictdesk.bench.testees import Reply
from conflictdesk.errors import InputError
from conflictdesk.metrics.cars import EXPECTED_RULE, answer_contains
from conflictdesk.types import ConflictType, Passage

METRICS = ("expected_behaviour", "answer_recall", "type_accuracy")
TYPE_TAGS = tuple(f"type:{t.value}" for t in ConflictType)

# CONFLICTS §2: each type's definition and its expected behaviour, in the paper's words.
DEFINITIONS: dict[ConflictType, tuple[str, str]] = {
    ConflictType.NO_CONFLICT: (
        (
            "The retrieved documents provide answers to the query that are equivalent or nearly "
            "equivalent, referring to the same real-world entity, fact, or concept."
        ),
        (
            "Provide a clear and direct answer without introducing alternative viewpoints or "
            "uncertainty."
        ),
    ),
    ConflictType.COMPLEMENTARY: (
        (
            "The retrieved documents provide answers to the query that refer to different "
            "real-world concepts but are mutually compatible, meaning that a single person can "
            "reasonably agree with all of them simultaneously."
        ),
        (
            "Consolidate and reconcile the different partial answers provided by the retrieved "
            "documents, without framing the response as a debate."
        ),
    ),
    ConflictType.CONFLICTING_OPINIONS: (
        (
            "The retrieved documents provide answers to the query that are not mutually "
            "compatible: subjective opinions, contradictory research findings or a lack of "
            "consensus, where the sources disagree and argue towards a specific side."
        ),
        (
            "Explicitly reflect the debate between the retrieved sources and neutrally summarize "
            "the different viewpoints."
        ),
    ),
    ConflictType.OUTDATED: (
        (
            "The retrieved documents provide answers that are not mutually compatible, but the "
            "conflict stems from temporal discrepancies: some sources reflect outdated "
            "information, while others provide more recent updates."
        ),
        (
            "Prioritize the up-to-date information, while optionally acknowledging the presence "
            "of outdated sources."
        ),
    ),
    ConflictType.MISINFORMATION: (
        (
            "The retrieved documents provide answers that are not mutually compatible, where at "
            "least one source contains information that is likely false, misleading, or "
            "inaccurate."
        ),
        (
            "Disregard inaccurate sources and provide a response grounded in reliable and "
            "verified information."
        ),
    ),
}

JUDGE_PROMPT = """You judge whether a response to a question follows the expected behaviour for the kind of conflict among its retrieved sources.
Conflict category: {name}
Definition: {definition}
Expected behaviour: {behaviour}

Question: {query}
Response: {response}

Does the response adhere to the expected behaviour? Reply with one word: yes or no."""


@dataclass(frozen=True)
class ConflictsCase:
    """One typed_dev case: a query, its documents and the gold type and answers."""

    case_id: str
    query: str
    documents: tuple[Passage, ...]
    gold_type: ConflictType
    gold_answers: tuple[str, ...]  # all must appear (complementary) or the one answer
    tags: tuple[str, ...]
    metrics: tuple[str, ...]


def read_cases(path: Path, limit: int | None = None) -> list[ConflictsCase]:
    """Cases in the typed_dev JSON Lines shape (`../shared/data/typed_dev/README.md`)."""
    if not Path(path).is_file():
        raise InputError(f"no CONFLICTS cases at {path}")
    cases = []
    for number, line in enumerate(Path(path).read_text("utf-8").splitlines(), start=1):
        if line.strip():
            cases.append(case_from_json(json.loads(line), number))
    return cases[:limit] if limit is not None else cases


def case_from_json(row: dict[str, Any], number: int = 0) -> ConflictsCase:
    try:
        gold = ConflictType(row["conflict_type"])
        documents = tuple(
            Passage(i, d["text"], title=d.get("title"), date=d.get("date"), source=d.get("source"))
            for i, d in enumerate(row["documents"])
        )
    except (KeyError, ValueError, TypeError) as exc:
        raise InputError(f"CONFLICTS case on line {number}: {exc}") from exc
    answers = tuple(
        row.get("gold_answers_all") or ([row["gold_answer"]] if row.get("gold_answer") else [])
    )
    metrics = ("expected_behaviour", *(("answer_recall",) if answers else ()), "type_accuracy")
    return ConflictsCase(str(row["id"]), row["query"], documents, gold, answers,
                         (f"type:{gold.value}",), metrics)  # fmt: skip


def judge_messages(case: ConflictsCase, response: str) -> list[Message]:
    definition, behaviour = DEFINITIONS[case.gold_type]
    body = JUDGE_PROMPT.format(name=case.gold_type.value.replace("_", " "), definition=definition,
                               behaviour=behaviour, query=case.query, response=response)  # fmt: skip
    return [{"role": "user", "content": body}]


class LlmBehaviourJudge:
    """The paper's LLM rater: a yes/no on adherence, scored in one forward pass."""

    def __init__(self, generator: Generator) -> None:
        self.generator = generator
        self.name = f"llm-judge:{generator.model_id}"

    def adheres(self, case: ConflictsCase, reply: Reply) -> bool | None:
        scores = self.generator.score_labels(judge_messages(case, reply.text), ["yes", "no"])
        return scores["yes"] >= scores["no"]


class RuleBehaviourCheck:
    """No LLM: the testee's applied resolution rule against the rule the gold type calls
    for; None (not scored) for a testee that states no rule."""

    name = "rule-check"

    def adheres(self, case: ConflictsCase, reply: Reply) -> bool | None:
        rule = reply.detail.get("rule")
        return None if rule is None else rule == EXPECTED_RULE[case.gold_type]


def check_case(case: ConflictsCase, reply: Reply, judge: Any) -> Check:
    """Expected behaviour by `judge`, answer recall by normalised inclusion (every gold
    answer for complementary cases), type accuracy where the testee states its type."""
    adheres = judge.adheres(case, reply)
    recall = None
    if case.gold_answers:
        recall = all(answer_contains(reply.text, [a]) for a in case.gold_answers)
    predicted = reply.detail.get("conflict_type")
    typed = None if predicted is None else predicted == case.gold_type.value
    per_metric = {"expected_behaviour": adheres, "answer_recall": recall, "type_accuracy": typed}
    return Check(bool(adheres), None, recall, None, f"expected behaviour by {judge.name}",
                 {"metric_ok": per_metric, "gold_type": case.gold_type.value})  # fmt: skip


def rag_messages(case: ConflictsCase) -> list[Message]:
    """A plain RAG prompt for a GGUF testee: the numbered sources, then the question."""
    sources = "\n\n".join(_source(i, p) for i, p in enumerate(case.documents, start=1))
    body = (f"Answer the question using the search results below.\n\n{sources}\n\n"
            f"Question: {case.query}\nAnswer:")  # fmt: skip
    return [{"role": "user", "content": body}]


def _source(number: int, passage: Passage) -> str:
    head = " | ".join(x for x in (passage.title, passage.date, passage.source) if x)
    return f"[{number}] {head}\n{passage.text}" if head else f"[{number}] {passage.text}"


def type_summary(cases: Sequence[ConflictsCase]) -> dict[str, int]:
    """How many cases of each gold type."""
    counts = {t.value: 0 for t in ConflictType}
    for case in cases:
        counts[case.gold_type.value] += 1
    return counts
