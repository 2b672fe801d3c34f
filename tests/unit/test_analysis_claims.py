"""From a query to a claim: query forms, declarative forms, candidate answers."""

from __future__ import annotations

import pytest

from conflictdesk.analysis.claims import (
    answer_claim,
    answer_kind,
    answer_spans,
    declarative,
    frame_query,
    nearest_span,
    passage_answer,
    query_form,
)
from conflictdesk.analysis.types import QueryForm
from conflictdesk.types import Passage


@pytest.mark.parametrize(
    ("query", "form"),
    [
        ("Is intermittent fasting effective for weight loss?", QueryForm.YES_NO),
        ("Does coffee cause cancer?", QueryForm.YES_NO),
        ("How many countries have recognized same-sex marriage?", QueryForm.WH),
        ("In which year did the bridge open?", QueryForm.WH),
        ("Coffee causes cancer.", QueryForm.CLAIM),
        ("The voting rights act of 1965 was an effort to ensure voting rights for?", QueryForm.WH),
    ],
)
def test_query_form(query, form):
    assert query_form(query) is form


@pytest.mark.parametrize(
    ("question", "claim"),
    [
        ("Is intermittent fasting effective?", "Intermittent fasting is effective"),
        ("Is Pluto a planet?", "Pluto is a planet"),
        # an article's noun belongs to the subject; participles, "-er ... than" and "worth"
        # open the predicate, "-er" nouns do not; a number continues a name; "there"
        ("Is the sky blue?", "The sky is blue"),
        ("Was the tower used as a lighthouse?", "The tower was used as a lighthouse"),
        ("Is the castle made of granite?", "The castle is made of granite"),
        ("Is a computer faster than a human?", "A computer is faster than a human"),
        ("Is the company growing?", "The company is growing"),
        ("Is daily running good for the knees?", "Daily running is good for the knees"),
        ("Is the Model 3 worth buying?", "The Model 3 is worth buying"),
        ("Was the bridge's architect famous?", "The bridge's architect was famous"),
        ("Is the water tower older than the church?", "The water tower is older than the church"),
        ("Were there two moons?", "There were two moons"),
        ("Is the Earth flat?", "The Earth is flat"),
        ("Does coffee cause cancer?", "Coffee cause cancer"),
        ("Should the United Nations act?", "The United Nations should act"),
        # after a modal, the main verb is the word before the first object opener
        (
            "Can the Kessler diet lower your blood pressure?",
            "The Kessler diet can lower your blood pressure",
        ),
        ("Will the new bridge open in 2025?", "The new bridge will open in 2025"),
        (
            "Can the price of oil rise above 100 dollars?",
            "The price of oil can rise above 100 dollars",
        ),
        ("Can aspirin prevent heart attacks?", "Aspirin can prevent heart attacks"),
        ("Should I take vitamin D?", "I should take vitamin D"),
        ("Can you take ibuprofen with food?", "You can take ibuprofen with food"),
        (
            "Would a slingshot be classified as artillery?",
            "A slingshot would be classified as artillery",
        ),
        ("Has the Tamsen board named a new chief?", "The Tamsen board has named a new chief"),
        ("Is it true that coffee causes cancer?", "Coffee causes cancer"),
        (
            "Is paracetamol more effective than placebo?",
            "Paracetamol is more effective than placebo",
        ),
    ],
)
def test_declarative_form_of_yes_no_questions(question, claim):
    assert declarative(question) == claim


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When did season 5 of Prison Break come out?", "date"),
        ("How many people have been on the ISS?", "number"),
        ("When was it first lit and how tall is it?", "number"),
        ("Who has the biggest airport?", "entity"),
        ("What is the maximum daily dose for adults?", "any"),
        ("What does vitamin Q7 do for the body?", "sentence"),
        ("Why is the sky blue?", "sentence"),
        ("What is the number of seats in the Orla Arena?", "number"),
        ("What is the Orla Hill season 1 episode count?", "number"),
        ("The number of persons per square kilometre is called?", "any"),
        # a life span in two words is a time, as "lifespan" is; "at what point in time" a date
        ("What is the typical life span of the Orla vole in the wild?", "number"),
        ("At what point in time did the Orla ferry start running?", "date"),
    ],
)
def test_answer_kind_by_question_words(question, kind):
    assert answer_kind(question) == kind


