"""
The rule pack of serving-load telemetry receipts (seed 000): the producer's own checks and the standings a receipt states, judged (`gate.rules`).

Runs after `schema.documents` (over the receipt and schema `verifier/adapters/telemetry.py` names), so each field read has the type
`schemas/serving-load-telemetry-v1.schema.json` gives it (the subject axes, qualification prerequisites, lists of refused
facts, stdout protocol labels and gauge names are profile data there). The producer's checks (`CHECKS`, plan family):
`telemetry.carriers` (every carrier retained with its recorded sha256; their bytes kept in `ctx.run.facts.carrier`),
`telemetry.process` (client facts only for a process that exited 0, from the reader's model), `telemetry.protocol`
(the protocol against stdout's echo), `telemetry.provenance` (dataset and implementation pinned) and
`telemetry.occupancy` (boundary occupancy and preemptions from the two scrapes). Last in the roster, `gate.rules`
reads what the checks before it established in `ctx.run` (the receipt in `doc`,
`client`, `engine_delta`, `carrier`, `occupancy_within_cap`, `implementation_bound`, `no_preemptions`); a fact
absent there is unmet, never assumed.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path, PurePosixPath
from typing import Any

from verifier.adapters.telemetry import ENGINE_FACTS, model
from verifier.engine.derive import claim_finding
from verifier.formats.jsonio import JSONProblem, loads_strict
from verifier.model.findings import Finding, Status, finding
from verifier.engine.pipeline import Context, check

__all__ = ["CHECKS", "carriers", "occupancy", "process", "protocol", "provenance", "telemetry_rules"]

RECEIPT = "telemetry-receipt.json"
HEX40 = re.compile(r"[0-9a-fA-F]{40}")


def _r(ctx: Context) -> dict[str, Any]:
    return ctx.run.doc[RECEIPT]  # type: ignore[no-any-return]


def _p(ctx: Context) -> dict[str, Any]:
    return ctx.run.profile  # type: ignore[no-any-return]


@check("telemetry.carriers", title="Raw stdout, stderr and both scrapes are retained with the recorded sha256",
       requires=("schema.documents",))
def carriers(ctx: Context) -> Iterator[Finding]:
    """
    Hash every evidence file the receipt names.

    FAIL `unsafe-path` (absolute or `..`), `symlink` / `symlink-escape` (a link, never
    followed; its target inside or outside the receipt directory), `carrier-missing`, `sha256-mismatch`;
    PASS `retained`. Stores the bytes in `ctx.run.facts.carrier`.
    """
    root: Path = ctx.options["directory"]
    ctx.run.facts.carrier = {}
    for name, item in _r(ctx)["evidence"].items():
        rel = PurePosixPath(item["path"])
        ptr = f"/evidence/{name}"
        if rel.is_absolute() or ".." in rel.parts:
            yield finding("telemetry.carriers", Status.FAIL, "unsafe-path", f"{RECEIPT}: evidence {name} path {item['path']!r} leaves the receipt directory",
                    path=RECEIPT, pointer=f"{ptr}/path")
            continue
        target = root / rel
        if target.is_symlink():  # never followed, and named as `integrity.files` names a link in a bundle
            link = os.readlink(target)
            inside = (target.parent / link).resolve().is_relative_to(root.resolve())
            yield finding("telemetry.carriers", Status.FAIL, "symlink" if inside else "symlink-escape",
                          f"{item['path']} is a symlink to {link!r} ({'inside' if inside else 'outside'} the receipt directory); "
                          "symlinks are never followed, so facts cannot replay from it", path=item["path"], pointer=ptr)
            continue
        if not target.is_file():
            yield finding("telemetry.carriers", Status.FAIL, "carrier-missing",
                    f"{item['path']}: the {name} carrier the receipt records is not retained; facts cannot replay from it",
                    path=item["path"], pointer=ptr)
            continue
        data = target.read_bytes()
        got = hashlib.sha256(data).hexdigest()
        if got != item["sha256"].lower():
            yield finding("telemetry.carriers", Status.FAIL, "sha256-mismatch", f"{item['path']}: sha256 {got} differs from {RECEIPT}#{ptr}/sha256 {item['sha256']}",
                    path=item["path"], pointer=f"{ptr}/sha256", expected=item["sha256"], observed=got)
            continue
        ctx.run.facts.carrier[name] = data
        yield finding("telemetry.carriers", Status.PASS, "retained", f"{item['path']}: {name} retained, sha256 matches ({len(data)} bytes)",
                path=item["path"], pointer=ptr)


def _stated_client_facts(receipt: dict[str, Any]) -> list[str]:
    """The `facts` keys the receipt states (not null, not an empty object) that are the bench process's (all but `ENGINE_FACTS`)."""
    facts = receipt.get("facts") or {}
    return [k for k, v in facts.items() if k not in ENGINE_FACTS and v not in (None, {})]


