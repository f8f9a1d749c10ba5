"""A loopback OpenAI-compatible chat-completions server for tests: the real ``openai`` client talks
HTTP to it, so the tests exercise the client's retries, timeouts and parsing, not a mock of them.

It serves ``POST /v1/chat/completions`` on 127.0.0.1 (a free port), records every request body,
and answers with canned :class:`Reply` objects: queued ones first (one per request), then a
responder function (for behaviour that depends on the request), then the default reply::

    with FakeLLMServer() as server:
        server.queue(completion('{"answer_summary": ...}'))
        client = openai.OpenAI(base_url=server.url + "/v1", api_key="x")
        ...
        assert server.requests[0]["response_format"]["type"] == "json_schema"
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pydantic import BaseModel

COMPLETIONS_PATH = "/v1/chat/completions"


@dataclass(frozen=True)
class Reply:
    """One canned HTTP response: status, JSON body, headers, and a delay before it is sent."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def completion(
    content: str | None,
    *,
    finish_reason: str = "stop",
    refusal: str | None = None,
    model: str = "test-model",
    delay: float = 0.0,
) -> Reply:
    """A chat completion with one choice, as OpenAI sends it."""
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "finish_reason": finish_reason,
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }
    return Reply(body=body, delay=delay)


def answer(draft: BaseModel | dict[str, Any], **kwargs: Any) -> Reply:
    """A completion whose content is ``draft`` as JSON (a DraftAnswer, or any dict)."""
    content = draft.model_dump_json() if isinstance(draft, BaseModel) else json.dumps(draft)
    return completion(content, **kwargs)


def refusal(message: str = "I can't help with that") -> Reply:
    return completion(None, refusal=message)


def error(status: int, message: str, *, type: str = "server_error", param: str | None = None) -> Reply:  # noqa: A002
    """An OpenAI-style error. Retryable ones (429, 5xx) ask the client to retry after 10 ms so
    that tests of the retries stay fast."""
    body = {"error": {"message": message, "type": type, "param": param, "code": None}}
    headers = {"retry-after-ms": "10"} if status == 429 or status >= 500 else {}
    return Reply(status=status, body=body, headers=headers)


def schema_rejected() -> Reply:
    """What a server without structured output answers to ``response_format: json_schema``."""
    return error(
        400, "response_format json_schema is not supported", type="invalid_request_error", param="response_format"
    )


# ---------------------------------------------------------------------- servers as they behave
# What real servers answer, from their code and documentation, so that the client's handling of
# each is tested against the bytes it will meet.


def llama_cpp_schema_500() -> Reply:
    """llama-cpp-python's server on ``response_format: json_schema``: HTTP 500, its pydantic
    error and its own traceback in the message."""
    return error(
        500,
        "1 validation error for CreateChatCompletionRequest\nresponse_format.type: Input should be 'text' or "
        "'json_object'\n  File \"/srv/venv/lib/python3.11/site-packages/llama_cpp/server/app.py\", line 376",
    )


def context_exceeded(n_ctx: int, prompt_tokens: int, max_tokens: int | None) -> Reply:
    """llama-cpp-python's, vLLM's and OpenAI's HTTP 400 for a prompt longer than the context."""
    message = (
        f"This model's maximum context length is {n_ctx} tokens. However, you requested "
        f"{prompt_tokens + (max_tokens or 0)} tokens ({prompt_tokens} in the messages, {max_tokens} in the "
        "completion). Please reduce the length of the messages or completion."
    )
    return error(400, message, type="invalid_request_error", param="messages")


def llama_server_context_exceeded(n_ctx: int, prompt_tokens: int) -> Reply:
    """llama.cpp's own server (llama-server) for a prompt longer than its context: HTTP 400 with
    the lengths as fields of the error, not in its message."""
    body = {
        "error": {
            "code": 400,
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": prompt_tokens,
            "n_ctx": n_ctx,
        }
    }
    return Reply(status=400, body=body)


