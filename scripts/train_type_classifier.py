"""Train the CONFLICTS type model on typed_dev and public-provenance cases; print its figures.

Usage:
  .venv/bin/python scripts/train_type_classifier.py
  .venv/bin/python scripts/train_type_classifier.py --eval-only --report type_report.json
  .venv/bin/python scripts/train_type_classifier.py --eval-only --show compact+sides:30
  .venv/bin/python scripts/train_type_classifier.py --typed-dev-only   # the previous recipe

Runs every typed_dev case, every hand-written training case of other authors
(conflictdesk/training/data/typed_written: 16 authors, 160 cases, each also under two other
wordings of its question, paraphrases.jsonl) and every public-provenance
case (conflictdesk.training.type_public: PERSPECTRUM train, RAMDocs train half, QACC train,
ConflictQA train) through the pipeline once (cached in --work), trains the subjectivity probe on
PERSPECTRUM / FEVER / Fool Me Twice, then picks the feature set, L2 strength and the typed cases'
share of the training weight by the unseen-author check (every typed case predicted by a model
that never saw a case of its author: conflictdesk.training.type_authors) and reports it beside
the cross-source figures (public -> typed_dev, typed_dev -> public, each public source held out),
typed_dev CV grouped by case (the written cases in every training fold), the shipped recipe, the
majority class and the CONFLICTS prior shift; then the shipped model on the written cases (never
trained on them) and a held-out check on real search snippets (QACC dev typed by provenance:
no_conflict or complementary) beside the majority class. A recipe ships only if it beats the
shipped recipe on the unseen-author check by more than its standard error and the majority
class in both cross-source directions (--without-written: the held-out-source check and
typed_dev CV decide, as before 2026-11-29). The reworded cases are training rows; what they add
to the shipped recipe is measured on its own (unseen authors with and without them, and how often
a case keeps one type across its wordings), and when no other recipe ships, the shipped recipe
refitted with them ships if they gain beyond the paired standard error (--without-rewordings:
the data before). Without --eval-only it fits the chosen recipe on
every source, writes models/types/type_model.json and lists it in models/manifest.json."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from conflictdesk.backends.registry import load_backends
from conflictdesk.config import load_config
from conflictdesk.training.nli_data import data_root
from conflictdesk.training.subjectivity import cached_probe
from conflictdesk.training.type_authors import join_rows, paraphrased_cases, written_cases
from conflictdesk.training.type_cache import cached_evidence
from conflictdesk.training.type_public import public_cases, qacc_cases
from conflictdesk.training.type_report import print_report, save_model
from conflictdesk.training.type_selection import evaluate, fit_chosen, grid
from conflictdesk.training.type_transfer_report import (
    evaluate_transfer,
    fit_final,
    parse_recipe,
    print_shown,
    print_snippet_check,
    print_transfer,
    shown_recipes,
    snippet_check,
)
from conflictdesk.training.types import case_rows, load_typed_cases

NAME = "conflictdesk-type-lr"
SNIPPET_LIMIT = 80  # QACC dev cases per type in the held-out snippet check


def shipped_and_new(model):
    """The model fitted here beside the shipped one (when one is installed)."""
    from conflictdesk.analysis.type_model import load_type_model
    from conflictdesk.backends.manifest import models_dir
    from conflictdesk.errors import ModelMissingError

    models = {}
    try:
        models["shipped model"] = load_type_model(models_dir())
    except (ModelMissingError, OSError):
        pass
    models["fitted here"] = model
    return models


def written_and_reworded(args, backends, probe):
    """Rows of the written cases and of their other wordings (None where left out)."""
    if args.without_written:
        return None, None
    cases = written_cases()
    written = case_rows(cached_evidence(cases, backends, args.work / "written_evidence.pkl"), probe)
    if args.without_rewordings:
        return written, None
    path = args.work / "reworded_evidence.pkl"
    return written, case_rows(cached_evidence(paraphrased_cases(cases), backends, path), probe)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cases",
        type=Path,
        default=None,
        help="typed cases (default: typed_dev/cases.jsonl in the data folder, "
        "CONFLICTDESK_DATA or data_dir in the configuration file)",
    )
    parser.add_argument("--work", type=Path, default=Path(".train/types"), help="cache folder")
    parser.add_argument("--report", type=Path, help="write the figures as JSON here")
    parser.add_argument("--eval-only", action="store_true", help="do not write the model")
    parser.add_argument(
        "--typed-dev-only",
        action="store_true",
        help="the previous recipe: typed_dev alone, feature set chosen by nested CV",
    )
    parser.add_argument(
        "--prior-alpha",
        type=float,
        default=0.0,
        help="shift the fitted model by alpha*log(CONFLICTS prior / training prior) (default 0)",
    )
    parser.add_argument(
        "--without-written",
        action="store_true",
        help="leave out the hand-written training cases of other authors "
        "(conflictdesk/training/data/typed_written): the selection before 2026-11-29",
    )
    parser.add_argument(
        "--without-rewordings",
        action="store_true",
        help="leave out the written cases' other wordings "
        "(conflictdesk/training/data/typed_written/paraphrases.jsonl): the data before 2026-11-29",
    )
    parser.add_argument(
        "--show",
        nargs="*",
        default=[],
        metavar="FEATURES:L2",
        help="also print these recipes' figures (e.g. compact+sides:30), chosen or not",
    )
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    backends = load_backends(load_config(), roles=("embedder", "nli", "pair"))
    cases = load_typed_cases(args.cases or data_root() / "typed_dev" / "cases.jsonl")
    evidence = cached_evidence(cases, backends, args.work / "evidence.pkl")
    probe, probe_accuracy = cached_probe(backends.embedder, data_root(), args.work)
    print(f"subjectivity probe: held-out accuracy {probe_accuracy:.3f} (PERSPECTRUM dev vs facts)")
    rows = case_rows(evidence, probe)
    if args.typed_dev_only:
        report = evaluate(rows, grid())
        print_report(report)
        model = fit_chosen(rows, report, probe, NAME)
    else:
        public = cached_evidence(
            public_cases(data_root()), backends, args.work / "public_evidence.pkl"
        )
        public_rows = case_rows(public, probe)
        written_rows, reworded_rows = written_and_reworded(args, backends, probe)
        report = evaluate_transfer(rows, public_rows, written=written_rows, reworded=reworded_rows)
        report["prior_alpha"] = args.prior_alpha
        print_transfer(report)
        others = public_rows if written_rows is None else join_rows(public_rows, written_rows)
        if reworded_rows is not None:
            others = join_rows(others, reworded_rows)
        shown = shown_recipes(rows, others, [parse_recipe(r) for r in args.show])
        print_shown(shown)
        report["shown"] = shown
        model = fit_final(rows, others, report, probe, NAME, alpha=args.prior_alpha)
        if written_rows is not None:
            # held out only for a shipped model fitted without them (before 2026-11-29, 0.400);
            # the shipped model of session 17 was fitted on them, so its figure is in-sample
            check = snippet_check(written_rows, {k: v for k, v in shipped_and_new(model).items()
                                                 if k == "shipped model"})  # fmt: skip
            print(
                "the shipped model on the 160 written cases (in-sample once it was fitted on "
                "them; held out for the model shipped before 2026-11-29: 0.400)"
            )
            print_snippet_check(check, title=False)
            report["written_by_shipped"] = check
        snippets = cached_evidence(
            qacc_cases(data_root(), SNIPPET_LIMIT, split="dev"),
            backends,
            args.work / "qacc_dev_evidence.pkl",
        )
        check = snippet_check(case_rows(snippets, probe), shipped_and_new(model))
        print_snippet_check(check)
        report["snippets"] = check
    if args.report:
        args.report.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if args.eval_only or not report.get("ship", True):
        return 0
    save_model(model, public=not args.typed_dev_only)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
