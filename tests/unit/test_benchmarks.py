"""Smoke test of the benchmark suite at tiny sizes (structure, not timings) and of the README
table written from its JSON."""

from __future__ import annotations

import json

import pytest

from conflictdesk.benchmarks.ingest import ingest_in_child, write_big_file, write_folder
from conflictdesk.benchmarks.search import time_search
from conflictdesk.benchmarks.suite import SuiteOptions, cli_cold_start, run_suite
from conflictdesk.benchmarks.table import BEGIN, END, figures_table, replace_table

SUMMARY = {
    "quick": True, "threads": 2, "repeats": 1,
    "search": [{"passages": 100, "k": 5, "p50_ms": 1.5, "p95_ms": 2.5, "first_ms": 9.0,
                "first_minus_p50_ms": 7.5}],
    "scoring": [{"claims": 10, "documents": 10, "all_pairs_s": 9.0, "gated_s": 3.0,
                 "pruned_cold_s": 2.0, "pruned_stored_s": 1.0, "pruned_stored_vs_gated": 3.0,
                 "pruned_stored_vs_all_pairs": 9.0}],
    "models": {"cross_encoder": {"pairs_per_s": 40.0}, "llm_per_pair": {"pairs_per_s": 2.0},
               "cross_encoder_vs_llm_per_pair": 20.0,
               "torch_fp32": {"not_measured": "torch not installed"}},
    "cli": {"median_s": 0.4},
    "ingest": {
        "rate": {"passages_per_s": 50.0, "passages_per_cpu_s": 27.0, "passages": 450,
                 "peak_mb": 170.0},
        "ceiling": {"embedder_passages_per_cpu_s": 30.0, "max_passages_per_s": 74.0,
                    "cores": 2, "int8_gmacs_per_passage": 1.835, "int8_gmacs_per_cpu_s": 80.0,
                    "fp32_gmacs_per_passage": 0.144, "fp32_gmacs_per_cpu_s": 37.0},
        "folder": {"files": 300, "peak_mb": 185.0, "passages_per_s": 55.0},
        "big_file": {"megabytes": 50.0, "peak_mb": 246.0, "seconds": 16.0},
    },
}  # fmt: skip


def test_search_at_a_tiny_size_reports_first_and_warm_queries(tmp_path):
    row = time_search(tmp_path / "s.db", 60, 4, 5)
    assert row["passages"] == 60 and row["queries"] == 4
    assert 0 < row["p50_ms"] <= row["p95_ms"]
    assert list((tmp_path / "s.db.vectors").glob("*.npy"))  # the vector file was written


def test_ingest_runs_in_a_child_and_reports_its_own_peak(tmp_path):
    folder = write_folder(tmp_path / "docs", 3, 12)
    write_big_file(folder / "big.txt", 0.02, 3000)
    result = ingest_in_child([folder], embed=False, threads=1)
    assert result["documents"] == 4 and result["failed"] == 0
    assert result["passages"] > 4 and result["peak_mb"] > 10


