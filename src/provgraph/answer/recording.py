"""Recording an answer: from an ask to its graph in the store (:mod:`provgraph.answer.record`).

:func:`compose` runs an ask and keeps what the record needs; :func:`write` links it into its
session, validates its graph with the answer shapes (``shapes/answer.ttl``) and writes the graph and
its log entry in one transaction. The two halves are apart so that a server's query worker can
compose while the one process that writes records.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import TYPE_CHECKING

from provgraph.answer import record
from provgraph.answer.base import Generator
from provgraph.answer.context import parameters, shown
from provgraph.answer.models import AskFilters, Detail, EvidencePack, GroundedAnswer
from provgraph.answer.pipeline import respond
from provgraph.errors import ProvGraphError
from provgraph.resources import shapes_dir
from provgraph.store.base import Backend

if TYPE_CHECKING:  # rdflib and the checks load when the first answer is recorded, not with the API
    import rdflib

    from provgraph.ingest.shacl import CompiledShapes

ANSWER_SHAPES = ("prefixes.ttl", "answer.ttl")

#: One writer of answer records at a time in a process: a session's next place is read, then
#: written (the store's lock keeps other processes out).
_WRITING = threading.Lock()


@lru_cache(maxsize=1)
def answer_shapes() -> rdflib.Graph:
    from provgraph.ingest.validate import load_shapes

    return load_shapes([shapes_dir() / name for name in ANSWER_SHAPES])


@lru_cache(maxsize=1)
def answer_checks() -> CompiledShapes:
    from provgraph.ingest.shacl import compile_shapes

    checks = compile_shapes(answer_shapes())
    if checks is None:  # a test keeps the shapes within what compiles
        raise ProvGraphError("shapes/answer.ttl does not compile to checks")
    return checks


def compose(
    pack: EvidencePack,
    *,
    generator: Generator | None,
    detail: Detail,
    filters: AskFilters | None,
    session: str | None,
    supersedes: str | None = None,
    derived_from: Sequence[str] = (),
) -> record.Composed:
    """Answer from ``pack`` and keep what the answer's record needs."""
    record.check_session(session)
    steps = respond(pack, generator=generator, detail=detail)
    assert steps.drafted_by is not None and steps.started and steps.generated and steps.verified
    return record.Composed(
        question=pack.question,
        filters=filters or AskFilters(),
        session=session,
        supersedes=supersedes,
        derived_from=list(derived_from),
        shown=shown(steps.drafted_by, pack),
        generator=steps.answer.generator,
        generator_parameters=dict(parameters(steps.drafted_by)),
        generation_started=steps.started,
        generation_ended=steps.generated,
        draft=steps.draft,
        verification_ended=steps.verified,
        answer=steps.answer.model_copy(update={"session": session}),
    )


def write(backend: Backend, composed: record.Composed) -> GroundedAnswer:
    """Record ``composed`` in the store; the answer, with its id."""
    with _WRITING:
        backend.begin_write()
        derived = [record.resolve_id(backend, a) for a in composed.derived_from]
        if derived != composed.derived_from:
            composed = composed.model_copy(update={"derived_from": derived})
        previous: str | None = None
        index: int | None = None
        if composed.session is not None:
            last = record.last_in_session(backend, composed.session)
            previous, index = (last[0], last[1] + 1) if last else (None, 1)
        created = datetime.now(UTC)
        iri, records, _segments = record.build(composed, session_index=index, previous=previous, created=created)
        lines = record.lines(records)
        from provgraph.ingest.validate import validate_lines

        issues, count = validate_lines(lines, answer_checks())
        if count:
            first = issues[0]
            raise ProvGraphError(
                f"the answer's record does not conform to shapes/answer.ttl ({count} issue(s)); first: "
                f"{first.focus_node}: {first.message}"
            )
        log = record.log_lines(iri, composed, session_index=index, created=created)
        backend.update(record.insert(iri, lines, log))
    return composed.answer.model_copy(update={"id": iri.value.rsplit("/", 1)[1]})


__all__ = ["ANSWER_SHAPES", "answer_checks", "answer_shapes", "compose", "write"]
