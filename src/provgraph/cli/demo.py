"""``provgraph demo``: a short tour of the store on the bundled data, through the public API."""

from __future__ import annotations

from rich.console import Console
from rich.rule import Rule

from provgraph import IngestOptions
from provgraph.cli import render
from provgraph.cli.answer import show as show_answer
from provgraph.cli.trust import show as show_conflicts
from provgraph.errors import ValidationFailedError
from provgraph.graph import ProvGraph
from provgraph.models import ExtractionMethod, GraphSplit, ResultFormat
from provgraph.resources import data_dir

POPULATION_QUERY = """\
PREFIX dbo: <http://dbpedia.org/ontology/>
# Cities whose population differs between Wikipedia editions, with the sources of each value
SELECT ?city (COUNT(DISTINCT ?population) AS ?values) (GROUP_CONCAT(DISTINCT ?edition; separator=" ") AS ?editions)
WHERE {
  ?city dbo:populationTotal ?population .
  ?st rdf:subject ?city ; rdf:predicate dbo:populationTotal ; rdf:object ?population ;
      prov:wasDerivedFrom/pg:sourceUrl ?url .
  BIND(STRBEFORE(STRAFTER(STR(?url), "//"), ".") AS ?edition)
}
GROUP BY ?city HAVING (COUNT(DISTINCT ?population) > 1)
ORDER BY ?city"""


#: The fact the tour follows: Amsterdam's population, which Wikipedia editions state differently.
AMSTERDAM = "http://dbpedia.org/resource/Amsterdam"
POPULATION_TOTAL = "http://dbpedia.org/ontology/populationTotal"


def run_demo(pg: ProvGraph, out: Console) -> None:
    """The tour, step by step, on ``pg`` (an empty store), printed to ``out``."""
    _ingest(pg, out)
    _catalog(pg, out)
    _evidence(pg, out)
    _sparql(pg, out)
    _conflicts(pg, out)
    _answers(pg, out)


def _ingest(pg: ProvGraph, out: Console) -> None:
    data = data_dir()
    dbpedia = data / "dbpedia"
    examples = data / "examples"

    out.print(Rule("1. Ingest: every source document becomes a SHACL-validated named graph"))
    report = pg.ingest(
        dbpedia / "3-capitals.nq",
        IngestOptions(
            id="dbpedia-3-capitals",
            title="DBpedia: 3 capitals",
            tier=4,
            base="http://example.org/ldif/",
            split=GraphSplit.wikipedia_articles(dbpedia / "3-capitals.metadata.nq"),
        ),
    )
    articles = [d for d in report.documents if ".wikipedia.org/wiki/" in d.key]
    out.print(
        f"DBpedia sample: {report.statements} statements from {len(articles)} Wikipedia articles, "
        "one named graph each, with each value's edit metadata as provenance"
    )
    report = pg.ingest(
        examples / "aspirin.ttl",
        IngestOptions(title="Aspirin facts", url="https://example.org/aspirin", issued="2024-03-01", tier=2),
    )
    render.ingest_report(out, report)
    report = pg.ingest(
        examples / "facts.jsonl",
        IngestOptions(
            title="Aspirin trial report (LLM extraction)",
            url="https://example.org/aspirin-trial",
            issued="2023-11",
            tier=3,
            method=ExtractionMethod.LLM_EXTRACTION,
        ),
    )
    render.ingest_report(out, report)
    report = pg.ingest(
        examples / "aspirin-note.md", IngestOptions(title="Aspirin note", url="https://example.org/note", tier=5)
    )
    render.ingest_report(out, report)
    again = pg.ingest(
        examples / "aspirin.ttl",
        IngestOptions(title="Aspirin facts", url="https://example.org/aspirin", issued="2024-03-01", tier=2),
    )
    out.print("Re-ingesting the same file: " + ("a no-op" if again.unchanged else "a new version"))
    try:
        pg.ingest(
            examples / "bad-dose.ttl",
            IngestOptions(url="https://example.org/ibuprofen", shapes=(examples / "drug-shapes.ttl",)),
        )
    except ValidationFailedError as exc:
        out.print("A file that breaks a domain shape is refused, and nothing is written:")
        out.print(render.escape(str(exc)), style="yellow")

    triples = pg.add_ontology(dbpedia / "policy.ttl")
    out.print(
        f"A policy file ({triples} triples, in the ontology graph, not a source): a city has one population, "
        "latitude and longitude, and values within a tolerance agree"
    )


def _catalog(pg: ProvGraph, out: Console) -> None:
    out.print(Rule("2. Sources (the catalog)"))
    everyone = pg.sources()
    shown = [s for s in everyone if "Amsterdam" in s.title or "example.org" in s.key]
    out.print(
        f"The catalog holds {len(everyone)} documents; Amsterdam's articles and the aspirin examples "
        "(provgraph sources lists them all):"
    )
    render.sources(out, shown, total=len(everyone))


def _evidence(pg: ProvGraph, out: Console) -> None:
    out.print(Rule("3. All evidence for a fact: Amsterdam's population, per source"))
    subject, predicate = AMSTERDAM, POPULATION_TOTAL
    render.evidence(out, pg.evidence(subject, predicate), subject=subject, predicate=predicate)
    found = pg.evidence("http://example.org/aspirin", "http://example.org/treats", "http://example.org/headache")
    out.print("aspirin treats headache, supported by:")
    for e in found:
        cite = f' "{e.passage.text}" (p. {e.passage.page}, {e.passage.section})' if e.passage else ""
        out.print(f"  - {render.escape(e.title)}, tier {e.tier}, confidence {e.confidence:.2f}{render.escape(cite)}")


def _sparql(pg: ProvGraph, out: Console) -> None:
    out.print(Rule("4. SPARQL over current sources: values that differ between editions"))
    out.print(POPULATION_QUERY, style="dim")
    out.print(pg.query(POPULATION_QUERY).serialize(ResultFormat.TABLE).decode(), end="")  # type: ignore[union-attr]


def _conflicts(pg: ProvGraph, out: Console) -> None:
    out.print(Rule("5. Conflicts: every value with its sources, the preferred one and why"))
    everything = pg.conflicts()
    out.print(f"{len(everything)} conflicts in all; the losing values stay, marked, never deleted. Amsterdam's:")
    show_conflicts(pg.conflicts(subject=AMSTERDAM, predicate=POPULATION_TOTAL), console=out)


def _answers(pg: ProvGraph, out: Console) -> None:
    out.print(Rule("6. A grounded answer: every claim cites evidence the verifier checked"))
    show_answer(out, pg.ask("What is the population of Amsterdam?"))
    out.print()
    show_answer(out, pg.ask("Who was the mayor of Amsterdam in 1850?"))
    out.print(
        "Try: provgraph ingest FILE --title ... --tier 2;  provgraph query 'SELECT ...';  "
        "provgraph evidence --subject IRI --predicate IRI;  provgraph conflicts;  provgraph ask '...';  "
        "provgraph export --format trig"
    )
