"""The CONFLICTS type model: multinomial logistic regression over `typing_features`.

Weights live in `models/types/type_model.json` (plain JSON, no pickle), listed in the manifest
with its sha256. `predict` returns a probability per type; below the model's abstention
threshold (chosen on the development set by `conflictdesk.training.types`) the verdict is
marked uncertain."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.errors import ModelMissingError
from conflictdesk.types import ConflictType

MODEL_FILE = "types/type_model.json"
REBUILD = ".venv/bin/python scripts/train_type_classifier.py"


@dataclass(frozen=True)
class TypeModel:
    """Standardise, then softmax(W x + b); `classes` in column order of W."""

    model_id: str
    feature_names: tuple[str, ...]
    classes: tuple[ConflictType, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # (features, classes)
    bias: np.ndarray  # (classes,)
    threshold: float  # below this top probability the type is uncertain

    def probabilities(self, features: Mapping[str, float]) -> dict[ConflictType, float]:
        """P(type | features) for every class."""
        row = np.array([features[name] for name in self.feature_names], dtype=np.float64)
        probs = softmax(((row - self.mean) / self.scale) @ self.weights + self.bias)
        return {kind: float(p) for kind, p in zip(self.classes, probs, strict=True)}

    def to_json(self) -> dict[str, Any]:
        return {
            "model_id": self.model_id,
            "feature_names": list(self.feature_names),
            "classes": [c.value for c in self.classes],
            "mean": self.mean.round(8).tolist(),
            "scale": self.scale.round(8).tolist(),
            "weights": self.weights.round(8).tolist(),
            "bias": self.bias.round(8).tolist(),
            "threshold": self.threshold,
        }


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=-1, keepdims=True)


def type_model_from_json(blob: Mapping[str, Any]) -> TypeModel:
    """The inverse of `TypeModel.to_json`."""
    return TypeModel(
        model_id=str(blob["model_id"]),
        feature_names=tuple(blob["feature_names"]),
        classes=tuple(ConflictType(c) for c in blob["classes"]),
        mean=np.asarray(blob["mean"], dtype=np.float64),
        scale=np.asarray(blob["scale"], dtype=np.float64),
        weights=np.asarray(blob["weights"], dtype=np.float64),
        bias=np.asarray(blob["bias"], dtype=np.float64),
        threshold=float(blob["threshold"]),
    )


def load_type_model(models_dir: Path) -> TypeModel:
    """The shipped type model under `models_dir`; a missing file names its build command."""
    path = Path(models_dir) / MODEL_FILE
    if not path.is_file():
        raise ModelMissingError(f"type model not found at {path}; build it with: {REBUILD}")
    return type_model_from_json(json.loads(path.read_text(encoding="utf-8")))


def check_features(model: TypeModel, names: Sequence[str]) -> None:
    """The model must read exactly the features the code computes."""
    if tuple(names) != model.feature_names:
        raise ModelMissingError(
            f"type model {model.model_id} reads other features than this code computes; "
            f"rebuild it with: {REBUILD}"
        )
