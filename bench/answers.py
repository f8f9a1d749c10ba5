"""Grounded answers: quality on HotpotQA and DBpedia, latency at 100k facts / 1k documents and
1M facts / 100k documents.

    python bench/answers.py [--hotpot/--no-hotpot] [--cities/--no-cities] [--latency/--no-latency]
                            [--questions 100] [--generator extractive|openai]
                            [--size 100k|1m|10k ...] [--facts N --docs N]
                            [--asks 200] [--store DIR] [--records [--recorded 10000]]

**HotpotQA** (../shared/data/hotpotqa-dev-100): every paragraph one source document whose passages
are its sentences; each question asked over its own ten paragraphs (the distractor setting), then
over its eight distractors only. Prints ALCE's citation recall and precision (the verifier's
support check as the judge), claim coverage, dangling citations, sentence-level citation recall
and precision against the gold supporting facts, and abstention correctness. ``--generator openai``
drafts the HotpotQA answers with a model on an OpenAI-compatible server instead of the offline
extractive generator, configured by the environment as ``ask --generator openai`` is
(``PROVGRAPH_LLM_BASE_URL``, ``PROVGRAPH_LLM_MODEL``, ``PROVGRAPH_LLM_API_KEY``: the key never on
the command line); it also prints how often the model failed and the extractive generator
answered instead, and the model's time per answer.

**DBpedia cities** (../shared/data/dbpedia-multilang-cities, Dutch cities from nine Wikipedia
editions): "What is the population of Amsterdam?" must state the disagreement with its sources and
the preferred value with its rationale. The answer is printed.

**Latency** (``--size``, repeatable: ``100k`` is 100k facts in 1,000 documents, ``1m`` 1M facts
in 100,000 documents, ``10k`` 10k in 100): a generated store (entities with names, nine labelled
functional predicates; 5% of the entities with a second, disagreeing value in another document:
conflicts). Printed:

- the first ask, which builds the derived views (lexical index, conflict records, relations);
- p50/p95 of ``pg.ask`` with the extractive generator, the share of retrieval, generation and
  verification, against the raw engine in the same run: one pyoxigraph SPARQL query for the
  facts of the same entity (p50/p95 and the ratio);
- the first ask after ingesting one more document, over the p50 of the others: a document about
  a new entity (its views catch up with one document), and one that gives an existing entity a
  disagreeing value (a new conflict: the source accuracies of truth discovery change, and every
  conflict whose shown resolution that changes is rewritten);
- peak memory (RSS).

**Answer records** (``--records``): on a store of eleven documents about one entity each (200
facts), the cost of recording an answer whose context has 100 segments (building its records,
SHACL, the write) against composing it (generation and verification), p50/p95 over 200 answers;
replaying one; its size in quads and bytes; then ``--recorded`` answers in the store (questions
about ten of the documents), the store's growth per answer on disk once compacted, and the time
from a revocation request to its enforcement (the catalog, the current view and every
invalidation written), for a source a tenth of the answers used and for one none used.

``--store DIR`` keeps the generated store there and reuses it on the next run (the 1M store takes
about an hour to ingest on a 2-core machine); each run adds its two documents to it.
"""

from __future__ import annotations

import argparse
import json
import os
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

