"""Training data and fitting for the fusion labeller (conflictdesk.scoring.fusion).

HONEST SPLIT. Training pairs come from the RAMDocs TRAIN half and QACC `train.jsonl` only (the
same splits the NLI model trained on); figures are reported on the RAMDocs EVAL half and QACC
dev. The temperature is fitted on a question-level slice of the training pairs held out from
the regression, never on a reported set."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from conflictdesk.backends.base import NLI
from conflictdesk.evaluation.cases import (
    RELATIONS,
    Case,
    claim_match,
    evaluate,
    string_match,
)
from conflictdesk.scoring.fusion import (
    Classify,
    FusionModel,
    fit_logistic,
    fit_temperature,
    pair_features,
)
from conflictdesk.types import NLIScores


class ScoreCache:
    """NLI scores of (premise, hypothesis) pairs kept in a JSON Lines file, so feature
    extraction resumes where a killed run stopped."""

    def __init__(self, nli: NLI, path: Path, batch: int = 256) -> None:
        self.nli, self.path, self.batch = nli, Path(path), batch
        self.scores: dict[str, NLIScores] = {}
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                self.scores[row["k"]] = NLIScores(*row["s"])

    @staticmethod
    def key(pair: tuple[str, str]) -> str:
        return hashlib.sha256(json.dumps(pair).encode("utf-8")).hexdigest()[:24]

    def __call__(self, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], NLIScores]:
        missing = [p for p in pairs if self.key(p) not in self.scores]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for start in range(0, len(missing), self.batch):
            chunk = missing[start : start + self.batch]
            fresh = self.nli.classify(chunk)
            with open(self.path, "a", encoding="utf-8") as handle:
                for pair, score in zip(chunk, fresh, strict=True):
                    key = self.key(pair)
                    self.scores[key] = score
                    values = [score.entailment, score.neutral, score.contradiction]
                    handle.write(json.dumps({"k": key, "s": values}) + "\n")
        return {p: self.scores[self.key(p)] for p in pairs}


def case_pairs(cases: Sequence[Case]) -> tuple[list[tuple[str, str]], np.ndarray, np.ndarray]:
    """(claim, document) pairs of `cases`, their gold relation ids and their case index."""
    pairs, labels, groups = [], [], []
    for index, case in enumerate(cases):
        for text, gold in zip(case.documents, case.gold, strict=True):
            pairs.append((case.claim, text))
            labels.append(RELATIONS.index(gold))
            groups.append(index)
    return pairs, np.asarray(labels), np.asarray(groups)


def fit_fusion(
    x: np.ndarray, y: np.ndarray, groups: np.ndarray, model_id: str, *, l2: float = 1e-4
) -> FusionModel:
    """Fit the regression on 80% of the cases (by case), the temperature on the other 20%,
    then refit the regression on all of them with that temperature."""
    held = (groups * 2654435761 % 5) == 0
    mean, scale, w, b = fit_logistic(x[~held], y[~held], l2=l2)
    logits = ((x[held] - mean) / scale) @ w + b
    temperature = fit_temperature(logits, y[held])
    mean, scale, w, b = fit_logistic(x, y, l2=l2)
    return FusionModel(model_id, mean, scale, w, b, temperature)


def gated(pairs: Sequence[tuple[str, str]]) -> np.ndarray:
    """Pairs the relevance gate settles as IRRELEVANT before any model (as `label_claims`)."""
    from conflictdesk.scoring.label import shares_content

    return np.asarray([not shares_content(claim, text) for claim, text in pairs])


def predict_relations(
    probabilities: np.ndarray, gate: np.ndarray, groups: np.ndarray, n_cases: int
) -> list[list[str]]:
    """Per case, the argmax relation of each of its pairs (gated pairs IRRELEVANT)."""
    labels = np.where(gate, RELATIONS.index("IRRELEVANT"), probabilities.argmax(axis=1))
    rows: list[list[str]] = [[] for _ in range(n_cases)]
    for group, label in zip(groups, labels, strict=True):
        rows[int(group)].append(RELATIONS[int(label)])
    return rows


def nli_alone(x: np.ndarray) -> np.ndarray:
    """P(SUPPORTS, CONTRADICTS, IRRELEVANT) of the encoder on the whole document: the first
    three features (entailment, contradiction, neutral)."""
    return x[:, :3]


@dataclass
class CaseSet:
    """One data set's cases with their feature rows (pairs in case order)."""

    name: str
    cases: list[Case]
    x: np.ndarray
    y: np.ndarray
    groups: np.ndarray
    gate: np.ndarray

    def subset(self, name: str, keep: Sequence[bool]) -> CaseSet:
        """The cases where `keep` is true (e.g. one RAMDocs half), renumbered."""
        index = {old: new for new, old in enumerate(i for i, k in enumerate(keep) if k)}
        rows = np.asarray([int(g) in index for g in self.groups], dtype=bool)
        groups = np.asarray([index[int(g)] for g in self.groups[rows]], dtype=int)
        cases = [c for c, k in zip(self.cases, keep, strict=True) if k]
        return CaseSet(name, cases, self.x[rows], self.y[rows], groups, self.gate[rows])


def featurise(name: str, cases: list[Case], classify: Classify) -> CaseSet:
    """Feature rows of every (claim, document) pair of `cases`."""
    pairs, y, groups = case_pairs(cases)
    return CaseSet(name, cases, pair_features(pairs, classify), y, groups, gated(pairs))


