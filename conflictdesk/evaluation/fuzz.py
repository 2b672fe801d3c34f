"""Fuzzing of every file reader and every batch command, in-process (`scripts/fuzz.py`).

Readers get generated and mutated files (bit flips, truncation, splices of escape sequences,
BOMs, NULs, deep nesting, other encodings, random bytes) through `read_data`; the only
allowed outcomes are documents or one InputError. Batch commands (`detect`, `score`, `ask`)
get generated and mutated JSON Lines through `conflictdesk.cli.main` on the real shipped
models, in chunks; each non-blank line must give exactly one JSON record and the exit status
must be 0 or 1. A chunk that raises is bisected down to the line that did it."""

from __future__ import annotations

import contextlib
import io
import json
import random
import signal
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from conflictdesk.cli import main as cli_main
from conflictdesk.errors import InputError
from conflictdesk.ingest.readers import read_data
from conflictdesk.locations import shipped_examples

NASTY = [b"\x00", b"\x1b]0;t\x07", b"\x1b[2J", b"\xef\xbb\xbf", b"\xff\xfe", b"\xed\xa0\x80",
         b"\xc3\x28", b"\xe2\x80\xae", b"\r\n", b"\n---\n", b"<script>", b"</p>", b"[" * 3000,
         b"{" * 500, b'"', b",", b"\\ud800", b"9" * 5000, b"1e999", b"NaN", b"%%EOF",
         b"obj <<", b"stream\n", b"endobj", b"\xf0\x9d\x94\x98"]  # fmt: skip


def seed_pdf(text: bytes) -> bytes:
    """A one-page PDF showing `text`, with a correct cross-reference table."""
    content = b"BT /F1 12 Tf 10 50 Td (" + text + b") Tj ET"
    objects = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        (
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 300 100]/Contents 4 0 R"
            b"/Resources<</Font<</F1 5 0 R>>>>>>"
        ),
        b"<</Length %d>>stream\n%s\nendstream" % (len(content), content),
        b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>",
        b"<</Title(Ferry)/CreationDate(D:20110601)>>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj%s endobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer<</Size %d/Root 1 0 R/Info 6 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


SEEDS: dict[str, list[bytes]] = {
    ".txt": [b"The harbour ferry started in 1911.\n\nIt still runs.\n"],
    ".md": [b"---\ntitle: Ferry\ndate: 2011-06-01\n---\n# Ferry\n\nStarted in 1911.\n"],
    ".html": [(b"<html><head><title>F</title><meta name='date' content='2011'></head>"
               b"<body><p>Ferry <b>1911</b></p><script>x()</script></body></html>")],
    ".json": [b'[{"text": "Ferry 1911", "title": "A", "date": "2011-01-02"}, "plain"]',
              b'{"documents": [{"text": "x", "url": "http://e"}]}'],
    ".jsonl": [b'{"text": "Ferry 1911"}\n{"text": "Bridge", "date": "May 2010"}\n'],
    ".csv": [b'text,title,date\n"Ferry, 1911",A,2011\nBridge,B,\n'],
    ".pdf": [seed_pdf(b"The ferry started in 1911."), seed_pdf(b"Bridge \\(1921\\)")],
}  # fmt: skip


class Hang(BaseException):
    """One input ran past its time limit (a BaseException, so no reader can swallow it)."""


def _alarm(signum, frame) -> None:
    raise Hang()


