"""Readers during writes: latency of a trivial query while uploads run, against the same query on
the same server with no upload, measured in the same run.

    python bench/readers.py [--uploads 10] [--facts 9000] [--idle 10] [--after 20]

Starts ``provgraph serve`` on an on-disk store in its own process. A reader process sends a
trivial SELECT over one keep-alive connection, one request after the other, for the whole run.
The phases, by the time each request started:

- idle: the server with no upload (the baseline of the ratios);
- during: ``--uploads`` POST /sources of ``--facts`` JSON Lines facts each, one after the other
  (another seed per upload);
- after: ``--after`` seconds once the last upload has been answered.

Prints requests, errors (any status but 200, 503 included), p50/p95/p99/max latency per phase
and the ratio of each to idle; the upload times; and the peak memory (VmHWM) of the server and of
its worker processes; and the cost per write of the checkpoint the server makes for its readers
(the same uploads ingested in one process, each followed by a checkpoint), beside a plain flush.
"""

from __future__ import annotations

import sys
from pathlib import Path

# bench/http.py would shadow the standard library's http package for a script run from bench/
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)

import argparse
import http.client
import json
import os
import random
import socket
import subprocess
import tempfile
import time
import uuid
from urllib.parse import quote

from provgraph import IngestOptions

TOKEN = "bench-readers-token"
QUERY = "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"


