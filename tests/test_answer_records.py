"""Answers as provenance records (issue 15): every answer is recorded in its own graph with the
context the generator was shown, hash-linked; sessions chain answers; ``audit`` finds a record
changed behind the store's back; answer graphs are written by the core alone."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from helpers import ROOT, live_server, run_cli
from llm_server import FakeLLMServer, answer
from provgraph import (
    AnswerSummary,
    AuditReport,
    DraftAnswer,
    DraftClaim,
    GroundedAnswer,
    IngestOptions,
    InputError,
    NotFoundError,
    ProvGraph,
    ProvGraphError,
    RecordedAnswer,
    SegmentType,
    TrustTier,
    WriteRefusedError,
)
from provgraph.answer.openai_gen import SYSTEM_PROMPT, OpenAIGenerator, OpenAISettings
from provgraph.answer.record import answer_iri, record_hash
from provgraph.http import ServerSettings
from provgraph.store.terms import NamedNode
from provgraph.vocab import ANSWERS_GRAPH, ID_NS, PG

EXAMPLES = ROOT / "data" / "examples"
QUESTION = "What does aspirin reduce?"
HEX64 = re.compile(r"^[0-9a-f]{64}$")
TOKEN = "s3cret-token"


def _store(pg: ProvGraph) -> ProvGraph:
    pg.ingest(EXAMPLES / "aspirin-note.md", IngestOptions(title="Aspirin note", url="https://example.org/note"))
    pg.ingest(
        EXAMPLES / "aspirin.ttl",
        IngestOptions(title="Aspirin facts", url="https://example.org/aspirin", issued="2024-03-01", tier=2),
    )
    return pg


@pytest.fixture
def pg():
    with ProvGraph.memory() as graph:
        yield _store(graph)


def _model(server: FakeLLMServer, **settings: Any) -> OpenAIGenerator:
    """The OpenAI generator against the loopback server."""
    return OpenAIGenerator(
        OpenAISettings(model="test-model", base_url=server.url + "/v1", max_retries=0, timeout=60, **settings)
    )


def _queue_a_fact(pg: ProvGraph, server: FakeLLMServer) -> None:
    """The server's next answer: one claim, a fact retrieved for QUESTION, citing it."""
    fact = next(i for i in pg.retrieve(QUESTION).items if i.kind.value == "statement")
    server.queue(
        answer(DraftAnswer(answer_summary="x", claims=[DraftClaim(text=fact.text, supporting_citations=[fact.id])]))
    )


def _quads(pg: ProvGraph, answer_id: str) -> list[Any]:
    return list(pg.backend.quads(graph=answer_iri(answer_id)))


# ---------------------------------------------------------------------- recording


def test_an_answer_is_recorded_with_the_context_it_was_built_from(pg):
    answered = pg.ask(QUESTION)
    assert answered.id is not None and HEX64.match(answered.id)
    recorded = pg.answer(answered.id)
    assert isinstance(recorded, RecordedAnswer)
    # the answer itself, as the asker got it
    assert recorded.answer == answered
    assert recorded.question == QUESTION and recorded.generator == "extractive"
    assert recorded.generation_started <= recorded.generation_ended <= recorded.verification_ended
    # the context: every evidence item of the pack, in order, as the extractive generator reads it
    pack = pg.retrieve(QUESTION)
    assert [s.evidence.id for s in recorded.segments if s.evidence] == [i.id for i in pack.items]
    assert [s.content for s in recorded.segments] == [i.text for i in pack.items]
    kinds = {s.evidence.kind.value: s.type for s in recorded.segments if s.evidence}
    assert kinds["passage"] is SegmentType.PASSAGE and kinds["statement"] is SegmentType.EVIDENCE
    # trust tiers mapped from the source tier: the facts are tier 2, the note the default tier 3
    tiers = {s.evidence.title: s.tier for s in recorded.segments if s.evidence}
    assert tiers == {"Aspirin facts": TrustTier.VERIFIED, "Aspirin note": TrustTier.USER}
    # each claim derives from the segments of the evidence it cites
    by_evidence = {s.evidence.id: s.id for s in recorded.segments if s.evidence}
    for claim, segments in zip(recorded.answer.claims, recorded.claim_segments, strict=True):
        assert segments == sorted(by_evidence[c] for c in claim.supporting_citations)
    # the draft as the generator wrote it, before the verifier
    assert [c.text for c in recorded.draft.claims][: len(answered.claims)] == [c.text for c in answered.claims]


def test_segment_ids_are_the_sha256_of_content_and_metadata(pg):
    first = pg.answer(pg.ask(QUESTION).id)
    second = pg.answer(pg.ask(QUESTION).id)
    assert first.id != second.id  # two asks, two records
    assert [s.id for s in first.segments] == [s.id for s in second.segments]  # the same context
    assert all(HEX64.match(s.id) for s in first.segments)
    # the id is the hash of the segment's triples, as stored
    segment = first.segments[0]
    node = NamedNode(f"{ID_NS}segment/{segment.id}")
    pairs = [(q.predicate, q.object) for q in pg.backend.quads(subject=node, graph=answer_iri(first.id))]
    assert record_hash("segment", pairs) == segment.id
    assert (PG.content, segment.content) in [(p, o.value) for p, o in pairs]


def test_the_record_is_prov_o(pg):
    answered = pg.ask(QUESTION)
    head = answer_iri(answered.id)
    rows = pg.backend.select(
        f"""SELECT ?segment ?statement ?graph WHERE {{ GRAPH {head} {{
          {head} prov:wasGeneratedBy ?verification .
          ?verification a prov:Activity ; prov:used ?draft . ?draft prov:wasGeneratedBy ?generation .
          ?generation a prov:Activity ; prov:used ?context . ?context a prov:Collection ; pg:includes ?segment .
          ?segment a prov:Entity ; prov:wasDerivedFrom ?statement ; pg:sourceGraph ?graph }} }}"""
    )
    graphs = {r.value("graph") for r in rows}
    assert graphs == {g.value for g in pg.current_graphs()}
    # a segment derives from the source's own statement: the source graph holds it
    statement, graph = next((r.value("statement"), r.value("graph")) for r in rows if "/stmt/" in r.value("statement"))
    assert pg.backend.ask(f"ASK {{ GRAPH <{graph}> {{ <{statement}> a pg:Statement }} }}")


def test_no_record_leaves_no_trace(pg):
    pg.retrieve(QUESTION)  # brings the derived views (index, conflict records) up to date first
    before = sorted(str(q) for q in pg.backend.quads())
    answered = pg.ask(QUESTION, record=False)
    assert answered.id is None and answered.claims
    assert sorted(str(q) for q in pg.backend.quads()) == before
    assert pg.answers() == []


def test_sessions_chain_answers_in_order(pg):
    first = pg.ask(QUESTION, session="case-42")
    other = pg.ask("What does aspirin treat?", session="case-7")
    second = pg.ask("What does aspirin treat?", session="case-42")
    assert first.session == second.session == "case-42"
    listed = pg.answers(session="case-42")
    assert [(a.id, a.session_index) for a in listed] == [(first.id, 1), (second.id, 2)]
    assert all(isinstance(a, AnswerSummary) for a in listed)
    recorded = pg.answer(second.id)
    assert (recorded.session, recorded.session_index, recorded.previous) == ("case-42", 2, first.id)
    assert pg.answer(first.id).previous is None
    assert pg.answer(other.id).session_index == 1
    # newest first, every session
    assert [a.id for a in pg.answers()] == [second.id, other.id, first.id]
    assert [a.id for a in pg.answers(limit=1)] == [second.id]


