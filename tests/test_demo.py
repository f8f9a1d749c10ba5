"""`provgraph demo` tours the bundled data and shows what a user should see."""

from helpers import run_cli


def test_demo_runs_and_tells_the_story(tmp_path):
    done = run_cli("demo")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "99 statements from 26 Wikipedia articles" in out
    assert "Re-ingesting the same file: a no-op" in out
    assert "focus node: http://example.org/ibuprofen" in out
    for value in ["820654", "799406", "1364422", "758198"]:
        assert value in out
    assert "Aspirin relieved tension headache" in out
    assert "http://dbpedia.org/resource/Amsterdam | 7" in out
    # the catalog: one count, saying which part of it is shown; keys whole, to be copied
    catalog = out[out.index("2. Sources") : out.index("3. All evidence")]
    rows = [line.split()[0] for line in catalog.splitlines() if line.startswith(("http://", "https://"))]
    assert "The catalog holds 30 documents" in catalog and f"\n{len(rows)} of 30 documents shown\n" in catalog
    assert "http://ca.wikipedia.org/wiki/Amsterdam" in rows and "https://example.org/aspirin-trial" in rows
    assert "…" not in catalog and "documents in all" not in out
    # the policy makes the disagreement a conflict, resolved by source trust, losers kept
    assert "820654: contested, confidence 0.91" in out and "790044: deprecated, confidence 0.70" in out
    assert "9 conflicts in all" in out and "preferred" in out and "rejected" in out
    # the grounded answer states the disagreement, its sources and the preferred value, with citations
    assert "Sources disagree on the population total of Amsterdam" in out
    # two values of one article are one side, named by the article, not by its edition twice
    assert "Amsterdam (es.wikipedia.org) reports both 57 and 762, while" in out
    assert "es.wikipedia.org reports 57, while es.wikipedia.org" not in out
    assert "Preferred: 820654 (source trust" in out and "[1-9]" in out
    population_answer = out[out.index("What is the population of Amsterdam?") : out.index("Who was the mayor")]
    assert "Sources disagree on the lat of Amsterdam" not in population_answer  # not what was asked
    # and abstains when the store cannot answer
    assert 'Insufficient evidence: the evidence found does not mention "1850"' in out


def test_demo_can_keep_its_store(tmp_path):
    store = tmp_path / "demo"
    assert run_cli("demo", "--store", str(store)).returncode == 0
    again = run_cli("sources", "--json", "--store", str(store))
    assert "Amsterdam (en.wikipedia.org)" in again.stdout
    assert run_cli("demo", "--store", str(store)).returncode == 0  # a second run is a no-op
