"""The shipping rule for a new labelling model (docs/model_report.md), as one decision.

A candidate models folder replaces the shipped one only when, measured the same way on the
development sets:

- on the RAMDocs EVAL half and on QACC dev, the question-level conflict F1 and the claim ×
  document relation macro-F1 are not lower than the shipped models' (`eval_conflictscore`'s
  JSON report), and
- no NLI development set is more than `NLI_TOLERANCE` lower through the cascade (each folder's
  own stored rule and band; `cascade_rules`' per-set probabilities).

`measure` gets a folder's figures (cached under a work folder by the hash of the folder's
manifest and of the package's code, so a figure measured before a code change is never
compared with one measured after it),
`checks` compares two such sets, `verdict` says whether the candidate ships."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

DETECTION_SLICES = ("RAMDocs eval half", "QACC dev")
NLI_TOLERANCE = 0.02
NEEDED = ("manifest.json", "nli", "nli_mpnet/nli_mpnet_config.json")
PACKAGE = Path(__file__).resolve().parents[1]  # the conflictdesk package: the code measured
# eval_conflictscore's default run (every dataset, the default labeller), in a fresh process
# so that CONFLICTDESK_MODELS picks the folder and no model loaded for the other folder is reused
DETECTION_RUN = (
    "import json, sys; "
    "from conflictdesk.evaluation.conflictscore import DetectionEval, run_eval; "
    "print(json.dumps(run_eval(DetectionEval(threads=int(sys.argv[1])))))"
)


@dataclass(frozen=True)
class Check:
    name: str
    shipped: float
    candidate: float
    tolerance: float  # how far below the shipped figure still passes

    @property
    def passes(self) -> bool:
        return self.candidate >= self.shipped - self.tolerance - 1e-12

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "difference": self.candidate - self.shipped, "passes": self.passes}


def detection_figures(report: Mapping[str, Any]) -> dict[str, float]:
    """Conflict F1 and relation macro-F1 of every slice the rule reads, from a `run_eval`
    report (what `scripts/eval_conflictscore.py --json` prints)."""
    out = {}
    for name in DETECTION_SLICES:
        if name not in report["slices"]:
            raise ValueError(f"the detection report has no slice {name!r}; run all datasets")
        model = report["slices"][name]["model"]
        out[f"{name}: conflict F1"] = float(model["detection"]["f1"])
        out[f"{name}: relation macro-F1"] = float(model["relations"]["macro_f1"])
    return out


def nli_figures(store: Mapping[str, Any], band: float, rule: str) -> dict[str, float]:
    """Accuracy of the cascade (`rule` at `band`) on every NLI set of a `cascade_rules` store."""
    from conflictdesk.training.cascade_rules import accuracy, combine

    out = {}
    for split, v in store.items():
        fast, accurate = np.asarray(v["fast"]), np.asarray(v["accurate"])
        out[f"NLI {split}"] = accuracy(split, v["gold"], combine(fast, accurate, band, rule))
    return out


def checks(shipped: Mapping[str, float], candidate: Mapping[str, float]) -> list[Check]:
    """One check per figure both sides have; a figure only one side has is an error (the two
    were not measured the same way)."""
    if set(shipped) != set(candidate):
        missing = sorted(set(shipped) ^ set(candidate))
        raise ValueError(f"figures measured on one side only: {missing}")
    tolerance = {name: NLI_TOLERANCE if name.startswith("NLI ") else 0.0 for name in shipped}
    return [Check(name, shipped[name], candidate[name], tolerance[name]) for name in shipped]


def verdict(results: list[Check]) -> str:
    failed = [c.name for c in results if not c.passes]
    return "ships" if not failed else "does not ship: " + "; ".join(failed)


def folder_key(models: Path, code: Path = PACKAGE) -> str:
    """What a folder's figures depend on: its manifest (which lists every model file's sha256)
    and every Python file of the package `code` (reading rules, fusion, gate)."""
    digest = hashlib.sha256((models / "manifest.json").read_bytes())
    for path in sorted(code.rglob("*.py")):
        digest.update(str(path.relative_to(code)).encode("utf-8"))
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def measure(models: Path, work: Path, nli_limit: int, seed: int, threads: int) -> dict:
    """Every figure the rule reads, for the models folder `models`; kept in `work` by
    `folder_key` (the detection report and the NLI probabilities too, so a killed
    run resumes)."""
    from conflictdesk.training.cascade_rules import tier_probabilities

    missing = [name for name in NEEDED if not (models / name).exists()]
    if missing:
        raise SystemExit(f"{models}: not a models folder with both NLI tiers (missing {missing})")
    key = folder_key(models)
    done = work / f"{key}.json"
    if done.exists():
        print(f"{models}: figures from {done}", file=sys.stderr)
        return json.loads(done.read_text("utf-8"))
    work.mkdir(parents=True, exist_ok=True)
    detection = work / f"{key}_detection.json"
    if not detection.exists():
        print(f"{models}: conflict detection (about 10 minutes on 2 cores)", file=sys.stderr)
        env = {**os.environ, "CONFLICTDESK_MODELS": str(models.resolve())}
        command = [sys.executable, "-c", DETECTION_RUN, str(threads)]
        result = subprocess.run(command, check=False, env=env, stdout=subprocess.PIPE, text=True)
        if result.returncode != 0:
            raise SystemExit(f"{models}: the detection run failed (exit {result.returncode}; "
                             "its error is above); nothing was cached for it")  # fmt: skip
        detection.write_text(result.stdout, "utf-8")
    figures = detection_figures(json.loads(detection.read_text("utf-8")))
    print(f"{models}: both tiers on the NLI development sets", file=sys.stderr)
    store = tier_probabilities(work / f"{key}_nli{nli_limit}.json", str(models / "nli"),
                               str(models / "nli_mpnet"), nli_limit, seed, threads)  # fmt: skip
    config = json.loads((models / NEEDED[2]).read_text("utf-8"))
    figures.update(nli_figures(store, float(config["cascade_band"]), config["cascade_rule"]))
    done.write_text(json.dumps(figures, indent=1), "utf-8")
    return figures


def table(results: list[Check]) -> str:
    """One line per figure: shipped, candidate, difference, whether it passes; then the verdict."""
    lines = [f"{'figure':48}{'shipped':>10}{'candidate':>11}{'diff':>9}  passes"]
    for c in results:
        lines.append(f"{c.name[:48]:48}{c.shipped:10.4f}{c.candidate:11.4f}"
                     f"{c.candidate - c.shipped:+9.4f}  {'yes' if c.passes else 'NO'}")  # fmt: skip
    return "\n".join([*lines, verdict(results)])
