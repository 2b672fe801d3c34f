"""The shipped sentence encoder: all-MiniLM-L6-v2 as an int8 ONNX graph.

Texts are tokenised with the `tokenizers` library (the model's own tokenizer.json),
run through onnxruntime, mean-pooled over real tokens and L2-normalised. On the CPU each text
runs alone (batch 1) on a single-threaded graph call, `threads` calls at once: dynamic int8
quantisation scales activations per call, so a text's vector never depends on its companions.
Nothing is loaded until the first `embed` call."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
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


def usable_cores() -> int:
    """CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class OnnxEmbedder:
    """`Embedder` over `models/embedder/` (model_int8.onnx + tokenizer.json).

    `threads` is how many graph calls run at once (0: one per usable core), each on one
    onnxruntime thread: on 2 cores that took about 18% less CPU per ~150-word passage than one
    call split over 2 intra-op threads at batch 8 (conflictdesk.benchmarks.ingest). `batch_size`
    1 measured best on the CPU (batch 8 cost 10% more CPU per passage: padding and attention
    tensors that outgrow the cache) and makes each vector independent of its batch; on a GPU
    the default is 8, sorted by length. `device` is "auto" (CUDA when onnxruntime offers
    it), "cpu" or "cuda"; `max_length` truncates inputs (the model was trained on 256 word
    pieces at most)."""

    model_id = MODEL_ID
    dim = 384

    def __init__(
        self,
        model_dir: Path | str,
        *,
        threads: int = 0,
        device: str = "auto",
        batch_size: int | None = None,
        max_length: int = 256,
        model_id: str | None = None,
    ) -> None:
        if device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"device must be auto, cpu or cuda, not {device!r}")
        if batch_size is not None and batch_size < 1:
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
        self._workers = 1
        self._lock = threading.Lock()

    @property
    def providers(self) -> list[str]:
        """The onnxruntime providers in use (loads the model)."""
        self._load()
        return list(self._session.get_providers())

    @property
    def tokenizer(self) -> Any:
        """The `tokenizers.Tokenizer` in use, truncating at `max_length` (loads the model)."""
        self._load()
        return self._tokenizer

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
            tokenizer.no_padding()  # tokenizer.json pads; each graph call pads its own batch
            options = ort.SessionOptions()
            options.intra_op_num_threads = 1  # parallel calls instead (see the class docstring)
            options.inter_op_num_threads = 1
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
            on_cpu = session.get_providers()[0] == "CPUExecutionProvider"
            self._workers = (self.threads or usable_cores()) if on_cpu else 1
            self.batch_size = self.batch_size or (1 if on_cpu else 8)
            self._tokenizer = tokenizer
            self._session = session

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 rows, one per text, shape (len(texts), 384)."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self._load()
        encodings = self._tokenizer.encode_batch(list(texts))
        # Sorting by length keeps padding small inside each batch (when batch_size > 1).
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        size = self.batch_size or 1  # set by _load
        batches = [order[s : s + size] for s in range(0, len(order), size)]
        out = np.empty((len(texts), self.dim), dtype=np.float32)

        def embed_batch(idx: list[int]) -> None:
            out[idx] = self._embed_encoded([encodings[i] for i in idx])

        if self._workers == 1 or len(batches) == 1:
            for idx in batches:
                embed_batch(idx)
        else:
            with ThreadPoolExecutor(min(self._workers, len(batches))) as pool:
                list(pool.map(embed_batch, batches))  # list(): re-raises a worker's error
        return out

    def _embed_encoded(self, encodings: list[Any]) -> np.ndarray:
        """One graph call over encoded texts, padded with id 0 to the longest."""
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = encoding.attention_mask
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
