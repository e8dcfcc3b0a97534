"""
Profile check `derivation.matches`: per-record equalities, within a record or joined across files, and the flags records state about them.

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
from typing import Any

from verifier.engine import stats
from verifier.checks.profile_base import _f, _profile, _records, examined
from verifier.readers.markdown_doc import row_pointers
from verifier.model.evidence import Receipt
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context, check
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
    da, db = to_decimal(a), to_decimal(b)
    if da is not None and db is not None:
        return stats.agree(da, db) if stated_precision else da == db
    return isinstance(a, str) and isinstance(b, str) and a == b


def _at(raw: Any, pointer: str) -> Any:
    """Return the value at JSON Pointer `pointer` in `raw` (`resolve`), None when there is none."""
    try:
        return resolve(raw, pointer)
    except KeyError:
        return None


@check("derivation.matches", title="Every per-record equality (within a record or joined across files) holds, and every flag stating it agrees")
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
    places are marked examined (a Markdown table row's also at its claim document place `/tables/<name>/<row>`), so
    `claims.coverage` counts them.
    """
    cid = "derivation.matches"
    indexes: dict[tuple[str, tuple[str, ...]], dict[tuple[Any, ...], list[Receipt]]] = {}  # (other set, on) -> its records by their `on` values
    seen = examined(ctx)
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
        by_file: dict[str, list[Any]] = {}
        for r in records:
            by_file.setdefault(r.path, []).append(r.raw)
        in_documents = {k: v for raws in by_file.values() for k, v in row_pointers(raws).items()}  # a Markdown table row: its claim document's place
        for r in records:
            yield _one(entry, r, joined, seen)
            if id(r.raw) in in_documents and (r.path, r.pointer + entry["pointer"]) in seen:
                seen.add((r.path, in_documents[id(r.raw)] + entry["pointer"]))


def _one(entry: dict[str, Any], r: Receipt, joined: dict[tuple[Any, ...], list[Receipt]], seen: set[tuple[str, str]]) -> Finding:
    """Return the finding of one record `r` of `entry` (`joined`: the other set's records by their `on` values); the places compared go into `seen`."""
    cid = "derivation.matches"
    equals, pointer, other_pointer = entry["equals"], entry["pointer"], entry["equals"]["pointer"]
    path, at = r.path, r.pointer
    named = f"{path}{' ' + at if at else ''}"
    mine = _at(r.raw, pointer)
    if "receipts" in equals:
        want = {d: r.dims.get(d) for d in equals.get("on", [])}
        others = joined.get(tuple(want.values()), [])
        if len(others) != 1:
            return _f(cid, Status.UNVERIFIED, "join-unresolved", f"{entry['id']}: {named}: {len(others)} records of {equals['receipts']} share {want}, so the value to equal is not known",
                      path=path, pointer=at + pointer)
        other = others[0]
        where = f"{other.path}{' ' + other.pointer if other.pointer else ''}{other_pointer}"
    else:
        other, where = r, f"{at}{other_pointer}"
    theirs = _at(other.raw, other_pointer)
    if mine is None or theirs is None:
        missing = pointer if mine is None else other_pointer
        return _f(cid, Status.UNVERIFIED, "not-stated", f"{entry['id']}: {named}: states no value at {missing}, so the equality cannot be checked", path=path, pointer=at + pointer)
    seen.add((path, at + pointer))
    seen.add((other.path, other.pointer + other_pointer))
    equal = _same(mine, theirs, entry.get("precision") == "stated")
    label = f"{entry['id']}: {named}"
    text = f"{pointer} {mine!r} {'==' if equal else '!='} {where} {theirs!r}{' (at the coarser precision the two state)' if entry.get('precision') else ''}"
    if "flag" not in entry:
        return Finding(check=cid, status=Status.PASS if equal else Status.FAIL, code="equal" if equal else "not-equal", message=f"{label}: {text}",
                       path=path, pointer=at + pointer, expected=theirs, observed=mine)
    stated = _at(r.raw, entry["flag"])
    flag = outcome_of(stated, entry.get("outcomes"))
    if flag is None:
        return _f(cid, Status.UNVERIFIED, "not-stated", f"{label}: {entry['flag']} holds {stated!r}, not true/false or a declared outcome word",
                  path=path, pointer=at + entry["flag"], observed=stated)
    seen.add((path, at + entry["flag"]))
    agree = flag == equal
    return _f(cid, Status.PASS if agree else Status.FAIL, "flag-agrees" if agree else "flag-disagrees",
              f"{label}: {entry['flag']} states {stated!r} ({str(flag).lower()}); re-derived: {text}",
              path=path, pointer=at + entry["flag"], expected=equal, observed=stated)
