"""
The search: which derivations of the engine reproduce a stated number, and what its context says.

For each stated number (`verifier.discovery.context.Stated`) and each record
set (`verifier.discovery.recordsets.RecordSet`) it may come from (a `values`
set only from its own file), the selection is what the context names: per
dimension, the one value whose text the number's record, path or sentence
holds (`Stated.chunks`, `Stated.names`, `Stated.pairs`). Over each numeric
member of the selected records it derives, with `verifier.engine.stats.derive`,
every sample statistic of the vocabulary (`STATISTICS_TRIED`: count, sum,
mean, median, min, max, first, last, sample and population SD, p90/p95/p99
nearest-rank and linear; a single value only as `first`), and, when the
labels name a comparison (speedup, reduction, saved, ratio, change, vs), the
arm statistics and pair statistics of two selections that differ in one
dimension (`relative_reduction_pct`, `speedup`, `difference`, `ratio`,
`relative_change_pct`; both sides' means, or means of group means per
another dimension; the dimensions that go with the compared one, one value
per value of it, are left to each side; a member that is a comparison
already is not compared). When the context names a statistic but no
selection, the groups of one dimension are tried by value (`_groups`,
`Derivation.enumerated`); when the label names a dimension, a statistic of
the per-group means across it (`_two_step`, `Derivation.groups`). An element
of a short array selects the ordinal dimension its position names (1..length).
A derived value is converted to the stated unit when
both units are known (`verifier.model.units`) and compared with
`verifier.engine.stats.compare` at the stated precision. A value read at the
stated number's own place is never used.

Bounds: `MAX_PAIR_VALUES` values of a dimension are paired when the
context names none; comparisons only in sets of at most `MAX_PAIR_RECORDS`
records; `MAX_DERIVATIONS` derivations per stated number; groups by value
and two-step groups only over dimensions of at most `MAX_GROUPS` values.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from verifier.engine import stats

from verifier.model import units
from verifier.discovery.context import Stated, tokens, unit_of
from verifier.discovery.recordsets import Record, RecordSet

__all__ = ["Derivation", "STATISTICS_TRIED", "Search", "search"]

MAX_PAIR_VALUES = 4
MAX_DERIVATIONS = 20000
#: Comparisons of two selections are searched only in sets of at most this many records.
MAX_PAIR_RECORDS = 2000
#: A dimension of at most this many values is enumerated group by group when the context names a statistic but no selection.
MAX_GROUPS = 16

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
_UNIT_WORDS = {"s", "ms", "us", "ns", "mib", "gib", "kib", "mb", "gb", "kb", "pct", "percent", "db", "fps", "hz"}
_COMPARED = set(_PAIR_WORDS) | {"speedup", "reduction", "saved", "saving", "ratio"}
_EACH = {"each", "per", "every"}
_STOP = {"per", "of", "the", "a", "in", "s", "ms", "ns", "us", "mib", "gib", "mb", "gb", "b", "pct", "percent", "x", "vs", "to"}


@dataclass(frozen=True)
class Derivation:
    """
    One derivation: `statistic` (a name of `verifier.engine.stats.STATISTICS`, `q`, `method` for percentiles) over `member`
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
    enumerated: bool = False  # its selection was found by value among the groups of one dimension (the context names the statistic, not the group)


@dataclass
class Search:
    """What the search found for one stated number: `fits` (reproduce it), `named` (derivations its context names fully), `stat_named`, `member_named`."""

    fits: list[Derivation]
    named: list[Derivation]
    stat_named: str | None
    member_named: set[tuple[str, str]]
    pair_named: bool = False
    ordinal_used: bool = False  # an element of a short array whose position selected an ordinal dimension of some set (else it is raw data)


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
                 or (v.isdigit() and v in st.chunks)
                 or (" " not in v and len(v) > 2 and not v.isdigit() and v.lower() in st.names and v.lower() not in st.versus)]
        if len(named) > 1:  # the value its record's member of that name states, else the one it states whole before one its words only mention
            for picked in ([v for v in named if f"{dim}={v}" in st.pairs], [v for v in named if v.lower() in st.chunks or f"{dim}={v}" in st.pairs]):
                if len(picked) == 1:
                    named = picked
                    break
        if len(named) == 1:
            sel[dim] = named[0]
        elif len(named) > 1:
            several[dim] = named
    if not sel and not several:  # a constant the context names (`"transaction": "HTTP Request"`, every row's `label`) selects every record
        for dim, v in rs.consts.items():
            if len(v) > 2 and not v.isdigit() and v.lower() in st.chunks:
                sel[dim] = v
                break
    if st.ordinal is not None:  # `baseline_ms/0`: the array's position is the one ordinal dimension (1..length) the context leaves open
        position, length = st.ordinal
        open_dims = [d for d in rs.dims if d not in sel and d not in several and _ordinal_dim(rs, d, length)]
        if len(open_dims) == 1:
            sel[open_dims[0]] = str(position)
    return sel, several