def compare(case_set: CaseSet, model: FusionModel) -> dict[str, dict]:
    """Fusion, the encoder alone and the two answer-string baselines on the same cases."""
    n = len(case_set.cases)
    rows = {
        "fusion": predict_relations(model.probabilities(case_set.x), case_set.gate,
                                    case_set.groups, n),
        "nli_alone": predict_relations(nli_alone(case_set.x), case_set.gate, case_set.groups, n),
        "claim_only_string_match": [claim_match(c) for c in case_set.cases],
        "oracle_string_match": [string_match(c) for c in case_set.cases],
    }  # fmt: skip
    return {label: evaluate(case_set.cases, predicted) for label, predicted in rows.items()}


FUSION_NAME = "conflictdesk-fusion-lr"
FUSION_LICENCE = (
    "MIT (conflictdesk); fitted on features of RAMDocs (MIT) and QACC train (CC BY-SA 3.0)"
)


def load_sets(work: Path, threads: int) -> dict[str, CaseSet]:
    """Feature rows of RAMDocs (split into halves) and QACC train/dev, NLI scores cached."""
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config
    from conflictdesk.evaluation.cases import load_cases

    nli = load_backends(load_config(threads=threads), roles=("nli",)).nli
    classify = ScoreCache(nli, Path(work) / f"nli_scores-{nli.model_id}.jsonl")
    ramdocs = featurise("ramdocs", load_cases("ramdocs", "dev"), classify)
    halves = [c.half == "train" for c in ramdocs.cases]
    return {
        "RAMDocs train half": ramdocs.subset("RAMDocs train half", halves),
        "QACC train": featurise("QACC train", load_cases("qacc", "train"), classify),
        "RAMDocs eval half": ramdocs.subset("RAMDocs eval half", [not h for h in halves]),
        "QACC dev": featurise("QACC dev", load_cases("qacc", "dev"), classify),
    }


TRAINING_SETS = ("RAMDocs train half", "QACC train")


def train_fusion(
    work: Path,
    *,
    threads: int = 2,
    l2: float = 1e-4,
    models_dir: Path | None = None,
    write: bool = True,
) -> tuple[FusionModel, dict[str, CaseSet]]:
    """Fit on the training sets; with `write`, save models/fusion and its manifest entry."""
    sets = load_sets(work, threads)
    train = [sets[name] for name in TRAINING_SETS]
    offsets = np.cumsum([0] + [len(s.cases) for s in train[:-1]])
    x = np.concatenate([s.x for s in train])
    y = np.concatenate([s.y for s in train])
    groups = np.concatenate([s.groups + off for s, off in zip(train, offsets, strict=True)])
    model = fit_fusion(x, y, groups, FUSION_NAME, l2=l2)
    if write:
        model = write_model(model, models_dir)
    return model, sets


def write_model(model: FusionModel, models_dir: Path | None) -> FusionModel:
    """Write fusion.json and upsert the manifest entry; the model id gains its version."""
    from conflictdesk.backends.manifest import Manifest, entry_for
    from conflictdesk.backends.manifest import models_dir as default_dir

    base = Path(models_dir or default_dir())
    folder = base / "fusion"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fusion.json").write_text(json.dumps(model.to_json(), indent=1) + "\n", "utf-8")
    manifest = Manifest.load(base / "manifest.json")
    entry = entry_for(
        FUSION_NAME, "fusion", folder, licence=FUSION_LICENCE, base=base,
        source="fitted by scripts/train_fusion.py on conflictdesk-nli-minilm-int8 features",
        rebuild=".venv/bin/python scripts/train_fusion.py",
    )  # fmt: skip
    entry.extra = {"features": len(model.mean), "temperature": model.temperature}
    manifest.upsert(entry)
    manifest.save()
    return FusionModel(entry.model_id, model.mean, model.scale, model.weights, model.bias,
                       model.temperature)  # fmt: skip


def coverage_curve(case_set: CaseSet, model: FusionModel) -> list[dict[str, float]]:
    """Pair accuracy against the share of pairs whose calibrated confidence reaches t (gated
    pairs excluded: no model judged them)."""
    open_rows = ~case_set.gate
    p = model.probabilities(case_set.x[open_rows])
    confidence, correct = p.max(axis=1), p.argmax(axis=1) == case_set.y[open_rows]
    curve = []
    for t in (0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        kept = confidence >= t
        curve.append({
            "threshold": t, "coverage": float(kept.mean()) if len(kept) else 0.0,
            "accuracy": float(correct[kept].mean()) if kept.any() else 0.0,
        })  # fmt: skip
    return curve


def fusion_report(model: FusionModel, sets: dict[str, CaseSet]) -> dict:
    """Every set (training sets marked) with fusion, the encoder alone and the baselines."""
    out: dict = {"model": model.model_id, "temperature": model.temperature, "sets": {}}
    for name, case_set in sets.items():
        labellers = compare(case_set, model)
        detection = labellers["fusion"]["detection"]
        label = f"{name} (trained on)" if name in TRAINING_SETS else name
        out["sets"][label] = {
            "cases": detection["cases"], "conflicts": detection["conflicts"],
            "pairs": len(case_set.y), "labellers": labellers,
        }  # fmt: skip
    held_out = [s for n, s in sets.items() if n not in TRAINING_SETS]
    merged = CaseSet(
        "held out", [c for s in held_out for c in s.cases], np.concatenate([s.x for s in held_out]),
        np.concatenate([s.y for s in held_out]), np.zeros(0), np.concatenate([s.gate for s in held_out]),
    )  # fmt: skip
    out["coverage"] = coverage_curve(merged, model)
    return out
