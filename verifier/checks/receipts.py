"""
Receipts against themselves and the plan's own limits, and retained attempts.

Both read the run's evidence model (`readers.native.evidence_of`, indexed by
`campaign.campaign_of`), native or mapped alike.

`receipts.consistency` (after `plan.conformance`): a receipt's
`outcome` agrees with its HTTP status and error; an `ok` measured request has
the outputs the plan expects (`expected_output`, when the gate judges
coverage: a gate without `coverage` asks for no media, as in `coverage.streams`); the plan's timeouts bind
(an `ok` request whose `elapsed_s` exceeds the request timeout, `request_s`,
`request_timeout_s` or `http_timeout_s`, FAILs; a request, wave or arm timeout
longer than the time the run may hold the machine, the least of its
reservations and a soft terminate before them, FAILs as an inconsistent plan,
and so does a soft terminate after the hard reservation: `_hold_limits`); the
plan was frozen before the first receipt started.

`attempts.retained`: rejected or interrupted attempts have one declared place
(bundle format v1): their own receipts, JSON Lines under any name, listed in
the manifest with `role` `rejected-attempt` or `interrupted-attempt`. They are
integrity-checked like every file, validated against `receipt.schema.json`,
and never read into the campaign; a receipt that appears both in an attempt
and in `receipts.jsonl` FAILs (mixed in). Receipts hidden in any other file
(another extension, no role) FAIL. The declared attempts are the model's
(`Evidence.attempts`); their files are read here from the bytes integrity
matched. The model holds only documents that passed their schema, so a
wrong type is a schema finding, not one of these.
"""

from __future__ import annotations

import hashlib
import os
import re
from array import array
from collections.abc import Iterator
from typing import Any

from verifier.formats.bundle import DOCUMENTS, nfc, open_regular
from verifier.readers.campaign import campaign_of, elapsed, parse_time
from verifier.model.evidence import NO_INSTANT, TimeColumn, instant
from verifier.readers.native import ATTEMPT_ROLES, evidence_of
from verifier.errors import Unverifiable
from verifier.formats.jsonio import JSONProblem, json_pointer, loads_strict, loads_strict_lines, schema_message
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context, check
from verifier.schema.compiled_schema import checked_validator
from verifier.trust.assets import schema_validator
from verifier.schema.validation import known_valid, note_valid

__all__ = ["ATTEMPT_ROLES", "attempts", "consistency"]
#: How many leading bytes of an undeclared file are read to recognise hidden receipts.
SNIFF_BYTES = 4096


def _f(check_id: str, status: Status, code: str, message: str, **kw: Any) -> Finding:
    return Finding(check=check_id, status=status, code=code, message=message, **kw)


#: The request timeout of a plan, in the namings plans use (`request_s`, `request_timeout_s`, `http_timeout_s`, in s, ms, min or h).
_REQUEST_TIMEOUT = re.compile(r"(?:request|http|http_request)(?:_timeout)?(?:_s|_ms|_min|_minutes|_h|_hours)?|timeout_(?:request|http)(?:_s|_ms)?")
#: Limits on the time the run may hold the machine: a (hard, shared) reservation, and a soft terminate (TERM) before it.
_HARD = re.compile(r"(?:^|_)(?:reservation|reserve|lease|allocation|walltime|wall_limit|job_limit)(?:_|$)")
_SOFT = re.compile(r"(?:^|_)(?:soft|term|sigterm|terminate|soft_stop|stop_after)(?:_|$)")
#: Durations after a stop that bound nothing themselves (the grace before a forced kill).
_GRACE = re.compile(r"(?:^|_)(?:grace|kill|sigkill|force|cleanup|startup|setup)(?:_|$)")


