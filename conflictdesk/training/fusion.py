"""Training data and fitting for the fusion labeller (conflictdesk.scoring.fusion).

HONEST SPLIT. Training pairs come from the RAMDocs TRAIN half and QACC `train.jsonl` only (the
same splits the NLI model trained on); figures are reported on the RAMDocs EVAL half and QACC
dev. The class weights and decision offsets are chosen by cross-validation grouped by question
on the training cases (`conflictdesk.training.fusion_cv`); the temperature is fitted on a
question-level slice of the training pairs held out from the regression, never on a reported
set."""

from __future__ import annotations

import dataclasses
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
    FEATURES,
    Classify,
    FusionModel,
    decide,
    fit_binary_temperature,
    fit_logistic,
    fit_split_regression,
    fit_temperature,
    pair_features,
    sigmoid,
    softmax,
    split_relations,
)
from conflictdesk.training.fusion_cv import (
    Choice,
    bootstrap_difference,
    case_auc,
    choose_decision,
    choose_split,
    fold_of,
    rank_auc,
    relation_rows,
    stacked,
    threshold_ceiling,
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
    x: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    model_id: str,
    *,
    l2: float = 1e-4,
    class_weight: Sequence[float] | None = None,
    offsets: tuple[float, float, float] = (0.0, 0.0, 0.0),
) -> FusionModel:
    """Fit the regression on 80% of the cases (by case), the temperature on the other 20%,
    then refit the regression on all of them with that temperature."""
    held = fold_of(groups) == 0
    mean, scale, w, b = fit_logistic(x[~held], y[~held], l2=l2, class_weight=class_weight)
    logits = ((x[held] - mean) / scale) @ w + b
    temperature = fit_temperature(logits, y[held])
    mean, scale, w, b = fit_logistic(x, y, l2=l2, class_weight=class_weight)
    return FusionModel(model_id, mean, scale, w, b, temperature, offsets)


def fit_split(
    x: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    model_id: str,
    *,
    l2: float = 1e-4,
    threshold: float = 0.5,
) -> FusionModel:
    """The "split" structure: the binary regression on the gold CONTRADICTS and IRRELEVANT
    pairs of 80% of the cases (by case), its temperature on the other 20%, then refit on all
    of them with that temperature."""
    held = fold_of(groups) == 0
    rows = y != RELATIONS.index("SUPPORTS")
    contra = (y == RELATIONS.index("CONTRADICTS")).astype(float)
    fit_rows = rows & ~held
    mean, scale, w, b = fit_split_regression(x[fit_rows], contra[fit_rows], l2=l2)
    logits = (((x[rows & held] - mean) / scale) @ w + b)[:, 0]
    temperature = fit_binary_temperature(logits, contra[rows & held])
    mean, scale, w, b = fit_split_regression(x[rows], contra[rows], l2=l2)
    return FusionModel(model_id, mean, scale, w, b, temperature, structure="split",
                       threshold=threshold)  # fmt: skip


def contra_regression(l2: float):
    """`fit_contra(x, y)` for `choose_split`: the binary regression's probability function."""

    def fit(x: np.ndarray, y: np.ndarray) -> object:
        mean, scale, w, b = fit_split_regression(x, y, l2=l2)
        return lambda z: sigmoid((((z - mean) / scale) @ w + b)[:, 0])

    return fit


def regression(l2: float):
    """`fit(x, y, class_weight)` for `choose_decision`: a regression's probability function."""

    def fit(x: np.ndarray, y: np.ndarray, class_weight) -> object:
        mean, scale, w, b = fit_logistic(x, y, l2=l2, class_weight=class_weight)
        return lambda z: softmax(((z - mean) / scale) @ w + b)

    return fit


def gated(pairs: Sequence[tuple[str, str]]) -> np.ndarray:
    """Pairs the relevance gate settles as IRRELEVANT before any model (as `label_claims`)."""
    from conflictdesk.scoring.label import shares_content

    return np.asarray([not shares_content(claim, text) for claim, text in pairs])


