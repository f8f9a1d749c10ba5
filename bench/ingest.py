"""Ingest throughput: N facts of JSON Lines through the full path (parse, reify, SHACL, write),
against plain pyoxigraph bulk load of the same final quads, measured in the same run.

    python bench/ingest.py [--facts 100000] [--sizes 25000,100000]

Each measurement runs in a fresh process so peak memory (max RSS) is its own. Prints facts/s,
the ratio to the raw load, and peak memory (max RSS) for each size:

- pipeline MB: the ingest process once everything is read, reified and validated, before the
  write (the streaming part: should stay flat in N);
- worker MB: the largest SHACL worker process;
- pg peak MB: the ingest process at the end, including Oxigraph's bulk loader;
- raw peak MB: plain pyoxigraph bulk-loading the same quads.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# bench/http.py would shadow the standard library's http package for a script run from bench/
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]


def make_jsonl(path: Path, n: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            record: dict[str, object] = {
                "subject": f"http://example.org/entity/{i // 5}",
                "predicate": f"http://example.org/p{i % 20}",
                "confidence": round(rng.uniform(0.5, 1.0), 3),
            }
            if i % 2:
                record["literal"] = str(rng.randint(0, 10**6))
                record["datatype"] = "xsd:integer"
            else:
                record["object"] = f"http://example.org/entity/{rng.randint(0, n)}"
            f.write(json.dumps(record) + "\n")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_provgraph(jsonl: str, store: str, dump: str) -> None:
    from provgraph import ExportFormat, ExtractionMethod, ProvGraph

    before_write: list[float] = []

    def progress(phase: str, done: int, _total: int) -> None:
        if phase == "writing" and done == 0:  # everything read, reified and validated
            before_write.append(_peak_mb())

    with ProvGraph.open(store) as pg:
        started = time.perf_counter()
        report = pg.ingest(
            jsonl,
            progress=progress,
            title="bench",
            url="https://example.org/bench",
            tier=3,
            method=ExtractionMethod.LLM_EXTRACTION,
        )
        seconds = time.perf_counter() - started
        peak = _peak_mb()
        workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        with open(dump, "wb") as f:  # the final quads, for the raw load
            pg.export(format=ExportFormat.NQUADS, output=f)
    result = {
        "seconds": seconds,
        "quads": report.quads,
        "statements": report.statements,
        "peak_mb": peak,
        "pipeline_mb": before_write[0] if before_write else peak,
        "worker_mb": workers,
    }
    print(json.dumps(result))


def child_raw(dump: str, store: str) -> None:
    from pyoxigraph import RdfFormat, Store

    s = Store(store)
    started = time.perf_counter()
    s.bulk_load(path=dump, format=RdfFormat.N_QUADS)
    s.flush()
    seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "peak_mb": _peak_mb()}))


def _run(*args: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"benchmark child failed: {args[0]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(n: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="provgraph-bench-") as tmp:
        root = Path(tmp)
        jsonl = root / "facts.jsonl"
        make_jsonl(jsonl, n)
        full = _run("--child-provgraph", str(jsonl), str(root / "store"), str(root / "dump.nq"))
        raw = _run("--child-raw", str(root / "dump.nq"), str(root / "raw"))
    return {"facts": n, **{f"pg_{k}": v for k, v in full.items()}, **{f"raw_{k}": v for k, v in raw.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--sizes", help="comma-separated sizes, to show memory against N")
    args, rest = parser.parse_known_args()
    if rest and rest[0] == "--child-provgraph":
        child_provgraph(*rest[1:4])
        return
    if rest and rest[0] == "--child-raw":
        child_raw(*rest[1:3])
        return
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else [args.facts]
    print(
        f"{'facts':>9} {'quads':>10} {'provgraph s':>12} {'facts/s':>9} {'raw load s':>11} {'ratio':>6} "
        f"{'pipeline MB':>12} {'worker MB':>10} {'pg peak MB':>11} {'raw peak MB':>12}"
    )
    for n in sizes:
        r = measure(n)
        ratio = r["pg_seconds"] / r["raw_seconds"]
        print(
            f"{n:>9} {int(r['pg_quads']):>10} {r['pg_seconds']:>12.2f} {n / r['pg_seconds']:>9.0f} "
            f"{r['raw_seconds']:>11.2f} {ratio:>5.2f}x {r['pg_pipeline_mb']:>12.0f} {r['pg_worker_mb']:>10.0f} "
            f"{r['pg_peak_mb']:>11.0f} {r['raw_peak_mb']:>12.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