def _hold_limits(plan: Any, timeouts: dict[str, Any], pfile: str) -> Iterator[Finding]:
    """
    Judge the plan's durations that bound each other: no inner timeout outlasts the time the run may hold the machine.

    The hold limits are the keys naming a reservation (`reservation_s`,
    `hard_reservation_s`, `shared_reservation_h`, one reservation shared by
    every arm) and a soft terminate before it (`soft_term_s`,
    `soft_terminate_min`); the time the run may hold the machine is the
    least of them. Every other timeout (`request_s`, `http_timeout_s`,
    `wave_timeout_s`, `arm_s`) longer than it FAILs `timeout-beyond-reservation`
    (the outer limit ends the run first, so the inner timeout can never be the
    recorded cause); a soft terminate later than the hard reservation FAILs
    `terminate-after-reservation` (it never fires). Grace periods
    (`kill_after_s`, `term_grace_s`) bound nothing. Units follow the key's
    suffix (`readers.native.timeout_unit`).
    """
    cid = "receipts.consistency"
    hard = {k: v for k, v in timeouts.items() if _HARD.search(k.lower()) and not _GRACE.search(k.lower())}
    soft = {k: v for k, v in timeouts.items() if k not in hard and _SOFT.search(k.lower()) and not _GRACE.search(k.lower())}
    limits = hard | soft
    if not limits:
        return
    bound_key = min(limits, key=lambda k: (limits[k], k))
    hold = limits[bound_key]
    shown = lambda k: f"{k} = {plan.timeouts[k].written} {plan.timeouts[k].unit}"  # noqa: E731
    late = [(s, h) for s in sorted(soft) for h in sorted(hard) if soft[s] > hard[h]]
    for s, h in late:
        yield _f(cid, Status.FAIL, "terminate-after-reservation",
                 f"plan {shown(s)} terminates {soft[s]} s in, after the {shown(h)} ({hard[h]} s) has already ended the run: the soft terminate never fires",
                 path=pfile, pointer=f"/timeouts/{s}", expected=f"<= {hard[h]} s", observed=f"{soft[s]} s")
    over = [k for k in sorted(timeouts) if k not in limits and not _GRACE.search(k.lower()) and timeouts[k] > hold]
    for k in over:
        yield _f(cid, Status.FAIL, "timeout-beyond-reservation",
                 f"plan timeout {shown(k)} ({timeouts[k]} s) is longer than the time the run may hold the machine, {shown(bound_key)} "
                 f"({hold} s): that limit ends the run first, and the timeout can never be the recorded cause",
                 path=pfile, pointer=f"/timeouts/{k}", expected=f"<= {hold} s", observed=f"{timeouts[k]} s")
    if not over and not late:
        yield _f(cid, Status.PASS, "holds", f"every plan timeout fits the time the run may hold the machine ({shown(bound_key)}, {hold} s)", path=pfile)


@check("receipts.consistency", title="Receipts agree with their own status and with the plan's outputs, timeouts and freeze time",
       requires=("gate.pinned",))
def consistency(ctx: Context) -> Iterator[Finding]:
    """
    FAIL `outcome-contradicts-status`, `ok-without-output`, `ok-after-timeout`,
    `timeout-beyond-reservation`, `terminate-after-reservation`, `plan-frozen-late`; PASS `holds` per rule that ran.
    """
    c = campaign_of(ctx)
    plan, cid = c.plan, "receipts.consistency"
    pfile = plan.location.file if plan.location else "plan.json"
    requests = table = c.receipts  # columns: a receipt is built only for a row that is reported
    rfile = table.file if requests else "receipts.jsonl"
    where = lambda r: {"path": r.location.file, "pointer": r.location.pointer}  # noqa: E731
    rid = lambda r: r.dims.get("request_id")  # noqa: E731
    ok = array("q", (i for i, outcome in enumerate(table.outcome) if outcome == "ok"))  # 8 bytes a row, no int object kept

    bad = [table.row(i) for i in ok if ((status := table.http_status[i]) is not None and not 200 <= status < 300) or (table.error[i] or "").strip()]
    for r in bad:
        yield _f(cid, Status.FAIL, "outcome-contradicts-status",
                 f"request {rid(r)} says outcome ok with HTTP status {r.http_status} and error {r.error!r}",
                 expected={"http_status": "2xx", "error": None}, observed={"http_status": r.http_status, "error": r.error}, **where(r))
    if not bad:
        yield _f(cid, Status.PASS, "holds", f"every ok receipt of {len(requests)} has a 2xx (or unrecorded) status and no error", path=rfile)

    if plan.expected_output and "coverage" in (ctx.gate or {}):  # the gate makes the expected output binding
        empty = [table.row(i) for i in ok if table.phase[i] == "measured" and i not in table.outputs]
        for r in empty:
            yield _f(cid, Status.FAIL, "ok-without-output",
                     f"measured request {rid(r)} is ok but records no output, while the plan expects one (expected_output)",
                     expected=">= 1 output", observed=0, **where(r))
        if not empty:
            yield _f(cid, Status.PASS, "holds", "every ok measured request records its output", path=rfile)

    timeouts = {k: q.to("s") for k, q in plan.timeouts.items()}
    request_key = next((k for k in sorted(timeouts) if _REQUEST_TIMEOUT.fullmatch(k.lower())), None)
    if request_key is not None:
        limit = timeouts[request_key]
        late = [table.row(i) for i in ok if elapsed(table, i) > limit]
        for r in late:
            written = r.quantities["elapsed"].written  # type: ignore[union-attr]
            yield _f(cid, Status.FAIL, "ok-after-timeout",
                     f"request {rid(r)} is ok after {written} s, beyond the plan's request timeout {limit} s",
                     expected=f"<= {limit}", observed=str(written), **where(r))
        if not late:
            yield _f(cid, Status.PASS, "holds", f"no ok request outlasted the request timeout {limit} s", path=rfile)
    yield from _hold_limits(plan, timeouts, pfile)

    first = _first_start(table.started_at, [w.started_at for w in c.workers])
    if first is not None and plan.frozen_at:
        if instant(plan.frozen_at) > first[0]:
            shown = parse_time(first[1]).isoformat()
            yield _f(cid, Status.FAIL, "plan-frozen-late",
                     f"plan frozen_at {plan.frozen_at} is after the first receipt started ({shown}): "
                     "the plan was not frozen before the run", path=pfile, pointer="/frozen_at",
                     expected=f"<= {shown}", observed=plan.frozen_at)
        else:
            yield _f(cid, Status.PASS, "holds", "the plan was frozen before the first receipt started", path=pfile)