def _ordinal_dim(rs: RecordSet, dim: str, length: int) -> bool:
    """Return whether dimension `dim` of `rs` is an ordinal of `length` values (exactly 1..length: a server, a pass)."""
    return dim != "#at" and set(rs.dims[dim]) == {str(i) for i in range(1, length + 1)}


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
    """Return whether `value` (already in the stated unit) reproduces `st` by `verifier.engine.stats.compare`."""
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
    ordinal_used = False
    for rs in sets:
        if rs.kind == "values" and rs.rel != st.rel:
            if stat is not None and budget > 0:
                budget -= _groups(st, rs, stat, fits, memo)
            continue  # another file's raw arrays: only a group the statistic its context names reproduces
        if rs.rel == st.rel and rs.kind == "rows" and _other_branch(rs.pointer, st.pointer):
            continue
        sel, several = _select(rs, st)
        if st.ordinal is not None:
            if not any(d in sel and _ordinal_dim(rs, d, st.ordinal[1]) for d in rs.dims):
                continue  # an element of a short array is explained only through the dimension its position enumerates
            ordinal_used = True
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
            if stat is not None and budget > 0:
                budget -= _groups(st, rs, stat, fits, memo)
            if budget > 0 and len(records) <= MAX_PAIR_RECORDS:
                budget -= _two_step(st, rs, records, (), fits, memo)
            continue  # a set with dimensions the context names none of: only its comparisons and the groups of its named statistic are tried
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
                hint = is_named or bool(words & st.labels) or bool(tokens(member) & st.labels & _UNIT_WORDS)  # a shared word, or a shared unit (`baseline_ms`, `wall_ms_per_call`)
                der = Derivation(rs.sid, member, statistic, selection, value, len(xs), rs.rank, f"{d.text} [{rs.origin}]",
                                 q, method, unit=mu, key=(rs.sid, member, label, selection, q, method), rel=rs.rel, member_named=is_named, member_hint=hint)
                if complete and is_named and (stat == label or (stat is None and len(xs) == 1)):
                    named.append(der)
                if _fits(st, value, statistic, xs, scale):
                    fits.append(der)
        if budget > 0 and len(records) <= MAX_PAIR_RECORDS:
            budget -= _two_step(st, rs, records, selection, fits, memo)
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
    return Search(_dedupe(fits), _dedupe(named), stat, member_named, bool(pair_stats), ordinal_used)


def _two_step(st: Stated, rs: RecordSet, records: list[Record], selection: tuple[tuple[str, str], ...], fits: list[Derivation], memo: dict[Any, Any]) -> int:
    """
    Append to `fits` the two-step derivations of `st`: a statistic of the per-group means across a dimension its labels name (`mean of server means`, `sd across pass means`); return how many were tried.

    Tried only when the labels name the dimension (its name's words, `server`, `task`) and one outer statistic (`mean`, or one other beside `mean`),
    the dimension has 2..`MAX_GROUPS` values among `records`, and the member is named (or the set has one); a two-step value equal to
    a one-step fit of the same member and selection (balanced groups) is left to the one-step derivation.
    """
    named = {_NAMED[w] for w in tokens(st.label) & _NAMED.keys()} - {"count", "first", "last"}
    outer = named.pop() if len(named) == 1 else (named - {"mean"}).pop() if len(named) == 2 and "mean" in named else None
    if outer is None:
        return 0
    tried = 0
    for dim in rs.dims:
        if dim == "#at" or dim in dict(selection) or not (tokens(dim) - _STOP) or not (tokens(dim) - _STOP) <= st.labels:
            continue
        groups: dict[str, list[Record]] = {}
        for r in records:
            if dim in r.dims:
                groups.setdefault(r.dims[dim], []).append(r)
        if not 2 <= len(groups) <= MAX_GROUPS:
            continue
        for member in rs.members:
            if member == dim or not (len(rs.members) == 1 or (_member_words(member) and _member_words(member) <= st.labels)):
                continue
            inner = [_values(g, member, st) for g in groups.values()]
            if any(not xs for xs in inner):
                continue
            scale, mu = _scale(member, st)
            means = [stats.derive("mean", xs).value for xs in inner]
            for statistic, q, method in _named_statistics(outer):
                tried += 1
                try:
                    d = stats.derive(statistic, means, q=q, method=method, of=f"{member} per-{dim} means")
                except stats.Underivable:
                    continue
                value = d.value * scale
                if not _fits(st, value, statistic, means, scale) or any(
                        f.sid == rs.sid and f.member == member and f.statistic == statistic and f.selection == selection and f.groups is None and f.value == value for f in fits):
                    continue  # balanced groups: the one-step statistic of the same values already says it
                fits.append(Derivation(rs.sid, member, statistic, selection, value, len(means), rs.rank,
                                       f"{d.text} (the means per {dim}: {', '.join(f'{k}={m}' for k, m in zip(groups, means))}) [{rs.origin}]",
                                       q, method, groups=dim, unit=mu, key=(rs.sid, member, "two-step", statistic, q, selection, dim), rel=rs.rel,
                                       member_named=True, member_hint=True))
    return tried


