"""Answers a sentence states: a copula's other side, a passive's agent, the doer of the
question's verb, the end of a lifespan."""

from __future__ import annotations

import pytest

from conflictdesk.analysis.claims import answer_kind, answer_spans, passage_answer
from conflictdesk.analysis.copula import copular_answer, same_event, same_verb
from conflictdesk.analysis.stated import role_actor


def read(sentence: str, query: str) -> str | None:
    found = copular_answer(sentence, query)
    if found is not None:
        start, surface = found
        assert sentence[start : start + len(surface)] == surface
    return None if found is None else found[1]


@pytest.mark.parametrize(
    ("query", "sentence", "answer"),
    [
        # the subject holds the question's words: the predicate answers
        ("What is the main binding agent of tarn mortar?",
         "The main binding agent is burnt lime (calcium oxide).", "burnt lime"),
        # the predicate holds them: the subject answers, a parenthesis before the copula skipped
        ("What is the national tree of Ostrava?",
         "Locally, the Linden (Tilia cordata) is now the national tree of Ostrava, by decree.",
         "Linden"),
        ("A rock that floats on water is known as?",
         "A rock light enough to float on water is known as pumice.", "pumice"),
        ("A loan repaid in grain was called?",
         "Loans repaid in grain were also called corn bonds because they were settled at harvest.",
         "corn bonds"),
        # a tie (a relation word each side) goes to the predicate, which says more
        ("What is the occupation of R. Quell?",
         "Her occupation is an occupational therapist, in Aarhus.", "occupational therapist"),
    ],
)  # fmt: skip
def test_the_side_without_the_questions_words_answers(query, sentence, answer):
    assert read(sentence, query) == answer


@pytest.mark.parametrize(
    ("query", "sentence"),
    [
        ("What is the main binding agent of tarn mortar?", "It is a beautiful old town."),
        ("What is the main binding agent of tarn mortar?", "The harbour is closed in winter."),
        ("What is the main binding agent of tarn mortar?", "The binding agent is it."),
        ("What is the main binding agent of tarn mortar?", "The binding agent is, oddly, rare."),
    ],
)
def test_no_answer_without_the_questions_words_or_with_a_pronoun(query, sentence):
    assert read(sentence, query) is None


def test_a_short_participle_after_the_copula_is_a_passive_not_an_answer():
    # "is used to treat": a four-letter participle opening with a vowel; "seed" stays a noun
    query = "What is the tarnolex daily dose for adults?"
    assert read("Tarnolex (a sulfonamide) is used to treat gout.", query) is None
    assert read("Tarnolex is owed to a 1950s chemist.", "What is the tarnolex origin?") is None
    assert read("The tarnolex source is seed oil.", "What is the tarnolex source?") == "seed oil"


def test_a_description_of_the_subject_does_not_answer_for_its_attribute():
    # the question's name is on one side, but not the attribute it asks for
    assert read("Tarnol is a soft grey metal.", "What is the boiling point of Tarnol?") is None
    assert read("Rina Quell is a Danish therapist.", "What is the birthplace of R. Quell?") is None
    # a question for the subject's class is answered by its description
    assert read("Rina Quell is a Danish therapist.", "What is the occupation of R. Quell?") == (
        "Danish therapist")  # fmt: skip


def test_a_wh_phrase_inside_the_question_names_the_attribute():
    query = "Deficiency of which mineral causes Harl's syndrome?"
    assert read("Harl's syndrome is a weakness of the knees.", query) is None


def test_a_long_predicate_is_no_noun_phrase():
    sentence = "The binding agent is finely ground grey volcanic mineral powder residue."
    assert read(sentence, "What is the binding agent of tarn mortar?") is None


def test_any_questions_prefer_the_stated_answer_over_the_nearest_name():
    query = "What is the national tree of Ostrava?"
    sentence = "In Moravia, the Linden is the national tree of Ostrava."
    key, surface, kind, _ = passage_answer(query, "any", [sentence])
    # the stated answer is a name: the name's span (and key) answers, not "Moravia"
    assert (key, surface, kind) == ("ent:linden", "Linden", "entity")
    assert all(s[3] != "phrase" for s in answer_spans(sentence, "any", query))


