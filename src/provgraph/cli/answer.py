"""Commands of the answering path: ``provgraph ask "..."``, the recorded answers (``answers``,
``answer ID``, ``audit``) and ``provgraph eval FILE``.
Registered on the main app by :mod:`provgraph.cli.app`."""

from __future__ import annotations

import contextlib
import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from provgraph.cli import render
from provgraph.cli.common import DEFAULT_STORE, JsonOpt, StoreOpt, choice, err, metavar, open_store, out, print_json
from provgraph.options import Detail, GeneratorKind

if TYPE_CHECKING:
    from rich.console import Console

    from provgraph import AnswerDiff, GroundedAnswer
    from provgraph.answer.evaluate import EvalReport


def ask(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="A question in plain language.")],
    detail: Annotated[
        Detail,
        typer.Option(
            parser=choice(Detail, "--detail"),
            metavar=metavar(Detail),
            help="brief: claims and references; detailed: also the evidence.",
        ),
    ] = Detail.BRIEF,
    generator: Annotated[
        GeneratorKind,
        typer.Option(
            parser=choice(GeneratorKind, "--generator"),
            metavar=metavar(GeneratorKind),
            help="extractive (offline, default) or openai (any OpenAI-compatible server: "
            "$PROVGRAPH_LLM_MODEL, $PROVGRAPH_LLM_BASE_URL, $PROVGRAPH_LLM_API_KEY).",
        ),
    ] = GeneratorKind.EXTRACTIVE,
    model: Annotated[str | None, typer.Option(metavar="NAME", help="Model name for --generator openai.")] = None,
    base_url: Annotated[str | None, typer.Option(metavar="URL", help="Server URL for --generator openai.")] = None,
    document: Annotated[
        list[str] | None,
        typer.Option("--document", metavar="KEY", help="Only this source document (key or IRI); repeatable."),
    ] = None,
    max_tier: Annotated[
        int | None, typer.Option(min=1, max=5, metavar="1-5", help="Only sources of this tier or better.")
    ] = None,
    min_confidence: Annotated[
        float | None, typer.Option(min=0, max=1, metavar="0-1", help="Only facts this confident.")
    ] = None,
    since: Annotated[
        dt.datetime | None,
        typer.Option(formats=["%Y-%m-%d"], metavar="DATE", help="Only sources issued on or after (YYYY-MM-DD)."),
    ] = None,
    session: Annotated[
        str | None, typer.Option(metavar="ID", help="Record the answer as the next of this session (a conversation).")
    ] = None,
    derived_from: Annotated[
        list[str] | None,
        typer.Option("--derived-from", metavar="ID", help="A recorded answer the question was built from; repeatable."),
    ] = None,
    no_record: Annotated[
        bool, typer.Option("--no-record", help="Do not record the answer and its context in the store.")
    ] = False,
    store: StoreOpt = DEFAULT_STORE,
    json: JsonOpt = False,
) -> None:
    """Answer a question from the store.

    Every claim cites evidence the verifier checked, or the answer abstains. The answer is recorded
    with the context it was built from (provgraph answer ID shows it) unless --no-record."""
    from provgraph import AskFilters, ProvGraph

    filters = AskFilters(
        documents=document or None,
        max_tier=max_tier,
        min_confidence=min_confidence,
        issued_after=since.date() if since else None,
    )
    gen = ProvGraph.build_generator(generator, model=model, base_url=base_url)
    with open_store(store, lazy_lock=True, create=False) as graph:
        answer = graph.ask(
            question,
            generator=gen,
            filters=filters,
            detail=detail,
            session=session,
            derived_from=derived_from or (),
            record=not no_record,
        )
    if json:
        print_json(answer)
    else:
        show(out, answer)
        if answer.id:
            where = f" (session {answer.session})" if answer.session else ""
            out.print(f"\nrecorded as answer {answer.id[:16]}{render.escape(where)}", highlight=False)