def test_answer_spans_normalise_dates_and_numbers_and_skip_query_spans():
    spans = answer_spans("It premiered on 4 April 2017 and ended on May 30, 2017.", "date", "q")
    assert [key for _, key, _, _ in spans] == ["date:2017-04-04", "date:2017-05-30"]
    numbers = answer_spans("By 2022, 32 countries had it; 35 today.", "number", "q")
    assert [key for _, key, _, _ in numbers] == ["num:32", "num:35"]  # 2022 is a date
    assert answer_spans("It rises to 2,841 m.", "number", "q")[0][1] == "num:2841"
    entities = answer_spans("Atlanta is busier than Denver.", "entity", "Is Denver big?")
    assert [key for _, key, _, _ in entities] == ["ent:atlanta"]


@pytest.mark.parametrize(
    ("sentence", "keys"),
    [
        ("Adults need 600–800 IU a day.", ["num:600-800"]),
        ("Adults need between 600 and 800 IU a day.", ["num:600-800"]),
        ("The wingspan is 2.1 to 2.4 metres.", ["num:2.1-2.4"]),
        ("It is 5 km to 10 km away.", ["num:5-10"]),
        ("It ranges from 5 to 9 days.", ["num:5-9"]),
        ("The price rose from 8.99 to 10.99 dollars.", ["num:10.99"]),  # a change: its new value
        ("The population dropped from 300 to 75.", ["num:75"]),
        ("It is 5 km to 10 miles away.", ["num:5", "num:10"]),  # two units: two values
        ("They lost 3-2.", ["num:3", "num:2"]),  # the larger first: a score, no range
    ],
)
def test_a_range_of_numbers_is_read_as_one_answer(sentence, keys):
    spans = answer_spans(sentence, "number", "How much?")
    assert [key for _, key, _, _ in spans] == keys


@pytest.mark.parametrize(
    ("query", "sentence", "keys"),
    [
        ("When did Ona Vell serve as governor?",
         "She was governor 1884–1886 and again from 1900 to 1902.",
         ["date:1884/1886", "date:1900/1902"]),
        ("When was the Tessel bridge built?", "Built 1912-1914, it opened on 3 May 1915.",
         ["date:1912/1914", "date:1915-05-03"]),
        # a lifespan's dates stay apart for a death (or birth) question
        ("When did Ona Vell die?", "Ona Vell (1684 – 2 December 1716) was a poet.",
         ["date:1684", "date:1716-12-02"]),
    ],
)  # fmt: skip
def test_a_period_of_dates_is_read_as_one_answer(query, sentence, keys):
    assert [key for _, key, _, _ in answer_spans(sentence, "date", query)] == keys


def test_a_periods_start_backs_the_period():
    texts = ["The Tessel bridge was built 1912–1914 by Ona Vell.", "It was built in 1912."]
    passages = [Passage(i, t) for i, t in enumerate(texts)]
    ranked = {p.id: [p.text] for p in passages}
    frame, _ = frame_query("When was the Tessel bridge built?", passages, ranked, {0: 1.0, 1: 1.0})
    assert frame.leading == "1912–1914"
    assert frame.candidates[0].passage_ids == (0, 1)


def test_sentence_initial_capital_is_not_an_entity_unless_seen_mid_sentence():
    sentence = "Following a review, Keldmore lowered it."
    assert [s for _, _, s, _ in answer_spans(sentence, "entity", "q", set())] == ["Keldmore"]
    assert [s for _, _, s, _ in answer_spans(sentence, "entity", "q", {"following"})] == [
        "Following",
        "Keldmore",
    ]


def test_nearest_span_prefers_relation_words_over_query_names():
    sentence = (
        "Orvane Systems, the Dunmarsh maker of turbines, said that Mira Castellane will become "
        "its chief executive officer."
    )
    spans = answer_spans(sentence, "entity", "Who is the chief executive of Orvane Systems?")
    best = nearest_span(sentence, spans, "Who is the chief executive of Orvane Systems?")
    assert best[2] == "Mira Castellane"


def test_passage_answer_uses_the_best_sentence_that_holds_a_span():
    ranked = ["The lighthouse was first lit long ago.", "Its tower stands 34 metres tall."]
    assert passage_answer("How tall is the lighthouse?", "number", ranked) == (
        "num:34",
        "34 metres",
        "number",
        "Its tower stands 34 metres tall.",
    )
    assert passage_answer("How tall is it?", "number", ["No figure here."]) is None


