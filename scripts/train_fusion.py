"""Train the fusion labeller (models/fusion) and report it beside the encoder alone and the
answer-string baselines.

Training pairs: RAMDocs TRAIN half + QACC train (conflictdesk.training.fusion). Reported:
RAMDocs EVAL half and QACC dev, never trained on. NLI scores are cached in --work, so a killed
run resumes where it stopped.

examples:
  .venv/bin/python scripts/train_fusion.py                 # extract, fit, report, write models/fusion
  .venv/bin/python scripts/train_fusion.py --no-write --json
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from conflictdesk.scoring.fusion import STRUCTURES
from conflictdesk.training.fusion import fusion_report, train_fusion


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--work", type=Path, default=Path(".train/fusion"), help="cache folder")
    parser.add_argument("--models", type=Path, default=None, help="models folder to write")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--l2", type=float, default=1e-4, help="L2 penalty of the regression")
    parser.add_argument(
        "--structure",
        choices=STRUCTURES,
        default="split",
        help="split (default): the encoder keeps SUPPORTS, the regression decides CONTRADICTS "
        "against IRRELEVANT; softmax: one regression over the three relations",
    )
    parser.add_argument("--no-write", dest="write", action="store_false",
                        help="report only; leave models/ unchanged")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--markdown",
        type=Path,
        default=None,
        help="also write the report as a Markdown page (docs/fusion_report.md)",
    )
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*truncated to.*")
    model, sets, choices = train_fusion(args.work, threads=args.threads, l2=args.l2,
                                        models_dir=args.models, write=args.write,
                                        structure=args.structure)  # fmt: skip
    report = fusion_report(model, sets, choices)
    if args.json:
        print(json.dumps(report, indent=1, default=float))
    else:
        print_report(report)
    if args.markdown:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            print_report(report)
        decision = DEFAULT if report["default"] else OPT_IN
        page = MARKDOWN.format(decision=decision, table=buffer.getvalue().rstrip())
        args.markdown.write_text(page, "utf-8")
    return 0


MARKDOWN = """# Fusion labeller: development report

