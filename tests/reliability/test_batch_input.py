"""Bad bytes in a batch never end it: each bad line gets an error object, the batch goes on,
the exit status is 1."""

from __future__ import annotations

import json
import warnings

import pytest

GOOD = {
    "detect": {"claim": "Broken Bow had 3559 residents.", "documents": ["Broken Bow had 3559 residents."]},
    "score": {"response": "Broken Bow had 3559 residents.", "documents": ["Broken Bow had 3559 residents."]},
    "ask": {"query": "How many residents?", "documents": ["Broken Bow had 3559 residents."]},
}  # fmt: skip


def batch(command: str, bad: bytes) -> bytes:
    good = lambda n: json.dumps({"id": n, **GOOD[command]}).encode() + b"\n"
    return good(1) + bad + b"\n" + good(3)


def check(result, bad_id=2) -> list[dict]:
    assert result.code == 1, result.err
    records = [json.loads(line) for line in result.out.splitlines()]
    assert [r["id"] for r in records] == [1, bad_id, 3]
    assert "error" in records[1] and "error" not in records[0] and "error" not in records[2]
    assert "Traceback" not in result.err
    return records


@pytest.mark.parametrize("command", ["detect", "score", "ask"])
def test_invalid_utf8_on_stdin_fails_that_line_only(command, cli, fake_models, tmp_path):
    bad = b'{"id": 9, "claim": "caf\xe9", "query": "caf\xe9 \xff"}'
    result = cli(command, "-", "--db", str(tmp_path / "cd.db"), stdin=batch(command, bad))
    records = check(result)
    assert "UTF-8" in records[1]["error"]


def test_invalid_utf8_in_a_detect_file_fails_that_line_only(cli, fake_models, tmp_path):
    path = tmp_path / "claims.jsonl"
    path.write_bytes(batch("detect", b'{"id": 2, "claim": "\xc3\x28"}'))
    records = check(cli("detect", str(path), "--db", str(tmp_path / "cd.db")))
    assert "0xc3" in records[1]["error"]


@pytest.mark.parametrize(
    "bad",
    [b'{"id": 2, "claim": "\\ud800"}', b"[" * 100_000, b'{"id": ' + b"9" * 5000 + b"}"],
    ids=["lone-surrogate-escape", "deep-nesting", "huge-integer"],
)
def test_hostile_json_fails_that_line_only(bad, cli, fake_models, tmp_path):
    check(cli("detect", "-", "--db", str(tmp_path / "cd.db"), stdin=batch("detect", bad)))


def test_ask_batch_echoes_a_null_id_like_detect(cli, fake_models, tmp_path):
    line = json.dumps({"id": None, **GOOD["ask"]}).encode()
    result = cli("ask", "-", "--db", str(tmp_path / "cd.db"), stdin=line + b"\n")
    assert result.code == 0, result.err
    assert json.loads(result.out)["id"] is None
    result = cli("detect", "-", "--db", str(tmp_path / "cd.db"),
                 stdin=json.dumps({"id": None, **GOOD["detect"]}).encode())  # fmt: skip
    assert json.loads(result.out)["id"] is None


def test_a_library_warning_is_one_prefixed_line_not_a_python_warning(
    cli, fake_models, tmp_path, monkeypatch
):
    real_classify = fake_models.nli.classify

    def truncating(pairs):
        warnings.warn("hypothesis of 2000 tokens truncated to 128", stacklevel=2)
        return real_classify(pairs)

    monkeypatch.setattr(fake_models.nli, "classify", truncating)
    query = " ".join(["residents"] * 2000)
    line = json.dumps({"id": 1, "query": query, "documents": GOOD["ask"]["documents"]})
    result = cli("ask", "-", "--db", str(tmp_path / "cd.db"), stdin=line.encode())
    assert result.code == 0, result.err
    assert "conflictdesk: warning: hypothesis of 2000 tokens truncated to 128" in result.err
    assert "UserWarning" not in result.err and ".py:" not in result.err


@pytest.mark.integration
def test_a_2000_word_query_on_real_models_warns_in_one_prefixed_line(cli, tmp_path):
    query = " ".join(["residents"] * 2000)
    line = json.dumps({"id": 1, "query": query, "documents": GOOD["ask"]["documents"]})
    result = cli("ask", "-", "--db", str(tmp_path / "cd.db"), stdin=line.encode())
    assert result.code == 0, result.err
    assert "conflictdesk: warning:" in result.err and "truncated" in result.err
    assert "UserWarning" not in result.err