def test_a_stated_answer_in_the_second_sentence_comes_before_the_first_ones_nearest_name():
    query = "What is the national tree of Tessel?"
    ranked = [
        "Tessel's national parks hold Marwick pines and Orrin beeches.",
        "The national tree of Tessel is the Linden.",
        "In Tessel the national tree is the Ash, says Piet Rask.",
    ]
    assert passage_answer(query, "any", ranked)[1] == "Linden"
    # only the two most relevant sentences are searched: a third one's statement does not count
    assert passage_answer(query, "any", [ranked[0], ranked[0], ranked[2]])[1] != "Ash"


def test_frame_votes_with_topicality_and_skips_off_topic_passages():
    passages = [Passage(i, t) for i, t in enumerate([
        "Mount Ysolde rises to 2,841 metres.",
        "Mount Ysolde is 2,841 m tall.",
        "Mount Ysolde is 4,120 metres tall.",
        "The other peak is 9,999 metres tall.",
    ])]  # fmt: skip
    ranked = {p.id: [p.text] for p in passages}
    frame, answers = frame_query(
        "How tall is Mount Ysolde?", passages, ranked, {0: 0.6, 1: 0.6, 2: 1.0}
    )
    assert [c.text for c in frame.candidates] == ["2,841 metres", "4,120 metres"]
    assert frame.candidates[0].score == pytest.approx(1.2)
    assert frame.candidates[0].passage_ids == (0, 1)
    assert frame.hypothesis == (
        "The answer to the question How tall is Mount Ysolde? is 2,841 metres."
    )
    assert answers[1] == ("2,841 metres", "Mount Ysolde is 2,841 m tall.")
    assert 3 not in answers


def test_sentence_questions_take_the_leading_sentence_as_claim():
    passages = [Passage(0, "Q7 keeps bones dense."), Passage(1, "Q7 helps vision in dim light.")]
    ranked = {p.id: [p.text] for p in passages}
    frame, _ = frame_query("What does Q7 do?", passages, ranked, {0: 1.0, 1: 0.8})
    assert frame.leading == frame.hypothesis == "Q7 keeps bones dense."
    assert [c.kind for c in frame.candidates] == ["sentence", "sentence"]


def test_yes_no_and_claim_frames_have_no_candidates():
    frame, answers = frame_query("Is Pluto a planet?", [], {}, {})
    assert (frame.hypothesis, frame.candidates, answers) == ("Pluto is a planet", (), {})
    frame, _ = frame_query("Pluto is a planet.", [], {}, {})
    assert frame.form is QueryForm.CLAIM and frame.hypothesis == "Pluto is a planet."


def test_answer_claim_uses_the_nli_training_template():
    assert answer_claim(" How tall is Mount Ysolde? ", "2,841 m") == (
        "The answer to the question How tall is Mount Ysolde? is 2,841 m."
    )


def test_fallback_from_date_to_the_key_sentence_and_to_the_question_without_on_topic_passages():
    passages = [Passage(0, "The poll is released every Monday afternoon.")]
    ranked = {0: [passages[0].text]}
    frame, _ = frame_query("When is the poll released?", passages, ranked, {0: 1.0})
    assert (frame.leading, frame.method) == ("Monday", "rule")  # a yearless time is a date
    other = [Passage(0, "The poll is released by the Harlow Institute.")]
    frame, _ = frame_query("When is the poll released?", other, {0: [other[0].text]}, {0: 1.0})
    # a name answers no "when": the key sentence does
    assert (frame.leading, frame.method) == (other[0].text, "rule:sentence-fallback")
    counted = [Passage(0, "The poll has been released by 12 analysts since 1990.")]
    frame, _ = frame_query("Who releases the poll?", counted, {0: [counted[0].text]}, {0: 1.0})
    assert (frame.leading, frame.method) == ("12", "rule:any-fallback")  # other kinds try any
    frame, answers = frame_query("When is the poll released?", passages, ranked, {})
    assert (frame.hypothesis, frame.method, answers) == ("When is the poll released?", "query", {})


def test_coarse_dates_back_the_finer_date_they_contain():
    texts = ["It exploded on 29 August 1949.", "The test came in 1949.", "It was August 1953."]
    passages = [Passage(i, t) for i, t in enumerate(texts)]
    ranked = {p.id: [p.text] for p in passages}
    frame, answers = frame_query("When did it explode?", passages, ranked, {0: 0.6, 1: 1.0, 2: 0.9})
    assert frame.leading == "29 August 1949"
    assert frame.candidates[0].passage_ids == (0, 1)
    assert frame.candidates[0].score == pytest.approx(1.6)
    assert answers[1][0] == "29 August 1949"