from provgraph import Extraction, GenerationError, GraphSplit, IngestOptions, ProvGraph  # noqa: E402
from provgraph.answer.base import Generator  # noqa: E402
from provgraph.answer.evaluate import (  # noqa: E402
    EvalReport,
    HotpotQuestion,
    QuestionResult,
    evaluate_hotpot,
    ingest_hotpot,
    load_hotpot,
    summarise,
)
from provgraph.answer.models import AnswerConfidence, DraftAnswer, EvidencePack  # noqa: E402
from provgraph.answer.openai_gen import OpenAIGenerator  # noqa: E402
from provgraph.answer.pipeline import respond  # noqa: E402
from provgraph.answer.record import answer_iri  # noqa: E402
from provgraph.cli.answer import print_report, show  # noqa: E402
from provgraph.llm import OpenAISettings  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
HOTPOT = SHARED / "hotpotqa-dev-100" / "hotpot_dev_distractor_v1.json"
CITIES = SHARED / "dbpedia-multilang-cities"
DBO = "http://dbpedia.org/ontology/"
GEO = "http://www.w3.org/2003/01/geo/wgs84_pos#"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
POLICY = f"""@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix pg: <https://w3id.org/provgraph/ns#> .
<{DBO}populationTotal> a owl:FunctionalProperty ; pg:relativeTolerance 0.01 .
<{GEO}lat> a owl:FunctionalProperty ; pg:absoluteTolerance 0.01 .
<{GEO}long> a owl:FunctionalProperty ; pg:absoluteTolerance 0.01 .
"""


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _Counted:
    """A generator whose drafts are timed and whose failures (after which the pipeline falls back
    to the extractive generator) are counted."""

    def __init__(self, inner: Generator) -> None:
        self.inner = inner
        self.failures: list[str] = []
        self.seconds: list[float] = []

    @property
    def name(self) -> str:
        return self.inner.name

    def generate(self, pack: EvidencePack) -> DraftAnswer:
        started = time.perf_counter()
        try:
            return self.inner.generate(pack)
        except GenerationError as exc:
            self.failures.append(str(exc))
            raise
        finally:
            self.seconds.append(time.perf_counter() - started)


def hotpot(limit: int, extract: Extraction = Extraction.NONE, *, model: bool = False) -> None:
    if not HOTPOT.is_file():
        print(f"hotpot: {HOTPOT} is missing; skipped")
        return
    questions = load_hotpot(HOTPOT, limit=limit)
    generator = _Counted(OpenAIGenerator(OpenAISettings.from_env())) if model else None
    with ProvGraph.memory() as pg:
        started = time.perf_counter()
        sentences = ingest_hotpot(pg, questions, extract=extract)
        ingested = time.perf_counter() - started
        started = time.perf_counter()
        with_gold, without = evaluate_hotpot(pg, questions, sentences, generator=generator)
        asked = time.perf_counter() - started
    print(
        f"== HotpotQA dev: {len(questions)} questions ({len(sentences):,} sentences ingested in {ingested:.1f} s, "
        f"extract={extract.value}, generator={generator.name if generator else 'extractive'}) =="
    )
    print_report(Console(highlight=False), with_gold, without)
    print(f"  ({2 * len(questions)} asks in {asked:.1f} s)")
    if generator is not None:
        seconds = sorted(generator.seconds)
        p50, p95 = (seconds[min(len(seconds) - 1, int(q * len(seconds)))] for q in (0.5, 0.95))
        print(
            f"  the model drafted {len(seconds)} answers (p50 {p50:.1f} s, p95 {p95:.1f} s); it failed on "
            f"{len(generator.failures)}, answered by the extractive generator instead"
        )
        for reason, count in sorted(
            {r: generator.failures.count(r) for r in generator.failures}.items(), key=lambda kv: -kv[1]
        ):
            print(f"    {count:>4}  {reason[:150]}")
    print("  ALCE's best prompted baseline on ASQA: citation recall 73.6, precision 72.5 (NLI judge)")
    _hotpot_parts(questions, with_gold, without)
    _hotpot_confidence(with_gold, without)


