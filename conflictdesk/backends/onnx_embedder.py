"""The shipped sentence encoder: all-MiniLM-L6-v2 as an int8 ONNX graph.

Texts are tokenised with the `tokenizers` library (the model's own tokenizer.json),
run through onnxruntime, mean-pooled over real tokens and L2-normalised, in batches.
Nothing is loaded until the first `embed` call."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.errors import ModelMissingError

MODEL_ID = "minilm-l6-embedder-int8"
MODEL_FILE = "model_int8.onnx"
TOKENIZER_FILE = "tokenizer.json"
REBUILD = ".venv/bin/python scripts/convert_embedder.py"


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Average of the token vectors where `mask` is 1, L2-normalised, as float32 rows."""
    weights = mask.astype(np.float32)[:, :, None]
    summed = (hidden.astype(np.float32) * weights).sum(axis=1)
    counts = np.clip(weights.sum(axis=1), 1e-9, None)
    pooled = summed / counts
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


class OnnxEmbedder:
    """`Embedder` over `models/embedder/` (model_int8.onnx + tokenizer.json).

    `threads` bounds onnxruntime's intra-op pool (0 lets it choose); `batch_size` 8 measured
    best on 2 cores for ~150-word passages (about 15% more passages per CPU-second than 32, and
    a third of the peak memory: the attention tensors grow with the batch); `device` is "auto"
    (CUDA when onnxruntime offers it), "cpu" or "cuda"; `max_length` truncates inputs
    (the model was trained on 256 word pieces at most)."""

    model_id = MODEL_ID
    dim = 384

    def __init__(
        self,
        model_dir: Path | str,
        *,
        threads: int = 0,
        device: str = "auto",
        batch_size: int = 8,
        max_length: int = 256,
        model_id: str | None = None,
    ) -> None:
        if device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"device must be auto, cpu or cuda, not {device!r}")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.model_dir = Path(model_dir)
        self.model_id = model_id or MODEL_ID
        self.threads = threads
        self.device = device
        self.batch_size = batch_size
        self.max_length = max_length
        self._session: Any = None
        self._tokenizer: Any = None
        self._inputs: tuple[str, ...] = ()
        self._lock = threading.Lock()

    @property
    def providers(self) -> list[str]:
        """The onnxruntime providers in use (loads the model)."""
        self._load()
        return list(self._session.get_providers())

    def _load(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._session is not None:
                return
            model = self.model_dir / MODEL_FILE
            tok = self.model_dir / TOKENIZER_FILE
            for path in (model, tok):
                if not path.is_file():
                    raise ModelMissingError(f"{MODEL_ID}: {path} is missing; rebuild: {REBUILD}")
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(tok))
            tokenizer.enable_truncation(max_length=self.max_length)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to the batch's longest
            options = ort.SessionOptions()
            options.intra_op_num_threads = max(self.threads, 0)
            options.inter_op_num_threads = 1
            # Idle pool threads sleep instead of spinning: on a shared machine spinning cost
            # about 20% more CPU per batch (conflictdesk.benchmarks.ingest).
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            available = ort.get_available_providers()
            if self.device == "cuda" and "CUDAExecutionProvider" not in available:
                raise ModelMissingError(
                    "device 'cuda' asked for, but this onnxruntime has no CUDA provider "
                    "(install onnxruntime-gpu)"
                )
            providers = ["CPUExecutionProvider"]
            if self.device in ("auto", "cuda") and "CUDAExecutionProvider" in available:
                providers = ["CUDAExecutionProvider", "CPUExecutionProvider"]
            session = ort.InferenceSession(str(model), options, providers=providers)
            self._inputs = tuple(i.name for i in session.get_inputs())
            self._tokenizer = tokenizer
            self._session = session

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 rows, one per text, shape (len(texts), 384)."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self._load()
        # Sorting by length keeps padding small inside each batch.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._embed_batch([texts[i] for i in idx])
        return out

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        (hidden,) = self._session.run(["last_hidden_state"], feeds)
        return mean_pool(hidden, mask)


def from_manifest(*, threads: int = 0, device: str = "auto", verify: bool = True) -> OnnxEmbedder:
    """The shipped embedder as listed in models/manifest.json, its files' sha256 checked."""
    from conflictdesk.backends.manifest import Manifest, models_dir

    base = models_dir()
    manifest = Manifest.load()
    try:
        entry = manifest.get(MODEL_ID)
    except ModelMissingError as exc:
        raise ModelMissingError(f"{exc}; build it with: {REBUILD}") from exc
    if verify:
        entry.verify(base)
    return OnnxEmbedder(
        entry.resolve(base), threads=threads, device=device, model_id=entry.model_id
    )
