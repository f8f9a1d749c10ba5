"""Nanopublications: a TriG or N-Quads input holding ``np:Nanopublication`` is checked against
the rules of the format before it is ingested, and refused with the reason if it breaks one.

A nanopublication is four named graphs: a head graph that types the nanopublication and links,
with ``np:hasAssertion``, ``np:hasProvenance`` and ``np:hasPublicationInfo``, three more. The
rules checked (those nanopub-java checks, and the nanopub test suite exercises):

- the head has exactly one of each link; the four graphs are distinct, and their IRIs start with
  the nanopublication's IRI;
- the assertion, provenance and publication-info graphs are not empty; the provenance is about
  the assertion and the publication info about the nanopublication (each mentions it);
- the input holds no graph or triple outside its nanopublications;
- a **trusty URI** (``...RA`` + 43 characters) matches the content: SHA-256 over the quads,
  the artefact code replaced by a space, sorted and written out as the Trusty URI specification
  says (https://github.com/trustyuri/trustyuri-spec), base64url;
- a **signature** (``npx:hasSignatureTarget`` in the publication info) verifies: RSA or DSA with
  SHA-256 over the same normalised quads minus the ``npx:hasSignature`` triple, with the public
  key the nanopublication carries (X.509 SubjectPublicKeyInfo, base64).

What is kept (:class:`~provgraph.ingest.records.NanopubSpec`, written by
:meth:`~provgraph.ingest.reify.GraphBuilder.nanopub`): the assertion's triples are the facts; the
head, provenance and publication info are not. Each statement is attributed to the assertion's
authors and derived from its primary sources, and links to a record of the nanopublication: its
creation time and creators, the checked trusty code, the verified signature's key, and its four
graphs as published, lexical forms included, which :mod:`provgraph.nanopub_export` writes out again.

Ill-typed literals are refused by the datatype checks every input gets
(:mod:`provgraph.ingest.datatypes`). The checks say nothing about *who* signed: a valid signature
proves the content is what that key signed, not that the key is trustworthy.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from provgraph.errors import InputError
from provgraph.ingest.records import NanopubSpec
from provgraph.store.terms import BlankNode, DefaultGraph, Literal, NamedNode, Quad

NP = "http://www.nanopub.org/nschema#"
NPX = "http://purl.org/nanopub/x/"
_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
_NANOPUB = NamedNode(NP + "Nanopublication")
_LINKS = {NP + "hasAssertion": "assertion", NP + "hasProvenance": "provenance", NP + "hasPublicationInfo": "pubinfo"}
_ARTEFACT = re.compile(r"(?:^|[^A-Za-z0-9\-_])(RA[A-Za-z0-9\-_]{43})(?:[^A-Za-z0-9\-_].{0,43})?$")
_MARKER = NP.encode("ascii")
_DCT = "http://purl.org/dc/terms/"
_PROV = "http://www.w3.org/ns/prov#"
_PAV = ("http://purl.org/pav/", "http://purl.org/pav#", "http://swan.mindinformatics.org/ontologies/1.2/pav/")
_XSD_DATETIME = "http://www.w3.org/2001/XMLSchema#dateTime"
# What a nanopublication's publication info and provenance say that provgraph records (the rest
# stays in the nanopublication as published): who made it and when, who the assertion is
# attributed to, and the assertion's primary source.
_CREATED = frozenset({_DCT + "created"})
_CREATORS = frozenset({_DCT + "creator", _PROV + "wasAttributedTo"} | {ns + "createdBy" for ns in _PAV})
_AUTHORS = frozenset({_PROV + "wasAttributedTo", _DCT + "creator"} | {ns + "authoredBy" for ns in _PAV})
_PRIMARY = frozenset({_PROV + "hadPrimarySource"})


def mentions_nanopublications(path: Path) -> bool:
    """Whether the file names the nanopublication schema anywhere (a cheap scan, so only such
    files are collected and checked)."""
    tail = b""
    with path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            if _MARKER in tail + chunk:
                return True
            tail = chunk[-len(_MARKER) :]
    return False


@dataclass
class _Nanopub:
    uri: NamedNode
    head: NamedNode
    links: dict[str, list[object]] = field(default_factory=dict)


def check_nanopublications(
    quads: list[Quad], *, file: str, locate: Callable[[str], int | None]
) -> dict[NamedNode, NanopubSpec]:
    """Check every nanopublication in ``quads`` (the whole input); return each one's assertion
    graph with what it is (:class:`~provgraph.ingest.records.NanopubSpec`).
    Raises :class:`~provgraph.errors.InputError` naming the nanopublication and the rule broken
    (``locate(iri)`` gives the line to report)."""
    by_graph: dict[object, list[Quad]] = {}
    for quad in quads:
        by_graph.setdefault(quad.graph_name, []).append(quad)
    found: list[_Nanopub] = []
    for quad in quads:
        if quad.predicate == _TYPE and quad.object == _NANOPUB:
            if not isinstance(quad.subject, NamedNode) or not isinstance(quad.graph_name, NamedNode):
                raise _error(file, locate, str(quad.subject), "a nanopublication and its head graph need IRIs")
            found.append(_Nanopub(quad.subject, quad.graph_name))
    if not found:
        return {}
    claimed: set[object] = set()
    specs: dict[NamedNode, NanopubSpec] = {}
    for np in found:
        graphs = _check_structure(np, by_graph, file, locate)
        overlap = claimed.intersection(graphs)
        if overlap:
            raise _fail(np, file, locate, f"the graph {next(iter(overlap))} belongs to another nanopublication too")
        claimed.update(graphs)
        content = [q for g in graphs for q in by_graph.get(g, ())]
        code = _check_trusty(np, content, file, locate)
        signature = _check_signature(np, by_graph.get(graphs[3], []), content, file, locate)
        specs[graphs[1]] = _spec(np, graphs, by_graph, content, code, signature)
    stray = [g for g in by_graph if g not in claimed]
    if stray:
        what = "triples in the default graph" if isinstance(stray[0], DefaultGraph) else f"the graph {stray[0]}"
        raise _error(
            file, locate, found[0].uri.value, f"{what} belongs to no nanopublication: a nanopublication has four graphs"
        )
    return specs


def _spec(
    np: _Nanopub,
    graphs: list[NamedNode],
    by_graph: dict[object, list[Quad]],
    content: list[Quad],
    code: str | None,
    signature: tuple[str, str] | None,
) -> NanopubSpec:
    """What a checked nanopublication says of itself, as provgraph records it."""
    assertion, provenance, pubinfo = graphs[1], graphs[2], graphs[3]

    def objects(graph: NamedNode, subject: NamedNode, predicates: frozenset[str]) -> list[object]:
        return [q.object for q in by_graph[graph] if q.subject == subject and q.predicate.value in predicates]

    def iris(values: list[object]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(str(v) for v in values if isinstance(v, NamedNode)))

    created = next(
        (str(v) for v in objects(pubinfo, np.uri, _CREATED) if isinstance(v, Literal) and _is_datetime(v)), None
    )
    return NanopubSpec(
        uri=np.uri.value,
        content=_nquads(content),
        created=created,
        creators=iris(objects(pubinfo, np.uri, _CREATORS)),
        attributed_to=iris(objects(provenance, assertion, _AUTHORS)),
        primary_sources=iris(objects(provenance, assertion, _PRIMARY)),
        artefact_code=code,
        signature=signature,
    )


def _is_datetime(value: Literal) -> bool:
    if value.datatype.value != _XSD_DATETIME:
        return False
    try:
        datetime.fromisoformat(value.value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _nquads(quads: list[Quad]) -> str:
    """``quads`` as N-Quads in their order, blank nodes numbered in order of appearance (the
    parser gives them random names)."""
    names: dict[str, BlankNode] = {}

    def name(term: Any) -> Any:
        if isinstance(term, BlankNode):
            return names.setdefault(term.value, BlankNode(f"b{len(names)}"))
        return term

    lines = []
    for q in quads:
        if any(isinstance(t, BlankNode) for t in (q.subject, q.object, q.graph_name)):
            q = Quad(name(q.subject), q.predicate, name(q.object), name(q.graph_name))
        lines.append(f"{q} .\n")
    return "".join(lines)


def _check_structure(
    np: _Nanopub, by_graph: dict[object, list[Quad]], file: str, locate: Callable[[str], int | None]
) -> list[NamedNode]:
    links: dict[str, list[object]] = {name: [] for name in _LINKS.values()}
    for quad in by_graph[np.head]:
        if quad.subject == np.uri and quad.predicate.value in _LINKS:
            links[_LINKS[quad.predicate.value]].append(quad.object)
    graphs: list[NamedNode] = [np.head]
    for name, predicate in zip(links, _LINKS, strict=True):
        values = links[name]
        if len(values) != 1 or not isinstance(values[0], NamedNode):
            count = "no" if not values else f"{len(values)}"
            raise _fail(np, file, locate, f"the head graph has {count} np:{predicate[len(NP) :]} (exactly one IRI)")
        graphs.append(values[0])
    if len(set(graphs)) != 4:
        raise _fail(np, file, locate, "its head, assertion, provenance and publication-info graphs must be distinct")
    for graph, role in zip(graphs, ("head", "assertion", "provenance", "publication-info"), strict=True):
        if not graph.value.startswith(np.uri.value):
            raise _fail(
                np, file, locate, f"the {role} graph {graph} does not match the nanopublication's IRI (a prefix of it)"
            )
        if not by_graph.get(graph):
            raise _fail(np, file, locate, f"the {role} graph {graph} is empty")
    assertion, provenance, pubinfo = graphs[1], graphs[2], graphs[3]
    if not _mentions(by_graph[provenance], assertion):
        raise _fail(np, file, locate, f"the provenance graph says nothing about the assertion {assertion}")
    if not _mentions(by_graph[pubinfo], np.uri):
        raise _fail(np, file, locate, "the publication-info graph says nothing about the nanopublication")
    return graphs


def _mentions(quads: Iterable[Quad], node: NamedNode) -> bool:
    return any(q.subject == node or q.object == node for q in quads)


# ---------------------------------------------------------------------- trusty URIs and signatures


def artefact_code(uri: str) -> str | None:
    """The trusty URI artefact code (``RA`` + 43 base64url characters) of ``uri``, if it has one."""
    found = _ARTEFACT.search(uri)
    return found.group(1) if found else None


def _term_key(term: object, code: str) -> tuple[object, ...]:
    if isinstance(term, Literal):
        datatype = None if term.language else term.datatype.value
        return (1, term.value.encode(), datatype is not None, (datatype or "").encode(), (term.language or "").encode())
    return (0, _iri(term, code).encode())


def _iri(term: object, code: str) -> str:
    if isinstance(term, BlankNode):
        raise ValueError("a trusty nanopublication has no blank nodes")
    assert isinstance(term, NamedNode)
    return term.value.replace(code, " ")


def _line(term: object, code: str) -> str:
    if term is None:
        return "\n"
    if isinstance(term, Literal):
        escaped = term.value.replace("\\", "\\\\").replace("\n", "\\n")
        if term.language:
            return f"@{term.language.lower()} {escaped}\n"
        return f"^{term.datatype.value} {escaped}\n"
    return _iri(term, code) + "\n"


def normalised(quads: Iterable[Quad], code: str) -> str:
    """The quads as the Trusty URI module RA hashes them: the artefact code in IRIs replaced by a
    space, sorted by graph, subject, predicate, object (IRIs before literals), each term on a line
    (literals as ``^datatype value`` or ``@lang value``), duplicates once."""
    rows = []
    for q in quads:
        graph = None if isinstance(q.graph_name, DefaultGraph) else q.graph_name
        key = (
            (0, b"") if graph is None else (1, _iri(graph, code).encode()),
            _iri(q.subject, code).encode(),
            _iri(q.predicate, code).encode(),
            _term_key(q.object, code),
        )
        rows.append(
            (key, _line(graph, code) + _line(q.subject, code) + _line(q.predicate, code) + _line(q.object, code))
        )
    rows.sort(key=lambda row: row[0])
    out: list[str] = []
    for _, text in rows:
        if not out or out[-1] != text:
            out.append(text)
    return "".join(out)


def trusty_code(quads: Iterable[Quad], code: str) -> str:
    digest = hashlib.sha256(normalised(quads, code).encode("utf-8")).digest()
    return "RA" + base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def _check_trusty(np: _Nanopub, content: list[Quad], file: str, locate: Callable[[str], int | None]) -> str | None:
    """The trusty URI's artefact code, checked against the content (``None``: no code)."""
    code = artefact_code(np.uri.value)
    if code is None:
        return None
    try:
        actual = trusty_code(content, code)
    except ValueError as exc:
        raise _fail(np, file, locate, f"its trusty URI cannot be checked: {exc}") from None
    if actual != code:
        raise _fail(np, file, locate, f"trusty URI hash mismatch: the content hashes to {actual}, not {code}")
    return code


