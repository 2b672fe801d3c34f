"""The newer NLI training sets in ../shared/data (ConflictQA NLI rows, FEVER, Fool Me Twice,
WiCE, TRACIE) as NLIExample rows, each with a training side and a held-out side.

Which file trains and which is held out follows each folder's README (all five are training
data, none is an evaluation set of this project): ConflictQA trains on `nli_train` (split by
question upstream) and holds out `nli_dev`; FEVER ships only its dev file, split here by a hash
of the claim (10% held out); FM2 trains on `test` and holds out `dev`; WiCE trains on
`train_partial` and `test` and holds out `dev`; TRACIE trains on `train` and holds out `test`.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

from conflictdesk.training.nli_data import LABEL_ID, NLIExample, data_root

# name -> (training files, held-out files), relative to the data root.
EXTRA_SETS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "conflictqa": (
        ("conflictqa_strategyqa/nli_train.jsonl.gz",),
        ("conflictqa_strategyqa/nli_dev.jsonl.gz",),
    ),
    "fever": (("fever_rte/dev.jsonl.gz",), ("fever_rte/dev.jsonl.gz",)),
    "fm2": (("fm2/test.jsonl.gz",), ("fm2/dev.jsonl.gz",)),
    "wice": (("wice/train_partial.jsonl.gz", "wice/test.jsonl.gz"), ("wice/dev.jsonl.gz",)),
    "tracie": (("tracie/train.jsonl.gz",), ("tracie/test.jsonl.gz",)),
}
HASH_SPLIT = {"fever"}  # one file, split by a hash of the claim
HELDOUT_PERCENT = 10


def claim_held_out(claim: str) -> bool:
    """A stable 10% of claims (sha1 of the normalised claim) is held out."""
    digest = hashlib.sha1(" ".join(claim.lower().split()).encode("utf-8")).hexdigest()
    return int(digest[:8], 16) % 100 < HELDOUT_PERCENT


def read_rows(path: Path, source: str) -> Iterator[NLIExample]:
    """Rows of one gzipped JSONL file with a known label and both texts."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            raw = json.loads(line)
            label = LABEL_ID.get(raw.get("label", ""))
            premise = (raw.get("premise") or "").strip()
            hypothesis = (raw.get("hypothesis") or "").strip()
            if label is not None and premise and hypothesis:
                yield NLIExample(premise, hypothesis, label, source)


def load_extra(name: str, side: str, root: Path | None = None) -> list[NLIExample]:
    """The `train` or `heldout` rows of one extra set (source = "<name>/<side>")."""
    if side not in ("train", "heldout"):
        raise ValueError(f"side must be 'train' or 'heldout', not {side!r}")
    train_files, held_files = EXTRA_SETS[name]
    files = train_files if side == "train" else held_files
    base = root or data_root()
    rows = [row for f in files for row in read_rows(base / f, f"{name}/{side}")]
    if name in HASH_SPLIT:
        keep_held = side == "heldout"
        rows = [row for row in rows if claim_held_out(row.hypothesis) == keep_held]
    return rows
