"""The G-stage without an LLM: evidence table, stance, extractive answers per resolution rule."""

from __future__ import annotations

import dataclasses

import pytest

from conflictdesk.analysis.types import Candidate, Stance
from conflictdesk.errors import CapabilityError, UsageError
from conflictdesk.generation.adjudicate import (
    adjudicate,
    citation_violations,
    conflict_statement,
    evidence_table,
    rationale,
)
from conflictdesk.generation.answer import answer
from conflictdesk.generation.extractive import NO_ANSWER, extractive_answer
from conflictdesk.generation.report import (
    batch_record,
    is_disputed,
    leading_answer,
    render_report,
)
from conflictdesk.generation.types import AnswerSentence, SentenceRole
from conflictdesk.types import Tag
from tests.fakes import build_analysis, fake_backends

SCHEMA_KEYS = {
    "id",
    "stance",
    "conflict_type",
    "type_confidence",
    "type_uncertain",
    "kappa",
    "leading",
    "evidence",
    "clusters",
    "pairs",
    "answer",
    "conflict",
    "method",
}


def _outdated():
    return build_analysis(
        "Who is the CEO of Orvane?",
        [
            "Mira Castellane became CEO of Orvane. She led engineering.",
            "Tobiah Renn is the CEO of Orvane. He replaced Castellane.",
            "Orvane makes turbines in Dunmarsh.",
            "Renn was appointed chief executive of Orvane in 2024.",
        ],
        [("refute", 0.8), ("support", 0.9), ("irrelevant", 0.7), ("support", 0.6)],
        clusters=[[0], [1, 3], [2]],
        conflict_type="outdated",
        ranking=[1, 3, 0, 2],
        dates={0: "2018-03-12", 1: "2024-01-22", 3: "2024-02-01"},
        answers={0: "Mira Castellane", 1: "Tobiah Renn", 3: "Tobiah Renn"},
    )


def test_evidence_table_sorts_packet_passages_by_tag_with_rationales():
    analysis = _outdated()
    table = evidence_table(analysis)
    assert [r.passage_id for r in table.support] == [1, 3]
    assert [r.passage_id for r in table.refute] == [0]
    assert [r.passage_id for r in table.irrelevant] == [2]
    row = table.support[0]
    assert (
        row.rationale
        == 'support (0.90), answers "Tobiah Renn": "Tobiah Renn is the CEO of Orvane."'
    )


def test_evidence_table_covers_only_the_packet():
    analysis = build_analysis(
        "q", ["A one.", "B two.", "C three."], [("support", 0.9)] * 3, packet=[2, 0]
    )
    table = evidence_table(analysis)
    assert sorted(r.passage_id for r in table.rows()) == [0, 2]


def test_rationale_is_one_line_and_truncated():
    analysis = build_analysis("q", ["word " * 80 + "end."], [("support", 0.5)])
    line = rationale(analysis.tags[0])
    assert "\n" not in line and line.endswith('…"') and len(line) < 200


def test_stance_follows_the_delta_rule_of_the_analysis():
    # margin = (0.9 - 0.8) / 1.7 = 0.059 < δ = 0.1 → disputed
    close = build_analysis("q", ["a.", "b."], [("support", 0.9), ("refute", 0.8)])
    assert adjudicate(close) is Stance.DISPUTED
    # margin = (1.7 - 0.5) / 2.2 = 0.545 > δ → support
    lead = build_analysis(
        "q", ["a.", "b.", "c."], [("support", 0.9), ("support", 0.8), ("refute", 0.5)]
    )
    assert adjudicate(lead) is Stance.SUPPORT
    nothing = build_analysis("q", ["a."], [("irrelevant", 0.9)])
    assert adjudicate(nothing) is Stance.NOT_ENOUGH_INFO


def test_recency_answer_leads_with_the_newest_and_says_the_dates():
    sentences = extractive_answer(_outdated())
    assert sentences[0].text == "As of 2024-01-22: Tobiah Renn is the CEO of Orvane."
    assert sentences[0].cites == (1, 3)  # the cluster members holding the same answer
    assert sentences[1].text.startswith("Earlier (2018-03-12): Mira Castellane")
    note = sentences[-1]
    assert note.role is SentenceRole.CONFLICT
    assert 1 in note.cites and 0 in note.cites  # both sides