def mutate(rng: random.Random, data: bytes) -> bytes:
    """One to four random edits of `data`."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        pos = rng.randint(0, len(out))
        op = rng.randrange(7)
        if op == 0 and out:
            out[min(pos, len(out) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:
            out[pos:pos] = rng.choice(NASTY)
        elif op == 2:
            del out[pos : pos + rng.randint(1, 32)]
        elif op == 3:
            out = out[:pos]
        elif op == 4:
            out[pos:pos] = rng.randbytes(rng.randint(1, 16))
        elif op == 5 and out:
            start = rng.randrange(len(out))
            out[pos:pos] = out[start : start + rng.randint(1, 64)] * rng.randint(1, 20)
        else:
            out[pos:pos] = bytes(rng.choice(b"\x00\x07\x1b\x7f\x85\x9b") for _ in range(3))
    return bytes(out)


def reader_input(rng: random.Random, suffix: str) -> bytes:
    roll = rng.random()
    if roll < 0.1:
        return rng.randbytes(rng.randint(0, 300))
    seed = rng.choice(SEEDS[suffix])
    if roll < 0.2:
        return seed.decode("utf-8").encode(rng.choice(["utf-16", "utf-32", "latin-1"]), "replace")
    if roll < 0.3 and suffix in (".json", ".jsonl"):
        depth = rng.choice([50, 99, 101, 999, 5000])
        return b'{"text": "x", "m": ' + b"[" * depth + b"]" * depth + b"}"
    return mutate(rng, seed)


def fuzz_reader(suffix: str, count: int, rng: random.Random, limit_s: float) -> dict:
    stats = {"inputs": count, "documents": 0, "input_errors": 0, "crashes": []}
    for n in range(count):
        data = reader_input(rng, suffix)
        signal.setitimer(signal.ITIMER_REAL, limit_s)
        try:
            read_data(Path(f"fuzz{suffix}"), data)
            stats["documents"] += 1
        except InputError:
            stats["input_errors"] += 1
        except (Exception, Hang) as exc:  # noqa: BLE001 - what the fuzzer is looking for
            stats["crashes"].append({"input": n, "error": f"{type(exc).__name__}: {exc}"[:300],
                                     "data": data[:2000].hex()})  # fmt: skip
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return stats


# ---- batch lines -------------------------------------------------------------------------

BASE = {
    "detect": {"claim": "The ferry started in 1911.",
               "documents": ["The ferry started in 1911.", {"text": "It started in 1921.", "date": "2020"}]},
    "score": {"response": "The ferry started in 1911. It is red.",
              "documents": ["The ferry started in 1911.", "The ferry is blue."]},
    "ask": {"query": "When did the ferry start?",
            "documents": ["The ferry started in 1911.", {"text": "It began in 1921.", "title": "B"}]},
}  # fmt: skip


def odd_value(rng: random.Random, depth: int = 0):
    """A JSON value of a random type, strings full of control characters and escapes."""
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False, 0, -1, 2**70, 1.5e308, float("nan")])
    if kind in (2, 3, 4):
        parts = [rng.choice(["ferry", "1911", " ", "\x00", "\x1b[2J", "\u202e", "\ufeff", "é",
                             "\ud800", "\U0001d518", "\n", "\u2028", "a" * 300])
                 for _ in range(rng.randint(0, 8))]  # fmt: skip
        return "".join(parts)
    if kind == 5:
        return ""
    if kind in (6, 7):
        return [odd_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["text", "title", "date", "id", "x"]): odd_value(rng, depth + 1)
            for _ in range(rng.randint(0, 4))}  # fmt: skip


def batch_line(rng: random.Random, command: str, n: int) -> bytes:
    record = {"id": n, **json.loads(json.dumps(BASE[command]))}
    roll = rng.random()
    if roll < 0.1:
        return rng.randbytes(rng.randint(1, 80)).replace(b"\n", b" ").replace(b"\r", b" ")
    if roll < 0.5:
        for _ in range(rng.randint(1, 3)):
            field = rng.choice([*record, "id", "documents", "conflict_type"])
            if rng.random() < 0.2:
                record.pop(field, None)
            elif field == "documents" and rng.random() < 0.5:
                record[field] = [odd_value(rng) for _ in range(rng.randint(0, 4))]
            else:
                record[field] = odd_value(rng)
    line = json.dumps(record, allow_nan=True).encode("utf-8", "surrogatepass")
    if roll >= 0.75:
        line = mutate(rng, line)
    return line.replace(b"\n", b" ").replace(b"\r", b" ")


def run_lines(argv: list[str], lines: list[bytes], workdir: Path) -> str | None:
    """None when the batch kept its contract on `lines`, else what went wrong."""
    path = workdir / "batch.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli_main([argv[0], str(path), *argv[1:]])
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - what the fuzzer is looking for
        return f"{type(exc).__name__}: {exc}"[:300]
    records = out.getvalue().splitlines()
    expected = sum(1 for line in lines if line.strip())
    if code not in (0, 1) or len(records) != expected:
        return f"exit {code}, {len(records)} records for {expected} lines: {err.getvalue()[-300:]}"
    try:
        [json.loads(r) for r in records]
    except ValueError as exc:
        return f"output is not JSON Lines: {exc}"
    return None


def culprit(argv: list[str], lines: list[bytes], workdir: Path) -> tuple[bytes, str]:
    """Bisect a failing chunk down to one failing line."""
    while len(lines) > 1:
        half = lines[: len(lines) // 2]
        lines = half if run_lines(argv, half, workdir) else lines[len(lines) // 2 :]
    return lines[0], run_lines(argv, lines, workdir) or "fails only with its neighbours"


def fuzz_batch(command: str, count: int, rng: random.Random, chunk: int, db: Path) -> dict:
    argv = [command, "--db", str(db)] + (
        ["-c", "fuzz", "--strategy", "extractive"] if command == "ask" else []
    )
    stats: dict = {"inputs": count, "crashes": []}
    with tempfile.TemporaryDirectory() as tmp:
        for start in range(0, count, chunk):
            lines = [batch_line(rng, command, n) for n in range(start, min(start + chunk, count))]
            if run_lines(argv, lines, Path(tmp)):
                line, why = culprit(argv, lines, Path(tmp))
                stats["crashes"].append({"error": why, "line": line[:2000].hex()})
    return stats


Target = tuple[str, Callable[[random.Random], dict]]


def _targets(readers: Sequence[str], commands: Sequence[str], inputs: int, chunk: int,
             limit_s: float, db: Path) -> list[Target]:  # fmt: skip
    found: list[Target] = [
        (f"reader {s}", lambda rng, s=s: fuzz_reader(s, inputs, rng, limit_s)) for s in readers
    ]
    found += [(f"batch {c}", lambda rng, c=c: fuzz_batch(c, inputs, rng, chunk, db))
              for c in commands]  # fmt: skip
    return found


def run_campaign(*, inputs: int, seed: int, readers: Sequence[str], commands: Sequence[str],
                 chunk: int = 500, limit_s: float = 10.0,
                 on_target: Callable[[str, dict], None] | None = None) -> dict[str, dict]:  # fmt: skip
    """Every target with `inputs` inputs each; `on_target(name, stats)` after each one. The
    `ask` batches run against the example collection, ingested into a scratch database."""
    signal.signal(signal.SIGALRM, _alarm)
    report: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "fuzz.db"
        if "ask" in commands:
            with contextlib.redirect_stdout(io.StringIO()):
                cli_main(
                    ["ingest", str(shipped_examples() / "docs"), "-c", "fuzz", "--db", str(db)]
                )
        for name, run in _targets(readers, commands, inputs, chunk, limit_s, db):
            started = time.monotonic()
            stats = run(random.Random(f"{seed}:{name}"))
            stats["seconds"] = round(time.monotonic() - started, 1)
            report[name] = stats
            if on_target is not None:
                on_target(name, stats)
    return report