def _hotpot_parts(questions: list[HotpotQuestion], with_gold: EvalReport, without: EvalReport) -> None:
    """The figures of each half (development: even positions; held out: odd ones, never read
    answer by answer while developing) and of each question type."""
    positions = range(len(questions))
    parts = [
        ("development half (even)", [i for i in positions if i % 2 == 0]),
        ("held-out half (odd)", [i for i in positions if i % 2 == 1]),
        ("bridge questions", [i for i in positions if questions[i].type == "bridge"]),
        ("comparison questions", [i for i in positions if questions[i].type == "comparison"]),
    ]
    print(
        f"  {'part':<26}{'n':>4}{'sent R':>8}{'sent P':>8}{'answer':>8}{'answered':>10}{'abstained':>11}"
        f"{'yes/no right':>14}{'wrong':>7}"
    )
    for name, chosen in parts:
        if not chosen:
            continue
        gold = summarise([with_gold.results[i] for i in chosen])
        removed = summarise([without.results[i] for i in chosen])
        cells = [gold.sentence_recall, gold.sentence_precision, gold.answer_found, gold.answered_with_gold]
        shown = "".join(f"{'-' if v is None else f'{100 * v:.1f}':>8}" for v in cells[:3])
        shown += f"{'-' if cells[3] is None else f'{100 * cells[3]:.1f}':>10}"
        abstained = removed.abstained_without_gold
        shown += f"{'-' if abstained is None else f'{100 * abstained:.1f}':>11}"
        shown += f"{'-' if gold.verdict_right is None else f'{100 * gold.verdict_right:.1f}':>14}"
        shown += f"{'-' if gold.verdict_wrong is None else f'{100 * gold.verdict_wrong:.1f}':>7}"
        print(f"  {name:<26}{len(chosen):>4}{shown}")


def _hotpot_confidence(with_gold: EvalReport, without: EvalReport) -> None:
    """What each confidence level is worth: of the answers given at that level, with the gold
    paragraphs and without them, the share whose claims hold the gold answer (or verdict)."""

    def right(r: QuestionResult) -> bool:
        return bool(r.answer_found or r.verdict_right)

    print(f"  {'confidence':<26}{'answers':>9}{'hold gold answer':>18}{'answers w/o gold':>18}{'hold it':>9}")
    for level in (AnswerConfidence.HIGH, AnswerConfidence.MEDIUM, AnswerConfidence.LOW):
        cells = ""
        for report, width in ((with_gold, (9, 18)), (without, (18, 9))):
            given = [r for r in report.results if r.confidence is level]
            share = f"{100 * sum(map(right, given)) / len(given):.1f}" if given else "-"
            cells += f"{len(given):>{width[0]}}{share:>{width[1]}}"
        print(f"  {level.value:<26}{cells}")


