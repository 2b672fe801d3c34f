"""The verdict models' data, fitting, artefact and report (`scripts/train_verdict.py`).

Two models of one form (`conflictdesk.scoring.verdict`): "detect" reads the NLI labeller's
per-document probabilities of ConflictBench-style claims (the fusion labeller's cached feature
sets, `conflictdesk.training.fusion.load_sets`), "ask" reads the on-topic passage tags of an
`ask` analysis (rows collected by `conflictdesk.evaluation.ask_run.collect_verdict_rows`).
Both are fitted on QACC train and the RAMDocs TRAIN half only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conflictdesk.evaluation.cases import detection_metrics
from conflictdesk.scoring.verdict import MODEL_NAME, REBUILD, VerdictModel
from conflictdesk.training.verdict import Choice, Rows, choose, compare, fit_verdict

TRAINING_SETS = ("RAMDocs train half", "QACC train")
HELD_OUT = ("RAMDocs eval half", "QACC dev")
ARTEFACT = "verdict/verdict.json"
LICENCE = "MIT (conflictdesk); fitted on features of RAMDocs (MIT) and QACC train (CC BY-SA 3.0)"


def detect_rows(work: Path, threads: int) -> dict[str, Rows]:
    """Per claim of each fusion case set: the NLI triples of its ungated pairs."""
    from conflictdesk.training.fusion import load_sets

    out = {}
    for name, case_set in load_sets(work, threads).items():
        claims = []
        for index, case in enumerate(case_set.cases):
            rows = (case_set.groups == index) & ~case_set.gate
            claims.append((case_set.x[rows, :3], len(case.documents), case.conflict))
        out[name] = Rows.build(name, claims)
    return out


def collect_ask_rows(path: Path, data: Path, backends: Any) -> None:
    """Append the `ask` verdict rows of every set's questions not yet in `path` (resumable)."""
    from conflictdesk.evaluation.ask_run import collect_verdict_rows, verdict_sets

    path.parent.mkdir(parents=True, exist_ok=True)
    done = {(r["set"], r["id"]) for r in _read(path)}
    for name, cases in verdict_sets(data).items():
        seen = {case_id for set_name, case_id in done if set_name == name}
        for row in collect_verdict_rows(cases, backends, seen):
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps({"set": name, **row}) + "\n")