@pytest.mark.parametrize("session", ["", "a b", "x" * 129, "-lead", "semi;colon"])
def test_a_bad_session_id_is_refused_and_nothing_is_written(pg, session):
    before = sum(1 for _ in pg.backend.quads())
    with pytest.raises(InputError, match="invalid session id"):
        pg.ask(QUESTION, session=session)
    assert sum(1 for _ in pg.backend.quads()) == before


def test_an_answer_is_found_by_a_unique_prefix_and_an_unknown_one_is_refused(pg):
    answered = pg.ask(QUESTION)
    assert pg.answer(answered.id[:8]).id == answered.id
    assert pg.answer(answer_iri(answered.id).value).id == answered.id
    with pytest.raises(NotFoundError, match="no answer"):
        pg.answer("0" * 64)
    with pytest.raises(NotFoundError, match="8 to 64 lowercase hex digits"):
        pg.answer("abc")


def test_an_abstention_is_recorded_too(pg):
    abstained = pg.ask("Who composed the Moonlight Sonata?")
    assert abstained.abstained and abstained.id
    assert pg.answer(abstained.id).answer.abstained


def test_removed_claims_are_recorded_with_their_reason(pg):
    class Overclaiming:
        name = "overclaiming"

        def generate(self, pack):
            first = pack.items[0]
            return DraftAnswer(
                answer_summary="Aspirin cures everything.",
                claims=[
                    DraftClaim(text=first.text, supporting_citations=[first.id]),
                    DraftClaim(text="Aspirin cures 90% of cancers.", supporting_citations=[first.id]),
                ],
            )

    answered = pg.ask(QUESTION, generator=Overclaiming())
    recorded = pg.answer(answered.id)
    assert recorded.generator == "overclaiming"
    assert [c.text for c in recorded.draft.claims][1] == "Aspirin cures 90% of cancers."
    rows = pg.backend.select(
        f"SELECT ?code ?text WHERE {{ GRAPH <{answer_iri(answered.id).value}> {{ ?v pg:removedClaim ?r . "
        "?r pg:reasonCode ?code ; pg:claimText ?text } }"
    )
    assert {(r.value("code"), r.value("text")) for r in rows} >= {
        ("unsupported_number", "Aspirin cures 90% of cancers.")
    }


def test_an_openai_answer_records_the_prompt_and_the_model_never_the_key(pg):
    with FakeLLMServer() as server:
        _queue_a_fact(pg, server)
        answered = pg.ask(QUESTION, generator=_model(server, api_key="sk-secret-value"))
        request = server.requests[0]
    recorded = pg.answer(answered.id)
    assert recorded.generator == "openai:test-model"
    instructions = [s for s in recorded.segments if s.type is SegmentType.INSTRUCTION]
    assert [s.name for s in instructions] == ["system prompt", "response format", "evidence header"]
    assert all(s.tier is TrustTier.SYSTEM for s in instructions)
    assert instructions[0].content == SYSTEM_PROMPT == request["messages"][0]["content"]
    assert json.loads(instructions[1].content) == request["response_format"]
    # the evidence segments are the lines the model was shown, in its order
    user = request["messages"][-1]["content"]
    shown = user.split("<evidence>\n", 1)[1].split("\n</evidence>", 1)[0].splitlines()
    assert [s.content for s in recorded.segments if s.type is not SegmentType.INSTRUCTION] == shown
    assert instructions[2].content in user
    assert recorded.generator_parameters["model"] == "test-model"
    assert recorded.generator_parameters["base_url"] == server.url + "/v1"
    everything = "\n".join(str(q) for q in pg.backend.quads())
    assert "sk-secret-value" not in everything


# ---------------------------------------------------------------------- audit


def test_audit_passes_on_untouched_records(pg):
    pg.ask(QUESTION, session="s")
    pg.ask("What does aspirin treat?", session="s")
    report = pg.audit()
    assert isinstance(report, AuditReport)
    assert report.ok and report.answers == 2 and report.records > 10


def test_audit_catches_a_triple_edited_behind_the_stores_back(pg):
    answered = pg.ask(QUESTION)
    graph = answer_iri(answered.id).value
    segment = pg.answer(answered.id).segments[0]
    node = f"{ID_NS}segment/{segment.id}"
    # as someone with the store's files might: straight into the engine, past provgraph's guards
    pg.backend.update(
        f"DELETE {{ GRAPH <{graph}> {{ <{node}> pg:content ?c }} }} "
        f'INSERT {{ GRAPH <{graph}> {{ <{node}> pg:content "Aspirin cures everything." }} }} '
        f"WHERE {{ GRAPH <{graph}> {{ <{node}> pg:content ?c }} }}",
        prefixes={"pg": PG.content.value.rsplit("#", 1)[0] + "#"},
    )
    report = pg.audit()
    assert not report.ok
    assert [(p.answer, p.record) for p in report.problems] == [(answered.id, node)]
    assert "edited" in report.problems[0].problem


def test_audit_catches_a_record_forged_whole(pg):
    # a forger who rewrites a segment and renames it to its new hash breaks the context's link to it
    answered = pg.ask(QUESTION)
    graph = answer_iri(answered.id).value
    segment = pg.answer(answered.id).segments[0]
    node = NamedNode(f"{ID_NS}segment/{segment.id}")
    pairs = [
        (q.predicate, q.object)
        for q in pg.backend.quads(subject=node, graph=answer_iri(answered.id))
        if q.predicate != PG.content
    ]
    from provgraph.store.terms import Literal

    pairs.append((PG.content, Literal("Aspirin cures everything.")))
    forged = NamedNode(f"{ID_NS}segment/{record_hash('segment', pairs)}")
    body = " . ".join(f"{forged} {p} {o}" for p, o in pairs)
    pg.backend.update(
        f"DELETE {{ GRAPH <{graph}> {{ {node} ?p ?o }} }} WHERE {{ GRAPH <{graph}> {{ {node} ?p ?o }} }} ; "
        f"INSERT DATA {{ GRAPH <{graph}> {{ {body} }} }}"
    )
    problems = pg.audit().problems
    assert problems and all(p.answer == answered.id for p in problems)
    assert any("not in the answer graph" in p.problem for p in problems)


def test_audit_catches_a_removed_answer_graph(pg):
    answered = pg.ask(QUESTION)
    pg.backend.update(f"DROP GRAPH <{answer_iri(answered.id).value}>")
    problems = pg.audit().problems
    assert [p.problem for p in problems] == ["in the answer log, but no such graph"]


# ---------------------------------------------------------------------- written by the core alone


def test_sparql_update_to_an_answer_graph_is_refused(pg):
    answered = pg.ask(QUESTION)
    graph = answer_iri(answered.id).value
    with pytest.raises(WriteRefusedError):
        pg.update(f"INSERT DATA {{ GRAPH <{graph}> {{ <urn:a> <urn:b> <urn:c> }} }}")
    with pytest.raises(WriteRefusedError):
        pg.update(f"DROP GRAPH <{graph}>")
    with pytest.raises(WriteRefusedError):
        pg.update(f"INSERT DATA {{ GRAPH <{ANSWERS_GRAPH.value}> {{ <urn:a> <urn:b> <urn:c> }} }}")
    assert pg.audit().ok