def _first_start(starts: TimeColumn, workers: list[str | None]) -> tuple[int, str] | None:
    """
    Return `(instant, text)` of the earliest of the request rows' `starts` and the workers' start texts (nanoseconds since the epoch, the text as written), or None if none has one.

    Equal instants: the first in file order, request rows before workers.
    The rows' instants are the column's (`TimeColumn.at`); a row without
    one, and each worker, is read by `evidence.instant` (its errors raised).
    """
    at = starts.at
    best: tuple[int, int] | None = None  # (instant, row)
    if NO_INSTANT in at:  # a row the model did not read as an instant (no text, or one only parse_time reads): each in turn
        for i, value in enumerate(starts):
            if value and (best is None or starts.instant(i) < best[0]):
                best = (starts.instant(i), i)
    elif len(at):
        low = min(at)
        best = (low, at.index(low))
    first = None if best is None else (best[0], starts[best[1]])
    for text in workers:
        if text and (first is None or instant(text) < first[0]):
            first = (instant(text), text)
    return first


def _moment(text: Any) -> Any:
    """Return the instant a start text names (`evidence.instant`, nanoseconds: one instant however it is written), or the text itself when it names none."""
    try:
        return instant(text)
    except (TypeError, ValueError):
        return text


def _looks_like_receipts(head: bytes) -> bool:
    """Return whether the first non-blank line of `head` is a JSON object with a receipt `kind`."""
    for line in head.splitlines():
        if line.strip():
            try:
                value = loads_strict(line)
            except JSONProblem:
                return False
            return isinstance(value, dict) and value.get("kind") in ("request", "worker")
    return False


