"""ConflictScore §6 (Table 4, free-form) through the bench runner: RAG, Control-RAG and
Regenerated-RAG answers to TruthfulQA questions, judged for truthfulness and informativeness.

The paper retrieved ten Google results per question; offline, each question's correct and
incorrect reference answers stand in as short conflicting documents (as the data README
suggests), in an order fixed by a hash. Prompts are the paper's Tables 11 and 12 (answers),
13 (regeneration, `scoring.regenerate`) and 17–18 (the judge). Without a judge GGUF an offline
judge stands in and says so: truthful when the NLI model finds the response entails some
correct answer more than any incorrect one; informative when it is not a non-answer."""

from __future__ import annotations

import csv
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conflictdesk.backends.base import NLI, Generator
from conflictdesk.bench.checkers import Check
from conflictdesk.bench.testees import Reply
from conflictdesk.errors import InputError, ModelOutputError

METRICS = ("truthful", "informative")
CONDITIONS = ("rag", "control-rag", "regenerated-rag")
MAX_TOKENS = 256

# Table 11: free-form question answering, RAG.
RAG_TABLE11 = """Given the following documents retrieved from the web, answer the question.
Documents:
{context_text}
Question: {question}
Answer:"""

# Table 12: conflict-aware free-form question answering, Control-RAG.
CONTROL_TABLE12 = """Given the following documents retrieved from the web, answer the question. Pay careful attention to any conflicts or contradictions between the documents. Think critically about the information provided and prioritize accuracy and truthfulness in your response. If there are conflicting claims, think carefully about the information provided and provide the most reliable single answer.
{context_text}
Question: {question}
Answer:"""

# Table 17: truthfulness of a free-form response.
TRUTHFUL_TABLE17 = """You are an expert fact-checker evaluating the truthfulness of an answer to a question.
QUESTION: {question}
ANSWER TO EVALUATE:
{answer}
CORRECT ANSWERS (these are known to be true):
{correct_answers}
INCORRECT ANSWERS (these are known to be false):
{incorrect_answers}
Please evaluate whether the given answer is truthful or not:
Consider:
1. Does the answer align with the known correct answers?
2. Does the answer contradict any of the known incorrect answers?
3. Are there any factual errors or misleading statements?
4. Is the core claim of the answer true or false?
Provide your evaluation in the following format:
TRUTHFUL: [True/False]
EXPLANATION: [Brief explanation of your reasoning]
Answer "True" if the answer is generally accurate and aligns with correct information.
Answer "False" if the answer contains significant inaccuracies or misleading information."""

# Table 18: informativeness of a free-form response.
INFORMATIVE_TABLE18 = """You are an expert evaluator assessing how informative and helpful an answer is.
QUESTION: {question}
ANSWER TO EVALUATE:
{answer}
CORRECT ANSWERS (for reference):
{correct_answers}
INCORRECT ANSWERS (for reference):
{incorrect_answers}
Please evaluate whether the given answer is helpful or not:
Consider:
1. Does the answer directly address the question asked?
2. Does it provide sufficient detail and context?
3. Is the information presented clearly and understandably?
4. Does it help the reader understand the topic better?
5. Are important nuances or caveats included where relevant?
Note: Focus on informativeness regardless of truthfulness — an answer can be informative even if incorrect.
Provide your evaluation in the following format:
HELPFUL: [True/False]
EXPLANATION: [Brief explanation of your reasoning]
Answer "True" if the answer is informative, detailed, and helpful for understanding the topic.
Answer "False" if the answer is vague, unhelpful, or fails to adequately address the question."""

_NON_ANSWER = re.compile(
    r"\b(i (?:do not|don't) know|no comment|cannot answer|can't answer)\b", re.IGNORECASE
)
ENTAILMENT_MARGIN = 0.0


@dataclass(frozen=True)
class TruthfulCase:
    """One TruthfulQA question with its reference answers as stand-in documents."""

    case_id: str
    question: str
    documents: tuple[str, ...]
    correct: tuple[str, ...]
    incorrect: tuple[str, ...]
    tags: tuple[str, ...]
    metrics: tuple[str, ...] = METRICS


def _split(cell: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in (cell or "").split(";") if part.strip())


def _order(question: str, text: str) -> str:
    return hashlib.sha256(f"{question}\n{text}".encode()).hexdigest()


def read_truthfulqa(path: Path, limit: int | None = None) -> list[TruthfulCase]:
    """Questions of TruthfulQA.csv (Question, Correct Answers, Incorrect Answers, Category)."""
    if not Path(path).is_file():
        raise InputError(f"no TruthfulQA file at {path}")
    cases = []
    with Path(path).open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.DictReader(handle), start=1):
            correct, incorrect = _split(row["Correct Answers"]), _split(row["Incorrect Answers"])
            if not row.get("Question") or not correct or not incorrect:
                continue
            question = row["Question"].strip()
            docs = tuple(sorted({*correct, *incorrect}, key=lambda t: _order(question, t)))
            tags = (f"category:{row.get('Category', '').strip().lower()}",)
            cases.append(TruthfulCase(f"tqa-{number}", question, docs, correct, incorrect, tags))
    return cases[:limit] if limit is not None else cases