def test_http_qa_records_and_answers_are_read_back(pg):
    with live_server(pg, ServerSettings(token=TOKEN)) as base:
        asked = httpx.post(f"{base}/qa", json={"question": QUESTION, "session": "web-1"}, timeout=60)
        assert asked.status_code == 200, asked.text
        body = asked.json()
        assert HEX64.match(body["id"]) and body["session"] == "web-1"
        again = httpx.post(f"{base}/qa", json={"question": QUESTION, "session": "web-1"}, timeout=60).json()
        read = httpx.get(f"{base}/answers/{body['id']}", timeout=60)
        assert read.status_code == 200
        recorded = RecordedAnswer.model_validate(read.json())
        assert recorded.answer.claims == GroundedAnswer.model_validate(body).claims
        assert recorded.segments and recorded.session_index == 1
        listed = httpx.get(f"{base}/answers", params={"session": "web-1"}, timeout=60).json()
        assert [a["id"] for a in listed] == [body["id"], again["id"]]
        unrecorded = httpx.post(f"{base}/qa", json={"question": QUESTION, "record": False}, timeout=60).json()
        assert unrecorded["id"] is None
        assert len(httpx.get(f"{base}/answers", timeout=60).json()) == 2
        missing = httpx.get(f"{base}/answers/{'0' * 64}", timeout=60)
        assert missing.status_code == 404 and "no answer" in missing.text
        bad = httpx.post(f"{base}/qa", json={"question": QUESTION, "session": "a b"}, timeout=60)
        assert bad.status_code in (400, 422) and "session" in bad.text
        # answer graphs are the core's: the Graph Store and SPARQL Update refuse them
        gsp = httpx.put(
            f"{base}/store",
            params={"graph": answer_iri(body["id"]).value},
            content=b"<urn:a> <urn:b> <urn:c> .",
            headers={"content-type": "application/n-triples", "authorization": f"Bearer {TOKEN}"},
            timeout=60,
        )
        update = httpx.post(
            f"{base}/sparql",
            content=f"DROP GRAPH <{answer_iri(body['id']).value}>",
            headers={"content-type": "application/sparql-update", "authorization": f"Bearer {TOKEN}"},
            timeout=60,
        )
    assert gsp.status_code == 409 and update.status_code == 409, (gsp.text, update.text)
    assert pg.audit().ok


# ---------------------------------------------------------------------- command line


def test_cli_records_lists_shows_and_audits(tmp_path):
    store = str(tmp_path / "store")
    for name, title in (("aspirin-note.md", "Aspirin note"), ("aspirin.ttl", "Aspirin facts")):
        done = run_cli("ingest", str(EXAMPLES / name), "--title", title, "--store", store)
        assert done.returncode == 0, done.stderr
    asked = run_cli("ask", QUESTION, "--session", "cli-1", "--store", store)
    assert asked.returncode == 0, asked.stderr
    short = re.search(r"recorded as answer ([0-9a-f]{16}) \(session cli-1\)", asked.stdout)
    assert short, asked.stdout
    as_json = run_cli("ask", QUESTION, "--session", "cli-1", "--json", "--store", store)
    second = json.loads(as_json.stdout)["id"]
    none = run_cli("ask", QUESTION, "--no-record", "--json", "--store", store)
    assert json.loads(none.stdout)["id"] is None
    listed = run_cli("answers", "--session", "cli-1", "--json", "--store", store)
    ids = [a["id"] for a in json.loads(listed.stdout)]
    assert len(ids) == 2 and ids[0].startswith(short.group(1)) and ids[1] == second
    readable = run_cli("answers", "--store", store)
    assert readable.stdout.count("cli-1#") == 2 and QUESTION in readable.stdout
    shown = run_cli("answer", short.group(1), "--store", store)
    assert shown.returncode == 0, shown.stderr
    assert "Context (" in shown.stdout and "passage" in shown.stdout and "session cli-1, answer 1" in shown.stdout
    detail = RecordedAnswer.model_validate_json(run_cli("answer", second, "--json", "--store", store).stdout)
    assert detail.previous == ids[0]
    audited = run_cli("audit", "--store", store)
    assert audited.returncode == 0 and "all records match" in audited.stdout
    unknown = run_cli("answer", "f" * 12, "--store", store)
    assert unknown.returncode != 0 and "no answer" in unknown.stderr and "Traceback" not in unknown.stderr
    # edited behind the store's back: audit exits 1 naming the record
    with ProvGraph.open(store) as pg:
        graph = answer_iri(second).value
        pg.backend.update(
            f"DELETE {{ GRAPH <{graph}> {{ ?a <{PG.question.value}> ?q }} }} "
            f'INSERT {{ GRAPH <{graph}> {{ ?a <{PG.question.value}> "What does aspirin cure?" }} }} '
            f"WHERE {{ GRAPH <{graph}> {{ ?a <{PG.question.value}> ?q }} }}"
        )
    failed = run_cli("audit", "--store", store)
    assert failed.returncode == 1
    assert f"answer {second[:16]}" in failed.stdout and "edited" in failed.stdout


# ---------------------------------------------------------------------- SHACL


def _answer_lines(pg: ProvGraph, answer_id: str) -> list[str]:
    return [f"{q.subject} {q.predicate} {q.object}" for q in pg.backend.quads(graph=answer_iri(answer_id))]


def _shacl_both(lines: list[str]) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """(pySHACL's results, the compiled checks' results) for an answer graph, sorted."""
    from provgraph.answer.recording import answer_checks, answer_shapes
    from provgraph.ingest.validate import validate_lines, validate_ntriples

    def key(issue: Any) -> tuple[str, ...]:
        return (issue.focus_node, issue.path or "", issue.value or "", issue.message, issue.constraint or "")

    expected, _ = validate_ntriples("".join(f"{line} .\n" for line in lines), answer_shapes())
    found, _ = validate_lines(lines, answer_checks())
    return sorted(map(key, expected)), sorted(map(key, found))


def _broken(lines: list[str], predicate: NamedNode, new: str | None) -> list[str]:
    """``lines`` with the first triple of ``predicate`` given the object ``new`` (None: removed)."""
    out, done = [], False
    for line in lines:
        s, p, _o = line.split(" ", 2)
        if not done and p == str(predicate):
            done = True
            if new is not None:
                out.append(f"{s} {p} {new}")
            continue
        out.append(line)
    assert done
    return out


BROKEN = {
    "no-question": (PG.question, None),
    "confidence-word": (PG.answerConfidence, '"sure"'),
    "segment-type": (PG.segmentType, "<urn:other>"),
    "tier-literal": (PG.trustTier, '"system"'),
    "order-not-hex": (PG.segmentOrder, '"abc def"'),
    "claim-order-zero": (PG.claimOrder, '"0"^^<http://www.w3.org/2001/XMLSchema#integer>'),
    "verified-text": (PG.verified, '"yes"'),
    "session-space": (PG.session, '"a b"'),
    "context-missing": (PG.hasContext, "<urn:nowhere>"),
}


