"""
Reader for `serving-performance-v1` records with a `serving-cell-v1` performance cell: data and a source, no check.

Detection: `suite_version` `serving-performance-*`; `VERSION` is the one
version read (`schema.documents`). `model` reads the record onto the evidence
model (`readers.serving_record`: a receipt per case, the counts and metrics
as stated claims); `stated` gives each stated number with the rule deriving
it from the cases (`Cases`), in the profile language: a `count` per outcome,
the median and linear p95 of every recorded duration (the record's metric
definitions say so), or why not (`METRICS`: what the cases do not retain).
`derivation.claims` (`checks.derivation.claims`) derives and judges
them; the record's own consistency rules are `checks/packs/serving_record.py`.

Why code, not a shipped profile: the profile language cannot say the
percentile method chosen by each metric's `definition` text (and
`definition-contradicts-value` when the value is the other method's), the
version chosen by exact types (`schema_version` 1, not `true`), nor the rule
pack (RFC 3339 clock envelope, sweep-line peak, digests in condition labels).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from verifier.adapters import readers
from verifier.engine.derive import Stated
from verifier.model.evidence import Evidence, Receipt
from verifier.engine.pipeline import Context
from verifier.readers.select import RecordSource
from verifier.engine.stats import Underivable

__all__ = ["HELD", "KIND", "METRICS", "NOTES", "PRODUCER", "VERSION", "Cases", "detects", "model", "stated"]

KIND = "serving-performance-v1"

#: metric id -> the rule deriving it over every recorded `duration_ms` (failures included), or why it cannot be.
METRICS: dict[str, dict[str, Any] | str] = {
    "completion_median_ms": {"statistic": "median", "value": "duration"},
    "completion_p95_ms": {"statistic": "percentile", "q": Decimal(95), "method": "linear", "value": "duration"},
    "completion_throughput_tps": "the record retains no per-case completion token counts",
    "first_generated_median_ms": "the record retains no per-case first-output timings",
    "first_final_content_median_ms": "the record retains no per-case first-final-content timings",
    "stream_chunk_interval_median_ms": "the record retains no stream chunk intervals",
    "batch_duration_seconds": "the record retains no per-case start and end times",
}

#: The one producer version this reader knows: (pointer, value) pairs the record must state, compared with their types.
VERSION = (("/suite_version", KIND), ("/schema_version", 1), ("/performance/version", "serving-cell-v1"))
#: What `schema.documents` says of a record of that version: the producer, and how its findings name it.
PRODUCER = {"producer": "serving-performance suite", "version": f"{KIND} schema 1 / serving-cell-v1"}
FAMILY, VERSION_TEXT, NOUN = "a serving-performance record", f"{KIND}, schema_version 1, serving-cell-v1", "the cases"


def detects(document: Any) -> bool:
    """Return whether `document` is recognisably a serving-performance record (any version: `suite_version` `serving-performance-*`)."""
    return (isinstance(document, dict) and isinstance(document.get("suite_version"), str)
            and document["suite_version"].startswith("serving-performance-"))


def model(ctx: Context) -> Evidence:
    """
    Return (and cache in `ctx.run.evidence`) the record read onto the evidence model (`readers.serving_record`).

    Call only after `schema.documents` passed: the reader relies on the schema's types.
    """
    if ctx.run.evidence is None:
        ctx.run.evidence = readers.serving_record(ctx.options["document"], ctx.options["name"])
    return ctx.run.evidence  # type: ignore[no-any-return]


class Cases(RecordSource):
    """
    The record's cases (the model's receipts) as a `verifier.engine.derive.Source`: `count` the cases whose dimensions equal the
    selection's (none is 0), `values` every recorded duration (failures in, a case recording none out; none at all raises
    `Underivable` `metric-mismatch`).
    """

    __slots__ = ("note",)

    def __init__(self, receipts: list[Receipt], note: str = "") -> None:
        super().__init__(receipts)
        self.note = note  # how the metric's words chose its method, for the derivation text

    def count(self, rule: dict[str, Any], selection: dict[str, Any]) -> tuple[list[Receipt], str]:
        """The cases whose dimensions equal every member of `selection`."""
        return [r for r in self.basis if all(r.dims.get(k) == v for k, v in selection.items())], "cases"

    def values(self, selection: dict[str, Any], name: str) -> tuple[list[Decimal], str]:
        """Every recorded quantity `name` (ms, as recorded)."""
        values = [q.value for r in self.basis if (q := r.quantities[name]) is not None]
        if not values:
            raise Underivable("no case records a duration", "metric-mismatch")
        return values, f"recorded duration_ms{self.note} (failures included)"


def _count(label: str, claimed: int, selection: dict[str, str], how: str, cases: Cases) -> Stated:
    return Stated(label, claimed, label, {"statistic": "count", "selection": selection, "description": how}, cases, mismatch="count-mismatch")


def stated(ctx: Context) -> list[Stated]:
    """
    Return every number the record states with the rule deriving it from the cases, or why none does: the counts (an
    outcome the record does not count states 0), then the metrics (`METRICS`; a percentile's method is the one its
    `definition` names, whose other method's value contradicts it; a definition naming both FAILs by itself).
    """
    evidence, document = model(ctx), ctx.options["document"]
    cases = Cases(list(evidence.receipts))
    counts = {c.id: int(c.quantity.value) for c in evidence.claims if c.id.startswith("counts/") and c.quantity is not None}
    out = [_count("/counts/declared", counts["counts/declared"], {}, "number of cases", cases)]
    outcomes = {k.removeprefix("counts/outcomes/") for k in counts if k.startswith("counts/outcomes/")}
    for outcome in sorted(outcomes | {r.dims["outcome"] for r in cases.basis}):
        out.append(_count(f"/counts/outcomes/{outcome}", counts.get(f"counts/outcomes/{outcome}", 0), {"outcome": outcome},
                          f"cases with outcome {outcome!r}", cases))
    if "counts/primary_passes" in counts:
        out.append(_count("/counts/primary_passes", counts["counts/primary_passes"], {"primary_outcome": "pass"},
                          "cases with primary_outcome 'pass'", cases))
    for i, metric in enumerate(document["metrics"]):
        rule, claimed, ptr = METRICS.get(metric["id"], "no derivation is known for this metric id"), Decimal(metric["value"]), f"/metrics/{i}/value"
        if isinstance(rule, str):
            out.append(Stated(metric["id"], claimed, ptr, None, why=rule, unit=metric.get("unit", "")))
            continue
        words, conflict, alternative = _definition_statistic(metric.get("definition")), None, None
        if rule["statistic"] == "percentile" and words == "both":
            conflict = (f"/metrics/{i}/definition", "its definition names both nearest-rank and linear interpolation", metric.get("definition"))
        elif rule["statistic"] == "percentile" and words is not None:
            rule = {**rule, "method": words}  # the record's own words say which percentile it computed
            other = "linear" if words == "nearest-rank" else "nearest-rank"
            alternative = ({**rule, "method": other}, f"its definition says {words}, which gives {{derived}}; the value is the "
                           f"{'linear interpolation' if other == 'linear' else other} one")
        samples = None if metric.get("samples") is None else (metric["samples"], f"/metrics/{i}/samples", "durations")
        note = ", as its definition says" if rule.get("method") == "nearest-rank" else ""
        out.append(Stated(metric["id"], claimed, ptr, rule, Cases(cases.basis, note), mismatch="metric-mismatch", conflict=conflict,
                          alternative=alternative, samples=samples))
    return out


def _definition_statistic(definition: Any) -> str | None:
    """Return the percentile a metric's definition names: `nearest-rank`, `linear`, `both`, or None (names neither)."""
    if not isinstance(definition, str):
        return None
    text = definition.lower()
    nearest = "nearest-rank" in text or "nearest rank" in text
    linear = "linear" in text or "interpolat" in text
    return "both" if nearest and linear else "nearest-rank" if nearest else "linear" if linear else None


#: What this reader supplies of the evidence model (`verifier.model.evidence.PARTS`), and why the families it does not feed stand in.
HELD = frozenset({"receipts", "claims"})
NOTES = {"integrity": "one record file, listed in no manifest",
         "gate": "a record names no gate; this reader judges the one producer version it knows (schema.documents)",
         "plan": "the record states no frozen plan; its declared count is re-derived from its cases (derivation.claims)",
         "coverage": "a serving-performance record retains no output media",
         "unchanged": "one record file, read once"}