def _check_signature(
    np: _Nanopub, pubinfo: list[Quad], content: list[Quad], file: str, locate: Callable[[str], int | None]
) -> tuple[str, str] | None:
    """The signature's algorithm and public key, verified (``None``: not signed)."""
    targets = [q.subject for q in pubinfo if q.predicate.value == NPX + "hasSignatureTarget" and q.object == np.uri]
    if not targets:
        return None
    if len(targets) > 1:
        raise _fail(np, file, locate, "it has more than one signature element")
    element = targets[0]
    fields: dict[str, list[object]] = {}
    for q in pubinfo:
        if q.subject == element:
            fields.setdefault(q.predicate.value, []).append(q.object)

    def one_literal(name: str) -> str:
        values = fields.get(NPX + name, [])
        if len(values) != 1 or not isinstance(values[0], Literal):
            raise _fail(np, file, locate, f"its signature element needs exactly one npx:{name} literal")
        return values[0].value

    signature_text, key_text = one_literal("hasSignature"), one_literal("hasPublicKey")
    algorithm = one_literal("hasAlgorithm").upper()
    if algorithm not in ("RSA", "DSA"):
        raise _fail(np, file, locate, f"its signature algorithm {algorithm!r} is not supported (RSA, DSA)")
    signed = [q for q in content if not (q.subject == element and q.predicate.value == NPX + "hasSignature")]
    code = artefact_code(np.uri.value) or "\x00"  # no code: nothing to replace
    try:
        data = normalised(signed, code).encode("utf-8")
    except ValueError as exc:
        raise _fail(np, file, locate, f"its signature cannot be checked: {exc}") from None
    problem = _verify(algorithm, key_text, signature_text, data)
    if problem:
        raise _fail(np, file, locate, problem)
    return algorithm, key_text


