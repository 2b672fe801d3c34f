"""Issue 16's rule: no rule, lexicon or threshold names text from `examples/` or from a
development case. Two guards over the product's code and its model files:

- the invented names of the bundled examples and of typed_dev (words written at least twice
  there that the encoder's 30k-word vocabulary does not know, less the real English words
  listed below) appear nowhere;
- no short string literal of the code (2 to 5 words: the size of a cue phrase) is a phrase of
  the example documents, unless it is listed below as generic with the reason.

A failure here means a cue was keyed to the demo or a development case: replace it with a
measured signal, or, if the phrase is ordinary English the code needs, list it with why."""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_DOCS = sorted((ROOT / "examples" / "docs").iterdir())
EXAMPLE_FILES = [*EXAMPLE_DOCS, ROOT / "examples" / "questions.jsonl"]
CODE = [*sorted((ROOT / "conflictdesk").rglob("*.py")), *sorted((ROOT / "scripts").glob("*.py"))]
MODEL_FILES = [
    p
    for p in sorted((ROOT / "models").rglob("*.json"))
    if p.name not in {"tokenizer.json", "vocabulary.json", "vocab.json", "tokenizer_config.json"}
]
# Help text that shows commands on the bundled example collection names its subject.
HELP_EXAMPLES = {"conflictdesk/cli/ask.py": {"lumivex"}, "conflictdesk/cli/search.py": {"lumivex"}}
# Real English words outside the encoder's vocabulary that the code needs (units, terms).
ENGLISH = {
    "micrograms", "mmhg", "docs", "licences", "queues", "specs", "pooled", "clamps", "fasting",
    "misinformation", "dropout", "bins", "distillation",
}  # fmt: skip
# Phrases of the example documents that the code uses as ordinary English, and why.
GENERIC = {
    "which year": "question form (a date answer is expected)",
    "in which year": "question form",
    "how many": "question form (a count)",
    "how much": "question form (an amount)",
    "how long": "question form (a duration)",
    "how old": "question form (an age)",
    "how tall": "question form (a height)",
    "in which": "question form",
    "what does": "question form",
    "body html": "HTML markup (the bench report's page end)",
    "of the": "function words",
    "the museum": "a subject of the embedder conversion check's generated sentences",
}


def _vocabulary() -> set[str]:
    tokenizer = json.loads((ROOT / "models" / "nli" / "tokenizer.json").read_text("utf-8"))
    return set(tokenizer["model"]["vocab"])


def invented_names(text: str, vocabulary: set[str]) -> set[str]:
    """Words of 4+ letters written at least twice that neither the vocabulary nor ENGLISH
    knows."""
    counts = Counter(word.lower() for word in re.findall(r"\b[A-Za-z]{4,}\b", text))
    return {w for w, n in counts.items() if n >= 2 and w not in vocabulary and w not in ENGLISH}


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _names_found(names: set[str]) -> list[str]:
    pattern = re.compile(r"\b(" + "|".join(sorted(names)) + r")\b", re.IGNORECASE)
    found = []
    for path in [*CODE, *MODEL_FILES]:
        allowed = HELP_EXAMPLES.get(_relative(path), set())
        for match in pattern.finditer(path.read_text("utf-8", errors="replace")):
            if match.group(0).lower() not in allowed:
                found.append(f"{_relative(path)}: {match.group(0)}")
    return found


def test_invented_names_of_the_examples_appear_in_no_code_or_model():
    text = "\n".join(p.read_text("utf-8") for p in EXAMPLE_FILES)
    names = invented_names(text, _vocabulary())
    # The examples' entities are invented: the guard has teeth.
    assert {"lumivex", "velsarin", "orvane"} <= names, sorted(names)
    assert _names_found(names) == []


def test_invented_names_of_typed_dev_appear_in_no_code_or_model():
    from conflictdesk.errors import UsageError
    from conflictdesk.training.nli_data import data_root

    try:
        cases = data_root() / "typed_dev" / "cases.jsonl"
    except UsageError:
        pytest.skip("no data folder (CONFLICTDESK_DATA)")
    if not cases.is_file():
        pytest.skip(f"{cases} is missing")
    names = invented_names(cases.read_text("utf-8"), _vocabulary())
    assert len(names) >= 20, len(names)
    assert _names_found(names) == []


def _short_literals(path: Path) -> Iterator[tuple[int, str]]:
    """(line, phrase) for each non-docstring string literal of 2 to 5 words."""
    tree = ast.parse(path.read_text("utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docstrings:
                continue
            # Regular-expression syntax is not a word: r"\bstepped\s+down\b" is a phrase.
            plain = re.sub(r"\\[bBsSdwW]|[()?:|^$*+\[\]{}.,;!\"]", " ", node.value.lower())
            words = re.findall(r"[a-z][a-z'-]*", plain)
            if 2 <= len(words) <= 5:
                yield node.lineno, " ".join(words)


def test_no_short_literal_is_a_phrase_of_the_examples():
    text = " ".join(p.read_text("utf-8") for p in EXAMPLE_DOCS)
    text = " " + " ".join(re.findall(r"[a-z][a-z'-]*", text.lower())) + " "
    found = [
        f"{_relative(path)}:{line}: {phrase!r}"
        for path in CODE
        for line, phrase in _short_literals(path)
        if f" {phrase} " in text and phrase not in GENERIC
    ]
    assert found == []


def test_the_phrase_guard_sees_a_cue_written_as_a_regular_expression(tmp_path):
    source = tmp_path / "cue.py"
    source.write_text('CUES = [r"\\bhas\\s+been\\s+lowered\\b", "in my view"]\n', "utf-8")
    assert [phrase for _, phrase in _short_literals(source)] == [
        "has been lowered",
        "in my view",
    ]
