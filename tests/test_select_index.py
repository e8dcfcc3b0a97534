"""
Tests that `verifier.readers.select.select` over its per-dimension index returns what a scan of every record returns, and that `_values` (one pass) reads as the check-by-check definition.

From `_INDEX_FROM` records on, `select` narrows to the candidates of one
key (the fewest), with shortcuts: nothing when that key has no candidate,
one value's positions as they are (already in order) when no record may
match it without the dimension. A scan (`_matching` over every record with
every key) is the definition; random records (stand-ins for unread files,
unmapped dimensions, missing dimensions) and selections (a value, a list of
values, empty or repeated, a join, a key no record has) must give the same
list, in the same order.
"""

from __future__ import annotations

import random

from decimal import Decimal

from verifier.evidence import Location, Quantity, Receipt
from verifier.readers import select as sel

_DIMS = ["arm", "server", "phase", "model"]
_VALUES = ["a", "b", "c", "1", "1.0"]


def _record(rng: random.Random, i: int) -> Receipt:
    dims = {d: rng.choice(_VALUES) for d in _DIMS if rng.random() < 0.85}
    unknown = frozenset(d for d in _DIMS if d not in dims and rng.random() < 0.3)
    unread = "not read" if rng.random() < 0.05 else None
    return Receipt(dims=dims, quantities={}, location=Location(f"f{i}", None), unread=unread, unknown=unknown)


def _selection(rng: random.Random) -> dict:
    out: dict = {}
    for d in rng.sample([*_DIMS, "absent"], rng.randint(0, 4)):
        roll = rng.random()
        if roll < 0.55:
            out[d] = rng.choice(_VALUES)
        elif roll < 0.9:
            out[d] = [rng.choice(_VALUES) for _ in range(rng.randint(0, 3))]
        else:
            out[d] = {"receipts": "other", "pointer": "/x"}  # a join: matches any record
    return out


def _scan(records: list[Receipt], selection: dict) -> list[Receipt]:
    return sel._matching(records, [(k, v, isinstance(v, list)) for k, v in selection.items() if not isinstance(v, dict)])


def test_the_indexed_select_returns_what_a_scan_returns():
    rng = random.Random(20261205)
    shortcuts = {"empty": 0, "one-value": 0, "merged": 0}
    for _ in range(400):
        records = [_record(rng, i) for i in range(rng.randint(sel._INDEX_FROM, 60))]
        for _ in range(12):  # several selections over one list: its index is built once and reused
            selection = _selection(rng)
            got = sel.select(records, selection)
            expected = _scan(records, selection)
            assert [id(r) for r in got] == [id(r) for r in expected], selection
            if not got:
                shortcuts["empty"] += 1
            elif any(isinstance(v, list) and len(v) > 1 for v in selection.values()):
                shortcuts["merged"] += 1
            else:
                shortcuts["one-value"] += 1
    assert min(shortcuts.values()) > 100, shortcuts


def test_a_short_list_is_scanned():
    rng = random.Random(5)
    for _ in range(300):
        records = [_record(rng, i) for i in range(rng.randint(0, sel._INDEX_FROM - 1))]
        selection = _selection(rng)
        assert [id(r) for r in sel.select(records, selection)] == [id(r) for r in _scan(records, selection)]


def _reference_values(records: list[Receipt], name: str, label: str) -> list:
    """`_values` as it read before its one pass: the stand-in check, the empty check, then every record's value and flags."""
    sel.check_complete(records, label)
    if not records:
        raise sel.Underivable(f"no receipts match {label}", "empty-selection")
    got = [r.value(name) for r in records]
    place = [f"{r.path} {r.pointer}" if r.pointer else r.path for r in records]  # file and pointer: "" alone names no receipt
    missing = [p for r, v, p in zip(records, got, place, strict=True) if (v is None and name in r.quantities) or r.unknown]
    failed = [p for r, p in zip(records, place, strict=True) if not r.ok]
    if missing or failed:
        raise sel.Underivable(
            f"{len(records) - len(set(missing) | set(failed))}/{len(records)} receipts of {label} have a usable {name} "
            f"(missing: {missing[:3] or 'none'}; not ok: {failed[:3] or 'none'}); a statistic over the survivors is not one over all",
            "incomplete-denominator",
        )
    absent = [p for r, p in zip(records, place, strict=True) if name not in r.quantities and not r.unknown]  # an `optional` value not stated
    if absent:
        raise sel.Underivable(
            f"value {name} is absent on {len(absent)} of {len(records)} receipts of {label} ({', '.join(absent[:3])}"
            f"{f' and {len(absent) - 3} more' if len(absent) > 3 else ''}); it is mapped `optional` (or its mapping matches no record of its set: "
            "`mapping-matches-nothing`), so a statistic over them is underivable "
            "(narrow the selection, e.g. a receipt-set `where` {\"present\": true})", sel.ABSENT, fail=False)
    return got


def _outcome(fn, records, name):
    try:
        return ("ok", [str(v) for v in fn(records, name, "sel=x")])
    except sel.Underivable as exc:
        return ("raised", str(exc), exc.code, exc.fail)


def test_values_reads_as_the_check_by_check_definition():
    rng = random.Random(77)
    seen = set()
    for _ in range(3000):
        records = []
        for i in range(rng.choice([0, 1, 1, 2, 3, 5])):
            roll = rng.random()
            quantities = {} if roll < 0.1 else {"x": None} if roll < 0.2 else {"x": Quantity(Decimal(rng.randint(1, 9)), rng.choice(["s", "ms"]))}
            records.append(Receipt(dims={}, quantities=quantities, location=Location(f"f{i}", f"/{i}"), ok=rng.random() > 0.15,
                                   unknown=frozenset({"arm"}) if rng.random() < 0.15 else frozenset(),
                                   unread="not read" if rng.random() < 0.08 else None))
        got, expected = _outcome(sel._values, records, "x"), _outcome(_reference_values, records, "x")
        assert got == expected, records
        seen.add(got[0] if got[0] == "ok" else got[2])
    assert seen == {"ok", "empty-selection", "incomplete-denominator", sel.ABSENT}