def test_no_sentence_cites_an_irrelevant_passage():
    for sentence in extractive_answer(_outdated()):
        assert 2 not in sentence.cites


def test_topsis_answer_leads_with_the_most_credible_and_flags_the_disputed_claim():
    analysis = build_analysis(
        "How tall is Mount Ysolde?",
        ["Mount Ysolde is 4,120 metres tall.", "Mount Ysolde rises to 2,841 metres."],
        [("support", 0.9), ("refute", 0.85)],
        conflict_type="misinformation",
        ranking=[1, 0],  # TOPSIS put the refuting passage first
        answers={0: "4,120 metres", 1: "2,841 metres"},
    )
    first, flagged = extractive_answer(analysis)
    assert first == AnswerSentence("Mount Ysolde rises to 2,841 metres.", (1,), SentenceRole.CLAIM)
    assert flagged.role is SentenceRole.CONFLICT
    assert "disputed" in flagged.text and "4,120" in flagged.text
    assert set(flagged.cites) == {0, 1}
    import dataclasses

    unsure = dataclasses.replace(
        analysis, verdict=dataclasses.replace(analysis.verdict, confidence=0.3, uncertain=True)
    )
    _, hedged = extractive_answer(unsure)
    assert "less credible" not in hedged.text and "uncertain" in hedged.text
    assert "4,120" in hedged.text and set(hedged.cites) == {0, 1}


def test_viewpoints_answer_gives_every_side_after_a_neutral_note():
    analysis = build_analysis(
        "Does the Brannock diet lower blood pressure?",
        [
            "The diet lowered pressure by 9 mmHg.",
            "A larger trial found no effect.",
            "Critics doubt it.",
        ],
        [("support", 0.8), ("refute", 0.9), ("refute", 0.6)],
        conflict_type="conflicting_opinions",
    )
    sentences = extractive_answer(analysis)
    assert sentences[0].role is SentenceRole.CONFLICT
    assert {0, 1} <= set(sentences[0].cites)
    claims = [s for s in sentences if s.role is SentenceRole.CLAIM]
    assert [s.cites for s in claims] == [(0,), (1,), (2,)]


def test_viewpoints_without_another_side_claims_no_disagreement():
    analysis = build_analysis(
        "Should Kelby build a relief road?",
        ["The relief road is needed.", "Kelby should build the road soon."],
        [("support", 0.7), ("support", 0.6)],
        conflict_type="conflicting_opinions",
    )
    sentences = extractive_answer(analysis)
    assert all(s.role is SentenceRole.CLAIM for s in sentences)
    assert [s.cites for s in sentences] == [(0,), (1,)]


def test_consolidate_gives_each_cluster_without_a_debate():
    analysis = build_analysis(
        "What does lumivex do?",
        ["Lumivex strengthens bones.", "Lumivex supports night vision."],
        [("support", 0.8), ("support", 0.7)],
        conflict_type="complementary",
    )
    sentences = extractive_answer(analysis)
    assert [s.role for s in sentences] == [SentenceRole.CLAIM, SentenceRole.CLAIM]
    assert [s.text for s in sentences] == [
        "Lumivex strengthens bones.",
        "Lumivex supports night vision.",
    ]


def test_direct_answer_is_one_sentence():
    analysis = build_analysis(
        "When was the lighthouse lit?",
        ["It was first lit in 1887.", "The light dates from 1887."],
        [("support", 0.9), ("support", 0.8)],
        answers={0: "1887", 1: "1887"},
    )
    (only,) = extractive_answer(analysis)
    assert only.text == "It was first lit in 1887."
    assert only.cites == (0, 1)  # other clusters holding the same answer are cited too


def test_nothing_relevant_abstains():
    analysis = build_analysis("q", ["Unrelated text."], [("irrelevant", 0.9)])
    (only,) = extractive_answer(analysis)
    assert only.text == NO_ANSWER and only.role is SentenceRole.ABSTAIN and only.cites == ()


def test_citation_violations_catch_one_sided_disagreement_and_uncited_claims():
    analysis = build_analysis("q", ["a.", "b."], [("support", 0.9), ("refute", 0.8)], packet=[0, 1])
    problems = citation_violations(
        analysis,
        [
            AnswerSentence("claim", (), SentenceRole.CLAIM),
            AnswerSentence("they disagree", (0,), SentenceRole.CONFLICT),
            AnswerSentence("other", (7,), SentenceRole.CLAIM),
        ],
    )
    assert problems == [
        "sentence 1 is a claim without a citation",
        "sentence 2 states the disagreement without citing both sides",
        "sentence 3 cites passages outside the packet: [7]",
    ]


