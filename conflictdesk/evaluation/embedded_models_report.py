"""docs/model_report.md from the figures of `embedded_models.evaluate_models`, one function
per section."""

from __future__ import annotations

import re
from pathlib import Path

from conflictdesk.evaluation.embedded_models import PAIR_COMMAND, REFERENCE, fmt
from conflictdesk.training import pair_report


def header_lines(out: dict) -> list[str]:
    lines = [
        "# Embedded models: evaluation report",
        "",
        (
            f"Written by `{out['command']}` on {out['date']}. Models: `models/nli` "
            f"(conflictdesk-nli-minilm-int8, CTranslate2 int8 + numpy head, T = "
            f"{out['temperature']}) and `models/pair` (conflictdesk-pair-mlp-int8). All figures "
            "come from the shipped int8 artefacts through the product back-ends (windowed "
            "max-evidence rule for long premises)."
        ),
        "",
        (
            "**Reference** = the feasibility recipe of issue 4 (MiniLM-L6, ~75k-row pool, 3 "
            "epochs, no in-domain data, document truncated to 128 tokens)."
        ),
        "",
    ]
    if out.get("limit"):
        lines += [
            f"**Smoke run: NLI sets sampled to {out['limit']} rows; not the final figures.**",
            "",
        ]
    return lines


def nli_lines(out: dict) -> list[str]:
    lines: list[str] = []
    lines += [
        "## NLI accuracy",
        "",
        "| set | n | ours | majority baseline | reference | note |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in out["nli"]:
        acc = fmt(r["acc"]) + (f" (2-way {fmt(r['acc_2way'])})" if "acc_2way" in r else "")
        lines.append(
            f"| {r['set']} | {r['n']} | {acc} | {fmt(r['majority'])} | {fmt(r['reference'])} | {r.get('note', '')} |"
        )
    return lines


def claim_lines(out: dict) -> list[str]:
    lines: list[str] = []
    lines += [
        "",
        "## Claim × document relations (SUPPORTS / CONTRADICTS / IRRELEVANT)",
        "",
        (
            'Claims: "The answer to the question Q is A." (hedged "A or B" with all correct '
            "answers for RAMDocs); gold per the data README (correct → SUPPORTS, misinfo → "
            "CONTRADICTS, noise and one document of another question → IRRELEVANT; QACC: "
            "context supporting the claim's answer → SUPPORTS, another listed answer → "
            "CONTRADICTS, none → IRRELEVANT). Baselines: claim-only answer-string match "
            "(contains the claim's answer → SUPPORTS, else CONTRADICTS: the inputs the model "
            "gets) and the oracle string match, which also knows the question's other candidate "
            "answers (another candidate in the text → CONTRADICTS, neither → IRRELEVANT)."
        ),
        "",
        "| set | n | macro-F1 | acc | conflict F1 | claim-only match macro-F1 / conflict F1 | oracle match macro-F1 | oracle acc | oracle conflict F1 | majority macro-F1 / acc |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in out["claims"]:
        lines.append(
            f"| {r['set']} | {r['n']} | {fmt(r['macro_f1'])} | {fmt(r['acc'])} | {fmt(r['conflict_f1'])} | "
            f"{fmt(r['claim_match_macro_f1'])} / {fmt(r['claim_match_conflict_f1'])} | "
            f"{fmt(r['match_macro_f1'])} | {fmt(r['match_acc'])} | {fmt(r['match_conflict_f1'])} | "
            f"{fmt(r['majority_macro_f1'])} / {fmt(r['majority_acc'])} |"
        )
    lines.append(
        f"| reference (issue 4, RAMDocs, its own case set) | – | – | – | {REFERENCE['ramdocs_conflict_f1']} | "
        f"– / {REFERENCE['ramdocs_string_match_conflict_f1']} | – | – | – | – |"
    )
    lines += ["", "Confusion (gold->pred):", ""]
    for r in out["claims"]:
        lines.append(f"- {r['set']}: {r['confusion']}")
    return lines


def noise_lines(out: dict) -> list[str]:
    noise = out["type_noise"]
    return [
        (
            "Type labels of QACC/RAMDocs pairs are derived by rules "
            "(conflictdesk/training/pair_types.py), so their type figures measure agreement with "
            "the rule, not with people. How noisy the rule is: "
            f"it agrees with a looser variant on {fmt(noise['rule_variant_agreement'])} of "
            f"{noise['conflict_pairs']} training conflict pairs ({fmt(noise['indomain_agreement'])} "
            f"of the {noise['indomain_pairs']} in-domain ones); a hand check of 40 random training "
            f"conflict pairs agreed with the rule's type on {noise['handcheck']['agree']}/40 "
            f"(in-domain {noise['handcheck']['agree_indomain']}, NLI {noise['handcheck']['agree_nli']})."
        ),
        "",
    ]


def speed_lines(out: dict) -> list[str]:
    lines = [
        "## Speed (CTranslate2 int8, CPU)",
        "",
        "| pairs | threads | ours pairs/s | reference pairs/s |",
        "|---|---:|---:|---:|",
    ]
    for r in out["speed"]:
        lines.append(
            f"| {r['what']} | {r['threads']} | {fmt(r['pairs_per_s'], 1)} | {fmt(r.get('reference'))} |"
        )
    lines += [
        "",
        (
            "Machine load during the run is not controlled (colleagues' jobs share the 2 cores), "
            "so speeds are lower bounds."
        ),
        "",
    ]
    return lines


def markdown(out: dict) -> str:
    """The whole report; a smoke run (`limit`) says so at the top."""
    lines = header_lines(out) + nli_lines(out) + claim_lines(out)
    lines += ["", *pair_report.markdown(out["pairs"], PAIR_COMMAND)]
    lines += noise_lines(out) + speed_lines(out)
    if out.get("notes"):
        lines += ["## Notes", ""] + [f"- {n}" for n in out["notes"]] + [""]
    return "\n".join(lines)


def sections(text: str) -> list[tuple[str, str]]:
    """(heading, text) of each `## ` section of a Markdown report, in order; the part before
    the first heading is left out."""
    parts = re.split(r"(?m)^(?=## )", text)
    return [(part.splitlines()[0][3:].strip(), part) for part in parts if part.startswith("## ")]


def write_report(out: dict, path: Path) -> None:
    """Write the generated report; sections that other commands wrote into an existing report
    (training runs' records: the NLI continuation, the MPNet tier, the type model) are kept,
    after the generated ones, in their order."""
    text = markdown(out)
    if path.exists():
        generated = {heading for heading, _ in sections(text)}
        kept = [body for heading, body in sections(path.read_text("utf-8"))
                if heading not in generated]  # fmt: skip
        text = "\n".join([text.rstrip("\n"), "", *(body.rstrip("\n") + "\n" for body in kept)])
    path.write_text(text, "utf-8")
