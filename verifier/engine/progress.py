"""
Progress on long work (hashing now; decoding and scoring later), on stderr only.

Policy: a redrawn bar when stderr is a TTY and the run is not in CI; in CI or
when stderr is not a TTY, nothing at all unless `-v`, in which case one line
at the start and one at the end (no carriage returns in logs). Reports on
stdout are never touched.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import TextIO

__all__ = ["Progress", "make_progress"]


class Progress:
    """
    Represents one progress display for a unit of work measured in bytes.

    `bar` selects the redrawn TTY bar; otherwise `start` and `finish` print one
    line each. Thread-safe: `advance` may be called from worker threads.
    Side effects: writes to `stream`.
    """

    def __init__(self, stream: TextIO, *, bar: bool) -> None:
        self.stream = stream
        self.bar = bar
        self._lock = threading.Lock()
        self._label = ""
        self._total = 0
        self._done = 0
        self._last = 0.0

    def start(self, label: str, total: int) -> None:
        """Begin `label` with `total` units (bytes)."""
        with self._lock:
            self._label, self._total, self._done = label, total, 0
            if self.bar:
                self._draw(force=True)
            else:
                self.stream.write(f"verify: {label}: {_human(total)}\n")
                self.stream.flush()

    def advance(self, amount: int) -> None:
        """Add `amount` finished units; redraws the bar at most ten times a second."""
        with self._lock:
            self._done += amount
            if self.bar:
                self._draw(force=self._done >= self._total)

    def finish(self) -> None:
        """End the current work: clear the bar, or print the closing line."""
        with self._lock:
            if self.bar:
                self.stream.write("\r\x1b[2K")
            else:
                self.stream.write(f"verify: {self._label}: done ({_human(self._done)})\n")
            self.stream.flush()

    def _draw(self, *, force: bool) -> None:
        now = time.monotonic()
        if not force and now - self._last < 0.1:
            return
        self._last = now
        width = 30
        frac = 1.0 if self._total <= 0 else min(1.0, self._done / self._total)
        filled = int(frac * width)
        self.stream.write(f"\r{self._label} [{'#' * filled}{'.' * (width - filled)}] "
                          f"{frac * 100:5.1f}% {_human(self._done)}/{_human(self._total)}")
        self.stream.flush()


def _human(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover - unreachable


def make_progress(stream: TextIO | None = None, *, verbose: bool = False,
                  env: dict[str, str] | None = None) -> Progress | None:
    """
    Return the `Progress` the policy allows for `stream` (default stderr), or None for silence.

    A bar on a TTY outside CI (`CI` or `GITHUB_ACTIONS` unset); plain start
    and end lines when `verbose` otherwise; None (nothing) in every other case.
    """
    stream = stream if stream is not None else sys.stderr
    env = env if env is not None else dict(os.environ)
    in_ci = bool(env.get("CI") or env.get("GITHUB_ACTIONS"))
    tty = bool(getattr(stream, "isatty", lambda: False)())
    if tty and not in_ci:
        return Progress(stream, bar=True)
    if verbose:
        return Progress(stream, bar=False)
    return None
