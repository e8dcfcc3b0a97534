"""
The search: which derivations of the engine reproduce a stated number, and what its context says.

For each stated number (`verifier.discovery.context.Stated`) and each record
set (`verifier.discovery.recordsets.RecordSet`) it may come from (a `values`
set only from its own file), the selection is what the context names: per
dimension, the one value whose text the number's record, path or sentence
holds (`Stated.chunks`, `Stated.names`, `Stated.pairs`). Over each numeric
member of the selected records it derives, with `verifier.stats.derive`,
every sample statistic of the vocabulary (`STATISTICS_TRIED`: count, sum,
mean, median, min, max, first, last, sample and population SD, p90/p95/p99
nearest-rank and linear; a single value only as `first`), and, when the
labels name a comparison (speedup, reduction, saved, ratio, change, vs), the
arm statistics and pair statistics of two selections that differ in one
dimension (`relative_reduction_pct`, `speedup`, `difference`, `ratio`,
`relative_change_pct`; both sides' means, or means of group means per
another dimension). A derived value is converted to the stated unit when
both units are known (`verifier.units`) and compared with
`verifier.stats.compare` at the stated precision. A value read at the
stated number's own place is never used.

Bounds: `MAX_PAIR_VALUES` values of a dimension are paired when the
context names none; comparisons only in sets of at most `MAX_PAIR_RECORDS`
records; `MAX_DERIVATIONS` derivations per stated number.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from verifier import stats, units
from verifier.discovery.context import Stated, tokens, unit_of
from verifier.discovery.recordsets import Record, RecordSet

__all__ = ["Derivation", "STATISTICS_TRIED", "Search", "search"]

MAX_PAIR_VALUES = 4
MAX_DERIVATIONS = 20000
#: Comparisons of two selections are searched only in sets of at most this many records.
MAX_PAIR_RECORDS = 2000

#: `(statistic, q, method)` tried over a sample of two or more values.
STATISTICS_TRIED = (("mean", None, None), ("median", None, None), ("min", None, None), ("max", None, None), ("sum", None, None),
                    ("sd", None, None), ("population_sd", None, None), ("first", None, None), ("last", None, None),
                    *((("percentile", q, m) for q in (90, 95, 99) for m in ("nearest-rank", "linear"))))

#: Words of a label that name a statistic.
_NAMED = {"mean": "mean", "avg": "mean", "average": "mean", "median": "median", "p50": "median", "min": "min", "minimum": "min",
          "max": "max", "maximum": "max", "peak": "max", "std": "sd", "stddev": "sd", "sd": "sd", "stdev": "sd",
          "p90": "p90", "p95": "p95", "p99": "p99", "sum": "sum", "total": "sum", "count": "count", "requests": "count",
          "repeats": "count", "runs": "count", "tasks": "count", "n": "count", "first": "first", "last": "last"}
_PAIR_WORDS = {"speedup": ("speedup", "ratio"), "faster": ("speedup",), "ratio": ("ratio",), "reduction": ("relative_reduction_pct", "difference"),
               "saved": ("difference", "relative_reduction_pct"), "saving": ("difference", "relative_reduction_pct"),
               "lower": ("relative_reduction_pct", "difference"), "change": ("relative_change_pct", "difference"),
               "delta": ("difference", "relative_change_pct"), "diff": ("difference",), "difference": ("difference",),
               "improvement": ("relative_reduction_pct", "speedup"), "vs": ("relative_change_pct", "ratio", "speedup")}
_ORDINAL = {"request", "run", "iteration", "trial", "attempt", "repeat"}
_STOP = {"per", "of", "the", "a", "in", "s", "ms", "ns", "us", "mib", "gib", "mb", "gb", "b", "pct", "percent", "x", "vs", "to"}


@dataclass(frozen=True)
class Derivation:
    """
    One derivation: `statistic` (a name of `verifier.stats.STATISTICS`, `q`, `method` for percentiles) over `member`
    of set `sid` with `selection` (dim -> value), or of two selections (`baseline`, `candidate` on dimension `over`,
    grouped by `groups`); its `value` in the stated unit, `n` values, `rank` of the set, `text` in words.
    """

    sid: str
    member: str
    statistic: str
    selection: tuple[tuple[str, str], ...]
    value: Decimal
    n: int
    rank: int
    text: str
    q: int | None = None
    method: str | None = None
    over: str | None = None
    baseline: str | None = None
    candidate: str | None = None
    groups: str | None = None
    unit: str | None = None
    key: tuple[Any, ...] = ()
    rel: str = ""  # the one file of the set (empty for a set across files)
    member_named: bool = False  # the number's labels name the member (or the set has one member)
    member_hint: bool = False  # the number's labels share a word with the member's name


@dataclass
class Search:
    """What the search found for one stated number: `fits` (reproduce it), `named` (derivations its context names fully), `stat_named`, `member_named`."""

    fits: list[Derivation]
    named: list[Derivation]
    stat_named: str | None
    member_named: set[tuple[str, str]]
    pair_named: bool = False


def _stat_named(st: Stated) -> str | None:
    """Return the statistic the stated number's labels name (`mean`, `p95`, `count`...), or None (or when they name several)."""
    words = tokens(st.label)
    found = {_NAMED[w] for w in words & _NAMED.keys()}
    if "1" in words and words & _ORDINAL:
        found.add("first")  # `request_1_s`, `run 1`
    return found.pop() if len(found) == 1 else None