def test_answer_shapes_conform_and_compiled_checks_give_pyshacls_results(pg):
    answered = pg.ask(QUESTION, session="s1")
    lines = _answer_lines(pg, answered.id)
    assert _shacl_both(lines) == ([], [])
    for case, (predicate, new) in BROKEN.items():
        expected, found = _shacl_both(_broken(lines, predicate, new))
        assert expected, case
        assert found == expected, case


# ---------------------------------------------------------------------- revocation cascade


def test_revoking_a_source_invalidates_the_answers_built_from_it_and_those_derived(pg):
    from provgraph import Revocation

    facts = pg.ask("What does aspirin treat?")  # built from the facts (and the note)
    # a question a pipeline built from that answer; its own context holds nothing of the facts
    follow = pg.ask("Who composed the Moonlight Sonata?", derived_from=[facts.id[:10]])
    unrelated = pg.ask("Who wrote the Iliad?")
    assert pg.answer(follow.id).derived_from == [facts.id]
    graph = pg.source("https://example.org/aspirin").current_graph
    assert not any(s.evidence and s.evidence.graph == graph for s in pg.answer(follow.id).segments)

    done = pg.revoke("https://example.org/aspirin", reason="the label was withdrawn", by="Dr. Ada")
    assert isinstance(done, Revocation)
    assert (done.reason, done.by, done.revoked) == ("the label was withdrawn", "Dr. Ada", graph)
    assert done.source.status.value == "revoked"
    paths = {i.answer: i.path for i in done.invalidated}
    assert set(paths) == {facts.id, follow.id}
    assert paths[facts.id][0] == graph and paths[facts.id][2] == answer_iri(facts.id).value
    assert paths[facts.id][1].startswith(f"{ID_NS}segment/")
    assert paths[follow.id] == [*paths[facts.id], answer_iri(follow.id).value]

    # marked, never deleted: the answers read back whole, with why they are invalid
    recorded = pg.answer(facts.id)
    assert recorded.invalidated and recorded.answer.claims
    why = recorded.invalidation
    assert why is not None and (why.reason, why.by, why.revoked, why.revocation) == (
        "the label was withdrawn",
        "Dr. Ada",
        graph,
        done.id,
    )
    assert not pg.answer(unrelated.id).invalidated
    listed = pg.answers(invalidated=True)
    assert {a.id for a in listed} == {facts.id, follow.id}
    assert all(a.invalidation_path for a in listed)
    assert {a.id for a in pg.answers(invalidated=False)} == {unrelated.id}
    # the tombstone, in PROV
    assert pg.backend.ask(
        f"ASK {{ GRAPH pgid:revocations {{ <{graph}> prov:wasInvalidatedBy <{done.id}> ; prov:invalidatedAtTime ?t . "
        f'<{done.id}> a pg:Revocation, prov:Activity ; pg:reason "the label was withdrawn" ; '
        'prov:wasAssociatedWith [ rdfs:label "Dr. Ada" ] } }'
    )
    assert pg.audit().ok  # invalidation writes the log, never the answer graphs


def test_a_revocation_over_the_limit_needs_confirmation_and_writes_nothing_without(pg):
    from provgraph import ConfirmationRequiredError

    for _ in range(3):
        pg.ask("What does aspirin treat?")
    before = sorted(str(q) for q in pg.backend.quads())
    with pytest.raises(ConfirmationRequiredError, match="would invalidate 3 recorded answers, more than 2") as caught:
        pg.revoke("https://example.org/aspirin", reason="withdrawn", max_invalidated=2)
    assert caught.value.count == 3
    assert sorted(str(q) for q in pg.backend.quads()) == before
    done = pg.revoke("https://example.org/aspirin", reason="withdrawn", max_invalidated=2, confirm=True)
    assert len(done.invalidated) == 3


def test_a_revocation_needs_a_reason_and_a_known_document(pg):
    with pytest.raises(InputError, match="needs a reason"):
        pg.revoke("https://example.org/aspirin", reason="  ")
    with pytest.raises(NotFoundError, match="no source document"):
        pg.revoke("https://example.org/nothing", reason="x")
    assert pg.source("https://example.org/aspirin").status.value == "current"


def test_an_unknown_answer_cannot_be_derived_from(pg):
    before = sum(1 for _ in pg.backend.quads())
    with pytest.raises(NotFoundError, match="no answer"):
        pg.ask(QUESTION, derived_from=["0123456789abcdef"])
    assert sum(1 for _ in pg.backend.quads()) == before


def test_http_revoke_invalidates_and_lists(pg):
    asked = pg.ask("What does aspirin treat?")
    key = "https%3A%2F%2Fexample.org%2Faspirin"
    with live_server(pg, ServerSettings(token=TOKEN)) as base:
        auth = {"authorization": f"Bearer {TOKEN}"}
        no_token = httpx.post(f"{base}/sources/{key}/revoke", json={"reason": "x"}, timeout=60)
        assert no_token.status_code == 401
        too_many = httpx.post(
            f"{base}/sources/{key}/revoke", json={"reason": "x", "max_invalidated": 0}, headers=auth, timeout=60
        )
        assert too_many.status_code == 409 and "confirm" in too_many.text
        unknown = httpx.post(f"{base}/sources/nothing/revoke", json={"reason": "x"}, headers=auth, timeout=60)
        assert unknown.status_code == 404
        derived = httpx.post(
            f"{base}/qa", json={"question": "Who wrote the Iliad?", "derived_from": [asked.id[:12]]}, timeout=60
        ).json()
        done = httpx.post(
            f"{base}/sources/{key}/revoke", json={"reason": "recalled", "by": "QA desk"}, headers=auth, timeout=60
        )
        assert done.status_code == 200, done.text
        assert [i["answer"] for i in done.json()["invalidated"]] == [asked.id, derived["id"]]
        listed = httpx.get(f"{base}/answers", params={"invalidated": "true"}, timeout=60).json()
        assert {a["id"] for a in listed} == {asked.id, derived["id"]} and all(a["invalidation_path"] for a in listed)
        read = httpx.get(f"{base}/answers/{asked.id}", timeout=60).json()
        assert read["invalidated"] and read["invalidation"]["by"] == "QA desk"


def test_cli_revoke_reports_and_lists_invalidated_answers(tmp_path):
    store = str(tmp_path / "store")
    done = run_cli("ingest", str(EXAMPLES / "aspirin.ttl"), "--url", "https://example.org/aspirin", "--store", store)
    assert done.returncode == 0, done.stderr
    asked = json.loads(run_cli("ask", "What does aspirin treat?", "--json", "--store", store).stdout)
    missing = run_cli("revoke", "https://example.org/aspirin", "--store", store)
    assert missing.returncode == 2 and "--reason" in missing.stderr
    refused = run_cli(
        "revoke", "https://example.org/aspirin", "--reason", "x", "--max-invalidated", "0", "--store", store
    )
    assert refused.returncode == 2 and "--confirm" in refused.stderr and "Traceback" not in refused.stderr
    revoked = run_cli("revoke", "https://example.org/aspirin", "--reason", "recalled", "--by", "QA", "--store", store)
    assert revoked.returncode == 0, revoked.stderr
    assert "1 recorded answer(s) invalidated" in revoked.stdout and asked["id"][:16] in revoked.stdout
    listed = run_cli("answers", "--invalidated", "--store", store)
    assert asked["id"][:16] in listed.stdout and "[invalidated]" in listed.stdout and "via " in listed.stdout
    shown = run_cli("answer", asked["id"], "--store", store)
    assert "invalidated" in shown.stdout and "by QA: recalled" in shown.stdout