def test_conflict_statement_names_both_sides():
    analysis = build_analysis(
        "q",
        ["a.", "b."],
        [("support", 0.9), ("refute", 0.8)],
        leading="X",
        conflict_type="misinformation",
    )
    text = conflict_statement(analysis, Stance.DISPUTED)
    assert text.startswith("Disputed (κ = 0.94)") and "[0]" in text and "[1]" in text
    assert "misinformation" in text


def test_conflict_statement_lists_differing_answers_the_tags_did_not_split():
    import dataclasses

    from conflictdesk.analysis.types import Candidate

    analysis = build_analysis(
        "When was the bridge built?",
        ["It opened in 1933.", "It was completed in 1932.", "A ferry ran before."],
        [("support", 0.9), ("support", 0.9), ("irrelevant", 0.8)],
        leading="1933",
        conflict_type="misinformation",
        packet=[0, 1],
    )
    frame = dataclasses.replace(
        analysis.tagging.frame,
        candidates=(
            Candidate("1933", "date", (0,), 1.0),
            Candidate("1932", "date", (1, 2), 1.0),  # passage 2 is outside the packet
        ),
    )
    verdict = dataclasses.replace(analysis.verdict, confidence=0.3, uncertain=True)
    analysis = dataclasses.replace(
        analysis, tagging=dataclasses.replace(analysis.tagging, frame=frame), verdict=verdict
    )
    text = conflict_statement(analysis, Stance.SUPPORT)
    assert not text.startswith("No disagreement")
    assert 'The passages give 2 different answers: "1933" [0]; "1932" [1]' in text
    assert "misinformation (uncertain: a reviewer should look)" in text
    one = dataclasses.replace(frame, candidates=frame.candidates[:1])
    agreeing = dataclasses.replace(
        analysis, tagging=dataclasses.replace(analysis.tagging, frame=one)
    )
    assert conflict_statement(agreeing, Stance.SUPPORT).startswith("No disagreement")


def test_answer_without_llm_is_extractive_and_says_so():
    result = answer(_outdated(), fake_backends())
    assert result.method["generation"] == "extractive:recency"
    assert result.method["parametric"] == "not run: no LLM configured"
    assert result.parametric is not None and not result.parametric.ran


def test_llm_strategy_without_llm_is_refused():
    with pytest.raises(CapabilityError, match="--llm"):
        answer(_outdated(), fake_backends(), "pipeline")
    with pytest.raises(UsageError, match="unknown strategy"):
        answer(_outdated(), fake_backends(), "shouting")


def test_batch_record_has_exactly_the_schema_keys():
    analysis = _outdated()
    record = batch_record("q1", analysis, answer(analysis, fake_backends()))
    assert set(record) == SCHEMA_KEYS
    assert record["conflict_type"] == "outdated"
    assert record["type_confidence"] is None and record["type_uncertain"] is False  # rules
    assert [e["id"] for e in record["evidence"]["support"]] == [1, 3]
    assert all(set(item) == {"sent", "cites"} for item in record["answer"])
    assert record["method"]["generation"] == "extractive:recency"


def _voted_wh(analysis, leading: str, holders: tuple[int, ...]):
    """`analysis` read as a wh-question whose most voted answer is `leading`."""
    analysis = _as_wh(analysis, leading)
    frame = dataclasses.replace(
        analysis.tagging.frame, candidates=(Candidate(leading, "entity", holders, 1.0),))
    return dataclasses.replace(analysis, tagging=dataclasses.replace(analysis.tagging, frame=frame))


