"""A logistic-regression scorer over standardised features with a margin for the rule's own
choice, stored as JSON (no pickle): the answer ranker's and the span reader's weights."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np


@dataclass(frozen=True)
class RuleMarginScorer:
    """score = w · (x − mean) / scale + b, plus `margin` where the RULE_FEATURE column (1 for
    the rule's own choice) is set: what overturning the rule takes. Subclasses name their
    FEATURES, RULE_FEATURE and what they are (KIND, for errors)."""

    FEATURES: ClassVar[tuple[str, ...]] = ()
    RULE_FEATURE: ClassVar[str] = ""
    KIND: ClassVar[str] = "scorer"

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    model_id: str = ""
    margin: float = 0.0

    @classmethod
    def from_json(cls, blob: Mapping[str, Any], model_id: str | None = None):
        if tuple(blob["features"]) != cls.FEATURES:
            raise ValueError(
                f"{cls.KIND} features differ from this version's: the file has "
                f"{list(blob['features'])}, the code {list(cls.FEATURES)}"
            )
        arrays = [np.asarray(blob[k], dtype=np.float64) for k in ("mean", "scale", "weights")]
        margin = float(blob.get("margin", 0.0))
        return cls(
            *arrays,
            float(blob["bias"]),
            model_id or cls.__dataclass_fields__["model_id"].default,
            margin,
        )

    def to_json(self) -> dict[str, Any]:
        # Rounded, so a rebuild whose sums differ in the last bits writes the same file;
        # + 0.0 writes no "-0.0".
        def rounded(values: np.ndarray) -> list[float]:
            return [round(float(v), 10) + 0.0 for v in values]

        return {
            "features": list(self.FEATURES),
            "mean": rounded(self.mean),
            "scale": rounded(self.scale),
            "weights": rounded(self.weights),
            "bias": round(self.bias, 10) + 0.0,
            "margin": self.margin,
        }

    def scores(self, matrix: np.ndarray) -> np.ndarray:
        linear = ((matrix - self.mean) / self.scale) @ self.weights + self.bias
        return linear + self.margin * matrix[:, self.FEATURES.index(self.RULE_FEATURE)]
