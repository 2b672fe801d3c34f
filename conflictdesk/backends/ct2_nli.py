"""NLI cross-encoder on CTranslate2: an int8 BERT-family encoder, the head applied in numpy.

CTranslate2 converts encoders but drops sequence-classification heads, so the model folder
carries the head separately (`head.npz`) with its calibration (`nli_config.json`); see the
`models/nli/` contract in docs/CONTRACTS.md."""

from __future__ import annotations

import json
import logging
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.backends.formats import load_npz_arrays
from conflictdesk.errors import ModelIntegrityError, ModelMissingError
from conflictdesk.types import NLIScores

log = logging.getLogger(__name__)

NLI_LABELS = ("entailment", "neutral", "contradiction")
WINDOW_RULE = "max-evidence"


@dataclass(frozen=True)
class _Window:
    pair_index: int
    ids: list[int]
    type_ids: list[int]


def resolve_device(device: str) -> str:
    """ "auto" becomes "cuda" when CTranslate2 sees a CUDA device, else "cpu"."""
    if device != "auto":
        return device
    import ctranslate2

    return "cuda" if ctranslate2.get_cuda_device_count() > 0 else "cpu"


class CT2CrossEncoder:
    """Premise/hypothesis pairs → calibrated entailment/neutral/contradiction probabilities.

    Probabilities are softmax((W·meanpool(h) + b) / T). A premise longer than the window is
    split into overlapping token windows (`stride` tokens shared by neighbours) and aggregated
    by the "max-evidence" rule: the pair takes the scores of the window whose
    max(entailment, contradiction) is highest, since evidence for or against a hypothesis
    usually sits in one place and neutral windows elsewhere should not dilute it."""

    def __init__(
        self,
        model_dir: Path,
        *,
        model_id: str | None = None,
        device: str = "auto",
        threads: int = 0,
        batch_size: int = 16,
        max_length: int | None = None,
    ) -> None:
        self.model_dir = Path(model_dir)
        self.model_id = model_id or self.model_dir.name
        self.device = device
        self.threads = threads
        self.batch_size = batch_size
        self._max_length_override = max_length
        self._lock = threading.Lock()
        self._encoder: Any = None
        self._tokenizer: Any = None
        self.config: dict[str, Any] = {}
        self.windows_run = 0  # windows encoded so far, for tests and benchmarks

    @property
    def max_length(self) -> int:
        self._ensure_loaded()
        return int(self._max_length_override or self.config["max_length"])

    def classify(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        if not pairs:
            return []
        self._ensure_loaded()
        windows = [w for i, pair in enumerate(pairs) for w in self._windows(i, *pair)]
        probs = self._score_windows(windows)
        by_pair: list[list[int]] = [[] for _ in pairs]
        for row, window in enumerate(windows):
            by_pair[window.pair_index].append(row)
        return [self._aggregate(probs, rows) for rows in by_pair]

    # -- loading ---------------------------------------------------------------------------

    def _ensure_loaded(self) -> None:
        with self._lock:
            if self._encoder is None:
                self._load()

    def _load(self) -> None:
        import ctranslate2

        for name in ("model.bin", "tokenizer.json", "head.npz", "nli_config.json"):
            if not (self.model_dir / name).exists():
                raise ModelMissingError(
                    f"{self.model_dir / name} is missing; rebuild: "
                    "see `conflictdesk models list` for the nli model's rebuild command"
                )
        self.config = json.loads((self.model_dir / "nli_config.json").read_text("utf-8"))
        self._check_config()
        head = load_npz_arrays(self.model_dir / "head.npz")  # numbers only, never unpickled
        self._weight = head["weight"].astype(np.float32)
        self._bias = head["bias"].astype(np.float32)
        device = resolve_device(self.device)
        compute_type = "int8_float16" if device == "cuda" else "int8"
        self._encoder = ctranslate2.Encoder(
            str(self.model_dir), device=device, compute_type=compute_type,
            intra_threads=self.threads,
        )  # fmt: skip
        self._load_tokenizers()
        log.info("loaded %s on %s (%s)", self.model_id, device, compute_type)

    def _load_tokenizers(self) -> None:
        """The windowing tokenizer (truncates the premise with overlap) and a plain one: two,
        so that no call mutates shared truncation state."""
        from tokenizers import Tokenizer

        max_length = int(self._max_length_override or self.config["max_length"])
        stride = min(int(self.config.get("stride", 64)), max_length // 4)
        self._tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length, stride=stride, strategy="only_first")
        self._plain_tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
        self._plain_tokenizer.no_padding()
        self._plain_tokenizer.no_truncation()

    def _check_config(self) -> None:
        labels = self.config.get("labels")
        if sorted(labels or []) != sorted(NLI_LABELS):
            raise ModelIntegrityError(f"{self.model_id}: nli_config labels must be {NLI_LABELS}")
        if self.config.get("pooling", "mean") != "mean":
            raise ModelIntegrityError(f"{self.model_id}: only mean pooling is supported")
        if float(self.config.get("temperature", 1.0)) <= 0:
            raise ModelIntegrityError(f"{self.model_id}: temperature must be positive")

    # -- windowing ---------------------------------------------------------------------------

    def _windows(self, index: int, premise: str, hypothesis: str) -> list[_Window]:
        """[CLS] premise-window [SEP] hypothesis [SEP] for each premise window."""
        hypothesis = self._fit_hypothesis(hypothesis, self.max_length // 2)
        encoding = self._tokenizer.encode(premise, hypothesis)
        encodings = [encoding, *encoding.overflowing]
        return [_Window(index, list(e.ids), list(e.type_ids)) for e in encodings]

    def _fit_hypothesis(self, hypothesis: str, budget: int) -> str:
        """Hypotheses are claims, not documents: one longer than half the window is cut."""
        encoding = self._plain_tokenizer.encode(hypothesis, add_special_tokens=False)
        if len(encoding.ids) <= budget:
            return hypothesis
        cut = encoding.offsets[budget - 1][1]
        warnings.warn(
            f"{self.model_id}: hypothesis of {len(encoding.ids)} tokens truncated to {budget}",
            stacklevel=5,
        )
        return hypothesis[:cut]

    # -- inference ---------------------------------------------------------------------------

    def _score_windows(self, windows: list[_Window]) -> np.ndarray:
        """Probabilities [len(windows), 3] in NLI_LABELS order; batches sorted by length."""
        order = sorted(range(len(windows)), key=lambda i: len(windows[i].ids))
        probs = np.zeros((len(windows), 3), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            pooled = self._encode([windows[i] for i in batch])
            probs[batch] = self._head(pooled)
        self.windows_run += len(windows)
        return probs

    def _encode(self, batch: list[_Window]) -> np.ndarray:
        import ctranslate2

        output = self._encoder.forward_batch(
            [w.ids for w in batch], token_type_ids=[w.type_ids for w in batch]
        )
        hidden = output.last_hidden_state
        if hidden.device != "cpu":
            hidden = hidden.to_device(ctranslate2.Device.cpu)
        hidden = np.asarray(hidden, dtype=np.float32)
        lengths = np.array([len(w.ids) for w in batch])
        mask = (np.arange(hidden.shape[1])[None, :] < lengths[:, None]).astype(np.float32)
        return (hidden * mask[:, :, None]).sum(axis=1) / lengths[:, None]

    def _head(self, pooled: np.ndarray) -> np.ndarray:
        logits = (pooled @ self._weight.T + self._bias) / float(self.config["temperature"])
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        probs = exp / exp.sum(axis=1, keepdims=True)
        # Reorder the head's label order into NLI_LABELS order.
        columns = [list(self.config["labels"]).index(label) for label in NLI_LABELS]
        return probs[:, columns]

    def _aggregate(self, probs: np.ndarray, rows: list[int]) -> NLIScores:
        """The max-evidence rule over one pair's window rows of `probs`."""
        evidence = [max(probs[i, 0], probs[i, 2]) for i in rows]
        best = rows[int(np.argmax(evidence))]
        entailment, neutral, contradiction = (float(x) for x in probs[best])
        return NLIScores(entailment, neutral, contradiction)