def show(console: Console, answer: GroundedAnswer) -> None:
    """Claims with numbered citations, then the references with the cited passages."""
    from provgraph import Citation, EvidenceKind

    esc = render.escape
    # citations are numbered by first use in this answer, not by their place in the evidence pack
    numbers: dict[str, int] = {}
    for claim in answer.claims:
        for cid in claim.supporting_citations:
            numbers.setdefault(cid, len(numbers) + 1)
    citations = {c.id: c for c in answer.citations}
    console.print(f"[bold]{esc(answer.question)}[/]")
    console.print(f"confidence: [bold]{answer.confidence.value}[/]; sources: {answer.sources_summary}\n")
    if answer.abstained:
        console.print(esc(answer.answer_summary))
    subtopic: str | None = None
    for claim in answer.claims:
        if claim.subtopic and claim.subtopic != subtopic:
            subtopic = claim.subtopic
            console.print(f"\n[bold]{esc(subtopic)}[/]")
        marks = Citation.marks(numbers[c] for c in claim.supporting_citations)
        note = "" if claim.verified else " (unverified)"
        console.print(f"- {esc(claim.text.rstrip('.'))} {esc(marks)}.{note}")
    shown: set[str] = set()
    if answer.references:
        console.print("\n[bold]References[/]")
        for ref in answer.references:
            where = f" <{ref.url}>" if ref.url else ""
            console.print(f"{ref.number}. {esc(ref.title)}{esc(where)}")
            # in the order of their numbers in the claims; evidence no claim cites ("-") last
            for cid in sorted(ref.evidence, key=lambda c: numbers.get(c, len(numbers) + 1)):
                citation = citations.get(cid)
                # a conflict cites several documents: its text is shown under the first only
                if citation is not None and cid not in shown:
                    shown.add(cid)
                    mark = f"[{numbers[cid]}]" if cid in numbers else "-"
                    text = _clip(citation.text)
                    if citation.kind is EvidenceKind.PASSAGE:
                        # a passage is quoted: marks in it ("[1]") are its document's, not this answer's
                        text = f"\u201c{text}\u201d"
                    console.print(f"   {esc(mark)} {esc(text)}")
    for title, lines in (
        ("Limitations", answer.limitations),
        ("Try instead", answer.query_refinements),
        ("Filters", answer.filter_suggestions),
    ):
        if lines:
            console.print(f"\n[bold]{title}[/]")
            for line in lines:
                console.print(f"- {esc(line)}")
    if answer.removed_claims:
        console.print(f"\n{len(answer.removed_claims)} drafted claim(s) removed by the verifier:")
        for issue in answer.removed_claims:
            console.print(f"- {issue.code.value}: {esc(_clip(issue.claim, 90))}")