def test_the_short_answer_is_the_newest_sources_under_recency_else_the_most_voted():
    outdated = _voted_wh(_outdated(), "Mira Castellane", (0,))  # pretend the old name won the votes
    result = answer(outdated, fake_backends())
    assert leading_answer(outdated, result) == {
        "text": "Tobiah Renn", "kind": "text", "passages": [1], "by": "recency"}  # fmt: skip
    assert batch_record("q", outdated, result)["leading"]["text"] == "Tobiah Renn"
    assert 'in short: "Tobiah Renn" [1] (the newest source)' in render_report(outdated, result)
    plain = _voted_wh(_outdated(), "Mira Castellane", (0,))
    plain = dataclasses.replace(
        plain, resolution=dataclasses.replace(plain.resolution, rule="direct"))
    assert leading_answer(plain, answer(plain, fake_backends())) == {
        "text": "Mira Castellane", "kind": "entity", "passages": [0], "by": "votes"}  # fmt: skip
    claim = _outdated()  # not a wh-question: no short answer
    assert leading_answer(claim, answer(claim, fake_backends())) is None
    said = "Tobiah Renn is the CEO of Orvane."  # a whole sentence read as the answer
    whole = _as_wh(_outdated(), said)
    frame = dataclasses.replace(
        whole.tagging.frame, candidates=(Candidate(said, "sentence", (1,), 1.0),))
    whole = dataclasses.replace(whole, tagging=dataclasses.replace(whole.tagging, frame=frame),
                                resolution=dataclasses.replace(whole.resolution, rule="direct"))
    result = answer(whole, fake_backends())
    assert leading_answer(whole, result)["kind"] == "sentence"  # JSON keeps it
    assert "in short:" not in render_report(whole, result)  # the report does not repeat it


def test_badge_needs_high_kappa_and_both_sides():
    disputed = build_analysis("q", ["a.", "b."], [("support", 0.9), ("refute", 0.8)])
    assert is_disputed(disputed)
    assert "[DISPUTED]" in render_report(disputed, answer(disputed, fake_backends()))
    empty = build_analysis("q", ["a."], [("irrelevant", 0.9)])  # κ = 1 but no mass
    assert not is_disputed(empty)
    one_sided = build_analysis("q", ["a.", "b."], [("support", 0.9), ("support", 0.8)])
    assert not is_disputed(one_sided)
    assert "[DISPUTED]" not in render_report(one_sided, answer(one_sided, fake_backends()))


def test_report_shows_table_type_and_cited_answer():
    analysis = _outdated()
    text = render_report(analysis, answer(analysis, fake_backends()))
    assert "type: outdated" in text
    assert "support    [1]" in text and "irrelevant [2]" in text
    assert "As of 2024-01-22: Tobiah Renn is the CEO of Orvane. [1][3]" in text
    assert Tag.SUPPORT.value in text


def test_answer_round_trips_through_its_stored_json():
    import json

    from conflictdesk.generation.types import Answer

    result = answer(_outdated(), fake_backends())
    stored = json.loads(json.dumps(result.to_json()))
    assert Answer.from_json(stored) == result


def test_a_mixed_cluster_still_shows_the_disputed_claim():
    analysis = build_analysis(
        "How tall is Mount Ysolde?",
        ["Ysolde is 2,841 m.", "Ysolde rises 2,841 m high.", "Ysolde is 4,120 metres tall."],
        [("support", 0.9), ("support", 0.8), ("refute", 0.5)],
        clusters=[[0, 1, 2]],  # one cluster holding both sides
        conflict_type="misinformation",
        answers={0: "2,841 m", 1: "2,841 m", 2: "4,120 metres"},
    )
    lead, flagged = extractive_answer(analysis)
    assert lead.cites == (0, 1)
    assert flagged.role is SentenceRole.CONFLICT and "4,120" in flagged.text
    assert set(flagged.cites) == {0, 2}


def _as_yes_no(analysis):
    """The hand-built analysis with its question read as a yes/no question."""
    import dataclasses

    from conflictdesk.analysis.types import QueryForm

    frame = dataclasses.replace(analysis.tagging.frame, form=QueryForm.YES_NO)
    return dataclasses.replace(analysis, tagging=dataclasses.replace(analysis.tagging, frame=frame))


@pytest.mark.parametrize(
    ("conflict_type", "lead", "expected"),
    [("no_conflict", "support", "Yes. "), ("no_conflict", "refute", "No. "),
     ("misinformation", "refute", "No. "), ("outdated", "support", "As of 2024-05-01: Yes. ")],
)  # fmt: skip
def test_a_yes_no_question_gets_yes_or_no_from_the_leading_side(conflict_type, lead, expected):
    other = "refute" if lead == "support" else "support"
    analysis = _as_yes_no(
        build_analysis(
            "Is the Kelmore bridge open to lorries?",
            ["The Kelmore bridge takes lorries again.", "Lorries are banned from the bridge."],
            [(lead, 0.9), (other, 0.6)],
            conflict_type=conflict_type,
            dates={0: "2024-05-01", 1: "2019-02-01"},
        )
    )
    first = extractive_answer(analysis)[0]
    assert first.text.startswith(expected) and first.role is SentenceRole.CLAIM
    assert first.text.endswith("The Kelmore bridge takes lorries again.")


