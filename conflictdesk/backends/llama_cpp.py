"""A GGUF generator on llama-cpp-python: chat, schema-constrained JSON and label scoring.

The prompt is the chat template stored in the GGUF's metadata, rendered here (never
llama-cpp-python's silent "llama-2" fallback). Consecutive prompts that share a prefix (one
document labelled against many claims) reuse the evaluated KV cache: only the differing tail
is evaluated. Prompts longer than the context are shortened inside their `<document>…</document>`
span, with a warning; a prompt with no such span that does not fit is an InputError."""

from __future__ import annotations

import json
import logging
import re
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from conflictdesk.backends.base import Message
from conflictdesk.backends.schema import json_with_one_retry
from conflictdesk.errors import InputError, ModelIntegrityError

log = logging.getLogger(__name__)

DOCUMENT_SPAN = re.compile(r"<document>(.*?)</document>", re.DOTALL)
TRUNCATION_MARK = " […]"


class Engine(Protocol):
    """The few llama.cpp operations the generator needs (a fake stands in for unit tests)."""

    n_ctx: int

    def render(self, messages: Sequence[Message]) -> list[int]: ...

    def tokenize(self, text: str) -> list[int]: ...

    def detokenize(self, tokens: Sequence[int]) -> str: ...

    def next_logits(self, tokens: Sequence[int]) -> tuple[np.ndarray, int]:
        """Logits for the token after `tokens`, and how many tokens came from the KV cache."""
        ...

    def complete(
        self, tokens: Sequence[int], *, max_tokens: int, temperature: float, schema: Any = None
    ) -> tuple[str, int]:
        """Generated text (grammar-constrained when `schema` is given) and reused tokens."""
        ...


@dataclass
class PrefixStats:
    """Prompt tokens evaluated versus taken from the KV cache; `hits` counts calls that
    reused at least one token."""

    calls: int = 0
    hits: int = 0
    prompt_tokens: int = 0
    reused_tokens: int = 0
    by_method: dict[str, int] = field(default_factory=dict)

    def add(self, prompt_tokens: int, reused: int) -> None:
        self.calls += 1
        self.hits += reused > 0
        self.prompt_tokens += prompt_tokens
        self.reused_tokens += reused


