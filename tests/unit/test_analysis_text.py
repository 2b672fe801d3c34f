"""Text features shared by the analysis stages."""

from __future__ import annotations

from conflictdesk.analysis import text as tx


def test_sentences_split_paragraphs_and_keep_abbreviations():
    text = "Title line\n\nDr. Imre Valcourt spoke. J. R. R. Tolkien wrote it. 2,841 m is high."
    assert tx.sentences(text) == [
        "Title line",
        "Dr. Imre Valcourt spoke.",
        "J. R. R. Tolkien wrote it.",
        "2,841 m is high.",
    ]


def test_ranked_sentences_put_statements_before_headings():
    idf = {"lumivex": 1.0, "body": 2.0}
    ranked = tx.ranked_sentences(
        "What does lumivex do for the body?",
        "Lumivex and the body\n\nLumivex helps the body keep bone. Other text here.",
        idf,
    )
    assert ranked[0] == "Lumivex helps the body keep bone."
    assert ranked[-1] == "Lumivex and the body"


def test_numbers_with_units_and_entities():
    assert tx.numbers("It rises to 2,841 metres and 12 micrograms.") == [
        "2841 metres",
        "12 micrograms",
    ]
    assert tx.entities("Yesterday Mira Castellane met the Halden Institute.") == [
        "mira castellane",  # sentence-initial "Yesterday" is not part of the name
        "halden institute",
    ]
    assert tx.entity_spans("Following a review, Keldmore acted.", set()) == [(20, "Keldmore")]


def test_a_version_is_one_span_and_an_address_none():
    text = "Bind to 10.0.0.1:7843 (release 2.4.1) and keep 3.5 kg below 1.25 m."
    assert tx.numbers(text) == ["7843", "2.4.1", "3.5 kg", "1.25 m"]


def test_a_names_initials_belong_to_it_but_a_lists_letters_do_not():
    assert tx.entity_spans("John F. Kennedy spoke in Dallas.") == [
        (0, "John F. Kennedy"),
        (25, "Dallas"),
    ]
    assert tx.entity_spans("The painter J. M. W. Turner was born here.") == [
        (12, "J. M. W. Turner")
    ]
    # an answer list's letters stay apart from the names around them
    assert [s for _, s in tx.entity_spans("A. Ada Brill B. Piet Rask C. Ona Vell")] == [
        "Ada Brill B",
        "Piet Rask C",
        "Ona Vell",
    ]
    assert [s for _, s in tx.entity_spans("He joined the U.S. Army.")] == ["U", "S", "Army"]


def test_an_infobox_label_before_by_ends_the_name_before_it():
    spans = tx.entity_spans("Directed by Ola Brenn Written by Piet Rask Produced by Ona Vell")
    assert [s for _, s in spans][1:] == ["Ola Brenn", "Piet Rask", "Ona Vell"]


def test_clip_words_centres_on_the_anchor():
    text = " ".join(f"w{i}" for i in range(100))
    assert tx.clip_words(text, "w80", 10).split() == [f"w{i}" for i in range(75, 85)]
    assert tx.clip_words(text, None, 5) == "w0 w1 w2 w3 w4"
    assert tx.clip_words("short text", "text", 5) == "short text"


def test_specificity_counts_numbers_and_entities_per_content_word():
    # one number and one entity over five content words
    assert tx.specificity("Mount Ysolde rises 2841 metres") == 2 / 5
    assert tx.specificity("") == 0.0


def test_acronyms_are_spelled_out_as_the_passages_spell_them():
    texts = ["Tarnwick Mills named Ada Brell its chief financial officer in May."]
    assert (
        tx.spell_out_acronyms("Who is the CFO of Tarnwick Mills?", texts)
        == "Who is the chief financial officer of Tarnwick Mills?"
    )
    assert tx.spell_out_acronyms("Who is the CTO of Tarnwick Mills?", texts) == (
        "Who is the CTO of Tarnwick Mills?"
    )  # nothing spells it out
    both = texts + ["The CFO left Tarnwick Mills."]
    assert tx.spell_out_acronyms("Who is the CFO?", both) == "Who is the CFO?"  # used as is


def test_versions_are_read_whole_and_never_joined_into_a_range():
    from conflictdesk.analysis.ranges import number_ranges

    text = "Upgrade from 1.3.3 to 2.0.1 first; 600-800 IU; Tessaline 3.0.0 is stable."
    keys = [key for _, _, key in number_ranges(text)]
    assert keys == ["num:1.3.3", "num:2.0.1", "num:600-800", "num:3.0.0"]


def test_units_of_speed_power_charge_storage_and_time_belong_to_the_number():
    text = "It tops out at 120 km/h, charges at 45 W, holds 4,600 mAh and 512 GB for 24 months."
    assert tx.numbers(text) == ["120 km/h", "45 w", "4600 mah", "512 gb", "24 months"]
    # a hyphenated unit is read, but not inside a longer compound ("15-year-olds")
    assert tx.numbers("a 2-year guarantee for 15-year-olds") == ["2-year", "15"]


def test_a_lone_capital_after_a_slash_or_a_spaced_dash_is_no_name_unless_known():
    from conflictdesk.analysis.text import entity_spans

    text = "I came in like a wrecking ball/ Yeah, I closed my eyes. Stats - Full team list."
    assert [s for _, s in entity_spans(text, known=set())] == []
    assert [s for _, s in entity_spans(text, known={"yeah"})] == ["Yeah"]
    # after a word, a comma or a closing quote a capital still marks a name
    assert [s for _, s in entity_spans("In “Sexes,” Riseborough plays her.", set())] == [
        "Sexes",
        "Riseborough",
    ]


def test_a_name_after_an_english_prefix_is_part_of_an_adjective():
    from conflictdesk.analysis.text import entity_spans

    text = "The anti-Orlen riots and the pre-Tessel kilns were studied by Ana al-Brill."
    assert [s for _, s in entity_spans(text)] == ["Ana", "Brill"]  # "al-" is no English prefix


def test_a_sentence_first_word_before_a_singular_auxiliary_is_a_name():
    from conflictdesk.analysis.text import entity_spans

    text = (
        "Vellora was the first ferry pilot. Currently is a word. Results were mixed. "
        "Residents can apply."
    )
    assert [s for _, s in entity_spans(text, known=set())] == ["Vellora"]
    # without the auxiliary, sentence case capitalises any word: a name only when known
    assert [s for _, s in entity_spans("Vellora piloted it.", known=set())] == []
    assert [s for _, s in entity_spans("Vellora piloted it.", known={"vellora"})] == ["Vellora"]


def test_a_space_between_groups_of_three_digits_separates_thousands():
    text = "A population of 23 500 people, 1 234 567 in all; in 2019 150 died; 12 4000."
    assert tx.numbers(text) == ["23500 people", "1234567", "2019", "150", "12", "4000"]
    from conflictdesk.analysis.claims import passage_answer

    sentence = "The stadium at Tessel holds 12 400 spectators."
    query = "What is the capacity of the Tessel stadium?"
    assert passage_answer(query, "number", [sentence])[:2] == ("num:12400", "12 400")


def test_bracketed_qualifiers_read_the_word_before_and_the_content():
    sentence = "Greg_Boyer_ ( water_polo ) and Ana Brill (1936 film); (alone) x(y)."
    assert tx.bracketed_qualifiers(sentence) == [
        ("Boyer", "water polo"),
        ("Brill", "1936 film"),
    ]
    assert tx.question_words("What is Ana Brill's profession?") >= {"brill", "profession"}