def test_date_stamps_and_entities_repeating_the_question_are_not_answers():
    ranked = ["May 19, 2023 ...", "Roman Brady was first played by Josh Taylor."]
    found = passage_answer("Who played the original Roman?", "entity", ranked, set())
    assert found is not None and found[1] == "Josh Taylor"
    assert passage_answer("When was it?", "date", ["May 19, 2023 ..."]) is None


def test_what_is_followed_by_the_subject_asks_for_a_description():
    assert answer_kind("What is brellium used for in engines?") == "sentence"
    assert answer_kind("What is brellium?") == "sentence"
    assert answer_kind("What is the density of brellium?") == "any"
    assert answer_kind("What is Tarnwick's population?") == "number"  # a measure (a count)


def test_any_kind_answers_take_the_span_most_passages_share():
    texts = [
        "Mount Korrin crowns the Dask range at 1,950 metres.",
        "Within the Dask chain, Mount Korrin (1,950 m) stands alone.",
        "The path to the 1,950-metre top of Mount Korrin leaves from Ferro camp.",
        "Mount Korrin is 3,300 metres high, a blog claims.",
    ]
    passages = [Passage(i, t) for i, t in enumerate(texts)]
    ranked = {p.id: [p.text] for p in passages}
    topical = {p.id: 1.0 for p in passages}
    frame, answers = frame_query(
        "What is the elevation of Mount Korrin?", passages, ranked, topical
    )
    assert frame.leading == "1,950 metres"
    assert [c.passage_ids for c in frame.candidates] == [(0, 1, 2), (3,)]
    assert answers[1][0] == "1,950 metres"  # not "Dask", the name nearest the subject


def test_a_span_few_passages_share_does_not_replace_the_nearest_one():
    texts = ["Tarnwick Mills is led by Ada Brell since 2019.", "Tarnwick Mills hired Ivo Sand."]
    passages = [Passage(i, t) for i, t in enumerate(texts)]
    ranked = {p.id: [p.text] for p in passages}
    _, answers = frame_query(
        "What is the head of Tarnwick Mills?", passages, ranked, {0: 1.0, 1: 1.0}
    )
    assert answers[0][0] == "Ada Brell" and answers[1][0] == "Ivo Sand"


@pytest.mark.parametrize(
    ("sentence", "query", "expected"),
    [
        (
            "The role went to Canadian-born actress Mirel Osk in the first film.",
            "Who played the lighthouse keeper?",
            ["Mirel Osk"],
        ),
        (
            "It is the third album by American folk duo Harlow Vane.",
            "Who recorded the album?",
            ["Harlow Vane"],
        ),
        (
            "The market moved to Saturday under Mayor Pell Arden.",
            "Who moved the market?",
            ["Mayor Pell Arden"],
        ),
    ],
)
def test_a_who_question_reads_no_lone_nationality_or_calendar_word(sentence, query, expected):
    assert [s[2] for s in answer_spans(sentence, "entity", query)] == expected


def test_other_questions_still_read_nationality_words():
    spans = answer_spans(
        "Most people there speak English at home.", "entity", "Which language is spoken?"
    )
    assert [s[2] for s in spans] == ["English"]


def test_a_contracted_who_question_reads_no_nationality_word():
    spans = answer_spans("The role went to American actor Jan Osk.", "entity", "Who's the actor?")
    assert [s[2] for s in spans] == ["Jan Osk"]


@pytest.mark.parametrize(
    ("query", "sentence", "answer"),
    [
        # the name's head is a common noun of the question: the class asked about
        ("Which river drains the largest basin?",
         "Of those, the Orlen Basin is the largest, covering a third of the plain.", "Orlen Basin"),
        ("Where did Tam Oxley study in college?",
         "Tam Oxley earned his degree from Harrow Vale College in 2004.", "Harrow Vale College"),
        # a hyphenated name whose head names the class
        ("Which delta is the largest delta in the region?",
         "The Sel-Varrin Delta, the region's largest, covers 4,000 square km.",
         "Sel-Varrin Delta"),
    ],
)  # fmt: skip
def test_a_name_whose_head_is_a_common_noun_of_the_question_answers(query, sentence, answer):
    found = passage_answer(query, "entity", [sentence], set())
    assert found is not None and found[1] == answer


