"""The OpenAI-compatible chat model provgraph asks for structured output: it drafts answers
(:mod:`provgraph.answer.openai_gen`) and takes facts from text
(:mod:`provgraph.ingest.extract.llm`). Any server that speaks OpenAI's chat completions will do:
OpenAI, vLLM, Ollama, llama.cpp, LM Studio. Configured by environment
(:meth:`OpenAISettings.from_env`).

Structured output. OpenAI and recent vLLM accept ``response_format={"type": "json_schema"}``, which
constrains decoding to the schema; many local servers accept only ``{"type": "json_object"}`` (or
nothing). :attr:`JsonMode.AUTO` tries the schema first and, when the server rejects it with HTTP
400, switches to plain JSON mode with the schema in the system message and validates on the
client side. What a server rejected is remembered per base URL for the life of the process.

Size. A reply is bounded by ``max_tokens`` (a small model can loop until its context is full), and
the prompt by the server's context length less the reply: :attr:`OpenAISettings.context_tokens`
when configured, else what the server says when first asked (vLLM's ``max_model_len`` in
``/v1/models``, llama.cpp's server's ``n_ctx`` in ``/props``), else :data:`DEFAULT_CONTEXT`
(:data:`OPENAI_CONTEXT` on api.openai.com) until the server says otherwise. Tokens are estimated
conservatively from UTF-8 bytes (:func:`estimate_tokens`). A server that rejects a prompt as too
long for its context (llama.cpp, llama-cpp-python, vLLM and OpenAI say so with HTTP 400, most with
the length) is asked once more with the prompt rebuilt for the context it named, and that context
is remembered per base URL.

Retries. Connection errors and HTTP 408, 409, 429 and 5xx are retried up to
:attr:`OpenAISettings.max_retries` times (after the server's ``retry-after``, else a short
backoff); a request that timed out is retried at most once: a generation that ran out of time
will run out again, and each try costs the whole timeout.

Every failure of the server (down, slow, HTTP errors after the client's retries, refusals,
truncated or off-schema output) becomes one :class:`~provgraph.errors.GenerationError` with a
message a user can act on; a stack trace from the client library never reaches the user, and
the API key never appears in a message, a ``repr`` or a record.
"""

from __future__ import annotations

import enum
import json
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, cast

import openai
import pydantic
from openai.types.chat import ChatCompletionMessageParam
from pydantic import BaseModel, ConfigDict, Field, SecretStr

from provgraph.errors import GenerationError, InputError

#: The API key passed to the client when none is configured: local servers ignore it, and the
#: client refuses to start without one.
PLACEHOLDER_KEY = "not-needed"


class JsonMode(enum.StrEnum):
    """How the model is made to answer in the :class:`DraftAnswer` schema."""

    #: structured output (json_schema); on an HTTP 400 rejecting it, plain JSON mode
    AUTO = "auto"
    #: structured output only: a server without it fails
    SCHEMA = "schema"
    #: plain JSON mode only (``{"type": "json_object"}``), validated on the client side
    JSON_OBJECT = "json_object"


