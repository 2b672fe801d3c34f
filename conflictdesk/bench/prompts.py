"""The testee and checker prompts (Ragability §3.2), as chat messages."""

from __future__ import annotations

from conflictdesk.backends.base import Message
from conflictdesk.bench.cases import Task, TestCase

TESTEE_SYSTEM = (
    "You answer questions using only the numbered contexts you are given. If the contexts "
    "do not contain the answer, or contradict each other on it, say that you cannot answer "
    "and why. Keep the answer short."
)
NO_CONTEXT_SYSTEM = (
    "Answer the question only if you know the answer for certain; otherwise say that you "
    "cannot answer it."
)
HINT = "Note: the contexts may contain contradictory information."
IDENTIFY_SYSTEM = "You check whether texts contradict each other. Reply with one word: yes or no."

CHECK_REFUSED = (
    "Here is a question and a response to it.\nQuestion: {query}\nResponse: {response}\n\n"
    "Did the response refuse to answer, or say that the question cannot be answered or that "
    "the information is missing or contradictory? Reply with one word: yes or no."
)
CHECK_CORRECT = (
    "Here is a question, a response and the correct answer.\nQuestion: {query}\n"
    "Response: {response}\nCorrect answer (short): {short}\nCorrect answer (long): {long}\n\n"
    "Does the response give this correct answer? Reply with one word: yes or no."
)


def numbered(contexts: tuple[str, ...]) -> str:
    return "\n".join(f"Context {i}: {text}" for i, text in enumerate(contexts, start=1))


def testee_messages(case: TestCase) -> list[Message]:
    """The prompt a chat model gets for one case."""
    if case.task is Task.IDENTIFY:
        user = f"{numbered(case.contexts)}\n\nIs there a contradiction in these contexts?"
        return [{"role": "system", "content": IDENTIFY_SYSTEM}, {"role": "user", "content": user}]
    if not case.contexts:
        return [
            {"role": "system", "content": NO_CONTEXT_SYSTEM},
            {"role": "user", "content": f"Question: {case.query}"},
        ]
    hint = f"{HINT}\n\n" if case.hint else ""
    user = f"{hint}{numbered(case.contexts)}\n\nQuestion: {case.query}"
    return [{"role": "system", "content": TESTEE_SYSTEM}, {"role": "user", "content": user}]


def refused_messages(case: TestCase, response: str) -> list[Message]:
    return [{"role": "user", "content": CHECK_REFUSED.format(query=case.query, response=response)}]


def correct_messages(case: TestCase, response: str) -> list[Message]:
    body = CHECK_CORRECT.format(
        query=case.query, response=response, short=case.answer_short, long=case.answer_long
    )
    return [{"role": "user", "content": body}]


def render(messages: list[Message]) -> str:
    """A stored, readable form of a prompt."""
    return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in messages)