def test_a_stated_answer_of_no_kind_is_a_phrase_and_a_kind_within_it_answers():
    query = "What is the main binding agent of tarn mortar?"
    stated = "In 1990 the main binding agent was burnt lime."
    assert passage_answer(query, "any", [stated])[1:3] == ("burnt lime", "phrase")
    measured = "In 1990 the main binding agent was about 12.5 kg of lime, per sack."
    assert passage_answer(query, "any", [measured])[1:3] == ("12.5 kg", "number")


def test_who_questions_read_a_passives_agent():
    query = "Who wrote the song Grey Harbour?"
    sentence = "Grey Harbour, a ballad from Tessel, was written by the folk singer Ana Brill."
    assert passage_answer(query, "entity", [sentence])[1] == "Ana Brill"


def test_questions_of_a_kind_read_no_phrases():
    query = "Who planted the national tree of Ostrava?"
    sentence = "The national tree of Ostrava is a linden planted by Jana Brod."
    assert all(s[3] != "phrase" for s in answer_spans(sentence, "entity", query))


@pytest.mark.parametrize(
    "sentence",
    [
        "The binding agent was listed as secret for years.",
        "The binding agent is located near the kiln.",
        "The binding agent is actually sold by the sack.",
        "The binding agent is offered free to members.",
    ],
)
def test_a_verb_after_the_copula_is_no_answer(sentence):
    assert read(sentence, "What is the binding agent of tarn mortar?") is None


def test_a_name_inside_a_stated_class_does_not_stand_for_it():
    query = "What is the profession of R. Quell?"
    sentence = "Rina Quell (born 1961) is a former Danish occupational therapist."
    assert passage_answer(query, "any", [sentence])[1:3] == (
        "former Danish occupational therapist", "phrase")  # fmt: skip


def test_the_agent_after_a_participle_answers_before_a_nouns():
    query = "Who wrote the song Grey Harbour?"
    sentence = "Grey Harbour by the Tessel Four was written by Ana Brill and Obed Rask."
    assert passage_answer(query, "entity", [sentence])[1] == "Ana Brill and Obed Rask"


def test_the_agent_nearest_the_questions_words_answers_and_initials_are_read():
    query = "Who wrote the novel Grey Harbour?"
    sentence = (
        "The shortlist includes Grey Harbour by A. B. Brill and Gaunt Hill, stories by Piet Rask."
    )
    assert "Brill" in passage_answer(query, "entity", [sentence])[1]


def test_who_questions_read_the_doer_before_the_questions_verb():
    query = "Who played the ferryman in Grey Harbour?"
    sentence = "Ana Brill, the actress who played the ferryman opposite Piet Rask, has died."
    assert passage_answer(query, "entity", [sentence])[1] == "Ana Brill"
    # no doer for "Who is ...?" questions: the nearest span answers as before
    assert passage_answer("Who is the ferryman?", "entity", ["Piet Rask met the ferryman."])[1] == (
        "Piet Rask")  # fmt: skip


def test_a_year_qualifying_the_noun_after_it_is_no_answer_of_no_kind():
    query = "What is the medium of Grey Harbour?"
    sentence = "Grey Harbour is a 1911 farce in three acts by Ana Brill."
    assert passage_answer(query, "any", [sentence])[1:3] == ("1911 farce", "phrase")


def test_the_doer_is_no_name_after_a_preposition():
    query = "Who played the ferryman in Grey Harbour?"
    sentence = "Brill, from Tessel, played the ferryman in the film Grey Harbour."
    assert passage_answer(query, "entity", [sentence])[1] == "Brill"


def test_the_doer_is_no_name_in_brackets():
    query = "Who played the ferryman in Grey Harbour?"
    sentence = (
        "Ana Brill (born 30 January 1955 in Orlen, and sometimes credited as Ana Tessel) "
        "played the ferryman in Grey Harbour."
    )
    assert passage_answer(query, "entity", [sentence])[1] == "Ana Brill"


def test_death_questions_read_the_end_of_a_lifespan():
    sentence = "Ana Brill (3 May 1901 – 2 December 1966) was a Tessel ferry pilot."
    assert passage_answer("When did Ana Brill die?", "date", [sentence])[1] == "2 December 1966"
    assert passage_answer("When was Ana Brill born?", "date", [sentence])[1] == "3 May 1901"


def test_how_many_questions_read_the_number_before_the_counted_noun():
    query = "How many buildings are in the Tessel historic district?"
    sentence = "It holds 150 contributing buildings, 3 sites and 1 object."
    assert passage_answer(query, "number", [sentence])[1] == "150"


