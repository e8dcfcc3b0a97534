"""
The rule pack of serving-load telemetry receipts (seed 000): the standings a receipt states, judged (`gate.rules`).

Runs after `schema.documents` (over the receipt and schema `verifier/adapters/telemetry.py` names), so each field read has the type
`schemas/serving-load-telemetry-v1.schema.json` gives it (the subject axes and qualification prerequisites are
profile data there). Last in the roster, it reads what the reader's checks established in `ctx.run` (the receipt in `doc`,
`client`, `engine_delta`, `carrier`, `occupancy_within_cap`, `implementation_bound`, `no_preemptions`); a fact
absent there is unmet, never assumed.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from verifier.engine.derive import claim_finding
from verifier.formats.jsonio import JSONProblem, loads_strict
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context, check

__all__ = ["telemetry_rules"]

RECEIPT = "telemetry-receipt.json"


def f(status: Status, code: str, message: str, **kw: Any) -> Finding:
    return Finding(check="gate.rules", status=status, code=code, message=message, **kw)


def _subject(ctx: Context) -> Iterator[Finding]:
    """FAIL `subject-axes-unread` when the subject is declared established while an axis it states (checkpoint revision, collective transport, KV dtype) is null."""
    subject = ctx.run.doc[RECEIPT]["standings"].get("subject") or {}
    axes = ctx.run.profile["subject_axes"]
    unread = [axis for axis, keys in axes.items() if any(k in subject and subject[k] is None for k in keys)]
    ctx.run.facts.subject_established = subject.get("standing") == "established" and not unread
    if subject.get("standing") == "established" and unread:
        yield f(Status.FAIL, "subject-axes-unread",
                f"{RECEIPT}#/standings/subject is established, but its {', '.join(unread)} is unread (null): a subject with an unread "
                "axis is partial; it may carry telemetry, not a cross-run comparison or a qualification",
                path=RECEIPT, pointer="/standings/subject/standing", observed=unread)


def _starts(ctx: Context) -> Iterator[Finding]:
    receipt = ctx.run.doc[RECEIPT]
    arr, ev = receipt["standings"]["arrival"], receipt["evidence"]
    stated = arr["observed_max_stagger_ms"]
    if arr["request_starts_retained"] and "request_starts" not in ev:
        yield f(Status.FAIL, "starts-flag-without-carrier",
                f"{RECEIPT}#/standings/arrival/request_starts_retained is true, but evidence names no request_starts carrier",
                path=RECEIPT, pointer="/standings/arrival/request_starts_retained")
        return
    if stated is not None and not arr["request_starts_retained"]:
        yield f(Status.FAIL, "declaration-as-observation",
                f"{RECEIPT}#/standings/arrival/observed_max_stagger_ms = {stated}, but no request start times are retained: "
                f"a declared {arr['declared']!r} arrival is not an observed stagger (a client cap can run the prompts in waves)",
                path=RECEIPT, pointer="/standings/arrival/observed_max_stagger_ms")
        return
    raw = ctx.run.facts.carrier.get("request_starts")
    if raw is None:
        yield f(Status.UNVERIFIED, "arrival-unread", f"arrival: declared {arr['declared']!r}; no request starts are read",
                path=RECEIPT, pointer="/standings/arrival")
        return
    path = ev["request_starts"]["path"]
    try:
        starts, why = loads_strict(raw), "not a JSON array of start times in seconds"
    except JSONProblem as exc:
        starts, why = None, str(exc)
    if not isinstance(starts, list) or not starts or not all(isinstance(s, (Decimal, int)) and not isinstance(s, bool) for s in starts):
        yield f(Status.FAIL, "starts-unreadable", f"{path}: {why}", path=path)
        return
    starts = [Decimal(s) for s in starts]
    n = receipt["protocol"]["num_prompts"]
    if len(starts) != n:
        yield f(Status.FAIL, "starts-incomplete", f"{path}: {len(starts)} request starts for {n} offered requests",
                path=path, expected=n, observed=len(starts))
        return
    span = max(starts) - min(starts)  # s; claim_finding converts it to the stated ms by its `scale`
    ctx.run.facts.arrival_observed = True
    how = f"(max - min) of {n} request starts in {path}, ms"
    if stated is None:
        yield f(Status.PASS, "derived", f"arrival stagger {span * 1000} ms ({how}); not stated", path=path)
        return
    yield claim_finding("gate.rules", Decimal(stated), span, name=RECEIPT, pointer="/standings/arrival/observed_max_stagger_ms",
                        label="standings/arrival/observed_max_stagger_ms", how=how, statistic="difference", values=[max(starts), min(starts)],
                        scale=1000)


def _window(ctx: Context) -> Iterator[Finding]:
    receipt = ctx.run.doc[RECEIPT]
    win, proto, ev = receipt["standings"]["window"], receipt["protocol"], receipt["evidence"]
    standing, lease, traffic = win["standing"], win["isolation_lease"], win["traffic_receipt"]
    ptr = "/standings/window"
    if standing == "isolated":
        protects = (lease or {}).get("protects") or {}
        subject = {k: proto.get(k) for k in ("model", "base_url")}
        if lease is None:
            yield f(Status.FAIL, "isolation-without-lease",
                    f"{RECEIPT}#{ptr} says isolated, but no isolation lease is recorded", path=RECEIPT, pointer=f"{ptr}/isolation_lease")
        elif None in subject.values() or {k: protects.get(k) for k in subject} != subject:
            yield f(Status.FAIL, "generic-lease",
                    f"{RECEIPT}#{ptr}/isolation_lease protects {protects or 'nothing named'}, not this run's serving subject {subject}: "
                    "a generic lease is not isolation", path=RECEIPT, pointer=f"{ptr}/isolation_lease/protects", expected=subject, observed=protects)
        else:
            ctx.run.facts.window_isolated = True
            yield f(Status.UNVERIFIED, "lease-recorded",
                    f"window: isolated under a lease bound to {subject}; this reader does not authenticate leases", path=RECEIPT, pointer=ptr)
    elif standing == "foreign-traffic-observed":
        carrier = (traffic or {}).get("evidence")
        if traffic is None:
            yield f(Status.FAIL, "contention-without-receipt",
                    f"{RECEIPT}#{ptr} says foreign traffic observed, but no attributed traffic receipt is recorded: "
                    "a missing isolation lease is 'isolation not established', not 'contention observed'", path=RECEIPT, pointer=f"{ptr}/traffic_receipt")
        elif not traffic.get("attributed_to") or carrier not in ev:
            yield f(Status.FAIL, "prose-traffic-receipt",
                    f"{RECEIPT}#{ptr}/traffic_receipt names no attributed actor with a retained carrier (evidence {carrier!r}): "
                    "a statement of possible traffic is not a traffic receipt", path=RECEIPT, pointer=f"{ptr}/traffic_receipt")
        else:
            yield f(Status.UNVERIFIED, "recorded-not-verified",
                    f"window: foreign traffic attributed to {traffic['attributed_to']!r} (carrier {ev[carrier]['path']}); not re-derived",
                    path=RECEIPT, pointer=ptr)
    else:
        yield f(Status.UNVERIFIED, "isolation-not-established",
                "window: isolation not established (no lease); this is not an observation of contention", path=RECEIPT, pointer=ptr)


def _standings(ctx: Context) -> Iterator[Finding]:
    """
    Judge the arrival and window standings the receipt states.

    Arrival: FAIL `starts-flag-without-carrier` (starts said retained, no
    `request_starts` carrier), `declaration-as-observation` (a stagger
    without retained starts), `starts-unreadable`, `starts-incomplete`; with
    the carrier read, the stagger (max - min start, ms) re-derives (PASS
    `derived` / FAIL `claim-mismatch`); else UNVERIFIED `arrival-unread`.
    Window: FAIL `isolation-without-lease`, `generic-lease` (the lease's
    `protects` is not this protocol's model and base_url),
    `contention-without-receipt`, `prose-traffic-receipt` (no `attributed_to`
    or no retained carrier); UNVERIFIED `lease-recorded`,
    `recorded-not-verified`, `isolation-not-established`. Subject: FAIL
    `subject-axes-unread` when it is declared established with a stated axis
    (checkpoint revision, collective transport, KV dtype; profile
    `subject_axes`) null; stores `ctx.run.facts.subject_established`.
    """
    yield from _starts(ctx)
    yield from _window(ctx)
    yield from _subject(ctx)


def _qualification(ctx: Context) -> Iterator[Finding]:
    """
    Judge `standings.qualification`.

    Absent or `unqualified`: PASS `telemetry-only`. `qualified`: FAIL
    `qualification-without-prerequisites` naming each unmet entry of the
    profile's `qualification_prerequisites`; with all met, UNVERIFIED
    `qualification-recorded` (leases and occupancy traces are recorded, not
    authenticated).
    """
    receipt, profile, facts = ctx.run.doc[RECEIPT], ctx.run.profile, ctx.run.facts
    if receipt["standings"].get("qualification") != "qualified":
        yield f(Status.PASS, "telemetry-only", "no qualified standing is claimed: a telemetry capture",
                path=RECEIPT, pointer="/standings")
        return
    client, engine = facts.client or {}, facts.engine_delta
    met = {
        "ledger-closed": bool(client) and client["failed_requests"] == 0 and client["successful_requests"] == receipt["protocol"]["num_prompts"],
        "subject-established": bool(facts.subject_established),
        "arrival-observed": bool(facts.arrival_observed),
        "window-isolated": bool(facts.window_isolated),
        "engine-agrees": engine is not None and bool(client) and client["output_tokens"] <= engine,
        "occupancy-within-cap": bool(facts.occupancy_within_cap),
        "occupancy-trace": "occupancy_trace" in receipt["evidence"],
        "implementation-bound": bool(facts.implementation_bound),
        "no-preemptions": bool(facts.no_preemptions),
    }
    missing = {k: v for k, v in profile["qualification_prerequisites"].items() if not met.get(k)}
    if missing:
        yield f(Status.FAIL, "qualification-without-prerequisites",
                f"{RECEIPT}#/standings/qualification is qualified without: " + "; ".join(f"{k} ({v})" for k, v in missing.items()),
                path=RECEIPT, pointer="/standings/qualification", observed=sorted(missing))
        return
    yield f(Status.UNVERIFIED, "qualification-recorded",
            "every prerequisite is present; the lease and occupancy trace are recorded, not authenticated", path=RECEIPT,
            pointer="/standings/qualification")


@check("gate.rules", title="Declarations are not observations (arrival skew, window isolation, subject); a qualified standing holds only "
       "with every prerequisite", requires=("schema.documents",))
def telemetry_rules(ctx: Context) -> Iterator[Finding]:
    """Judge the standings (`_standings`), then the qualification (`_qualification`), which reads what the standings established."""
    yield from _standings(ctx)
    yield from _qualification(ctx)
