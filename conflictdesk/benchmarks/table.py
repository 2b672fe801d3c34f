"""The README's performance table, written from the benchmark summary (so the two agree)."""

from __future__ import annotations

import re
from typing import Any

BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
COMMAND = "`scripts/bench.py`"


def _ingest_rows(ingest: dict) -> list[tuple[str, str]]:
    rate, folder, big = ingest["rate"], ingest["folder"], ingest["big_file"]
    return [
        ("ingest incl. embedding (~150-word passages)",
         (f"{rate['passages_per_s']} passages/s wall, {rate.get('passages_per_cpu_s')} per "
         f"CPU-second ({rate['passages']} passages), peak {rate['peak_mb']} MB")),
        *_ceiling_rows(ingest.get("ceiling"), rate),
        (f"ingest peak memory, {folder['files']}-file folder (embedded)",
         f"{folder['peak_mb']} MB ({folder['passages_per_s']} passages/s)"),
        (f"ingest peak memory, one {big['megabytes']:g} MB file (not embedded)",
         f"{big['peak_mb']} MB ({big['seconds']} s)"),
    ]  # fmt: skip


def _ceiling_rows(ceiling: Any, rate: dict) -> list[tuple[str, str]]:
    """The embedder alone and the CPU's bound, beside the ingest rate (when measured)."""
    if not isinstance(ceiling, dict):
        return []
    share = rate.get("passages_per_cpu_s", 0) / ceiling["embedder_passages_per_cpu_s"]
    return [
        ("embedder alone, same passages (ingest / embedder per CPU-second)",
         f"{ceiling['embedder_passages_per_cpu_s']} passages per CPU-second ({share:.0%})"),
        ("embedder bound on this CPU (int8 matmul rate, multiply-adds alone)",
         (f"{ceiling['max_passages_per_s']} passages/s on {ceiling.get('cores', 2)} cores: "
          f"{ceiling['int8_gmacs_per_passage']} G int8 MACs/passage at "
          f"{ceiling['int8_gmacs_per_cpu_s']} G/CPU-s, {ceiling['fp32_gmacs_per_passage']} G "
          f"fp32 at {ceiling['fp32_gmacs_per_cpu_s']} G/CPU-s")),
    ]  # fmt: skip


def _search_rows(rows: list[dict], ask: Any) -> list[tuple[str, str]]:
    out = []
    for r in rows:
        figure = (f"p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms; first query of a new process "
                  f"{r['first_ms']} ms (+{r['first_minus_p50_ms']} ms)")  # fmt: skip
        if "first_cpu_ms" in r:
            figure += f"; CPU time first {r['first_cpu_ms']} ms, warm p50 {r['p50_cpu_ms']} ms"
        out.append((f"search, {r['passages']:,} passages (k = {r['k']})", figure))
    for r in ask if isinstance(ask, list) else []:
        out.append((f"`ask` through Desk.ask, {r['passages']:,} passages ({r['real']:,} real)",
                    f"median {r['median_ms']} ms, p90 {r['p90_ms']} ms"))  # fmt: skip
    return out