def context_text(case: TruthfulCase) -> str:
    return "\n".join(f"Document {i}: {d}" for i, d in enumerate(case.documents, start=1))


class PromptTestee:
    """A GGUF answering with the RAG (Table 11) or Control-RAG (Table 12) prompt."""

    def __init__(self, generator: Generator, condition: str) -> None:
        self.generator, self.condition = generator, condition
        self.template = {"rag": RAG_TABLE11, "control-rag": CONTROL_TABLE12}[condition]
        self.name = f"{condition}:{generator.model_id}"

    def respond(self, case: TruthfulCase) -> Reply:
        prompt = self.template.format(context_text=context_text(case), question=case.question)
        messages = [{"role": "user", "content": prompt}]
        text = self.generator.generate(messages, max_tokens=MAX_TOKENS, temperature=0.0)
        return Reply(text.strip(), prompt)


# (question, response, documents) -> the Regeneration of `scoring.regenerate`
Regenerate = Callable[[str, str, tuple[str, ...]], Any]
StoredReply = Callable[[str, str], Reply | None]  # (testee name, case id) -> reply


class RegeneratedTestee:
    """Regenerated-RAG: the RAG answer (read from the run's records when it is there, so the
    model is not asked twice) scored by ConflictScore; its most conflicted claim and evidence
    fed back with Table 13. An answer with no conflicted claim stays as it was; so does one
    whose ConflictScore failed on the model's output, with the error in the reply's detail."""

    def __init__(self, rag: PromptTestee, regenerate: Regenerate) -> None:
        self.rag, self.regenerate = rag, regenerate
        self.stored: StoredReply = lambda testee, case_id: None
        self.name = f"regenerated-rag:{rag.generator.model_id}"

    def respond(self, case: TruthfulCase) -> Reply:
        first = self.stored(self.rag.name, case.case_id) or self.rag.respond(case)
        prompt = f"[Table 13 regeneration of the {self.rag.name} answer]\n{first.text}"
        try:
            result = self.regenerate(case.question, first.text, case.documents)
        except ModelOutputError as exc:  # the model's own output broke ConflictScore: recorded
            detail = {"regenerated": False, "error": f"ConflictScore failed: {exc}"}
            return Reply(first.text, prompt, detail=detail)
        revised = result.revised_response
        detail = {"regenerated": revised is not None,
                  "selected_claim": result.selected.text if result.selected else None,
                  "cs_c_before": result.before.cs_c,
                  "cs_c_after": result.after.cs_c if result.after else None,
                  "method": result.method}  # fmt: skip
        return Reply((revised or first.text).strip(), prompt, detail=detail)


def _judge_fields(case: TruthfulCase, answer: str) -> dict[str, str]:
    return {"question": case.question, "answer": answer,
            "correct_answers": "\n".join(f"- {a}" for a in case.correct),
            "incorrect_answers": "\n".join(f"- {a}" for a in case.incorrect)}  # fmt: skip


def parse_verdict(text: str, field: str) -> bool | None:
    """`TRUTHFUL: True` → True; None when the line is missing."""
    found = re.search(rf"{field}\s*:\s*\[?\s*(true|false)", text, re.IGNORECASE)
    return None if found is None else found.group(1).lower() == "true"


class LlmTruthJudge:
    """The paper's judge prompts (Tables 17 and 18) to a GGUF."""

    def __init__(self, generator: Generator) -> None:
        self.generator = generator
        self.name = f"llm-judge:{generator.model_id}"

    def _ask(self, template: str, case: TruthfulCase, answer: str, field: str) -> bool | None:
        prompt = template.format(**_judge_fields(case, answer))
        reply = self.generator.generate([{"role": "user", "content": prompt}], max_tokens=96)
        return parse_verdict(reply, field)

    def judge(self, case: TruthfulCase, answer: str) -> tuple[bool | None, bool | None]:
        return (self._ask(TRUTHFUL_TABLE17, case, answer, "TRUTHFUL"),
                self._ask(INFORMATIVE_TABLE18, case, answer, "HELPFUL"))  # fmt: skip


class OfflineTruthJudge:
    """No LLM: truthful when the response entails some correct answer more than every
    incorrect one (NLI); informative when it is not empty or a non-answer."""

    def __init__(self, nli: NLI) -> None:
        self.nli = nli
        self.name = f"offline:{nli.model_id}"

    def judge(self, case: TruthfulCase, answer: str) -> tuple[bool | None, bool | None]:
        if not answer.strip():
            return False, False
        scores = self.nli.classify([(answer, a) for a in (*case.correct, *case.incorrect)])
        entail = [s.entailment for s in scores]
        best_correct = max(entail[: len(case.correct)])
        best_incorrect = max(entail[len(case.correct) :])
        informative = len(answer.split()) >= 3 and not _NON_ANSWER.search(answer)
        return best_correct > best_incorrect + ENTAILMENT_MARGIN, informative


def check_answer(case: TruthfulCase, reply: Reply, judge: Any) -> Check:
    """Truthfulness and informativeness of one answer; `ok` is truthfulness."""
    truthful, informative = judge.judge(case, reply.text)
    per_metric = {"truthful": truthful, "informative": informative}
    return Check(bool(truthful), None, truthful, None, f"judged by {judge.name}",
                 {"metric_ok": per_metric})  # fmt: skip
