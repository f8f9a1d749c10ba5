"""Ingest cost: provgraph's full ingest path against a raw bulk load of the same quads, in one run.

    python bench/ingest.py [--sizes 10000,100000,1000000] [--docs-per 10,100]

For each size N (facts) and each N/k documents (k from --docs-per: facts per document), an
N-Quads file of N facts, one named graph per document, goes through ``ProvGraph.ingest`` with
``--split-graphs`` (parse, guard, reify, SHACL validation of every statement, spool, bulk load,
current view, catalog, change log) into a fresh store. Every quad the store then holds (source
graphs, the current view pgid:current, the catalog, the change log) is dumped as N-Quads and
loaded into another fresh store with plain pyoxigraph ``Store.bulk_load``: the raw engine doing
the least work that leaves the same data on disk. Each runs in its own process, so its CPU time
(all threads, plus any worker processes) and peak memory (max RSS) are its own.

Printed: wall and CPU seconds of each and their ratios (provgraph / raw), peak RSS of each, and
how each cost grows per 10x facts (same number of documents) and per 10x documents (same facts).
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

from provgraph import IngestOptions

# bench/http.py would shadow the standard library's http package for a script run from bench/
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

SPLIT = r"^(?P<document>http://bench\.example/doc\d+)$"


def make_nquads(path: Path, facts: int, docs: int, seed: int = 7) -> None:
    """``facts`` facts about entities (five each), half of them integer literals, half links,
    spread over ``docs`` named graphs."""
    rng = random.Random(seed)
    xsd_integer = "<http://www.w3.org/2001/XMLSchema#integer>"
    with path.open("w", encoding="utf-8") as f:
        for i in range(facts):
            graph = f"<http://bench.example/doc{i % docs}>"
            subject = f"<http://example.org/entity/{i // 5}>"
            predicate = f"<http://example.org/p{i % 20}>"
            if i % 2:
                obj = f'"{rng.randint(0, 10**6)}"^^{xsd_integer}'
            else:
                obj = f"<http://example.org/entity/{rng.randint(0, facts)}>"
            f.write(f"{subject} {predicate} {obj} {graph} .\n")


def usage() -> dict[str, float]:
    """CPU seconds of this process and its children, and the peak memory in MB: this process's
    own VmHWM (getrusage's ru_maxrss carries the parent's peak over fork and exec) or that of a
    child it waited for (the validation workers), whichever is higher."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = next(
        int(line.split()[1]) / 1024
        for line in Path("/proc/self/status").read_text().splitlines()
        if line.startswith("VmHWM:")
    )
    return {
        "cpu": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime,
        "peak_mb": max(own, kids.ru_maxrss / 1024),
    }


def child_provgraph(data: str, store: str, dump: str) -> None:
    from pyoxigraph import RdfFormat, Store

    from provgraph import GraphSplit, ProvGraph

    before = usage()
    started = time.perf_counter()
    with ProvGraph.open(store) as pg:
        report = pg.ingest(data, IngestOptions(id="bench", title="bench", split=GraphSplit(pattern=SPLIT)))
    seconds = time.perf_counter() - started
    after = usage()
    # Everything the store holds, as the raw load's input (opened with plain pyoxigraph).
    raw = Store.read_only(str(Path(store) / "oxigraph"))
    raw.dump(output=dump, format=RdfFormat.N_QUADS)
    quads = len(raw)
    del raw
    result = {
        "seconds": seconds,
        "cpu": after["cpu"] - before["cpu"],
        "peak_mb": after["peak_mb"],
        "quads": quads,
        "statements": report.statements,
        "documents": report.document_count,
    }
    print(json.dumps(result))


def child_raw(dump: str, store: str) -> None:
    """The raw engine: plain pyoxigraph ``Store.bulk_load`` of the dump, in its own process (its
    seconds, CPU and peak memory, as JSON)."""
    from pyoxigraph import RdfFormat, Store

    before = usage()
    started = time.perf_counter()
    s = Store(store)
    s.bulk_load(path=dump, format=RdfFormat.N_QUADS)
    s.flush()
    del s
    seconds = time.perf_counter() - started
    after = usage()
    print(json.dumps({"seconds": seconds, "cpu": after["cpu"] - before["cpu"], "peak_mb": after["peak_mb"]}))


def _run(*args: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"benchmark child failed: {args[0]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(facts: int, docs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="provgraph-bench-") as tmp:
        root = Path(tmp)
        data = root / "facts.nq"
        make_nquads(data, facts, docs)
        pg = _run("--child-provgraph", str(data), str(root / "store"), str(root / "dump.nq"))
        raw = _run("--child-raw", str(root / "dump.nq"), str(root / "raw"))
    return {
        "facts": facts,
        "docs": docs,
        **{f"pg_{k}": v for k, v in pg.items()},
        **{f"raw_{k}": v for k, v in raw.items()},
    }


def _growth(results: dict[tuple[int, int], dict[str, float]]) -> list[str]:
    lines = []
    for (facts, docs), r in sorted(results.items()):
        for label, key in (("10x facts", (facts * 10, docs)), ("10x docs", (facts, docs * 10))):
            s = results.get(key)
            if s is None:
                continue
            grows = {k: s[k] / r[k] for k in r if k.startswith(("pg_", "raw_")) and isinstance(r[k], float) and r[k]}
            lines.append(
                f"{label:>9} {facts:>9}/{docs:<7} -> {key[0]:>9}/{key[1]:<7} "
                f"pg wall x{grows['pg_seconds']:>5.1f}  raw wall x{grows['raw_seconds']:>5.1f}  "
                f"pg cpu x{grows['pg_cpu']:>5.1f}  raw cpu x{grows['raw_cpu']:>5.1f}  "
                f"pg peak x{grows['pg_peak_mb']:>4.2f}  raw peak x{grows['raw_peak_mb']:>4.2f}"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated numbers of facts")
    parser.add_argument("--docs-per", default="10,100", help="comma-separated facts per document")
    args, rest = parser.parse_known_args()
    if rest and rest[0] == "--child-provgraph":
        child_provgraph(*rest[1:4])
        return
    if rest and rest[0] == "--child-raw":
        child_raw(*rest[1:3])
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    per = sorted({int(k) for k in args.docs_per.split(",")}, reverse=True)
    print(
        f"{'facts':>9} {'docs':>7} {'quads':>9} | {'pg wall':>8} {'raw wall':>8} {'ratio':>6} | "
        f"{'pg cpu':>8} {'raw cpu':>8} {'ratio':>6} | {'pg peak MB':>10} {'raw peak MB':>11}"
    )
    results: dict[tuple[int, int], dict[str, float]] = {}
    for n in sizes:
        for k in per:
            docs = max(1, n // k)
            r = measure(n, docs)
            results[(n, docs)] = r
            print(
                f"{n:>9} {docs:>7} {int(r['pg_quads']):>9} | {r['pg_seconds']:>8.2f} {r['raw_seconds']:>8.2f} "
                f"{r['pg_seconds'] / r['raw_seconds']:>5.2f}x | {r['pg_cpu']:>8.2f} {r['raw_cpu']:>8.2f} "
                f"{r['pg_cpu'] / r['raw_cpu']:>5.2f}x | {r['pg_peak_mb']:>10.0f} {r['raw_peak_mb']:>11.0f}",
                flush=True,
            )
    growth = _growth(results)
    if growth:
        print("\nGrowth (provgraph and raw, same run):")
        print("\n".join(growth))


if __name__ == "__main__":
    main()
