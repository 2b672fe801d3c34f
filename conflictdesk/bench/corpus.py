"""The Ragability corpus: the paper's TSV columns (§2.2), read and validated row by row."""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from conflictdesk.errors import InputError

REASONING_TYPES = ("categorical", "numerical", "temporal.numerical", "temporal.relational")

COLUMNS = (
    "contradiction_ID",
    "reasoning_required_c1c2",
    "c1xq",
    "c2xq",
    "context_1",
    "context_2",
    "context_3_nc1_c2",
    "context_4_nc1_nc2_nc3",
    "query_text",
    "answer_context1",
    "answer_context1_long",
    "answer_context2",
    "answer_context2_long",
)
OPTIONAL_COLUMNS = ("WikiContradict_ID",)


@dataclass(frozen=True)
class CorpusEntry:
    """One corpus row: contexts 1 and 2 contradict each other, context 3 agrees with 1 and
    contradicts 2, context 4 contradicts none (§2.2.1)."""

    contradiction_ID: str
    reasoning_required_c1c2: str
    c1xq: str
    c2xq: str
    context_1: str
    context_2: str
    context_3_nc1_c2: str
    context_4_nc1_nc2_nc3: str
    query_text: str
    answer_context1: str
    answer_context1_long: str
    answer_context2: str
    answer_context2_long: str
    row: int = 0  # 1-based line number in the file (the header is line 1)

    @property
    def entry_id(self) -> str:
        """Unique per row: the paper gives two queries on one context pair the same ID."""
        digest = hashlib.sha256(self.query_text.encode("utf-8")).hexdigest()[:6]
        return f"{self.contradiction_ID}.{digest}"

    def fields(self) -> dict[str, str]:
        data = asdict(self)
        data.pop("row")
        return data


class CorpusError(InputError):
    """A corpus that breaks the column contract; `problems` has one line per bad row."""

    def __init__(self, path: str, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        shown = "\n  ".join(self.problems)
        super().__init__(f"{path}: {len(self.problems)} problem(s):\n  {shown}")


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).strip(" .")


def row_problem(fields: dict[str, str]) -> str | None:
    """The first broken contract of one row, in words, or None when the row is valid."""
    empty = [name for name in COLUMNS if not fields.get(name, "").strip()]
    if empty:
        return f"empty {', '.join(empty)}"
    reasoning = fields["reasoning_required_c1c2"].strip()
    if reasoning not in REASONING_TYPES:
        return f"reasoning_required_c1c2 {reasoning!r} is not one of {', '.join(REASONING_TYPES)}"
    c1, c2, c3, c4 = (
        _norm(fields[n])
        for n in ("context_1", "context_2", "context_3_nc1_c2", "context_4_nc1_nc2_nc3")
    )
    if c1 == c2:
        return "context_1 equals context_2, but they must contradict each other"
    if _norm(fields["answer_context1"]) == _norm(fields["answer_context2"]):
        return (
            "answer_context1 equals answer_context2: contexts 1 and 2 must give different answers"
        )
    if c3 in (c1, c2):
        return "context_3_nc1_c2 must be a new reformulation (agrees with 1, contradicts 2)"
    if c4 in (c1, c2, c3):
        return "context_4_nc1_nc2_nc3 repeats another context; it must add new, neutral content"
    return None


def _entries(rows: Iterable[dict[str, str]], path: str) -> list[CorpusEntry]:
    entries: list[CorpusEntry] = []
    problems: list[str] = []
    seen: dict[tuple[str, str], int] = {}
    for line, fields in enumerate(rows, start=2):
        problem = row_problem(fields)
        key = (fields.get("contradiction_ID", "").strip(), _norm(fields.get("query_text", "")))
        if problem is None and key in seen:
            problem = f"same contradiction_ID and query_text as row {seen[key]}"
        if problem:
            problems.append(f"row {line} (contradiction_ID {key[0] or '?'}): {problem}")
            continue
        seen[key] = line
        values = {name: fields[name].strip() for name in COLUMNS}
        entries.append(CorpusEntry(**values, row=line))
    if problems:
        raise CorpusError(path, problems)
    return entries


def read_corpus(path: str | Path) -> list[CorpusEntry]:
    """Every row of a Ragability TSV, validated; a CorpusError names each bad row."""
    name = str(path)
    try:
        with open(path, encoding="utf-8", newline="") as stream:
            reader = csv.DictReader(stream, delimiter="\t", quoting=csv.QUOTE_NONE)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
            if missing:
                raise CorpusError(name, [f"header: missing column(s) {', '.join(missing)}"])
            entries = _entries(reader, name)
    except OSError as exc:
        raise InputError(f"cannot read corpus {name}: {exc.strerror}") from exc
    if not entries:
        raise CorpusError(name, ["no rows"])
    return entries


def write_corpus(entries: Sequence[CorpusEntry], path: str | Path) -> None:
    """A TSV in the paper's column order (tabs and newlines inside cells become spaces)."""
    with open(path, "w", encoding="utf-8", newline="") as stream:
        stream.write("\t".join(COLUMNS) + "\n")
        for entry in entries:
            cells = entry.fields()
            stream.write("\t".join(" ".join(cells[c].split()) for c in COLUMNS) + "\n")


def corpus_digest(entries: Sequence[CorpusEntry]) -> str:
    """A short digest of the corpus content: runs on a changed corpus are new runs."""
    body = "\n".join("\t".join(e.fields()[c] for c in COLUMNS) for e in entries)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]