Written by `.venv/bin/python scripts/train_fusion.py --markdown docs/fusion_report.md`.
Trained on the RAMDocs TRAIN half and QACC train; RAMDocs EVAL half and QACC dev are held out.
Structure "split" (`--structure split`, the default since 2026-11-25): the encoder's argmax keeps
SUPPORTS, and a binary regression decides CONTRADICTS against IRRELEVANT for the other pairs,
at a threshold on its output chosen by 5-fold cross-validation grouped by question on the
training cases (objective: mean conflict F1 + relation macro-F1); the "softmax"
structure (`--structure softmax`) instead chooses class weights and decision offsets the same
way. No held-out set took part in either choice. Why "split": the encoder's SUPPORTS holds up
off its training sets, its CONTRADICTS-vs-IRRELEVANT separation does not (the "encoder
separation" table below), so the fitted part is kept to that decision; the softmax structure
refitted on the same cascade scores gave RAMDocs EVAL half 0.840 / 0.790 and QACC dev 0.315 /
0.613 (conflict F1 / relation macro-F1), losing QACC macro-F1 to the encoder alone (0.616). The
choice between the two structures was made on these held-out figures, so they are slightly
optimistic for it; the kept-back sets are the independent check. `nli_alone` is the encoder's argmax on the whole
document (windowed); the two string matches are the trivial baselines (the oracle one also
knows the question's other answers: a ceiling). "case AUC" ranks cases by their largest
P(CONTRADICTS); the bootstrap resamples cases (2,000 draws) for the conflict-F1 difference
fusion minus the encoder alone.

Decision: {decision}

Reading the tables: the encoder was fine-tuned on the training sets' claim x document pairs,
worded "The answer to the question Q is A.", so its contradiction scores of that wording
(`doc_contra`) separate CONTRADICTS from IRRELEVANT far better there than on the held-out sets
("encoder separation"), and a regression fitted on the training cases trusted them more than
held-out data warrants. Since 2026-11-25 (session 10) the regression reads none of them: it
reads the document scored against the claim reworded as "Q? A." (`qa_contra`, a wording the
encoder never saw in training, whose separation holds up better off the training sets), the
reading features and the sibling features; `doc_*` only decide SUPPORTS. Before that change
(same command at 022d35f): RAMDocs EVAL half 0.848 / 0.798 and QACC dev 0.309 / 0.617
(conflict F1 / relation macro-F1). Variants measured on the same held-out sets before the
choice (a scratch script, not shipped): both rewordings "Q? A." and "A is the answer to: Q"
averaged, 0.896 / 0.829 and 0.302 / 0.622 (a second document-length reading per pair, and QACC
conflict F1 below the old model); "A is the answer to: Q" alone, 0.851 / 0.786 and 0.333 /
0.615; the reworded scores added beside the old ones, 0.848 / 0.798 and 0.309 / 0.617 (the
regression kept trusting `doc_contra`). The rewording was chosen on these held-out figures,
so they are slightly optimistic for it; the kept-back sets are the independent check. On QACC
dev every labeller ranks
cases by P(CONTRADICTS) near AUC 0.6 and the conflict-F1 difference's bootstrap interval spans
zero: the difference between the two labellers there is within sampling noise.

```
{table}
```
"""


DEFAULT = ("fusion beats the encoder alone and the claim-only string match on conflict F1 "
           "and relation macro-F1 on every held-out set: it is the default labeller "
           "(`--labeller nli` keeps the encoder alone).")  # fmt: skip
OPT_IN = ("fusion does NOT beat the encoder alone and the claim-only string match on conflict "
          "F1 and relation macro-F1 on every held-out set, so it stays opt-in "
          "(`--labeller fusion`).")  # fmt: skip


def print_report(report: dict) -> None:
    if report.get("structure") == "split":
        decision = (f"structure split: the encoder's SUPPORTS, then CONTRADICTS where the "
                    f"regression's output is >= {report['threshold']:.2f}")  # fmt: skip
    else:
        offsets = ", ".join(f"{v:+.2f}" for v in report["offsets"])
        decision = f"structure softmax; decision offsets S/C/I {offsets}"
    print(f"fusion model: {report['model']} (temperature {report['temperature']:.2f}; "
          f"{decision})")  # fmt: skip
    print_selection(report["selection"])
    for name, rows in report["sets"].items():
        print(f"\n{name}: {rows['cases']} cases, {rows['conflicts']} conflicts, "
              f"{rows['pairs']} pairs")  # fmt: skip
        print(f"  {'labeller':<26}{'conflict F1':>12}{'P':>8}{'R':>8}{'rel macro-F1':>14}"
              f"{'pair acc':>10}")  # fmt: skip
        for label, m in rows["labellers"].items():
            d, r = m["detection"], m["relations"]
            print(f"  {label:<26}{d['f1']:>12.3f}{d['precision']:>8.3f}{d['recall']:>8.3f}"
                  f"{r['macro_f1']:>14.3f}{r['pair_accuracy']:>10.3f}")  # fmt: skip
    print_checks(report)
    coverage = report.get("coverage")
    if coverage:
        print("\naccuracy against coverage (pairs with calibrated confidence >= t):")
        for point in coverage:
            print("  t={threshold:.2f} coverage={coverage:.3f} accuracy={accuracy:.3f}".format(
                **point))  # fmt: skip


def print_selection(selection: list[dict]) -> None:
    print("cross-validated choice on the training cases (best first; F1 / macro-F1 per set):")
    for row in selection:
        per_set = "  ".join(f"{name} {f1:.3f}/{macro:.3f}"
                            for name, (f1, macro) in row["per_set"].items())  # fmt: skip
        if row.get("threshold") is not None:
            what = f"threshold {row['threshold']:.2f}"
        else:
            offsets = ",".join(f"{v:+.2f}" for v in row["offsets"])
            what = f"weights {row['class_weight']} offsets {offsets}"
        print(f"  {what}  score {row['score']:.3f}  {per_set}")


def print_checks(report: dict) -> None:
    print("\nheld-out checks (fusion vs nli_alone):")
    for name, check in report["held_out"].items():
        auc, boot = check["case_auc"], check["bootstrap"]
        print(f"  {name}: beats both rivals on both figures: {check['wins']}; case AUC "
              f"{auc['fusion']:.3f} vs {auc['nli_alone']:.3f}; conflict F1 difference "
              f"{boot['difference']:+.3f} (95% {boot['low']:+.3f} .. {boot['high']:+.3f}, "
              f"fusion ahead in {boot['a_wins']:.0%} of draws)")  # fmt: skip
        if check.get("ceiling"):
            top = check["ceiling"]
            print(f"    ceiling: the best conflict F1 any threshold reaches here, chosen on this "
                  f"set itself: {top['f1']:.3f} (threshold {top['threshold']:.2f}; shipped "
                  f"{report['threshold']:.2f})")  # fmt: skip
    print(f"  default labeller: {'fusion' if report['default'] else 'nli (fusion opt-in)'}")
    print("\nencoder separation, AUC of CONTRADICTS vs IRRELEVANT pairs (trained-on sets first):")
    for name, aucs in report["encoder_separation"].items():
        print(f"  {name:<20}" + "  ".join(f"{k} {v:.3f}" for k, v in aucs.items()))


if __name__ == "__main__":
    np.seterr(over="ignore")
    raise SystemExit(main())
