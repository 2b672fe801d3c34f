"""The rows the NLI cross-encoder trains and stops on (scripts/train_nli.py): the original
recipe's pools and in-domain pairs, optionally replayed as a sample beside the newer sets of
nli_extra.py. Deterministic for a seed, so a resumed run sees the same rows."""

from __future__ import annotations

import random
from argparse import Namespace
from dataclasses import dataclass, field

from conflictdesk.training import claims, neutrals, nli_data, nli_extra, perturb

QACC_CALIB_SOURCE = "qacc_calib"


@dataclass
class RecipeRows:
    train: list[nli_data.NLIExample]
    held: list[nli_data.NLIExample]
    counts: dict[str, int] = field(default_factory=dict)


def qacc_calibration_question(question: str) -> bool:
    """A hashed 10% of QACC train questions is held out (calibration, early stopping)."""
    return claims._hash_int("calib:" + question) % 10 == 0


def _base_pool(args: Namespace, rng: random.Random) -> list[nli_data.NLIExample]:
    pool = nli_data.load_pool(nli_data.TRAIN_SPLITS)
    synthetic = [r for r in pool if r.source.startswith("conjnli/")]
    rng.shuffle(synthetic)
    return [r for r in pool if not r.source.startswith("conjnli/")] + synthetic[: args.conjnli_max]


def _neutral_rows(args, pool, qacc_train, rng) -> list[nli_data.NLIExample]:
    """Unrelated, same-document and contained-sentence pairs (neutrals.py); drawn last, so
    the recipe without them is unchanged."""
    if not (args.neutrals or args.contained):
        return []
    documents = list(dict.fromkeys(r.premise for r in pool))
    documents += [d["text"] for r in claims.load_ramdocs("train") for d in r["documents"]]
    documents += [c for r in qacc_train for c in r.get("contexts", [])]
    rows = neutrals.unrelated_pairs(pool, args.neutrals // 2, rng)
    rows += neutrals.same_document_pairs(documents, args.neutrals - len(rows), rng)
    rows += neutrals.contained_sentence_pairs(documents, args.contained, rng)
    return rows


def _qacc_held(qacc_cal: list[dict]) -> list[nli_data.NLIExample]:
    return [
        nli_data.NLIExample(
            p.document,
            p.claim,
            nli_data.LABEL_ID[claims.RELATION_TO_LABEL[p.relation]],
            QACC_CALIB_SOURCE,
        )
        for p in claims.qacc_claim_pairs(qacc_cal)
    ]


def _original_parts(args: Namespace) -> tuple[list, list, list, dict[str, int]]:
    """(base rows, neutral rows, held-out rows, counts) of the original recipe."""
    rng = random.Random(args.seed)
    pool = _base_pool(args, rng)
    swaps = list(nli_data.swap_contradictions(pool))
    rng.shuffle(swaps)
    swaps = swaps[: int(len(swaps) * args.swap_share)]
    rules = perturb.rule_pairs([r.premise for r in pool], args.rules, seed=args.seed)
    ram = claims.ramdocs_training_pairs(claims.load_ramdocs("train"), seed=args.seed)
    qacc_all = claims.load_qacc("train")
    qacc_train = [r for r in qacc_all if not qacc_calibration_question(r["question"])]
    qacc_cal = [r for r in qacc_all if qacc_calibration_question(r["question"])]
    qacc = claims.qacc_training_pairs(qacc_train, seed=args.seed)
    base = pool + swaps + rules + (ram + qacc) * args.indomain_repeat
    extra_neutrals = _neutral_rows(args, pool, qacc_train, rng)
    held = [r for s in nli_data.HELDOUT_SPLITS for r in nli_data.read_split(s)]
    counts = {
        "pool": len(pool),
        "swaps": len(swaps),
        "rules": len(rules),
        "ramdocs_train": len(ram),
        "qacc_train": len(qacc),
        "neutrals": len(extra_neutrals),
    }
    return base, extra_neutrals, held + _qacc_held(qacc_cal), counts


def original_rows(args: Namespace) -> RecipeRows:
    """The shipped model's recipe: NLI pools, swapped contradictions, rule pairs, RAMDocs
    TRAIN half and QACC train claim pairs, neutrals; held out: nli_data.HELDOUT_SPLITS and a
    hashed 10% of QACC train questions. With --replay only a fixed sample of the base rows
    (not of the neutrals) is kept: a continuation on newer data keeps the old skills."""
    base, extra_neutrals, held, counts = _original_parts(args)
    if args.replay:
        base = list(base)
        random.Random(args.seed + 1).shuffle(base)
        base = base[: args.replay]
        counts = {**counts, "replayed": len(base)}
    return RecipeRows(base + extra_neutrals, held, counts)


def parse_extra(spec: str) -> dict[str, int]:
    """ "conflictqa=12000,fever=0" -> {name: cap}; a cap of 0 takes every training row."""
    caps: dict[str, int] = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        name, _, cap = item.partition("=")
        if name not in nli_extra.EXTRA_SETS:
            raise ValueError(f"unknown extra set {name!r} (known: {sorted(nli_extra.EXTRA_SETS)})")
        caps[name] = int(cap or 0)
    return caps


def extra_rows(spec: str, held_per_set: int, seed: int) -> RecipeRows:
    """Training rows (capped per set) and a held-out sample of each newer set."""
    train: list[nli_data.NLIExample] = []
    held: list[nli_data.NLIExample] = []
    counts: dict[str, int] = {}
    for name, cap in parse_extra(spec).items():
        rng = random.Random(f"{seed}:{name}")
        rows = nli_extra.load_extra(name, "train")
        rng.shuffle(rows)
        rows = rows[:cap] if cap else rows
        held_rows = nli_extra.load_extra(name, "heldout")
        rng.shuffle(held_rows)
        train += rows
        held += held_rows[:held_per_set]
        counts[f"{name}_train"] = len(rows)
    return RecipeRows(train, held, counts)


def build_rows(args: Namespace) -> RecipeRows:
    """All training and held-out rows of a run (the original recipe, plus --extra sets)."""
    rows = original_rows(args)
    if args.extra:
        extra = extra_rows(args.extra, args.extra_held, args.seed)
        rows = RecipeRows(
            rows.train + extra.train, rows.held + extra.held, {**rows.counts, **extra.counts}
        )
    if args.held_limit and len(rows.held) > args.held_limit:
        # A fixed sample keeps early stopping and calibration affordable on a busy CPU.
        rows.held = random.Random(args.seed + 2).sample(rows.held, args.held_limit)
    rows.counts.update(train_rows=len(rows.train), heldout_rows=len(rows.held))
    return rows
