from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from conflictdesk.bench.corpus import (
    COLUMNS,
    REASONING_TYPES,
    CorpusError,
    read_corpus,
    write_corpus,
)
from conflictdesk.bench.importer import Skipped, guess_reasoning, import_record

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ragability.tsv"

GOOD = {
    "contradiction_ID": "7",
    "reasoning_required_c1c2": "numerical",
    "c1xq": "explicit",
    "c2xq": "implicit",
    "context_1": "The Zell tower is 40 metres tall.",
    "context_2": "The Zell tower's ten floors of 6 metres each make it 60 metres tall.",
    "context_3_nc1_c2": "The Zell tower's ten floors of 4 metres each make it 40 metres tall.",
    "context_4_nc1_nc2_nc3": "The Zell tower stands in the old square.",
    "query_text": "How tall is the Zell tower?",
    "answer_context1": "40 metres",
    "answer_context1_long": "The Zell tower is 40 metres tall.",
    "answer_context2": "60 metres",
    "answer_context2_long": "The Zell tower is 60 metres tall.",
}


def write_rows(path: Path, rows: list[dict[str, str]], columns=COLUMNS) -> Path:
    lines = ["\t".join(columns)] + ["\t".join(r[c] for c in columns) for r in rows]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def test_example_corpus_is_valid_with_every_reasoning_type():
    entries = read_corpus(EXAMPLE)
    assert len(entries) >= 20
    assert set(Counter(e.reasoning_required_c1c2 for e in entries)) == set(REASONING_TYPES)
    assert len({e.entry_id for e in entries}) == len(entries)


def test_each_bad_row_gets_one_error_naming_row_and_contract(tmp_path):
    same_12 = dict(GOOD, contradiction_ID="8", context_2=GOOD["context_1"])
    same_answers = dict(GOOD, contradiction_ID="9", answer_context2="40 metres")
    c3_is_c2 = dict(GOOD, contradiction_ID="10", context_3_nc1_c2=GOOD["context_2"])
    bad_type = dict(GOOD, contradiction_ID="11", reasoning_required_c1c2="spatial")
    empty = dict(GOOD, contradiction_ID="12", query_text=" ")
    rows = [GOOD, same_12, same_answers, c3_is_c2, bad_type, empty, dict(GOOD)]
    with pytest.raises(CorpusError) as info:
        read_corpus(write_rows(tmp_path / "c.tsv", rows))
    problems = info.value.problems
    assert len(problems) == 6
    assert problems[0].startswith("row 3 (contradiction_ID 8)") and "must contradict" in problems[0]
    assert "row 4" in problems[1] and "different answers" in problems[1]
    assert "row 5" in problems[2] and "context_3_nc1_c2" in problems[2]
    assert "row 6" in problems[3] and "'spatial'" in problems[3]
    assert "row 7" in problems[4] and "empty query_text" in problems[4]
    assert "row 8" in problems[5] and "same contradiction_ID and query_text as row 2" in problems[5]


def test_missing_column_is_a_header_error(tmp_path):
    columns = tuple(c for c in COLUMNS if c != "context_4_nc1_nc2_nc3")
    with pytest.raises(CorpusError, match="header: missing column.*context_4"):
        read_corpus(write_rows(tmp_path / "c.tsv", [GOOD], columns))


def test_write_then_read_round_trips(tmp_path):
    entries = read_corpus(EXAMPLE)[:3]
    write_corpus(entries, tmp_path / "out.tsv")
    again = read_corpus(tmp_path / "out.tsv")
    assert [e.fields() for e in again] == [e.fields() for e in entries]


def test_importer_builds_a_row_from_conflicting_documents():
    record = {
        "id": "dose",
        "query": "What is the maximum daily dose of Relvan?",
        "documents": [
            {"text": "Relvan: at most 400 mg a day.", "answer": "400 mg"},
            {"text": "Relvan is packed in blister strips."},
            {"text": "The maximum daily dose of Relvan is 250 mg.", "answer": "250 mg"},
            {"text": "Adults may take up to 400 mg of Relvan daily.", "answer": "400 mg"},
        ],
    }
    entry = import_record(record, 1)
    assert not isinstance(entry, Skipped)
    assert entry.context_2.endswith("250 mg.") and entry.context_3_nc1_c2.startswith("Adults")
    assert entry.context_4_nc1_nc2_nc3 == "Relvan is packed in blister strips."
    assert entry.reasoning_required_c1c2 == "numerical"
    assert entry.answer_context2_long == "The maximum daily dose of Relvan is 250 mg."


def test_importer_skips_records_without_an_agreeing_third_document():
    record = {
        "id": 3,
        "query": "Who won?",
        "documents": [{"text": "A won.", "answer": "A"}, {"text": "B won.", "answer": "B"},
                      {"text": "There was a match."}],
    }  # fmt: skip
    result = import_record(record, 1)
    assert isinstance(result, Skipped) and "third" in result.reason


def test_reasoning_guess():
    assert guess_reasoning(["1907"], []) == "temporal.numerical"
    assert guess_reasoning(["12 kg"], []) == "numerical"
    assert guess_reasoning(["Tom"], ["Tom left before Ann."]) == "temporal.relational"
    assert guess_reasoning(["a bird"], ["It is a bird."]) == "categorical"
