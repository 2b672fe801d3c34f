"""Soft targets for distilling the MPNet tier into the MiniLM cross-encoder.

The teacher (an exported NLI folder, by default `models/nli_mpnet`) labels every training row
once; its calibrated probabilities are kept in a JSON Lines cache under the run's work folder,
so a killed labelling resumes where it stopped. The student's loss is then
(1 − w)·CE(gold) + w·CE(teacher), the second a cross-entropy against the teacher's
distribution (its KL divergence plus a constant): the MiniLM learns where MPNet hesitates
without forgetting the gold labels where MPNet is wrong (negation, temporal order)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from conflictdesk.training.nli_data import LABELS, NLIExample


def teacher_probabilities(
    rows: Sequence[NLIExample], teacher_dir: Path, work: Path, threads: int = 2,
    log=print,
) -> np.ndarray:  # fmt: skip
    """[len(rows), 3] probabilities in LABELS order from the teacher folder's cross-encoder."""
    from conflictdesk.backends.onnx_nli import OnnxCrossEncoder
    from conflictdesk.training.fusion import ScoreCache

    teacher = OnnxCrossEncoder(Path(teacher_dir), threads=threads, batch_size=32)
    cache = ScoreCache(teacher, Path(work) / f"teacher-{Path(teacher_dir).name}.jsonl", batch=512)
    pairs = [(r.premise, r.hypothesis) for r in rows]
    unique = list(dict.fromkeys(pairs))
    for start in range(0, len(unique), 4096):
        cache(unique[start : start + 4096])
        log({"event": "teacher", "labelled": min(start + 4096, len(unique)), "of": len(unique)})
    scores = cache(unique)
    return np.array(
        [[getattr(scores[p], label) for label in LABELS] for p in pairs], dtype=np.float32
    )


def distillation_loss(logits, gold, soft, weight: float):
    """(1 − weight)·CE(logits, gold) + weight·CE(logits, soft); torch tensors."""
    import torch

    log_p = torch.log_softmax(logits, dim=-1)
    hard = torch.nn.functional.nll_loss(log_p, gold)
    if weight <= 0:
        return hard
    return (1 - weight) * hard + weight * -(soft * log_p).sum(dim=-1).mean()


IN_DOMAIN = ("ramdocs", "qacc")  # claim × document rows built from the training questions


def gold_where_in_domain(
    soft: np.ndarray, rows: Sequence[NLIExample], prefixes: Sequence[str] = IN_DOMAIN
) -> np.ndarray:
    """The teacher's targets with the in-domain rows' replaced by their one-hot gold labels:
    there the gold is the annotators' and the teacher is no better than the student."""
    out = soft.copy()
    for i, row in enumerate(rows):
        if row.source.startswith(tuple(prefixes)):
            out[i] = 0.0
            out[i, row.label] = 1.0
    return out


def distilled_rebuild(argv: Sequence[str], start_commit: str) -> str:
    """The manifest's rebuild command for a distilled model: the run's own arguments (recipes
    differ by one --distil-weight or --no-distil-in-domain), train then export, in a checkout
    of `start_commit`, whose models/nli and models/nli_mpnet are the start and the teacher."""
    rest, skip = [], False
    for arg in argv:
        if skip or arg.startswith("--stage="):
            skip = False
        elif arg == "--stage":
            skip = True
        else:
            rest.append(arg)
    command = ".venv/bin/python scripts/train_nli.py --stage {} " + shlex.join(rest)
    return (f"{command.format('train')}; {command.format('export')} (in a checkout of "
            f"{start_commit}: its models/nli and models/nli_mpnet are the start and the teacher)")  # fmt: skip