def test_a_citation_mark_is_no_number():
    sentence = "Per the census [ 1 ], Tessel had a population of 40,147 [2]."
    spans = answer_spans(sentence, "number", "What is the population of Tessel?")
    assert [s[2] for s in spans] == ["40,147"]


def test_a_units_lost_superscript_is_no_number():
    query = "What is the population of Tessel?"
    sentence = "Area 165.21 km 2 (63.79 sq mi), density 900/km 2. Population 17,289."
    assert [s[2] for s in answer_spans(sentence, "number", query)] == ["900", "17,289"]
    assert passage_answer(query, "number", [sentence])[1] == "17,289"
    # a height in feet and inches keeps its inches
    spans = answer_spans("She stands 5 ft 3 in tall.", "number", "How tall is Ana Brill?")
    assert "3" in [s[2] for s in spans]


def test_a_population_is_no_count_of_other_things():
    query = "What is the population of Tessel?"
    sentence = "In 2011 the population of its 12 villages was 4,210."
    assert passage_answer(query, "number", [sentence])[1] == "4,210"
    # a count of people is a population
    people = "The population of Tessel was 4,210 residents in 2011."
    assert passage_answer(query, "number", [people])[1] == "4,210"
    # far from the word "population", a count of wards is still no population
    wards = "In the 2011 census the population of Tessel parish and the two electoral wards was 4,210."
    assert passage_answer(query, "number", [wards])[1] == "4,210"


def test_a_bracketed_qualifier_after_a_title_names_its_maker():
    query = 'Who is the artist of the album "Grey Harbour"?'
    sentence = "Grey Harbour ( Ana Brill album ) is an album produced by Piet Rask in Tessel."
    assert passage_answer(query, "entity", [sentence])[1] == "Ana Brill"
    # a bracket after another title names that title's maker, not the asked one's
    other = "Blue Pier ( Ana Brill album ) is an album produced by Piet Rask in Tessel."
    assert passage_answer(query, "entity", [other])[1] == "Piet Rask"


def test_a_census_count_of_people_answers_a_population_question():
    query = "What is the population of Tessel Township?"
    sentence = (
        "As of the census of 2010, there were 3,168 people, 1,252 households, and 906 "
        "families residing in the township."
    )
    assert passage_answer(query, "number", [sentence])[1] == "3,168 people"


def test_a_bracketed_qualifier_after_the_subject_gives_a_profession_or_a_medium():
    heading = "Contents Ana_Brill_ ( water_polo ) Add languages"
    assert passage_answer("What is Ana Brill's profession?", "any", [heading])[1] == "water polo"
    film = "Media related to Grey Harbour ( 1936 film ) at Wikimedia Commons."
    assert passage_answer('What is the medium of "Grey Harbour"?', "any", [film])[1] == "film"
    # a bracket naming someone, or after another title, gives none
    named = "Grey Harbour ( Piet Rask ) is a film. Blue Pier ( novel ) is not."
    assert passage_answer('What is the medium of "Grey Harbour"?', "any", [named])[1] != "novel"


def test_a_lifespan_answers_only_birth_and_death_questions():
    sentence = "Ana Brill (3 May 1901 – 2 December 1966) was elected mayor of Tessel in 1948."
    assert passage_answer("When was Ana Brill elected mayor?", "date", [sentence])[1] == "1948"
    assert passage_answer("When was Ana Brill born?", "date", [sentence])[1] == "3 May 1901"


def test_a_lifespan_is_no_date_of_another_event_in_any_sentence():
    query = "When was Ana Brill elected mayor?"
    lifespan = "Ana Brill (3 May 1901 – 2 December 1966) was a Tessel ferry pilot and mayor."
    assert answer_spans(lifespan, "date", query) == []
    # the reader goes on to the sentence that dates the election
    later = "She was elected in 1948 after the harbour strike."
    assert passage_answer(query, "date", [lifespan, later])[1] == "1948"
    # a birth or death question still reads it
    assert answer_spans(lifespan, "date", "When did Ana Brill die?") != []


def test_a_pages_own_dates_are_no_answers():
    query = "When was the album Grey Harbour released?"
    for stamp in ("Retrieved 31 December 2024.", "This page was last edited on 20 February 2025."):
        assert answer_spans(stamp, "date", query) == []
    assert answer_spans("Released 4 May 1987.", "date", query)[0][2] == "4 May 1987"


