"""The CONFLICTS type model: multinomial logistic regression over `typing_features`.

Weights live in `models/types/type_model.json` (plain JSON, no pickle), listed in the manifest
with its sha256. `predict` returns a probability per type; below the model's abstention
threshold (chosen on the development set by `conflictdesk.training.types`) the verdict is
marked uncertain."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from conflictdesk.analysis.evidence_signals import SubjectivityProbe, probe_from_json
from conflictdesk.analysis.feature_words import describe
from conflictdesk.analysis.types import ConflictVerdict
from conflictdesk.analysis.typing_features import FEATURE_NAMES, Evidence, type_features
from conflictdesk.backends.manifest import Manifest
from conflictdesk.errors import ModelMissingError
from conflictdesk.types import ConflictType

ROLE = "types"
MODEL_FILE = "types/type_model.json"
CLIP = 3.0
REBUILD = ".venv/bin/python scripts/train_type_classifier.py"


@dataclass(frozen=True)
class TypeModel:
    """Standardise (clipped to ±CLIP standard deviations, so a value far outside the training
    range cannot decide alone), then softmax(W x + b); `classes` in column order of W."""

    model_id: str
    feature_names: tuple[str, ...]
    classes: tuple[ConflictType, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # (features, classes)
    bias: np.ndarray  # (classes,)
    threshold: float  # below this top probability the type is uncertain
    probe: SubjectivityProbe | None = None  # for the probe_* features, when the model reads them

    def probabilities(self, features: Mapping[str, float]) -> dict[ConflictType, float]:
        """P(type | features) for every class."""
        row = np.array([features[name] for name in self.feature_names], dtype=np.float64)
        probs = softmax(self.standardise(row) @ self.weights + self.bias)
        return {kind: float(p) for kind, p in zip(self.classes, probs, strict=True)}

    def standardise(self, rows: np.ndarray) -> np.ndarray:
        return np.clip((rows - self.mean) / self.scale, -CLIP, CLIP)

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
            "subjectivity_probe": self.probe.to_json() if self.probe is not None else None,
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
        probe=probe_from_json(blob["subjectivity_probe"])
        if blob.get("subjectivity_probe")
        else None,
    )


def load_type_model(models_dir: Path) -> TypeModel:
    """The type model the manifest under `models_dir` lists, its sha256 verified; a missing
    entry or file names the build command. Its id is the manifest's `name@version`."""
    base = Path(models_dir)
    entries = Manifest.load(base / "manifest.json").by_role(ROLE)
    if not entries:
        raise ModelMissingError(f"no type model in {base / 'manifest.json'}; build: {REBUILD}")
    entry = entries[-1]
    entry.verify(base)
    blob = json.loads(entry.resolve(base).read_text(encoding="utf-8"))
    model = dataclasses.replace(type_model_from_json(blob), model_id=entry.model_id)
    check_features(model, FEATURE_NAMES)
    return model


def classify_by_model(model: TypeModel, evidence: Evidence) -> ConflictVerdict:
    """The most probable type, its probability, and `uncertain` below the model's threshold;
    the signals are the features and every type's probability."""
    if model.probe is not None and not evidence.vectors:
        raise ModelMissingError(
            f"type model {model.model_id} reads embedding features; pass the passage vectors"
        )
    features = type_features(evidence, model.probe)
    probs = model.probabilities(features)
    kind = max(probs, key=lambda k: probs[k])
    confidence = probs[kind]
    uncertain = confidence < model.threshold
    why = explain(model, kind, features)
    if uncertain:
        why = f"uncertain (below {model.threshold:.2f}; a reviewer should look): {why}"
    signals: dict[str, Any] = {
        "features": {k: round(features[k], 4) for k in model.feature_names},
        "probabilities": {k.value: round(p, 4) for k, p in probs.items()},
        "threshold": model.threshold,
    }
    return ConflictVerdict(kind, why, f"model:{model.model_id}", signals, confidence, uncertain)


def explain(model: TypeModel, kind: ConflictType, features: Mapping[str, float]) -> str:
    """The type, its probability and the three features that pushed furthest toward it
    (standardised value × the weight's excess over the classes' mean weight), in words
    (`feature_words`: the side of the training mean the case's value lies on)."""
    probs = model.probabilities(features)
    runner = sorted(probs, key=lambda k: -probs[k])[1]
    row = np.array([features[name] for name in model.feature_names])
    column = model.classes.index(kind)
    pull = (
        (row - model.mean) / model.scale * (model.weights[:, column] - model.weights.mean(axis=1))
    )
    side = row >= model.mean
    top = [
        describe(model.feature_names[i], bool(side[i]))
        for i in np.argsort(-pull)[:3]
        if pull[i] > 0
    ]
    because = f"; mostly from: {'; '.join(top)}" if top else ""
    return (
        f"{kind.value.replace('_', ' ')} with probability {probs[kind]:.2f} "
        f"(next: {runner.value.replace('_', ' ')} {probs[runner]:.2f}){because}"
    )


def check_features(model: TypeModel, names: tuple[str, ...]) -> None:
    """The model must read only features this code computes, and carry the subjectivity
    probe when it reads the probe's features."""
    unknown = set(model.feature_names) - set(names)
    needs_probe = any(name.startswith("probe_") for name in model.feature_names)
    if unknown or (needs_probe and model.probe is None):
        raise ModelMissingError(
            f"type model {model.model_id} reads features this code does not compute "
            f"({', '.join(sorted(unknown)) or 'probe without its weights'}); "
            f"rebuild it with: {REBUILD}"
        )