def predict_relations(
    probabilities: np.ndarray,
    gate: np.ndarray,
    groups: np.ndarray,
    n_cases: int,
    offsets: Sequence[float] = (0.0, 0.0, 0.0),
) -> list[list[str]]:
    """Per case, the relation of each of its pairs: argmax of log P + `offsets` (gated pairs
    IRRELEVANT)."""
    return relation_rows(decide(probabilities, offsets), gate, groups, n_cases)


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
        "fusion": relation_rows(model.relations(case_set.x), case_set.gate, case_set.groups, n),
        "nli_alone": predict_relations(nli_alone(case_set.x), case_set.gate, case_set.groups, n),
        "claim_only_string_match": [claim_match(c) for c in case_set.cases],
        "oracle_string_match": [string_match(c) for c in case_set.cases],
    }  # fmt: skip
    return {label: evaluate(case_set.cases, predicted) for label, predicted in rows.items()}


FUSION_NAME = "conflictdesk-fusion-lr"
FUSION_LICENCE = (
    "MIT (conflictdesk); fitted on features of RAMDocs (MIT) and QACC train (CC BY-SA 3.0)"
)


def load_sets(work: Path, threads: int, nli: NLI | None = None) -> dict[str, CaseSet]:
    """Feature rows of RAMDocs (split into halves) and QACC train/dev, NLI scores cached;
    `nli` defaults to the configured one."""
    from conflictdesk.evaluation.cases import load_cases

    nli = nli or configured_nli(threads)
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
    structure: str = "split",
) -> tuple[FusionModel, dict[str, CaseSet], list[Choice]]:
    """Choose the "split" threshold (or the "softmax" class weights and decision offsets) by
    grouped cross-validation on the training sets, fit on all of them; with `write`, save
    models/fusion and its manifest entry. Returns the model, every set, and the candidates
    best first."""
    nli = configured_nli(threads)
    sets = load_sets(work, threads, nli)
    train = [sets[name] for name in TRAINING_SETS]
    x, y, groups, _ = stacked(train)
    if structure == "split":
        choices = choose_split(train, contra_regression(l2), split_relations)
        model = fit_split(x, y, groups, FUSION_NAME, l2=l2, threshold=choices[0].threshold)
    else:
        choices = choose_decision(train, regression(l2), decide)
        best = choices[0]
        model = fit_fusion(x, y, groups, FUSION_NAME, l2=l2, class_weight=best.class_weight,
                           offsets=best.offsets)  # fmt: skip
    if write:
        model = write_model(model, models_dir, nli.model_id)
    return model, sets, choices


def configured_nli(threads: int) -> NLI:
    """The NLI model (the cascade, as configured) whose scores the fusion features read."""
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config

    return load_backends(load_config(threads=threads), roles=("nli",), with_fusion=False).nli


def write_model(model: FusionModel, models_dir: Path | None, nli_id: str) -> FusionModel:
    """Write fusion.json (recording `nli_id`, the NLI model whose scores it was fitted on) and
    upsert the manifest entry; the model id gains its version."""
    from conflictdesk.backends.manifest import Manifest, entry_for
    from conflictdesk.backends.manifest import models_dir as default_dir

    base = Path(models_dir or default_dir())
    folder = base / "fusion"
    folder.mkdir(parents=True, exist_ok=True)
    model = dataclasses.replace(model, fitted_on=nli_id)
    (folder / "fusion.json").write_text(json.dumps(model.to_json(), indent=1) + "\n", "utf-8")
    manifest = Manifest.load(base / "manifest.json")
    entry = entry_for(
        FUSION_NAME, "fusion", folder, licence=FUSION_LICENCE, base=base,
        source=f"fitted by scripts/train_fusion.py on features of {nli_id}",
        rebuild=".venv/bin/python scripts/train_fusion.py",
    )  # fmt: skip
    entry.extra = {"features": len(model.mean), "temperature": round(model.temperature, 4),
                   "structure": model.structure, "offsets": list(model.offsets),
                   "threshold": round(float(model.threshold), 4)}  # fmt: skip
    manifest.upsert(entry)
    manifest.save()
    return dataclasses.replace(model, model_id=entry.model_id)


