"""Recording an answer: from an ask to its graph in the store (:mod:`provgraph.answer.record`).

:func:`compose` runs an ask and keeps what the record needs; :func:`write` links it into its
session, validates its graph with the answer shapes (``shapes/answer.ttl``) and writes the graph and
its log entry in one transaction. The two halves are apart so that a server's query worker can
compose while the one process that writes records.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import TYPE_CHECKING

from provgraph.answer import record
from provgraph.answer.base import Generator
from provgraph.answer.context import Shown, parameters, shown
from provgraph.answer.models import AnswerConfidence, AskFilters, Detail, DraftAnswer, EvidencePack, GroundedAnswer
from provgraph.answer.pipeline import Steps, respond
from provgraph.answer.policy import Decision, Policy, redacted
from provgraph.errors import ProvGraphError, StoreLockedError
from provgraph.resources import shapes_dir
from provgraph.store.base import Backend
from provgraph.vocab import sha256_hex

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
    policy: Policy | None = None,
    publishers: Mapping[str, str] | None = None,
) -> record.Composed:
    """Answer from ``pack`` under ``policy`` and keep what the answer's record needs. The rules
    run on the pack before the generator sees it (:mod:`provgraph.answer.policy`): a denied
    segment blocks the answer, a redacted one is shown as ``[REDACTED: <rule>]``, a flagged one
    marks the answer for audit. ``publishers``: of the pack's documents, for rules on them."""
    record.check_session(session)
    now = datetime.now(UTC)
    decided = policy.decide(pack.items, now=now, publishers=publishers) if policy else []
    decisions = sorted(decided, key=lambda d: (d.evidence, d.rule))
    deny = next((d for d in decisions if d.action == "deny"), None)
    redact = {d.evidence: d.rule for d in decisions if d.action == "redact"}
    withheld = {i.id: sha256_hex(i.model_dump_json()) for i in pack.items if i.id in redact}
    flags = [f"{d.rule}: {d.justification} (evidence {d.evidence})" for d in decisions if d.action == "flag"]
    if deny is not None:
        steps = _blocked(pack, deny, now)
        view = Shown(items=[(item, item.text) for item in pack.items])
        parameters_of: dict[str, object] = {}
    else:
        items = [redacted(i, redact[i.id]) if i.id in redact else i for i in pack.items]
        shown_pack = pack.model_copy(update={"items": items})
        steps = respond(shown_pack, generator=generator, detail=detail)
        assert steps.drafted_by is not None
        view = shown(steps.drafted_by, shown_pack)
        parameters_of = dict(parameters(steps.drafted_by))
    assert steps.started and steps.generated and steps.verified
    return record.Composed(
        question=pack.question,
        filters=filters or AskFilters(),
        session=session,
        supersedes=supersedes,
        derived_from=list(derived_from),
        shown=view,
        policy_version=policy.iri if policy else None,
        policy_hash=policy.hash if policy else None,
        decisions=decisions,
        redactions=withheld,
        generator=steps.answer.generator,
        generator_parameters=parameters_of,
        generation_started=steps.started,
        generation_ended=steps.generated,
        draft=steps.draft,
        verification_ended=steps.verified,
        answer=steps.answer.model_copy(update={"session": session, "flags": flags}),
    )


def _blocked(pack: EvidencePack, deny: Decision, now: datetime) -> Steps:
    """The abstention of an answer a rule denied: no generator is asked."""
    reason = f"The answer is withheld by policy rule <{deny.rule}>: {deny.justification}"
    draft = DraftAnswer(answer_summary=reason, claims=[])
    answer = GroundedAnswer(
        question=pack.question,
        answer_summary=reason,
        claims=[],
        references=[],
        citations=[],
        confidence=AnswerConfidence.INSUFFICIENT,
        limitations=[reason],
        sources_used=[],
        sources_retrieved=len(pack.retrieved_documents),
        generator="policy",
    )
    return Steps(draft, answer, {}, started=now, generated=now, verified=now)


def write(backend: Backend, composed: record.Composed) -> GroundedAnswer:
    """Record ``composed`` in the store; the answer, with its id."""
    with _WRITING:
        try:
            backend.begin_write()
        except StoreLockedError as exc:
            raise StoreLockedError(
                f"{exc}. The answer was not recorded: ask with record=False (--no-record) to answer without a record",
                holder=exc.holder,
            ) from None
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