def test_no_verdict_for_wh_questions_viewpoints_or_an_irrelevant_lead():
    wh = build_analysis("Who runs Orvane?", ["Renn runs Orvane."], [("support", 0.9)])
    assert extractive_answer(wh)[0].text == "Renn runs Orvane."
    debate = _as_yes_no(
        build_analysis(
            "Should Ambry build a relief road?",
            ["Ambry needs the road.", "The road would ruin the meadows."],
            [("support", 0.8), ("refute", 0.8)],
            conflict_type="conflicting_opinions",
        )
    )
    assert not any(s.text.startswith(("Yes.", "No.")) for s in extractive_answer(debate))


def _as_wh(analysis, leading):
    """The hand-built analysis with its question read as a wh-question led by `leading`."""
    import dataclasses

    from conflictdesk.analysis.types import QueryForm

    frame = dataclasses.replace(analysis.tagging.frame, form=QueryForm.WH, leading=leading)
    return dataclasses.replace(analysis, tagging=dataclasses.replace(analysis.tagging, frame=frame))


@pytest.mark.parametrize("conflict_type", ["no_conflict", "misinformation", "complementary"])
def test_a_wh_answer_leads_with_a_passage_that_states_the_leading_answer(conflict_type):
    # the first-ranked passage supports the claim but states no answer; the second states it
    analysis = _as_wh(
        build_analysis(
            "What language is spoken in the valley?",
            [
                "The valley is an alpine valley of 40,000 people.",
                "Most people there speak Hallish.",
            ],
            [("support", 0.9), ("support", 0.8)],
            conflict_type=conflict_type,
            answers={1: "Hallish"},
        ),
        "Hallish",
    )
    first = extractive_answer(analysis)[0]
    assert first.text == "Most people there speak Hallish."
    assert first.cites[0] == 1


def test_the_ranking_leads_when_no_passage_states_the_leading_answer():
    analysis = _as_wh(
        build_analysis(
            "When was the lighthouse lit?",
            ["It was first lit in 1887.", "The light dates from 1887."],
            [("support", 0.9), ("support", 0.8)],
            answers={0: "1887", 1: "1887"},
        ),
        "1890",
    )
    (only,) = extractive_answer(analysis)
    assert only.text == "It was first lit in 1887."


def _two_record_holders(conflict_type):
    # against the claim of the leading answer, the passage naming the other record holder
    # reads as neutral (Irrelevant); passage 2 holds no answer
    return build_analysis(
        "Who is the club's record goalscorer?",
        [
            "Piet Anwar scored 212 league goals, a club record.",
            "Tomas Herrin scored 241 goals in all competitions, more than anyone.",
            "The club museum opens on Saturdays.",
        ],
        [("support", 0.9), ("irrelevant", 0.6), ("irrelevant", 0.8)],
        conflict_type=conflict_type,
        answers={0: "Piet Anwar", 1: "Tomas Herrin"},
    )


def test_a_complementary_answer_combines_answers_the_claim_reads_as_neutral():
    sentences = extractive_answer(_two_record_holders("complementary"))
    assert [s.cites for s in sentences] == [(0,), (1,)]
    assert "Tomas Herrin" in sentences[1].text


@pytest.mark.parametrize("conflict_type", ["no_conflict", "misinformation", "outdated"])
def test_other_rules_cite_no_passage_tagged_irrelevant(conflict_type):
    for sentence in extractive_answer(_two_record_holders(conflict_type)):
        assert not {1, 2} & set(sentence.cites)


def test_report_says_how_a_reworded_query_was_read():
    import dataclasses

    typed = build_analysis("q", ["a.", "b."], [("support", 0.9), ("support", 0.8)])
    assert "read as" not in render_report(typed, answer(typed, fake_backends()))
    reworded = dataclasses.replace(typed, reworded="What is the q?")
    report = render_report(reworded, answer(reworded, fake_backends()))
    assert report.splitlines()[:2] == ["Q: q", "   read as: What is the q?"]
