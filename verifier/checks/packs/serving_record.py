"""
The rule pack of `serving-performance-v1` records: the record's own statements, checked against each other (`gate.rules`).

Every rule reads only fields that passed `schemas/serving-performance-v1.schema.json`
(the check requires `schema.documents`), from the validated document: the
model (`adapters/readers.py` `serving_record`) holds the cases and stated
numbers, not the status, clocks, cell, deployment or conditions. A field of
the wrong type is a schema finding, never a crash here. Each rule yields one PASS or FAIL finding with a
stable code (`RULES`); a rule whose fields the record does not state yields
nothing (the other rules still run, and the check as a whole is never empty).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from verifier.engine import stats
from verifier.model.evidence import instant
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context, check

__all__ = ["CHECKS", "RULES", "record_rules"]

#: rule code (FAIL) -> what holds when it PASSes
RULES = {
    "run-not-completed": "status is completed",
    "clock-order": "completed_at is not before started_at",
    "batch-outside-envelope": "the measured batch fits the run's started_at..completed_at envelope",
    "case-longer-than-batch": "no case lasted longer than the measured batch",
    "peak-without-timestamps": "an observed peak in-flight is stated only with per-case start and end times",
    "peak-mismatch": "the observed peak in-flight equals the sweep-line peak of the case intervals",
    "peak-above-cap": "the observed peak in-flight does not exceed the client concurrency limit",
    "transport-above-declared": "transport successes do not exceed the declared count",
    "token-range-inverted": "actual input token minimum is not above the maximum",
    "pass-with-failure-stage": "no passing case names a failure stage",
    "duplicate-case-id": "case ids are unique",
    "not-actual-inference": "evidence_mode is actual_inference",
    "correctness-not-attested": "correctness counts are stated only with weights_verified true",
    "digest-malformed": "every SHA-256 condition is 64 hex characters",
}

HEX64 = re.compile(r"[0-9a-fA-F]{64}")


def _f(status: Status, code: str, message: str, name: str, pointer: str | None = None, **kw: Any) -> Finding:
    return Finding(check="gate.rules", status=status, code=code if status == Status.FAIL else "holds",
                   message=message, path=name, pointer=pointer, **kw)


def _rule(ok: bool, code: str, fail_message: str, name: str, pointer: str | None = None, **kw: Any) -> Finding:
    if ok:
        return _f(Status.PASS, code, f"{RULES[code]}", name, pointer, **kw)
    return _f(Status.FAIL, code, fail_message, name, pointer, **kw)


def _seconds(metric: dict[str, Any]) -> Decimal | None:
    scale = {"s": Decimal(1), "ms": Decimal("0.001")}.get(metric.get("unit", ""))
    return None if scale is None else Decimal(metric["value"]) * scale


@check("gate.rules", title="The record's own statements agree with each other (status, clocks, envelope, peak, counts, cases, digests)",
       requires=("schema.documents",))
def record_rules(ctx: Context) -> Iterator[Finding]:
    """
    Run every rule of `RULES` whose fields the record states; PASS `holds` or FAIL with the rule's code.

    Clocks are RFC 3339 (validated by the schema) compared as instants to the nanosecond (`evidence.instant`);
    durations in the record's units (`ms`, `s`); the peak is
    `stats.peak_in_flight` over half-open case intervals.
    """
    d, name = ctx.options["document"], ctx.options["name"]
    perf, cases, counts = d["performance"], d["cases"], d["counts"]
    yield _rule(d["status"] == "completed", "run-not-completed",
                f"status is {d['status']!r}, not 'completed': the run did not finish, its numbers are not a result", name, "/status",
                expected="completed", observed=d["status"])
    started, completed = instant(d["started_at"]), instant(d["completed_at"])  # nanoseconds; any RFC 3339 case and offset
    envelope = Decimal(completed - started).scaleb(-9)
    yield _rule(completed >= started, "clock-order", f"completed_at {d['completed_at']} is before started_at {d['started_at']}",
                name, "/completed_at", expected=f">= {d['started_at']}", observed=d["completed_at"])
    for i, metric in enumerate(d["metrics"]):
        if metric["id"] != "batch_duration_seconds":
            continue
        batch = _seconds(metric)
        if batch is None:
            continue
        yield _rule(Decimal(0) < batch <= envelope, "batch-outside-envelope",
                    f"measured batch of {batch} s lies outside the run's envelope started_at..completed_at = {envelope} s",
                    name, f"/metrics/{i}/value", expected=f"0 < batch <= {envelope}", observed=str(batch))
        longest = max((Decimal(c["duration_ms"]) for c in cases if c["duration_ms"] is not None), default=None)
        if longest is not None:
            yield _rule(longest / 1000 <= batch, "case-longer-than-batch",
                        f"a case lasted {longest} ms, longer than the measured batch of {batch} s", name,
                        f"/metrics/{i}/value", expected=f"<= {batch * 1000} ms", observed=str(longest))
    peak = perf.get("observed_peak_inflight")
    if peak is not None:
        timed = [c for c in cases if "started_at" in c and "completed_at" in c]
        if len(timed) < len(cases) or not cases:
            yield _rule(False, "peak-without-timestamps",
                        f"observed_peak_inflight = {peak} is stated, but {len(cases) - len(timed)} of {len(cases)} cases record no "
                        "start and end time: a peak without request timestamps is not an observation", name,
                        "/performance/observed_peak_inflight", observed=peak)
        else:
            derived = stats.peak_in_flight([(instant(c["started_at"]), instant(c["completed_at"])) for c in timed])
            yield _rule(stats.compare(peak, Decimal(derived), exact=True).holds, "peak-mismatch",
                        f"observed_peak_inflight = {peak}, but the case intervals overlap at most {derived} at once",
                        name, "/performance/observed_peak_inflight", expected=derived, observed=peak)
        cap = perf.get("client_concurrency_limit")
        if cap is not None:
            yield _rule(peak <= cap, "peak-above-cap",
                        f"observed_peak_inflight = {peak} exceeds client_concurrency_limit = {cap}",
                        name, "/performance/observed_peak_inflight", expected=f"<= {cap}", observed=peak)
    if perf.get("transport_successes") is not None:
        ts = perf["transport_successes"]
        yield _rule(ts <= counts["declared"], "transport-above-declared",
                    f"transport_successes = {ts} exceeds the declared count {counts['declared']}",
                    name, "/performance/transport_successes", expected=f"<= {counts['declared']}", observed=ts)
    lo, hi = perf.get("actual_input_tokens_min"), perf.get("actual_input_tokens_max")
    if lo is not None and hi is not None:
        yield _rule(lo <= hi, "token-range-inverted", f"actual_input_tokens_min = {lo} is above actual_input_tokens_max = {hi}",
                    name, "/performance/actual_input_tokens_min", expected=f"<= {hi}", observed=lo)
    staged = [i for i, c in enumerate(cases) if c["outcome"] == "pass" and c.get("failure_stage") is not None]
    yield _rule(not staged, "pass-with-failure-stage",
                f"{len(staged)} passing case(s) name a failure stage (first: /cases/{staged[0]}, "
                f"{cases[staged[0]]['failure_stage']!r})" if staged else "", name,
                f"/cases/{staged[0]}/failure_stage" if staged else "/cases")
    dupes = sorted(k for k, n in Counter(c["case_id"] for c in cases).items() if n > 1)
    yield _rule(not dupes, "duplicate-case-id", f"case id(s) {', '.join(map(repr, dupes))} occur more than once",
                name, "/cases", observed=dupes or None)
    yield _rule(d["evidence_mode"] == "actual_inference", "not-actual-inference",
                f"evidence_mode is {d['evidence_mode']!r}: the numbers do not come from actual inference",
                name, "/evidence_mode", expected="actual_inference", observed=d["evidence_mode"])
    verified = d.get("deployment", {}).get("weights_verified")
    if verified is not None:
        graded = "primary_passes" in counts or bool(counts["outcomes"])
        yield _rule(verified or not graded, "correctness-not-attested",
                    "deployment.weights_verified is false, yet the record states correctness counts "
                    "(counts.outcomes / counts.primary_passes): with unverified weights they are not attested",
                    name, "/deployment/weights_verified", expected=True, observed=verified)
    for i, cond in enumerate(d.get("conditions", [])):
        label, value = cond["label"], cond["value"]
        says_digest = "sha-256" in label.lower() or "sha256" in label.lower() or (isinstance(value, str) and value.startswith("sha256:"))
        if not says_digest:
            continue
        digest = value[len("sha256:"):] if isinstance(value, str) and value.startswith("sha256:") else value
        yield _rule(isinstance(digest, str) and HEX64.fullmatch(digest) is not None, "digest-malformed",
                    f"condition {label!r} is {value!r}: a SHA-256 is 64 hex characters", name, f"/conditions/{i}/value",
                    observed=value)


#: The producer's checks (`verifier.core.receipt_pipeline` adds the reader's `schema.documents` and `derivation.claims` and
#: the stand-ins, in roster order): the record's own statements agreeing with each other (`gate.rules`).
CHECKS = (record_rules,)