# ---------------------------------------------------------------------- revoking a statement or a segment

ASPIRIN, TREATS, DOSE = "http://example.org/aspirin", "http://example.org/treats", "http://example.org/maxDailyDoseMg"


def test_revoking_a_statement_leaves_it_out_and_invalidates_the_answers_built_from_it(pg):
    from provgraph import RevocationTarget

    asked = pg.ask("What does aspirin treat?")
    unrelated = pg.ask("Who wrote the Iliad?")
    [fact] = pg.evidence(ASPIRIN, TREATS)
    statement = fact.statement
    derived = {
        f"{ID_NS}segment/{s.id}"
        for s in pg.answer(asked.id).segments
        if s.evidence is not None and s.evidence.statement == statement
    }
    assert derived  # the answer was shown the statement
    assert statement in {i.statement for i in pg.retrieve("What does aspirin treat?").items}

    done = pg.revoke_statement(statement, reason="mis-extracted", by="Dr. Ada")
    assert (done.target, done.revoked, done.reason, done.by) == (
        RevocationTarget.STATEMENT,
        statement,
        "mis-extracted",
        "Dr. Ada",
    )
    # the statement goes, its source stays current
    assert done.source is not None and done.source.key == "https://example.org/aspirin"
    assert done.source.status.value == "current"
    [invalid] = done.invalidated
    assert invalid.answer == asked.id and invalid.path[0] == statement and invalid.path[1] in derived
    assert invalid.path[2:] == [answer_iri(asked.id).value]
    assert pg.answer(asked.id).invalidated and not pg.answer(unrelated.id).invalidated
    assert pg.answer(asked.id).invalidation.revoked == statement

    # left out of evidence and retrieval from now on; kept, marked, as history
    assert pg.evidence(ASPIRIN, TREATS) == []
    assert [(e.statement, e.status.value) for e in pg.evidence(ASPIRIN, TREATS, include_history=True)] == [
        (statement, "revoked")
    ]
    assert [e.predicate for e in pg.evidence(ASPIRIN, DOSE)] == [DOSE]  # the rest of the source is untouched
    assert statement not in {i.statement for i in pg.retrieve("What does aspirin treat?").items}
    later = pg.ask("What does aspirin treat?")
    assert not any(s.evidence and s.evidence.statement == statement for s in pg.answer(later.id).segments)
    assert not pg.answer(later.id).invalidated
    # nothing deleted: the statement is in its graph, and the tombstone says who, when and why
    assert pg.backend.ask(f"ASK {{ GRAPH ?g {{ <{statement}> a pg:Statement }} }}")
    assert pg.backend.ask(
        f"ASK {{ GRAPH pgid:revocations {{ <{statement}> prov:wasInvalidatedBy <{done.id}> ; "
        f"prov:invalidatedAtTime ?t . <{done.id}> a pg:Revocation ; pg:revokedStatement <{statement}> ; "
        'pg:reason "mis-extracted" ; prov:wasAssociatedWith [ rdfs:label "Dr. Ada" ] } }'
    )
    assert pg.audit().ok


def test_a_revoked_statement_no_longer_makes_a_conflict(pg, tmp_path):
    policy = tmp_path / "policy.ttl"
    policy.write_text(
        f"<{DOSE}> a <http://www.w3.org/2002/07/owl#FunctionalProperty> .\n",
        encoding="utf-8",
    )
    pg.add_ontology(policy)
    other = tmp_path / "label.ttl"
    other.write_text("<http://example.org/aspirin> <http://example.org/maxDailyDoseMg> 3000 .\n", encoding="utf-8")
    pg.ingest(other, IngestOptions(url="https://label.example/aspirin", title="Other label"))
    [conflict] = pg.conflicts(subject=ASPIRIN)
    assert sorted(v.value.split('"')[1] for v in conflict.values) == ["3000", "4000"]
    wrong = next(e for e in pg.evidence(ASPIRIN, DOSE) if e.object.startswith('"3000"'))
    pg.revoke_statement(f"<{wrong.statement}>", reason="a typo in the label")
    assert pg.conflicts(subject=ASPIRIN) == []
    assert [e.object.split('"')[1] for e in pg.evidence(ASPIRIN, DOSE)] == ["4000"]


def test_a_statement_revoked_twice_unknown_or_not_an_iri_is_refused_and_nothing_is_written(pg):
    [fact] = pg.evidence(ASPIRIN, TREATS)
    before = sorted(str(q) for q in pg.backend.quads())
    with pytest.raises(
        NotFoundError, match=re.escape("no statement <https://example.org/nothing> in a current source")
    ):
        pg.revoke_statement("https://example.org/nothing", reason="x")
    with pytest.raises(InputError, match="named by its IRI"):
        pg.revoke_statement("not an iri", reason="x")
    with pytest.raises(InputError, match="needs a reason"):
        pg.revoke_statement(fact.statement, reason=" ")
    assert sorted(str(q) for q in pg.backend.quads()) == before
    done = pg.revoke_statement(fact.statement, reason="x")
    with pytest.raises(InputError, match=f"already revoked \\(by <{re.escape(done.id)}>\\)"):
        pg.revoke_statement(fact.statement, reason="again")
    # a statement of a revoked source is no longer one of a current source
    pg.revoke("https://example.org/aspirin", reason="withdrawn")
    [dose] = pg.evidence(ASPIRIN, DOSE, include_history=True)
    with pytest.raises(NotFoundError, match="in a current source"):
        pg.revoke_statement(dose.statement, reason="x")


def test_revoking_a_segment_invalidates_the_answers_shown_it_and_its_evidence_is_not_retrieved_again(pg):
    from provgraph import RevocationTarget

    asked = pg.ask(QUESTION)
    again = pg.ask(QUESTION, derived_from=[asked.id])
    segment = next(s for s in pg.answer(asked.id).segments if s.evidence is not None)
    assert segment.evidence is not None
    evidence = segment.evidence.id
    assert evidence in {i.id for i in pg.retrieve(QUESTION).items}
    before = sorted(str(q) for q in pg.backend.quads())
    with pytest.raises(NotFoundError, match="no segment"):
        pg.revoke_segment("0123456789abcdef", reason="x")
    with pytest.raises(NotFoundError, match="8 to 64 lowercase hex digits"):
        pg.revoke_segment("abc", reason="x")
    assert sorted(str(q) for q in pg.backend.quads()) == before

    done = pg.revoke_segment(segment.id[:12], reason="the passage was misread", by="QA desk")
    node = f"{ID_NS}segment/{segment.id}"
    assert (done.target, done.revoked, done.evidence, done.source) == (RevocationTarget.SEGMENT, node, evidence, None)
    # every answer shown the same segment, then those derived from them
    paths = {i.answer: i.path for i in done.invalidated}
    assert paths[asked.id] == [node, answer_iri(asked.id).value]
    assert paths[again.id][-1] == answer_iri(again.id).value and set(paths) == {asked.id, again.id}
    assert pg.answer(asked.id).invalidation.reason == "the passage was misread"
    assert evidence not in {i.id for i in pg.retrieve(QUESTION).items}
    later = pg.ask(QUESTION)
    assert evidence not in {s.evidence.id for s in pg.answer(later.id).segments if s.evidence}
    assert pg.backend.ask(
        f'ASK {{ GRAPH pgid:revocations {{ <{done.id}> pg:revoked <{node}> ; pg:revokedEvidence "{evidence}" }} }}'
    )
    with pytest.raises(InputError, match="already revoked"):
        pg.revoke_segment(segment.id, reason="again")
    assert pg.audit().ok