def _model_rows(models: dict) -> list[tuple[str, str]]:
    ct2, llm, torch = models["cross_encoder"], models["llm_per_pair"], models["torch_fp32"]
    llm_text = llm.get("not_measured") or (
        f"{llm['pairs_per_s']} pairs/s; the cross-encoder is "
        f"{models['cross_encoder_vs_llm_per_pair']}x faster"
    )
    torch_text = torch.get("not_measured") or (
        f"{torch['pairs_per_s']} pairs/s; the int8 cross-encoder is "
        f"{models.get('cross_encoder_vs_torch_fp32')}x faster (same labels on "
        f"{torch.get('label_agreement_with_shipped', 0):.0%} of the pairs)"
    )
    rows = [("cross-encoder (int8, CTranslate2), claim x paragraph (~180 word pieces)",
             f"{ct2['pairs_per_s']} pairs/s")]  # fmt: skip
    if "cross_encoder_short" in models:
        short = models["cross_encoder_short"]
        per_cpu = (f" ({short['pairs_per_cpu_s']} per CPU-second)"
                   if "pairs_per_cpu_s" in short else "")  # fmt: skip
        rows.append(("cross-encoder, sentence-length pairs (issue 16's fast path)",
                     f"{short['pairs_per_s']} pairs/s{per_cpu}"))  # fmt: skip
    for key, what in (("cascade", "claim x paragraph"), ("cascade_short", "sentence-length")):
        if key in models:
            c = models[key]
            share = f"{c.get('escalated_share', 0):.0%} of the pairs labelled by MPNet"
            rows.append((f"labelling cascade (MiniLM, then MPNet below the band), {what} pairs",
                         f"{c['pairs_per_s']} pairs/s ({share})"))  # fmt: skip
    return [*rows,
            ("instead: LLM per pair (SmolLM2 GGUF fixture, Table 7 label scoring)", llm_text),
            ("instead: the same cross-encoder in PyTorch fp32", torch_text)]  # fmt: skip


def _scoring_rows(rows: list[dict]) -> list[tuple[str, str]]:
    return [(f"`score`, {r['claims']} claims x {r['documents']} documents",
             (f"every pair {r['all_pairs_s']} s; gate (default) {r['gated_s']} s; gate + pruning "
             f"{r['pruned_cold_s']} s cold, {r['pruned_stored_s']} s with stored vectors "
             f"({r['pruned_stored_vs_gated']}x the default, {r['pruned_stored_vs_all_pairs']}x "
             f"every pair); CPU s: {r.get('all_pairs_cpu_s')} / {r.get('gated_cpu_s')} / "
             f"{r.get('pruned_cold_cpu_s')} / {r.get('pruned_stored_cpu_s')}")) for r in rows]  # fmt: skip


def figures_table(summary: dict[str, Any]) -> str:
    """Markdown table rows of every measured part of `summary`."""
    rows: list[tuple[str, str]] = []
    if isinstance(summary.get("ingest"), dict):
        rows += _ingest_rows(summary["ingest"])
    if isinstance(summary.get("search"), list):
        rows += _search_rows(summary["search"], summary.get("ask"))
    if isinstance(summary.get("models"), dict) and "cross_encoder" in summary["models"]:
        rows += _model_rows(summary["models"])
    if isinstance(summary.get("scoring"), list):
        rows += _scoring_rows(summary["scoring"])
    if isinstance(summary.get("cli"), dict):
        rows.append(
            ("CLI cold start (`conflictdesk --version`)", f"{summary['cli']['median_s']} s")
        )
    mode = "quick sizes" if summary.get("quick") else "full sizes"
    lines = [(f"Measured by {COMMAND} ({mode}, {summary.get('threads')} threads, medians of "
             f"{summary.get('repeats')}{_machine_note(summary.get('machine'))}):"), "",
             "| what | figure |", "|---|---|"]  # fmt: skip
    return "\n".join(lines + [f"| {what} | {figure} |" for what, figure in rows])


def _machine_note(machine: Any) -> str:
    """ "; CPU: 2 cores, x86_64, avx2, avx512_vnni": the int8 speeds depend on it."""
    if not isinstance(machine, dict):
        return ""
    flags = [f for f in machine.get("cpu_flags", []) if f in ("avx2", "avx512f", "avx512_vnni")]
    cores, arch = machine.get("cores"), machine.get("arch")
    return f"; CPU: {cores} cores, {arch}, {', '.join(flags) or 'no AVX2'}"


def replace_table(readme: str, table: str) -> str:
    """`readme` with the text between the bench markers replaced (markers appended if absent)."""
    block = f"{BEGIN}\n{table}\n{END}"
    if BEGIN in readme and END in readme:
        return re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, readme,
                      flags=re.DOTALL)  # fmt: skip
    return readme.rstrip("\n") + "\n\n" + block + "\n"
