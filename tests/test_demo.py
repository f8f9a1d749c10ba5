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


def test_demo_can_keep_its_store(tmp_path):
    store = tmp_path / "demo"
    assert run_cli("demo", "--store", str(store)).returncode == 0
    again = run_cli("sources", "--json", "--store", str(store))
    assert "Amsterdam (en.wikipedia.org)" in again.stdout
    assert run_cli("demo", "--store", str(store)).returncode == 0  # a second run is a no-op