def _clip(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def answers(
    session: Annotated[str | None, typer.Option(metavar="ID", help="Only this session's answers, in order.")] = None,
    invalidated: Annotated[
        bool, typer.Option("--invalidated", help="Only answers invalidated by a revocation.")
    ] = False,
    limit: Annotated[int, typer.Option(min=1, metavar="N", help="At most N answers.")] = 100,
    store: StoreOpt = DEFAULT_STORE,
    json: JsonOpt = False,
) -> None:
    """List recorded answers, newest first (a session's in order)."""
    from provgraph import AnswerSummary

    with open_store(store, read_only=True, create=False) as graph:
        found = graph.answers(session=session, invalidated=True if invalidated else None, limit=limit)
    if json:
        print_json(found, list[AnswerSummary])
        return
    if not found:
        out.print("no recorded answers" + (f" in session {render.escape(session)}" if session else ""))
        return
    for a in found:
        place = f" {a.session}#{a.session_index}" if a.session else ""
        mark = " [invalidated]" if a.invalidated else ""
        out.print(
            f"{a.id[:16]}  {a.created:%Y-%m-%d %H:%M:%S}  {a.confidence:<21}{render.escape(place + mark)}  "
            f"{render.escape(_clip(a.question, 80))}",
            highlight=False,
        )
        if a.invalidation_path:
            out.print(f"    via {render.escape(render.path(a.invalidation_path))}", highlight=False)


def answer(
    answer_id: Annotated[str, typer.Argument(metavar="ID", help="An answer id, or a unique prefix of 8+ hex digits.")],
    store: StoreOpt = DEFAULT_STORE,
    json: JsonOpt = False,
) -> None:
    """Show a recorded answer: its claims, and the context it was built from, segment by segment."""
    with open_store(store, read_only=True, create=False) as graph:
        found = graph.answer(answer_id)
    if json:
        print_json(found)
        return
    esc = render.escape
    show(out, found.answer)
    out.print(f"\n[bold]Record[/] {found.id}", highlight=False)
    status = "invalidated" if found.invalidated else "valid"
    out.print(
        f"asked {found.created:%Y-%m-%d %H:%M:%S %Z}; {status}; generator {esc(found.generator)}", highlight=False
    )
    if found.invalidation is not None:
        why = found.invalidation
        out.print(f"invalidated {why.at:%Y-%m-%d %H:%M:%S %Z} by {esc(why.by)}: {esc(why.reason)}", highlight=False)
        out.print(f"  via {esc(render.path(why.path))}", highlight=False)
    if found.derived_from:
        out.print(f"derived from {', '.join(a[:16] for a in found.derived_from)}", highlight=False)
    if found.session:
        previous = f", after {found.previous[:16]}" if found.previous else ""
        out.print(f"session {esc(found.session)}, answer {found.session_index}{previous}", highlight=False)
    out.print(f"\n[bold]Context[/] ({len(found.segments)} segments)")
    for n, segment in enumerate(found.segments, 1):
        source = segment.name or (segment.evidence.title if segment.evidence else None) or ""
        out.print(
            f"{n:>3}. {segment.id[:12]} {segment.type.value:<11} {segment.tier.value:<8} {esc(_clip(source, 30)):<30} "
            f"{esc(_clip(segment.content, 70))}",
            highlight=False,
        )


def replay(
    answer_id: Annotated[str, typer.Argument(metavar="ID", help="An answer id, or a unique prefix of 8+ hex digits.")],
    at: Annotated[
        dt.datetime | None,
        typer.Option(
            metavar="TIME", help="Also show the answer's session as it stood then (ISO 8601, UTC if no zone)."
        ),
    ] = None,
    rerun: Annotated[
        bool, typer.Option("--rerun", help="Ask the question again over today's store and show what changed.")
    ] = False,
    record_rerun: Annotated[
        bool, typer.Option("--record", help="With --rerun: record the re-ask, superseding the answer.")
    ] = False,
    policy: Annotated[
        Path | None, typer.Option(metavar="FILE", help="With --rerun: under these policy rules, not the store's.")
    ] = None,
    store: StoreOpt = DEFAULT_STORE,
    json: JsonOpt = False,
) -> None:
    """Rebuild the context a recorded answer was built from, from its record alone.

    Segment by segment, each with its hash checked; for a model, the messages as sent. With
    --rerun, a what-if: the same question over today's store, and the difference."""
    with open_store(store, read_only=not record_rerun, lazy_lock=record_rerun, create=False) as graph:
        if rerun:
            rules = graph.read_policy(policy) if policy is not None else None
            changes = graph.rerun(answer_id, policy=rules, record=record_rerun)
        else:
            rebuilt = graph.replay(answer_id, at=at)
    if rerun:
        if json:
            print_json(changes)
        else:
            _show_diff(changes)
        return
    if json:
        print_json(rebuilt)
        return
    esc = render.escape
    out.print(f"[bold]{esc(rebuilt.question)}[/]  (answer {rebuilt.answer[:16]}, {esc(rebuilt.generator)})")
    for n, item in enumerate(rebuilt.segments, 1):
        segment = item.segment
        mark = "" if item.intact else "  [CHANGED: no longer matches its hash]"
        label = segment.name or (segment.evidence.title if segment.evidence else "") or ""
        out.print(f"\n{n}. {segment.type.value} ({segment.tier.value}) {esc(label)}{esc(mark)}", highlight=False)
        out.print(f"   sha-256 {segment.id}", highlight=False)
        out.print(f"   {esc(_clip(segment.content, 400))}", highlight=False)
    out.print("\nevery segment matches its hash" if rebuilt.intact else "\nsome segments do not match their hash")
    if rebuilt.session is not None and rebuilt.at is not None:
        out.print(f"\n[bold]Session as of {rebuilt.at:%Y-%m-%d %H:%M:%S %Z}[/]")
        for a in rebuilt.session:
            state = "invalid" if a.invalidated else "valid"
            out.print(f"{a.session_index}. {a.id[:16]} {state:<8} {esc(_clip(a.question, 70))}", highlight=False)


def _show_diff(changes: AnswerDiff) -> None:
    esc = render.escape
    after = f" (recorded as {changes.rerun[:16]})" if changes.rerun else ""
    out.print(f"confidence: {changes.confidence_before} -> {changes.confidence_after}{esc(after)}", highlight=False)
    if not changes.changed:
        out.print("the same claims, citations and confidence as recorded")
    for title, claims, sign in (("gone", changes.claims_removed, "-"), ("new", changes.claims_added, "+")):
        if claims:
            out.print(f"\nclaims {title}:")
            for claim in claims:
                out.print(f"{sign} {esc(_clip(claim, 150))}", highlight=False)
    for change in changes.citations_changed:
        out.print(f"\ncitations of: {esc(_clip(change.claim, 100))}", highlight=False)
        out.print(f"  - {', '.join(change.removed) or 'none'}; + {', '.join(change.added) or 'none'}", highlight=False)


def audit(store: StoreOpt = DEFAULT_STORE, json: JsonOpt = False) -> None:
    """Recompute the hash of every record of every recorded answer.

    Exit code 0 when every record matches, 1 when one was changed behind the store's back."""
    with open_store(store, read_only=True, create=False) as graph:
        report = graph.audit()
    if json:
        print_json(report)
    else:
        out.print(f"{report.answers} answer(s), {report.records} record(s) checked", highlight=False)
        for problem in report.problems:
            out.print(
                f"answer {problem.answer[:16]}: {problem.record}: {render.escape(problem.problem)}", highlight=False
            )
        out.print("all records match their hashes" if report.ok else f"{len(report.problems)} record(s) do not match")
    if not report.ok:
        raise typer.Exit(1)


def evaluate(
    file: Annotated[
        Path, typer.Argument(metavar="FILE", help="HotpotQA questions (JSON, the distractor dev set layout).")
    ],
    limit: Annotated[int | None, typer.Option(min=1, metavar="N", help="Only the first N questions.")] = None,
    record: Annotated[
        bool, typer.Option("--record", help="Store the figures in --store, for the answer dashboard (/ask/metrics).")
    ] = False,
    store: StoreOpt = DEFAULT_STORE,
    json: JsonOpt = False,
) -> None:
    """Evaluate grounded answers on HotpotQA.

    In a fresh in-memory store: citation recall and precision (ALCE), claim coverage, dangling
    citations, sentence-level citations against the gold supporting facts, and abstention with
    the gold paragraphs removed. With --record, the figures are stored in --store too."""
    # The HotpotQA harness is a benchmark of the answering path, not part of the store's API
    # (bench/answers.py runs it too): the one command that calls past ProvGraph.
    from provgraph import ProvGraph
    from provgraph.answer.evaluate import evaluate_hotpot, ingest_hotpot, load_hotpot

    questions = load_hotpot(file, limit=limit)
    with contextlib.ExitStack() as stack:
        # opened first, so that a store that cannot take the figures says so before the long run
        target = stack.enter_context(open_store(store, lazy_lock=True)) if record else None
        with ProvGraph.memory() as graph:
            with err.status("ingesting the paragraphs ...") as status:
                sentences = ingest_hotpot(
                    graph, questions, progress=lambda n, total: status.update(f"ingesting paragraph {n}/{total}")
                )
            with err.status("asking ...") as status:
                with_gold, without = evaluate_hotpot(
                    graph, questions, sentences, progress=lambda n, total: status.update(f"question {n}/{total}")
                )
        if target is not None:
            saved = target.record_evaluation(with_gold, without, dataset=file.name)
            err.print(f"figures stored in {store} as evaluation {saved[:16]}", highlight=False)
    if json:
        out.print(
            '{"with_gold": '
            + with_gold.model_dump_json(exclude={"results"})
            + ', "without_gold": '
            + without.model_dump_json(exclude={"results"})
            + "}",
            markup=False,
        )
        return
    print_report(out, with_gold, without)


def print_report(console: Console, with_gold: EvalReport, without: EvalReport) -> None:
    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{100 * value:.1f}"

    console.print(f"HotpotQA: {with_gold.questions} questions, each with its own paragraphs (distractor setting)")
    console.print(f"  citation recall (ALCE, verifier as judge)     {pct(with_gold.citation_recall):>6}")
    console.print(f"  citation precision (ALCE, verifier as judge)  {pct(with_gold.citation_precision):>6}")
    console.print(f"  sentence recall vs gold supporting facts      {pct(with_gold.sentence_recall):>6}")
    console.print(f"  sentence precision vs gold supporting facts   {pct(with_gold.sentence_precision):>6}")
    console.print(f"  gold answer in the claims (not yes/no)        {pct(with_gold.answer_found):>6}")
    console.print(f"  yes/no questions: right verdict               {pct(with_gold.verdict_right):>6}")
    console.print(f"  yes/no questions: wrong verdict               {pct(with_gold.verdict_wrong):>6}")
    console.print(f"  claim coverage (drafted claims kept)          {pct(with_gold.claim_coverage):>6}")
    console.print(f"  dangling-citation rate                        {pct(with_gold.dangling_rate):>6}")
    console.print(f"  answered (gold paragraphs present)            {pct(with_gold.answered_with_gold):>6}")
    console.print(f"  abstained (gold paragraphs removed)           {pct(without.abstained_without_gold):>6}")
    console.print(f"  ... answered, yet with the gold answer        {pct(without.answered_right_without_gold):>6}")


__all__ = [
    "answer",
    "answers",
    "ask",
    "audit",
    "evaluate",
    "policy_add",
    "policy_app",
    "policy_show",
    "print_report",
    "replay",
    "show",
]


policy_app = typer.Typer(
    name="policy",
    help="Context policy: rules on what the generator may be shown (permit, deny, redact, flag).",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@policy_app.command("add")
def policy_add(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Policy rules (Turtle or any RDF syntax).")],
    store: StoreOpt = DEFAULT_STORE,
    json: JsonOpt = False,
) -> None:
    """Add policy rules: a new version of the rule set, validated with SHACL, all or nothing."""
    with open_store(store, lazy_lock=True) as graph:
        added = graph.add_policy(file)
    if json:
        print_json(added)
    else:
        out.print(f"policy version {added.version}: {len(added.rules)} rule(s)", highlight=False)


@policy_app.command("show")
def policy_show(store: StoreOpt = DEFAULT_STORE, json: JsonOpt = False) -> None:
    """The rules answers run under now."""
    with open_store(store, read_only=True, create=False) as graph:
        current = graph.policy()
    if json:
        print_json(current)
        return
    if not current.rules:
        out.print("no policy rules: every segment is shown")
        return
    out.print(
        f"policy version {current.version} ({len(current.rules)} rule(s), sha-256 {current.hash})", highlight=False
    )
    for rule in sorted(current.rules, key=lambda r: (-r.priority, r.iri)):
        out.print(f"- {rule.action:<7} {render.escape(rule.iri)} (priority {rule.priority})", highlight=False)
        out.print(f"  {render.escape(rule.justification)}", highlight=False)
