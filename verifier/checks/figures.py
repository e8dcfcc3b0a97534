"""
Plot data a report carries for people (the HTML report): request latencies, per-frame scores, stream spans.

The checks record what they already computed (`coverage.streams`: each
judged file's stream spans; `quality.rescore`: each re-computed metric's
per-frame scores); `requests` reads the campaign's receipts in run order.
Everything here is plain JSON values (floats in seconds); no I/O. It is kept
in `Report.figures`, which the JSON report does not carry (it is derived, and
large); only the HTML reporter draws it.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

__all__ = ["MAX_SERIES", "MAX_VALUES", "add", "coverage_entry", "receipt_sets", "requests", "RequestRows"]


def add(figures: dict[str, list[dict[str, Any]]], kind: str, entry: dict[str, Any]) -> None:
    """Append `entry` to the figure list `kind` of a run's `figures` (`verifier.engine.pipeline.RunData.figures`)."""
    figures.setdefault(kind, []).append(entry)


def _seconds(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def coverage_entry(name: str, arm: str | None, facts: Any, expected_s: Fraction) -> dict[str, Any]:
    """
    Return one file's coverage row: `{file, arm, expected: [0, N/fps], streams: [{stream, start, end}]}` (seconds).

    `facts` is a `verifier.checks.coverage.MediaFacts`; a stream without
    packets has `start`/`end` None.
    """
    from verifier.media.demux import audio_span, video_span as _video_span

    streams = []
    if facts.video is not None:
        start, end = _video_span(facts.video)
        streams.append({"stream": "video", "start": _seconds(start), "end": _seconds(end)})
    if facts.audio is not None:
        start, end = audio_span(facts.audio)
        streams.append({"stream": "audio", "start": _seconds(start), "end": _seconds(end)})
    return {"file": name, "arm": arm, "expected": [0.0, float(expected_s)], "streams": streams}


def requests(campaign: Any) -> list[dict[str, Any]]:
    """
    Return every request receipt of `campaign` (a `verifier.readers.campaign.Campaign`) in run order (by `started_at`, then order read).

    Each row: `{id, server, arm, label, phase, elapsed_s (float or None), outcome, order}`.
    """
    from verifier.readers.campaign import parse_time

    rows = []
    for line, receipt in enumerate(campaign.receipts):  # the request receipts of the evidence model, in the order read
        try:
            started = parse_time(receipt.started_at).timestamp()
        except (AttributeError, TypeError, ValueError):
            started = float("inf")
        elapsed = receipt.quantities.get("elapsed")
        arm = receipt.dims.get("arm")
        rows.append({"id": str(receipt.dims.get("request_id")), "server": str(receipt.dims.get("server")), "arm": str(arm),
                     "label": campaign.label_of_arm.get(arm, str(arm)), "phase": str(receipt.dims.get("phase")),
                     "elapsed_s": float(elapsed.to("s")) if elapsed is not None else None,
                     "outcome": str(receipt.outcome), "_key": (started, line)})
    rows.sort(key=lambda r: r["_key"])
    for order, row in enumerate(rows):
        del row["_key"]
        row["order"] = order
    return rows


class RequestRows(Sequence[dict[str, Any]]):
    """
    The rows of `requests(campaign)`, built on first use and then kept: only the HTML reporter reads them.

    A run of 10^6 receipts that is not drawn builds no row (each row is a dict
    of about 0.4 KiB; issue 40). Holds `campaign` (a
    `verifier.readers.campaign.Campaign`) until then.
    """

    def __init__(self, campaign: Any) -> None:
        self._campaign: Any = campaign
        self._rows: list[dict[str, Any]] | None = None

    def _built(self) -> list[dict[str, Any]]:
        if self._rows is None:
            self._rows, self._campaign = requests(self._campaign), None
        return self._rows

    def __len__(self) -> int:
        return len(self._built())

    def __getitem__(self, index: Any) -> Any:
        return self._built()[index]


#: At most this many series (receipt set and quantity) and values per series are kept for the plot.
MAX_SERIES, MAX_VALUES = 12, 2000


def _source_units(profile: Any) -> dict[tuple[str, str], str]:
    """Return `{(receipt set, quantity): unit}` as the profile maps each value (`receipts.SET.values.NAME.unit`: `MiB`, not the base `B`)."""
    out: dict[tuple[str, str], str] = {}
    sets = profile.get("receipts") if isinstance(profile, dict) else None
    for rid, spec in (sets.items() if isinstance(sets, dict) else ()):
        for name, mapping in ((spec or {}).get("values") or {}).items() if isinstance(spec, dict) else ():
            if isinstance(mapping, dict) and isinstance(mapping.get("unit"), str):
                out[(rid, name)] = mapping["unit"]
    return out


def receipt_sets(model: Any, profile: Any = None) -> dict[str, Any]:
    """
    Return `{"receipt_sets": [{set, quantity, unit, values}]}` from a profile run's evidence model, or `{}`.

    One series per receipt set and quantity with at least one number, in the
    order first read; `values` (floats) in record order, in the unit the
    `profile` (its JSON document, optional) maps the value in (`MiB` for a
    MiB field, so a plot reads 105278, not 1.1e11 B), else in the
    quantity's base unit. At most `MAX_SERIES` series of `MAX_VALUES` values
    each. `model` is a `verifier.model.evidence.Evidence` read by a profile (reader
    `profile:ID`) or a receipt reader (`vllm-bench-serve`, ...); a native
    bundle's (`bundle-v1`) or anything else gives `{}`.
    """
    from verifier.model import units

    reader = getattr(model, "reader", None)
    if not isinstance(reader, str) or reader == "bundle-v1":
        return {}  # a native bundle's receipts are drawn as latency per request (`requests`)
    source = _source_units(profile)
    series: dict[tuple[str, str], dict[str, Any]] = {}
    for receipt in getattr(model, "receipts", None) or ():
        if getattr(receipt, "unread", None):
            continue
        for name, q in (receipt.quantities or {}).items():
            if q is None or not q.value.is_finite():
                continue
            key = (receipt.receipt_set or "receipts", name)
            if key not in series:
                if len(series) >= MAX_SERIES:
                    continue
                series[key] = {"set": key[0], "quantity": name, "unit": source.get(key, q.unit), "values": []}
            if len(series[key]["values"]) < MAX_VALUES:
                try:
                    value = q.to(series[key]["unit"])
                except (units.UnitError, units.UnitMismatch):
                    value = q.value  # cannot happen for a unit the profile mapped; the base unit's value is still a value
                series[key]["values"].append(float(value))
    return {"receipt_sets": list(series.values())} if series else {}


#: Largest document `table_labels` reads for its row labels (bytes); a bigger one keeps numbered rows.
MAX_LABEL_BYTES = 4 * 1024 * 1024


def table_labels(root: Any, findings: Any, most: int = 8) -> dict[str, Any]:
    """
    Return `{"table_rows": {path: {heading: [first-column text per row]}}}` for the results tables findings point into, or `{}`.

    A finding's `path#pointer` names a table cell when it is `/tables/HEADING/ROW/COLUMN` of a Markdown file or
    `/ROW/COLUMN` of a CSV file (`verifier.report.grids.cell_of`; heading `""` for a CSV). Each such file, at most
    `most` of them, is read once from `root` (the bundle directory), only when it is a regular file inside it of at
    most `MAX_LABEL_BYTES`: the grids label their rows by that text (`Loader` names, not `0`, `1`, `2`). Anything
    unreadable is left out; raises nothing.
    """
    import csv
    import io
    import os

    from verifier.readers.markdown_doc import markdown_document
    from verifier.report.grids import cell_of

    paths = list(dict.fromkeys(f.path for f in findings if f.path and cell_of(f.path, f.pointer) is not None))[:most]
    base = os.path.realpath(str(root))
    out: dict[str, dict[str, list[str]]] = {}
    for rel in paths:
        full = os.path.realpath(os.path.join(base, rel))
        try:
            if not full.startswith(base + os.sep) or not os.path.isfile(full) or os.path.getsize(full) > MAX_LABEL_BYTES:
                continue
            with open(full, "rb") as handle:
                data = handle.read()
            if rel.lower().endswith(".csv"):
                rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
                out[rel] = {"": [r[0] if r else "" for r in rows[1:]]}
            elif rel.lower().endswith((".md", ".markdown")):
                doc = markdown_document(data)
                out[rel] = {h: [str(r.get(doc["headers"][h][0], "")) if doc["headers"].get(h) else "" for r in rows] for h, rows in doc["tables"].items()}
        except (OSError, ValueError, KeyError, IndexError, TypeError, csv.Error):
            continue
    return {"table_rows": out} if out else {}
