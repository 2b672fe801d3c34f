"""Property tests (hypothesis): no input makes a reader or a batch command raise anything but
its one error. Example counts stay small here; `scripts/fuzz.py` runs the long campaign."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conflictdesk.errors import InputError
from conflictdesk.ingest.readers import SUPPORTED_SUFFIXES, FileResult, read_data

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))

# Text that tends to break things: controls, BOMs, lone surrogates' bytes, markup, deep nesting.
NASTY = st.sampled_from(["\x00", "\x1b[2J", "\ufeff", "\u202e", "\r\n", "---\n", "<script>", "{",
                         "[" * 50, '"', ",", "\n\n", "%PDF-1.4\n", "\\ud800", "é", "𝔘"])  # fmt: skip
TEXTISH = st.lists(st.one_of(st.text(max_size=40), NASTY), max_size=12).map("".join)
FILE_BYTES = st.one_of(
    st.binary(max_size=400),
    TEXTISH.map(lambda t: t.encode("utf-8", "surrogatepass")),
    TEXTISH.map(lambda t: t.encode("utf-16", "surrogatepass")),
)
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXTISH),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(["text", "title", "date", "id", "x"]), inner, max_size=4),
    ),
    max_leaves=12,
)


@SETTINGS
@given(suffix=st.sampled_from(SUPPORTED_SUFFIXES), data=FILE_BYTES)
def test_every_reader_returns_documents_or_one_input_error(suffix, data):
    try:
        result = read_data(Path(f"fuzz{suffix}"), data)
    except InputError as exc:
        assert str(exc)
        return
    assert isinstance(result, FileResult)
    assert result.documents or result.errors
    assert all(doc.text.strip() for doc in result.documents)


@SETTINGS
@given(suffix=st.sampled_from([".json", ".jsonl"]), records=st.lists(JSON_VALUES, max_size=5))
def test_record_readers_on_any_json(suffix, records):
    body = "\n".join(json.dumps(r) for r in records) if suffix == ".jsonl" else json.dumps(records)
    try:
        read_data(Path(f"fuzz{suffix}"), body.encode("utf-8", "surrogatepass"))
    except InputError:
        pass


LINE = st.one_of(
    st.binary(max_size=120),
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries(
        {"id": JSON_VALUES, "claim": JSON_VALUES, "response": JSON_VALUES, "query": JSON_VALUES,
         "question": JSON_VALUES},
        optional={"documents": st.lists(st.one_of(TEXTISH, JSON_VALUES), max_size=3)},
    ).map(lambda d: json.dumps(d).encode("utf-8", "surrogatepass")),
)  # fmt: skip


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    command=st.sampled_from(["detect", "score", "ask"]),
    lines=st.lists(LINE, min_size=1, max_size=6),
)
def test_batch_lines_give_one_record_each_and_never_a_traceback(
    command, lines, cli, fake_models, tmp_path_factory
):
    stdin = b"\n".join(line.replace(b"\n", b" ").replace(b"\r", b" ") for line in lines) + b"\n"
    db = tmp_path_factory.mktemp("db") / "cd.db"
    result = cli(command, "-", "--db", str(db), stdin=stdin)
    assert result.code in (0, 1), result.err
    assert "Traceback" not in result.err
    records = [json.loads(line) for line in result.out.splitlines()]
    expected = [line for line in stdin.split(b"\n") if line.strip()]
    assert len(records) == len(expected)
    failed = sum("error" in r for r in records)
    assert (result.code == 1) == (failed > 0)
