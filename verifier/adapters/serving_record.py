"""
Reader for `serving-performance-v1` records with a `serving-cell-v1` performance cell.

Detection: `suite_version == "serving-performance-v1"`. The record retains one
entry per case (`duration_ms`, `outcome`, `primary_outcome`) and a list of
metrics. What the cases retain re-derives: the outcome counts, the completion
median and the linear-interpolated completion p95 (the record's own metric
definitions say "median" and "Linear-interpolated p95 over all recorded
request durations, including failures"). Metrics the cases do not retain
(throughput, first-output medians, stream-interval median, batch duration) are
UNVERIFIED with that reason. `METRICS` below is the data that says which is
which; a metric id not in it is UNVERIFIED.

Reader and model: after `serving.schema`, `model` reads the record onto the
evidence model (`readers.serving_record`: one receipt per case with its
duration in ms, the counts and metrics as stated claims with location and
unit); `serving.counts` and `serving.metrics` judge those receipts.

Why code, not a shipped profile: a profile can say the counts (`count` per
outcome) and the median and p95 of the durations, but not the rules that
read the record's own words: the percentile method chosen by each metric's
`definition` text (and `definition-contradicts-value` when the value is the
other method's), the version chosen by exact types (`schema_version` 1, not
`true`), and `serving_rules` (RFC 3339 clock envelope, the sweep-line peak
of case intervals, digests named in condition labels). So it is code.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from verifier import stats
from verifier.adapters import readers
from verifier.evidence import Evidence
from verifier.jsonio import json_pointer, schema_message
from verifier.model import Finding, Status
from verifier.pipeline import Context, check
from verifier.roster import in_families
from verifier.trust import schema_validator
from verifier.adapters.serving_rules import record_rules

__all__ = ["KIND", "METRICS", "PIPELINE", "VERSION", "counts", "detects", "metrics", "model", "producer", "record_rules", "record_schema"]

KIND = "serving-performance-v1"

#: metric id -> how it re-derives from the cases: (statistic, q) over every
#: recorded `duration_ms` (failures included), or the reason it cannot.
METRICS: dict[str, tuple[str, Decimal | None] | str] = {
    "completion_median_ms": ("median", None),
    "completion_p95_ms": ("linear", Decimal(95)),
    "completion_throughput_tps": "the record retains no per-case completion token counts",
    "first_generated_median_ms": "the record retains no per-case first-output timings",
    "first_final_content_median_ms": "the record retains no per-case first-final-content timings",
    "stream_chunk_interval_median_ms": "the record retains no stream chunk intervals",
    "batch_duration_seconds": "the record retains no per-case start and end times",
}


#: The one producer version this reader knows: (pointer, value) pairs the record must state.
VERSION = (("/suite_version", KIND), ("/schema_version", 1), ("/performance/version", "serving-cell-v1"))


def detects(document: Any) -> bool:
    """Return whether `document` is recognisably a serving-performance record (any version: `suite_version` `serving-performance-*`)."""
    return (isinstance(document, dict) and isinstance(document.get("suite_version"), str)
            and document["suite_version"].startswith("serving-performance-"))


def _at(document: Any, pointer: str) -> Any:
    node = document
    for part in pointer.strip("/").split("/"):
        node = node.get(part) if isinstance(node, dict) else None
    return node


@check("serving.producer", title="The record names the known producer version (serving-performance-v1, schema 1, serving-cell-v1)")
def producer(ctx: Context) -> Iterator[Finding]:
    """
    PASS `producer-identified`, or UNVERIFIED `unknown-producer-version` (never FAIL) when
    the record is of the family but states another suite, schema or cell version; every
    later check is then `blocked-by` (`docs/receipts.md`).
    """
    document, name = ctx.options["document"], ctx.options["name"]
    stated = {ptr: _at(document, ptr) for ptr, _ in VERSION}
    # `type(...) is` keeps `True` from passing as schema_version 1 and `1.0` from passing as 1
    other = [(ptr, want) for ptr, want in VERSION if not (type(stated[ptr]) is type(want) and stated[ptr] == want)]
    if other:
        yield _f("serving.producer", Status.UNVERIFIED, "unknown-producer-version",
                 f"{name}: a serving-performance record, but "
                 + "; ".join(f"{ptr} is {stated[ptr]!r}, not {want!r}" for ptr, want in other)
                 + ": an unknown producer version, nothing in it is re-derived",
                 path=name, pointer=other[0][0], expected=dict(VERSION), observed={k: str(v) for k, v in stated.items()})
        return
    ctx.data["producer"] = {"producer": "serving-performance suite", "version": f"{KIND} schema 1 / serving-cell-v1"}
    yield _f("serving.producer", Status.PASS, "producer-identified",
             f"{name}: producer serving-performance suite; version: {KIND}, schema_version 1, serving-cell-v1",
             path=name, observed={k: str(v) for k, v in stated.items()})


def _f(check_id: str, status: Status, code: str, message: str, **kw: Any) -> Finding:
    return Finding(check=check_id, status=status, code=code, message=message, **kw)


@check("serving.schema", title="The record validates against serving-performance-v1.schema.json", requires=("serving.producer",))
def record_schema(ctx: Context) -> Iterator[Finding]:
    """PASS `valid` or FAIL `schema-violation` per error; a record failing it blocks the derivations."""
    document = ctx.options["document"]
    name = ctx.options["name"]
    validator = schema_validator(ctx.assets.schema(KIND))
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    for e in errors:
        ptr = json_pointer(e.absolute_path)
        yield _f("serving.schema", Status.FAIL, "schema-violation", f"{name} at {ptr or '/'}: {schema_message(e)}", path=name, pointer=ptr)
    if not errors:
        yield _f("serving.schema", Status.PASS, "valid", f"{name} is valid against {KIND}.schema.json", path=name)


def model(ctx: Context) -> Evidence:
    """
    Return (and cache in `ctx.data["evidence"]`) the record read onto the evidence model (`readers.serving_record`).

    Call only after `serving.schema` passed: the reader relies on the schema's types.
    """
    if "evidence" not in ctx.data:
        ctx.data["evidence"] = readers.serving_record(ctx.options["document"], ctx.options["name"])
    return ctx.data["evidence"]  # type: ignore[no-any-return]


@check("serving.counts", title="Declared and outcome counts re-derive from the cases", requires=("serving.schema",))
def counts(ctx: Context) -> Iterator[Finding]:
    """
    PASS `derived` or FAIL `count-mismatch` for `counts.declared`, each `counts.outcomes` entry and `counts.primary_passes`.

    The cases are the model's receipts, the counts its stated claims (an outcome the record does not count states 0).
    """
    name = ctx.options["name"]
    evidence = model(ctx)
    cases = evidence.receipts
    stated = {c.id: int(c.quantity.value) for c in evidence.claims if c.id.startswith("counts/") and c.quantity is not None}
    observed = Counter(c.dims["outcome"] for c in cases)
    outcomes = {k.removeprefix("counts/outcomes/") for k in stated if k.startswith("counts/outcomes/")}
    derived: list[tuple[str, Any, int, str]] = [("/counts/declared", stated["counts/declared"], len(cases), "number of cases")]
    for outcome in sorted(outcomes | set(observed)):
        derived.append((f"/counts/outcomes/{outcome}", stated.get(f"counts/outcomes/{outcome}", 0), observed.get(outcome, 0),
                        f"cases with outcome {outcome!r}"))
    if "counts/primary_passes" in stated:
        derived.append(("/counts/primary_passes", stated["counts/primary_passes"],
                        sum(1 for c in cases if c.dims["primary_outcome"] == "pass"), "cases with primary_outcome 'pass'"))
    for ptr, claimed, value, how in derived:
        if claimed == value:
            yield _f("serving.counts", Status.PASS, "derived", f"{ptr} = {claimed} re-derives ({how})", path=name, pointer=ptr,
                     expected=value, observed=claimed, derivation=how)
        else:
            yield _f("serving.counts", Status.FAIL, "count-mismatch", f"{ptr} = {claimed}, but the cases give {value} ({how})",
                     path=name, pointer=ptr, expected=value, observed=claimed, derivation=how)


@check("serving.metrics", title="Metrics re-derive from the cases; those the record cannot support are UNVERIFIED",
       requires=("serving.schema",))
def metrics(ctx: Context) -> Iterator[Finding]:
    """
    Re-derive each metric listed in `METRICS` from the cases' `duration_ms`.

    PASS `derived`; FAIL `metric-mismatch` or `samples-mismatch`; UNVERIFIED
    `not-derivable` with the reason from `METRICS`.
    """
    document, name = ctx.options["document"], ctx.options["name"]
    durations = [q.value for c in model(ctx).receipts if (q := c.quantities["duration"]) is not None]  # ms, as recorded
    for i, metric in enumerate(document["metrics"]):
        ptr = f"/metrics/{i}/value"
        how = METRICS.get(metric["id"], "no derivation is known for this metric id")
        claimed = Decimal(metric["value"])
        if isinstance(how, str):
            yield _f("serving.metrics", Status.UNVERIFIED, "not-derivable", f"{metric['id']} = {claimed} {metric.get('unit', '')}: not re-derived: {how}",
                     path=name, pointer=ptr, observed=str(claimed))
            continue
        statistic, q = how
        words = _definition_statistic(metric.get("definition"))
        if statistic != "median" and words == "both":
            yield _f("serving.metrics", Status.FAIL, "definition-contradicts-value",
                     f"{metric['id']}: its definition names both nearest-rank and linear interpolation", path=name,
                     pointer=f"/metrics/{i}/definition", observed=metric.get("definition"))
            continue
        if statistic != "median" and words is not None:
            statistic = words  # the record's own words say which percentile it computed
        if not durations:
            yield _f("serving.metrics", Status.FAIL, "metric-mismatch", f"{metric['id']}: no case records a duration", path=name, pointer=ptr)
            continue
        if statistic == "median":
            result = stats.derive("median", durations, of="recorded duration_ms (failures included)")
        else:  # "nearest-rank" (as the record's definition says) or "linear"
            note = ", as its definition says" if statistic == "nearest-rank" else ""
            result = stats.derive("percentile", durations, q=q or Decimal(100), method=statistic,
                                  of=f"recorded duration_ms{note} (failures included)")
        derived, text = result.value, result.text
        if metric.get("samples") is not None and metric["samples"] != len(durations):
            yield _f("serving.metrics", Status.FAIL, "samples-mismatch", f"{metric['id']} says {metric['samples']} samples, the cases record {len(durations)} durations",
                     path=name, pointer=f"/metrics/{i}/samples", expected=len(durations), observed=metric["samples"])
            continue
        cmp = stats.compare(claimed, derived, statistic=result.statistic, values=result.inputs)
        detail = {"claim": metric["id"], **cmp.detail(claimed, derived)}
        if cmp.holds:
            yield _f("serving.metrics", Status.PASS, "derived", f"{metric['id']} = {claimed} re-derives ({derived})", path=name, pointer=ptr,
                     expected=str(derived), observed=detail, derivation=text)
        elif words is not None and _other_statistic_matches(statistic, durations, q, claimed):
            other = "linear interpolation" if statistic == "nearest-rank" else "nearest-rank"
            yield _f("serving.metrics", Status.FAIL, "definition-contradicts-value",
                     f"{metric['id']} = {claimed}: its definition says {statistic}, which gives {derived}; the value is the {other} one",
                     path=name, pointer=ptr, expected=str(derived), observed=detail, derivation=text)
        else:
            yield _f("serving.metrics", Status.FAIL, "metric-mismatch", f"{metric['id']} = {claimed}, the cases give {derived}", path=name, pointer=ptr,
                     expected=str(derived), observed=detail, derivation=text)


def _definition_statistic(definition: Any) -> str | None:
    """Return the percentile a metric's definition names: `nearest-rank`, `linear`, `both`, or None (names neither)."""
    if not isinstance(definition, str):
        return None
    text = definition.lower()
    nearest = "nearest-rank" in text or "nearest rank" in text
    linear = "linear" in text or "interpolat" in text
    return "both" if nearest and linear else "nearest-rank" if nearest else "linear" if linear else None


def _other_statistic_matches(statistic: str, durations: list[Decimal], q: Decimal | None, claimed: Decimal) -> bool:
    other = stats.derive("percentile", durations, q=q or Decimal(100), method="linear" if statistic == "nearest-rank" else "nearest-rank")
    return stats.compare(claimed, other.value, statistic=other.statistic, values=other.inputs).holds


#: What this reader supplies of the evidence model (`verifier.evidence.PARTS`), and why the families it does not feed stand in.
HELD = frozenset({"receipts", "claims"})
NOTES = {"integrity": "one record file, listed in no manifest",
         "gate": "a record names no gate; this reader judges the one producer version it knows (serving.producer)",
         "plan": "the record states no frozen plan; its declared count is re-derived from its cases (serving.counts)",
         "coverage": "a serving-performance record retains no output media",
         "unchanged": "one record file, read once"}

#: In roster order (`verifier.roster.in_families`): schema (producer, schema), derivation (counts, metrics), gate
#: rules (the record's own statements agree: `serving_rules.RULES`), stand-ins for the rest.
PIPELINE = in_families((producer, record_schema, counts, metrics, record_rules), KIND, HELD, NOTES)
