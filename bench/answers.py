"""Grounded answers: quality on HotpotQA and DBpedia, latency on a store of 100k facts.

    python bench/answers.py [--hotpot/--no-hotpot] [--cities/--no-cities] [--latency/--no-latency]
                            [--questions 100] [--facts 100000] [--asks 200]

**HotpotQA** (../shared/data/hotpotqa-dev-100): every paragraph one source document whose passages
are its sentences; each question asked over its own ten paragraphs (the distractor setting), then
over its eight distractors only. Prints ALCE's citation recall and precision (the verifier's
support check as the judge), claim coverage, dangling citations, sentence-level citation recall
and precision against the gold supporting facts, and abstention correctness.

**DBpedia cities** (../shared/data/dbpedia-multilang-cities, Dutch cities from nine Wikipedia
editions): "What is the population of Amsterdam?" must state the disagreement with its sources and
the preferred value with its rationale. The answer is printed.

**Latency**: a generated store of N facts (entities with names, nine labelled functional
predicates, in 1,000 documents; 5% of the entities with a second, disagreeing value: conflicts).
p50/p95 of ``pg.ask`` with the extractive generator, the share of retrieval, generation and
verification, and the ratio to the raw engine: one pyoxigraph SPARQL query for the facts of the
same entity, in the same run. Plus peak memory.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

# bench/http.py would shadow the standard library's http package for a script run from bench/
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from rich.console import Console  # noqa: E402

from provgraph import GraphSplit, ProvGraph  # noqa: E402
from provgraph.answer.evaluate import evaluate_hotpot, ingest_hotpot, load_hotpot  # noqa: E402
from provgraph.answer.pipeline import respond  # noqa: E402
from provgraph.cli.answer import print_report, show  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
HOTPOT = SHARED / "hotpotqa-dev-100" / "hotpot_dev_distractor_v1.json"
CITIES = SHARED / "dbpedia-multilang-cities"
DBO = "http://dbpedia.org/ontology/"
GEO = "http://www.w3.org/2003/01/geo/wgs84_pos#"
POLICY = f"""@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix pg: <https://w3id.org/provgraph/ns#> .
<{DBO}populationTotal> a owl:FunctionalProperty ; pg:relativeTolerance 0.01 .
<{GEO}lat> a owl:FunctionalProperty ; pg:absoluteTolerance 0.01 .
<{GEO}long> a owl:FunctionalProperty ; pg:absoluteTolerance 0.01 .
"""


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def hotpot(limit: int) -> None:
    if not HOTPOT.is_file():
        print(f"hotpot: {HOTPOT} is missing; skipped")
        return
    questions = load_hotpot(HOTPOT, limit=limit)
    with ProvGraph.memory() as pg:
        started = time.perf_counter()
        sentences = ingest_hotpot(pg, questions)
        ingested = time.perf_counter() - started
        started = time.perf_counter()
        with_gold, without = evaluate_hotpot(pg, questions, sentences)
        asked = time.perf_counter() - started
    print(f"== HotpotQA dev: {len(questions)} questions ({len(sentences):,} sentences ingested in {ingested:.1f} s) ==")
    print_report(Console(highlight=False), with_gold, without)
    print(f"  ({2 * len(questions)} asks in {asked:.1f} s)")
    print("  ALCE's best prompted baseline on ASQA: citation recall 73.6, precision 72.5 (NLI judge)")


def cities() -> None:
    data = CITIES / "cities1000-Netherlands_data_triples.nq"
    if not data.is_file():
        print(f"cities: {data} is missing; skipped")
        return
    with tempfile.TemporaryDirectory() as tmp, ProvGraph.memory() as pg:
        pg.ingest(
            data,
            id="nl-cities",
            title="DBpedia: Dutch cities",
            tier=4,
            base="http://example.org/ldif/",
            split=GraphSplit.wikipedia_articles(CITIES / "cities1000-Netherlands_metadata_triples.nq"),
        )
        policy = Path(tmp) / "policy.ttl"
        policy.write_text(POLICY, encoding="utf-8")
        pg.add_ontology(policy)
        pg.detect_conflicts()
        print("\n== DBpedia NL cities: What is the population of Amsterdam? ==")
        answer = pg.ask("What is the population of Amsterdam?")
        show(Console(highlight=False, width=120), answer)


_SYLLABLES = "ka ve lo mir stra dun bel tor an is ul ra gen vo sel tam ri qua bor nel fen dra os pi".split()
PREDICATES = [
    "population",
    "elevation",
    "area",
    "founding year",
    "mayor",
    "river",
    "twin town",
    "timezone",
    "postcode",
    "region",
]


def _names(n: int, rng: random.Random) -> list[str]:
    names: set[str] = set()
    while len(names) < n:
        names.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(3, 4))).capitalize())
    return sorted(names)


def make_store(
    path: Path, facts: int, docs: int = 1000, seed: int = 7, conflict_rate: float = 0.05
) -> tuple[Path, Path, list[tuple[str, str]]]:
    """N-Quads of ``facts`` facts (a tenth of them labels) about named entities, one graph per
    document, and a policy declaring the predicates functional. For ``conflict_rate`` of the
    entities a second document states another value of one predicate: a conflict to report."""
    rng = random.Random(seed)
    entities = _names(max(1, facts // 10), rng)
    data = path / "facts.nq"
    ex = "http://bench.example/"
    questions = []
    with data.open("w", encoding="utf-8") as f:
        for i, name in enumerate(entities):
            graph = f"<http://s{i % 50}.bench.example/doc{i % docs}>"
            e = f"<{ex}entity/{name}>"
            f.write(f'{e} <http://www.w3.org/2000/01/rdf-schema#label> "{name}" {graph} .\n')
            for p in PREDICATES[:9]:
                pred = f"<{ex}{p.replace(' ', '_')}>"
                f.write(f'{e} {pred} "{rng.randint(1, 10**6)}"^^<http://www.w3.org/2001/XMLSchema#integer> {graph} .\n')
            if rng.random() < conflict_rate:
                other = f"<http://s{(i + 1) % 50}.bench.example/doc{(i + 1) % docs}>"
                pred = f"<{ex}{rng.choice(PREDICATES[:9]).replace(' ', '_')}>"
                f.write(f'{e} {pred} "{rng.randint(1, 10**6)}"^^<http://www.w3.org/2001/XMLSchema#integer> {other} .\n')
            questions.append((f"What is the {rng.choice(PREDICATES[:9])} of {name}?", f"{ex}entity/{name}"))
    policy = path / "policy.ttl"
    policy.write_text(
        "".join(
            f"<{ex}{p.replace(' ', '_')}> a <http://www.w3.org/2002/07/owl#FunctionalProperty> .\n" for p in PREDICATES
        ),
        encoding="utf-8",
    )
    return data, policy, questions


def latency(facts: int, asks: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data, policy, questions = make_store(Path(tmp), facts)
        with ProvGraph.open(Path(tmp) / "store") as pg:
            started = time.perf_counter()
            pg.ingest(
                data,
                id="bench",
                title="bench",
                split=GraphSplit(pattern=r"^(?P<document>http://s\d+\.bench\.example/doc\d+)$"),
            )
            ingested = time.perf_counter() - started
            pg.add_ontology(policy)
            started = time.perf_counter()
            pg.retrieve("warm up the index")
            indexed = time.perf_counter() - started
            conflicts = len(pg.conflicts())
            rng = random.Random(3)
            sample = [rng.choice(questions) for _ in range(asks)]
            totals: list[float] = []
            phases = {"retrieval": 0.0, "generation": 0.0, "verification": 0.0}
            raw: list[float] = []
            answered = 0
            for question, entity in sample:
                started = time.perf_counter()
                pack = pg.retrieve(question)
                retrieval = time.perf_counter() - started
                steps = respond(pack)
                totals.append(retrieval + sum(steps.seconds.values()))
                phases["retrieval"] += retrieval
                for k, v in steps.seconds.items():
                    phases[k] += v
                answered += not steps.answer.abstained
                started = time.perf_counter()
                list(pg.backend.query(f"SELECT ?p ?o WHERE {{ GRAPH ?g {{ <{entity}> ?p ?o }} }}"))  # type: ignore[arg-type]
                raw.append(time.perf_counter() - started)
    q = statistics.quantiles(totals, n=100)
    rq = statistics.quantiles(raw, n=100)
    total = sum(phases.values())
    print(f"\n== Latency: pg.ask (extractive) on {facts:,} facts, {asks} questions ==")
    print(
        f"ingest {ingested:.1f} s; first ask (builds the lexical index, conflict records, document relations): "
        f"{indexed:.2f} s"
    )
    print(f"{conflicts:,} conflicts across the documents")
    print(f"pg.ask p50 {q[49] * 1000:.1f} ms, p95 {q[94] * 1000:.1f} ms; answered {answered}/{asks}")
    print("share: " + ", ".join(f"{k} {v / total:.0%}" for k, v in phases.items()))
    print(
        f"raw engine (one SPARQL query for the entity's facts): p50 {rq[49] * 1000:.2f} ms -> "
        f"pg.ask is {q[49] / rq[49]:.0f}x at p50"
    )
    print(f"peak memory (RSS): {_rss_mb():.0f} MB")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hotpot", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--cities", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--latency", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--asks", type=int, default=200)
    args = parser.parse_args(argv)
    if args.hotpot:
        hotpot(args.questions)
    if args.cities:
        cities()
    if args.latency:
        latency(args.facts, args.asks)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
