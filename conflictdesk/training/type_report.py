"""Print the type model's cross-validated figures and save the fitted model with its
manifest entry (the parts of `scripts/train_type_classifier.py` worth testing)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from conflictdesk.analysis.type_model import MODEL_FILE, REBUILD, ROLE, TypeModel
from conflictdesk.backends.manifest import Manifest, entry_for, models_dir
from conflictdesk.training.types import TYPE_ORDER

LICENCE = (
    "MIT (conflictdesk); trained on typed_dev (CC0, hand-written for this project); "
    "subjectivity probe on PERSPECTRUM (CC BY-SA 4.0), FEVER and Fool Me Twice sentences"
)
PUBLIC_LICENCE = (
    "MIT (conflictdesk); trained on typed_dev and conflictdesk/training/data/typed_written "
    "(CC0, hand-written for this project) and on cases built by provenance from PERSPECTRUM train (CC BY-SA 4.0), RAMDocs train half (MIT), QACC "
    "train (CC BY-SA 3.0) and ConflictQA StrategyQA train (Apache-2.0)"
)
PROBE_LICENCE = (
    "; subjectivity probe on PERSPECTRUM (CC BY-SA 4.0), FEVER and Fool Me Twice sentences"
)
PUBLIC_SOURCE = (
    "multinomial logistic regression over conflictdesk.analysis.typing_features (feature set, "
    "L2 and typed share chosen by the unseen-author check), rows weighted equally per type, "
    "fitted on typed_dev/cases.jsonl, conflictdesk/training/data/typed_written/cases.jsonl "
    "(with the other wordings of paraphrases.jsonl, unless --without-rewordings) and "
    "conflictdesk.training.type_public cases by scripts/train_type_classifier.py"
)
SOURCE = (
    "multinomial logistic regression over conflictdesk.analysis.typing_features (feature set "
    "and L2 chosen by CV grouped by case), fitted on typed_dev/cases.jsonl (the data folder) "
    "by scripts/train_type_classifier.py"
)


def print_report(report: Mapping[str, Any]) -> None:
    model, previous, rules = report["model"], report["previous"], report["rules"]
    print(f"typed_dev, {report['cases']} cases, {report['folds']}-fold CV grouped by case")
    print(f"{'type':24s}{'nested CV':>11s}{'previous':>10s}{'rules':>8s}")
    for kind, acc in model["per_type"].items():
        print(f"{kind:24s}{acc:11.3f}{previous['per_type'][kind]:10.3f}"
              f"{rules['per_type'][kind]:8.3f}")  # fmt: skip
    print(f"{'accuracy':24s}{model['accuracy']:11.3f}{previous['accuracy']:10.3f}"
          f"{rules['accuracy']:8.3f}")  # fmt: skip
    majority = report["majority"]
    print(f"majority class ({majority['type']}): {majority['accuracy']:.3f}")
    print(f"previous = {previous['config']} under the same folds")
    print("confusion (rows gold, columns predicted, summed over seeds):")
    for kind, row in zip(TYPE_ORDER, model["confusion"], strict=True):
        print(f"  {kind.value:22s}" + "".join(f"{n:5d}" for n in row))
    print("outer folds chose:", dict(report["outer_choices"]))
    print("chosen on every case:", report["chosen"])
    print("threshold  coverage  accuracy")
    for row in report["coverage"]:
        print(f"{row['threshold']:9.2f}{row['coverage']:10.3f}{row['accuracy']:10.3f}")
    print(f"abstention threshold: {report['threshold']:.2f}")


def save_model(model: TypeModel, *, public: bool = True) -> None:
    """Write the model's JSON under the models folder and upsert its manifest entry (licence
    and source of the public-provenance recipe, or of typed_dev alone)."""
    base = models_dir()
    path = base / MODEL_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
    manifest = Manifest.load(base / "manifest.json")
    licence, source = (PUBLIC_LICENCE, PUBLIC_SOURCE) if public else (LICENCE, SOURCE)
    if public and model.probe is not None:
        licence += PROBE_LICENCE
    rebuild = REBUILD if public else f"{REBUILD} --typed-dev-only"
    entry = entry_for(
        model.model_id, ROLE, path, licence=licence, source=source, rebuild=rebuild, base=base
    )
    entry.extra = {
        "features": len(model.feature_names),
        "threshold": model.threshold,
        "subjectivity_probe": model.probe is not None,
    }
    manifest.upsert(entry)
    manifest.save()
    print(f"wrote {path} and its manifest entry ({entry.model_id})")
