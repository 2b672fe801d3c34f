"""The command line that the evaluation scripts over the cached development sets share."""

from __future__ import annotations

import argparse
from pathlib import Path


def cached_sets_parser(doc: str) -> argparse.ArgumentParser:
    """A parser described by a script's docstring (first paragraph: description; the rest:
    epilog) with the options every script over `training.fusion.load_sets` takes: the NLI
    score cache folder, threads and JSON output."""
    head, _, rest = doc.partition("\n\n")
    parser = argparse.ArgumentParser(
        description=head, epilog=rest, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", type=Path, default=Path(".train/fusion"), help="cache folder")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    return parser