def test_revoking_an_instruction_segment_invalidates_the_answers_given_under_it(pg):
    with FakeLLMServer() as server:
        for _ in range(2):
            server.queue(answer(DraftAnswer(answer_summary="x", claims=[])))
        first = pg.ask(QUESTION, generator=_model(server))
        second = pg.ask("What does aspirin treat?", generator=_model(server))
    offline = pg.ask(QUESTION)
    prompt = next(s for s in pg.answer(first.id).segments if s.name == "system prompt")
    done = pg.revoke_segment(prompt.id, reason="the prompt let the model guess")
    assert done.evidence is None
    assert {i.answer for i in done.invalidated} == {first.id, second.id}
    assert not pg.answer(offline.id).invalidated


def test_revoking_a_statement_and_a_segment_over_http_and_the_command_line(pg, tmp_path):
    asked = pg.ask("What does aspirin treat?")
    [fact] = pg.evidence(ASPIRIN, TREATS)
    segment = next(s for s in pg.answer(asked.id).segments if s.evidence is not None)
    with live_server(pg, ServerSettings(token=TOKEN)) as base:
        auth = {"authorization": f"Bearer {TOKEN}"}
        body = {"statement": fact.statement, "reason": "mis-extracted"}
        assert httpx.post(f"{base}/statements/revoke", json=body, timeout=60).status_code == 401
        unknown = httpx.post(
            f"{base}/statements/revoke", json={**body, "statement": "https://example.org/x"}, headers=auth, timeout=60
        )
        assert unknown.status_code == 404 and "no statement" in unknown.json()["error"]
        done = httpx.post(f"{base}/statements/revoke", json=body, headers=auth, timeout=60)
        assert done.status_code == 200, done.text
        assert done.json()["target"] == "statement" and [i["answer"] for i in done.json()["invalidated"]] == [asked.id]
        twice = httpx.post(f"{base}/statements/revoke", json=body, headers=auth, timeout=60)
        assert twice.status_code == 400 and "already revoked" in twice.json()["error"]
        assert httpx.get(f"{base}/evidence", params={"subject": ASPIRIN, "predicate": TREATS}, timeout=60).json() == []
        missing = httpx.post(f"{base}/segments/0123456789abcdef/revoke", json={"reason": "x"}, headers=auth, timeout=60)
        assert missing.status_code == 404
        revoked = httpx.post(
            f"{base}/segments/{segment.id[:16]}/revoke", json={"reason": "misread"}, headers=auth, timeout=60
        )
        assert revoked.status_code == 200, revoked.text
        assert revoked.json()["evidence"] == segment.evidence.id and revoked.json()["invalidated"] == []

    store = str(tmp_path / "store")
    run_cli("ingest", str(EXAMPLES / "aspirin.ttl"), "--url", "https://example.org/aspirin", "--store", store)
    cli_asked = json.loads(run_cli("ask", "What does aspirin treat?", "--json", "--store", store).stdout)
    both = run_cli("revoke", "https://example.org/aspirin", "--statement", "x", "--reason", "x", "--store", store)
    assert both.returncode == 2 and "give one of DOCUMENT, --statement IRI or --segment ID" in both.stderr
    neither = run_cli("revoke", "--reason", "x", "--store", store)
    assert neither.returncode == 2 and "give one of" in neither.stderr
    shown = json.loads(run_cli("answer", cli_asked["id"], "--json", "--store", store).stdout)
    statement = next(
        s["evidence"]["statement"] for s in shown["segments"] if (s.get("evidence") or {}).get("statement")
    )
    done = run_cli("revoke", "--statement", statement, "--reason", "mis-extracted", "--store", store)
    assert done.returncode == 0, done.stderr
    assert f"revoked statement {statement}" in done.stdout and cli_asked["id"][:16] in done.stdout
    listed = run_cli("answers", "--invalidated", "--store", store)
    assert cli_asked["id"][:16] in listed.stdout
    unknown = run_cli("revoke", "--segment", "0123456789abcdef", "--reason", "x", "--store", store)
    assert unknown.returncode == 2 and "no segment" in unknown.stderr and "Traceback" not in unknown.stderr


# ---------------------------------------------------------------------- replay and what-if

CHANGED_FACTS = """@prefix ex: <http://example.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:aspirin rdfs:label "aspirin" ; ex:treats ex:fever .
ex:fever rdfs:label "fever" .
"""


def test_replay_rebuilds_the_context_from_the_record_after_the_source_changed(pg, tmp_path):
    asked = pg.ask("What does aspirin treat?")
    recorded = pg.answer(asked.id)
    # the source changes: a new version with other facts; then it is revoked altogether
    changed = tmp_path / "aspirin.ttl"
    changed.write_text(CHANGED_FACTS, encoding="utf-8")
    pg.ingest(changed, IngestOptions(title="Aspirin facts", url="https://example.org/aspirin", tier=2))
    today = pg.retrieve("What does aspirin treat?")
    assert {i.id for i in today.items} != {s.evidence.id for s in recorded.segments if s.evidence}
    pg.revoke("https://example.org/aspirin", reason="withdrawn")

    rebuilt = pg.replay(asked.id[:12])
    assert rebuilt.intact and all(s.intact for s in rebuilt.segments)
    assert [s.segment for s in rebuilt.segments] == recorded.segments
    assert rebuilt.pack.items == [s.evidence for s in recorded.segments if s.evidence]
    assert rebuilt.pack.question == "What does aspirin treat?" and rebuilt.messages is None
    assert any("headache" in s.segment.content for s in rebuilt.segments)


def test_replay_marks_a_segment_changed_behind_the_stores_back(pg):
    asked = pg.ask(QUESTION)
    segment = pg.answer(asked.id).segments[0]
    graph, node = answer_iri(asked.id).value, f"{ID_NS}segment/{segment.id}"
    pg.backend.update(
        f"DELETE {{ GRAPH <{graph}> {{ <{node}> <{PG.content.value}> ?c }} }} "
        f'INSERT {{ GRAPH <{graph}> {{ <{node}> <{PG.content.value}> "forged" }} }} '
        f"WHERE {{ GRAPH <{graph}> {{ <{node}> <{PG.content.value}> ?c }} }}"
    )
    rebuilt = pg.replay(asked.id)
    assert not rebuilt.intact
    assert [s.intact for s in rebuilt.segments] == [False] + [True] * (len(rebuilt.segments) - 1)
    assert rebuilt.segments[0].segment.content == "forged"


def test_replay_of_a_model_answer_gives_the_messages_as_sent(pg):
    with FakeLLMServer() as server:
        _queue_a_fact(pg, server)
        asked = pg.ask(QUESTION, generator=_model(server))
        request = server.requests[0]
    rebuilt = pg.replay(asked.id)
    assert rebuilt.messages == request["messages"]
    assert rebuilt.response_format == request["response_format"]