def _member_words(member: str) -> set[str]:
    words = tokens(member) - _STOP - set(_NAMED) - {"second", "seconds", "sec"}
    return words


def _select(rs: RecordSet, st: Stated) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Return `(selection, several)`: the dimension values the context names once, and those it names more than once (else a constant of the set it names whole: all records)."""
    sel: dict[str, str] = {}
    several: dict[str, list[str]] = {}
    for dim, values in rs.dims.items():
        if dim == "#at":
            continue
        part = dim.startswith(("name", "path"))
        named = [v for v in values if v.lower() in st.chunks or f"{dim}={v}" in st.pairs
                 or (part and v.isdigit() and any(p.endswith("=" + v) for p in st.pairs))
                 or (v.isdigit() and v in st.chunks) or (" " not in v and len(v) > 2 and not v.isdigit() and v.lower() in st.names)]
        if len(named) > 1:  # a value the number's record states whole before one its words only mention
            whole = [v for v in named if v.lower() in st.chunks or f"{dim}={v}" in st.pairs]
            named = whole if len(whole) == 1 else named
        if len(named) == 1:
            sel[dim] = named[0]
        elif len(named) > 1:
            several[dim] = named
    if not sel and not several:  # a constant the context names (`"transaction": "HTTP Request"`, every row's `label`) selects every record
        for dim, v in rs.consts.items():
            if len(v) > 2 and not v.isdigit() and v.lower() in st.chunks:
                sel[dim] = v
                break
    return sel, several


def _scale(member: str, st: Stated) -> tuple[Decimal, str | None]:
    """Return the factor from the member's unit to the stated unit (1 when either is unknown or they differ in dimension) and the member's unit."""
    return _scale_of(member, st.unit)


@functools.lru_cache(maxsize=4096)
def _scale_of(member: str, unit: str | None) -> tuple[Decimal, str | None]:
    """Return `_scale` for a member name and a stated unit (cached: a run has few of each)."""
    mu = unit_of(member)
    if mu is None or unit is None or not units.known(unit):
        return Decimal(1), mu
    try:
        return units.convert(Decimal(1), mu, unit), mu
    except (units.UnitError, units.UnitMismatch):
        return Decimal(1), mu


def _fits(st: Stated, value: Decimal, statistic: str, xs: list[Decimal], scale: Decimal) -> bool:
    """Return whether `value` (already in the stated unit) reproduces `st` by `verifier.stats.compare`."""
    if statistic == "count":
        return stats.compare(st.value, value, exact=True).holds
    rough = abs(float(value) - float(st.value))
    if rough > 2 * float(stats.half_unit(st.value)) + 1e-6 * abs(float(st.value)) + 1e-12:
        return False
    return stats.compare(st.value, value, statistic=statistic, values=xs, scale=scale).holds


def _values(records: list[Record], member: str, st: Stated) -> list[Decimal]:
    """Return the member's values of `records` in order, leaving out the value read at the stated number's own place."""
    return [r.values[member] for r in records if member in r.values and not (r.rel == st.rel and r.where[member] == st.pointer)]


def search(st: Stated, sets: list[RecordSet], memo: dict[Any, Any] | None = None) -> Search:
    """
    Return the `Search` of one stated number over `sets` (see the module docstring).

    `memo` (shared by the calls of one run) keeps each derivation of a selection, so a
    selection many numbers name is derived once.
    """
    memo = {} if memo is None else memo
    stat = _stat_named(st)
    pair_stats: set[str] = set()
    for w in tokens(st.label):
        pair_stats.update(_PAIR_WORDS.get(w, ()))
    fits: list[Derivation] = []
    named: list[Derivation] = []
    member_named: set[tuple[str, str]] = set()
    budget = MAX_DERIVATIONS
    for rs in sets:
        if rs.kind == "values" and rs.rel != st.rel:
            continue
        if rs.rel == st.rel and rs.kind == "rows" and _other_branch(rs.pointer, st.pointer):
            continue
        sel, several = _select(rs, st)
        records = rs.records
        if rs.kind == "values":
            parents = [p for p in rs.dims.get("#at", (records[0].pointer,)) if st.pointer.startswith(p + "/")]
            if not parents:
                if pair_stats and budget > 0 and len(rs.records) <= MAX_PAIR_RECORDS:
                    budget -= _pairs(st, rs, sel, several, pair_stats, fits, named, memo)
                continue  # arrays of other objects: only their comparisons (`saved_s` of two arms' runs)
            sel["#at"] = parents[-1]
        if sel:
            fkey = ("records", rs.sid, tuple(sorted(sel.items())))
            if fkey not in memo:
                memo[fkey] = [r for r in records if all(r.dims.get(d) == v for d, v in sel.items())]
            records = memo[fkey]
        if not records:
            continue
        complete = bool(sel)
        if not sel and any(d != "#at" for d in rs.dims) and len(records) > 1:
            if pair_stats and budget > 0 and len(rs.records) <= MAX_PAIR_RECORDS:
                budget -= _pairs(st, rs, sel, several, pair_stats, fits, named, memo)
            continue  # a set with dimensions the context names none of: only its comparisons are tried
        selection = tuple(sorted(sel.items()))
        for member in rs.members:
            words = _member_words(member)
            is_named = len(rs.members) == 1 or (bool(words) and words <= st.labels)
            if is_named and len(rs.members) > 1:
                member_named.add((rs.sid, member))
            xs = _values(records, member, st)
            if not xs or budget <= 0:
                continue
            scale, mu = _scale(member, st)
            tried = STATISTICS_TRIED if len(xs) > 1 else (("first", None, None),)
            for statistic, q, method in tried:
                budget -= 1
                mkey = (rs.sid, selection, member, len(xs), statistic, q, method)
                d = memo.get(mkey)
                if d is None:
                    try:
                        d = memo[mkey] = stats.derive(statistic, xs, q=q, method=method, of=f"{member} ({', '.join(f'{k}={v}' for k, v in selection) or 'all'})")
                    except stats.Underivable:
                        memo[mkey] = False
                        continue
                elif d is False:
                    continue
                value = d.value * scale
                label = f"p{q}" if statistic == "percentile" else statistic
                der = Derivation(rs.sid, member, statistic, selection, value, len(xs), rs.rank, f"{d.text} [{rs.origin}]",
                                 q, method, unit=mu, key=(rs.sid, member, label, selection, q, method), rel=rs.rel, member_named=is_named, member_hint=is_named or bool(words & st.labels))
                if complete and is_named and (stat == label or (stat is None and len(xs) == 1)):
                    named.append(der)
                if _fits(st, value, statistic, xs, scale):
                    fits.append(der)
        if stat == "count" and records:
            n = len([r for r in records if not (r.rel == st.rel and st.pointer.startswith(r.pointer + "/"))])
            der = Derivation(rs.sid, "", "count", selection, Decimal(n), n, rs.rank, f"count of {n} records ({', '.join(f'{k}={v}' for k, v in selection) or 'all'}) [{rs.origin}]",
                             key=(rs.sid, "", "count", selection), rel=rs.rel, member_named=True)
            if complete:
                named.append(der)
            if n and _fits(st, Decimal(n), "count", [], Decimal(1)):
                fits.append(der)
        if pair_stats and budget > 0 and len(rs.records) <= MAX_PAIR_RECORDS:
            budget -= _pairs(st, rs, sel, several, pair_stats, fits, named, memo)
    return Search(_dedupe(fits), _dedupe(named), stat, member_named, bool(pair_stats))


def _other_branch(set_pointer: str, pointer: str) -> bool:
    """Return whether a number at `pointer` lies deeper in another branch of its document than the set at `set_pointer` (`/arms/candidate/passes` is not about `/arms/baseline/passes/0/requests`)."""
    a, b = set_pointer.split("/")[1:], pointer.split("#", 1)[0].split("/")[1:]
    common = 0
    while common < min(len(a), len(b)) and a[common] == b[common]:
        common += 1
    return 0 < common < len(a) and len(b) > common + 1


def _dedupe(found: list[Derivation]) -> list[Derivation]:
    seen: dict[tuple[Any, ...], Derivation] = {}
    for d in found:
        seen.setdefault(d.key, d)
    return list(seen.values())


def _pairs(st: Stated, rs: RecordSet, sel: dict[str, str], several: dict[str, list[str]], pair_stats: set[str],
           fits: list[Derivation], named: list[Derivation], memo: dict[Any, Any]) -> int:
    """Append the comparisons of two selections of `rs` that reproduce `st` to `fits`; return how many derivations were tried."""
    tried = 0
    for dim, values in rs.dims.items():
        if dim == "#at" or dim in rs.members:
            continue
        if dim in several and len(several[dim]) == 2:
            a, b = several[dim]
            orders = [(a, b), (b, a)]
        elif dim in sel:
            v = sel[dim]
            orders = [(o, v) for o in values if o != v][:16] + [(v, o) for o in values if o != v][:16]
        elif len(values) <= MAX_PAIR_VALUES:
            orders = [(a, b) for a in values for b in values if a != b]
        else:
            continue
        rest = {d: v for d, v in sel.items() if d != dim}
        base = [r for r in rs.records if all(r.dims.get(d) == v for d, v in rest.items())]
        for member in rs.members:
            scale, mu = _scale(member, st)
            if st.unit == "%":
                scale = Decimal(1)
            for b_val, c_val in orders:
                bs = [r for r in base if r.dims.get(dim) == b_val]
                cs = [r for r in base if r.dims.get(dim) == c_val]
                bx, cx = _values(bs, member, st), _values(cs, member, st)
                if not bx or not cx or not any(bx) or not any(cx):
                    continue  # a side of zeros makes a difference a copy of the other side, and a ratio undefined
                for statistic in sorted(pair_stats):
                    tried += 1
                    pkey = ("pair", rs.sid, member, statistic, dim, b_val, c_val, tuple(sorted(rest.items())), len(bx), len(cx))
                    d = memo.get(pkey)
                    if d is None:
                        try:
                            if statistic in stats.ARM_STATISTICS:
                                d = stats.derive(statistic, {b_val: {"all": bx}, c_val: {"all": cx}}, baseline=b_val, candidate=c_val, of=member)
                            else:
                                mb, mc = stats.derive("mean", bx).value, stats.derive("mean", cx).value
                                d = stats.derive(statistic, (mb, mc) if statistic == "relative_change_pct" else (mc, mb), of=member)
                        except stats.Underivable:
                            d = False
                        memo[pkey] = d
                    if d is False:
                        continue
                    k = scale if statistic == "difference" else Decimal(1)
                    value = d.value * k
                    selection = tuple(sorted(rest.items()))
                    der = Derivation(rs.sid, member, statistic, selection, value, len(bx) + len(cx), rs.rank, f"{d.text} [{rs.origin}]",
                                     over=dim, baseline=b_val, candidate=c_val, unit=mu,
                                     key=(rs.sid, member, statistic, selection, frozenset(map(id, bs)), frozenset(map(id, cs))), rel=rs.rel)
                    if _fits(st, value, statistic, bx + cx, k):
                        fits.append(der)
    return tried