def _verify(algorithm: str, key_text: str, signature_text: str, data: bytes) -> str | None:
    """Why the signature does not verify, or ``None``."""
    # Imported here: only signed nanopublications need it.
    from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import dsa, padding, rsa
    from cryptography.hazmat.primitives.serialization import load_der_public_key

    try:
        key = load_der_public_key(base64.b64decode(key_text, validate=False))
        signature = base64.b64decode(signature_text, validate=False)
    except (ValueError, binascii.Error, UnsupportedAlgorithm) as exc:
        return f"its public key or signature cannot be read: {exc}"
    try:
        if algorithm == "RSA" and isinstance(key, rsa.RSAPublicKey):
            key.verify(signature, data, padding.PKCS1v15(), hashes.SHA256())
        elif algorithm == "DSA" and isinstance(key, dsa.DSAPublicKey):
            key.verify(signature, data, hashes.SHA256())
        else:
            return f"its public key is not an {algorithm} key"
    except InvalidSignature:
        return f"the {algorithm} signature does not verify: the content is not what the key signed"
    return None


def _fail(np: _Nanopub, file: str, locate: Callable[[str], int | None], reason: str) -> InputError:
    return _error(file, locate, np.uri.value, reason)


def _error(file: str, locate: Callable[[str], int | None], uri: str, reason: str) -> InputError:
    return InputError(f"invalid nanopublication <{uri}>: {reason}", file=file, line=locate(uri))


__all__ = [
    "NP",
    "NPX",
    "artefact_code",
    "check_nanopublications",
    "mentions_nanopublications",
    "normalised",
    "trusty_code",
]