@pytest.mark.parametrize(
    ("query", "sentence"),
    [
        # every word is the question's (a repetition in another case)
        ("who founded brindle works?", "Brindle Works was founded in 1911."),
        # a word of a name the question capitalises, even as the head
        ("Who leads Brindle Works?", "The output of Cold Brindle Works rose."),
        # a shared word that is not the head: a title that repeats the question
        ("who sang the river at dawn?", "River At Dawn Song lyrics were printed."),
    ],
)
def test_a_name_repeating_the_question_is_no_answer(query, sentence):
    assert [s[2] for s in answer_spans(sentence, "entity", query)] == []


def test_a_names_own_word_is_not_its_anchor_to_the_question():
    # "Basin" inside the name does not put it next to the question's words; "largest" does
    sentence = "The Orlen Basin, says the Kessel Survey, is the largest in the world."
    query = "Which river has the largest basin in the world?"
    spans = answer_spans(sentence, "entity", query)
    assert [s[2] for s in spans] == ["Orlen Basin", "Kessel Survey"]
    assert nearest_span(sentence, spans, query)[2] == "Kessel Survey"


def test_a_question_of_no_kind_reads_a_name_before_a_date_or_number():
    query = "What conflict is the Battle of Orlen associated with?"
    assert answer_kind(query) == "any"
    sentence = "The Battle of Orlen (1912) was a naval battle fought during the Tessa-Varr War."
    found = passage_answer(query, "any", [sentence], set())
    assert found is not None and found[1] == "Tessa-Varr War"
    # with no name or stated phrase in the sentence, its number still answers
    found = passage_answer(query, "any", ["It was fought in 1912."], set())
    assert found is not None and found[1] == "1912"


def test_a_value_the_questions_words_anchor_answers_from_any_sentence():
    # the first sentence names the township and a number; the second anchors the population
    ranked = [
        "Orrin Township is one of the twelve townships of Kessel County.",
        "The census counted a population of 4,218 in the township.",
    ]
    found = passage_answer("What is the population of Orrin Township?", "number", ranked, set())
    assert found is not None and found[1] == "4,218"
    ranked = [
        "The Tarn Bridge, 240 m long, carried trams until 1961.",
        "The bridge was opened on 3 May 1898 by the mayor.",
    ]
    found = passage_answer("When was the Tarn Bridge opened?", "date", ranked, set())
    assert found is not None and found[1] == "3 May 1898"
    # without an anchored value, the most relevant sentence's nearest span, as before
    found = passage_answer("When was the Tarn Bridge built?", "date", ranked, set())
    assert found is not None and found[1] == "1961"


def _framed(query: str, texts: list[str], similarity: list[float]):
    """The claim frame and each passage's answer for inline texts with these similarities."""
    from conflictdesk.analysis.claims import frame_query
    from conflictdesk.analysis.tag import read_passages
    from conflictdesk.types import Passage

    passages = [Passage(id=i, text=t, document_id=i) for i, t in enumerate(texts)]
    reading = read_passages(query, passages, dict(enumerate(similarity)))
    return frame_query(reading.query, passages, reading.ranked, reading.on_topic)


def test_a_number_group_is_shown_in_digits_and_words_join_it():
    query = "What is the fine for parking in a loading bay in Halvick?"
    texts = [
        "Drivers caught in a loading bay face a fine of two hundred and fifty dollars.",
        "Parking in a loading bay: fine $250.",
    ]
    frame, answers = _framed(query, texts, [0.8, 0.7])
    assert [c.text for c in frame.candidates] == ["250"]
    assert answers[0][0] == "250"  # each passage's answer is shown as its group is
    assert frame.candidates[0].passage_ids == (0, 1)


def test_a_stated_description_is_not_replaced_by_the_word_every_passage_repeats():
    query = "What is Ivo Brask's profession?"
    texts = [
        "Ivo Brask (born 1958) is a Vellish chef known for his soups.",
        "Ivo Brask (born 1961) is a Vellish trombonist who toured widely.",
        "Ivo Brask (born 1970) is a Vellish architect of bridges.",
    ]
    frame, _ = _framed(query, texts, [0.8, 0.8, 0.8])
    texts = sorted(c.text for c in frame.candidates)
    assert texts == ["Vellish architect of bridges", "Vellish chef", "Vellish trombonist"]


