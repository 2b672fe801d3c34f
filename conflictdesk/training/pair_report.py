"""The pair-detector section of docs/model_report.md: held-out figures of the shipped model
beside always-conflict, majority and NLI alone, per-type precision/recall, calibration and
the τ_c routing table on development pairs. Written by scripts/train_pair_detector.py and
by scripts/eval_models.py from the same function."""

from __future__ import annotations

import re
from pathlib import Path

SECTION_START = "## Stage-1 pair detector"
SECTION_END = "## Speed"


def _fmt(value, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _beats(r: dict) -> str:
    ok = r["f1"] > r["always_conflict_f1"] and r["f1"] > r["nli_alone_f1"]
    return "yes" if ok else "**no**"


def heldout_lines(heldout: dict) -> list[str]:
    lines = [
        (
            "| set | pairs | conflicts | stage-1 F1 | acc | always-conflict F1 | majority acc | "
            "NLI-alone F1 / acc | beats both | ECE | type acc | two-stage route F1 / acc "
            "(settled by stage 1) |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for name, r in heldout.items():
        route = (
            f"{_fmt(r['routed_f1'])} / {_fmt(r['routed_acc'])} ({_fmt(r['routed_settled'], 2)})"
            if "routed_f1" in r
            else "–"
        )
        lines.append(
            f"| {name} | {r['pairs']} | {r['conflicts']} | {_fmt(r['f1'])} | {_fmt(r['acc'])} | "
            f"{_fmt(r['always_conflict_f1'])} | {_fmt(r['majority_acc'])} | "
            f"{_fmt(r['nli_alone_f1'])} / {_fmt(r['nli_alone_acc'])} | {_beats(r)} | "
            f"{_fmt(r['ece'])} | {_fmt(r['type_acc'])} | {route} |"
        )
    return lines


def variant_lines(result: dict) -> list[str]:
    """What the shipped variant's heads read (head 1 on the stance block only) and which NLI
    read the stances towards a statement."""
    name = str(result.get("variant", ""))
    parts = []
    if ".head1-stance" in name:
        parts.append(
            "head 1 (conflict) reads only the stance block; head 2 (types) reads every "
            "feature, embeddings included (`--conflict-head-stance`)"
        )
    if result.get("statement_stance") == "cascade":
        parts.append(
            "a passage's stance towards a statement (yes/no and declarative queries) is read "
            "by the labelling cascade (the MiniLM, then MPNet where its top probability is "
            "below 0.9, geometric mean), the wh answer-claim stances by the MiniLM alone "
            "(`--statement-stance cascade`); variants without `.statements-cascade` read every "
            "stance with the MiniLM"
        )
    if not parts:
        return []
    return [f"Variant `{name}`: " + "; ".join(parts) + ".", ""]


def dev_lines(result: dict, ablations: list[dict] | None) -> list[str]:
    """Each variant's development figures (the basis of the choice): F1 per dev set and
    head 2's type accuracy on the in-domain dev conflicts (it types every conflict)."""
    rows = [r for r in [result, *(ablations or [])] if "dev" in r and "indomain_val" in r["dev"]]
    if not rows:
        return []
    names = list(rows[0]["dev"])
    intro = (
        "Development pairs (the variant is chosen here; never on the held-out sets): F1 per "
        "set, and head 2's type accuracy on the in-domain dev conflicts."
    )
    lines = [
        intro,
        "",
        "| variant | " + " | ".join(f"{n} F1" for n in names) + " | mean F1 | in-domain type acc |",
        "|---|" + "---:|" * (len(names) + 2),
    ]
    for r in rows:
        f1 = [r["dev"][n]["f1"] for n in names]
        lines.append(
            f"| {r.get('variant', r['layout'])} | " + " | ".join(_fmt(x) for x in f1)
            + f" | {_fmt(sum(f1) / len(f1))} | "
            + f"{_fmt(r['dev']['indomain_val']['type_acc_given_conflict'])} |"
        )  # fmt: skip
    return [*lines, ""]


def speed_lines(result: dict) -> list[str]:
    """Pairs per second of the layout's NLI features (uncached) on each held-out set."""
    speed = result.get("feature_speed") or {}
    if not speed:
        return []
    cells = [
        f"{name} {s['pairs_per_s']} pairs/s ({s['nli_calls']} NLI calls for 100 pairs)"
        for name, s in speed.items()
    ]
    return [
        "Feature cost (the stance readings, uncached, on the 2 shared CPU cores: the MiniLM "
        "(CTranslate2 int8)"
        + (
            ", and the cascade for statement stances"
            if result.get("statement_stance") == "cascade"
            else ""
        )
        + "; lower bounds): "
        + "; ".join(cells)
        + ".",
        "",
    ]


def type_lines(heldout: dict, key: str = "per_type") -> list[str]:
    lines = [
        "| set | factual P / R (n) | temporal P / R (n) | opinion P / R (n) |",
        "|---|---|---|---|",
    ]
    for name, r in heldout.items():
        cells = [
            f"{_fmt(t['precision'])} / {_fmt(t['recall'])} ({t['support']})"
            for kind, t in r[key].items()
            if kind != "none"
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def routing_lines(table: list[dict]) -> list[str]:
    lines = [
        "| τ_c | settled by stage 1 | stage-1 acc on settled | combined acc | combined F1 |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in table:
        lines.append(
            f"| {r['tau_c']} | {_fmt(r['settled'])} | {_fmt(r['stage1_acc_settled'])} | "
            f"{_fmt(r['combined_acc'])} | {_fmt(r['combined_f1'])} |"
        )
    return lines


def ablation_lines(result: dict, ablations: list[dict] | None) -> list[str]:
    """Held-out F1 of the other feature layouts (their `--dry-run` results) beside the
    shipped one, each with its dev-chosen threshold."""
    if not ablations:
        return []
    names = list(result["heldout"])
    lines = [
        (
            "Ablation: stage-1 F1 / acc of each feature layout on the held-out sets (same data, "
            "same training; threshold chosen on dev)."
        ),
        "",
        "| layout | threshold | " + " | ".join(names) + " |",
        "|---|---:|" + "---:|" * len(names),
    ]
    for r in [result, *ablations]:
        cells = [
            f"{_fmt(r['heldout'][n]['f1'])} / {_fmt(r['heldout'][n]['acc'])}"
            if n in r["heldout"]
            else "–"
            for n in names
        ]
        lines.append(
            f"| {r.get('variant', r['layout'])} | {_fmt(r.get('threshold', 0.5), 2)} | "
            + " | ".join(cells)
            + " |"
        )
    return [*lines, ""]


def markdown(
    result: dict, command: str, ablations: list[dict] | None = None, held_back: str = ""
) -> list[str]:
    """The whole section, from a `pair_detector.run` result; `held_back` says why a variant
    that met the held-out rule is not the shipped model."""
    route = result["route"]
    verdict = (
        f"**Not shipped.** This variant meets the held-out rule, but it is held back: {held_back}"
        if held_back
        else verdict_line(route)
    )
    return _section(result, command, ablations, verdict + margin_note(result["heldout"]))


def margin_note(heldout: dict) -> str:
    """The smallest F1 margin of stage 1 over the better of the two baselines."""
    if not heldout:
        return ""
    margins = {
        name: r["f1"] - max(r["always_conflict_f1"], r["nli_alone_f1"])
        for name, r in heldout.items()
    }
    name = min(margins, key=lambda n: margins[n])
    return (
        f" Smallest F1 margin over the better baseline: {margins[name]:+.3f} ({name}); "
        "accuracy is to be read beside the majority class."
    )


def verdict_line(route: str) -> str:
    return (
        "Stage 1 beats always-conflict and NLI alone on every held-out set: it stays in the "
        "route (two-stage)."
        if route == "two-stage"
        else "Stage 1 does NOT beat always-conflict and NLI alone on every held-out set, so "
        "every pair goes to stage 2 (`route: stage2-only` in pair_config.json; the pair "
        "stage's `method` starts with `stage1-off(...)`, and `models list` says so). Head 2 "
        "still types the conflicts stage 2 finds (its figures on gold conflicts below)."
    )


def _section(result: dict, command: str, ablations: list[dict] | None, verdict: str) -> list[str]:
    return [
        f"{SECTION_START} (held-out pairs)",
        "",
        (
            f"Produced by `{command}` (feature layout `{result['layout']}`; "
            "conflictdesk/analysis/pair_features.py: `emb4` = embeddings of "
            '"{query}\\n{passage}" as in ConflictRAG eq. 3; `emb4+nli6` adds NLI probabilities in '
            "both directions on the first 60 words of each passage; `stance` = each passage read "
            "by the NLI model against an answer statement built from the question (yes/no: its "
            "declarative form; a statement: itself; wh: the other passage's candidate answer), "
            "with the two stances' opposition, agreement and gap and the answer-value comparison; "
            "`emb4+stance` both). Sets are question-level splits never trained "
            "or calibrated on, sampled with a fixed seed (conflictdesk/training/pair_data.py). NLI "
            "alone = contradiction on top in either direction on the first 60 words of each "
            f"passage. Decision threshold on P(conflict): {result.get('threshold', 0.5):.2f}, "
            "the best pooled F1 on the development pairs (never on held-out sets)."
        ),
        "",
        *variant_lines(result),
        *heldout_lines(result["heldout"]),
        "",
        verdict,
        "",
        *ablation_lines(result, ablations),
        *dev_lines(result, ablations),
        *speed_lines(result),
        (
            "Per type (the product's typing: none below the threshold, else head 2's best "
            "conflict type). "
            "ConflictQA conflicts are factual and PERSPECTRUM conflicts opinion by construction; "
            "QACC/RAMDocs types come from the rules in conflictdesk/training/pair_types.py."
        ),
        "",
        *type_lines(result["heldout"]),
        "",
        (
            "Head 2 alone on the gold conflicts (its best conflict type; how stage-2 conflicts are "
            "typed):"
        ),
        "",
        *type_lines(result["heldout"], "per_type_given_conflict"),
        "",
        (
            f"Calibration: temperature {result['temperature']:.3f} fitted on the development pairs "
            "(ConflictQA dev, PERSPECTRUM dev samples, validation questions of the in-domain training pairs) and folded into the conflict head; ECE is the "
            "expected calibration error of max(p, 1 − p)."
        ),
        "",
        f"### Routing τ_c (development pairs; chosen τ_c = **{result['tau_c']}**)",
        "",
        (
            "Stage 1 settles a pair when max(p, 1 − p) ≥ τ_c; NLI alone decides the rest "
            "(1.01 = every pair to stage 2). Highest combined F1; ties within 0.005 go to the larger "
            "settled share."
        ),
        "",
        *routing_lines(result["routing_dev"]),
        "",
    ]


def _section_pattern() -> re.Pattern[str]:
    return re.compile(
        re.escape(SECTION_START) + r".*?(?=^" + re.escape(SECTION_END) + r")",
        re.DOTALL | re.MULTILINE,
    )


def read_section(report: Path) -> str | None:
    """The pair section of the report as committed, or None when it has none."""
    found = _section_pattern().search(report.read_text("utf-8")) if report.exists() else None
    return found.group(0).rstrip("\n") if found else None


def committed_report(report: Path, metrics: Path) -> str:
    """Without the training run's metrics (a fresh checkout): the report's pair section as
    committed, saying so."""
    section = read_section(report)
    if section is None:
        raise SystemExit(f"no {metrics} and no pair section in {report}: train first")
    return f"(no {metrics} here: the pair section of {report} as committed)\n\n{section}"


def replace_section(report: Path, lines: list[str]) -> None:
    """Swap the pair section of the report (up to the next top-level section) for `lines`."""
    text = report.read_text("utf-8") if report.exists() else ""
    body = "\n".join(lines) + "\n"
    pattern = _section_pattern()
    if pattern.search(text):
        text = pattern.sub(lambda _: body, text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + body
    report.write_text(text, "utf-8")
