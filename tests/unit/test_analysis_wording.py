"""The question a query asks (`analysis/wording.py`): wrappings of English rewritten, content
words kept, and questions already in the reader's form left as they are."""

import pytest

from conflictdesk.analysis.claims import answer_kind, declarative, query_form
from conflictdesk.analysis.types import QueryForm
from conflictdesk.analysis.wording import asked_question


@pytest.mark.parametrize(
    "query",
    [
        "What is the population of Broken Bow?",
        "Does coffee cause cancer?",
        "Is intermittent fasting effective?",
        "Coffee causes cancer.",
        "Coffee causes cancer",
        "The tower opened in 1889",
        "The act was an effort to ensure voting rights for?",
        "How many moons does Mars have?",
        "Paris, the capital of France, is large",
        "Can you tell me?",
        "-",
        "Aspirin - it reduces fever",
    ],
)
def test_questions_and_claims_in_the_readers_form_are_kept(query):
    assert asked_question(query) == query


@pytest.mark.parametrize(
    ("query", "asked"),
    [
        ("Can you tell me who the author of the report is?", "Who is the author of the report?"),
        ("Could you tell me which team won the cup?", "Which team won the cup?"),
        ("Tell me what the bridge was made from.", "What was the bridge made from?"),
        # no auxiliary to move: the embedded words stay in their order
        ("I would like to know when the museum opened.", "When the museum opened?"),
        ("Please tell me the name of the mayor.", "What is the name of the mayor?"),
        (
            "Tell me the name of the person who is head coach of the Falcons.",
            "What is the name of the person who is head coach of the Falcons?",
        ),
        ("Do you know where the head office is?", "Where is the head office?"),
        ("Can you tell me how tall Mount Orla is?", "How tall is Mount Orla?"),
        ("Tell me what colour the eggs are.", "What colour are the eggs?"),
        ("Would you say the project was successful?", "Was the project successful?"),
        (
            "Can you tell me whether the museum holds the manuscript?",
            "Is it true that the museum holds the manuscript?",
        ),
    ],
)
def test_a_request_gives_the_question_inside_it(query, asked):
    assert asked_question(query) == asked


@pytest.mark.parametrize(
    ("query", "asked"),
    [
        ("Orlin bridge - when did it open?", "When did Orlin bridge open?"),
        ("The trial: did it lower blood pressure?", "Did the trial lower blood pressure?"),
        ("Ada Vell - was Winter his best book?", "Was Winter Ada Vell's best book?"),
        (
            "2 kg parcel: is post cheaper than courier?",
            "Is post cheaper than courier (2 kg parcel)?",
        ),
        ("In the 2018 final, did Okonjo score?", "Did Okonjo score in the 2018 final?"),
        ("If I build a shed, do I need a permit?", "Do I need a permit if I build a shed?"),
        (
            "2nd Duke of Newcastle, what year was he born?",
            "What year was 2nd Duke of Newcastle born?",
        ),
    ],
)
def test_a_question_after_a_topic_or_a_fronted_phrase_is_read_whole(query, asked):
    assert asked_question(query) == asked


@pytest.mark.parametrize(
    ("query", "asked"),
    [
        (
            "Tessel Gazette online archive - free?",
            "Is it true that Tessel Gazette online archive free?",
        ),
        ("Orla County deck: permit required?", "Is it true that Orla County deck permit required?"),
    ],
)
def test_a_topic_and_a_short_predicate_without_an_auxiliary_ask_yes_or_no(query, asked):
    assert asked_question(query) == asked
    assert query_form(asked) is QueryForm.YES_NO


@pytest.mark.parametrize(
    "query",
    [
        "Ada Vell - Orla Music Prize 2019 winner?",  # a longer tail may ask for a value
        "First chief of army staff of the Orla navy?",  # no dash: a keyword wh-question
        "Orla bridge - when?",
    ],
)
def test_longer_tails_and_undashed_keyword_questions_are_not_made_yes_or_no(query):
    assert not asked_question(query).startswith("Is it true")


@pytest.mark.parametrize(
    ("query", "asked", "kind"),
    [
        ("Orlin Arena seating capacity", "What is the seating capacity of Orlin Arena?",
         "number"),
        ("Pellmark Distillery founding year", "What is the founding year of Pellmark Distillery?",
         "date"),
        ("Mount Orla height", "What is the height of Mount Orla?", "number"),
        ("Gallery of Modern Art opening date", "What is the opening date of Gallery of Modern Art?",
         "date"),
        ("Brantley ferry ticket price", "What is the ferry ticket price of Brantley?", "number"),
        ("ferry ticket price in Brantley", "What is the ferry ticket price in Brantley?", "number"),
        ("airline founded by Tomas Varkell", "What is the airline founded by Tomas Varkell?", "any"),
        ("Orvalis Nimbus 7 Pro RAM", "What is the RAM of Orvalis Nimbus 7 Pro?", "any"),
        ("Orvalis Nimbus 7 Pro", "What is Orvalis Nimbus 7 Pro?", "sentence"),
        ("photosynthesis", "What is photosynthesis?", "sentence"),
    ],
)  # fmt: skip
def test_a_keyword_query_asks_for_a_value(query, asked, kind):
    assert asked_question(query) == asked
    assert query_form(asked) is QueryForm.WH and answer_kind(asked) == kind


def test_keyword_query_before_the_rewording_was_read_as_a_claim():
    # the defect this module mends: a keyword query was a statement to verify
    assert query_form("Pellmark Distillery founding year") is QueryForm.CLAIM


def test_a_statement_inside_a_request_keeps_its_words_as_the_claim():
    asked = asked_question("Do you think coffee causes cancer?")
    assert query_form(asked) is QueryForm.YES_NO
    assert declarative(asked) == "Coffee causes cancer"


def test_wh_contractions_are_spelt_out():
    assert asked_question("who's the mayor of Orlin") == "Who is the mayor of Orlin"


@pytest.mark.parametrize("query", ["", "   ", "what is the capital of France?"])
def test_a_query_no_rule_rewrites_comes_back_as_typed(query):
    assert asked_question(query) == query


def test_a_noun_phrase_in_a_request_is_read_as_a_keyword_query():
    assert asked_question("Tell me Mount Orla height.") == "What is the height of Mount Orla?"