def test_who_plays_questions_read_the_name_before_as():
    query = "Who plays the ferryman in Grey Harbour?"
    sentence = "Directed by Piet Rask, Grey Harbour stars Ana Brill as the ferryman."
    assert passage_answer(query, "entity", [sentence])[1] == "Ana Brill"


@pytest.mark.parametrize(
    ("word", "verb", "same"),
    [("written", "wrote", True), ("sung", "sang", True), ("directed", "direct", True),
     ("played", "plays", True), ("performed", "sang", False), ("painted", "printed", False),
     ("found", "find", True), ("aid", "aid", True)],
)  # fmt: skip
def test_forms_of_one_verb(word, verb, same):
    assert same_verb(word, verb) is same


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("What is the estimated total population of Tessel?", "number"),
        ("What is the length of the Grey river?", "number"),
        ("What is the median income for a family in Tessel?", "number"),
        ("What is the birth date of Ana Brill?", "date"),
        ("What is the national tree of Tessel?", "any"),
        ("What is the si unit of the time period?", "any"),  # the attribute is a unit
        ("Tesselish is spoken in which province?", "entity"),
        ("The ferry first sailed in which year?", "date"),
        ("The ballad Grey Harbour was written by?", "entity"),
    ],
)
def test_an_attribute_that_measures_or_dates_sets_the_kind(query, kind):
    assert answer_kind(query) == kind


def test_a_fields_label_names_the_attribute():
    query = "What is the national tree of Tessel?"
    facts = "Tessel symbols · National Bird: Grey Heron · National Tree: Linden · Motto: Onward"
    assert read(facts, query) == "Linden"
    card = "Born 1901 Sport: Ice Hockey Club: Tessel Harbour"
    assert read(card, "What sport is Ana Brill associated with?") == "Ice Hockey"
    assert read("Opening time: 10:30 daily", "What is the opening time of the ferry?") == (
        "10:30 daily")  # fmt: skip


def test_a_question_ending_in_by_asks_for_the_agent():
    query = "The ballad Grey Harbour was written by?"
    sentence = "Sung by Piet Rask, Grey Harbour was written by Ana Brill in 1931."
    assert passage_answer(query, "entity", [sentence])[1] == "Ana Brill"


def test_a_measure_reads_the_value_right_after_its_attribute():
    query = "What is the total population of Tessel?"
    sentence = "The census gave a total population of 66,495, of whom 35,048 were men; 13,962 were under 6."
    assert passage_answer(query, "number", [sentence])[1] == "66,495"


def test_a_when_question_reads_the_date_after_its_event():
    query = "When was the Tessel ferry company founded?"
    sentence = "Renamed in 1921, the company was founded on 2 May 1887 by Ana Brill."
    assert passage_answer(query, "date", [sentence])[1] == "2 May 1887"


def test_a_year_inside_a_stated_class_is_a_modifier():
    query = "What is the genre of the film Grey Harbour?"
    sentence = "Grey Harbour is a 1948 Danish romantic comedy directed by Piet Rask."
    assert passage_answer(query, "any", [sentence])[1:3] == (
        "1948 Danish romantic comedy",
        "phrase",
    )


def test_a_name_of_the_class_asked_about_answers_which_questions():
    query = "Which delta is the largest in the region?"
    sentence = (
        "Covering 4,000 km2, the Sel-Varrin Delta in Ostmark and Pell is the region's largest."
    )
    found = passage_answer(query, "entity", [sentence], set())
    assert found is not None and found[1] == "Sel-Varrin Delta"
    found = passage_answer("Which lake is the deepest?", "entity",
                           ["At 310 m, Ossery Lake in Tarnia is the deepest."], set())  # fmt: skip
    assert found is not None and found[1] == "Ossery Lake"


def test_a_statement_answers_before_a_question_that_repeats_the_question():
    query = "Who played the ferryman in Grey Harbour?"
    heading = "Who is the ferryman in Grey Harbour: The Return?"
    statement = "Ana Brill plays the ferryman in the film."
    # the heading is the most relevant sentence, but it asks; the statement answers
    assert passage_answer(query, "entity", [heading, statement])[1] == "Ana Brill"
    # a passage whose only sentence with a name is a question still answers from it
    found = passage_answer(query, "entity", [heading, "More films."])
    assert found is not None and found[3] == heading


