"""ConflictRAG stage-1 pair classifier on ONNX Runtime: an int8 MLP with two heads.

Contract (docs/CONTRACTS.md, `models/pair/`): input `features` float32 [N, feature_dim] built by
`conflictdesk.analysis.pair_features.pair_features` in the config's `layout` ("emb4":
[e_i; e_j; |e_i - e_j|; e_i * e_j]; "emb4+nli6": the same plus NLI probabilities i→j, j→i); outputs `conflict_probs` [N, 2] (index 1 = conflict) and
`type_probs` [N, 4] in PAIR_TYPES order."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.errors import ModelIntegrityError, ModelMissingError, UsageError
from conflictdesk.types import PairScores

log = logging.getLogger(__name__)

MODEL_FILE = "pair_int8.onnx"
CONFIG_FILE = "pair_config.json"
# Rows summing to 1 within this tolerance count as probabilities; anything else is rejected.
PROB_TOLERANCE = 1e-3


def onnx_providers(device: str) -> list[str]:
    """CUDA first when the device allows it and onnxruntime has the CUDA provider."""
    import onnxruntime

    available = onnxruntime.get_available_providers()
    if device == "cuda" and "CUDAExecutionProvider" not in available:
        raise UsageError("device cuda requested but onnxruntime has no CUDAExecutionProvider")
    if device in ("auto", "cuda") and "CUDAExecutionProvider" in available:
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


class OnnxPairClassifier:
    """Features in, `PairScores` out; the session opens on first use."""

    def __init__(
        self,
        model_dir: Path,
        *,
        model_id: str | None = None,
        device: str = "auto",
        threads: int = 0,
    ) -> None:
        self.model_dir = Path(model_dir)
        self.model_id = model_id or self.model_dir.name
        self.device = device
        self.threads = threads
        self._lock = threading.Lock()
        self._session: Any = None
        self.config: dict[str, Any] = {}
        self.feature_dim = 0

    @property
    def tau_c(self) -> float:
        """ConflictRAG's confidence threshold τ_c, as calibrated for this model."""
        self._ensure_loaded()
        return float(self.config["tau_c"])

    @property
    def threshold(self) -> float:
        """The decision threshold on P(conflict), chosen on dev pairs (0.5 when absent)."""
        self._ensure_loaded()
        return float(self.config.get("threshold", 0.5))

    @property
    def layout(self) -> str:
        """The feature layout the model was trained on (`pair_features`)."""
        self._ensure_loaded()
        return str(self.config.get("layout", "emb4"))

    @property
    def statement_stance(self) -> str:
        """Which NLI read the stances towards a statement in training: "first-tier" (the
        analysis' NLI, as every other stance) or "cascade" (the labelling cascade, named by
        `statement_nli`); `pair_features.STATEMENT_STANCES`."""
        self._ensure_loaded()
        return str(self.config.get("statement_stance", "first-tier"))

    @property
    def statement_nli(self) -> str | None:
        """The family (`cascade_nli.model_family`) of the NLI that read the statement stances
        in training, when it was the cascade."""
        self._ensure_loaded()
        value = self.config.get("statement_nli")
        return str(value) if value else None

    @property
    def route(self) -> str:
        """ "two-stage" when stage 1 earned its place on held-out pairs, else "stage2-only"."""
        self._ensure_loaded()
        return str(self.config.get("route", "two-stage"))

    def classify(self, features: np.ndarray) -> list[PairScores]:
        self._ensure_loaded()
        features = np.asarray(features, dtype=np.float32)
        if features.ndim != 2 or features.shape[1] != self.feature_dim:
            raise UsageError(
                f"{self.model_id}: features must be [N, {self.feature_dim}], got {features.shape}"
            )
        if features.shape[0] == 0:
            return []
        # Dynamic int8 quantisation scales activations per tensor, so a row's output would
        # depend on the rest of its batch; one row per run keeps each pair's score (and its
        # cache entry) independent of what it was batched with. The MLP costs microseconds.
        rows = [
            self._session.run(["conflict_probs", "type_probs"], {"features": features[i : i + 1]})
            for i in range(features.shape[0])
        ]
        conflict = np.concatenate([row[0] for row in rows])
        types = np.concatenate([row[1] for row in rows])
        self._check_probs(conflict, 2)
        self._check_probs(types, 4)
        return [
            PairScores(conflict=float(c[1]), types=tuple(float(x) for x in t))  # type: ignore[arg-type]
            for c, t in zip(conflict, types)
        ]

    def _check_probs(self, probs: np.ndarray, width: int) -> None:
        if probs.shape[1] != width or not np.allclose(probs.sum(axis=1), 1.0, atol=PROB_TOLERANCE):
            raise ModelIntegrityError(f"{self.model_id}: head output is not a distribution")

    def _ensure_loaded(self) -> None:
        with self._lock:
            if self._session is None:
                self._load()

    def _load(self) -> None:
        import onnxruntime

        model_path = self.model_dir / MODEL_FILE
        if not model_path.exists():
            raise ModelMissingError(
                f"{model_path} is missing; see `conflictdesk models list` for its rebuild command"
            )
        config_path = self.model_dir / CONFIG_FILE
        self.config = json.loads(config_path.read_text("utf-8")) if config_path.exists() else {}
        if "tau_c" not in self.config:
            raise ModelIntegrityError(f"{config_path}: missing tau_c")
        options = onnxruntime.SessionOptions()
        if self.threads:
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(model_path), options, providers=onnx_providers(self.device)
        )
        self._check_signature()
        log.info("loaded %s with %s", self.model_id, self._session.get_providers()[0])

    def _check_signature(self) -> None:
        inputs = {i.name: i for i in self._session.get_inputs()}
        outputs = {o.name for o in self._session.get_outputs()}
        if "features" not in inputs or not {"conflict_probs", "type_probs"} <= outputs:
            raise ModelIntegrityError(
                f"{self.model_id}: expected input 'features' and outputs "
                f"'conflict_probs', 'type_probs'; got {sorted(inputs)} → {sorted(outputs)}"
            )
        width = inputs["features"].shape[1]
        expected = self.config.get("feature_dim")
        if not isinstance(width, int) or (expected is not None and width != expected):
            raise ModelIntegrityError(
                f"{self.model_id}: features width {width!r} is not the config's {expected}"
            )
        self.feature_dim = width
