"""Does a candidate models folder pass the shipping rule against the shipped one?

Measures both folders the same way (conflictdesk.evaluation.ship_rule): `eval_conflictscore.py
--json` on RAMDocs and QACC dev with CONFLICTDESK_MODELS pointing at the folder, and both
labelling tiers on every NLI development set (`cascade_rules`, --nli-limit rows per set),
then prints one line per figure and the verdict. Figures are cached under --work by the
folder's manifest hash, so the shipped side is measured once, and a rerun after a crash
resumes. Exit status 0 when the candidate ships, 1 when it does not.

A candidate folder is a copy of models/ with the new model exported into it, e.g.:

    cp -a models /work/cand && CONFLICTDESK_MODELS=/work/cand CONFLICTDESK_DATA=../shared/data \\
      .venv/bin/python scripts/train_nli_mpnet.py --stage export --weights best.pt \\
      --out /work/cand/nli_mpnet
    CONFLICTDESK_DATA=../shared/data .venv/bin/python scripts/ship_check.py --candidate /work/cand
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from conflictdesk.evaluation.ship_rule import checks, detection_figures, nli_figures, verdict

SCRIPTS = Path(__file__).resolve().parent
NEEDED = ("manifest.json", "nli", "nli_mpnet/nli_mpnet_config.json")


def folder_key(models: Path) -> str:
    """A models folder's identity: the hash of its manifest (which lists every file's sha256)."""
    return hashlib.sha256((models / "manifest.json").read_bytes()).hexdigest()[:12]


def measure(models: Path, work: Path, nli_limit: int, seed: int, threads: int) -> dict:
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
        print(f"{models}: eval_conflictscore (about 10 minutes on 2 cores)", file=sys.stderr)
        env = {**os.environ, "CONFLICTDESK_MODELS": str(models.resolve())}
        command = [sys.executable, str(SCRIPTS / "eval_conflictscore.py"), "--json",
                   "--threads", str(threads)]  # fmt: skip
        result = subprocess.run(command, env=env, stdout=subprocess.PIPE, text=True, check=True)
        detection.write_text(result.stdout, "utf-8")
    figures = detection_figures(json.loads(detection.read_text("utf-8")))
    print(f"{models}: both tiers on the NLI development sets", file=sys.stderr)
    store = tier_probabilities(work / f"{key}_nli{nli_limit}.json", str(models / "nli"),
                               str(models / "nli_mpnet"), nli_limit, seed, threads)  # fmt: skip
    config = json.loads((models / NEEDED[2]).read_text("utf-8"))
    figures.update(nli_figures(store, float(config["cascade_band"]), config["cascade_rule"]))
    done.write_text(json.dumps(figures, indent=1), "utf-8")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--candidate", type=Path, required=True, help="candidate models folder")
    parser.add_argument("--shipped", type=Path, default=Path("models"))
    parser.add_argument("--work", type=Path, default=Path(".train/ship_check"))
    parser.add_argument("--nli-limit", type=int, default=500, help="rows per NLI set")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")
    args = parser.parse_args(argv)
    if args.candidate.resolve() == args.shipped.resolve():
        parser.error("--candidate is the shipped folder")
    sides = [measure(folder, args.work, args.nli_limit, args.seed, args.threads)
             for folder in (args.shipped, args.candidate)]  # fmt: skip
    results = checks(*sides)
    decision = verdict(results)
    if args.json:
        print(json.dumps({"checks": [c.to_json() for c in results], "verdict": decision}))
    else:
        print(f"{'figure':48}{'shipped':>10}{'candidate':>11}{'diff':>9}  passes")
        for c in results:
            print(f"{c.name[:48]:48}{c.shipped:10.4f}{c.candidate:11.4f}"
                  f"{c.candidate - c.shipped:+9.4f}  {'yes' if c.passes else 'NO'}")  # fmt: skip
        print(decision)
    return 0 if all(c.passes for c in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
