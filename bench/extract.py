"""Facts from text: the cost of ``--extract rules`` against ``--extract none`` (passages only) and
against the raw engine bulk-loading the same quads, in one run.

    python bench/extract.py [--sentences 1000,10000] [--per-doc 10,100]

For each size S (sentences) and each S/k documents (k from --per-doc: sentences per document),
Markdown documents of S sentences (drawn from templates that the rules read: heights, builders,
dates, aliases, and sentences they do not read) are ingested one after the other into a fresh
on-disk store, once with ``extract=none`` and once with ``extract=rules``. Every quad the rules'
store then holds is dumped as N-Quads and loaded into another fresh store with pyoxigraph's
``Store.bulk_load``: the raw engine doing the least work that leaves the same data. Each runs in
its own process, so its CPU time and peak memory (max RSS) are its own.

Printed per run: wall and CPU seconds, sentences per second, facts kept, peak RSS, the ratios of
rules to none and to the raw load, and how the cost per sentence grows per 10x sentences (same
documents) and per 10x documents (same sentences).
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

TEMPLATES = (
    "The {name} Tower is {n} metres tall.",
    "It was built between {y} and {y2} by {person}.",
    "The {name} Bridge, also known as the {alias} Crossing, spans the {river}.",
    "{person} was born in {y} in {town}.",
    "The tower was designed by {person}.",
    "Visitors often describe the view from the top as remarkable.",
    "The maximum height of the {name} Dam is {n} m.",
    "In {y} the site was opened to the public.",
)
NAMES = "Alder Birch Cedar Dunmore Elm Fenwick Garth Holm Inver Jura Kelso Lomond Morven Ness Orkney".split()
PEOPLE = "Robert Stevenson|Thomas Telford|John Rennie|Isambard Brunel|Anna Fowler|Mary Baker".split("|")


def make_documents(folder: Path, sentences: int, per_doc: int, seed: int = 11) -> list[Path]:
    rng = random.Random(seed)
    paths = []
    for d in range(sentences // per_doc):
        lines = [f"# Site {d}", ""]
        for _ in range(per_doc):
            template = rng.choice(TEMPLATES)
            y = rng.randint(1700, 1990)
            lines.append(
                template.format(
                    name=f"{rng.choice(NAMES)} {d}",
                    alias=f"{rng.choice(NAMES)}",
                    n=rng.randint(10, 300),
                    y=y,
                    y2=y + rng.randint(1, 9),
                    person=rng.choice(PEOPLE),
                    river=f"River {rng.choice(NAMES)}",
                    town=f"{rng.choice(NAMES)}ton",
                )
            )
        path = folder / f"doc{d}.md"
        path.write_text(" ".join(lines[2:]).join([lines[0] + "\n\n", "\n"]), encoding="utf-8")
        paths.append(path)
    return paths


def _run(args: argparse.Namespace) -> None:
    """One measured run, in this process: prints its figures as JSON."""
    from provgraph import Extraction, IngestOptions, ProvGraph

    started, cpu = time.perf_counter(), time.process_time()
    facts = 0
    if args.mode == "raw":
        import pyoxigraph

        store = pyoxigraph.Store(str(Path(args.store)))
        store.bulk_load(path=args.dump, format=pyoxigraph.RdfFormat.N_QUADS)
        store.flush()
    else:
        kind = Extraction(args.mode)
        with ProvGraph.open(args.store) as pg:
            for path in sorted(Path(args.docs).glob("*.md")):
                report = pg.ingest(path, IngestOptions(extract=kind))
                facts += report.facts_extracted
            if args.dump:
                with open(args.dump, "wb") as out:
                    pg.export(format="nquads", output=out)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "cpu": cpu_seconds, "facts": facts, "rss_mb": rss_mb}))


def _measure(mode: str, docs: Path, store: Path, dump: Path | None) -> dict[str, float]:
    command = [sys.executable, __file__, "--run", mode, "--docs", str(docs), "--store", str(store)]
    if dump is not None:
        command += ["--dump", str(dump)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sentences", default="1000,10000")
    parser.add_argument("--per-doc", default="10,100")
    parser.add_argument("--run", choices=["none", "rules", "raw"])
    parser.add_argument("--docs")
    parser.add_argument("--store")
    parser.add_argument("--dump")
    args = parser.parse_args()
    if args.run:
        args.mode = args.run
        _run(args)
        return
    results: dict[tuple[int, int], dict[str, dict[str, float]]] = {}
    for sentences in map(int, args.sentences.split(",")):
        for per_doc in map(int, args.per_doc.split(",")):
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                (folder / "docs").mkdir()
                make_documents(folder / "docs", sentences, per_doc)
                none = _measure("none", folder / "docs", folder / "none", None)
                rules = _measure("rules", folder / "docs", folder / "rules", folder / "dump.nq")
                raw = _measure("raw", folder / "docs", folder / "raw", folder / "dump.nq")
            docs = sentences // per_doc
            results[(sentences, docs)] = {"none": none, "rules": rules, "raw": raw}
            print(
                f"{sentences:>6} sentences in {docs:>5} docs: rules {rules['seconds']:.2f} s "
                f"({sentences / rules['seconds']:.0f} sentences/s, {rules['facts']:.0f} facts, "
                f"{rules['rss_mb']:.0f} MB) | none {none['seconds']:.2f} s ({none['rss_mb']:.0f} MB) | "
                f"raw load {raw['seconds']:.2f} s ({raw['rss_mb']:.0f} MB) | rules/none "
                f"{rules['seconds'] / none['seconds']:.2f}x, rules/raw {rules['seconds'] / raw['seconds']:.1f}x",
                flush=True,
            )
    print("\ngrowth of rules' cost per sentence:")
    for (sentences, docs), run in sorted(results.items()):
        per = run["rules"]["seconds"] / sentences
        more = results.get((sentences * 10, docs))
        if more is not None:
            growth = more["rules"]["seconds"] / (sentences * 10) / per
            print(f"  x10 sentences ({sentences} -> {sentences * 10}, {docs} docs): {growth:.2f}")
        more_docs = results.get((sentences, docs * 10))
        if more_docs is not None:
            growth = more_docs["rules"]["seconds"] / sentences / per
            print(f"  x10 documents ({docs} -> {docs * 10}, {sentences} sentences): {growth:.2f}")


if __name__ == "__main__":
    main()
