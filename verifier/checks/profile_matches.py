"""
Profile check `profile.matches`: per-record equalities, within a record or joined across files, and the flags records state about them.

A profile's `matches` say that a value of each receipt must equal another
value: in the same record (`equals.pointer`, e.g. an output digest and the
reference digest beside it) or in the one record of another receipt set that
shares the `on` dimensions (`equals.receipts`, e.g. an output's digest in
`outputs/*.json` against the reference digest in `references.json`). With
`flag`, the record also states whether they are equal (`byteexact: true`, or
a word such as "passed" mapped by `outcomes`): the flag must say what the
comparison re-derives. Closed vocabulary: pointers, dimension names, words.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from verifier import stats
from verifier.checks.profile_base import _f, _profile, _records, examined
from verifier.evidence import Receipt
from verifier.model import Finding, Status
from verifier.pipeline import Context, check
from verifier.readers.pointers import resolve, to_decimal
from verifier.readers.select import select

__all__ = ["matches", "outcome_of"]


def outcome_of(value: Any, words: dict[str, list[str]] | None) -> bool | None:
    """
    Return the true/false a bundle records: a JSON boolean, or a word listed in `words` (`{"true": ["passed"], "false": ["failed"]}`).

    Words compare case-insensitively after stripping blanks. Returns None for
    anything else (a word nobody declared is not an outcome).
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and words:
        text = value.strip().lower()
        for outcome, listed in (("true", words.get("true", [])), ("false", words.get("false", []))):
            if text in (w.strip().lower() for w in listed):
                return outcome == "true"
    return None


def _same(a: Any, b: Any, stated_precision: bool = False) -> bool:
    """
    Return whether two stated values are equal: numbers by value (`1.50` = `1.5`), anything else as text.

    With `stated_precision`, numbers are equal when |a - b| is at most half a unit of the coarser last place the two
    state (`stats.agree`): LoadGen's summary prints 637.54 of its log's 637.535 (0.005), and 35342.64 of its
    log's 35342.6 (0.05, the log printing six significant digits).
    """
    if not stated_precision and (type(b) is int or type(b) is Decimal):  # a JSON number (a detail log's): `to_decimal(b)` equals `b` itself
        da = to_decimal(a)
        return da is not None and da == b
    da, db = to_decimal(a), to_decimal(b)
    if da is not None and db is not None:
        return stats.agree(da, db) if stated_precision else da == db
    return isinstance(a, str) and isinstance(b, str) and a == b


def _member(pointer: str) -> str | None:
    """Return the member a pointer of one step names ("/Result is" -> "Result is": one `/`, first, no `~`), else None."""
    return pointer[1:] if pointer.count("/") == 1 and pointer[0] == "/" and "~" not in pointer else None


def _at(raw: Any, pointer: str, member: str | None = None) -> Any:
    """Return the value at JSON Pointer `pointer` in `raw` (`resolve`), None when there is none; `member` is `_member(pointer)` when known."""
    if type(raw) is dict and (member is not None or (member := _member(pointer)) is not None):
        return raw.get(member)  # one member of an object (a record's field): what `resolve` returns, without its loop
    try:
        return resolve(raw, pointer)
    except KeyError:
        return None


@check("profile.matches", title="Every per-record equality (within a record or joined across files) holds, and every flag stating it agrees")
def matches(ctx: Context) -> Iterator[Finding]:
    """
    Check each `matches` entry on every read record of its receipt set (with `selection`: of those records whose dimensions it selects).

    Per record: PASS `equal` / FAIL `not-equal` (no `flag`), or PASS
    `flag-agrees` / FAIL `flag-disagrees` (the record's flag against the
    re-derived equality); UNVERIFIED `not-stated` when either value or the
    flag is absent or the flag is no declared outcome, `join-unresolved`
    when not exactly one record of the other set shares the `on`
    dimensions, `no-receipts` when the set has no records (an entry whose
    `selection` selects none of them has nothing to check and reports
    nothing). The compared
    places are marked examined, so `profile.coverage` counts them.
    """
    cid = "profile.matches"
    indexes: dict[tuple[str, tuple[str, ...]], dict[tuple[Any, ...], list[Receipt]]] = {}  # (other set, on) -> its records by their `on` values
    seen = examined(ctx)
    places: dict[Any, Any] = {}  # what every entry reads of one record, read once: see `_one`
    selected: dict[tuple[str, str], list[Receipt]] = {}  # (receipt set, selection) -> its read records selected
    for entry in _profile(ctx)["matches"]:
        records = _records(ctx, entry["receipts"])
        if not records:
            yield _f(cid, Status.UNVERIFIED, "no-receipts", f"{entry['id']}: receipt set {entry['receipts']} has no records to check")
            continue
        if "selection" in entry:  # none selected: the bundle has no such records (no MultiStream run), so nothing is stated to check
            chosen = (entry["receipts"], repr(entry["selection"]))  # entries share a few selections: each selected once
            if chosen not in selected:
                selected[chosen] = select(records, entry["selection"])
            records = selected[chosen]
        joined: dict[tuple[Any, ...], list[Receipt]] = {}
        if "receipts" in entry["equals"]:  # one pass over the other set, not one per record (38 rows x 38 logs in an MLPerf tree), and once per set and `on`
            on = tuple(entry["equals"].get("on", []))
            joined = indexes.get((entry["equals"]["receipts"], on))  # type: ignore[assignment]
            if joined is None:
                joined = indexes[(entry["equals"]["receipts"], on)] = {}
                for o in _records(ctx, entry["equals"]["receipts"]):
                    joined.setdefault(tuple(o.dims.get(d) for d in on), []).append(o)
        plan = _Plan(entry)
        for r in records:
            yield _one(plan, r, joined, seen, places)