def test_a_child_peak_is_not_its_parents(tmp_path):
    import numpy as np

    folder = write_folder(tmp_path / "docs", 2, 12)
    ballast = np.ones(400 * 2**20 // 8)  # 400 MB resident in this (the parent) process
    result = ingest_in_child([folder], embed=False, threads=1)
    assert ballast.sum() > 0 and 10 < result["peak_mb"] < 300


def test_cli_cold_start_runs_the_real_command():
    assert cli_cold_start(1)["median_s"] > 0


def test_suite_without_data_says_what_was_not_measured(tmp_path, monkeypatch):
    monkeypatch.delenv("CONFLICTDESK_DATA", raising=False)
    summary = run_suite(SuiteOptions(quick=True, repeats=1, parts=("scoring",)))
    assert "not_measured" in summary["scoring"]
    assert summary["machine"]["cores"] >= 1
    before, after = summary["load_average"]["scoring"]
    assert before >= 0 and after >= 0
    json.dumps(summary)


def test_table_rows_come_from_the_summary():
    table = figures_table(SUMMARY)
    assert "p50 1.5 ms, p95 2.5 ms" in table
    assert "every pair 9.0 s; gate (default) 3.0 s" in table and "3.0x the default" in table
    assert "40.0 pairs/s" in table and "20.0x faster" in table
    assert "torch not installed" in table
    models = {**SUMMARY["models"], "cross_encoder_vs_torch_fp32": 2.0,
              "torch_fp32": {"pairs_per_s": 20.0, "label_agreement_with_shipped": 1.0}}  # fmt: skip
    row = "20.0 pairs/s; the int8 cross-encoder is 2.0x faster (same labels on 100% of the pairs)"
    assert row in figures_table({**SUMMARY, "models": models})
    assert "30.0 passages per CPU-second (90%)" in table  # ingest's 27.0 beside the embedder's
    assert "74.0 passages/s on 2 cores: 1.835 G int8 MACs/passage at 80.0 G/CPU-s" in table


def test_table_names_the_cpu_the_int8_speeds_were_measured_on():
    machine = {"arch": "x86_64", "cores": 2, "cpu_flags": ["avx", "avx2", "avx512f", "avx512_vnni"]}
    table = figures_table({**SUMMARY, "machine": machine})
    assert "; CPU: 2 cores, x86_64, avx2, avx512f, avx512_vnni)" in table
    assert "CPU:" not in figures_table(SUMMARY)


def test_machine_record_reads_cpuinfo_flags(tmp_path):
    from conflictdesk.cpu import cpu_features, machine

    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse avx avx2 fma\n", "utf-8")
    assert cpu_features(cpuinfo) == ["avx", "avx2", "fma"]
    assert cpu_features(tmp_path / "absent") == []
    cpuinfo.write_text("flags\t\t: avx512f avx512_bf16 avx512_vnni\n", "utf-8")
    assert cpu_features(cpuinfo) == ["avx512f", "avx512_vnni", "avx512_bf16"]
    record = machine()
    assert record["cores"] >= 1 and isinstance(record["cpu_flags"], list)


@pytest.mark.parametrize("readme", ["# Title\n", f"# T\n\n{BEGIN}\nold\n{END}\n\nafter\n"])
def test_replace_table_is_idempotent(readme):
    once = replace_table(readme, figures_table(SUMMARY))
    assert replace_table(once, figures_table(SUMMARY)) == once
    assert once.count(BEGIN) == 1 and "\nold\n" not in once


def test_synthetic_padding_can_grow_a_collection_twice(tmp_path):
    from conflictdesk.benchmarks.search import SyntheticText, add_synthetic
    from conflictdesk.store import Store

    with Store.open(tmp_path / "p.db") as store:
        add_synthetic(store, "c", 12, SyntheticText(), "m@1")
        add_synthetic(store, "c", 8, SyntheticText(), "m@1")
        assert store.conn.execute("SELECT count(*) FROM passages").fetchone()[0] == 20


def test_search_also_adds_sizes_to_the_search_part_only(monkeypatch):
    from conflictdesk.benchmarks import search

    asked: list[int] = []
    monkeypatch.setattr(search, "time_search", lambda db, n, q, k: asked.append(n) or {"n": n})
    options = SuiteOptions(quick=True, repeats=1, parts=("search",), search_also=(1_000_000,))
    summary = run_suite(options)
    assert asked == [2_000, 10_000, 1_000_000] == [row["n"] for row in summary["search"]]
    assert options.search_sizes == [2_000, 10_000]  # what the ask part grows to


def test_fast_path_pairs_are_sentence_length_and_get_their_own_row():
    from conflictdesk.benchmarks.models import DOCUMENT, short_pairs

    pairs = short_pairs()
    assert len({premise for premise, _ in pairs}) == 3
    assert all(len(premise.split()) < len(DOCUMENT.split()) / 4 for premise, _ in pairs)
    models = {**SUMMARY["models"], "cross_encoder_short": {"pairs_per_s": 380.0}}
    row = "| cross-encoder, sentence-length pairs (issue 16's fast path) | 380.0 pairs/s |"
    assert row in figures_table({**SUMMARY, "models": models})
    assert "sentence-length" not in figures_table(SUMMARY)  # a summary from before the row


def test_fast_path_row_gives_the_cpu_second_rate_when_measured():
    short = {"pairs_per_s": 350.0, "pairs_per_cpu_s": 190.0}
    models = {**SUMMARY["models"], "cross_encoder_short": short}
    table = figures_table({**SUMMARY, "models": models})
    assert "| 350.0 pairs/s (190.0 per CPU-second) |" in table


def test_median_seconds_takes_the_clock_it_is_given():
    from conflictdesk.benchmarks.models import median_seconds

    ticks = iter(range(100))
    assert median_seconds(lambda: None, 3, clock=lambda: float(next(ticks))) == 1.0


def test_cascade_rows_give_the_share_mpnet_labelled():
    models = {**SUMMARY["models"], "cascade_short": {"pairs_per_s": 20.5, "escalated_share": 0.42}}
    table = figures_table({**SUMMARY, "models": models})
    assert "sentence-length pairs | 20.5 pairs/s (42% of the pairs labelled by MPNet) |" in table


def test_rates_read_the_fast_tier_under_a_cascade_and_the_cascade_on_request():
    from conflictdesk.backends.base import Backends
    from conflictdesk.backends.cascade_nli import CascadeNLI
    from conflictdesk.benchmarks.models import cross_encoder_rate, short_pairs
    from tests.fakes import FakeEmbedder, FakeNLI

    fast, accurate = FakeNLI(), FakeNLI()
    accurate.model_id = "fake-accurate"
    backends = Backends(FakeEmbedder(), CascadeNLI(fast, accurate, 1.01))
    fast_rate = cross_encoder_rate(backends, 1, short_pairs())
    assert fast_rate["model"] == "fake-nli" and "escalated_share" not in fast_rate
    assert accurate.history == []  # the fast path never reached the second tier
    cascade = cross_encoder_rate(backends, 1, short_pairs(), backends.nli)
    assert cascade["model"].startswith("cascade(") and cascade["escalated_share"] == 1.0
