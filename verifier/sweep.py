"""The peak overlap of intervals by a sweep line, exact (counts, no arithmetic to round); re-exported by `verifier.stats`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["peak_in_flight", "sweep_peak"]


def peak_in_flight(intervals: Sequence[tuple[Any, Any]]) -> int:
    """
    Return the largest number of half-open intervals [start, end) open at one instant.

    `intervals` are `(start, end)` pairs of mutually comparable values
    (seconds, datetimes); an interval ending exactly when another starts does
    not overlap it (a sweep line that processes ends before starts on ties).
    O(n log n) in the number of intervals.
    """
    return sweep_peak([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals])


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