class _Plan:
    """What every record of one `matches` entry is checked with, read from the entry once (not once per record)."""

    __slots__ = ("id", "pointer", "member", "equals", "other_pointer", "other_member", "on", "stated_precision", "note", "has_flag", "flag", "outcomes")

    def __init__(self, entry: dict[str, Any]) -> None:
        self.id, self.pointer, self.equals = entry["id"], entry["pointer"], entry["equals"]
        self.other_pointer = self.equals["pointer"]
        self.member, self.other_member = _member(self.pointer), _member(self.other_pointer)  # `_at`'s one-member road, decided once
        # the `on` dimensions once each, as the `want` mapping of a record names them (None: the entry compares within a record)
        self.on = tuple(dict.fromkeys(self.equals.get("on", []))) if "receipts" in self.equals else None
        self.stated_precision = entry.get("precision") == "stated"
        self.note = " (at the coarser precision the two state)" if entry.get("precision") else ""
        self.has_flag, self.flag, self.outcomes = "flag" in entry, entry.get("flag"), entry.get("outcomes")


def _one(plan: _Plan, r: Receipt, joined: dict[tuple[Any, ...], list[Receipt]], seen: set[tuple[str, str]], places: dict[Any, Any]) -> Finding:
    """
    Return the finding of one record `r` of `plan`'s entry (`joined`: the other set's records by their `on` values); the places compared go into `seen`.

    `places` (one dict per run of the check) keeps what the entries share of
    `r`: its file, pointer and their text, and the record it joins with per
    `joined` index and `on` dimensions (every entry of a profile may join the same sets).
    """
    cid = "profile.matches"
    place = places.get(id(r))
    if place is None or place[0] is not r:  # kept with `r`, so its id names no other record
        path, at = r.location.file, r.location.pointer or ""  # `r.path` and `r.pointer` without their property calls
        place = places[id(r)] = (r, path, at, f"{path}{' ' + at if at else ''}", {})
    _r, path, at, named, partners = place
    mine = _at(r.raw, plan.pointer, plan.member)
    if plan.on is not None:
        partner = partners.get((id(joined), plan.on))  # `joined` lives as long as the check runs, and so as long as `places`
        if partner is None:
            values = tuple([r.dims.get(d) for d in plan.on])
            others = joined.get(values, [])
            if len(others) == 1:
                other = others[0]
                other_file, other_at = other.location.file, other.location.pointer or ""
                partner = partners[(id(joined), plan.on)] = (other, other_file, other_at, f"{other_file}{' ' + other_at if other_at else ''}")
            else:
                want = dict(zip(plan.on, values, strict=True))
                return _f(cid, Status.UNVERIFIED, "join-unresolved", f"{plan.id}: {named}: {len(others)} records of {plan.equals['receipts']} share {want}, so the value to equal is not known",
                          path=path, pointer=at + plan.pointer)
        other, other_file, other_at, there = partner
        where = there + plan.other_pointer
    else:
        other, other_file, other_at, where = r, path, at, f"{at}{plan.other_pointer}"
    theirs = _at(other.raw, plan.other_pointer, plan.other_member)
    if mine is None or theirs is None:
        missing = plan.pointer if mine is None else plan.other_pointer
        return _f(cid, Status.UNVERIFIED, "not-stated", f"{plan.id}: {named}: states no value at {missing}, so the equality cannot be checked", path=path, pointer=at + plan.pointer)
    mine_at = at + plan.pointer
    seen.add((path, mine_at))
    seen.add((other_file, other_at + plan.other_pointer))
    equal = _same(mine, theirs, plan.stated_precision)
    label = f"{plan.id}: {named}"
    text = f"{plan.pointer} {mine!r} {'==' if equal else '!='} {where} {theirs!r}{plan.note}"
    if not plan.has_flag:
        return Finding(check=cid, status=Status.PASS if equal else Status.FAIL, code="equal" if equal else "not-equal", message=f"{label}: {text}",
                       path=path, pointer=mine_at, expected=theirs, observed=mine)
    stated = _at(r.raw, plan.flag)
    flag = outcome_of(stated, plan.outcomes)
    if flag is None:
        return _f(cid, Status.UNVERIFIED, "not-stated", f"{label}: {plan.flag} holds {stated!r}, not true/false or a declared outcome word",
                  path=path, pointer=at + plan.flag, observed=stated)
    seen.add((path, at + plan.flag))
    agree = flag == equal
    return _f(cid, Status.PASS if agree else Status.FAIL, "flag-agrees" if agree else "flag-disagrees",
              f"{label}: {plan.flag} states {stated!r} ({str(flag).lower()}); re-derived: {text}",
              path=path, pointer=at + plan.flag, expected=equal, observed=stated)
