"""`conflictdesk detect / score / regenerate` end to end on fakes and a real SQLite store."""

from __future__ import annotations

import json

import pytest

from conflictdesk.cli import main
from conflictdesk.store import Store
from tests.fakes import fake_backends

DOCS = ["In 2010 Broken Bow had 3559 residents.", "Broken Bow had 10000 residents in 2011.",
        "Nebraska is a state in the Midwest."]  # fmt: skip
CLAIM = "Broken Bow had 3559 residents in 2010."


@pytest.fixture
def fakes(monkeypatch):
    """Route the commands' back-end loading to fakes; record the roles asked for."""
    state = {"backends": fake_backends(), "roles": []}

    def make_backends(settings, roles):
        state["roles"].append(tuple(roles))
        return state["backends"]

    monkeypatch.setattr("conflictdesk.cli.common.make_backends", make_backends)
    return state


def run(capsys, tmp_path, argv, lines):
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = main([*argv, str(path), "--db", str(tmp_path / "cd.db")])
    captured = capsys.readouterr()
    return code, [json.loads(x) for x in captured.out.splitlines()], captured.err


def test_detect_outputs_the_issue_format_and_caches(fakes, capsys, tmp_path):
    line = json.dumps({"id": "a", "claim": CLAIM, "documents": DOCS})
    code, out, err = run(capsys, tmp_path, ["detect"], [line])
    assert code == 0 and err == ""
    assert out[0]["id"] == "a"
    assert out[0]["relations"] == ["SUPPORTS", "CONTRADICTS", "IRRELEVANT"]
    assert out[0]["conflict"] is True
    assert len(out[0]["confidences"]) == 3
    assert out[0]["method"].startswith("labels=nli(fake-nli); fusion reads claims in")
    assert "; gate: 1 of 3" in out[0]["method"]
    assert out[0]["cached"] == {"hits": 0, "total": 2}
    assert fakes["roles"] == [("nli",)]
    code, again, _ = run(capsys, tmp_path, ["detect"], [line])
    assert again[0]["cached"] == {"hits": 2, "total": 2}
    assert again[0]["relations"] == out[0]["relations"]
    with Store.open(tmp_path / "cd.db") as store:
        runs = store.runs(kind="detect")
        assert len(runs) == 2
        assert runs[0]["output"]["conflict"] is True
        assert store.cache.count("label-nli") == 2


def test_bad_lines_give_error_objects_and_the_batch_goes_on(fakes, capsys, tmp_path):
    lines = [
        "{not json",
        json.dumps({"id": "no-docs", "claim": CLAIM}),
        json.dumps({"id": "empty-doc", "claim": CLAIM, "documents": ["ok", "  "]}),
        json.dumps({"id": "no-claim", "documents": DOCS}),
        json.dumps({"id": "good", "claim": CLAIM, "documents": DOCS}),
    ]
    code, out, err = run(capsys, tmp_path, ["detect"], lines)
    assert code == 1
    assert [o["id"] for o in out] == [1, "no-docs", "empty-doc", "no-claim", "good"]
    assert "invalid JSON" in out[0]["error"]
    assert "documents" in out[1]["error"]
    assert "empty document" in out[2]["error"]
    assert "claim" in out[3]["error"]
    assert "error" not in out[4] and out[4]["conflict"] is True
    assert err.count("conflictdesk: ") == 4 and "(id no-docs)" in err


def test_score_outputs_claims_and_scores(fakes, capsys, tmp_path):
    line = json.dumps({"id": 7, "response": f"{CLAIM} The mayor likes jazz.",
                       "documents": [DOCS[0], {"text": DOCS[1], "title": "Blog"}]})  # fmt: skip
    code, out, _ = run(capsys, tmp_path, ["score"], [line])
    assert code == 0
    result = out[0]
    assert set(result) == {"id", "claims", "cs_c", "cs_r", "method", "cached"}
    assert [c["text"] for c in result["claims"]] == [CLAIM, "The mayor likes jazz."]
    assert result["claims"][0]["relations"] == ["SUPPORTS", "CONTRADICTS"]
    assert result["claims"][0]["conflict"] is True and result["claims"][0]["ratio"] == 0.5
    assert result["claims"][1]["ratio"] is None
    assert (result["cs_c"], result["cs_r"]) == (0.5, 0.5)
    assert "no LLM configured" in result["method"]
    assert fakes["roles"] == [("nli", "llm")]


