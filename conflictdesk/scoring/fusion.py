"""The fusion labeller: NLI probabilities and answer-aware reading features combined by a small
logistic regression (numpy; weights in a JSON file, no pickle).

For a (claim, document) pair the cross-encoder is asked twice: the document (windowed,
max-evidence) against the claim as written, and the document against the claim reworded as
its question followed by its answer ("Q? A."; `reworded_claim`). Their probabilities and the
reading features of `conflictdesk.scoring.reading` form one vector (`FEATURES`); the regression
gives P(SUPPORTS, CONTRADICTS, IRRELEVANT), calibrated by a temperature fitted on held-out data.
Two structures (`STRUCTURES`): "split" (shipped) keeps the encoder's SUPPORTS and fits only the
CONTRADICTS-vs-IRRELEVANT decision, at a threshold; "softmax" fits all three relations, decided
by the argmax of log P plus per-relation offsets. Threshold, offsets and class weights are chosen
by cross-validation grouped by question on the training cases
(`conflictdesk.training.fusion_cv`); the probabilities themselves stay calibrated.

Why the rewording: the NLI models were fine-tuned on the fusion's own training questions, in
the claim template "The answer to the question Q is A.". On those pairs their contradiction
score separates CONTRADICTS from IRRELEVANT far better (ranking AUC 0.96 on the RAMDocs TRAIN
half, 0.89 on QACC train) than on unseen questions (0.78 on the RAMDocs EVAL half, 0.64 on QACC
dev), so a regression fitted there trusted it over every honest feature, and on unseen
documents an answer missing from a passage read as a contradiction. Worded as "Q? A.", a form
they never saw, the same pairs read 0.93 / 0.80 on the training sets and 0.82 / 0.70 on the
unseen ones (docs/fusion_report.md, "encoder separation"). The "split" regression therefore
reads the reworded scores and no score of the training wording (`SPLIT_EXCLUDED`); the
encoder's SUPPORTS decision keeps the claim as written, the wording it separates best."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from conflictdesk.errors import ModelIntegrityError
from conflictdesk.scoring.reading import (
    KINDS,
    ClaimFrame,
    Reading,
    frame_claim,
    question_and_answer,
    read_document,
    sibling_features,
)
from conflictdesk.types import NLIScores

FEATURES = (
    "doc_entail", "doc_contra", "doc_neutral",
    "qa_entail", "qa_contra", "qa_neutral",
    "question_share_document", "question_share_key",
    "answer_in_document", "answer_in_key", "answer_token_share",
    "other_value_in_key", "other_values_in_document", "key_position", "log_length",
    *(f"kind_{k}" for k in KINDS),
    "missing_answer_x_question_key", "other_value_x_no_answer", "qa_contra_x_answer",
    "twin_of_supporter", "answer_document_share", "twin_x_no_answer", "twin_x_other_value",
)  # fmt: skip
# The encoder's scores of the claim as written (doc_entail, doc_contra, doc_neutral, in OUTPUTS
# order): the "split" structure's SUPPORTS decision reads them, its regression does not (module
# docstring), so its weights there are 0.
SUPPORTS_COLUMNS = slice(0, 3)
SPLIT_EXCLUDED = FEATURES[SUPPORTS_COLUMNS]
SPLIT_INPUTS = np.asarray([name not in SPLIT_EXCLUDED for name in FEATURES])
OUTPUTS = ("SUPPORTS", "CONTRADICTS", "IRRELEVANT")


def feature_vector(
    frame: ClaimFrame,
    reading: Reading,
    document: NLIScores,
    reworded: NLIScores,
    siblings: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """The fusion features of one (claim, document) pair, in `FEATURES` order: `document` and
    `reworded` score the document against the claim as written and as `reworded_claim`."""
    r = reading
    base = [
        document.entailment, document.contradiction, document.neutral,
        reworded.entailment, reworded.contradiction, reworded.neutral,
        r.question_share_document, r.question_share_key,
        r.answer_in_document, r.answer_in_key, r.answer_token_share,
        r.other_value_in_key, r.other_values_in_document, r.key_position, r.log_length,
        *(float(frame.kind == k) for k in KINDS),
        (1 - r.answer_in_document) * r.question_share_key,
        r.other_value_in_key * (1 - r.answer_in_key),
        reworded.contradiction * r.answer_in_document,
        siblings[0], siblings[1],
        siblings[0] * (1 - r.answer_in_document),
        siblings[0] * r.other_value_in_key,
    ]  # fmt: skip
    return np.asarray(base, dtype=np.float64)


Classify = Callable[[list[tuple[str, str]]], Mapping[tuple[str, str], NLIScores]]


def reworded_claim(claim: str) -> str:
    """An answer-form claim as its question followed by its answer ("What is X? 12 kg."): a
    wording the NLI models were not trained on (module docstring); any other claim as it is."""
    parts = question_and_answer(claim)
    return f"{parts[0]} {parts[1]}." if parts else claim


def nli_requests(claim: str, text: str) -> list[tuple[str, str]]:
    """The (premise, hypothesis) pairs the features need: the document against the claim as
    written and as reworded."""
    return [(text, claim), (text, reworded_claim(claim))]


def pair_features(
    pairs: Sequence[tuple[str, str]],
    classify: Classify,
    siblings: Mapping[str, Sequence[str]] | None = None,
) -> np.ndarray:
    """Feature rows for (claim, document text) pairs; `classify` scores all the NLI requests
    at once (the one feature function of training and inference). `siblings` maps a claim to
    every document judged against it (default: the documents paired with it here)."""
    if siblings is None:
        grouped: dict[str, list[str]] = {}
        for claim, text in pairs:
            grouped.setdefault(claim, []).append(text)
        siblings = grouped
    frames = {claim: frame_claim(claim) for claim, _ in pairs}
    readings = [read_document(frames[claim], text) for claim, text in pairs]
    requests = [nli_requests(claim, text) for claim, text in pairs]
    scores = classify(list(dict.fromkeys(r for both in requests for r in both)))
    rows = []
    for (claim, text), reading, both in zip(pairs, readings, requests, strict=True):
        doc, reworded = (scores[r] for r in both)
        around = sibling_features(frames[claim], text, siblings.get(claim, ()))
        rows.append(feature_vector(frames[claim], reading, doc, reworded, around))
    return np.stack(rows) if rows else np.zeros((0, len(FEATURES)))


# How the regression turns features into relations (`FusionModel.structure`):
# - "softmax": one multinomial regression over the three relations, decided by `decide`.
# - "split": the encoder's argmax on the whole document keeps SUPPORTS; a binary regression
#   decides CONTRADICTS against IRRELEVANT for every other pair, at `threshold`. The encoder
#   separates SUPPORTS as well on held-out sets as on its training sets, but its
#   CONTRADICTS-vs-IRRELEVANT separation falls from AUC 0.89-0.96 on the sets it was
#   fine-tuned on to 0.64-0.78 on held-out ones (docs/fusion_report.md, "encoder
#   separation"): the fitted part is kept to the decision the encoder cannot make alone.
STRUCTURES = ("softmax", "split")


@dataclass(frozen=True)
class FusionModel:
    """Standardised features → softmax(W·x + b) / T over `OUTPUTS` ("softmax"), or the
    encoder's SUPPORTS and sigmoid((w·x + b) / T) = P(CONTRADICTS | not SUPPORTS) ("split");
    relations by `relations`."""

    model_id: str
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # (features, outputs); (features, 1) for "split"
    bias: np.ndarray  # (outputs,); (1,) for "split"
    temperature: float
    offsets: tuple[float, float, float] = (0.0, 0.0, 0.0)  # added to log P before the argmax
    structure: str = "softmax"
    threshold: float = 0.5  # "split": the regression's output from which it is CONTRADICTS
    fitted_on: str = ""  # the NLI model whose scores it was fitted on ("" when not recorded)

    @classmethod
    def load(cls, path: Path, model_id: str) -> FusionModel:
        """Read the JSON weights written by `to_json`; a file for other features is refused."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        structure = data.get("structure", "softmax")
        if (
            tuple(data.get("features", ())) != FEATURES
            or tuple(data.get("outputs", ())) != OUTPUTS
            or structure not in STRUCTURES
        ):
            raise ModelIntegrityError(
                f"{path}: fusion weights were trained for other features; rebuild with "
                "scripts/train_fusion.py"
            )
        return cls(
            model_id,
            np.asarray(data["mean"], dtype=np.float64),
            np.asarray(data["scale"], dtype=np.float64),
            np.asarray(data["weights"], dtype=np.float64),
            np.asarray(data["bias"], dtype=np.float64),
            float(data["temperature"]),
            tuple(float(v) for v in data.get("offsets", (0.0, 0.0, 0.0))),  # type: ignore[arg-type]
            structure,
            float(data.get("threshold", 0.5)),
            str(data.get("fitted_on", "")),
        )

    def to_json(self) -> dict:
        return {
            "features": list(FEATURES),
            "outputs": list(OUTPUTS),
            "mean": self.mean.round(6).tolist(),
            "scale": self.scale.round(6).tolist(),
            "weights": self.weights.round(6).tolist(),
            "bias": self.bias.round(6).tolist(),
            "temperature": round(self.temperature, 4),
            "offsets": [round(float(v), 4) for v in self.offsets],
            "structure": self.structure,
            "threshold": round(float(self.threshold), 4),
            "fitted_on": self.fitted_on,
        }

    def logits(self, features: np.ndarray) -> np.ndarray:
        x = (np.atleast_2d(features) - self.mean) / self.scale
        return x @ self.weights + self.bias

    def contradicts(self, features: np.ndarray) -> np.ndarray:
        """ "split": P(CONTRADICTS | not SUPPORTS) of each row."""
        return sigmoid(self.logits(features)[:, 0] / self.temperature)

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """Rows of P(SUPPORTS, CONTRADICTS, IRRELEVANT); for "split" the encoder's
        P(SUPPORTS) and the rest shared by P(CONTRADICTS | not SUPPORTS)."""
        if self.structure != "split":
            return softmax(self.logits(features) / self.temperature)
        supports = np.atleast_2d(features)[:, 0]
        q = self.contradicts(features)
        return np.stack([supports, (1 - supports) * q, (1 - supports) * (1 - q)], axis=1)

    def relations(self, features: np.ndarray) -> np.ndarray:
        """Relation indices (into `OUTPUTS`) of feature rows (`structure`)."""
        if self.structure != "split":
            return self.decide(self.probabilities(features))
        # the threshold was chosen on the regression's own output (out of fold, before any
        # temperature), so it is compared with that; the temperature calibrates only the
        # reported probabilities
        raw = sigmoid(self.logits(features)[:, 0])
        return split_relations(np.atleast_2d(features), raw, self.threshold)

    def decide(self, probabilities: np.ndarray) -> np.ndarray:
        """ "softmax": relation indices of probability rows, argmax of log P + offsets."""
        return decide(probabilities, self.offsets)


