"""The type model's features in words, for the rationale a reviewer reads.

Each feature has two phrases: what a value below the training mean says and what a value above
it says ("not a yes/no question" / "a yes/no question"). The rationale names the side the
case's own value falls on, so "mostly from yes_no" becomes "not a yes/no question"."""

from __future__ import annotations

# feature -> (below the mean, above the mean)
FEATURE_WORDS: dict[str, tuple[str, str]] = {
    "yes_no": ("not a yes/no question", "a yes/no question"),
    "question_past": ("a question in the present", "a question in the past tense"),
    "lead_share": ("the leading answer weakly held", "the leading answer widely held"),
    "second_share": ("little support for a second answer", "a well-supported second answer"),
    "dissent_contradiction": (
        "dissenting passages that hardly contradict",
        "dissenting passages that contradict",
    ),
    "dissent_neutral": (
        "dissenting passages that take a side",
        "dissenting passages that are neutral",
    ),
    "numeric_spread": ("close numeric answers", "numeric answers far apart"),
    "kappa": ("low conflict score κ", "high conflict score κ"),
    "refute_share": ("few refuting passages", "many refuting passages"),
    "contradiction_mean": ("little contradiction", "much contradiction"),
    "entailment_mean": ("little support for the claim", "much support for the claim"),
    "conflict_pair_share": ("few conflicting pairs", "many conflicting pairs"),
    "dated_share": ("few dated passages", "many dated passages"),
    "date_spread": ("passages of about the same date", "passages dated far apart"),
    "newest_differs": (
        "the newest source gives the common answer",
        "the newest source gives another answer",
    ),
    "time_separated": ("answers not separated in time", "answers separated in time"),
    "text_dates": ("few dates in the text", "many dates in the text"),
    "subjectivity": ("factual wording", "subjective wording"),
    "subjective_share": ("few subjective passages", "many subjective passages"),
    "subjectivity_max": ("no strongly subjective passage", "a strongly subjective passage"),
    "exclaiming_share": ("few exclamations", "many exclamations"),
    "source_spread": ("few distinct sources", "many distinct sources"),
    "cluster_count": ("few evidence clusters", "many evidence clusters"),
    "pair_entailment": ("passages that rarely agree", "passages that agree"),
    "pair_neutral": ("passages that engage each other", "passages that ignore each other"),
    "pair_contradiction": (
        "passages that rarely contradict each other",
        "passages contradicting each other",
    ),
    "contradiction_focus": (
        "contradiction spread over many passages",
        "contradiction concentrated on one passage",
    ),
    "contradiction_time": (
        "contradiction unrelated to time",
        "contradiction growing with the time between passages",
    ),
    "probe_subjectivity": ("passages read as factual", "passages read as opinion"),
    "probe_subjectivity_max": ("no passage read as opinion", "a passage read as opinion"),
    "probe_question": ("a factual question", "a question asking for an opinion"),
    "embedding_spread": ("passages close in meaning", "passages far apart in meaning"),
    "answer_count": ("few distinct answers", "many distinct answers"),
    "on_topic_share": ("many passages off topic", "most passages on topic"),
    "supported_answers": ("one supported answer", "several supported answers"),
    "singleton_share": ("answers repeated by several passages", "answers no other passage repeats"),
    "lone_dissent": ("no lone dissenting passage", "one lone dissenting passage"),
    "same_answer_cosine": (
        "unlike passages sharing an answer",
        "alike passages sharing an answer",
    ),
    "cross_answer_cosine": (
        "unlike passages with different answers",
        "alike passages with different answers",
    ),
    "irrelevant_share": (
        "few passages irrelevant to the claim",
        "many passages irrelevant to the claim",
    ),
    "cross_answer_contradiction": (
        "different answers that do not contradict",
        "different answers that contradict",
    ),
    "cross_answer_neutral": (
        "different answers that engage each other",
        "different answers that stay neutral",
    ),
    "dissent_entailment": (
        "dissenting passages that deny the leading answer",
        "dissenting passages that still allow the leading answer",
    ),
    "answer_nested": ("unrelated answers", "one answer part of another"),
    "candidate_count": ("few candidate answers", "many candidate answers"),
    "value_top_share": ("no value most passages share", "a value most passages share"),
}


def describe(name: str, above_mean: bool) -> str:
    """The phrase for feature `name` on the side of the mean its value lies; the bare name
    for a feature without words."""
    words = FEATURE_WORDS.get(name)
    return name if words is None else words[1 if above_mean else 0]