def test_a_name_at_a_sentence_start_is_known_from_the_questions_other_passages():
    query = "Who appeared on the Vellish 20 crown note in 1875?"
    texts = [
        "Apr 22, 2016 ... Orlaith appeared on the 20 crown note in 1875, the first woman to do so.",
        "The 1875 note showed the portrait of Orlaith above the harbour of Tessby.",
    ]
    _, answers = _framed(query, texts, [0.8, 0.7])
    # alone, the first passage's "Orlaith" opens a sentence and might be any capitalised word
    assert answers[0][0] == "Orlaith"


@pytest.mark.parametrize(
    ("query", "expected"),
    [("When is the Orlen market held?", ["Wednesday"]),  # recurring: the weekday answers
     ("When did the Orlen market open?", []),  # one past event: a weekday dates nothing
     ("When does the 2018 Orlen market open?", []),  # the question names the event's year
     ("When was the Orlen market first held?", [])],
)  # fmt: skip
def test_a_lone_weekday_answers_only_a_question_about_no_dated_event(query, expected):
    from conflictdesk.analysis.claims import answer_spans

    spans = answer_spans("The Orlen market is held on Wednesday.", "date", query)
    assert [s[2] for s in spans] == expected
    day = answer_spans("The Orlen market opened on 3 May, a Wednesday.", "date", query)
    assert "3 May" in [s[2] for s in day]  # a day of the month is still read


def test_a_set_aside_passage_backs_the_on_topic_answer_it_agrees_with_but_makes_none():
    from conflictdesk.analysis.claims import ASIDE_WEIGHT, frame_query

    query = "Who played Adam on Orlen Street?"
    texts = [
        "After playing Adam on Orlen Street, Boomer began to write for television.",
        "Orlen Street starred Rhea Kell, who played Adam's wife, with Tom Arlow as Adam.",
        "Linwood Boomer as Adam Kendall.",  # set aside by the gate: backs "Boomer"
        "Pim Hollis as Adam Kendall.",  # set aside: no on-topic passage reads him
    ]
    passages = [Passage(id=i, text=t, document_id=i) for i, t in enumerate(texts)]
    ranked = {i: [t] for i, t in enumerate(texts)}
    on_topic = {0: 0.6, 1: 0.9}
    frame, answers = frame_query(query, passages, ranked, on_topic)
    assert frame.candidates[0].text == "Tom Arlow"  # the more topical passage alone
    frame, answers = frame_query(query, passages, ranked, on_topic, aside={2: 0.4, 3: 0.45})
    assert [c.text for c in frame.candidates] == ["Boomer", "Tom Arlow"]
    assert frame.candidates[0].passage_ids == (0,)  # only on-topic passages hold and cite it
    assert frame.candidates[0].score == pytest.approx(0.6 + ASIDE_WEIGHT * 0.4)
    assert set(answers) == {0, 1}


def test_who_plays_reads_the_actor_not_the_role_a_cast_list_gives_after_as():
    from conflictdesk.analysis.claims import answer_spans

    sentence = "The cast: Keala Settle as Lettie Lutz, the bearded lady, also known as Madame Lu."
    spans = answer_spans(sentence, "entity", "Who played the bearded lady in The Showman?")
    assert [s[2] for s in spans] == ["Keala Settle", "Madame Lu"]  # "known as" names her
    # asked which role someone plays, the role is the answer
    spans = answer_spans(sentence, "entity", "Who did Keala Settle play in The Showman?")
    assert "Lettie Lutz" in [s[2] for s in spans]


@pytest.mark.parametrize(
    "sentence",
    [
        "Ana Brill starred as Mira Vell in the first season of Orlen Street.",
        "In Orlen Street, Ana Brill makes her return as Mira Vell.",
        "Orlen Street cast Ana Brill to play the role of Mira Vell.",
    ],
)
def test_who_plays_reads_no_role_after_as_or_an_acting_verb(sentence):
    from conflictdesk.analysis.claims import answer_spans

    spans = answer_spans(sentence, "entity", "Who plays the doctor on Orlen Street?")
    assert "Mira Vell" not in [s[2] for s in spans]
    assert "Ana Brill" in [s[2] for s in spans]
    # "played by" names the actor
    spans = answer_spans("Mira Vell is played by Ana Brill.", "entity", "Who plays the doctor?")
    assert [s[2] for s in spans] == ["Mira Vell", "Ana Brill"]


