"""`ask`, `demo` and the NLI metrics on the shipped embedded models (no LLM)."""

from __future__ import annotations

import json

import pytest

from conflictdesk.errors import ModelMissingError
from conflictdesk.generation.answer import ask
from conflictdesk.generation.types import AnswerSentence, SentenceRole
from conflictdesk.metrics.citations import SUPPORTED, citation_quality, factual_grounding
from conflictdesk.types import ConflictType, Passage

pytestmark = pytest.mark.integration

DOCS = [
    Passage(0, "As of the census of 2010, there were 3,559 people living in Broken Bow, Nebraska."),
    Passage(1, "Broken Bow, Nebraska had a population of 10,000 people at the 2010 census."),
    Passage(
        2, "Broken Bow is the county seat of Custer County and lies near the Middle Loup River."
    ),
    Passage(3, "The 2010 census counted 3,559 people and 1,575 households in Broken Bow."),
]


@pytest.fixture(scope="module")
def backends():
    from conflictdesk.backends.registry import load_backends
    from conflictdesk.config import load_config

    try:
        return load_backends(load_config(), roles=("embedder", "nli", "pair"))
    except ModelMissingError as exc:
        pytest.skip(f"embedded models not built: {exc}")


def test_ask_on_inline_documents(backends):
    analysis, _result, record = ask("What is the population of Broken Bow?", DOCS, backends)
    assert record["conflict_type"] in {t.value for t in ConflictType}
    assert record["stance"] in {"support", "refute", "disputed", "not_enough_info"}
    assert 0.0 <= record["kappa"] <= 1.0
    # ask's analysis runs the cascade's first tier (the MiniLM) unless asked for the cascade
    assert record["method"]["nli"] == getattr(backends.nli, "fast", backends.nli).model_id
    assert record["method"]["generation"].startswith("extractive:")
    assert record["answer"] and all(set(s) == {"sent", "cites"} for s in record["answer"])
    cited = {c for s in record["answer"] for c in s["cites"]}
    assert cited <= set(analysis.packet.passage_ids) <= {0, 1, 2, 3}
    evidence = record["evidence"]
    assert sorted(r["id"] for rows in evidence.values() for r in rows) == sorted(
        analysis.packet.passage_ids
    )
    assert set(analysis.timings) >= {"tag", "cluster", "pairs", "classify", "resolve"}


def test_nli_metrics_on_a_copied_sentence(backends):
    passages = {p.id: p.text for p in DOCS}
    copied = AnswerSentence(DOCS[0].text, (0,))
    note = AnswerSentence("The sources disagree.", (0, 1), SentenceRole.CONFLICT)
    quality = citation_quality([copied, note], passages, backends.nli)
    assert quality.recall == 1.0 and quality.precision == 1.0
    assert quality.leakage is None or 0.0 <= quality.leakage <= 1.0
    grounding = factual_grounding([copied, note], passages, backends.nli)
    assert grounding.labels[0] == SUPPORTED and grounding.grounding == 1.0


def test_demo_runs_on_the_examples(backends, tmp_path, capsys, monkeypatch):
    from conflictdesk.cli import common, main

    monkeypatch.setattr(common, "make_backends", lambda settings, roles: backends)
    code = main(["demo", "--db", str(tmp_path / "demo.db"), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == 6
    for record in records:
        assert record["conflict_type"] in {t.value for t in ConflictType}
        assert record["answer"] and record["expected_type"]


def _ask_methods(backends, tmp_path, capsys, monkeypatch, flags: list[str]) -> dict:
    """`ask -` on one Broken Bow question with `flags`: the output's method record."""
    import io

    from conflictdesk.cli import common, main

    monkeypatch.setattr(common, "make_backends", lambda settings, roles: backends)
    line = {"id": "q", "query": "What is the population of Broken Bow?",
            "documents": [p.text for p in DOCS]}  # fmt: skip
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(line) + "\n"))
    code = main(["ask", "-", "--db", str(tmp_path / "r.db"), *flags])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)["method"]


@pytest.mark.parametrize("ranker", ["rules", "model"])
def test_ask_ranker_flag_reaches_the_analysis(backends, tmp_path, capsys, monkeypatch, ranker):
    methods = _ask_methods(backends, tmp_path, capsys, monkeypatch, ["--ranker", ranker])
    method = methods["answer_ranker"]
    assert method.startswith("rule votes") == (ranker == "rules"), method


@pytest.mark.parametrize("reader", ["rules", "model"])
def test_ask_reader_flag_reaches_the_claim_frame(backends, tmp_path, capsys, monkeypatch, reader):
    tag_method = _ask_methods(backends, tmp_path, capsys, monkeypatch, ["--reader", reader])["tag"]
    assert ("+reader:conflictdesk-span-reader-lr@" in tag_method) == (reader == "model"), tag_method


@pytest.mark.parametrize("verdict", ["type", "model"])
def test_ask_verdict_flag_reaches_the_conflict_call(backends, tmp_path, capsys, monkeypatch,
                                                    verdict):  # fmt: skip
    methods = _ask_methods(backends, tmp_path, capsys, monkeypatch, ["--verdict", verdict])
    method = methods["conflict_type"]
    assert ("conflict call:" in method) == (verdict == "model"), method


@pytest.mark.parametrize("verdict", ["rule", "model"])
def test_detect_verdict_flag_gives_the_decision(backends, tmp_path, capsys, monkeypatch, verdict):
    import io

    from conflictdesk.cli import common, main

    monkeypatch.setattr(common, "make_backends", lambda settings, roles: backends)
    line = {"id": 1, "claim": "Broken Bow had 3,559 people in 2010.",
            "documents": [p.text for p in DOCS]}  # fmt: skip
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(line) + "\n"))
    code = main(["detect", "-", "--db", str(tmp_path / "d.db"), "--verdict", verdict])
    out, err = capsys.readouterr()
    assert code == 0, err
    record = json.loads(out)
    if verdict == "model":
        decision = record["decision"]
        assert decision["conflict"] == record["conflict"] and 0.0 <= decision["probability"] <= 1
    else:
        assert record["decision"] is None


@pytest.mark.parametrize(
    ("question", "texts", "verdict"),
    [
        ("Does the Quillon turbine need an annual inspection?",
         ["Every Quillon turbine must be inspected once a year by a certified engineer.",
          "Owners of a Quillon turbine are required to have it inspected every year."], "Yes. "),
        ("Is the Brennick vaccine given as a single dose?",
         ["The Brennick vaccine is not a single dose: two doses are given two months apart.",
          "Brennick requires two doses; one dose alone does not protect."], "No. "),
    ],
)  # fmt: skip
def test_yes_no_question_all_sources_answer_alike_is_no_conflict_with_a_verdict(
    backends, question, texts, verdict
):
    passages = [Passage(i, t, i) for i, t in enumerate(texts)]
    analysis, result, _ = ask(question, passages, backends, check_parametric=False)
    assert analysis.verdict.type is ConflictType.NO_CONFLICT, analysis.verdict.rationale
    # the type model calls these no conflict itself since session 17; before, the unanimity
    # rule (classify.UNANIMOUS_CONFIDENCE, unit-tested) overrode its conflict call
    assert analysis.verdict.method.startswith("model:")
    assert result.sentences[0].text.startswith(verdict)
