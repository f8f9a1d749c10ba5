"""Every cost that could grow with the number of sources, in one run: ingest, queries (in process
and over HTTP) and asks, each against the raw engine measured in the same run.

    python bench/scale.py [--quick | --full] [--seconds 5]

Runs, one after the other, each in its own processes (so each measures its own CPU and peak
memory):

- ``bench/ingest.py``: the full ingest path against a raw pyoxigraph bulk load of the same quads,
  at 10,000 and 100,000 facts (``--full``: and 1,000,000) in N/10 and N/100 documents;
- ``bench/http.py``: five query shapes over the current view against pyoxigraph's union default
  graph in process, and ``provgraph serve`` against ``oxigraph serve`` under 1 and 4
  connections, at 10,000 facts in 1,000 documents, 100,000 in 1,000 and in 10,000 (``--full``:
  and 1,000,000 in 100,000);
- ``bench/answers.py``: ``pg.ask`` p50/p95 against one SPARQL query for the entity's facts, and
  the first ask after one more document, at 100,000 facts in 1,000 documents (``--full``: and
  1,000,000 in 100,000).

Each prints its ratios, peak memory, and how its costs grow per 10x facts and per 10x
documents. ``--quick`` runs the smallest sizes only (a few minutes; a smoke run). On a 2-core
machine the default takes about 15 minutes and ``--full`` about two hours.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

PLANS: dict[str, list[list[str]]] = {
    "quick": [
        ["ingest.py", "--sizes", "10000", "--docs-per", "10,100"],
        ["http.py", "--sizes", "10000:100,10000:1000"],
        ["answers.py", "--no-hotpot", "--no-cities", "--size", "10k"],
    ],
    "default": [
        ["ingest.py", "--sizes", "10000,100000", "--docs-per", "10,100"],
        ["http.py", "--sizes", "10000:1000,100000:1000,100000:10000"],
        ["answers.py", "--no-hotpot", "--no-cities", "--size", "100k"],
    ],
    "full": [
        ["ingest.py", "--sizes", "10000,100000,1000000", "--docs-per", "10,100"],
        ["http.py", "--sizes", "10000:1000,100000:1000,100000:10000,1000000:100000"],
        ["answers.py", "--no-hotpot", "--no-cities", "--size", "100k", "--size", "1m"],
    ],
}


def main() -> int:
    parser = argparse.ArgumentParser(description="The scale benchmarks (ingest, queries and HTTP, asks) in one run.")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="smallest sizes only")
    size.add_argument("--full", action="store_true", help="also 1,000,000 facts")
    parser.add_argument("--seconds", type=float, default=5.0, help="HTTP load time per server and row")
    args = parser.parse_args()
    plan = PLANS["quick" if args.quick else "full" if args.full else "default"]
    failed = 0
    for script, *options in plan:
        if script == "http.py":
            options += ["--seconds", str(args.seconds)]
        print(f"\n### python bench/{script} {' '.join(options)}\n", flush=True)
        started = time.monotonic()
        code = subprocess.call([sys.executable, str(HERE / script), *options])
        print(f"\n(bench/{script}: {time.monotonic() - started:.0f} s, exit {code})", flush=True)
        failed += code != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
