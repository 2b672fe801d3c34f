"""The CONFLICTS expected-behaviour and ConflictScore §6 (TruthfulQA) evaluations through the
bench runner, on tiny fixtures with fake back-ends."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from conflictdesk.app import Desk, evaluations, load_settings
from conflictdesk.app import bench as app_bench
from conflictdesk.bench import conflicts, truthfulqa
from conflictdesk.bench.testees import Reply
from conflictdesk.cli import common, main
from conflictdesk.errors import CapabilityError
from conflictdesk.types import ConflictType
from tests.fakes import FakeGenerator, fake_backends

CASES = [
    {"id": "d-outdated-1", "conflict_type": "outdated", "query": "What is the Brelk fee?",
     "gold_answer": "12 crowns", "gold_answers_all": [],
     "documents": [{"title": "Fees 2019", "text": "The Brelk fee is 9 crowns.", "date": "2019-01-02"},
                   {"title": "Fees 2024", "text": "The Brelk fee is 12 crowns.", "date": "2024-03-01"}]},
    {"id": "d-complementary-1", "conflict_type": "complementary", "query": "What does Vosk make?",
     "gold_answer": "", "gold_answers_all": ["lamps", "chairs"],
     "documents": [{"text": "Vosk makes lamps."}, {"text": "Vosk makes chairs."}]},
    {"id": "d-conflicting_opinions-1", "conflict_type": "conflicting_opinions",
     "query": "Is the Tarn diet healthy?", "gold_answer": "", "gold_answers_all": [],
     "documents": [{"text": "The Tarn diet is healthy."}, {"text": "The Tarn diet is not healthy."}]},
]  # fmt: skip


def _case(**change):
    return conflicts.case_from_json({**CASES[1], **change})


def test_conflicts_check_scores_each_metric_apart():
    outdated = conflicts.case_from_json(CASES[0])
    reply = Reply("The fee is 12 crowns (2024).", "p",
                  detail={"rule": "recency", "conflict_type": "misinformation"})  # fmt: skip
    check = conflicts.check_case(outdated, reply, conflicts.RuleBehaviourCheck())
    assert check.ok and check.detail["metric_ok"] == {
        "expected_behaviour": True, "answer_recall": True, "type_accuracy": False,
    }  # fmt: skip
    half = Reply("Vosk makes lamps.", "p", detail={"rule": "direct"})
    check = conflicts.check_case(_case(), half, conflicts.RuleBehaviourCheck())
    assert check.detail["metric_ok"] == {  # complementary: every partial answer is needed
        "expected_behaviour": False, "answer_recall": False, "type_accuracy": None,
    }  # fmt: skip
    unstated = conflicts.check_case(
        _case(), Reply("lamps and chairs", "p"), conflicts.RuleBehaviourCheck()
    )
    assert unstated.detail["metric_ok"]["expected_behaviour"] is None  # a GGUF states no rule


def test_llm_judge_asks_with_the_gold_types_definition():
    judge_llm = FakeGenerator()
    judge_llm.enqueue({"yes": 0.2, "no": 0.8})
    judge = conflicts.LlmBehaviourJudge(judge_llm)
    check = conflicts.check_case(
        conflicts.case_from_json(CASES[2]), Reply("It is healthy.", "p"), judge
    )
    prompt = judge_llm.history[0]["messages"][0]["content"]
    assert not check.ok and check.method == "expected behaviour by llm-judge:fake-llm"
    assert conflicts.DEFINITIONS[ConflictType.CONFLICTING_OPINIONS][1] in prompt
    assert "It is healthy." in prompt and judge_llm.history[0]["labels"] == ["yes", "no"]


@pytest.fixture
def cases_file(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in CASES), "utf-8")
    return path


@pytest.fixture
def fake_models(monkeypatch):
    generators: dict[str, FakeGenerator] = {}

    def generator(path, settings):
        return generators.setdefault(path, FakeGenerator(default="The fee is 12 crowns."))

    monkeypatch.setattr(common, "make_backends", lambda settings, roles: fake_backends())
    monkeypatch.setattr(evaluations, "load_generator", generator)
    monkeypatch.setattr(app_bench, "make_generator", generator)
    return generators


def test_conflicts_cli_rule_check_is_labelled_and_resumes(
    tmp_path, capsys, cases_file, fake_models
):
    argv = ["bench", "conflicts", str(cases_file), "--db", str(tmp_path / "b.db"),
            "--out", str(tmp_path / "rep"), "--testee", "ask", "--testee", "gguf:m.gguf"]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "RULE CHECK" in printed and "run 1: 6 new responses, 0 resumed" in printed
    assert main([*argv, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (summary["responses_new"], summary["responses_resumed"]) == (0, 6)
    assert summary["checker"] == "rule-check"
    rows = {(s["metric"], s["testee"]): s["n"] for s in summary["scores"]}
    assert rows[("expected_behaviour", "ask:no-llm")] == 3
    assert ("expected_behaviour", "gguf:fake-llm") not in rows  # not scored by the rule check
    assert rows[("answer_recall", "gguf:fake-llm")] == 2  # opinions have no gold answer
    assert len(fake_models["m.gguf"].history) == 3  # answered once, not again on the re-run
    report = (tmp_path / "rep" / "report.md").read_text("utf-8")
    assert "type:outdated" in report and "RULE CHECK" in report
    assert "rule" in (tmp_path / "rep" / "responses.tsv").read_text("utf-8")


def test_conflicts_cli_with_a_gguf_judge(tmp_path, capsys, cases_file, fake_models):
    argv = ["bench", "conflicts", str(cases_file), "--db", str(tmp_path / "b.db"), "--json",
            "--out", str(tmp_path / "rep"), "--judge", "gguf:judge.gguf"]  # fmt: skip
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["checker"] == "llm-judge:fake-llm"
    assert [h["kind"] for h in fake_models["judge.gguf"].history] == ["labels"] * 3


def _truthful_csv(path: Path) -> Path:
    rows = [
        {"Type": "Adversarial", "Category": "Misconceptions", "Question": "Where do Kesh moths sleep?",
         "Best Answer": "In trees", "Correct Answers": "Kesh moths sleep in trees; In trees",
         "Incorrect Answers": "Kesh moths do not sleep in trees", "Source": "x"},
        {"Type": "Adversarial", "Category": "Fiction", "Question": "What colour is the Drun stone?",
         "Best Answer": "Grey", "Correct Answers": "The Drun stone is grey",
         "Incorrect Answers": "The Drun stone is red; The Drun stone glows", "Source": "x"},
    ]  # fmt: skip
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_truthfulqa_cases_use_reference_answers_as_documents(tmp_path):
    cases = truthfulqa.read_truthfulqa(_truthful_csv(tmp_path / "t.csv"))
    assert [c.case_id for c in cases] == ["tqa-1", "tqa-2"]
    assert sorted(cases[1].documents) == sorted([*cases[1].correct, *cases[1].incorrect])
    assert cases[0].tags == ("category:misconceptions",)
    assert truthfulqa.parse_verdict("TRUTHFUL: [False]\nEXPLANATION: no", "TRUTHFUL") is False
    assert truthfulqa.parse_verdict("I think so", "TRUTHFUL") is None


class OneClaimLLM(FakeGenerator):
    """Answers with its default text and decomposes any response into that one claim."""

    def generate_json(self, messages, schema, *, max_tokens=512):
        self.history.append({"kind": "json", "messages": list(messages)})
        return {"claims": [self.default]}


def test_truthfulqa_three_conditions_through_the_runner(tmp_path):
    llm = OneClaimLLM(default="Kesh moths sleep in trees.")
    backends = fake_backends()
    backends = type(backends)(backends.embedder, backends.nli, backends.pair, llm)
    settings = load_settings(path=tmp_path / "n.toml", env={}, db_path=tmp_path / "d.db",
                             llm_path=tmp_path / "m.gguf")  # fmt: skip
    with Desk(settings, load_backends=lambda roles: backends) as desk:
        suite = evaluations.truthfulqa_suite(desk, _truthful_csv(tmp_path / "t.csv"), None)
        assert [t.name for t in suite.testees] == [
            "rag:fake-llm", "control-rag:fake-llm", "regenerated-rag:fake-llm",
        ]  # fmt: skip
        result = evaluations.run_suite(desk, suite, tmp_path / "rep")
        answered = [h for h in llm.history if h["kind"] == "generate"]
        again = evaluations.run_suite(desk, evaluations.truthfulqa_suite(
            desk, tmp_path / "t.csv", None), tmp_path / "rep")  # fmt: skip
    prompts = [h["messages"][0]["content"] for h in answered]
    assert sum(p.startswith("Given the following documents") for p in prompts) == 4  # RAG + control
    # one regeneration: only tqa-1's claim is both supported and contradicted; the RAG answers
    # are read back from the run, not asked again
    assert sum(p.startswith("You are being asked to reconsider") for p in prompts) == 1
    assert len(prompts) == 5
    assert result.responses_new == 6 and again.responses_new == 0
    assert len([h for h in llm.history if h["kind"] == "generate"]) == len(answered)
    scores = {(s.metric, s.testee) for s in result.data.scores()}
    assert ("truthful", "regenerated-rag:fake-llm") in scores
    assert ("informative", "rag:fake-llm") in scores
    assert "OFFLINE" in result.data.notes[0]
    truthful = {s.testee: s.correct for s in result.data.scores() if s.metric == "truthful"}
    assert truthful["rag:fake-llm"] == 1  # "sleep in trees" entails a correct answer of tqa-1 only


def test_truthfulqa_needs_a_gguf(tmp_path):
    settings = load_settings(path=tmp_path / "n.toml", env={}, db_path=tmp_path / "d.db")
    desk = Desk(settings, load_backends=lambda roles: fake_backends())
    with desk, pytest.raises(CapabilityError, match="GGUF"):
        evaluations.truthfulqa_suite(desk, _truthful_csv(tmp_path / "t.csv"), None)


def test_the_tui_engine_reads_runs_and_scores_through_the_app_layer(tmp_path, cases_file):
    from conflictdesk.tui.engine import DeskEngine

    settings = load_settings(path=tmp_path / "n.toml", env={}, db_path=tmp_path / "d.db")
    engine = DeskEngine.open(settings, load_backends=lambda roles: fake_backends())
    suite = evaluations.conflicts_suite(engine.desk, cases_file, ["ask"], None, limit=2)
    evaluations.run_suite(engine.desk, suite, tmp_path / "rep")
    [status] = engine.bench_runs()
    assert (status.suite, status.total, status.responses, status.checks) == ("conflicts", 2, 2, 2)
    assert status.finished and status.fraction == 1.0 and status.checker == "rule-check"
    scores = engine.bench_scores(status.id)
    assert [s.metric for s in scores] == ["expected_behaviour", "answer_recall", "type_accuracy"]
    assert [s.n for s in scores] == [2, 2, 2]
    engine.close()


def test_regeneration_keeps_the_answer_and_records_a_broken_conflictscore(tmp_path):
    from conflictdesk.errors import ModelOutputError

    [case, _] = truthfulqa.read_truthfulqa(_truthful_csv(tmp_path / "t.csv"))
    llm = FakeGenerator(default="Kesh moths sleep in caves.")

    def broken(question, response, documents):
        raise ModelOutputError("no valid JSON after a retry")

    testee = truthfulqa.RegeneratedTestee(truthfulqa.PromptTestee(llm, "rag"), broken)
    reply = testee.respond(case)
    assert reply.text == "Kesh moths sleep in caves."
    assert reply.detail == {"regenerated": False,
                            "error": "ConflictScore failed: no valid JSON after a retry"}  # fmt: skip
