"""Stage-1 pair-detector data sets by role: training, development (calibration, τ_c) and
held-out (reported), each a dict of named `TextPair` lists. Splits are question-level
everywhere: ConflictQA and PERSPECTRUM by their own split files, QACC train/dev, the RAMDocs
TRAIN/EVAL halves. Large sets are subsampled with a fixed seed (NLI features cost about
0.1 s a pair on two shared cores); the sizes are part of the recorded configuration."""

from __future__ import annotations

import random

from conflictdesk.training import claims, pairs
from conflictdesk.training.pairs import TextPair

SIZES = {
    "conflictqa_train": 5000,
    "perspectrum_train": 1500,
    "indomain_train_negatives": 1500,
    "conflictqa_dev": 500,
    "perspectrum_dev": 400,
    "conflictqa_test": 1000,
    "perspectrum_test": 600,
    "qacc_dev": 600,
    "ramdocs_eval": 600,
}


def _sample(data: list[TextPair], name: str, seed: int) -> list[TextPair]:
    size = SIZES.get(name, 0)
    if not size or len(data) <= size:
        return data
    return random.Random(f"{seed}:{name}").sample(data, size)


def _indomain_train(seed: int) -> list[TextPair]:
    """QACC train and the RAMDocs TRAIN half: every conflict, a sample of the rest."""
    data = pairs.qacc_pairs(claims.load_qacc("train"), seed=seed) + pairs.ramdocs_pairs(
        claims.load_ramdocs("train")
    )
    negatives = _sample([p for p in data if not p.conflict], "indomain_train_negatives", seed)
    return [p for p in data if p.conflict] + negatives


def training_sets(seed: int = 42) -> dict[str, list[TextPair]]:
    """ConflictQA train (sample), PERSPECTRUM train, QACC train and the RAMDocs TRAIN half."""
    return {
        "indomain_train": _indomain_train(seed),
        "perspectrum_train": _sample(pairs.perspectrum_pairs("train"), "perspectrum_train", seed),
        "conflictqa_train": _sample(pairs.conflictqa_pairs("train"), "conflictqa_train", seed),
    }


def validation_group(group: str) -> bool:
    """10 % of training questions (by hash): early stopping and calibration, not fitting."""
    return claims._hash_int("pair-val:" + group) % 10 == 0


def dev_sets(seed: int = 42) -> dict[str, list[TextPair]]:
    """ConflictQA dev and PERSPECTRUM dev (samples) and the validation questions of the
    in-domain training pairs: calibration and τ_c, never reported as held-out figures."""
    out = {
        name: _sample(loader("dev"), f"{name}_dev", seed)
        for name, loader in (
            ("conflictqa", pairs.conflictqa_pairs),
            ("perspectrum", pairs.perspectrum_pairs),
        )
    }
    out["indomain_val"] = [p for p in _indomain_train(seed) if validation_group(p.group)]
    return out


def heldout_sets(seed: int = 42) -> dict[str, list[TextPair]]:
    """Reported sets, never trained or calibrated on."""
    return {
        "conflictqa_test": _sample(pairs.conflictqa_pairs("test"), "conflictqa_test", seed),
        "perspectrum_test": _sample(pairs.perspectrum_pairs("test"), "perspectrum_test", seed),
        "ramdocs_eval": _sample(
            pairs.ramdocs_pairs(claims.load_ramdocs("eval")), "ramdocs_eval", seed
        ),
        "qacc_dev": _sample(pairs.qacc_pairs(claims.load_qacc("dev"), seed=1), "qacc_dev", seed),
    }