class OpenAISettings(BaseModel):
    """Where the model server is and how to call it. The API key is a secret: it never appears in
    ``repr``, logs or error messages."""

    model_config = ConfigDict(frozen=True)

    model: str = "gpt-4o-mini"
    base_url: str | None = Field(default=None, description="e.g. http://localhost:11434/v1; None: api.openai.com")
    api_key: SecretStr | None = Field(default=None, description="None for local servers that need no key")
    timeout: float = Field(default=30.0, gt=0, description="seconds per request")
    max_retries: int = Field(
        default=2, ge=0, description="retries of connection errors, 408/409/429 and 5xx (a timeout at most once)"
    )
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    json_mode: JsonMode = JsonMode.AUTO
    context_tokens: int | None = Field(
        default=None, ge=512, description="the server's context length in tokens; None: learnt from the server"
    )
    max_tokens: int | None = Field(default=None, ge=16, description="a cap on a reply's tokens; None: the output's own")

    #: environment variables read by :meth:`from_env`, provgraph's before OpenAI's
    ENV: ClassVar[dict[str, tuple[str, ...]]] = {
        "model": ("PROVGRAPH_LLM_MODEL", "OPENAI_MODEL"),
        "base_url": ("PROVGRAPH_LLM_BASE_URL", "OPENAI_BASE_URL"),
        "api_key": ("PROVGRAPH_LLM_API_KEY", "OPENAI_API_KEY"),
        "timeout": ("PROVGRAPH_LLM_TIMEOUT",),
        "json_mode": ("PROVGRAPH_LLM_JSON_MODE",),
        "context_tokens": ("PROVGRAPH_LLM_CONTEXT_TOKENS",),
        "max_tokens": ("PROVGRAPH_LLM_MAX_TOKENS",),
    }

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> OpenAISettings:
        """Settings from ``environ`` (default: the process environment). ``PROVGRAPH_LLM_*`` wins
        over ``OPENAI_*`` so that provgraph can use another server than other tools of the same
        shell; empty variables count as unset. Raises :class:`~provgraph.errors.InputError` on a
        value that is not valid (a timeout that is not a positive number, an unknown JSON mode)."""
        environ = os.environ if environ is None else environ
        values: dict[str, str] = {}
        for field, names in cls.ENV.items():
            for name in names:
                value = environ.get(name, "").strip()
                if value:
                    values[field] = value
                    break
        try:
            return cls.model_validate(values)
        except pydantic.ValidationError as exc:
            problems = "; ".join(
                f"{_env_name(cls.ENV, str(e['loc'][0]), environ)}: {e['msg']}" for e in exc.errors(include_input=False)
            )
            raise InputError(f"invalid language model settings: {problems}") from exc


def _env_name(env: Mapping[str, tuple[str, ...]], field: str, environ: Mapping[str, str]) -> str:
    return next((n for n in env.get(field, ()) if environ.get(n, "").strip()), field)


T = TypeVar("T", bound=BaseModel)

JSON_OBJECT_INSTRUCTIONS = """

Reply with one JSON object and nothing else (no prose, no code fences), matching this JSON schema:
"""


def data_json(value: object) -> str:
    """JSON that no document text can break out of: ``<``, ``>`` and ``&`` escaped, so that
    "</evidence>" or "<|im_start|>" in a passage stays a string of the data."""
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


#: The context length assumed of a server that has not said its own (llama.cpp's and vLLM's
#: usual; llama-cpp-python's default is 2048 and says so when a prompt is longer), and of OpenAI's.
DEFAULT_CONTEXT = 4096
#: Seconds to wait for a server's answer about its context length (it answers at once, or not).
PROBE_TIMEOUT = 10.0
OPENAI_CONTEXT = 128_000
#: UTF-8 bytes per token, conservatively: English prose is about 4 to a token, JSON with hex ids
#: about 3 (SmolLM2's tokenizer on provgraph's evidence lines: 3.4).
BYTES_PER_TOKEN = 2.8
#: Tokens a chat template adds around each message.
MESSAGE_OVERHEAD = 8


def estimate_tokens(text: str) -> int:
    """A conservative estimate of the tokens of ``text``."""
    return int(len(text.encode("utf-8")) / BYTES_PER_TOKEN) + 1


@dataclass
class _Learned:
    """What a server's answers said about it."""

    mode: _Mode | None = None
    context: int | None = None
    asked: bool = False  # whether the server was asked its context length


_LEARNED: dict[str, _Learned] = {}
_LEARNED_LOCK = threading.Lock()


def forget_servers() -> None:
    """Forget what servers rejected and the contexts they named (after a server was upgraded or
    reconfigured, or between tests)."""
    with _LEARNED_LOCK:
        _LEARNED.clear()


class TruncatedError(GenerationError):
    """The model's reply hit the output token limit (finish_reason=length); ``partial`` is what
    it wrote until then."""

    def __init__(self, message: str, *, partial: str = "") -> None:
        super().__init__(message)
        self.partial = partial


