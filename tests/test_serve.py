"""`provgraph serve` as an operator runs it: a real process, a real port, real signals.

The write token comes from $PROVGRAPH_TOKEN or --token-file and is never written anywhere
provgraph writes: not the holder file, a message, a log line or a command line of its own."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from helpers import EXAMPLES, ServeProcess, run_cli
from provgraph import IngestOptions, ProvGraph

SECRET = "s3cret-token-never-shown-7f1c"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PROVGRAPH_STORE", "PROVGRAPH_TOKEN")}
    return {**env, **extra}


class Served(ServeProcess):
    """`provgraph serve` as helpers start it, and the command lines of its processes."""

    def command_lines(self) -> list[str]:
        """The command lines (as `ps` shows them) of the server and every process it started."""
        pids, found = [self.process.pid], []
        while pids:
            pid = pids.pop()
            with_args = Path(f"/proc/{pid}/cmdline")
            if with_args.exists():
                found.append(with_args.read_bytes().replace(b"\0", b" ").decode())
            for task in Path(f"/proc/{pid}/task").glob("*/children"):
                pids += [int(c) for c in task.read_text().split()]
        return found


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store"
    with ProvGraph.open(path) as pg:
        pg.ingest(EXAMPLES / "aspirin.ttl", IngestOptions(title="Aspirin facts", url="https://example.org/aspirin"))
    return path


@pytest.fixture(params=["environment", "token-file"])
def served(request: pytest.FixtureRequest, store: Path, tmp_path: Path) -> Iterator[Served]:
    if request.param == "environment":
        server = Served(store, env={"PROVGRAPH_TOKEN": SECRET})
    else:
        token_file = tmp_path / "token"
        token_file.write_text(SECRET + "\n", encoding="utf-8")
        token_file.chmod(0o600)
        server = Served(store, "--token-file", str(token_file))
    try:
        yield server
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()


def test_the_token_is_taken_from_the_environment_or_a_file_and_written_nowhere(served, store):
    assert "(writes need the token)" in served.stderr[0]
    with httpx.Client(base_url=served.url, timeout=60) as client:
        fields = {"title": "Trial", "url": "https://example.org/trial"}
        files = [("file", ("facts.jsonl", (EXAMPLES / "facts.jsonl").read_bytes()))]
        refused = client.post("/sources", data=fields, files=files, headers={"Authorization": "Bearer nope"})
        assert refused.status_code == 403
        taken = client.post("/sources", data=fields, files=files, headers={"Authorization": f"Bearer {SECRET}"})
        assert taken.status_code == 201, taken.text
        # a query worker has started by now: its command line is checked too
        assert client.get("/sparql", params={"query": "ASK {}"}).status_code == 200
    holder = store / "holder.json"
    assert "provgraph serve" in holder.read_text() and SECRET not in holder.read_text()
    assert holder.stat().st_mode & 0o077 == 0
    commands = served.command_lines()
    assert commands and not [c for c in commands if SECRET in c]
    # another process refused the store is told who holds it, not with what
    locked = run_cli("ingest", str(EXAMPLES / "aspirin-note.md"), "--store", str(store), "-q")
    assert locked.returncode == 2 and f"process {served.process.pid} (provgraph serve)" in locked.stderr
    assert SECRET not in locked.stderr
    assert served.stop() == 0
    assert SECRET not in "".join(served.stderr)
    assert not holder.exists()  # removed on SIGTERM


def test_a_token_on_the_command_line_is_warned_about_without_being_shown(store):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = run_cli("serve", "--store", str(store), "--port", str(port), "--token", SECRET, env=_env())
    assert "warning: --token is visible to every user of this machine (ps)" in done.stderr
    assert SECRET not in done.stderr + done.stdout


def test_serve_on_a_port_in_use_says_so_before_serving(store):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = run_cli("serve", "--store", str(store), "--port", str(port), env=_env())
    assert done.returncode == 2
    assert done.stderr == (
        f"error: cannot listen on 127.0.0.1:{port}: the port is in use by another program "
        "(stop it, or choose another --port)\n"
    )
    assert not (store / "holder.json").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read {path}: No such file or directory"),
        ("\n", "{path} is empty: write the token on its first line"),
    ],
    ids=["missing", "empty"],
)
def test_a_token_file_that_gives_no_token_is_a_clear_error(store, tmp_path, content, message):
    path = tmp_path / "token"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    done = run_cli("serve", "--store", str(store), "--token-file", str(path), env=_env())
    assert done.returncode == 2
    assert message.format(path=path) in " ".join(done.stderr.split())


def test_one_token_at_a_time(store, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(SECRET, encoding="utf-8")
    done = run_cli("serve", "--store", str(store), "--token-file", str(token_file), env=_env(PROVGRAPH_TOKEN=SECRET))
    assert done.returncode == 2 and "give the token once: --token-file or $PROVGRAPH_TOKEN" in done.stderr
    assert SECRET not in done.stderr
