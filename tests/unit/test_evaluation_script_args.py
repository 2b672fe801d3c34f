from pathlib import Path

from conflictdesk.evaluation.script_args import cached_sets_parser

DOC = """First line of the script.

examples:
  run it
"""


def test_parser_splits_the_docstring_and_has_the_shared_options():
    parser = cached_sets_parser(DOC)
    assert parser.description == "First line of the script."
    assert parser.epilog.startswith("examples:")
    args = parser.parse_args(["--threads", "1", "--json"])
    assert (args.work, args.threads, args.json) == (Path(".train/fusion"), 1, True)
    assert parser.parse_args([]).json is False
