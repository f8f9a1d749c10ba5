"""What the command modules share: the consoles, the options several commands take (``--store``,
``--json``, ``--view``), enum option parsing, opening the store and printing JSON.

Start-up time: nothing heavy is imported here (no pydantic, no store); the functions import
what they need when a command runs (tests/test_startup.py checks it).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console

from provgraph.options import DEFAULT_STORE_DIR, DEFAULT_STORE_ENV, DatasetView

if TYPE_CHECKING:
    from provgraph.graph import ProvGraph

#: Diagnostics, progress and errors.
err = Console(stderr=True, highlight=False, soft_wrap=True)
#: Results.
out = Console(highlight=False, soft_wrap=True)

E = TypeVar("E", bound=enum.Enum)
T = TypeVar("T")

# A string, not a Path: a store may be a SPARQL server, "sparql+http://host:port", whose "//" a
# Path would fold into one
StoreOpt = Annotated[
    str,
    typer.Option(
        "--store",
        envvar=DEFAULT_STORE_ENV,
        metavar="DIR|URL",
        help=f"Store directory, or a SPARQL server as sparql+http://HOST:PORT (default: ${DEFAULT_STORE_ENV}, "
        f"else ./{DEFAULT_STORE_DIR}).",
        show_default=False,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON (a stable pydantic model).")]
DEFAULT_STORE = DEFAULT_STORE_DIR


def metavar(kind: type[enum.Enum]) -> str:
    """``[a|b|c]``: an enum option's choices, for its help."""
    return "[" + "|".join(str(m.value) for m in kind) + "]"


def choice(kind: type[E], option: str) -> Callable[[Any], E]:
    """A parser of an enum option that takes the enum's aliases too (``--format ttl``) and names
    the choices in its error, without pydantic's "Value error," in front."""

    def parse(value: Any) -> E:
        if isinstance(value, kind):
            return value
        return parse_enum(kind, value, option)

    return parse


def parse_enum(kind: type[E], value: str, option: str) -> E:
    """``kind(value)``, or the usage error of ``option`` naming the choices."""
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(str(v.value) for v in kind)
        raise typer.BadParameter(f"{value!r} is not one of {allowed}", param_hint=f"'{option}'") from None


ViewOpt = Annotated[
    DatasetView,
    typer.Option(
        parser=choice(DatasetView, "--view"),
        metavar=metavar(DatasetView),
        help="Default graph of queries: the current sources' union, all graphs, or the store's own.",
    ),
]


def open_store(
    store: str | Path, *, read_only: bool = False, lazy_lock: bool = False, create: bool = True
) -> ProvGraph:
    """The store, opened as ``ProvGraph.open`` does (imported here, not at start-up)."""
    from provgraph.graph import ProvGraph

    return ProvGraph.open(store, read_only=read_only, lazy_lock=lazy_lock, create=create)


def print_json(value: Any, kind: type[T] | Any = None) -> None:
    """``value`` as indented JSON on stdout: a pydantic model by itself, anything else as ``kind``
    (``list[SourceInfo]``, say)."""
    if hasattr(value, "model_dump_json"):
        out.print(value.model_dump_json(indent=2), markup=False)
    else:
        from pydantic import TypeAdapter

        out.print(TypeAdapter(kind).dump_json(value, indent=2).decode(), markup=False)


__all__ = [
    "DEFAULT_STORE",
    "JsonOpt",
    "StoreOpt",
    "ViewOpt",
    "choice",
    "err",
    "metavar",
    "open_store",
    "out",
    "parse_enum",
    "print_json",
]