def test_a_population_reads_a_census_figure_of_people_not_the_class_its_place_belongs_to():
    query = "What is the population of Orrin Township?"
    ranked = [
        "Orrin Township is one of the sixteen townships of Vell County.",
        "The 2010 census counted 3,171 people in the township.",
    ]
    assert passage_answer(query, "number", ranked)[1] == "3,171 people"
    # the value after the word itself comes first
    table = "Population 4,218 Male 2,101 Female 2,117 residents"
    assert passage_answer(query, "number", [table])[1] == "4,218"


def test_one_of_n_things_answers_only_a_question_that_counts_those_things():
    sentence = "Orrin Township is one of the sixteen townships of Vell County."
    assert passage_answer("How many townships are in Vell County?", "number", [sentence])[1] == (
        "sixteen")  # fmt: skip
    assert passage_answer("How many people live in Orrin Township?", "number", [sentence]) is None


def test_a_who_question_reads_its_verbs_agent_in_any_sentence_before_the_nearest_name():
    query = "Who plays the lawyer in Grey Harbour?"
    ranked = [
        "Mara Vell is a recurring character, the lawyer in the second season of Grey Harbour.",
        "She is portrayed by Ana Brill.",
    ]
    assert passage_answer(query, "entity", ranked)[1] == "Ana Brill"
    # another verb's agent does not answer
    other = ["Mara Vell is the lawyer in Grey Harbour.", "The series was created by Piet Rask."]
    assert passage_answer(query, "entity", other)[1] == "Mara Vell"


def test_a_question_for_the_subjects_sport_or_party_is_answered_by_its_description():
    assert read("Ivo Brask (born 1988 in Tessby) is a Vellish footballer.",
                "What sport is Ivo Brask associated with?") == "Vellish footballer"  # fmt: skip
    assert read("Ada Olm (born 1941), is a Republican politician and lawyer.",
                "What political party was Ada Olm a member of?") == (
        "Republican politician")  # fmt: skip


def test_a_who_question_reads_the_name_that_opens_the_sentence_before_its_auxiliary():
    query = "Who wrote the novel The Salt Orchard?"
    sentence = (
        "Apr 2, 2016 ... Maren Talvik is the author of The Salt Orchard, says the Harbour Review."
    )
    assert passage_answer(query, "entity", [sentence])[1] == "Maren Talvik"
    # a name that does not open the sentence before an auxiliary is left to the other rules
    nearest = "The review quotes Maren Talvik, and the Harbour Review calls The Salt Orchard a gem."
    assert passage_answer(query, "entity", [nearest])[1] == "Harbour Review"


def test_a_hyphenated_name_made_of_the_questions_words_repeats_the_question():
    query = "Who was regarded as the war god of the Tessel hymns?"
    sentence = "In the Tessel hymns, Orvan is regarded as the War-God by the Harbour Guild."
    assert [s[2] for s in answer_spans(sentence, "entity", query)] == ["Orvan", "Harbour Guild"]


def test_birth_questions_read_the_start_of_a_lifespan_before_another_date():
    # the name's other dates ("known as ... to 1797") do not answer for its birth
    sentence = "Tomas Orrin (3 July 1750 – 28 February 1825), known as Tomas Vell to 1797."
    assert passage_answer("What is the birth date of Tomas Vell?", "date", [sentence])[1] == (
        "3 July 1750")  # fmt: skip


def test_a_question_for_an_agent_noun_reads_its_verbs_agent():
    # "director" is the one who directs: "directed by X", not the nearest name
    sentence = "Greyfall is a 1968 film directed by Ola Brenn, with music by Piet Rask."
    assert passage_answer("Who is the director of the film Greyfall?", "entity", [sentence])[1] == (
        "Ola Brenn")  # fmt: skip


def test_who_plays_questions_read_the_doer_of_any_acting_verb_and_a_possessive_role():
    # the role's own name (nearest the question's words) is not the actor
    query = "Who plays the ferryman in Grey Harbour?"
    sentence = "Ana Brill portrays the ferryman Piet Rask in Grey Harbour."
    assert passage_answer(query, "entity", [sentence])[1] == "Ana Brill"
    sentence = "Ana Brill's role as the ferryman Piet Rask in Grey Harbour grew."
    assert passage_answer(query, "entity", [sentence])[1] == "Ana Brill"


