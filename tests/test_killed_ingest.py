"""A killed ingest leaves no processes and no temporary directories behind (issue 11, point 8):
``kill -9`` of ``provgraph ingest`` while its SHACL workers run."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import ROOT
from provgraph.ingest.pipeline import SPOOL_PREFIX, remove_stale_spools

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")

DEADLINE = 120.0  # seconds; generous: the machine may be busy, and every wait ends on an event


def wait_for(condition: Callable[[], object], what: str) -> object:
    """Poll ``condition`` until it is true; fail after DEADLINE (never a fixed sleep)."""
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        found = condition()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # the command name is in parentheses and may hold spaces: the fields after it are fixed
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[1]) == pid:
            found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_kill_9_of_an_ingest_leaves_no_workers_and_no_spool(tmp_path):
    data = tmp_path / "big.nt"
    with data.open("w") as out:  # enough statements for many validation chunks on the worker pool
        for i in range(60_000):
            out.write(f'<http://example.org/s{i}> <http://example.org/p> "value {i}" .\n')
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PROVGRAPH_STORE"}
    env["TMPDIR"] = str(temp)
    exe = shutil.which("provgraph")
    command = [exe] if exe else [sys.executable, "-m", "provgraph"]
    ingest = subprocess.Popen(
        [*command, "ingest", str(data), "--store", str(tmp_path / "store"), "--id", "big", "--quiet"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        workers = wait_for(
            lambda: {p for p in children(ingest.pid) if "multiprocessing" in cmdline(p)}, "the SHACL workers to start"
        )
        spool = wait_for(lambda: list(temp.glob(f"{SPOOL_PREFIX}{ingest.pid}-*")), "the spool directory")
        everything = children(ingest.pid)  # the workers and multiprocessing's resource tracker
        assert ingest.poll() is None, "the ingest finished before it could be killed: give it more data"
        ingest.send_signal(signal.SIGKILL)
        assert ingest.wait(timeout=DEADLINE) == -signal.SIGKILL
    finally:
        if ingest.poll() is None:
            ingest.kill()
            ingest.wait()

    assert workers
    wait_for(lambda: not any(alive(p) for p in everything), "the workers to exit on their own")
    assert [p.exists() for p in spool] == [True]  # SIGKILL: nothing could remove it ...

    # ... until the next ingest (or read-write open) in that temporary directory
    small = tmp_path / "small.nt"
    small.write_text('<http://example.org/a> <http://example.org/p> "1" .\n')
    again = subprocess.run(
        [*command, "ingest", str(small), "--store", str(tmp_path / "store2"), "--quiet"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert not spool[0].exists()
    assert list(temp.iterdir()) == []


def test_the_spool_of_a_live_process_is_kept(tmp_path):
    mine = tmp_path / f"{SPOOL_PREFIX}{os.getpid()}-abc"
    mine.mkdir()
    unrelated = tmp_path / f"{SPOOL_PREFIX}notapid"
    unrelated.mkdir()
    assert remove_stale_spools(tmp_path) == []
    assert mine.exists() and unrelated.exists()