def test_no_gate_flag(fakes, capsys, tmp_path):
    line = json.dumps({"id": "a", "claim": CLAIM, "documents": DOCS})
    code, out, _ = run(capsys, tmp_path, ["detect", "--no-gate"], [line])
    assert code == 0 and out[0]["cached"] == {"hits": 0, "total": 3}
    assert "gate" not in out[0]["method"]


def test_score_variant_whole_response(fakes, capsys, tmp_path):
    line = json.dumps({"id": 1, "response": f"{CLAIM} The mayor likes jazz.", "documents": DOCS})
    code, out, _ = run(capsys, tmp_path, ["score", "--variant", "whole-response"], [line])
    assert code == 0 and len(out[0]["claims"]) == 1
    assert "variant=whole-response" in out[0]["method"]


def test_regenerate_without_llm_fails_clearly(fakes, capsys, tmp_path):
    line = json.dumps({"id": 1, "question": "q?", "response": CLAIM, "documents": DOCS})
    code, out, err = run(capsys, tmp_path, ["regenerate"], [line])
    assert code == 1 and out == []
    assert "regenerate needs an LLM" in err and "--llm" in err


def test_regenerate_with_llm(fakes, capsys, tmp_path):
    fakes["backends"] = fake_backends(with_llm=True)
    fakes["backends"].llm.enqueue(
        {"claims": [CLAIM]}, "Sources disagree on it.", {"claims": ["Sources disagree on it."]}
    )
    line = json.dumps({"id": "r", "question": "How many live in Broken Bow?", "response": CLAIM,
                       "documents": DOCS})  # fmt: skip
    code, out, _ = run(capsys, tmp_path, ["regenerate"], [line])
    assert code == 0
    assert out[0]["regenerated"] is True and out[0]["selected_claim"] == CLAIM
    assert (out[0]["supporting"], out[0]["contradicting"]) == ([0], [1])
    assert out[0]["before"]["cs_c"] == 1.0 and out[0]["after"]["cs_c"] == 0.0
    with Store.open(tmp_path / "cd.db") as store:
        assert (
            store.runs(kind="regenerate")[0]["output"]["revised_response"]
            == "Sources disagree on it."
        )


def test_stdin_input(fakes, capsys, tmp_path, monkeypatch):
    import io

    monkeypatch.setattr(
        "sys.stdin", io.StringIO(json.dumps({"id": "s", "claim": CLAIM, "documents": DOCS}) + "\n")
    )
    code = main(["detect", "-", "--db", str(tmp_path / "cd.db")])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["id"] == "s"


@pytest.mark.parametrize("command", ["detect", "score", "regenerate"])
def test_help_has_examples(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    assert "examples:" in text and f"conflictdesk {command}" in text and '"id"' in text


def test_detect_builds_the_answer_form_claim_from_a_question_and_its_answer(
    fakes, capsys, tmp_path
):
    line = json.dumps({"id": "q", "question": "How many people live in Broken Bow",
                       "answer": "3,559.", "documents": DOCS})  # fmt: skip
    bad = json.dumps({"id": "b", "question": "How many?", "documents": DOCS})
    code, out, err = run(capsys, tmp_path, ["detect", "--labeller", "nli"], [line, bad])
    assert code == 1
    assert out[0]["id"] == "q" and len(out[0]["relations"]) == len(DOCS)
    assert out[1] == {"id": "b", "error": out[1]["error"]}
    assert 'missing or empty "claim"' in out[1]["error"] and '"answer"' in out[1]["error"]
    # the default labeller reads the answer form with the fusion model, which the fakes lack
    code, out, err = run(capsys, tmp_path, ["detect"], [line])
    assert code != 0 and "fusion" in err and "--labeller nli" in err


def test_answer_claim_of_reads_as_the_fusion_labellers_form():
    from conflictdesk.app import answer_claim_of
    from conflictdesk.scoring.reading import frame_claim, is_answer_claim

    claim = answer_claim_of("How  many people live in Broken Bow", "3,559.")
    assert claim == "The answer to the question How many people live in Broken Bow? is 3,559."
    assert is_answer_claim(claim) and frame_claim(claim).answers == ("3,559",)
