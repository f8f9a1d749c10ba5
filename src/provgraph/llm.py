"""The OpenAI-compatible chat model provgraph asks for structured output: it drafts answers
(:mod:`provgraph.answer.openai_gen`) and takes facts from text
(:mod:`provgraph.ingest.extract.llm`). Any server that speaks OpenAI's chat completions will do:
OpenAI, vLLM, Ollama, llama.cpp, LM Studio. Configured by environment
(:meth:`OpenAISettings.from_env`).

Structured output. OpenAI and recent vLLM accept ``response_format={"type": "json_schema"}``, which
constrains decoding to the schema; many local servers accept only ``{"type": "json_object"}`` (or
nothing). :attr:`JsonMode.AUTO` tries the schema first and, when the server rejects it with HTTP
400, switches to plain JSON mode with the schema in the system message and validates on the
client side; the switch is remembered for the model's lifetime.

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
from collections.abc import Mapping
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
    max_retries: int = Field(default=2, ge=0, description="retries of connection errors, 408/409/429 and 5xx")
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    json_mode: JsonMode = JsonMode.AUTO

    #: environment variables read by :meth:`from_env`, provgraph's before OpenAI's
    ENV: ClassVar[dict[str, tuple[str, ...]]] = {
        "model": ("PROVGRAPH_LLM_MODEL", "OPENAI_MODEL"),
        "base_url": ("PROVGRAPH_LLM_BASE_URL", "OPENAI_BASE_URL"),
        "api_key": ("PROVGRAPH_LLM_API_KEY", "OPENAI_API_KEY"),
        "timeout": ("PROVGRAPH_LLM_TIMEOUT",),
        "json_mode": ("PROVGRAPH_LLM_JSON_MODE",),
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
        self._client = client or openai.OpenAI(
            api_key=key,
            base_url=self.settings.base_url,
            timeout=self.settings.timeout,
            max_retries=self.settings.max_retries,
        )
        self.what = what
        #: how the model is asked for JSON: this steps down once for each rejection
        self._mode = _Mode.OBJECT if self.settings.json_mode is JsonMode.JSON_OBJECT else _Mode.SCHEMA

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
        user: str,
        schema: type[T],
        *,
        strict: type[BaseModel] | None = None,
        max_tokens: int | None = None,
    ) -> T:
        """The model's reply to ``user`` as an instance of ``schema``. ``strict`` is the schema as
        structured output is sent (default ``schema``), for a schema whose strict form differs;
        ``max_tokens`` bounds the reply (a small model can loop until its context is full).
        Raises :class:`GenerationError` on any failure of the server or the output,
        :class:`TruncatedError` when the reply hit the token limit."""
        wire = strict or schema
        limit = max_tokens if max_tokens is not None else openai.omit
        try:
            while True:
                try:
                    if self._mode is _Mode.SCHEMA:
                        return schema.model_validate(self._structured(system, user, wire, limit).model_dump())
                    return schema.model_validate_json(
                        self._json_object(self.system_message(system, wire), user, wire, limit)
                    )
                except openai.APIStatusError as exc:
                    if not self._step_down(exc):
                        raise
        except GenerationError:
            raise
        except openai.APITimeoutError as exc:
            raise GenerationError(
                f"the model server at {self.where} did not answer within the timeout "
                f"({self.settings.timeout:g} s, {self.settings.max_retries} retries)"
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

    def _step_down(self, exc: openai.APIStatusError) -> bool:
        """After a rejection of the way JSON was asked for, the next way; False when there is
        none (or the configuration allows none) or the error is not such a rejection. llama.cpp
        answers json_schema with HTTP 500, OpenAI and vLLM with 400: the words decide."""
        if self.settings.json_mode is JsonMode.SCHEMA or self._mode is _Mode.OBJECT or not _rejects_schema(exc):
            return False
        self._mode = _Mode.OBJECT_SCHEMA if self._mode is _Mode.SCHEMA else _Mode.OBJECT
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
    return _TRACE.split(_raw_message(exc), 1)[0].strip()


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


__all__ = ["PLACEHOLDER_KEY", "ChatModel", "JsonMode", "OpenAISettings", "TruncatedError", "data_json"]