class LlamaCppGenerator:
    """The `Generator` protocol over one GGUF file; the model loads on first use.

    Label scoring ("first-token" rule): when the labels' first tokens differ, one forward
    pass over the prompt gives the next-token logits and the distribution is the softmax of
    the logits of each label's first token. When two labels share a first token, the
    "full-label" rule runs instead: each label's sequence log-probability (its tokens scored
    one by one after the prompt, reusing the prompt's KV cache), then a softmax over labels.
    `last_label_rule` says which rule ran."""

    def __init__(
        self,
        path: Path,
        *,
        model_id: str | None = None,
        n_ctx: int = 4096,
        n_gpu_layers: int = 0,
        threads: int = 0,
        engine: Engine | None = None,
    ) -> None:
        self.path = Path(path)
        self.model_id = model_id or self.path.stem
        self.n_ctx, self.n_gpu_layers, self.threads = n_ctx, n_gpu_layers, threads
        self._engine = engine
        self._lock = threading.RLock()
        self.stats = PrefixStats()
        self.last_label_rule = ""

    @property
    def label_rules(self) -> dict[str, int]:
        """How many label scorings ran by each rule ("first-token", "full-label")."""
        return self.stats.by_method

    @property
    def engine(self) -> Engine:
        with self._lock:
            if self._engine is None:
                self._engine = LlamaEngine(self.path, self.n_ctx, self.n_gpu_layers, self.threads)
            return self._engine

    def generate(
        self, messages: Sequence[Message], *, max_tokens: int = 512, temperature: float = 0.0
    ) -> str:
        with self._lock:
            tokens = self.fit_prompt(messages, reserve=max_tokens)
            text, reused = self.engine.complete(
                tokens, max_tokens=max_tokens, temperature=temperature
            )
            self.stats.add(len(tokens), reused)
            return text

    def generate_json(
        self, messages: Sequence[Message], schema: dict[str, Any], *, max_tokens: int = 512
    ) -> Any:
        """Grammar-constrained JSON, parsed and validated; on failure the problem is shown to
        the model once, and a second failure is a ModelOutputError."""

        def complete(conversation: list[Message]) -> str:
            with self._lock:
                tokens = self.fit_prompt(conversation, reserve=max_tokens)
                text, reused = self.engine.complete(
                    tokens, max_tokens=max_tokens, temperature=0.0, schema=schema
                )
                self.stats.add(len(tokens), reused)
            return text

        return json_with_one_retry(complete, messages, schema, self.model_id)

    def score_labels(self, messages: Sequence[Message], labels: Sequence[str]) -> dict[str, float]:
        if len(set(labels)) != len(labels) or len(labels) < 2:
            raise ValueError(f"labels must be at least two distinct strings, got {list(labels)}")
        with self._lock:
            label_tokens = [self.engine.tokenize(label) for label in labels]
            reserve = max(len(t) for t in label_tokens)
            prompt = self.fit_prompt(messages, reserve=reserve)
            first = [t[0] for t in label_tokens]
            if len(set(first)) == len(first):
                self.last_label_rule = "first-token"
                logits, reused = self.engine.next_logits(prompt)
                self.stats.add(len(prompt), reused)
                scores = np.array([logits[t] for t in first], dtype=np.float64)
            else:
                self.last_label_rule = "full-label"
                scores = np.array([self._sequence_logprob(prompt, t) for t in label_tokens])
        rule = self.last_label_rule
        self.stats.by_method[rule] = self.stats.by_method.get(rule, 0) + 1
        return dict(zip(labels, softmax(scores).tolist()))

    def _sequence_logprob(self, prompt: list[int], label: list[int]) -> float:
        total = 0.0
        for index, token in enumerate(label):
            logits, reused = self.engine.next_logits(prompt + label[:index])
            self.stats.add(len(prompt) + index, reused)
            total += float(log_softmax(logits)[token])
        return total

    def fit_prompt(self, messages: Sequence[Message], *, reserve: int) -> list[int]:
        """The rendered prompt's tokens, leaving `reserve` tokens of context free; an
        oversized prompt loses the tail of its longest <document> span, with a warning."""
        budget = self.engine.n_ctx - reserve
        tokens = self.engine.render(messages)
        if len(tokens) <= budget:
            return tokens
        original = len(tokens)
        messages = [dict(m) for m in messages]
        for _ in range(4):  # re-tokenising a cut text can shift the count slightly
            excess = len(tokens) - budget
            if excess <= 0:
                warnings.warn(
                    f"{self.model_id}: prompt of {original} tokens exceeds the context "
                    f"({self.engine.n_ctx} - {reserve} reserved); document truncated to fit",
                    stacklevel=3,
                )
                return tokens
            self._shorten_document(messages, excess + 8, original)
            tokens = self.engine.render(messages)
        raise InputError(f"{self.model_id}: prompt still exceeds the context after truncation")

    def _shorten_document(self, messages: list[dict[str, str]], drop: int, original: int) -> None:
        spans = [
            (len(match.group(1)), index, match)
            for index, message in enumerate(messages)
            for match in DOCUMENT_SPAN.finditer(message["content"])
        ]
        if not spans:
            raise InputError(
                f"{self.model_id}: prompt of {original} tokens exceeds n_ctx={self.engine.n_ctx} "
                "and has no <document>…</document> span that may be shortened"
            )
        _, index, match = max(spans, key=lambda item: item[0])
        document = match.group(1).removesuffix(TRUNCATION_MARK)
        doc_tokens = self.engine.tokenize(document)
        if drop >= len(doc_tokens):
            raise InputError(
                f"{self.model_id}: the prompt does not fit n_ctx={self.engine.n_ctx} (with the "
                "tokens reserved for the answer) even without its document"
            )
        kept = self.engine.detokenize(doc_tokens[: len(doc_tokens) - drop]) + TRUNCATION_MARK
        content = messages[index]["content"]
        messages[index]["content"] = content[: match.start(1)] + kept + content[match.end(1) :]