def test_who_plays_reads_the_actor_a_role_gives_in_brackets():
    from conflictdesk.analysis.claims import answer_spans

    sentence = "Mira Vell (Ana Brill) is the doctor on Orlen Street."
    spans = answer_spans(sentence, "entity", "Who plays the doctor on Orlen Street?")
    assert [s[2] for s in spans] == ["Ana Brill"]
    # asked who the doctor is, the role stays
    spans = answer_spans(sentence, "entity", "Who is the doctor on Orlen Street?")
    assert "Mira Vell" in [s[2] for s in spans]


def test_a_capitalised_participle_compound_is_no_name():
    from conflictdesk.analysis.claims import answer_spans

    sentence = "The film stars Award-Winning actor Ana Brill, with Oscar-Nominated director Rask."
    spans = answer_spans(sentence, "entity", "Who stars in Grey Harbour?")
    assert [s[2] for s in spans] == ["Ana Brill", "Rask"]


def test_a_who_question_reads_no_place_after_a_preposition_when_a_name_is_left():
    from conflictdesk.analysis.claims import answer_spans

    sentence = "Ana Brill built the observatories in Orlen and Tessel in 1734."
    spans = answer_spans(sentence, "entity", "Who built the observatories?")
    assert [s[2] for s in spans] == ["Ana Brill"]
    # nobody else: the place stays
    spans = answer_spans("They were built in Orlen.", "entity", "Who built the observatories?")
    assert [s[2] for s in spans] == ["Orlen"]
    # a question ending in its preposition asks for what follows one
    spans = answer_spans(
        "Ana Brill won independence from Tessel in 1960.", "entity", "Who did Orla win it from?"
    )
    assert "Tessel" in [s[2] for s in spans]


def test_a_name_spelling_a_word_of_the_question_repeats_it():
    from conflictdesk.analysis.claims import answer_spans

    sentence = "Orlen Street Victims Unit cast Ana Brill in 2011."
    spans = answer_spans(sentence, "entity", "Who played the doctor on osvu?")
    assert [s[2] for s in spans] == ["Ana Brill"]
    spans = answer_spans(sentence, "entity", "Who played the doctor on the show?")
    assert "Orlen Street Victims Unit" in [s[2] for s in spans]


def test_who_plays_reads_a_person_before_an_acronym_of_the_same_sentence():
    from conflictdesk.analysis.claims import answer_spans

    sentence = "In the NBC drama Orlen Street, Tom Arlow plays the chief of police."
    query = "Who plays the chief of police in Orlen Street?"
    assert [s[2] for s in answer_spans(sentence, "entity", query)] == ["Tom Arlow"]
    alone = "The chief of police is played by a newcomer, NBC said."
    assert [s[2] for s in answer_spans(alone, "entity", query)] == ["NBC"]  # nobody else
    other = answer_spans(sentence, "entity", "Who broadcasts Orlen Street?")
    assert "NBC" in [s[2] for s in other]  # not a question for a person who plays a role


def test_who_plays_reads_no_name_ending_in_a_word_of_the_question_when_another_is_left():
    from conflictdesk.analysis.claims import answer_spans

    query = "Who plays the mohawk guy in Orlen Road?"
    spans = answer_spans("Bearclaw Mohawk is played by Ana Brill.", "entity", query)
    assert [s[2] for s in spans] == ["Ana Brill"]
    spans = answer_spans("In the sequel, Bearclaw Mohawk returns.", "entity", query)
    assert [s[2] for s in spans] == ["Bearclaw Mohawk"]  # nobody else
    spans = answer_spans(
        "Bearclaw Mohawk is played by Ana Brill.", "entity", "Who is the mohawk guy?"
    )
    assert "Bearclaw Mohawk" in [s[2] for s in spans]  # not a question for who plays a role


def test_a_name_that_opens_with_the_asked_title_answers_without_it():
    query = "Who is the president of Tessel University?"
    sentence = "President Ana Brill-Rask announced on Monday that the campus will close in May."
    spans = answer_spans(sentence, "entity", query)
    assert spans[0][2] == "Ana Brill-Rask"
    # a title that is not the one asked, or a name the question holds, stays as it was
    assert answer_spans("Dean Ana Brill-Rask spoke.", "entity", query)[0][2] == "Dean Ana Brill-Rask"
