"""Conflicts: accuracy of the resolution strategies on real data with a gold standard, and the
scale of detection.

    python bench/conflicts.py [--accuracy/--no-accuracy] [--scale/--no-scale]
                              [--facts 100000] [--docs 1000] [--conflict-rate 0.05]

**Accuracy** (../shared/data/dbpedia-multilang-cities): 542 Dutch cities from nine Wikipedia
editions, one source document per article. For populationTotal, lat and long it prints, per
strategy, how often the preferred value equals the GeoNames gold within the stated tolerance,
next to plain majority vote (the most frequent exact value across editions, ties broken by the
lowest value) as the baseline. A *source* for majority and for source-trust estimation is a
Wikipedia edition (the host of the article's URL): each article is its own document, so counting
documents would make every value its own source.

**Scale**: a generated store of N facts in D documents (published by D/20 sources), every
(entity, predicate) stated by two documents, a share of them (default 5%) with different values;
ten functional predicates. Prints the detection time and its ratio to two plain SPARQL scans in
the same run (of the asserted facts, and of the reified statements), each with its peak memory.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

# bench/http.py would shadow the standard library's http package for a script run from bench/
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from provgraph import GraphSplit, IngestOptions, ProvGraph, ResolutionStrategy  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "dbpedia-multilang-cities"
DBO = "http://dbpedia.org/ontology/"
GEO = "http://www.w3.org/2003/01/geo/wgs84_pos#"
PROPERTIES = {"populationTotal": DBO + "populationTotal", "lat": GEO + "lat", "long": GEO + "long"}

#: Detection tolerances (values within them agree): the policy a user would declare.
DETECT_POLICY = f"""@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix pg: <https://w3id.org/provgraph/ns#> .
<{DBO}populationTotal> a owl:FunctionalProperty ; pg:relativeTolerance 0.01 .
<{GEO}lat> a owl:FunctionalProperty ; pg:absoluteTolerance 0.01 .
<{GEO}long> a owl:FunctionalProperty ; pg:absoluteTolerance 0.01 .
<{DBO}country> a owl:FunctionalProperty .
<{DBO}elevation> a owl:FunctionalProperty ; pg:absoluteTolerance 1.0 .
"""
#: Gold tolerances: a preferred value is correct when this close to GeoNames.
GOLD_REL = {"populationTotal": 0.10}
GOLD_ABS = {"lat": 0.05, "long": 0.05}


def _num(term: str) -> float:
    return float(term[1 : term.rfind('"')]) if term.startswith('"') else float("nan")


def _close(prop: str, value: float, gold: float) -> bool:
    if prop in GOLD_REL:
        return abs(value - gold) <= GOLD_REL[prop] * abs(gold)
    return abs(value - gold) <= GOLD_ABS[prop]


def read_gold(path: Path) -> dict[tuple[str, str], float]:
    import pyoxigraph

    gold: dict[tuple[str, str], float] = {}
    wanted = {v: k for k, v in PROPERTIES.items()}
    for quad in pyoxigraph.parse(path=str(path), format=pyoxigraph.RdfFormat.N_TRIPLES):
        if quad.predicate.value in wanted:
            gold[quad.subject.value, wanted[quad.predicate.value]] = float(quad.object.value)  # type: ignore[union-attr]
    return gold


def accuracy() -> None:
    data = DATA / "cities1000-Netherlands_data_triples.nq"
    if not data.is_file():
        print(f"accuracy: {DATA} is missing; skipped")
        return
    gold = read_gold(DATA / "cities1000-Netherlands.gold.nt")
    with tempfile.TemporaryDirectory() as tmp, ProvGraph.memory() as pg:
        started = time.perf_counter()
        pg.ingest(
            data,
            IngestOptions(
                id="nl-cities",
                title="DBpedia: Dutch cities",
                tier=4,
                base="http://example.org/ldif/",
                split=GraphSplit.wikipedia_articles(DATA / "cities1000-Netherlands_metadata_triples.nq"),
            ),
        )
        policy = Path(tmp) / "policy.ttl"
        policy.write_text(DETECT_POLICY, encoding="utf-8")
        pg.add_ontology(policy)
        ingested = time.perf_counter() - started
        report = pg.detect_conflicts()
        # every value of every (city, property), with the edition stating it
        rows = pg.query(
            """SELECT ?s ?p ?o ?url WHERE {
  VALUES ?p { dbo:populationTotal geo:lat geo:long dbo:country dbo:elevation }
  ?st rdf:subject ?s ; rdf:predicate ?p ; rdf:object ?o ; prov:wasDerivedFrom ?d . ?d pg:sourceUrl ?url }""".replace(
                "dbo:", f"<{DBO}"
            )
            .replace("geo:", f"<{GEO}")
            .replace("populationTotal ", "populationTotal> ")
            .replace("lat ", "lat> ")
            .replace("long ", "long> ")
            .replace("country ", "country> ")
            .replace("elevation ", "elevation> ")
        ).rows()
        claims: dict[tuple[str, str], dict[str, set[str]]] = {}
        for r in rows:
            prop = r["p"].value.rsplit("/", 1)[-1].rsplit("#", 1)[-1]  # type: ignore[union-attr]
            edition = r["url"].value.split("//")[1].split(".")[0]  # type: ignore[union-attr]
            claims.setdefault((r["s"].value, prop), {}).setdefault(str(r["o"]), set()).add(edition)  # type: ignore[union-attr]
        disagreeing = {k for k, values in claims.items() if len(values) > 1}
        print("== Accuracy on DBpedia NL cities (542 cities, 9 Wikipedia editions; gold: GeoNames) ==")
        print(f"ingest: {ingested:.1f} s; detection + resolution: {report.seconds:.2f} s")
        print(
            f"(city, property) pairs with more than one distinct value: {len(disagreeing)} "
            + "("
            + ", ".join(
                f"{p} {sum(1 for k in disagreeing if k[1] == p)}"
                for p in ("populationTotal", "lat", "long", "country", "elevation")
            )
            + ")"
        )
        print(
            f"detected by provgraph: {report.multi_valued} multi-valued after normalisation; "
            f"{report.merged_by_tolerance} merged by the tolerance "
            "(population 1%, lat/long 0.01 deg, elevation 1 m) -> "
            f"{report.conflicts} conflicts reported"
        )
        print(
            "gold tolerance: populationTotal within "
            f"{GOLD_REL['populationTotal']:.0%}, lat/long within {GOLD_ABS['lat']} deg of GeoNames"
        )
        preferred: dict[str, dict[tuple[str, str], str]] = {}
        for strategy in ResolutionStrategy:
            if strategy is ResolutionStrategy.SURFACE:
                continue
            chosen = {}
            for c in pg.conflicts(strategy=strategy):
                prop = c.predicates[0].rsplit("/", 1)[-1].rsplit("#", 1)[-1]
                if c.resolution.preferred is not None:
                    chosen[c.subject, prop] = c.resolution.preferred
                else:
                    chosen[c.subject, prop] = ""  # no preference (a tie): counted as wrong
            preferred[strategy.value] = chosen
        conflicted = {k for k in preferred["majority"] if k[1] in PROPERTIES}
        header = f"{'strategy':<26}" + "".join(f"{p:>22}" for p in PROPERTIES) + f"{'all':>10}{'no pref.':>10}"
        for scope, keys in (("conflicting items", conflicted), ("all items with gold", set(gold))):
            print(f"\n-- accuracy on {scope} (correct / items) --")
            print(header)
            rows_out = [("majority vote (baseline)", _baseline(claims))]
            rows_out += [(name, _resolved(claims, chosen)) for name, chosen in preferred.items()]
            for name, pick in rows_out:
                cells, total_ok, total_n = [], 0, 0
                for prop in PROPERTIES:
                    items = [k for k in keys if k[1] == prop and k in gold and k in claims]
                    ok = sum(1 for k in items if pick.get(k) and _close(prop, _num(pick[k]), gold[k]))
                    total_ok, total_n = total_ok + ok, total_n + len(items)
                    cells.append(f"{ok:>5}/{len(items):<5} {ok / max(1, len(items)):>6.1%}  ")
                undecided = sum(1 for k in keys if k in gold and k in claims and pick.get(k) == "")
                print(
                    f"{name:<26}"
                    + "".join(f"{c:>22}" for c in cells)
                    + f"{total_ok / max(1, total_n):>10.1%}{undecided:>10}"
                )
        ties = sum(1 for k in conflicted if _is_tie(claims[k]))
        print(f"\nbaseline ties (equal top counts, broken by the lowest value): {ties} of {len(conflicted)} conflicts")
        top = sorted(report.source_accuracy.items(), key=lambda kv: -kv[1])
        print("source accuracy estimated by truth discovery (source = Wikipedia edition):")
        print("  " + ", ".join(f"{s.split('.')[0]} {a:.2f}" for s, a in top))


def _baseline(claims: dict[tuple[str, str], dict[str, set[str]]]) -> dict[tuple[str, str], str]:
    out = {}
    for key, values in claims.items():
        out[key] = max(values, key=lambda v: (len(values[v]), -_num(v) if v.startswith('"') else 0))
    return out


def _is_tie(values: dict[str, set[str]]) -> bool:
    counts = sorted((len(s) for s in values.values()), reverse=True)
    return len(counts) > 1 and counts[0] == counts[1]


def _resolved(
    claims: dict[tuple[str, str], dict[str, set[str]]], chosen: dict[tuple[str, str], str]
) -> dict[tuple[str, str], str]:
    # items without a conflict: every value agrees within tolerance, take the most stated
    out = _baseline(claims)
    out.update(chosen)
    return out


# ---------------------------------------------------------------------- scale


def make_store(path: Path, facts: int, docs: int, conflict_rate: float, seed: int = 11) -> tuple[Path, Path]:
    """N-Quads with one graph per document, and the policy making the 10 predicates functional."""
    rng = random.Random(seed)
    predicates = [f"http://bench.example/p{i}" for i in range(10)]
    sources = max(2, docs // 20)
    items = facts // 2
    data = path / "facts.nq"
    with data.open("w", encoding="utf-8") as f:
        for i in range(items):
            entity = f"<http://bench.example/e{i // len(predicates)}>"
            predicate = f"<{predicates[i % len(predicates)]}>"
            value = rng.randint(0, 10**9)
            first = rng.randrange(docs)
            second = (first + 1 + rng.randrange(docs - 1)) % docs
            other = value + 1 + rng.randint(0, 10**6) if rng.random() < conflict_rate else value
            for doc, v in ((first, value), (second, other)):
                graph = f"<http://s{doc % sources}.bench.example/doc{doc}>"
                f.write(f'{entity} {predicate} "{v}"^^<http://www.w3.org/2001/XMLSchema#integer> {graph} .\n')
    policy = path / "policy.ttl"
    policy.write_text(
        "".join(f"<{p}> a <http://www.w3.org/2002/07/owl#FunctionalProperty> .\n" for p in predicates),
        encoding="utf-8",
    )
    return data, policy


#: The two plain scans, in SPARQL over every graph: the asserted facts (one triple pattern, the
#: cheapest pass over all of them) and the reified statements (the three-pattern join a
#: statement-level query pays). Every graph of the store is a current source graph: no catalog
#: join is needed.
FACT_SCAN = (
    "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o FILTER(STRSTARTS(STR(?p), 'http://bench.example/')) } }"
)
STATEMENT_SCAN = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?st rdf:subject ?s ; rdf:predicate ?p ; rdf:object ?o } }"


def _measure(store: str, what: str) -> tuple[float, int, float, dict[str, float]]:
    """One measurement in a fresh process, so that its peak memory is its own: seconds, count,
    peak RSS in MB, phases."""
    with ProvGraph.open(store) as pg:
        started = time.perf_counter()
        if what == "detect":
            report = pg.detect_conflicts()
            count, phases = report.conflicts, dict(report.phases)
        else:
            rows = pg.query(FACT_SCAN if what == "facts" else STATEMENT_SCAN).rows()
            count, phases = int(rows[0]["n"].value), {}  # type: ignore[union-attr]
        seconds = time.perf_counter() - started
    return seconds, count, _peak_mb(), phases


def _peak_mb() -> float:
    """This process's peak resident set size. Linux keeps ``ru_maxrss`` across fork and exec (a
    spawned worker reports its parent's peak), so read the high-water mark of its own memory."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def scale(facts: int, docs: int, conflict_rate: float) -> None:
    print(f"\n== Scale: {facts:,} facts in {docs:,} documents, {conflict_rate:.0%} conflicting pairs ==")
    with tempfile.TemporaryDirectory() as tmp:
        data, policy = make_store(Path(tmp), facts, docs, conflict_rate)
        store = str(Path(tmp) / "store")
        with ProvGraph.open(store) as pg:
            started = time.perf_counter()
            pg.ingest(
                data,
                IngestOptions(
                    id="bench",
                    title="bench",
                    split=GraphSplit(pattern=r"^(?P<document>http://s\d+\.bench\.example/doc\d+)$"),
                ),
            )
            print(f"ingest: {time.perf_counter() - started:.1f} s")
            pg.add_ontology(policy)
        spawn = multiprocessing.get_context("spawn")
        with spawn.Pool(1, maxtasksperchild=1) as pool:
            facts_s, asserted, facts_mb, _ = pool.apply(_measure, (store, "facts"))
            scan_s, statements, scan_mb, _ = pool.apply(_measure, (store, "statements"))
            detect_s, conflicts, detect_mb, phases = pool.apply(_measure, (store, "detect"))
        with ProvGraph.open(store) as pg:
            started = time.perf_counter()
            listed = pg.conflicts()
            read_s = time.perf_counter() - started
    expected = round(facts // 2 * conflict_rate)
    print(f"plain SPARQL scan of the {asserted:,} asserted facts: {facts_s:.2f} s, peak {facts_mb:.0f} MB")
    print(
        f"plain SPARQL scan of the {statements:,} reified statements (subject, predicate, object): "
        f"{scan_s:.2f} s, peak {scan_mb:.0f} MB"
    )
    print(
        f"conflict detection + resolution + records: {detect_s:.2f} s "
        f"({detect_s / facts_s:.1f}x the fact scan, {detect_s / scan_s:.2f}x the statement scan), "
        f"peak {detect_mb:.0f} MB; {conflicts:,} conflicts (~{expected:,} generated)"
    )
    print("  phases (s): " + ", ".join(f"{k} {v:.2f}" for k, v in phases.items()))
    print(f"reading the {len(listed):,} stored conflicts back as models: {read_s:.2f} s")
    print("(each measurement in a fresh process; peak = its maximum resident set size)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--accuracy", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--scale", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--docs", type=int, default=1_000)
    parser.add_argument("--conflict-rate", type=float, default=0.05)
    args = parser.parse_args(argv)
    if args.accuracy:
        accuracy()
    if args.scale:
        scale(args.facts, args.docs, args.conflict_rate)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