def _read(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def ask_rows(path: Path, with_answers: bool = False, source: str = "claim") -> dict[str, Rows]:
    """The collected `ask` rows by set: the claim labelling's probabilities (`source`
    "claim", `conflict_call.claim_evidence`; the on-topic tags' where there is no leading
    answer) or the on-topic tags' ("tags"), with the answer features when asked."""
    by_set: dict[str, tuple[list, list]] = {}
    for row in _read(path):
        claims, answers = by_set.setdefault(row["set"], ([], []))
        claim = row.get("claim_judged") if source == "claim" else None
        claims.append((row["judged"] if claim is None else claim, row["documents"], row["gold"]))
        answers.append(row["answers"])
    return {name: Rows.build(name, claims, answers if with_answers else None)
            for name, (claims, answers) in by_set.items()}  # fmt: skip


def ask_rivals(path: Path) -> dict[str, dict[str, dict]]:
    """Per set, the type classifier's conflict call (today's `ask`) and the answer-string
    baseline's, scored on the collected `ask` rows."""
    calls: dict[str, dict[str, list]] = {}
    for row in _read(path):
        part = calls.setdefault(row["set"], {"gold": [], "type_call": [], "string_match": []})
        part["gold"].append(row["gold"])
        part["type_call"].append(row["type"] != "no_conflict")
        part["string_match"].append(row["string_match"])
    return {name: {label: detection_metrics(part["gold"], part[label])
                   for label in ("type_call", "string_match")}
            for name, part in calls.items()}  # fmt: skip


def detect_rivals() -> dict[str, dict[str, dict]]:
    """Per set, the claim-only answer-string baseline's conflict call."""
    from conflictdesk.evaluation.cases import claim_match, load_cases

    ramdocs = load_cases("ramdocs", "dev")
    sets = {"RAMDocs train half": [c for c in ramdocs if c.half == "train"],
            "QACC train": load_cases("qacc", "train"),
            "RAMDocs eval half": [c for c in ramdocs if c.half == "eval"],
            "QACC dev": load_cases("qacc", "dev")}  # fmt: skip
    out = {}
    for name, cases in sets.items():
        calls = [("SUPPORTS" in r and "CONTRADICTS" in r) for r in map(claim_match, cases)]
        out[name] = {"string_match": detection_metrics([c.conflict for c in cases], calls)}
    return out


def fit_use(
    rows: dict[str, Rows], use: str, evidence: str = "claim"
) -> tuple[VerdictModel, list[Choice]]:
    return fit_verdict([rows[n] for n in TRAINING_SETS], f"{MODEL_NAME}/{use}", evidence)


ASK_VARIANTS = (("claim", False), ("claim", True), ("tags", False), ("tags", True))


def choose_ask_variant(path: Path) -> tuple[tuple[str, bool], dict[str, float]]:
    """Which evidence `ask`'s model reads (the claim labelling or the tags, with or without
    the answer features): the variant with the best out-of-fold score on the training sets."""
    scores = {}
    for source, answers in ASK_VARIANTS:
        rows = ask_rows(path, answers, source)
        scores[(source, answers)] = choose([rows[n] for n in TRAINING_SETS])[0].score
    best = max(ASK_VARIANTS, key=lambda v: scores[v])
    named = {f"{s}{' + answers' if a else ''}": round(v, 4) for (s, a), v in scores.items()}
    return best, named


def report(use: str, rows: dict[str, Rows], model: VerdictModel, choices: list[Choice],
           extra: dict[str, dict] | None = None) -> dict[str, Any]:  # fmt: skip
    """Every set with the verdict model, the paper's rule (or the type call) and the trivial
    baseline; `wins`: it beats them all on every held-out set."""
    sets = {}
    for name in (*TRAINING_SETS, *HELD_OUT):
        figures = compare(rows[name], model)
        figures.update((extra or {}).get(name, {}))
        sets[name] = figures
    rivals = [k for k in sets[HELD_OUT[0]] if k != "verdict_model"]
    wins = all(sets[n]["verdict_model"]["f1"] > sets[n][r]["f1"] for n in HELD_OUT for r in rivals)
    return {"use": use, "model": model.to_json(), "wins": wins, "sets": sets,
            "choices": [vars(c) for c in choices[:5]]}  # fmt: skip


def write_models(models: dict[str, VerdictModel], models_dir: Path, defaults: dict) -> str:
    """verdict.json (both models) and its manifest entry; the model id."""
    from conflictdesk.backends.manifest import Manifest, entry_for

    path = Path(models_dir) / ARTEFACT
    path.parent.mkdir(parents=True, exist_ok=True)
    blob = {"models": {use: m.to_json() for use, m in models.items()}}
    path.write_text(json.dumps(blob, indent=1) + "\n", encoding="utf-8")
    manifest = Manifest.load(Path(models_dir) / "manifest.json")
    entry = entry_for(MODEL_NAME, "verdict", path, licence=LICENCE, rebuild=REBUILD,
                      source="fitted by scripts/train_verdict.py on QACC train and the RAMDocs "
                      "TRAIN half (NLI probabilities of conflictdesk-nli-minilm-int8)",
                      base=Path(models_dir))  # fmt: skip
    entry.extra = {"default": defaults}
    manifest.upsert(entry)
    manifest.save()
    return entry.model_id


def render(parts: list[dict[str, Any]]) -> str:
    """The text tables of `report` results."""
    lines = []
    for part in parts:
        m = part["model"]
        lines.append(f"\n== {part['use']}: threshold {m['threshold']}, uncertain band "
                     f"±{m['band']}; beats every rival on every held-out set: {part['wins']}")  # fmt: skip
        for c in part["choices"][:3]:
            lines.append(f"  CV choice: l2 {c['l2']} threshold {c['threshold']} "
                         f"mean out-of-fold F1 {c['score']:.3f}")  # fmt: skip
        for name, figures in part["sets"].items():
            trained = " (trained on)" if name in TRAINING_SETS else ""
            lines.append(f"  {name}{trained}: {figures['verdict_model']['cases']} questions, "
                         f"{figures['verdict_model']['conflicts']} conflicts")  # fmt: skip
            lines.append(f"    {'decision':<22}{'F1':>8}{'P':>8}{'R':>8}{'acc':>8}")
            for label, f in figures.items():
                lines.append(f"    {label:<22}{f['f1']:>8.3f}{f['precision']:>8.3f}"
                             f"{f['recall']:>8.3f}{f['accuracy']:>8.3f}")  # fmt: skip
            v = figures["verdict_model"]
            lines.append(f"    verdict model uncertain on {v['uncertain_share']:.2f} of the "
                         f"questions; accuracy on the rest {v['settled_accuracy']:.3f}")  # fmt: skip
    return "\n".join(lines)
