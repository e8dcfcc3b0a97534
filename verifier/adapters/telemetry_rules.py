"""
Checks of seed 000 (`shared/seeds/telemetry-receipt-review.txt`) over a
serving-load telemetry receipt: what a client bench run and two boundary
scrapes can and cannot establish (its standings and qualification are the
rule pack `verifier/checks/packs/telemetry.py`).

Every check here runs after `schema.documents`, so each field it reads has
the type `schemas/serving-load-telemetry-v1.schema.json` gives it (a wrong
type is a schema finding, never a crash here). Lists of refused facts and
conclusions, stdout protocol labels and gauge names are profile data in
that schema. The plan checks (protocol echo, provenance, occupancy) read the
carrier bytes `telemetry.carriers` kept in `ctx.run.facts.carrier`; `refused`
and `rate` are rows of the reader's `stated` (`derivation.claims`), the rate
over the printed facts it replayed.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from verifier.engine import stats
from verifier.engine.derive import Refused, Source, Stated
from verifier.model.findings import Finding, Status, finding
from verifier.engine.pipeline import Context, check

__all__ = ["RATE", "occupancy", "protocol", "provenance", "rate", "refused"]

RECEIPT = "telemetry-receipt.json"
HEX40 = re.compile(r"[0-9a-fA-F]{40}")


def _r(ctx: Context) -> dict[str, Any]:
    return ctx.run.doc[RECEIPT]  # type: ignore[no-any-return]


def _p(ctx: Context) -> dict[str, Any]:
    return ctx.run.profile  # type: ignore[no-any-return]


def refused(ctx: Context) -> list[Stated]:
    """
    Return the rows (`derive.Stated`, `derivation.claims`) refusing facts and conclusions the client evidence cannot carry.

    FAIL `bucket-peak-as-engine-concurrency` per `facts` key of the profile's
    `refused_facts` that is stated (not null; its value the finding's
    observed); FAIL `causal-conclusion` per
    `conclusions` key of `refused_conclusions` whose value is not null or an
    `unestablished` word (PASS `cause-unestablished` when it is); UNVERIFIED
    `conclusion-not-checked` for any other conclusion (a stated conclusion's
    text is its finding's observed, the claims table's claimed); PASS
    `no-unsupported-claims` when none is stated.
    """
    receipt, profile = _r(ctx), _p(ctx)
    facts, said = receipt.get("facts") or {}, receipt.get("conclusions") or {}

    def row(pointer: str | None, status: Status, code: str, message: str, claimed: Any = None) -> Stated:
        return Stated(pointer or "claims", claimed, pointer, None, path=RECEIPT, refused=Refused(status, code, message))

    out = [row(f"/facts/{key}", Status.FAIL, "bucket-peak-as-engine-concurrency", f"{RECEIPT}#/facts/{key} = {facts[key]!r}: {why}", facts[key])
           for key, why in profile["refused_facts"].items() if facts.get(key) is not None]
    for key, value in said.items():
        why, pointer = profile["refused_conclusions"].get(key), f"/conclusions/{key}"
        if why is None:
            out.append(row(pointer, Status.UNVERIFIED, "conclusion-not-checked", f"{RECEIPT}#{pointer} = {value!r}: no rule of this reader establishes it",
                           value))
        elif value is None or value in profile["unestablished"]:
            out.append(row(pointer, Status.PASS, "cause-unestablished", f"{RECEIPT}#{pointer}: left unestablished ({why})"))
        else:
            out.append(row(pointer, Status.FAIL, "causal-conclusion",
                           f"{RECEIPT}#{pointer} = {value!r} is a causal or policy conclusion the telemetry cannot support: {why}", value))
    return out or [row(None, Status.PASS, "no-unsupported-claims", "no engine-concurrency, foreign-work or causal conclusion is stated")]


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


#: The client rate: the printed output tokens over the printed benchmark duration.
RATE = {"statistic": "ratio_of_sums", "numerator": ("output_tokens",), "denominator": "benchmark_duration_s"}


def rate(ctx: Context, source: Source, unread: str | None = None) -> list[Stated]:
    """
    Return the row (`derive.Stated`, `derivation.claims`) of `facts.rate` = {output_tokens_per_s, interval_s} over the printed facts `source` gives.

    `unread` says why the printed facts did not replay (None: they did).
    FAIL `rate-from-zero-duration` when the interval or the printed
    benchmark duration is 0 (the stated rate its observed); UNVERIFIED
    `not-replayed` naming `unread`; FAIL `authored-interval` when `interval_s` is
    not stdout's `Benchmark duration (s)` at its printed precision (a scrape
    envelope or a convenient second is not the client service interval);
    else the rate is output_tokens / duration (`RATE`, the duration's print
    half-unit as input error: PASS `derived` / FAIL `claim-mismatch`). PASS
    `no-rate-stated` without a rate.
    """
    receipt = _r(ctx)
    stated = (receipt.get("facts") or {}).get("rate")

    def refuse(status: Status, code: str, message: str, pointer: str | None, claimed: Decimal | None = None, **kw: Any) -> list[Stated]:
        return [Stated("facts/rate", claimed, pointer, None, path=RECEIPT, refused=Refused(status, code, message, **kw))]

    if stated is None:
        return refuse(Status.PASS, "no-rate-stated", "no client rate is stated", None)
    claimed, interval = Decimal(stated["output_tokens_per_s"]), Decimal(stated["interval_s"])
    if unread is None:
        (tokens,), (duration,) = source.sums({}, RATE["numerator"], RATE["denominator"])[0]
    if interval == 0 or unread is None and duration == 0:
        return refuse(Status.FAIL, "rate-from-zero-duration", f"{RECEIPT}#/facts/rate = {claimed} tokens/s over interval {interval} s "
                      f"(stdout duration {'unread' if unread else f'{duration} s'}): a zero duration yields no rate", "/facts/rate", claimed)
    if unread is not None:
        return refuse(Status.UNVERIFIED, "not-replayed", f"{RECEIPT}#/facts/rate/output_tokens_per_s = {claimed}: not derived (output tokens / "
                      f"benchmark duration): {unread}", "/facts/rate/output_tokens_per_s", claimed)
    if not stats.compare(duration, interval).holds:  # the interval is the duration as stdout prints it, at its printed place
        return refuse(Status.FAIL, "authored-interval",
                      f"{RECEIPT}#/facts/rate/interval_s = {interval} s is not the benchmark's own duration {duration} s printed in "
                      f"{receipt['evidence']['stdout']['path']}: a rate over an authored interval (or the scrape envelope) is not the client rate",
                      "/facts/rate/interval_s", expected=str(duration), observed=str(interval))
    return [Stated("facts/rate/output_tokens_per_s", claimed, "/facts/rate/output_tokens_per_s", RATE, source,
                   path=RECEIPT, how=f"output tokens {tokens} / benchmark duration {duration} s", input_error=stats.half_unit(duration))]


def _gauges(data: bytes, names: dict[str, str]) -> dict[str, Decimal]:
    """Return the sum over series of each named gauge in a Prometheus text scrape (absent names are left out)."""
    out: dict[str, Decimal] = {}
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
