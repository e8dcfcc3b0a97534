"""
Discovery: what `verify DIR` does when no profile matches DIR.

It reads the directory (`sources`), finds its record sets (`recordsets`),
lists the numbers it states (`context`), searches the engine's derivations
for each (`search`, calling `verifier.engine.stats.derive` and `verifier.engine.stats.compare`)
and judges each number bound, ambiguous, near-miss or unexplained
(`classify`). `report` turns that into findings under the check id
`discovery.claims`; discovery never gives PASS (nobody pinned its rules), so
its best verdict is INCOMPLETE. `draft` writes what it bound as a profile.
Bounds of the reading and the search are stated in `docs/profiles.md`,
"Discovery".
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifier.discovery.classify import MIN_DIGITS, Verdict, classify
from verifier.discovery.context import Stated, stated_numbers
from verifier.discovery.recordsets import RecordSet, find_record_sets
from verifier.discovery.search import search
from verifier.discovery.sources import Skip, Source, read_sources

__all__ = ["SEARCH_SECONDS", "Discovery", "coincidences", "discover"]

#: The search stops this many seconds after discovery started; the numbers it did not reach are counted as left out (a bound of the search).
SEARCH_SECONDS = 7.0


@dataclass
class Discovery:
    """What discovery found in one directory: `sources` read, `skips`, record `sets`, `stated` numbers with their `verdicts` (parallel), `dropped` numbers over the bound, `listed` entries (files and links) under `root`, `identifiers`: numbers written inside a date, version, id and the like (`context.stated_numbers`), not listed."""

    root: Path
    sources: list[Source]
    skips: list[Skip]
    sets: list[RecordSet]
    stated: list[Stated]
    verdicts: list[Verdict]
    dropped: int = 0
    listed: int = 0
    identifiers: int = 0

    def counts(self) -> dict[str, int]:
        """Return `{bound, ambiguous, near-miss, unexplained}` counts."""
        out = dict.fromkeys(("bound", "ambiguous", "near-miss", "unexplained"), 0)
        for v in self.verdicts:
            out[v.kind] += 1
        return out


def discover(root: Path, progress: Any = None, bounds: dict[str, int] | None = None, seconds: float | None = None) -> Discovery:
    """
    Return the `Discovery` of directory `root`: read, record sets, stated numbers and the verdict of each.

    Raises `OSError` only when `root` cannot be listed; never writes.
    `progress` (a `verifier.engine.progress.Progress` or None) shows the files being read.
    `seconds` replaces `SEARCH_SECONDS` (tests give the search all the time it needs).
    """
    started = time.monotonic()
    sources, skips, tree = read_sources(root, bounds, progress)
    sets = find_record_sets(sources)
    stated, dropped, identifiers = stated_numbers(sources, sets) if sets else ([], 0, 0)
    stated.sort(key=lambda st: st.rel.rsplit(".", 1)[-1].lower() not in ("json", "csv"))  # data documents first, then pages (stable)
    memo: dict[Any, Any] = {}
    verdicts, kept = [], []
    deadline = started + (SEARCH_SECONDS if seconds is None else seconds)
    reached = 0
    for st in stated:
        if time.monotonic() > deadline:
            break
        reached += 1
        found = search(st, sets, memo)
        if st.ordinal is not None and not found.ordinal_used:
            continue  # an element of a short array that enumerates no dimension of any set: raw data, not a stated number
        kept.append(st)
        verdicts.append(classify(st, found))
    verdicts = coincidences(kept, verdicts)
    dropped += len(stated) - reached
    return Discovery(root, sources, skips, sets, kept, verdicts, dropped, len(tree.files()) + len(tree.links("**")), identifiers)


def coincidences(stated: list[Stated], verdicts: list[Verdict]) -> list[Verdict]:
    """
    Return `verdicts` with every `bound` one of a number of fewer than `MIN_DIGITS` significant digits made `ambiguous`
    when another such number of the same file is bound to the same derivation (same set, member, statistic, selection
    and comparison).

    Ten `1`s of one page bound to one `json_schema_version` are a small integer recurring by chance, not ten
    statements of it; a number of three or more digits binding twice (a figure repeated in prose) is kept.
    """
    def small(st: Stated) -> bool:
        return len(st.value.normalize().as_tuple().digits) < MIN_DIGITS if st.value else True

    def key(st: Stated, v: Verdict) -> tuple[object, ...]:
        d = v.derivations[0]
        return (st.rel, d.sid, d.member, d.statistic, d.selection, d.q, d.method, d.baseline, d.candidate, d.over)

    seen: dict[tuple[object, ...], int] = {}
    for st, v in zip(stated, verdicts):
        if v.kind == "bound" and v.derivations and small(st):
            seen[key(st, v)] = seen.get(key(st, v), 0) + 1
    return [Verdict("ambiguous", v.derivations, v.named) if v.kind == "bound" and v.derivations and small(st) and seen[key(st, v)] > 1 else v
            for st, v in zip(stated, verdicts)]