def split_relations(x: np.ndarray, q: np.ndarray, threshold: float) -> np.ndarray:
    """The "split" decision from feature rows and their P(CONTRADICTS | not SUPPORTS): the
    encoder's argmax keeps SUPPORTS, the rest is CONTRADICTS from `threshold` on, else
    IRRELEVANT."""
    encoder = x[:, SUPPORTS_COLUMNS].argmax(axis=1)
    return np.where(encoder == 0, 0, np.where(q >= threshold, 1, 2))


def decide(probabilities: np.ndarray, offsets: Sequence[float]) -> np.ndarray:
    """argmax over each row of log P + `offsets` (zero offsets: the plain argmax)."""
    scores = np.log(np.atleast_2d(probabilities) + 1e-12) + np.asarray(offsets, dtype=np.float64)
    return scores.argmax(axis=1)


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def fit_logistic(
    x: np.ndarray,
    y: np.ndarray,
    *,
    l2: float = 1e-2,
    steps: int = 3000,
    lr: float = 0.1,
    class_weight: Sequence[float] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Multinomial logistic regression by full-batch gradient descent with Adam on
    standardised features: (mean, scale, weights, bias)."""
    mean, scale, z = _standardised(x)
    n = len(z)
    onehot = np.eye(len(OUTPUTS))[y]
    sample_w = np.asarray(class_weight, dtype=np.float64)[y] if class_weight else np.ones(n)
    sample_w = (sample_w / sample_w.mean())[:, None]
    weights, bias = _adam(
        z, len(OUTPUTS), lambda logits: (softmax(logits) - onehot) * sample_w / n, l2, steps, lr
    )
    return mean, scale, weights, bias


def fit_binary(
    x: np.ndarray, y: np.ndarray, *, l2: float = 1e-2, steps: int = 3000, lr: float = 0.1
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Binary logistic regression (y in {0, 1}) by full-batch Adam on standardised features:
    (mean, scale, weights (features, 1), bias (1,)), the "split" structure's layout."""
    mean, scale, z = _standardised(x)
    target = np.asarray(y, dtype=np.float64)[:, None]
    weights, bias = _adam(z, 1, lambda logits: (sigmoid(logits) - target) / len(z), l2, steps, lr)
    return mean, scale, weights, bias


def _standardised(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    return mean, scale, (x - mean) / scale


def _adam(
    z: np.ndarray, outputs: int, residual, l2: float, steps: int, lr: float
) -> tuple[np.ndarray, np.ndarray]:
    """(weights, bias) of a linear model over `z` by full-batch Adam; `residual(logits)` is the
    loss gradient with respect to the logits (already averaged over the rows), the weights
    carry an L2 penalty."""
    params = [np.zeros((z.shape[1], outputs)), np.zeros(outputs)]
    moments = [[np.zeros_like(p), np.zeros_like(p)] for p in params]
    for step in range(1, steps + 1):
        grad_logits = residual(z @ params[0] + params[1])
        grads = [z.T @ grad_logits + l2 * params[0], grad_logits.sum(axis=0)]
        for p, g, m in zip(params, grads, moments, strict=True):
            m[0] = 0.9 * m[0] + 0.1 * g
            m[1] = 0.999 * m[1] + 0.001 * g * g
            p -= lr * (m[0] / (1 - 0.9**step)) / (np.sqrt(m[1] / (1 - 0.999**step)) + 1e-8)
    return params[0], params[1]


def fit_split_regression(
    x: np.ndarray, y: np.ndarray, *, l2: float = 1e-2
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`fit_binary` over the "split" regression's inputs (`SPLIT_INPUTS`), laid out over every
    feature: the excluded columns get mean 0, scale 1 and weight 0."""
    mean, scale = np.zeros(len(FEATURES)), np.ones(len(FEATURES))
    weights = np.zeros((len(FEATURES), 1))
    mean[SPLIT_INPUTS], scale[SPLIT_INPUTS], weights[SPLIT_INPUTS], bias = fit_binary(
        x[:, SPLIT_INPUTS], y, l2=l2
    )
    return mean, scale, weights, bias


def fit_binary_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """The temperature minimising the negative log-likelihood of binary `y` (grid search)."""
    y = np.asarray(y, dtype=np.float64)
    best, best_nll = 1.0, float("inf")
    for t in np.arange(0.5, 3.01, 0.05):
        p = np.clip(sigmoid(logits / t), 1e-12, 1 - 1e-12)
        nll = -float(np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
        if nll < best_nll:
            best, best_nll = float(t), nll
    return best


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """The temperature minimising the negative log-likelihood of `y` (grid search)."""
    best, best_nll = 1.0, float("inf")
    for t in np.arange(0.5, 3.01, 0.05):
        p = softmax(logits / t)
        nll = -float(np.mean(np.log(p[np.arange(len(y)), y] + 1e-12)))
        if nll < best_nll:
            best, best_nll = float(t), nll
    return best