def _make_jsonl(path: Path, n: int, seed: int) -> None:
    """``n`` JSON Lines facts about entities (five each), half integer literals, half links."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            record: dict[str, object] = {
                "subject": f"http://example.org/entity/{i // 5}",
                "predicate": f"http://example.org/p{i % 20}",
                "confidence": round(rng.uniform(0.5, 1.0), 3),
            }
            if i % 2:
                record["literal"] = str(rng.randint(0, 10**6))
                record["datatype"] = "xsd:integer"
            else:
                record["object"] = f"http://example.org/entity/{rng.randint(0, n)}"
            out.write(json.dumps(record) + "\n")


def child_reader(port: str, stop_file: str, out_file: str) -> None:
    """Trivial queries one after the other until ``stop_file`` exists; (start, seconds, status) lines."""
    path = "/sparql?query=" + quote(QUERY)
    headers = {"Accept": "application/sparql-results+json"}
    connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=600)
    rows = []
    stop = Path(stop_file)
    while not stop.exists():
        started = time.time()
        try:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            response.read()
            status = response.status
        except OSError:
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=600)
            status = 0
        rows.append((started, time.time() - started, status))
    Path(out_file).write_text(json.dumps(rows))


def _upload(port: int, jsonl: Path, key: str) -> tuple[int, float]:
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="id"\r\n\r\n{key}\r\n'.encode(),
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{jsonl.name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode(),
        jsonl.read_bytes(),
        f"\r\n--{boundary}--\r\n".encode(),
    ]
    body = b"".join(parts)
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}", "Authorization": f"Bearer {TOKEN}"}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=3600)
    started = time.perf_counter()
    connection.request("POST", "/sources", body=body, headers=headers)
    response = connection.getresponse()
    text = response.read()
    if response.status not in (200, 201):
        raise SystemExit(f"upload {key}: {response.status} {text[:300]!r}")
    return response.status, time.perf_counter() - started


def child_checkpoints(store: str, files: str) -> None:
    """The cost a server pays per write for its readers: the same uploads ingested in this
    process, each followed by a checkpoint (what the server makes), and, on a second store, by a
    plain flush of the memtable instead (the alternative: readers opening the live store)."""
    import shutil

    from provgraph import ProvGraph

    out: dict[str, list[float]] = {"ingest": [], "checkpoint": [], "flush": []}
    paths = json.loads(files)
    for mode in ("checkpoint", "flush"):
        with ProvGraph.open(Path(store) / mode) as pg:
            backend = pg.backend
            for i, path in enumerate(paths):
                started = time.perf_counter()
                pg.ingest(path, IngestOptions(id=f"bench-upload-{i}"))
                if mode == "checkpoint":
                    out["ingest"].append(time.perf_counter() - started)
                started = time.perf_counter()
                if mode == "checkpoint":
                    target = Path(store) / f"checkpoint-{i}"
                    backend.checkpoint(target)  # type: ignore[attr-defined]
                    out[mode].append(time.perf_counter() - started)
                    shutil.rmtree(target)
                else:
                    backend._store.flush()  # type: ignore[attr-defined]
                    out[mode].append(time.perf_counter() - started)
    print(json.dumps(out))


def _hwm_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _summary(rows: list[tuple[float, float, int]]) -> dict[str, float]:
    latencies = sorted(r[1] for r in rows)
    if not latencies:
        return {"requests": 0, "errors": 0, "p50": 0, "p95": 0, "p99": 0, "max": 0}

    def pct(q: float) -> float:
        return 1000 * latencies[min(len(latencies) - 1, int(len(latencies) * q))]

    return {
        "requests": len(latencies),
        "errors": sum(1 for r in rows if r[2] != 200),
        "p50": pct(0.50),
        "p95": pct(0.95),
        "p99": pct(0.99),
        "max": 1000 * latencies[-1],
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_up(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"provgraph serve exited with status {server.returncode}")
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("GET", "/sparql?query=" + quote(QUERY))
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("provgraph serve did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--uploads", type=int, default=10)
    parser.add_argument("--facts", type=int, default=9000, help="facts per upload")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of queries before the uploads")
    parser.add_argument("--after", type=float, default=20.0, help="seconds of queries after the uploads")
    parser.add_argument("--no-cost", action="store_true", help="skip the per-write cost (e.g. for an older server)")
    args, rest = parser.parse_known_args()
    if rest and rest[0] == "--child-reader":
        child_reader(*rest[1:4])
        return
    if rest and rest[0] == "--child-checkpoints":
        child_checkpoints(*rest[1:3])
        return
    env = {k: v for k, v in os.environ.items() if k not in ("PROVGRAPH_STORE", "PROVGRAPH_TOKEN")}
    with tempfile.TemporaryDirectory(prefix="provgraph-bench-readers-") as tmp_dir:
        tmp = Path(tmp_dir)
        files = []
        for i in range(args.uploads):
            files.append(tmp / f"upload-{i}.jsonl")
            _make_jsonl(files[-1], args.facts, seed=100 + i)
        port = _free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "provgraph", "serve", "--store", str(tmp / "store"), "--port", str(port)],
            env={**env, "PROVGRAPH_TOKEN": TOKEN},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        stop, out = tmp / "stop", tmp / "reader.json"
        reader = None
        try:
            _wait_until_up(port, server)
            reader = subprocess.Popen(
                [sys.executable, __file__, "--child-reader", str(port), str(stop), str(out)], env=env
            )
            began = time.time()
            time.sleep(args.idle)
            uploads_began = time.time()
            upload_seconds = []
            for i, path in enumerate(files):
                print(f"upload {i + 1}/{len(files)} ...", file=sys.stderr, flush=True)
                upload_seconds.append(_upload(port, path, f"bench-upload-{i}")[1])
            uploads_ended = time.time()
            time.sleep(args.after)
            stop.touch()
            reader.wait(timeout=900)
            rows = [tuple(r) for r in json.loads(out.read_text())]
            server_mb = _hwm_mb(server.pid)
            worker_mb = [_hwm_mb(c) for c in _children(server.pid)]
            snapshots = tmp / "store" / "snapshots"
            kept = len(list(snapshots.iterdir())) if snapshots.is_dir() else 0
        finally:
            stop.touch()
            if reader is not None and reader.poll() is None:
                reader.kill()
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        cost: dict[str, list[float]] = {}
        if not args.no_cost:
            print("per-write cost: the same uploads in one process ...", file=sys.stderr, flush=True)
            done = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child-checkpoints",
                    str(tmp / "cost"),
                    json.dumps([str(f) for f in files]),
                ],
                capture_output=True,
                text=True,
                check=False,
                env=env,
            )
            if done.returncode != 0:
                sys.stderr.write(done.stderr)
                raise SystemExit("the checkpoint cost child failed")
            cost = json.loads(done.stdout.strip().splitlines()[-1])
    phases = {
        "idle": [r for r in rows if began <= r[0] < uploads_began],
        "during": [r for r in rows if uploads_began <= r[0] < uploads_ended],
        "after": [r for r in rows if r[0] >= uploads_ended],
    }
    summaries = {name: _summary(phase) for name, phase in phases.items()}  # type: ignore[arg-type]
    base = summaries["idle"]
    print(
        f"{args.uploads} uploads of {args.facts:,} facts: {sum(upload_seconds):.1f} s "
        f"(each {min(upload_seconds):.1f}-{max(upload_seconds):.1f} s); query: {QUERY}"
    )
    print(
        f"{'phase':<7} {'requests':>8} {'errors':>7} {'p50 ms':>9} {'p95 ms':>9} {'p99 ms':>9} {'max ms':>9} "
        f"{'p50 ratio':>10} {'p99 ratio':>10}"
    )
    for name, s in summaries.items():
        print(
            f"{name:<7} {s['requests']:>8} {s['errors']:>7} {s['p50']:>9.2f} {s['p95']:>9.2f} {s['p99']:>9.2f} "
            f"{s['max']:>9.1f} {s['p50'] / base['p50'] if base['p50'] else 0:>9.1f}x "
            f"{s['p99'] / base['p99'] if base['p99'] else 0:>9.1f}x"
        )
    for name in cost and ("checkpoint", "flush"):
        ms = sorted(1000 * x for x in cost[name])
        print(
            f"per write, {name}: median {ms[len(ms) // 2]:.0f} ms, max {ms[-1]:.0f} ms "
            f"(ingest of one upload: median {sorted(cost['ingest'])[len(ms) // 2]:.1f} s)"
        )
    print(
        f"peak memory: server {server_mb:.0f} MB, workers {', '.join(f'{m:.0f}' for m in worker_mb) or '-'} MB; "
        f"snapshot directories left at the end: {kept}"
    )


if __name__ == "__main__":
    main()