class _Mode(enum.StrEnum):
    """The ways of asking for JSON, best first."""

    SCHEMA = "json_schema"  # structured output: decoding constrained to the schema
    OBJECT_SCHEMA = "json_object_schema"  # JSON mode with the schema, as llama.cpp's server takes it
    OBJECT = "json_object"  # plain JSON mode, the schema in the prompt only


class ChatModel:
    """One model on one server, asked for JSON in a pydantic schema (see the module docstring).

    ``client`` replaces the client built from ``settings`` (for a preconfigured or instrumented
    one); the settings still give the model, the temperature and the JSON mode. ``what`` names
    the output in error messages ("answer", "facts").
    """

    def __init__(
        self, settings: OpenAISettings | None = None, *, client: openai.OpenAI | None = None, what: str = "answer"
    ) -> None:
        self.settings = settings or OpenAISettings()
        key = self.settings.api_key.get_secret_value() if self.settings.api_key else PLACEHOLDER_KEY
        # the retries are this class's own (a timeout is retried at most once): none in the client
        self._client = (
            client.with_options(max_retries=0)
            if client is not None
            else openai.OpenAI(
                api_key=key, base_url=self.settings.base_url, timeout=self.settings.timeout, max_retries=0
            )
        )
        self.what = what
        with _LEARNED_LOCK:
            self._learned = _LEARNED.setdefault(self.where, _Learned())

    @property
    def _mode(self) -> _Mode:
        """How the model is asked for JSON: the configured way, stepped down once for each
        rejection this server gave."""
        if self.settings.json_mode is JsonMode.JSON_OBJECT:
            return _Mode.OBJECT
        if self.settings.json_mode is JsonMode.SCHEMA:
            return _Mode.SCHEMA
        return self._learned.mode or _Mode.SCHEMA

    @property
    def context_tokens(self) -> int:
        """The server's context length: configured, named by the server, or assumed."""
        if self.settings.context_tokens is not None:
            return self.settings.context_tokens
        if self.settings.base_url is None:
            return self._learned.context or OPENAI_CONTEXT
        if self._learned.context is None and not self._learned.asked:
            told = self._told_context()
            with _LEARNED_LOCK:
                self._learned.asked = True
                if self._learned.context is None:
                    self._learned.context = told
        return self._learned.context or DEFAULT_CONTEXT

    def _told_context(self) -> int | None:
        """The context length the server gives, if it gives one: vLLM's ``max_model_len`` of the
        model in ``/v1/models``, llama.cpp's server's ``n_ctx`` in ``/props`` (beside ``/v1``).
        llama-cpp-python's server and Ollama give none (Ollama's ``num_ctx`` is per request)."""
        base = self.where
        root = base.removesuffix("/v1")
        for url, read in ((base + "/models", self._max_model_len), (root + "/props", _n_ctx)):
            try:
                found = read(self._client.get(url, cast_to=object, options={"timeout": PROBE_TIMEOUT}))
            except (openai.APIError, ValueError, TypeError, AttributeError):
                continue  # not this kind of server (or not now: the question will say)
            if found:
                return found
        return None

    def _max_model_len(self, listing: object) -> int | None:
        models = listing.get("data") if isinstance(listing, dict) else None
        lengths: dict[object, int] = {
            m.get("id"): m["max_model_len"]
            for m in models or ()
            if isinstance(m, dict) and isinstance(m.get("max_model_len"), int)
        }
        if self.settings.model in lengths:
            return lengths[self.settings.model]
        return min(lengths.values()) if lengths else None

    def reply_tokens(self, wanted: int | None) -> int:
        """The ``max_tokens`` sent for an output that needs ``wanted`` tokens: capped by the
        settings' cap and by a quarter of the context (the rest is the prompt's: the system
        message alone, with the schema in it, is about 900 tokens)."""
        caps = [self.context_tokens // 4, *(t for t in (wanted, self.settings.max_tokens) if t is not None)]
        return min(caps)

    def prompt_budget(self, system: str, schema: type[BaseModel], reply_tokens: int) -> int:
        """Tokens left for the user message, after the system message as sent and the reply."""
        used = estimate_tokens(self.system_message(system, schema)) + 2 * MESSAGE_OVERHEAD + reply_tokens
        return self.context_tokens - used

    @property
    def schema_rejected(self) -> bool:
        """The server rejected structured output (or plain JSON mode was configured)."""
        return self._mode is not _Mode.SCHEMA

    @property
    def where(self) -> str:
        """The server's base URL."""
        return str(self._client.base_url).rstrip("/")

    @property
    def json_mode(self) -> str:
        """The JSON mode in use: the configured one, or the one a fallback stepped down to."""
        return self.settings.json_mode.value if self._mode is _Mode.SCHEMA else self._mode.value

    def response_format(self, schema: type[BaseModel]) -> dict[str, Any]:
        """The ``response_format`` plain JSON mode sends (structured output sends the client's own)."""
        if self._mode is _Mode.OBJECT_SCHEMA:
            return {"type": "json_object", "schema": schema.model_json_schema()}
        return {"type": "json_object"}

    def system_message(self, system: str, schema: type[BaseModel]) -> str:
        """The system message as sent: in plain JSON mode it carries the schema."""
        if not self.schema_rejected:
            return system
        return system + JSON_OBJECT_INSTRUCTIONS + json.dumps(schema.model_json_schema(), separators=(",", ":"))

    def ask(
        self,
        system: str,
        user: str | Callable[[int], str],
        schema: type[T],
        *,
        strict: type[BaseModel] | None = None,
        max_tokens: int | None = None,
    ) -> T:
        """The model's reply to ``user`` as an instance of ``schema``. ``user`` may be a function
        of the tokens left for it (:meth:`prompt_budget`), called again when the server names a
        smaller context. ``strict`` is the schema as structured output is sent (default
        ``schema``), for a schema whose strict form differs; ``max_tokens``, the tokens the
        output needs (sent capped, :meth:`reply_tokens`). Raises :class:`GenerationError` on any
        failure of the server or the output, :class:`TruncatedError` when the reply hit the
        token limit."""
        wire = strict or schema
        retries = timeouts = 0
        resized = False
        try:
            while True:
                limit = self.reply_tokens(max_tokens)
                text = user(self.prompt_budget(system, wire, limit)) if callable(user) else user
                try:
                    if self._mode is _Mode.SCHEMA:
                        return schema.model_validate(self._structured(system, text, wire, limit).model_dump())
                    return schema.model_validate_json(
                        self._json_object(self.system_message(system, wire), text, wire, limit)
                    )
                except openai.APIStatusError as exc:
                    if self._step_down(exc):
                        continue
                    if callable(user) and not resized and self._learn_context(exc, system, wire, text):
                        resized = True
                        continue
                    if not _transient(exc) or retries >= self.settings.max_retries:
                        raise
                    wait = _retry_after(exc.response, retries)
                except openai.APITimeoutError:
                    if timeouts or retries >= self.settings.max_retries:
                        raise
                    timeouts += 1
                    wait = _retry_after(None, retries)
                except openai.APIConnectionError:
                    if retries >= self.settings.max_retries:
                        raise
                    wait = _retry_after(None, retries)
                retries += 1
                time.sleep(wait)
        except GenerationError:
            raise
        except openai.APITimeoutError as exc:
            raise GenerationError(
                f"the model server at {self.where} did not answer within the timeout "
                f"({self.settings.timeout:g} s, tried {1 + timeouts} times)"
            ) from exc
        except openai.APIConnectionError as exc:
            raise GenerationError(f"cannot connect to the model server at {self.where}: {exc}") from exc
        except openai.AuthenticationError as exc:
            raise GenerationError(
                f"the model server rejected the API key (HTTP {exc.status_code}): set PROVGRAPH_LLM_API_KEY "
                "or OPENAI_API_KEY"
            ) from exc
        except openai.APIStatusError as exc:
            raise GenerationError(
                f"the model server answered HTTP {exc.status_code} (model {self.settings.model}): {_error_message(exc)}"
            ) from exc
        except openai.LengthFinishReasonError as exc:
            choices = exc.completion.choices if exc.completion is not None else []
            partial = (choices[0].message.content or "") if choices else ""
            raise TruncatedError(self._truncated(), partial=partial) from exc
        except openai.ContentFilterFinishReasonError as exc:
            raise GenerationError(f"the model refused to {self._verb()}: its content filter stopped it") from exc
        except (pydantic.ValidationError, json.JSONDecodeError) as exc:
            raise GenerationError(
                f"the model's output did not match the {self.what} schema: {_first_error(exc)}"
            ) from exc
        except openai.OpenAIError as exc:
            raise GenerationError(f"the model server call failed: {exc}") from exc

    def _learn_context(self, exc: openai.APIStatusError, system: str, schema: type[BaseModel], user: str) -> bool:
        """After a rejection of a prompt too long for the server's context, the context it named
        (or, when it named none, three quarters of what was sent) is remembered: True. False for
        any other error."""
        if exc.status_code != 400:
            return False
        text = f"{exc.message} {json.dumps(exc.body) if exc.body is not None else ''}"
        if not _CONTEXT_WORDS.search(text):
            return False
        named = _CONTEXT_NAMED.search(text)
        if named:
            context = int(next(g for g in named.groups() if g))
        else:
            sent = estimate_tokens(self.system_message(system, schema)) + estimate_tokens(user)
            context = max(512, min(self.context_tokens, sent) * 3 // 4)
        with _LEARNED_LOCK:
            self._learned.context = context
        return True

    def _step_down(self, exc: openai.APIStatusError) -> bool:
        """After a rejection of the way JSON was asked for, the next way; False when there is
        none (or the configuration allows none) or the error is not such a rejection. llama.cpp
        answers json_schema with HTTP 500, OpenAI and vLLM with 400: the words decide."""
        if self.settings.json_mode is not JsonMode.AUTO or self._mode is _Mode.OBJECT or not _rejects_schema(exc):
            return False
        with _LEARNED_LOCK:
            self._learned.mode = _Mode.OBJECT_SCHEMA if self._mode is _Mode.SCHEMA else _Mode.OBJECT
        return True

    def _messages(self, system: str, user: str) -> list[ChatCompletionMessageParam]:
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _structured(self, system: str, user: str, schema: type[BaseModel], limit: int | openai.Omit) -> BaseModel:
        """Structured output: the server constrains the reply to the schema; the client parses
        it (raising on truncation, the content filter and off-schema output)."""
        completion = self._client.chat.completions.parse(
            model=self.settings.model,
            messages=self._messages(system, user),
            response_format=schema,
            temperature=self.settings.temperature,
            max_tokens=limit,
        )
        if not completion.choices:
            raise GenerationError(f"the model server returned no {self.what} (no choices)")
        message = completion.choices[0].message
        if message.refusal:
            raise GenerationError(f"the model refused to {self._verb()}: {_truncate(message.refusal, 300)}")
        if message.parsed is None:
            raise GenerationError(f"the model returned an empty {self.what}")
        return message.parsed

    def _json_object(self, system: str, user: str, schema: type[BaseModel], limit: int | openai.Omit) -> str:
        """Plain JSON mode: the schema is in the system message (and, for servers that take it,
        in the response format, which llama.cpp turns into a grammar); the reply is validated by
        the caller."""
        completion = self._client.chat.completions.create(
            model=self.settings.model,
            messages=self._messages(system, user),
            response_format=cast(Any, self.response_format(schema)),  # a "schema" key the type does not know
            temperature=self.settings.temperature,
            max_tokens=limit,
        )
        if not completion.choices:
            raise GenerationError(f"the model server returned no {self.what} (no choices)")
        choice = completion.choices[0]
        if choice.finish_reason == "length":
            raise TruncatedError(self._truncated(), partial=choice.message.content or "")
        refusal = getattr(choice.message, "refusal", None)
        if refusal:
            raise GenerationError(f"the model refused to {self._verb()}: {_truncate(refusal, 300)}")
        if choice.finish_reason == "content_filter":
            raise GenerationError(f"the model refused to {self._verb()}: its content filter stopped it")
        content = _strip_fences(choice.message.content or "")
        if not content:
            raise GenerationError(f"the model returned an empty {self.what}")
        return content

    def _verb(self) -> str:
        return "answer" if self.what == "answer" else f"give {self.what}"

    def _truncated(self) -> str:
        return f"the model's {self.what} was truncated (finish_reason=length): it hit the output token limit"


#: Words of an HTTP 400 saying the prompt is too long for the context (OpenAI, vLLM,
#: llama-cpp-python: "maximum context length is 2048 tokens"; llama.cpp: "exceeds the available
#: context size", with ``n_ctx`` in the body).
_CONTEXT_WORDS = re.compile(r"context[ _](?:length|size|window)|exceed_context_size", re.I)
_CONTEXT_NAMED = re.compile(r"maximum context length is (\d+)|context window of (\d+)|\"n_ctx\": (\d+)", re.I)


def _n_ctx(props: object) -> int | None:
    """llama.cpp's server's context per slot, from ``/props``."""
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    found = settings.get("n_ctx") if isinstance(settings, dict) else None
    return found if isinstance(found, int) and found > 0 else None


def _transient(exc: openai.APIStatusError) -> bool:
    """What is worth asking again: as the OpenAI client retries."""
    return exc.status_code in (408, 409, 429) or exc.status_code >= 500


def _retry_after(response: Any, retries: int) -> float:
    """The wait before the next try: the server's ``retry-after-ms`` or ``retry-after`` (seconds)
    when it gives one below a minute, else 0.5 s doubling per retry, at most 8 s."""
    headers = getattr(response, "headers", None) or {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            wait = float(headers.get(name, "")) * scale
        except ValueError:
            continue
        if 0 <= wait <= 60:
            return wait
    return min(8.0, 0.5 * 2**retries)


#: Words of an HTTP 400 saying the server does not support structured output.
_SCHEMA_WORDS = ("json_schema", "response_format", "structured output", "guided_json", "schema")
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)


def _rejects_schema(exc: openai.APIStatusError) -> bool:
    if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError, openai.RateLimitError)):
        return False
    text = f"{exc.message} {json.dumps(exc.body) if exc.body is not None else ''}".lower()
    return any(word in text for word in _SCHEMA_WORDS)