def prompt_tokens(body: dict[str, Any]) -> int:
    """The tokens of a request's messages as a real tokenizer counts them, about 4 bytes each
    (provgraph's estimate is more cautious), plus the chat template's."""
    text = "".join(str(m.get("content") or "") for m in body.get("messages", []))
    return len(text.encode("utf-8")) // 4 + 8 * len(body.get("messages", []))


def within_context(
    n_ctx: int, reply: Callable[[dict[str, Any]], Reply], *, native: bool = False
) -> Callable[[dict[str, Any]], Reply]:
    """A responder that, like a server with a context of ``n_ctx`` tokens, refuses a prompt that
    leaves no room for ``max_tokens`` (vLLM) or that does not fit (llama.cpp, ``native``), and
    else answers with ``reply``."""

    def respond(body: dict[str, Any]) -> Reply:
        used = prompt_tokens(body)
        if native and used > n_ctx:
            return llama_server_context_exceeded(n_ctx, used)
        if not native and used + (body.get("max_tokens") or 0) > n_ctx:
            return context_exceeded(n_ctx, used, body.get("max_tokens"))
        return reply(body)

    return respond


def looping(body: dict[str, Any]) -> Reply:
    """A small model that repeats itself: it writes until ``max_tokens`` (a word a token) and
    stops with finish_reason=length; asked without a limit, until a 4,096-token context is full."""
    limit = body.get("max_tokens") or 4096 - prompt_tokens(body)
    content = '{"answer_summary": "' + " ".join(["Amsterdam is the capital"] * (limit // 4)) + " Amsterdam"
    return completion(content, finish_reason="length")


class FakeLLMServer:
    """The server (see the module docstring). Use it as a context manager, or :func:`running`."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        #: what ``GET path`` answers (JSON), as vLLM's ``/v1/models`` or llama.cpp's ``/props``
        self.info: dict[str, Any] = {}
        self.gets: list[str] = []  # the paths asked with GET
        self.default: Reply = error(500, "no reply configured for this request")
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_port}"

    def queue(self, *replies: Reply) -> None:
        """Answer the next requests with ``replies``, in order."""
        with self._lock:
            self._queue.extend(replies)

    def always(self, reply: Reply) -> None:
        """Answer every request (once the queue is empty) with ``reply``."""
        self.default = reply

    def respond_with(self, responder: Callable[[dict[str, Any]], Reply]) -> None:
        """Answer every request (once the queue is empty) with ``responder(request_body)``."""
        self.responder = responder

    def messages(self, n: int = -1) -> str:
        """The text of every message of request ``n``, joined: what the model was shown."""
        return "\n".join(str(m.get("content") or "") for m in self.requests[n].get("messages", []))

    def start(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()  # wakes delayed replies so that shutdown does not wait for them
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            if self._queue:
                return self._queue.popleft()
        if self.responder is not None:
            return self.responder(body)
        return self.default

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.gets.append(self.path)
                if self.path in server.info:
                    self._send(Reply(200, server.info[self.path]))
                else:
                    self._send(error(404, f"no route {self.path}", type="not_found"))

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                server.paths.append(self.path)
                if self.path != COMPLETIONS_PATH:
                    self._send(error(404, f"no route {self.path}", type="not_found"))
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._send(error(400, "the body is not JSON", type="invalid_request_error"))
                    return
                reply = server._next_reply(body)
                if reply.delay:
                    server._closing.wait(reply.delay)
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                data = json.dumps(reply.body).encode("utf-8") if reply.body is not None else b""
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to answer

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # keep test output clean

        return Handler


@contextmanager
def running() -> Iterator[FakeLLMServer]:
    """A started server, closed on exit: the body of a pytest fixture."""
    with FakeLLMServer() as server:
        yield server


__all__ = [
    "FakeLLMServer",
    "Reply",
    "answer",
    "completion",
    "context_exceeded",
    "error",
    "llama_cpp_schema_500",
    "llama_server_context_exceeded",
    "looping",
    "prompt_tokens",
    "refusal",
    "running",
    "schema_rejected",
    "within_context",
]