def cities() -> None:
    data = CITIES / "cities1000-Netherlands_data_triples.nq"
    if not data.is_file():
        print(f"cities: {data} is missing; skipped")
        return
    with tempfile.TemporaryDirectory() as tmp, ProvGraph.memory() as pg:
        pg.ingest(
            data,
            IngestOptions(
                id="nl-cities",
                title="DBpedia: Dutch cities",
                tier=4,
                base="http://example.org/ldif/",
                split=GraphSplit.wikipedia_articles(CITIES / "cities1000-Netherlands_metadata_triples.nq"),
            ),
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
    path: Path, facts: int, docs: int = 1000, seed: int = 7, conflict_rate: float = 0.05, *, write: bool = True
) -> tuple[Path, Path, list[tuple[str, str]]]:
    """N-Quads of ``facts`` facts (a tenth of them labels) about named entities, one graph per
    document, and a policy declaring the predicates functional. For ``conflict_rate`` of the
    entities a second document states another value of one predicate: a conflict to report.
    Without ``write``, the questions alone (the same ones)."""
    rng = random.Random(seed)
    entities = _names(max(1, facts // 10), rng)
    data = path / "facts.nq"
    ex = "http://bench.example/"
    questions = []
    with data.open("w", encoding="utf-8") if write else open(os.devnull, "w") as f:
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


SIZES = {"10k": (10_000, 100), "100k": (100_000, 1_000), "1m": (1_000_000, 100_000)}
#: Documents of each kind ingested one at a time, each followed by an ask.
AFTER_REPEATS = 3


def _ask(pg: ProvGraph, question: str, phases: dict[str, float]) -> tuple[float, bool]:
    started = time.perf_counter()
    pack = pg.retrieve(question)
    retrieval = time.perf_counter() - started
    steps = respond(pack)
    phases["retrieval"] += retrieval
    for k, v in steps.seconds.items():
        phases[k] += v
    return retrieval + sum(steps.seconds.values()), not steps.answer.abstained


def _one_more(pg: ProvGraph, directory: Path, name: str, records: list[dict[str, str]]) -> float:
    path = directory / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    started = time.perf_counter()
    pg.ingest(path, IngestOptions(id=name, title=f"one more: {name}", url=f"https://{name}.bench.example/"))
    return time.perf_counter() - started


def latency(facts: int, docs: int, asks: int, keep: Path | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        store = root / "store"
        built = (store / "oxigraph" / "CURRENT").exists()
        data, policy, questions = make_store(root, facts, docs, write=not built)
        with ProvGraph.open(store) as pg:
            ingested = None
            if not built:
                started = time.perf_counter()
                pg.ingest(
                    data,
                    IngestOptions(
                        id="bench",
                        title="bench",
                        split=GraphSplit(pattern=r"^(?P<document>http://s\d+\.bench\.example/doc\d+)$"),
                    ),
                )
                ingested = time.perf_counter() - started
                pg.add_ontology(policy)
                data.unlink()
            rng = random.Random(3)
            phases = {"retrieval": 0.0, "generation": 0.0, "verification": 0.0}
            first, _ = _ask(pg, rng.choice(questions)[0], phases)  # builds (or catches up) the views
            conflicts = len(pg.conflicts())
            sample = [rng.choice(questions) for _ in range(asks)]
            phases = dict.fromkeys(phases, 0.0)
            totals: list[float] = []
            raw: list[float] = []
            answered = 0
            for question, entity in sample:
                took, ok = _ask(pg, question, phases)
                totals.append(took)
                answered += ok
                started = time.perf_counter()
                list(pg.backend.query(f"SELECT ?p ?o WHERE {{ GRAPH ?g {{ <{entity}> ?p ?o }} }}"))  # type: ignore[arg-type]
                raw.append(time.perf_counter() - started)
            # one more document, then the first ask after it (three times each): about a new
            # entity, then giving an existing entity a second value
            run = f"{int(time.time())}"
            ex = "http://bench.example/"
            after: dict[str, list[tuple[float, float]]] = {"new": [], "conflict": []}
            for i in range(AFTER_REPEATS):
                name = f"Newcomer{run}x{i}"
                new_entity = [
                    {"subject": f"{ex}entity/{name}", "predicate": RDFS_LABEL, "literal": name},
                    {"subject": f"{ex}entity/{name}", "predicate": f"{ex}population", "literal": "1234"},
                ]
                took = _one_more(pg, root, f"new-{run}-{i}", new_entity)
                after["new"].append((took, _ask(pg, rng.choice(questions)[0], dict(phases))[0]))
                question, entity = rng.choice(questions)
                disagreeing = [{"subject": entity, "predicate": f"{ex}population", "literal": "-1"}]
                took = _one_more(pg, root, f"conflict-{run}-{i}", disagreeing)
                after["conflict"].append((took, _ask(pg, question, dict(phases))[0]))
            ordinary = [_ask(pg, rng.choice(questions)[0], dict(phases))[0] for _ in range(20)]
    q = statistics.quantiles(totals, n=100)
    rq = statistics.quantiles(raw, n=100)
    p50 = statistics.median(ordinary + totals)
    total = sum(phases.values())
    print(f"\n== Latency: pg.ask (extractive) on {facts:,} facts in {docs:,} documents, {asks} questions ==")
    if ingested is not None:
        print(f"ingest {ingested:.1f} s")
    print(f"first ask (builds the lexical index, conflict records, document relations): {first:.2f} s")
    print(f"{conflicts:,} conflicts across the documents")
    print(f"pg.ask p50 {q[49] * 1000:.1f} ms, p95 {q[94] * 1000:.1f} ms; answered {answered}/{asks}")
    print("share: " + ", ".join(f"{k} {v / total:.0%}" for k, v in phases.items()))
    print(
        f"raw engine (one SPARQL query for the entity's facts): p50 {rq[49] * 1000:.2f} ms, p95 {rq[94] * 1000:.2f} ms"
        f" -> pg.ask is {q[49] / rq[49]:.0f}x at p50, {q[94] / rq[94]:.0f}x at p95"
    )
    for kind, what in (("new", "about a new entity"), ("conflict", "giving an entity a disagreeing value")):
        ingests = [x for x, _ in after[kind]]
        asks_after = [y for _, y in after[kind]]
        print(
            f"one more document {what} ({AFTER_REPEATS} times): ingest median "
            f"{statistics.median(ingests) * 1000:.0f} ms; "
            f"the first ask after it median {statistics.median(asks_after) * 1000:.0f} ms, max "
            f"{max(asks_after) * 1000:.0f} ms: {(statistics.median(asks_after) - p50) * 1000:+.0f} ms (median) over "
            "the p50 of the others"
        )
    print(f"peak memory (RSS): {_rss_mb():.0f} MB")


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _quantiles(values: list[float]) -> tuple[float, float]:
    q = statistics.quantiles(values, n=100)
    return q[49] * 1000, q[94] * 1000


def records(recorded: int, repeats: int) -> None:
    """Answer records: the cost of recording an answer with a 100-segment context, of replaying it,
    of a revocation with ``recorded`` answers in the store, and the store's growth per answer."""
    from provgraph import Detail
    from provgraph.answer import recording
    from provgraph.answer.models import EvidencePack

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        # ten documents, each about one entity with 200 facts (numbers of 20 properties, 10 each)
        ex = "http://bench.example/"
        lines = []
        for d in range(11):  # the eleventh is never asked about
            graph = f"<http://records.bench.example/doc{d}>"
            entity = f"<{ex}entity/Entity{d}>"
            lines.append(f'{entity} <{RDFS_LABEL}> "Zorblax {d}" {graph} .\n')
            for k in range(200):
                lines.append(f'{entity} <{ex}property{k % 20}> "{d * 1000 + k}" {graph} .\n')
        data = root / "records.nq"
        data.write_text("".join(lines), encoding="utf-8")
        with ProvGraph.open(root / "store") as pg:
            pg.ingest(
                data,
                IngestOptions(
                    id="records",
                    split=GraphSplit(pattern=r"^(?P<document>http://records\.bench\.example/doc\d+)$"),
                ),
            )
            big = pg.retrieve("What is known about Zorblax 3?", limit=200)
            items = big.items[:100]
            pack = EvidencePack(question=big.question, items=items, entities=big.entities)
            composed = recording.compose(pack, generator=None, detail=Detail.BRIEF, filters=None, session=None)
            compose_times, record_times, quads = [], [], 0
            for _ in range(repeats):
                started = time.perf_counter()
                composed = recording.compose(pack, generator=None, detail=Detail.BRIEF, filters=None, session=None)
                compose_times.append(time.perf_counter() - started)
                started = time.perf_counter()
                answer = pg.record(composed)
                record_times.append(time.perf_counter() - started)
            assert answer.id is not None
            quads = sum(1 for _ in pg.backend.quads(graph=answer_iri(answer.id)))
            nquads = sum(len(str(q)) + 3 for q in pg.backend.quads(graph=answer_iri(answer.id)))
            replay_times = []
            for _ in range(repeats):
                started = time.perf_counter()
                pg.replay(answer.id)
                replay_times.append(time.perf_counter() - started)
            segments = len(pg.answer(answer.id).segments)

            # the store fills up with answers to questions about the ten documents
            asks = [
                recording.compose(
                    pg.retrieve(f"What is the property{d} of Zorblax {d}?"),
                    generator=None,
                    detail=Detail.BRIEF,
                    filters=None,
                    session=None,
                )
                for d in range(10)
            ]
            pg.backend.flush()
            pg.backend.optimize()
            before = _du(root / "store")
            started = time.perf_counter()
            for i in range(recorded - repeats):
                pg.record(asks[i % 10])
            filling = time.perf_counter() - started
            pg.backend.flush()
            pg.backend.optimize()
            grown = _du(root / "store") - before
            total = len(pg.answers(limit=10**9))
            started = time.perf_counter()
            quiet = pg.revoke("http://records.bench.example/doc10", reason="bench")  # no answer used it
            revoke_none = time.perf_counter() - started
            started = time.perf_counter()
            done = pg.revoke("http://records.bench.example/doc3", reason="bench", confirm=True)
            revoke = time.perf_counter() - started
            assert not quiet.invalidated
    c50, c95 = _quantiles(compose_times)
    r50, r95 = _quantiles(record_times)
    p50, p95 = _quantiles(replay_times)
    print(f"\n== Answer records: {segments}-segment contexts ({repeats} answers), then {total:,} recorded answers ==")
    print(f"compose (generate + verify, no retrieval): p50 {c50:.1f} ms, p95 {c95:.1f} ms")
    print(f"recording overhead (build, SHACL, write): p50 {r50:.1f} ms, p95 {r95:.1f} ms")
    print(f"replay: p50 {p50:.1f} ms, p95 {p95:.1f} ms")
    print(f"one {segments}-segment answer: {quads:,} quads, {nquads / 1024:.0f} KB as N-Quads")
    print(
        f"{recorded - repeats:,} more answers of {len(asks[0].shown.items)}-{max(len(a.shown.items) for a in asks)} "
        f"segments recorded in {filling:.0f} s ({filling / (recorded - repeats) * 1000:.1f} ms each); the store "
        f"grew {grown / 2**20:.0f} MB on disk once compacted ({grown / (recorded - repeats) / 1024:.1f} KB per answer)"
    )
    print(
        f"revocation with {total:,} recorded answers (request to enforcement): {revoke * 1000:.0f} ms invalidating "
        f"{len(done.invalidated):,} of them; {revoke_none * 1000:.0f} ms for a source no answer used"
    )
    print(f"peak memory (RSS): {_rss_mb():.0f} MB")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hotpot", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--cities", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--latency", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument(
        "--extract", type=Extraction, default=Extraction.NONE, help="facts from the paragraphs too (rules)"
    )
    parser.add_argument(
        "--generator",
        choices=["extractive", "openai"],
        default="extractive",
        help="HotpotQA's drafts: offline, or a model server named by PROVGRAPH_LLM_* in the environment",
    )
    parser.add_argument("--size", action="append", choices=sorted(SIZES), help="store size (repeatable)")
    parser.add_argument("--facts", type=int, help="facts (instead of --size)")
    parser.add_argument("--docs", type=int, default=1_000, help="documents, with --facts")
    parser.add_argument("--asks", type=int, default=200)
    parser.add_argument("--store", type=Path, help="keep the generated store here and reuse it (one --size)")
    parser.add_argument("--records", action=argparse.BooleanOptionalAction, default=False)
    parser.add_argument("--recorded", type=int, default=10_000, help="answers in the store for the revocation")
    args = parser.parse_args(argv)
    if args.hotpot:
        hotpot(args.questions, args.extract, model=args.generator == "openai")
    if args.cities:
        cities()
    if args.records:
        records(args.recorded, 200)
    if args.latency:
        sizes = [(args.facts, args.docs)] if args.facts else [SIZES[s] for s in args.size or ["100k"]]
        for facts, docs in sizes:
            latency(facts, docs, args.asks, args.store)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
