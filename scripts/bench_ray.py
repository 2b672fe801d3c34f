"""Throughput of `detect` in one process and on a local Ray cluster of 1 and 2 workers.

The items are the first --items RAMDocs dev questions (ramdocs/dev.jsonl in the data folder:
--data, or the data_dir setting / CONFLICTDESK_DATA); see conflictdesk/app/scale_bench.py for
what is timed. Needs the scale extra (Ray).

examples:
  CONFLICTDESK_DATA=../shared/data .venv/bin/python scripts/bench_ray.py --items 60 --repeats 3
  .venv/bin/python scripts/bench_ray.py --data ../shared/data --json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--data", type=Path, default=None, help="the shared data folder")
    parser.add_argument("--items", type=int, default=60, help="detect lines (default 60)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per configuration")
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local cluster")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    from conflictdesk.app import load_settings
    from conflictdesk.app.scale_bench import bench_detect, detect_items

    settings = load_settings(data_dir=args.data, device="cpu")
    if settings.data_dir is None:
        parser.error("no data folder: pass --data or set CONFLICTDESK_DATA")
    items = detect_items(settings.data_dir, args.items)
    figures = bench_detect(settings, items, args.repeats, cpus=args.cpus)
    if args.json:
        json.dump([f.to_json() for f in figures], sys.stdout, indent=2)
        print()
        return 0
    plain = figures[0].items_per_s
    for figure in figures:
        print(f"{figure.name:<32} {figure.items} items  median {figure.wall_s:7.2f} s  "
              f"{figure.items_per_s:6.2f} items/s ({figure.items_per_s / plain:4.2f}x plain)  "
              f"first result {figure.first_s:5.2f} s, then "
              f"{figure.after_first_items_per_s:6.2f} items/s  runs {list(figure.runs)}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
