"""ConflictScore's conflict detection and claim × document labelling, Table 2 style, on
RAMDocs and QACC dev beside string-match baselines; `scripts/eval_conflictscore.py` is its
command line (its help text gives the case definitions and baselines).

`DetectionEval` holds what used to be the script's flags."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conflictdesk.evaluation.cases import (
    Case,
    claim_match,
    detection_metrics,
    evaluate,
    load_cases,
    ratio,
    string_match,
)
from conflictdesk.scoring.label import DEFAULT_LABELLER

# Two-stage routing target: the encoder settles a pair when its accuracy on pairs at least
# that confident is this high on training data.
CALIBRATION_TARGET_ACCURACY = 0.90


@dataclass(frozen=True)
class DetectionEval:
    """Which cases and which labeller (see `conflictdesk detect --help`)."""

    dataset: str = "all"  # ramdocs | qacc | all
    limit: int | None = None
    labeller: str = DEFAULT_LABELLER
    llm: Path | None = None
    threads: int = 2
    gate: bool = True
    device: str = "cpu"
    verdict: str = "rule"  # the question-level decision: the paper's rule or the verdict model


def model_predictor(args: DetectionEval, with_nli: bool = False) -> Any:
    """detect() on the embedded NLI model (and the GGUF model when the labeller needs it)."""
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config
    from conflictdesk.scoring import detect

    roles = ("nli",) if args.labeller in ("nli", "fusion") else ("nli", "llm")
    config = load_config(threads=args.threads, device=args.device, llm_path=args.llm)
    backends = load_backends(config, roles=roles)

    def predict(case: Case) -> list[Any]:
        return list(detection(case).claim.judgments)

    def detection(case: Case) -> Any:
        return detect(case.claim, list(case.documents), backends, labeller=args.labeller,
                      gate=args.gate, verdict=args.verdict)  # fmt: skip

    if args.verdict != "rule":
        return detection, backends.nli.model_id

    if with_nli:
        return predict, backends.nli.model_id, backends.nli
    return predict, backends.nli.model_id


# -------------------------------------------------------------------------------- metrics


def gate_check(cases: Sequence[Case]) -> dict[str, Any]:
    """How many pairs the relevance gate settles as IRRELEVANT, and their gold relations."""
    from conflictdesk.scoring.label import shares_content

    gold = Counter(
        g for case in cases for text, g in zip(case.documents, case.gold)
        if not shares_content(case.claim, text)
    )  # fmt: skip
    return {"gated": sum(gold.values()), "pairs": sum(len(c.gold) for c in cases),
            "gold_of_gated": dict(gold)}  # fmt: skip


# ----------------------------------------------------------------------------- reporting


def slices(args: DetectionEval) -> list[tuple[str, list[Case]]]:
    out = []
    if args.dataset in ("ramdocs", "all"):
        cases = load_cases("ramdocs", "dev")[: args.limit]
        out.append(("RAMDocs eval half", [c for c in cases if c.half == "eval"]))
        out.append(("RAMDocs all (half seen in training)", cases))
    if args.dataset in ("qacc", "all"):
        out.append(("QACC dev", load_cases("qacc", "dev")[: args.limit]))
    return out


def run_eval(args: DetectionEval) -> dict[str, Any]:
    predict, model_id = model_predictor(args)
    report: dict[str, Any] = {
        "model": model_id, "labeller": args.labeller, "gate": args.gate,
        "verdict": args.verdict, "slices": {},
    }  # fmt: skip
    cache: dict[tuple[str, str], tuple[list[str], bool | None]] = {}
    for name, cases in slices(args):
        start = time.perf_counter()
        for case in cases:
            key = (case.dataset, case.question)
            if key not in cache:
                cache[key] = _relations_and_call(predict(case))
        report["slices"][name] = {
            "model": _evaluate_calls(cases, [cache[(c.dataset, c.question)] for c in cases]),
            "baseline": evaluate(cases, [claim_match(c) for c in cases]),
            "oracle_baseline": evaluate(cases, [string_match(c) for c in cases]),
            "always_conflict": detection_metrics([c.conflict for c in cases], [True] * len(cases)),
            "gate": gate_check(cases) if args.gate else None,
            "seconds": round(time.perf_counter() - start, 1),
        }
    return report


def _relations_and_call(prediction: Any) -> tuple[list[str], bool | None]:
    """Relation names of a prediction (judgments, or a Detection), and its conflict call when
    it is a Detection (None: the paper's rule over the relations decides)."""
    if isinstance(prediction, list):
        return [j.relation.value for j in prediction], None
    return [r.value for r in prediction.claim.relations], prediction.conflict


def _evaluate_calls(cases: Sequence[Case], rows: Sequence[tuple[list[str], bool | None]]) -> dict:
    result = evaluate(cases, [relations for relations, _ in rows])
    if any(call is not None for _, call in rows):
        calls = [bool(call) for _, call in rows]
        result["detection"] = detection_metrics([c.conflict for c in cases], calls)
    return result


def print_report(report: dict[str, Any]) -> None:
    print(f"model: {report['model']}  labeller: {report['labeller']}  gate: {report['gate']}"
          f"  conflict decision: {report.get('verdict', 'rule')}")  # fmt: skip
    columns = {"precision": "P", "recall": "R", "f1": "F1", "accuracy": "Acc",
               "acc_conf": "Acc_conf", "acc_noconf": "Acc_noConf", "f1_supports": "F1_S",
               "f1_contradicts": "F1_C", "f1_irrelevant": "F1_I", "macro_f1": "macroF1",
               "pair_accuracy": "pairAcc"}  # fmt: skip
    for name, result in report["slices"].items():
        d = result["model"]["detection"]
        print(f"\n{name}: {d['cases']} cases, {d['conflicts']} with conflict, "
              f"{result['model']['relations']['pairs']} pairs ({result['seconds']} s)")  # fmt: skip
        if result["gate"]:
            g = result["gate"]
            print(f"  gate: {g['gated']} of {g['pairs']} pairs IRRELEVANT without the model; "
                  f"their gold relations: {g['gold_of_gated']}")  # fmt: skip
        print(f"  {'':<10}" + "".join(f"{c:>11}" for c in columns.values()))
        for label in ("model", "baseline", "oracle_baseline"):
            row = result[label]["detection"] | result[label]["relations"]
            name = label.replace("_baseline", "")
            print(f"  {name:<10}" + "".join(f"{row[c]:>11.4f}" for c in columns))
        always = result["always_conflict"]
        print(f"  {'always':<10}" + "".join(f"{always[c]:>11.4f}" if c in always else f"{'-':>11}"
                                            for c in columns))  # fmt: skip


# ---------------------------------------------------------------------------- calibration


def calibrate(args: DetectionEval) -> dict[str, Any]:
    """Encoder accuracy by confidence, for the two-stage threshold: the lowest threshold whose
    settled pairs reach CALIBRATION_TARGET_ACCURACY, measured on (a) the training cases
    (RAMDocs train half, QACC train; in-domain but seen in training, so optimistic) and (b)
    SNLI dev (never trained on, off-domain); the larger threshold of the two is chosen."""
    from conflictdesk.scoring.label import nli_judgment
    from conflictdesk.training.nli_data import read_split

    predict, model_id, nli = model_predictor(args, with_nli=True)
    cases = [c for c in load_cases("ramdocs", "dev") if c.half == "train"]
    cases += load_cases("qacc", "train")
    in_domain = [
        (judgment.confidence, judgment.relation.value == gold)
        for case in cases[: args.limit]
        for judgment, gold in zip(predict(case), case.gold)
        if judgment.confidence is not None  # gated pairs never reach the LLM
    ]
    rows = read_split("snli/dev")[: args.limit or 2000]
    names = {"entailment": "SUPPORTS", "contradiction": "CONTRADICTS", "neutral": "IRRELEVANT"}
    scores = nli.classify([(row.premise, row.hypothesis) for row in rows])
    held_out = [
        (nli_judgment(score).confidence, nli_judgment(score).relation.value == names[_label(row)])
        for row, score in zip(rows, scores)
    ]
    result: dict[str, Any] = {"model": model_id, "target": CALIBRATION_TARGET_ACCURACY}
    for name, scored in (("train cases", in_domain), ("snli/dev", held_out)):
        curve = _curve(scored)
        chosen = next(
            (p["threshold"] for p in curve if p["settled_accuracy"] >= CALIBRATION_TARGET_ACCURACY),
            None,
        )
        result[name] = {"pairs": len(scored), "threshold": chosen, "curve": curve}
    found = [result[n]["threshold"] for n in ("train cases", "snli/dev")]
    result["threshold"] = max(t for t in found if t is not None) if any(found) else None
    return result


def _label(row: Any) -> str:
    from conflictdesk.training.nli_data import LABELS

    return row.label if isinstance(row.label, str) else LABELS[row.label]


def _curve(scored: Sequence[tuple[float, bool]]) -> list[dict[str, float]]:
    curve = []
    for step in range(34, 100, 2):
        t = step / 100
        settled = [ok for conf, ok in scored if conf >= t]
        routed = [ok for conf, ok in scored if conf < t]
        curve.append({"threshold": t, "settled": ratio(len(settled), len(scored)),
                      "settled_accuracy": ratio(sum(settled), len(settled)),
                      "routed_accuracy": ratio(sum(routed), len(routed))})  # fmt: skip
    return curve