@check("telemetry.process", title="Client facts exist only for a process that exited 0", requires=("schema.documents",))
def process(ctx: Context) -> Iterator[Finding]:
    """
    Gate every client fact on the process outcome.

    PASS `exited-0`; for a non-zero exit or unreachable host: FAIL
    `facts-from-failed-process` per `facts` key the receipt states anyway
    (every one but the engine delta, `ENGINE_FACTS`), else UNVERIFIED
    `no-facts` (nothing can be read, whatever stdout says).
    """
    receipt = _r(ctx)
    bench = model(ctx).processes[0]
    if bench.dims["outcome"] == "exited" and bench.exit_code == 0:
        yield finding("telemetry.process", Status.PASS, "exited-0", "the bench process exited 0: its stdout may carry facts",
                path=RECEIPT, pointer="/execution")
        return
    what = f"exited {bench.exit_code}" if bench.dims["outcome"] == "exited" else f"was unreachable ({bench.dims['cause']})"
    stated = _stated_client_facts(receipt)
    for key in stated:
        yield finding("telemetry.process", Status.FAIL, "facts-from-failed-process",
                f"{RECEIPT}#/facts/{key} is stated, but the bench process {what}: a failed or unreachable process yields no facts, "
                "whatever its stdout or stderr says", path=RECEIPT, pointer=f"/facts/{key}")
    if not stated:
        yield finding("telemetry.process", Status.UNVERIFIED, "no-facts", f"the bench process {what}: no client facts are read",
                path=RECEIPT, pointer="/execution")


