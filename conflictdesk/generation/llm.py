"""The answer with a GGUF model: the CONFLICTS prompting strategies (Cattan et al. §5.1).

- vanilla: question and search results only (their Figure 3 setting).
- pipeline: the conflict type predicted in a first step — the analysis stage's verdict,
  which uses the Figure 2 prompt when an LLM is configured — is added to the prompt with
  the behaviour that type calls for.
- taxonomy-aware: one call that sees every category's definition, predicts the category,
  explains it and answers.
- oracle: like pipeline but with the gold type, an upper bound for evaluation.

Every strategy sees the same evidence (the ConRAG packet, ids as citation keys) and answers
in JSON: sentences with the ids they cite, validated against the packet."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conflictdesk.analysis.calls import llm_json
from conflictdesk.analysis.types import Analysis
from conflictdesk.backends.base import Generator, JudgmentCache, Message
from conflictdesk.errors import ModelOutputError, UsageError
from conflictdesk.generation.types import AnswerSentence, SentenceRole, Strategy
from conflictdesk.types import ConflictType, Passage

PASSAGE_CHARS = 800
MAX_TOKENS = 512

# Our wording of each CONFLICTS category and the behaviour it calls for (§2).
TYPE_GUIDE: dict[ConflictType, tuple[str, str]] = {
    ConflictType.NO_CONFLICT: (
        "The results agree on one answer; they differ only in wording or level of detail.",
        "Give a clear, direct answer without hedging or alternative answers.",
    ),
    ConflictType.COMPLEMENTARY: (
        "The question is underspecified or has several valid answers that are compatible.",
        "Combine the partial answers into one consolidated answer; do not frame it as a debate.",
    ),
    ConflictType.CONFLICTING_OPINIONS: (
        "The results take opposing positions: opinions or contradictory research findings.",
        "Present every viewpoint neutrally with its sources, without taking a side.",
    ),
    ConflictType.OUTDATED: (
        "The question has one factual answer but some results are out of date.",
        "Lead with the most recent information and its date; mention older figures as older.",
    ),
    ConflictType.MISINFORMATION: (
        "The question has one factual answer but some results state false information.",
        "Answer from the reliable results and do not present the false claim as fact.",
    ),
}
TYPE_ORDER: tuple[ConflictType, ...] = tuple(TYPE_GUIDE)  # category numbers 1..5

_SENTENCES: dict[str, Any] = {
    "type": "array",
    "minItems": 1,
    "maxItems": 8,
    "items": {
        "type": "object",
        "properties": {
            "sent": {"type": "string", "minLength": 1},
            "cites": {"type": "array", "items": {"type": "integer"}},
            "about_disagreement": {"type": "boolean"},
        },
        "required": ["sent", "cites", "about_disagreement"],
    },
}
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": _SENTENCES, "conflict": {"type": "string"}},
    "required": ["answer", "conflict"],
}
TAXONOMY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "category": {"type": "integer", "minimum": 1, "maximum": 5},
        "explanation": {"type": "string"},
        "answer": _SENTENCES,
        "conflict": {"type": "string"},
    },
    "required": ["category", "explanation", "answer", "conflict"],
}

_RULES = (
    "Use only the search results. Write a concise answer as a list of sentences. Each sentence "
    "cites, in `cites`, the ids of the search results that support it; cite nothing that does "
    "not support the sentence. Set `about_disagreement` to true for a sentence that describes a "
    "disagreement between results; such a sentence cites results from each side. In `conflict`, "
    "say in one sentence whether and how the results disagree (empty when they agree)."
)


@dataclass(frozen=True)
class LLMAnswer:
    sentences: tuple[AnswerSentence, ...]
    conflict: str
    predicted_type: ConflictType | None
    dropped_cites: tuple[int, ...]
    type_source: str


def format_results(passages: Sequence[Passage]) -> str:
    """Each result as `[id] title (date, source)` then its text, cut at PASSAGE_CHARS."""
    blocks = []
    for p in passages:
        meta = ", ".join(x for x in (p.date, p.source) if x)
        head = f"[{p.id}] {p.title or ''}".rstrip() + (f" ({meta})" if meta else "")
        text = " ".join(p.text.split())
        if len(text) > PASSAGE_CHARS:
            text = text[: PASSAGE_CHARS - 1].rstrip() + "…"
        blocks.append(f"{head}\n{text}")
    return "\n\n".join(blocks)


def describe_type(conflict_type: ConflictType) -> str:
    definition, behaviour = TYPE_GUIDE[conflict_type]
    return f"{conflict_type.value.replace('_', ' ')} — {definition} Expected answer: {behaviour}"


def taxonomy_text() -> str:
    return "\n".join(f"{n}. {describe_type(t)}" for n, t in enumerate(TYPE_ORDER, start=1))


def build_messages(
    strategy: Strategy, query: str, passages: Sequence[Passage], conflict_type: ConflictType | None
) -> list[Message]:
    """The chat messages of one strategy (see the module docstring)."""
    results = format_results(passages)
    user = f"QUERY: {query}\n\nSEARCH RESULTS:\n{results}"
    if strategy is Strategy.VANILLA:
        system = f"Answer the query with the search results. {_RULES}"
    elif strategy in (Strategy.PIPELINE, Strategy.ORACLE):
        if conflict_type is None:
            raise UsageError(f"the {strategy.value} strategy needs a conflict type")
        system = f"Answer the query with the search results. {_RULES}"
        user += f"\n\nCONFLICT TYPE OF THE SEARCH RESULTS: {describe_type(conflict_type)}"
    elif strategy is Strategy.TAXONOMY_AWARE:
        system = (
            "First decide which kind of knowledge conflict the search results hold, from the "
            f"categories below; give its number in `category` and say why in `explanation`. "
            f"Then answer the way that category calls for. {_RULES}\n\nCATEGORIES:\n"
            f"{taxonomy_text()}"
        )
    else:
        raise UsageError(f"{strategy.value!r} is not an LLM strategy")
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def llm_answer(
    analysis: Analysis,
    generator: Generator,
    strategy: Strategy,
    gold_type: ConflictType | None = None,
    *,
    cache: JudgmentCache | None = None,
) -> LLMAnswer:
    """Generate with `strategy`; pipeline takes the analysis verdict, oracle the gold type.
    The call is recorded in (and answered from) `cache` under the stage "generate"."""
    passages = [analysis.passage(i) for i in analysis.packet.passage_ids]
    conflict_type, source = _given_type(analysis, strategy, gold_type)
    messages = build_messages(strategy, analysis.query, passages, conflict_type)
    schema = TAXONOMY_SCHEMA if strategy is Strategy.TAXONOMY_AWARE else ANSWER_SCHEMA
    reply = llm_json(
        generator, messages, schema, stage="generate", cache=cache, max_tokens=MAX_TOKENS
    )
    sentences, dropped = parse_sentences(reply, set(analysis.packet.passage_ids))
    predicted = None
    if strategy is Strategy.TAXONOMY_AWARE:
        predicted, source = TYPE_ORDER[int(reply["category"]) - 1], f"llm:{generator.model_id}"
    return LLMAnswer(
        sentences, str(reply["conflict"]).strip(), predicted or conflict_type, dropped, source
    )


def _given_type(
    analysis: Analysis, strategy: Strategy, gold_type: ConflictType | None
) -> tuple[ConflictType | None, str]:
    if strategy is Strategy.ORACLE:
        if gold_type is None:
            raise UsageError("the oracle strategy needs the gold conflict type (--gold-type)")
        return gold_type, "gold"
    if strategy is Strategy.PIPELINE:
        return analysis.verdict.type, f"analysis:{analysis.verdict.method}"
    return None, "none"


def parse_sentences(
    reply: Any, packet: set[int]
) -> tuple[tuple[AnswerSentence, ...], tuple[int, ...]]:
    """Answer sentences from a validated reply; citations outside the packet are dropped and
    returned so that the caller records them (they are never kept silently)."""
    if not isinstance(reply, dict) or not isinstance(reply.get("answer"), list):
        raise ModelOutputError(f"the model's answer has no sentence list: {reply!r}")
    sentences, dropped = [], []
    for item in reply["answer"]:
        text = " ".join(str(item["sent"]).split())
        if not text:
            continue
        cites = tuple(dict.fromkeys(int(c) for c in item["cites"] if int(c) in packet))
        dropped += [int(c) for c in item["cites"] if int(c) not in packet]
        role = SentenceRole.CONFLICT if item.get("about_disagreement") else SentenceRole.CLAIM
        sentences.append(AnswerSentence(text, cites, role))
    if not sentences:
        raise ModelOutputError("the model's answer has no non-empty sentence")
    return tuple(sentences), tuple(dropped)
