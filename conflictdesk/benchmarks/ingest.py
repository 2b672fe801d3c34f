"""Ingest throughput and peak memory, each measurement in a fresh child process
(`python -m conflictdesk.benchmarks.ingest SPEC`), whose own high-water mark is the peak
resident memory of that ingest alone (models loaded and warmed before the clock starts)."""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SUBJECTS = ["The harbour council", "A regional clinic", "Researchers at Tarnwick",
            "The ferry company", "Local farmers", "The museum board", "A consumer group"]  # fmt: skip
VERBS = ["announced", "reported", "questioned", "measured", "rejected", "described", "funded"]
OBJECTS = ["a plan to widen the old bridge", "the results of the winter survey",
           "a daily dose of 40 micrograms", "new opening hours for the summer",
           "the price of bread in March", "a study of sleep and memory"]  # fmt: skip
TAILS = ["", " after a long debate", " despite several objections", " in a report on Tuesday"]


def synthetic_text(rng: random.Random, sentences: int) -> str:
    """English-like paragraphs of 3–6 sentences of about 10 words each."""
    paragraphs, current = [], []
    for _ in range(sentences):
        current.append(f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}"
                       f"{rng.choice(TAILS)}.")  # fmt: skip
        if len(current) >= rng.randint(3, 6):
            paragraphs.append(" ".join(current))
            current = []
    paragraphs.append(" ".join(current))
    return "\n\n".join(p for p in paragraphs if p)


def write_folder(folder: Path, files: int, sentences: int, seed: int = 3) -> Path:
    """`files` Markdown documents with front matter."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        body = synthetic_text(rng, sentences)
        (folder / f"doc{i:05d}.md").write_text(
            f"---\ntitle: Doc {i}\ndate: 2020-01-{i % 28 + 1:02d}\n---\n{body}\n", "utf-8"
        )
    return folder


def write_big_file(path: Path, megabytes: float, long_line_chars: int, seed: int = 5) -> Path:
    """One text file of about `megabytes` MB whose first line is `long_line_chars` long."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        written = 0
        while written < long_line_chars:
            written += out.write(rng.choice(OBJECTS).replace(" ", "-") + " ")
        written += out.write("\n\n")
        while written < megabytes * 1_000_000:
            written += out.write(synthetic_text(rng, 60) + "\n\n")  # ASCII: chars = bytes
    return path


def own_peak_kb() -> int:
    """This process's peak resident kB: VmHWM where /proc has it, since Linux carries the
    parent's ru_maxrss across fork and exec (a child of a 300 MB parent reported 300 MB)."""
    try:
        status = Path("/proc/self/status").read_text("ascii")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def run_ingest(spec: dict[str, Any]) -> dict[str, Any]:
    """Ingest spec["paths"] into a new database; passages, seconds and this process's peak."""
    from dataclasses import replace

    from conflictdesk.app import Desk, load_settings

    settings = load_settings(threads=spec.get("threads", 2), device="cpu")
    settings = replace(settings, db_path=Path(spec["db"]))
    with Desk(settings) as desk:
        if spec.get("embed", True):
            desk.backends(("embedder",)).embedder.embed(["warm-up"])
        started, cpu = time.perf_counter(), time.process_time()
        report = desk.ingest([Path(p) for p in spec["paths"]], "bench",
                             embed=spec.get("embed", True), max_bytes=spec["max_bytes"])  # fmt: skip
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    peak_kb = own_peak_kb()
    return {"passages": report.passages_added, "documents": report.documents_added,
            "seconds": round(seconds, 2), "failed": len(report.failures),
            "passages_per_s": round(report.passages_added / max(seconds, 1e-9), 1),
            "cpu_s": round(cpu, 2),
            "passages_per_cpu_s": round(report.passages_added / max(cpu, 1e-9), 1),
            "peak_mb": round(peak_kb / 1024, 1)}  # fmt: skip


def in_child(spec: dict[str, Any]) -> dict[str, Any]:
    """`python -m conflictdesk.benchmarks.ingest SPEC` in a fresh interpreter (its peak
    memory is its own): an ingest, or with spec["mode"] "ceiling" the embedder's ceiling."""
    done = subprocess.run([sys.executable, "-m", "conflictdesk.benchmarks.ingest",
                           json.dumps(spec)], capture_output=True, text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"benchmark child failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def ingest_in_child(paths: list[Path], *, embed: bool, threads: int) -> dict[str, Any]:
    """run_ingest in a fresh interpreter, into a new database."""
    with tempfile.TemporaryDirectory() as tmp:
        return in_child({"paths": [str(p) for p in paths], "db": str(Path(tmp) / "ingest.db"),
                         "embed": embed, "threads": threads, "max_bytes": 200_000_000})  # fmt: skip


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of median wall rate, with every run's rate beside it."""
    ranked = sorted(runs, key=lambda run: run["passages_per_s"])
    return {**ranked[(len(ranked) - 1) // 2], "runs_passages_per_s": [r["passages_per_s"] for r in runs],
            "runs_passages_per_cpu_s": [r["passages_per_cpu_s"] for r in runs]}  # fmt: skip


def ingest_benchmark(work: Path, *, quick: bool, threads: int, repeats: int = 1) -> dict[str, Any]:
    """Rate on ~150-word passages (median of `repeats` runs) beside the embedder alone and the
    CPU's bound on the same passages; peak MB on a folder of many files and on one big file."""
    rate_files, folder_files, big_mb = (20, 30, 2.0) if quick else (150, 300, 50.0)
    rate_folder = write_folder(work / "rate", rate_files, 30)
    rate = median_run([ingest_in_child([rate_folder], embed=True, threads=threads)
                       for _ in range(max(repeats, 1))])  # fmt: skip
    ceiling = in_child({"mode": "ceiling", "paths": [str(rate_folder)], "threads": threads})
    folder = ingest_in_child([write_folder(work / "folder", folder_files, 30, seed=4)],
                             embed=True, threads=threads)  # fmt: skip
    big = write_big_file(work / "big.txt", big_mb, 1_000_000)
    big_run = ingest_in_child([big], embed=False, threads=threads)
    return {"rate": rate, "ceiling": ceiling, "folder": {"files": folder_files, **folder},
            "big_file": {"megabytes": big_mb, "embedded": False, **big_run}}  # fmt: skip


def child_main(spec: dict[str, Any]) -> dict[str, Any]:
    if spec.get("mode") == "ceiling":
        from conflictdesk.benchmarks.ceiling import embedder_ceiling

        return embedder_ceiling([Path(p) for p in spec["paths"]], spec["threads"])
    return run_ingest(spec)


if __name__ == "__main__":
    print(json.dumps(child_main(json.loads(sys.argv[1]))))