@pytest.mark.parametrize(
    ("query", "sentence", "answer"),
    [
        ("Who was the Tessel tower built for?",
         "Around 1450 BC the Tessel tower was raised for Queen Ana Brill, said Piet Rask.",
         "Queen Ana Brill"),
        # a date after the preposition ("from in 1960") is read past
        ("Who did Tessel gain independence from in 1960?",
         "In 1960 Tessel, then ruled by Ona Vell, gained independence from Vellmark.",
         "Vellmark"),
    ],
)  # fmt: skip
def test_a_who_question_ending_in_its_preposition_reads_the_name_after_it(query, sentence, answer):
    assert passage_answer(query, "entity", [sentence])[1] == answer


def test_a_where_question_reads_the_name_after_a_preposition_of_place():
    query = "Where are the Tessel crown jewels kept?"
    sentence = "The Tessel crown jewels are guarded by the Yeoman Wardens in the Tower of Orrin."
    assert passage_answer(query, "entity", [sentence])[1] == "Tower of Orrin"


@pytest.mark.parametrize(
    ("query", "ranked", "answer"),
    [
        # a heading's count does not answer a measure the passage writes with its unit
        ("How deep is Lake Tessel?",
         ["Have you heard that Lake Tessel is 312 metres deep at its centre?",
          "Seven reasons to visit Lake Tessel"], "312 metres"),
        # no unit written anywhere: the bare number still answers
        ("How deep is Lake Tessel?", ["Lake Tessel reaches a depth of 312."], "312"),
        # a count keeps its bare numbers
        ("How many islands does Lake Tessel have?",
         ["Lake Tessel has 14 islands, the largest 3 km long."], "14"),
        # a value the question's own words anchor answers beside values with units
        ("What is the boiling point of tarnol?",
         ["We heat tarnol to 95 °C, about 20 degrees over its boiling point of 75."], "75"),
    ],
)  # fmt: skip
def test_a_measure_reads_a_value_written_in_its_unit_before_a_bare_number(query, ranked, answer):
    assert passage_answer(query, "number", ranked)[1] == answer


def test_a_when_questions_verb_reads_the_date_after_another_verb_of_the_same_event():
    query = "When was the Tessel Maritime Museum established?"
    sentence = "Opened to visitors in 1990, the museum was founded in 1874 by the harbour guild."
    assert passage_answer(query, "date", [sentence])[1] == "1874"
    formed = "The Tessel Pilots' Union, renamed in 1921, was formed on 4 May 1897 at the quay."
    assert passage_answer("When was the Tessel Pilots' Union established?", "date", [formed])[
        1
    ] == "4 May 1897"


@pytest.mark.parametrize(
    ("word", "verb", "same"),
    [("founded", "established", True), ("formed", "establish", True),
     ("constructed", "built", True), ("issued", "released", True),
     ("found", "established", False), ("created", "built", False),
     ("published", "released", False), ("opened", "built", False)],
)  # fmt: skip
def test_verbs_of_one_event(word, verb, same):
    assert same_event(word, verb) is same


@pytest.mark.parametrize(
    "sentence",
    [
        "Ferd Lenk is a Kessen Studios character of the soap Harbour Lane, played by Ana Brill.",
        "Opposite Piet Rask, Ana Brill played Ferd Lenk in Harbour Lane.",
        "Kessen Studios cast Ana Brill as Ferd Lenk in Harbour Lane.",
    ],
)
def test_who_did_x_play_reads_the_role_not_the_actor(sentence):
    query = "Who did ana brill play in harbour lane?"
    assert passage_answer(query, "entity", [sentence])[1] == "Ferd Lenk"


def test_who_did_x_play_for_asks_a_team_not_a_role():
    assert role_actor("Who did ana brill play for in college?") is None
    assert role_actor("Who did ana brill play in harbour lane?") == "ana brill"


def test_a_name_question_reads_the_name_a_naming_verb_gives():
    query = "What is the original name of Tessel Island?"
    sentence = "In 1502 Piet Rask named the island Nieuw Haven after his home port."
    assert passage_answer(query, "any", [sentence])[1] == "Nieuw Haven"


def test_a_location_question_reads_the_place_after_a_locative_preposition():
    query = "What is the head office location of Tessel Freight?"
    sentences = ["Tessel Freight opened a depot on the outskirts of Lisk Valley this week.",
                 "Its head office in Brantmoor will hire 90 people."]  # fmt: skip
    assert passage_answer(query, "any", sentences)[1] == "Brantmoor"
