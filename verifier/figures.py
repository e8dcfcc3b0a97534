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

from fractions import Fraction
from typing import Any

__all__ = ["MAX_SERIES", "MAX_VALUES", "add", "coverage_entry", "receipt_sets", "requests"]


def add(data: dict[str, Any], kind: str, entry: dict[str, Any]) -> None:
    """Append `entry` to the figure list `kind` in a pipeline context's `data`."""
    data.setdefault("figures", {}).setdefault(kind, []).append(entry)


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
    Return every request receipt of `campaign` (a `verifier.campaign.Campaign`) in run order (by `started_at`, then order read).

    Each row: `{id, server, arm, label, phase, elapsed_s (float or None), outcome, order}`.
    """
    from verifier.campaign import parse_time

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


#: At most this many series (receipt set and quantity) and values per series are kept for the plot.
MAX_SERIES, MAX_VALUES = 12, 2000


def receipt_sets(model: Any) -> dict[str, Any]:
    """
    Return `{"receipt_sets": [{set, quantity, unit, values}]}` from a profile run's evidence model, or `{}`.

    One series per receipt set and quantity with at least one number, in the
    order first read; `values` (floats, in the quantity's base unit) in
    record order. At most `MAX_SERIES` series of `MAX_VALUES` values each.
    `model` is a `verifier.evidence.Evidence` read by a profile (reader
    `profile:ID`; anything else gives `{}`).
    """
    if not str(getattr(model, "reader", "")).startswith("profile:"):
        return {}  # a native bundle's receipts are drawn as latency per request (`requests`)
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
                series[key] = {"set": key[0], "quantity": name, "unit": q.unit, "values": []}
            if len(series[key]["values"]) < MAX_VALUES:
                series[key]["values"].append(float(q.value))
    return {"receipt_sets": list(series.values())} if series else {}