@check("attempts.retained", title="Retained attempts are declared (manifest role), valid receipts, and never mixed into the result")
def attempts(ctx: Context) -> Iterator[Finding]:
    """
    FAIL `attempt-not-receipts`, `schema-violation`, `attempt-mixed-in`, `undeclared-receipts`, `changed-during-verification`;
    PASS `attempt-retained` per declared attempt, `no-hidden-receipts` once.
    """
    bundle, cid = ctx.bundle, "attempts.retained"
    if ctx.run.manifest is None:
        yield _f(cid, Status.UNVERIFIED, "blocked-by-integrity", "no usable manifest.json: no file was matched, none is examined")
        return
    evidence = evidence_of(ctx)  # runs after integrity.files; reads only the files it matched (bundle.verified)
    roles = {nfc(a.id): f"{a.status}-attempt" for a in evidence.attempts}
    accepted: set[tuple[str | None, Any]] = set()  # (request or worker id, the instant it started: `_moment`)
    try:
        if roles:  # only declared attempts are compared with it: no set of every receipt's identity otherwise
            c = campaign_of(ctx)
            starts = c.receipts.started_at
            accepted = {(rid, _moment(starts[i])) for i, rid in enumerate(c.receipts.request_id)} | {(w.name, _moment(w.started_at)) for w in c.workers}
    except Unverifiable:  # receipts.jsonl unusable: plan.conformance reports why; nothing can be mixed into it
        accepted = set()
    schema = ctx.assets.schema("receipt") if roles else None
    documents = {name: kind for kind, (name, *_) in DOCUMENTS.items()}
    for name in sorted(roles):
        if name not in bundle.verified:
            continue  # integrity.files FAILed it already; nothing unhashed is parsed
        if not name.lower().endswith(".jsonl"):
            yield _f(cid, Status.FAIL, "attempt-not-receipts", f"{name} is listed as {roles[name]} but is not a .jsonl receipts file",
                     path=name)
            continue
        if name in documents:
            yield _f(cid, Status.FAIL, "attempt-not-receipts", f"{name} is listed as {roles[name]} but is the bundle's "
                     f"{documents[name]} document; an attempt is a receipts file of its own", path=name)
            continue
        data = bundle.contents.get(name)
        if data is None:  # a reader that kept no bytes (a mapped bundle): read again, parse only the bytes integrity matched
            with os.fdopen(open_regular(bundle.root / bundle.verified[name]), "rb") as handle:
                data = handle.read()
            if hashlib.sha256(data).hexdigest() != bundle.digests.get(name):
                yield _f(cid, Status.FAIL, "changed-during-verification",
                         f"{name} changed after integrity.files matched its sha256, so it is not parsed", path=name)
                continue
        try:
            rows = loads_strict_lines(data)
        except JSONProblem as exc:
            yield _f(cid, Status.FAIL, exc.code, f"{name}: {exc}", path=name, pointer=None if exc.line is None else f"/{exc.line - 1}")
            continue
        if rows and not any(isinstance(r, dict) and r.get("kind") in ("request", "worker") for r in rows):
            yield _f(cid, Status.FAIL, "attempt-not-receipts", f"{name} ({roles[name]}) holds no receipts: none of its {len(rows)} "
                     "lines is a request or worker receipt (`kind`)", path=name)
            continue
        digest = hashlib.sha256(data).hexdigest() + ":lines"
        earlier = known_valid(ctx.options.get("cache"), schema, digest)
        if earlier is None:  # not known valid (docs/cache.md: only valid outcomes are kept): validate
            validator = checked_validator(schema, schema_validator(schema))  # the reference's errors, compiled speed on valid rows
            errors = [(i, e) for i, row in enumerate(rows) for e in validator.iter_errors(row)]
            if not errors:
                note_valid(ctx.options.get("cache"), schema, digest)
        else:
            errors = []
        for i, e in errors:
            yield _f(cid, Status.FAIL, "schema-violation", f"{name}: {schema_message(e)}", path=name,
                     pointer=json_pointer([i, *e.absolute_path]))
        if errors or not rows:
            if not rows:
                yield _f(cid, Status.FAIL, "attempt-not-receipts", f"{name} ({roles[name]}) holds no receipts", path=name)
            continue
        mixed = [i for i, r in enumerate(rows) if (r.get("request_id", r.get("worker_id")), _moment(r["started_at"])) in accepted]
        for i in mixed:
            yield _f(cid, Status.FAIL, "attempt-mixed-in",
                     f"{name} line {i + 1}: the {roles[name]} receipt {rows[i].get('request_id', rows[i].get('worker_id'))} "
                     "also appears in receipts.jsonl, mixed into the accepted result", path=name, pointer=f"/{i}")
        if not mixed:
            yield _f(cid, Status.PASS, "attempt-retained",
                     f"{name}: {len(rows)} {roles[name]} receipt(s), integrity-verified, valid, kept out of the accepted result",
                     path=name, observed=len(rows), cached="schema" if earlier else None)
    hidden = []
    for name, rel in sorted(bundle.verified.items()):
        if name in documents or name in roles:
            continue
        with os.fdopen(open_regular(bundle.root / rel), "rb") as handle:
            head = handle.read(SNIFF_BYTES)
        if _looks_like_receipts(head):
            hidden.append(name)
            yield _f(cid, Status.FAIL, "undeclared-receipts",
                     f"{name} holds receipts but is not declared: retain an attempt as .jsonl with a manifest role "
                     f"({', '.join(ATTEMPT_ROLES)})", path=name)
    if not hidden:
        yield _f(cid, Status.PASS, "no-hidden-receipts", "no file outside receipts.jsonl and the declared attempts holds receipts")
