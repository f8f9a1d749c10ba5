"""Revoked statements and evidence items: what evidence lookups, retrieval and conflict detection
leave out while their source stays current.

A revoked source graph leaves the catalog's current view and needs nothing here. A single
statement or context segment stays where it is (nothing is deleted); its tombstone in
``pgid:revocations`` (:mod:`provgraph.answer.invalidation`) names it with ``pg:revokedStatement``
or, for a segment's evidence item, ``pg:revokedEvidence``. Both sets are read whole, once per
store state (:func:`provgraph.store.derived.memo`; a revocation raises the store's generation):
their size grows with the revocations made, never with the number of sources.
"""

from __future__ import annotations

from provgraph.store import derived
from provgraph.store.base import Backend

STATEMENTS = "SELECT ?st WHERE { GRAPH pgid:revocations { ?t pg:revokedStatement ?st } }"
EVIDENCE = "SELECT ?id WHERE { GRAPH pgid:revocations { ?t pg:revokedEvidence ?id } }"


def statements(backend: Backend) -> frozenset[str]:
    """IRIs of the revoked statements."""
    return derived.memo(
        backend, "revoked-statements", lambda: frozenset(r.value("st") for r in backend.select(STATEMENTS))
    )


def evidence(backend: Backend) -> frozenset[str]:
    """Ids of the revoked evidence items (:func:`provgraph.answer.models.evidence_id`)."""
    return derived.memo(backend, "revoked-evidence", lambda: frozenset(r.value("id") for r in backend.select(EVIDENCE)))


__all__ = ["evidence", "statements"]