def test_replay_at_a_time_gives_the_session_as_it_stood(pg):
    first = pg.ask("What does aspirin treat?", session="s")
    between = pg.answer(first.id).created
    second = pg.ask(QUESTION, session="s")
    pg.revoke("https://example.org/aspirin", reason="withdrawn")
    then = pg.replay(second.id, at=between)
    assert [(a.id, a.invalidated) for a in then.session] == [(first.id, False)]
    now = pg.replay(second.id, at=datetime.now(UTC))
    assert [a.id for a in now.session] == [first.id, second.id] and now.session[0].invalidated
    assert pg.replay(second.id).session is None


def test_rerun_compares_with_todays_store_and_may_supersede(pg, tmp_path):
    asked = pg.ask("What does aspirin treat?")
    same = pg.rerun(asked.id)
    assert not same.changed and same.rerun is None and same.claims_kept
    changed = tmp_path / "aspirin.ttl"
    changed.write_text(CHANGED_FACTS, encoding="utf-8")
    pg.ingest(changed, IngestOptions(title="Aspirin facts", url="https://example.org/aspirin", tier=2))
    what_if = pg.rerun(asked.id, record=True)
    assert what_if.changed
    assert any("headache" in c for c in what_if.claims_removed)
    assert any("fever" in c for c in what_if.claims_added)
    assert what_if.rerun is not None and pg.answer(what_if.rerun).supersedes == asked.id
    assert pg.audit().ok


def test_replay_over_http_and_the_command_line(pg, tmp_path):
    asked = pg.ask(QUESTION, session="s")
    with live_server(pg) as base:
        got = httpx.get(f"{base}/answers/{asked.id}/context", timeout=60)
        assert got.status_code == 200
        assert [s["segment"]["id"] for s in got.json()["segments"]] == [s.id for s in pg.answer(asked.id).segments]
        at = httpx.get(
            f"{base}/answers/{asked.id}/context", params={"at": datetime.now(UTC).isoformat()}, timeout=60
        ).json()
        assert [a["id"] for a in at["session"]] == [asked.id]
        assert httpx.get(f"{base}/answers/{'a' * 64}/context", timeout=60).status_code == 404


def test_cli_replay_and_rerun(tmp_path):
    store = str(tmp_path / "store")
    run_cli("ingest", str(EXAMPLES / "aspirin.ttl"), "--url", "https://example.org/aspirin", "--store", store)
    asked = json.loads(run_cli("ask", "What does aspirin treat?", "--json", "--store", store).stdout)
    shown = run_cli("replay", asked["id"][:10], "--store", store)
    assert shown.returncode == 0, shown.stderr
    assert "every segment matches its hash" in shown.stdout and "aspirin treats headache" in shown.stdout
    assert "sha-256 " in shown.stdout
    as_json = json.loads(run_cli("replay", asked["id"], "--json", "--store", store).stdout)
    assert as_json["intact"] is True
    changed = tmp_path / "aspirin.ttl"
    changed.write_text(CHANGED_FACTS, encoding="utf-8")
    run_cli("ingest", str(changed), "--url", "https://example.org/aspirin", "--store", store)
    rerun = run_cli("replay", asked["id"], "--rerun", "--store", store)
    assert rerun.returncode == 0, rerun.stderr
    assert "claims gone:" in rerun.stdout and "claims new:" in rerun.stdout and "fever" in rerun.stdout
    assert json.loads(run_cli("answers", "--json", "--store", store).stdout)[0]["id"] == asked["id"]  # not recorded
    unknown = run_cli("replay", "0" * 64, "--store", store)
    assert unknown.returncode == 2 and "no answer" in unknown.stderr


# ---------------------------------------------------------------------- context policy

POLICY_HEAD = """@prefix pg: <https://w3id.org/provgraph/ns#> .
@prefix ex: <http://example.org/> .
"""
DENY_DOSES = (
    POLICY_HEAD
    + """
<urn:rule:no-doses> a pg:PolicyRule ;
    pg:policyAction pg:Deny ;
    pg:justification "Doses are answered by a pharmacist, not from the store." ;
    pg:whenPredicate ex:maxDailyDoseMg .
"""
)
REDACT_NOTE = (
    POLICY_HEAD
    + """
<urn:rule:hide-note> a pg:PolicyRule ;
    pg:policyAction pg:Redact ;
    pg:justification "The note is under review." ;
    pg:whenDocumentKey "https://example.org/note" .
"""
)
FLAG_USER = (
    POLICY_HEAD
    + """
<urn:rule:review-user> a pg:PolicyRule ;
    pg:policyAction pg:Flag ;
    pg:justification "Tier 3 sources are reviewed." ;
    pg:whenTrustTier pg:UserTrust ;
    pg:whenSegmentType pg:PassageSegment .
"""
)


