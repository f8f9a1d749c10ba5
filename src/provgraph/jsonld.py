"""JSON-LD that people and tools can read: Oxigraph writes expanded JSON-LD, every IRI whole
and no ``@context``. :class:`ContextWriter` wraps that output as it streams by into
``{"@context": {prefixes}, "@graph": [...]}`` and writes the IRIs of the prefixes' namespaces
as compact IRIs (``"prov:wasDerivedFrom"``) where JSON-LD expands them again: property keys,
``@id`` and ``@type`` values. The data stays the same RDF: a JSON-LD processor expands each
compact IRI with the context, and an IRI that is not compacted is still a valid absolute IRI.

The rewrite works on the bytes, not on parsed JSON, so that an export of any size streams. It
is safe there because Oxigraph's output is minimal JSON: a ``"`` inside a string is always
escaped, so an unescaped ``,"`` or ``"@id":"`` is JSON structure, never text of a literal.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping
from typing import IO

#: A property key (after ``{`` or ``,``) or an ``@id``/``@type`` value: a whole IRI, unescaped.
_IRI_PLACES = re.compile(rb'(?<=[{,])"([^"\\@_][^"\\]*)":(?=\[)|"(@id|@type)":"([^"\\_][^"\\]*)"')


class ContextWriter(io.RawIOBase):
    """Writes Oxigraph's expanded JSON-LD to ``output`` under a context of ``prefixes`` (see the
    module docstring). Call :meth:`finish` after the last write."""

    def __init__(self, output: IO[bytes], prefixes: Mapping[str, str]) -> None:
        super().__init__()
        self._output = output
        # longest namespace first: an IRI is compacted with the most specific prefix
        self._prefixes = sorted(
            ((ns.encode(), name.encode()) for name, ns in prefixes.items()), key=lambda p: -len(p[0])
        )
        self._pending = b""
        context = json.dumps({"@context": dict(prefixes)}, separators=(",", ":"))
        output.write(context[:-1].encode() + b',"@graph":')

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        self._pending += bytes(data)
        # a match never spans an unescaped ``,"``: hold back from the last one
        cut = self._pending.rfind(b',"')
        if cut > 0:
            self._output.write(self._compact(self._pending[:cut]))
            self._pending = self._pending[cut:]
        return len(data)

    def finish(self) -> None:
        """Write what is held back and close the wrapping object."""
        self._output.write(self._compact(self._pending) + b"}")
        self._pending = b""

    def _compact(self, chunk: bytes) -> bytes:
        return _IRI_PLACES.sub(self._replace, chunk)

    def _replace(self, match: re.Match[bytes]) -> bytes:
        if match.group(1) is not None:
            return b'"' + self._short(match.group(1)) + b'":'
        return b'"' + match.group(2) + b'":"' + self._short(match.group(3)) + b'"'

    def _short(self, iri: bytes) -> bytes:
        for namespace, name in self._prefixes:
            # "//" would make the compact IRI read as a scheme-relative IRI; an empty local name, as
            # the prefix itself (also fine, but kept whole for clarity)
            if iri.startswith(namespace) and len(iri) > len(namespace) and not iri[len(namespace) :].startswith(b"//"):
                return name + b":" + iri[len(namespace) :]
        return iri


__all__ = ["ContextWriter"]