def coverage_curve(case_set: CaseSet, model: FusionModel) -> list[dict[str, float]]:
    """Pair accuracy against the share of pairs whose calibrated confidence reaches t (gated
    pairs excluded: no model judged them)."""
    open_rows = ~case_set.gate
    p = model.probabilities(case_set.x[open_rows])
    chosen = model.relations(case_set.x[open_rows])
    confidence = p[np.arange(len(p)), chosen]
    correct = chosen == case_set.y[open_rows]
    curve = []
    for t in (0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        kept = confidence >= t
        curve.append({
            "threshold": t, "coverage": float(kept.mean()) if len(kept) else 0.0,
            "accuracy": float(correct[kept].mean()) if kept.any() else 0.0,
        })  # fmt: skip
    return curve


def fusion_report(
    model: FusionModel, sets: dict[str, CaseSet], choices: Sequence[Choice] = ()
) -> dict:
    """Every set (training sets marked) with fusion, the encoder alone and the baselines; the
    cross-validated choice; per held-out set, how sure the conflict-F1 difference is; and
    whether fusion beats both the encoder alone and the string match everywhere held out."""
    out: dict = {"model": model.model_id, "temperature": model.temperature,
                 "structure": model.structure, "threshold": model.threshold,
                 "offsets": list(model.offsets), "sets": {}}  # fmt: skip
    out["selection"] = [
        {"class_weight": c.class_weight, "offsets": list(c.offsets), "score": c.score,
         "threshold": c.threshold, "per_set": dict(zip(TRAINING_SETS, c.per_set, strict=True))}
        for c in choices[:5]
    ]  # fmt: skip
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
    out["held_out"] = {name: held_out_check(s, model, out["sets"][name]["labellers"])
                       for name, s in sets.items() if name not in TRAINING_SETS}  # fmt: skip
    out["default"] = all(check["wins"] for check in out["held_out"].values())
    out["encoder_separation"] = {name: encoder_separation(s) for name, s in sets.items()}
    return out


SEPARATION_FEATURES = ("doc_contra", "qa_contra")


def encoder_separation(case_set: CaseSet) -> dict[str, float]:
    """Ranking AUC of the encoder's contradiction scores for gold CONTRADICTS against gold
    IRRELEVANT pairs (ungated): far higher on a set the encoder was trained on than on a
    held-out one means the training features overstate the encoder."""
    keep = ~case_set.gate & (case_set.y != RELATIONS.index("SUPPORTS"))
    positive = case_set.y[keep] == RELATIONS.index("CONTRADICTS")
    return {name: rank_auc(case_set.x[keep, FEATURES.index(name)], positive)
            for name in SEPARATION_FEATURES}  # fmt: skip


RIVALS = ("nli_alone", "claim_only_string_match")


def held_out_check(case_set: CaseSet, model: FusionModel, labellers: dict) -> dict:
    """Does fusion beat the encoder alone and the claim-only string match on conflict F1 and
    relation macro-F1; the case-level ranking AUC of each model's largest P(CONTRADICTS); a
    paired bootstrap of the conflict-F1 difference fusion minus the encoder alone."""

    def figures(label: str) -> tuple[float, float]:
        m = labellers[label]
        return m["detection"]["f1"], m["relations"]["macro_f1"]

    wins = all(a > b for rival in RIVALS for a, b in zip(figures("fusion"), figures(rival)))
    n = len(case_set.cases)
    verdicts = {
        label: ["SUPPORTS" in row and "CONTRADICTS" in row
                for row in relation_rows(labels, case_set.gate, case_set.groups, n)]
        for label, labels in (
            ("fusion", model.relations(case_set.x)),
            ("nli_alone", nli_alone(case_set.x).argmax(axis=1)),
        )
    }  # fmt: skip
    gold = [c.conflict for c in case_set.cases]
    return {
        "wins": wins,
        "ceiling": ceiling(case_set, model),
        "case_auc": {"fusion": case_auc(model.probabilities(case_set.x), case_set),
                     "nli_alone": case_auc(nli_alone(case_set.x), case_set)},
        "bootstrap": bootstrap_difference(gold, verdicts["fusion"], verdicts["nli_alone"]),
    }  # fmt: skip


def ceiling(case_set: CaseSet, model: FusionModel) -> dict[str, float] | None:
    """The best conflict F1 any threshold of the "split" regression reaches on `case_set`,
    the threshold chosen on the set itself (`fusion_cv.threshold_ceiling`): what no choice of
    threshold can pass with this encoder and these features. None for "softmax"."""
    if model.structure != "split":
        return None
    raw = sigmoid(model.logits(case_set.x)[:, 0])
    best, threshold = threshold_ceiling(case_set.x, raw, case_set, split_relations)
    return {"f1": best, "threshold": threshold}
