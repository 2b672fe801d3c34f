"""Loading the NLI pools (the data folder's nli/) and keeping evaluation sets out of training.

Which split is what follows the data README: ANLI and every dev/test set of SNLI, MultiNLI and
the diagnostic sets are evaluation only; `nli_new_protocols/val_*` and `cad_snli/dev_*` are not
evaluation sets, so some of them train and some are held out for calibration and early
stopping."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from conflictdesk.errors import UsageError

LABELS: tuple[str, ...] = ("entailment", "neutral", "contradiction")
LABEL_ID = {name: index for index, name in enumerate(LABELS)}


def data_root() -> Path:
    """The `data_dir` setting (config file < `CONFLICTDESK_DATA` < flags, conflictdesk.config)."""
    from conflictdesk.config import load_settings

    folder = load_settings().data_dir
    if folder is None:
        raise UsageError(
            "no data folder: set CONFLICTDESK_DATA, or data_dir in the configuration file"
        )
    return folder


# Train-worthy pools (data README). conjnli's adversarial set is rule-generated, not human.
TRAIN_SPLITS: tuple[str, ...] = (
    "nli_new_protocols/train_base",
    "nli_new_protocols/train_contrast",
    "nli_new_protocols/train_edit_other",
    "nli_new_protocols/train_edit_premise",
    "nli_new_protocols/val_contrast",
    "nli_new_protocols/val_edit_other",
    "nli_new_protocols/val_edit_premise",
    "nli_new_protocols/val_paragraph",
    "semi_automatic_nli/train_base_wiki",
    "semi_automatic_nli/train_sim_wiki",
    "semi_automatic_nli/train_translate_wiki",
    "cad_snli/train_original",
    "cad_snli/train_revised_hypothesis",
    "cad_snli/train_revised_premise",
    "taxinli_mnli/mnli_train_subset",
    "conjnli/train_adversarial_SYNTHETIC",
)
# Not evaluation sets either, but never trained on: calibration (temperature) + early stopping.
HELDOUT_SPLITS: tuple[str, ...] = (
    "nli_new_protocols/val_base",
    "cad_snli/dev_original",
    "cad_snli/dev_revised_hypothesis",
    "cad_snli/dev_revised_premise",
)
# Evaluation only: never in training (ANLI is also CC BY-NC).
EVAL_SPLITS: tuple[str, ...] = (
    "snli/dev",
    "mnli_partial/dev_matched_union",
    "anli/dev_r1",
    "anli/dev_r2",
    "breaking_nli/test",
    "negation_nli/test_mnli",
    "negation_nli/test_snli",
    "fever_symmetric/dev_v0.2",
    "med/test",
    "conjnli/dev",
)
FORBIDDEN_PREFIXES: tuple[str, ...] = (
    "anli/",
    "snli/",
    "mnli_partial/",
    "taxinli_mnli/mnli_dev",
    "breaking_nli/",
    "negation_nli/",
    "fever_symmetric/",
    "med/",
    "conjnli/dev",
    "semi_automatic_nli/test",
    "cad_snli/test",
)


@dataclass(frozen=True)
class NLIExample:
    premise: str
    hypothesis: str
    label: int  # index into LABELS
    source: str  # split name or builder name


def check_trainable(split: str) -> None:
    """Raise ValueError for any evaluation split (the guard every training loader calls)."""
    if split.startswith(FORBIDDEN_PREFIXES) or split in EVAL_SPLITS:
        raise ValueError(f"{split} is an evaluation split and must not be trained on")


def read_split(split: str, root: Path | None = None) -> list[NLIExample]:
    """All rows of one split (`dataset/split`), labels as indices; rows with another label
    are skipped."""
    path = (root or data_root()) / "nli" / f"{split}.jsonl.gz"
    rows: list[NLIExample] = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            raw = json.loads(line)
            label = LABEL_ID.get(raw.get("label", ""))
            premise, hypothesis = raw.get("premise"), raw.get("hypothesis")
            if label is None or not premise or not hypothesis:
                continue
            rows.append(NLIExample(premise.strip(), hypothesis.strip(), label, split))
    return rows


def load_pool(splits: Iterable[str], root: Path | None = None) -> list[NLIExample]:
    """Training rows from `splits`, refusing any evaluation split."""
    rows: list[NLIExample] = []
    for split in splits:
        check_trainable(split)
        rows.extend(read_split(split, root))
    return rows


def swap_contradictions(rows: Iterable[NLIExample]) -> Iterator[NLIExample]:
    """Symmetric augmentation: contradiction is symmetric, so (h, p) is also a contradiction."""
    for row in rows:
        if row.label == LABEL_ID["contradiction"]:
            yield NLIExample(row.hypothesis, row.premise, row.label, row.source + "+swap")


def majority_accuracy(labels: Iterable[int]) -> float:
    """Accuracy of always predicting the most frequent label."""
    values = list(labels)
    if not values:
        return 0.0
    return max(values.count(v) for v in set(values)) / len(values)
