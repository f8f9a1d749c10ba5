"""Where the bundled ontology and shapes are: inside the installed package (a wheel carries them
as ``provgraph/_data``) or, in a source checkout, at the repository root."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _find(name: str) -> Path:
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"provgraph's {name}/ directory is missing from the installation")


def shapes_dir() -> Path:
    return _find("shapes")


def ontology_file() -> Path:
    return _find("ontologies") / "provgraph.ttl"


def data_dir() -> Path:
    return _find("data")


def builtin_shape_files() -> list[Path]:
    return sorted(shapes_dir().glob("*.ttl"))
