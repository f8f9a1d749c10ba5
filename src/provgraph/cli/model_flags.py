"""A pydantic model's fields as a command's options: the flag is the field's name in kebab-case,
its help the field's description, its type, default and range the field's, and its metavar the
field's :class:`~provgraph.ingest.options.Metavar`. ``ingest`` and ``validate`` take
:class:`~provgraph.ingest.options.IngestOptions` this way, so the command line offers and checks
what the API does.

Imported only when such a command runs (it needs the model, and so pydantic).
"""

from __future__ import annotations

import enum
import inspect
import types
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Union, get_args, get_origin

import typer
from annotated_types import Ge, Le

from provgraph.cli.common import choice
from provgraph.cli.common import metavar as enum_metavar
from provgraph.ingest.options import Metavar

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic.fields import FieldInfo


def model_parameters(
    model: type[BaseModel], *, instead: Mapping[str, Sequence[inspect.Parameter]]
) -> list[inspect.Parameter]:
    """One keyword parameter per field of ``model``, in its order, typed for typer; a field in
    ``instead`` (one the command line spells its own way) is replaced by the parameters given."""
    parameters: list[inspect.Parameter] = []
    for name, field in model.model_fields.items():
        parameters.extend(instead[name] if name in instead else [_parameter(name, field)])
    return parameters


def given(values: Mapping[str, object], model: type[BaseModel]) -> dict[str, object]:
    """The values of ``model``'s fields the user gave: an option left out (None) takes the
    field's default."""
    return {name: value for name, value in values.items() if name in model.model_fields and value is not None}


def _parameter(name: str, field: FieldInfo) -> inspect.Parameter:
    flag = "--" + name.replace("_", "-")
    metavar = next((m.text for m in field.metadata if isinstance(m, Metavar)), None)
    help_text = field.description or ""
    default = field.default
    annotation = field.annotation
    members = _members(annotation)
    settings: dict[str, Any] = {}
    kind: Any
    if get_origin(annotation) is tuple:
        [item, _] = get_args(annotation)
        kind, default, help_text = list[item] | None, None, help_text.rstrip(".") + " (repeatable)."  # type: ignore[valid-type]
    elif members == [bool]:
        kind = bool
    elif len(members) == 1 and isinstance(members[0], type) and issubclass(members[0], enum.Enum):
        kind = members[0] | None
        settings["parser"] = choice(members[0], flag)
        metavar = metavar or enum_metavar(members[0])
    elif str in members:
        kind = str | None  # a date is given as text, as the model takes it
    elif members in ([int], [float]):
        kind = members[0] if default is not None else members[0] | None
        settings["min"] = next((m.ge for m in field.metadata if isinstance(m, Ge)), None)
        settings["max"] = next((m.le for m in field.metadata if isinstance(m, Le)), None)
    else:
        raise TypeError(f"no flag for {name}: {annotation}; give it to model_parameters(instead=...)")
    option = typer.Option(flag, metavar=metavar, help=help_text, **settings)
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=Annotated[kind, option])


def _members(annotation: Any) -> list[Any]:
    """The types a field takes, None aside."""
    if get_origin(annotation) in (Union, types.UnionType):
        return [a for a in get_args(annotation) if a is not type(None)]
    return [annotation]


__all__ = ["given", "model_parameters"]