def _printed(text: str, labels: dict[str, str]) -> dict[str, str]:
    """Return the first value printed after each label in `text` (the protocol echo precedes the result block)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        for label, key in labels.items():
            if key not in out and line.startswith(label):
                out[key] = line[len(label):].split("(")[0].strip()
    return out


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


@check("telemetry.protocol", title="The receipt's protocol (arrival, rate, cap) is the one the retained stdout prints",
       requires=("telemetry.carriers", "telemetry.process"))
def protocol(ctx: Context) -> Iterator[Finding]:
    """
    Compare `protocol.request_rate`, `burstiness`, `max_concurrency` and `arrival` with stdout's echo.

    vLLM prints `Traffic request rate: R`, `Burstiness factor: B (...)` and
    `Maximum request concurrency: C` (`None` without a cap) before the run.
    `arrival` send-all means R = inf; poisson means a finite R with B = 1.0.
    PASS `protocol-matches` / FAIL `protocol-mismatch` per axis; UNVERIFIED
    `protocol-not-printed` when stdout prints no such line.
    """
    receipt, profile = _r(ctx), _p(ctx)
    proto, path = receipt["protocol"], receipt["evidence"]["stdout"]["path"]
    printed = _printed(ctx.run.facts.carrier["stdout"].decode("utf-8", errors="replace"), profile["protocol_lines"])
    rate, burst = _number(printed.get("request_rate", "")), _number(printed.get("burstiness", ""))
    axes: list[tuple[str, Any, Any, bool]] = []  # (axis, stated, printed, agrees)
    if "request_rate" in proto:
        stated = math.inf if proto["request_rate"] == "inf" else float(proto["request_rate"])
        axes.append(("request_rate", proto["request_rate"], printed.get("request_rate"), rate is not None and rate == stated))
    if "burstiness" in proto:
        axes.append(("burstiness", proto["burstiness"], printed.get("burstiness"), burst is not None and burst == float(proto["burstiness"])))
    cap = printed.get("max_concurrency")
    axes.append(("max_concurrency", proto["max_concurrency"], cap,
                 cap is not None and (cap == "None" if proto["max_concurrency"] is None else _number(cap) == proto["max_concurrency"])))
    shape = None if rate is None else "send-all" if math.isinf(rate) else "poisson" if burst == 1.0 else "gamma"
    axes.append(("arrival", proto["arrival"], shape and f"{shape} (rate {printed.get('request_rate')}, burstiness {printed.get('burstiness')})",
                 shape == proto["arrival"]))
    for axis, stated, seen, agrees in axes:
        if seen is None:
            yield finding("telemetry.protocol", Status.UNVERIFIED, "protocol-not-printed",
                    f"{path}: prints no {axis}; {RECEIPT}#/protocol/{axis} = {stated!r} is a declaration", path=RECEIPT, pointer=f"/protocol/{axis}")
        elif agrees:
            yield finding("telemetry.protocol", Status.PASS, "protocol-matches", f"{RECEIPT}#/protocol/{axis} = {stated!r}; {path} prints {seen}",
                    path=RECEIPT, pointer=f"/protocol/{axis}")
        else:
            yield finding("telemetry.protocol", Status.FAIL, "protocol-mismatch",
                    f"{RECEIPT}#/protocol/{axis} = {stated!r}, but {path} prints {seen}: the receipt describes another run's protocol",
                    path=RECEIPT, pointer=f"/protocol/{axis}", expected=str(seen), observed=str(stated))


@check("telemetry.provenance", title="A random dataset is pinned by seed or population; the bench implementation by revision or digest",
       requires=("schema.documents",))
def provenance(ctx: Context) -> Iterator[Finding]:
    """
    Judge what makes the offered work and the instrument replayable.

    Dataset: a `random_datasets` name needs an integer `protocol.seed` or a
    retained `evidence.requests` population (PASS `population-pinned`, else
    FAIL `random-dataset-unpinned`); another named dataset is UNVERIFIED
    `population-unpinned` without either; none named is UNVERIFIED
    `dataset-unread`. Implementation: a 40-hex `revision` or a `sha256`
    binds it (PASS `implementation-bound`); a revision that is not an exact
    commit (a branch such as `main`) FAILs `implementation-not-exact`; a
    retained `evidence.implementation` (the serve.py that ran) whose sha256
    is not the stated one FAILs `implementation-digest-mismatch`; neither is UNVERIFIED `implementation-unbound` (telemetry may carry it,
    a qualification may not).
    """
    receipt, profile = _r(ctx), _p(ctx)
    proto = receipt["protocol"]
    dataset, pinned = proto.get("dataset"), proto.get("seed") is not None or "requests" in receipt["evidence"]
    how = f"seed {proto['seed']}" if proto.get("seed") is not None else "the retained request population"
    if dataset is None:
        yield finding("telemetry.provenance", Status.UNVERIFIED, "dataset-unread", "the protocol names no dataset: the offered work is unknown",
                path=RECEIPT, pointer="/protocol")
    elif pinned:
        yield finding("telemetry.provenance", Status.PASS, "population-pinned", f"dataset {dataset!r} is pinned by {how}",
                path=RECEIPT, pointer="/protocol/seed")
    elif dataset in profile["random_datasets"]:
        yield finding("telemetry.provenance", Status.FAIL, "random-dataset-unpinned",
                f"{RECEIPT}#/protocol: dataset {dataset!r} is generated at random, but neither a seed nor the request population is "
                "retained: two 'equal' protocols may issue different token sequences", path=RECEIPT, pointer="/protocol/seed")
    else:
        yield finding("telemetry.provenance", Status.UNVERIFIED, "population-unpinned", f"dataset {dataset!r}: no seed or request population retained",
                path=RECEIPT, pointer="/protocol")
    impl = proto.get("implementation") or {}
    revision, digest = impl.get("revision"), impl.get("sha256")
    ctx.run.facts.implementation_bound = False
    if revision is not None and not HEX40.fullmatch(revision):
        yield finding("telemetry.provenance", Status.FAIL, "implementation-not-exact",
                f"{RECEIPT}#/protocol/implementation/revision = {revision!r} is not an exact commit: the semantics of the printed "
                "labels, the semaphore and the bucket peak are not bound to the serve.py that ran", path=RECEIPT,
                pointer="/protocol/implementation/revision", observed=revision)
    elif digest is not None and "implementation" in ctx.run.facts.carrier and \
            hashlib.sha256(ctx.run.facts.carrier["implementation"]).hexdigest() != digest.lower():
        kept = receipt["evidence"]["implementation"]["path"]
        yield finding("telemetry.provenance", Status.FAIL, "implementation-digest-mismatch",
                f"{kept}: the retained bench implementation hashes to {hashlib.sha256(ctx.run.facts.carrier['implementation']).hexdigest()}, "
                f"not {RECEIPT}#/protocol/implementation/sha256 {digest}", path=kept, pointer="/protocol/implementation/sha256")
    elif revision is not None or digest is not None:
        ctx.run.facts.implementation_bound = True
        yield finding("telemetry.provenance", Status.PASS, "implementation-bound",
                f"bench implementation bound by {'revision ' + revision if revision else 'sha256 ' + str(digest)} (recorded, not fetched)",
                path=RECEIPT, pointer="/protocol/implementation")
    else:
        yield finding("telemetry.provenance", Status.UNVERIFIED, "implementation-unbound",
                f"the bench implementation ({impl.get('package', 'unnamed')} {impl.get('version', '')}".rstrip()
                + ") has no exact revision or digest: telemetry only, no qualification", path=RECEIPT, pointer="/protocol/implementation")


def _gauges(data: bytes, names: dict[str, str]) -> dict[str, Decimal]:
    """Return the sum over series of each named gauge in a Prometheus text scrape (absent names are left out)."""
    out: dict[str, Decimal] = {}
    from prometheus_client.parser import text_string_to_metric_families  # on first use: a heavy import

    try:
        families = list(text_string_to_metric_families(data.decode("utf-8")))
    except (ValueError, UnicodeDecodeError, IndexError):
        return out
    for key, name in names.items():
        for fam in families:
            if fam.name == name and fam.type == "gauge":
                out[key] = sum((Decimal(repr(s.value)) for s in fam.samples if s.name == name), Decimal(0))
    return out


@check("telemetry.occupancy", title="Boundary occupancy: the idle precondition against the before-scrape, running above the cap",
       requires=("telemetry.carriers",))
def occupancy(ctx: Context) -> Iterator[Finding]:
    """
    Read `vllm:num_requests_running`/`waiting` (gauges, summed over series) from both scrapes.

    FAIL `idle-precondition-violated` when `preconditions.idle` is stated and
    the before-scrape shows running or waiting requests (PASS `idle-before`
    when it shows none, UNVERIFIED `occupancy-unread` without the gauges);
    FAIL `boundary-as-interval` when `standings.occupancy` is `interval`
    without a retained `occupancy_trace`; UNVERIFIED `occupancy-above-cap`
    when a boundary shows more running than `max_concurrency` or anything
    waiting (a qualification refuses), else UNVERIFIED `boundary-only`;
    the preemption counter of both scrapes (`_preemptions`: PASS
    `no-preemptions`, UNVERIFIED `preemptions-observed`). Stores
    `ctx.run.facts.occupancy_within_cap` and `ctx.run.facts.no_preemptions`.
    """
    receipt, profile = _r(ctx), _p(ctx)
    ev, names = receipt["evidence"], profile["occupancy_gauges"]
    before, after = (_gauges(ctx.run.facts.carrier[w], names) for w in ("metrics_before", "metrics_after"))
    if (receipt.get("preconditions") or {}).get("idle"):
        busy = {k: str(v) for k, v in before.items() if v != 0}
        if "running" not in before:
            yield finding("telemetry.occupancy", Status.UNVERIFIED, "occupancy-unread",
                    f"{ev['metrics_before']['path']}: no {names['running']} gauge; the idle precondition cannot be checked",
                    path=ev["metrics_before"]["path"])
        elif busy:
            yield finding("telemetry.occupancy", Status.FAIL, "idle-precondition-violated",
                    f"{RECEIPT}#/preconditions/idle is true, but {ev['metrics_before']['path']} shows {busy} before the run",
                    path=ev["metrics_before"]["path"], observed=busy)
        else:
            yield finding("telemetry.occupancy", Status.PASS, "idle-before", f"{ev['metrics_before']['path']}: nothing running or waiting before the run",
                    path=ev["metrics_before"]["path"])
    if (receipt["standings"].get("occupancy") == "interval") and "occupancy_trace" not in ev:
        yield finding("telemetry.occupancy", Status.FAIL, "boundary-as-interval",
                f"{RECEIPT}#/standings/occupancy says interval, but only two boundary scrapes are retained: not occupancy during the run",
                path=RECEIPT, pointer="/standings/occupancy")
    yield from _preemptions(ctx)
    cap = receipt["protocol"]["max_concurrency"]
    seen = {"before": before, "after": after}
    over = {w: {k: str(v) for k, v in g.items()} for w, g in seen.items()
            if (cap is not None and g.get("running", Decimal(0)) > cap) or g.get("waiting", Decimal(0)) > 0}
    known = all("running" in g for g in seen.values())
    ctx.run.facts.occupancy_within_cap = known and cap is not None and not over
    if over:
        yield finding("telemetry.occupancy", Status.UNVERIFIED, "occupancy-above-cap",
                f"boundary scrapes show {over} above the client cap {cap} or waiting: engine work beyond this client; a qualification refuses",
                path=ev["metrics_after"]["path"], observed=over)
    else:
        yield finding("telemetry.occupancy", Status.UNVERIFIED, "boundary-only",
                f"boundary occupancy {({w: {k: str(v) for k, v in g.items()} for w, g in seen.items()})} (cap {cap}): two boundary "
                "scrapes, not occupancy during the run", path=ev["metrics_after"]["path"])


def _counter(data: bytes, name: str) -> Decimal | None:
    """Return the sum over series of the counter sample `name` (e.g. `vllm:num_preemptions_total`) in a Prometheus text scrape, or None when absent."""
    from prometheus_client.parser import text_string_to_metric_families  # on first use: a heavy import

    try:
        families = list(text_string_to_metric_families(data.decode("utf-8")))
    except (ValueError, UnicodeDecodeError, IndexError):
        return None
    values = [Decimal(repr(s.value)) for fam in families if fam.type == "counter" for s in fam.samples if s.name == name]
    return sum(values, Decimal(0)) if values else None


def _preemptions(ctx: Context) -> Iterator[Finding]:
    """
    Read the preemption counter from both boundary scrapes (profile `preemption_counter`).

    PASS `no-preemptions` when both carry it and it did not rise; UNVERIFIED
    `preemptions-observed` when it rose (the engine preempted work in the
    window: a qualification refuses); nothing when either scrape lacks it or
    it went down (a reset): then `ctx.run.facts.no_preemptions` stays False and
    a claimed qualification names it unmet.
    """
    receipt, name = _r(ctx), _p(ctx)["preemption_counter"]
    before, after = (_counter(ctx.run.facts.carrier[w], name) for w in ("metrics_before", "metrics_after"))
    ctx.run.facts.no_preemptions = False
    if before is None or after is None or after < before:
        return
    path = receipt["evidence"]["metrics_after"]["path"]
    if after == before:
        ctx.run.facts.no_preemptions = True
        yield finding("telemetry.occupancy", Status.PASS, "no-preemptions", f"{name} did not rise between the boundary scrapes ({before})", path=path)
        return
    yield finding("telemetry.occupancy", Status.UNVERIFIED, "preemptions-observed",
            f"{name} rose by {after - before} between the boundary scrapes: the engine preempted work in this window, "
            "so it is not the best standing; a qualification refuses", path=path, observed=str(after - before))


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


#: The producer's checks in the order `verifier.core.receipt_pipeline` hands them to `roster.in_families`: plan (carriers,
#: process outcome, protocol echo, provenance, occupancy), then the rules (`gate.rules`: last, they read what every check
#: before them established); it adds the reader's `schema.documents` (strict JSON, producer, schema) and
#: `derivation.claims` over `stated` (client facts, engine delta, surplus, refused facts and conclusions, rate) and the
#: stand-ins, in roster order.
CHECKS = (carriers, process, protocol, provenance, occupancy, telemetry_rules)