def softmax(scores: np.ndarray) -> np.ndarray:
    shifted = np.exp(scores - scores.max())
    return shifted / shifted.sum()


def log_softmax(logits: np.ndarray) -> np.ndarray:
    logits = logits.astype(np.float64)
    top = logits.max()
    return logits - top - np.log(np.exp(logits - top).sum())


class LlamaEngine:
    """llama-cpp-python behind the Engine protocol; one context, prefix-matched per call."""

    def __init__(self, path: Path, n_ctx: int, n_gpu_layers: int, threads: int) -> None:
        import llama_cpp
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        threads_arg = threads or None
        self.llama = llama_cpp.Llama(
            str(path), n_ctx=n_ctx, n_gpu_layers=n_gpu_layers, n_threads=threads_arg,
            n_threads_batch=threads_arg, verbose=False,
        )  # fmt: skip
        self.n_ctx = self.llama.n_ctx()
        template = self.llama.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelIntegrityError(f"{path} has no chat template in its GGUF metadata")
        eos = self.llama.token_eos()
        text_of = self.llama._model.token_get_text
        bos = self.llama.token_bos()
        self.formatter = Jinja2ChatFormatter(
            template=template, eos_token=text_of(eos) if eos >= 0 else "",
            bos_token=text_of(bos) if bos >= 0 else "", stop_token_ids=[eos],
        )  # fmt: skip
        self._grammars: dict[str, Any] = {}

    def render(self, messages: Sequence[Message]) -> list[int]:
        result = self.formatter(messages=list(messages))
        self._stop = result.stop
        return self.llama.tokenize(
            result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True
        )

    def tokenize(self, text: str) -> list[int]:
        return self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)

    def detokenize(self, tokens: Sequence[int]) -> str:
        return self.llama.detokenize(list(tokens)).decode("utf-8", errors="ignore")

    def _reuse_prefix(self, tokens: Sequence[int]) -> int:
        """Keep the cached tokens shared with `tokens` (at least one left to evaluate)."""
        llama = self.llama
        cached = llama._input_ids.tolist()
        common = 0
        for a, b in zip(cached, tokens[:-1]):
            if a != b:
                break
            common += 1
        if (
            llama._is_recurrent
            or llama._is_hybrid
            or not llama._ctx.kv_cache_seq_rm(-1, common, -1)
        ):
            llama.reset()
            return 0
        llama.n_tokens = common
        return common

    def next_logits(self, tokens: Sequence[int]) -> tuple[np.ndarray, int]:
        import llama_cpp

        reused = self._reuse_prefix(tokens)
        self.llama.eval(list(tokens[reused:]))
        pointer = llama_cpp.llama_get_logits_ith(self.llama.ctx, -1)
        logits = np.ctypeslib.as_array(pointer, shape=(self.llama.n_vocab(),)).copy()
        return logits, reused

    def complete(
        self, tokens: Sequence[int], *, max_tokens: int, temperature: float, schema: Any = None
    ) -> tuple[str, int]:
        reused = self._reuse_prefix(tokens)  # llama.generate matches the same prefix again
        result = self.llama.create_completion(
            list(tokens), max_tokens=max_tokens, temperature=temperature, stop=self._stop,
            grammar=self._grammar(schema) if schema is not None else None,
        )  # fmt: skip
        return result["choices"][0]["text"], reused

    def _grammar(self, schema: Any) -> Any:
        from llama_cpp import LlamaGrammar

        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            self._grammars[key] = LlamaGrammar.from_json_schema(key, verbose=False)
        return self._grammars[key]