def _named_statistics(stat: str) -> list[tuple[str, int | None, str | None]]:
    """Return the `(statistic, q, method)` of `STATISTICS_TRIED` a named statistic (`mean`, `p95`, `sd`) stands for."""
    return [(n, q, m) for n, q, m in STATISTICS_TRIED if (f"p{q}" if n == "percentile" else n) == stat]


def _partitions(rs: RecordSet) -> list[tuple[str, dict[str, list[Record]]]]:
    """Return `(dimension, value -> records)` of each dimension of `rs` with 2..`MAX_GROUPS` values (`#at` alone for a `values` set), one per distinct grouping."""
    dims = ["#at"] if "#at" in rs.dims else list(rs.dims)
    out, seen = [], set()
    for dim in dims:
        if not 2 <= len(rs.dims[dim]) <= MAX_GROUPS:
            continue
        groups: dict[str, list[Record]] = {}
        for r in rs.records:
            if dim in r.dims:
                groups.setdefault(r.dims[dim], []).append(r)
        shape = frozenset(frozenset(map(id, g)) for g in groups.values())
        if shape not in seen:
            seen.add(shape)
            out.append((dim, groups))
    return out


def _groups(st: Stated, rs: RecordSet, stat: str, fits: list[Derivation], memo: dict[Any, Any]) -> int:
    """
    Append to `fits` the groups of one dimension of `rs` whose named statistic `stat` of a named member reproduces `st` (`enumerated`: the value, not the context, picks the group; the context's count `Stated.n` must agree); return how many were tried.

    A count `st`'s context states for each group (`each`, `per`, `每`) is one derivation when every group of the dimension has that many records.
    """
    tried = 0
    statistics = _named_statistics(stat)
    for dim, groups in _partitions(rs):
        if stat == "count":
            sizes = {len(g) for g in groups.values()}
            tried += 1
            if len(sizes) == 1 and min(sizes) > 1 and st.labels & _EACH and _fits(st, Decimal(sizes.pop()), "count", [], Decimal(1)):  # one record each is any set
                value, first = next(iter(groups.items()))
                fits.append(Derivation(rs.sid, "", "count", ((dim, value),), Decimal(len(first)), len(first), rs.rank,
                                       f"count of records of each {dim} ({len(first)} each) [{rs.origin}]", key=(rs.sid, "", "count", dim), rel=rs.rel, member_named=True))
            continue
        for value, records in groups.items():
            selection = ((dim, value),)
            for member in rs.members:
                words = _member_words(member)
                if not (len(rs.members) == 1 or (words and words <= st.labels)):
                    continue
                xs = _values(records, member, st)
                if len(xs) < 2 or (st.n is not None and len(xs) != st.n):
                    continue
                scale, mu = _scale(member, st)
                for statistic, q, method in statistics:
                    tried += 1
                    mkey = (rs.sid, selection, member, len(xs), statistic, q, method)
                    d = memo.get(mkey)
                    if d is None:
                        try:
                            d = memo[mkey] = stats.derive(statistic, xs, q=q, method=method, of=f"{member} ({dim}={value})")
                        except stats.Underivable:
                            d = memo[mkey] = False
                    if d is False or not _fits(st, d.value * scale, statistic, xs, scale):
                        continue
                    fits.append(Derivation(rs.sid, member, statistic, selection, d.value * scale, len(xs), rs.rank, f"{d.text}, the one {dim} it fits [{rs.origin}]",
                                           q, method, unit=mu, key=(rs.sid, member, stat, selection, q, method), rel=rs.rel, member_named=True, member_hint=True, enumerated=True))
    return tried


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


def _attributes(rs: RecordSet, dim: str, memo: dict[Any, Any]) -> frozenset[str]:
    """Return the other dimensions of `rs` that `dim` determines (each value of `dim` goes with one value of them in every record: `dit` of `case`)."""
    key = ("attributes", rs.sid, dim)
    if key not in memo:
        seen: dict[str, dict[str, str]] = {}
        clash: set[str] = set()
        for r in rs.records:
            if dim not in r.dims:
                continue
            for d, v in r.dims.items():
                if d != dim and d != "#at" and seen.setdefault(d, {}).setdefault(r.dims[dim], v) != v:
                    clash.add(d)
        memo[key] = frozenset(seen) - clash
    return memo[key]


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
        attrs = _attributes(rs, dim, memo)  # `dit=FP8` goes with `case=dit_fp8`: the baseline case has its own
        rest = {d: v for d, v in sel.items() if d != dim and d not in attrs}
        base = [r for r in rs.records if all(r.dims.get(d) == v for d, v in rest.items())]
        for member in rs.members:
            if tokens(member) & _COMPARED:
                continue  # `speedup_vs_bf16` is a comparison already: a comparison of two of them is no derivation anyone states
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
