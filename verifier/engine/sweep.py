"""The peak overlap of intervals by a sweep line, exact (counts, no arithmetic to round); re-exported by `verifier.engine.stats`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["peak_in_flight", "peak_overlap", "sweep_peak"]


def peak_in_flight(intervals: Sequence[tuple[Any, Any]]) -> int:
    """
    Return the largest number of half-open intervals [start, end) open at one instant.

    `intervals` are `(start, end)` pairs of mutually comparable values
    (seconds, datetimes); `peak_overlap` of their starts and ends.
    """
    return peak_overlap([s for s, _ in intervals], [e for _, e in intervals])


def peak_overlap(starts: Any, ends: Any) -> int:
    """
    Return the largest number of half-open intervals [starts[k], ends[k]) open at one instant.

    `starts` and `ends` are sequences (or numpy arrays: int64, or object for
    other comparable values such as `Decimal`, `datetime` or integers past
    64 bits) of one length. An interval ending exactly when another starts
    does not overlap it. The count only rises at a start, so the peak is the
    largest, over the starts s, of the starts at or before s less the ends at
    or before s (binary searches in the sorted starts and ends, numpy
    `searchsorted` with `side="right"`): the sweep line of `sweep_peak` with
    its ends before starts on ties, in O(n log n) and four arrays of n. 0 for
    no intervals.
    """
    import numpy as np  # noqa: PLC0415 - numpy only where intervals are swept

    if not len(starts):
        return 0
    opened = np.sort(np.asarray(starts))
    closed = np.sort(np.asarray(ends))
    open_now = np.searchsorted(opened, opened, side="right")
    open_now -= np.searchsorted(closed, opened, side="right")
    return int(open_now.max())


def sweep_peak(events: Sequence[tuple[Any, int]]) -> int:
    """
    Return the highest running sum of `events`, `(position, +1 or -1)` pairs, swept in position order.

    On ties a closing `-1` is processed before an opening `+1`, so a count
    that closes where another opens never overlaps it. 0 for no events.
    """
    peak = current = 0
    for _, delta in sorted(events, key=lambda x: (x[0], x[1])):
        current += delta
        peak = max(peak, current)
    return peak