def _truncate(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def _error_message(exc: openai.APIStatusError) -> str:
    """The server's message, without its internals: no traceback, no file path of its machine."""
    return _PATH.sub("(a path of the server)", _TRACE.split(_raw_message(exc), 1)[0]).strip()


#: An absolute file path of the server's machine in its message (/usr/lib/..., C:\\...).
_PATH = re.compile(r"(?<![\w:/])(?:/[\w.+-]+){2,}/?|\b[A-Za-z]:\\(?:[\w.+-]+\\?)+")


#: Where a server's error message goes on with its own traceback (llama-cpp-python's does).
_TRACE = re.compile(r"\s+(?:File \"|Traceback \(most recent call last\))")


def _raw_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return _truncate(str(error["message"]), 300)
        if isinstance(error, str):
            return _truncate(error, 300)
    return _truncate(exc.message, 300)


def _first_error(exc: pydantic.ValidationError | json.JSONDecodeError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON ({exc.msg})"
    errors = exc.errors(include_input=False, include_url=False)
    if not errors:
        return "invalid"
    first = errors[0]
    where = ".".join(str(p) for p in first["loc"]) or "the reply"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {first['msg']}{more}"


def _strip_fences(content: str) -> str:
    """Some local models wrap JSON in a Markdown code fence even in JSON mode."""
    content = content.strip()
    match = _FENCE.match(content)
    return match.group(1) if match else content


__all__ = [
    "DEFAULT_CONTEXT",
    "PLACEHOLDER_KEY",
    "ChatModel",
    "JsonMode",
    "OpenAISettings",
    "TruncatedError",
    "data_json",
    "estimate_tokens",
    "forget_servers",
]
