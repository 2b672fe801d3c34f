"""The fusion labeller on the shipped weights and the shipped NLI model."""

from __future__ import annotations

import json

import pytest

from conflictdesk.cli import main

pytestmark = pytest.mark.integration

CLAIM = "The answer to the question When was the Quarry Bridge opened? is 1931."
DOCS = [
    "The Quarry Bridge over the Lune was opened to traffic in 1931 by the county council.",
    "The Quarry Bridge over the Lune was opened to traffic in 1928 by the county council.",
    "Tomatoes need warm soil and six hours of sun a day.",
]


def test_detect_with_the_fusion_labeller(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CONFLICTDESK_DB", str(tmp_path / "f.db"))
    line = json.dumps({"id": 7, "claim": CLAIM, "documents": DOCS})
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(line + "\n"))
    code = main(["detect", "-", "--labeller", "fusion"])
    out = capsys.readouterr().out
    assert code == 0, out
    record = json.loads(out.splitlines()[0])
    assert record["id"] == 7
    assert "fusion(conflictdesk-fusion-lr@" in record["method"]
    assert record["relations"] == ["SUPPORTS", "CONTRADICTS", "IRRELEVANT"]
    assert record["conflict"] is True
    assert all(0.34 <= c <= 1.0 for c in record["confidences"][:2])
    assert record["confidences"][2] is None  # gated: no model judged it


def test_detect_labels_answer_form_claims_with_fusion_by_default(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CONFLICTDESK_DB", str(tmp_path / "d.db"))
    free = "The Quarry Bridge over the Lune was opened in 1931."
    lines = [json.dumps({"id": n, "claim": claim, "documents": DOCS})
             for n, claim in ((1, CLAIM), (2, free))]  # fmt: skip
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("\n".join(lines) + "\n"))
    code = main(["detect", "-"])
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 0, out
    assert "fusion(conflictdesk-fusion-lr@" in out[0]["method"]
    assert out[0]["relations"] == ["SUPPORTS", "CONTRADICTS", "IRRELEVANT"]
    assert out[1]["method"].startswith("labels=nli(")
    assert "labelled by the encoder alone" in out[1]["method"]
    assert out[1]["relations"][0] == "SUPPORTS"