def _policy_file(tmp_path, text: str, name: str = "rules.ttl"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_deny_rule_blocks_the_answer_and_the_record_says_which(pg, tmp_path):
    added = pg.add_policy(_policy_file(tmp_path, DENY_DOSES))
    assert added.version == 1 and [r.iri for r in added.rules] == ["urn:rule:no-doses"]
    blocked = pg.ask("What is the maximum daily dose of aspirin?")
    assert blocked.abstained and not blocked.claims and blocked.generator == "policy"
    assert "urn:rule:no-doses" in blocked.answer_summary and "pharmacist" in blocked.answer_summary
    recorded = pg.answer(blocked.id)
    assert [(d.rule, d.action) for d in recorded.decisions] == [("urn:rule:no-doses", "deny")]
    assert recorded.policy_version == added.iri
    denied = next(s for s in recorded.segments if s.evidence and s.evidence.id == recorded.decisions[0].evidence)
    assert denied.evidence.predicate == "http://example.org/maxDailyDoseMg"
    assert pg.audit().ok


def test_a_redact_rule_withholds_the_content_and_keeps_its_hash_and_provenance(pg, tmp_path):
    pack = pg.retrieve(QUESTION)
    originals = {i.id: i for i in pack.items if i.document_key == "https://example.org/note"}
    assert originals
    pg.add_policy(_policy_file(tmp_path, REDACT_NOTE))
    asked = pg.ask(QUESTION)
    recorded = pg.answer(asked.id)
    hidden = [s for s in recorded.segments if s.evidence and s.evidence.id in originals]
    assert hidden and all(s.content == "[REDACTED: urn:rule:hide-note]" for s in hidden)
    for s in hidden:
        assert s.evidence.text == "[REDACTED: urn:rule:hide-note]" and s.evidence.passage_text is None
        assert s.evidence.graph == originals[s.evidence.id].graph  # where it came from stays
    stored = "\n".join(str(q.object) for q in pg.backend.quads(graph=answer_iri(asked.id)))
    assert "reduces fever" not in stored  # the withheld text is nowhere in the record
    node = NamedNode(f"{ID_NS}segment/{hidden[0].id}")
    (withheld,) = [q.object.value for q in pg.backend.quads(subject=node, predicate=PG.redactedContentHash)]
    from provgraph.vocab import sha256_hex

    assert withheld == sha256_hex(originals[hidden[0].evidence.id].model_dump_json())
    assert {d.action for d in recorded.decisions} == {"redact"}
    assert not any(c in originals for claim in asked.claims for c in claim.supporting_citations)


def test_a_flag_rule_keeps_the_segment_and_marks_the_answer(pg, tmp_path):
    pg.add_policy(_policy_file(tmp_path, FLAG_USER))
    asked = pg.ask(QUESTION)
    assert asked.flags and all(f.startswith("urn:rule:review-user: Tier 3 sources are reviewed.") for f in asked.flags)
    assert not asked.abstained
    assert {d.action for d in pg.answer(asked.id).decisions} == {"flag"}
    assert pg.backend.ask(f"ASK {{ GRAPH pgid:answers {{ <{answer_iri(asked.id).value}> pg:flagged true }} }}")


def test_the_highest_priority_rule_decides_and_versions_replace_rules_by_iri(pg, tmp_path):
    pg.add_policy(_policy_file(tmp_path, DENY_DOSES))
    permit = (
        POLICY_HEAD
        + """
<urn:rule:pharmacist> a pg:PolicyRule ; pg:policyAction pg:Permit ; pg:priority 10 ;
    pg:justification "The facts of tier 1-2 sources may be shown." ; pg:whenTrustTier pg:VerifiedTrust .
"""
    )
    second = pg.add_policy(_policy_file(tmp_path, permit, "permit.ttl"))
    assert second.version == 2 and {r.iri for r in second.rules} == {"urn:rule:no-doses", "urn:rule:pharmacist"}
    assert not pg.ask("What is the maximum daily dose of aspirin?").abstained  # the facts are tier 2
    # the same rule IRI again replaces it
    weaker = DENY_DOSES.replace("pg:Deny", "pg:Flag")
    third = pg.add_policy(_policy_file(tmp_path, weaker, "weaker.ttl"))
    assert {r.iri: r.action for r in third.rules}["urn:rule:no-doses"] == "flag"
    assert pg.backend.ask(
        f"ASK {{ GRAPH pgid:policy {{ <{third.iri}> prov:wasRevisionOf <{second.iri}> ; pg:version 3 }} }}"
    )


@pytest.mark.parametrize(
    ("text", "error", "where"),
    [
        (
            POLICY_HEAD + "<urn:r> a pg:PolicyRule ;\n pg:policyAction pg:Deny\n pg:justification 'x' .\n",
            "InputError",
            "line 5",
        ),
        (POLICY_HEAD + '<urn:r> a pg:PolicyRule ; pg:justification "x" .\n', "ValidationFailedError", "urn:r"),
        (
            POLICY_HEAD + '<urn:r> a pg:PolicyRule ; pg:policyAction pg:Allow ; pg:justification "x" .\n',
            "ValidationFailedError",
            "urn:r",
        ),
        (
            POLICY_HEAD + '<urn:r> a pg:PolicyRule ; pg:policyAction pg:Deny ; pg:justification "x" ;\n'
            ' pg:whenOlderThanDays "old" .\n',
            "ValidationFailedError",
            "urn:r",
        ),
        (POLICY_HEAD + "ex:a ex:b ex:c .\n", "InputError", "no pg:PolicyRule"),
    ],
    ids=["syntax", "no-action", "unknown-action", "bad-age", "no-rule"],
)
def test_a_bad_policy_file_is_refused_naming_where_and_nothing_is_written(pg, tmp_path, text, error, where):
    path = _policy_file(tmp_path, text)
    with pytest.raises(ProvGraphError) as caught:
        pg.add_policy(path)
    assert type(caught.value).__name__ == error
    message = str(caught.value)
    if error == "ValidationFailedError":
        message += " ".join(i.focus_node for i in caught.value.report.issues)
    assert where in message and (error == "ValidationFailedError" or str(path) in message)
    assert pg.policy().version is None


def test_policy_on_the_command_line_and_a_what_if_under_other_rules(tmp_path):
    store = str(tmp_path / "store")
    run_cli("ingest", str(EXAMPLES / "aspirin.ttl"), "--url", "https://example.org/aspirin", "--store", store)
    asked = json.loads(run_cli("ask", "What is the maximum daily dose of aspirin?", "--json", "--store", store).stdout)
    assert not asked["abstained"]
    rules = _policy_file(tmp_path, DENY_DOSES)
    what_if = run_cli("replay", asked["id"], "--rerun", "--policy", str(rules), "--store", store)
    assert what_if.returncode == 0, what_if.stderr
    assert f"confidence: {asked['confidence']} -> insufficient_evidence" in what_if.stdout
    assert run_cli("policy", "show", "--store", store).stdout.startswith("no policy rules")
    added = run_cli("policy", "add", str(rules), "--store", store)
    assert added.returncode == 0 and "policy version 1: 1 rule(s)" in added.stdout
    shown = run_cli("policy", "show", "--store", store)
    assert "deny    urn:rule:no-doses" in shown.stdout and "pharmacist" in shown.stdout
    bad = _policy_file(tmp_path, POLICY_HEAD + '<urn:r> a pg:PolicyRule ; pg:justification "x" .\n', "bad.ttl")
    refused = run_cli("policy", "add", str(bad), "--store", store)
    assert refused.returncode == 1 and "urn:r" in (refused.stdout + refused.stderr)
    broken = _policy_file(tmp_path, POLICY_HEAD + "<urn:r> a pg:PolicyRule\n<urn:s> a pg:PolicyRule .\n", "broken.ttl")
    unreadable = run_cli("policy", "add", str(broken), "--store", store)
    assert unreadable.returncode == 2 and "broken.ttl" in unreadable.stderr and "line" in unreadable.stderr
    blocked = json.loads(
        run_cli("ask", "What is the maximum daily dose of aspirin?", "--json", "--store", store).stdout
    )
    assert blocked["abstained"] and "urn:rule:no-doses" in blocked["answer_summary"]


def test_a_rule_on_the_publisher_reads_the_sources_own_description(tmp_path):
    with ProvGraph.memory() as pg:
        pg.ingest(
            EXAMPLES / "aspirin.ttl",
            IngestOptions(url="https://example.org/aspirin", publisher="Acme Pharma", title="Aspirin facts"),
        )
        pg.ingest(EXAMPLES / "aspirin-note.md", IngestOptions(url="https://example.org/note", title="Aspirin note"))
        rule = (
            POLICY_HEAD
            + """
<urn:rule:acme> a pg:PolicyRule ; pg:policyAction pg:Flag ; pg:justification "Industry source." ;
    pg:whenPublisher "Acme Pharma" .
"""
        )
        pg.add_policy(_policy_file(tmp_path, rule))
        asked = pg.ask(QUESTION)
        decisions = pg.answer(asked.id).decisions
        flagged = {i.id for i in pg.retrieve(QUESTION).items if i.title == "Aspirin facts"}
        assert decisions and {d.evidence for d in decisions} == flagged
        assert asked.flags


def test_cli_revoke_of_an_unknown_document_writes_nothing(tmp_path):
    store = str(tmp_path / "store")
    run_cli("ingest", str(EXAMPLES / "aspirin.ttl"), "--url", "https://example.org/aspirin", "--store", store)
    unknown = run_cli("revoke", "https://example.org/nothing", "--reason", "x", "--store", store)
    assert unknown.returncode == 2 and "no source document" in unknown.stderr and "Traceback" not in unknown.stderr
    listed = json.loads(run_cli("sources", "--json", "--store", store).stdout)
    assert [s["status"] for s in listed] == ["current"]
