"""
Tests that `verifier.readers.select.select` over its per-dimension index returns what a scan of every record returns, and what `_values` gives or raises on each kind of receipt list (examples).

From `_INDEX_FROM` records on, `select` of a `ReceiptSet` narrows to the candidates of one
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

import pytest

from verifier.model.evidence import Location, Quantity, Receipt
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
        records = sel.ReceiptSet(_record(rng, i) for i in range(rng.randint(sel._INDEX_FROM, 60)))
        for _ in range(12):  # several selections over one receipt set: its index is built once and reused
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
    assert records.index  # the receipt set carries its index (the run's, not a module's)


def test_a_plain_list_is_scanned_and_indexed_nowhere():
    rng = random.Random(7)
    records = [_record(rng, i) for i in range(200)]
    for _ in range(50):
        selection = _selection(rng)
        assert [id(r) for r in sel.select(records, selection)] == [id(r) for r in _scan(records, selection)]


def test_a_short_list_is_scanned():
    rng = random.Random(5)
    for _ in range(300):
        records = [_record(rng, i) for i in range(rng.randint(0, sel._INDEX_FROM - 1))]
        selection = _selection(rng)
        assert [id(r) for r in sel.select(records, selection)] == [id(r) for r in _scan(records, selection)]


def _receipt(i: int, value: str | None = "1s", ok: bool = True, unknown: tuple[str, ...] = (), unread: str | None = None,
             pointer: bool = True) -> Receipt:
    """Receipt `f{i}` at `/{i}` (or no pointer) stating `x` (`"250ms"`, `"1.50s"`), `x` unreadable (None) or no `x` (`"absent"`)."""
    if value == "absent":
        quantities: dict = {}
    elif value is None:
        quantities = {"x": None}
    else:
        number, unit = (value[:-2], "ms") if value.endswith("ms") else (value[:-1], "s")
        quantities = {"x": Quantity(Decimal(number), unit)}
    return Receipt(dims={}, quantities=quantities, location=Location(f"f{i}", f"/{i}" if pointer else None), ok=ok, unknown=frozenset(unknown),
                   unread=unread)


_SURVIVORS = "a statistic over the survivors is not one over all"
_OPTIONAL = ("it is mapped `optional` (or its mapping matches no record of its set: `mapping-matches-nothing`), so a statistic over them "
             'is underivable (narrow the selection, e.g. a receipt-set `where` {"present": true})')


@pytest.mark.parametrize("records, expected", [
    ([], ("raised", "no receipts match sel=x", "empty-selection", True)),
    ([_receipt(0, "1.50s"), _receipt(1, "250ms"), _receipt(2, "7s", pointer=False)], ("ok", ["1.50", "0.25", "7"])),  # in seconds
    ([_receipt(0), _receipt(1, unread="not read")],
     ("raised", "sel=x covers receipts that were not read: f1 /1 (not read); a statistic over the others is not one over all", "incomplete-denominator", False)),
    ([_receipt(0), _receipt(1, None), _receipt(2, ok=False), _receipt(3, unknown=("arm",)), _receipt(4, None, ok=False)],
     ("raised", f"1/5 receipts of sel=x have a usable x (missing: ['f1 /1', 'f3 /3', 'f4 /4']; not ok: ['f2 /2', 'f4 /4']); {_SURVIVORS}",
      "incomplete-denominator", True)),
    ([_receipt(0), _receipt(1, unknown=("arm",))],  # a dimension that could not be read: the receipt's value is not usable
     ("raised", f"1/2 receipts of sel=x have a usable x (missing: ['f1 /1']; not ok: none); {_SURVIVORS}", "incomplete-denominator", True)),
    ([_receipt(i, ok=False) for i in range(5)],
     ("raised", f"0/5 receipts of sel=x have a usable x (missing: none; not ok: ['f0 /0', 'f1 /1', 'f2 /2']); {_SURVIVORS}", "incomplete-denominator", True)),
    ([_receipt(0), *(_receipt(i, "absent") for i in range(1, 5))],
     ("raised", f"value x is absent on 4 of 5 receipts of sel=x (f1 /1, f2 /2, f3 /3 and 1 more); {_OPTIONAL}", sel.ABSENT, False)),
    ([_receipt(0), *(_receipt(i, "absent") for i in range(1, 4))],  # three named: no "and 0 more"
     ("raised", f"value x is absent on 3 of 4 receipts of sel=x (f1 /1, f2 /2, f3 /3); {_OPTIONAL}", sel.ABSENT, False)),
    ([_receipt(0, "absent"), _receipt(1, "absent", pointer=False)],
     ("raised", f"value x is absent on 2 of 2 receipts of sel=x (f0 /0, f1); {_OPTIONAL}", sel.ABSENT, False)),
    ([_receipt(0, "absent"), _receipt(1, ok=False)],  # a failed receipt outweighs an optional absence: FAIL, not UNVERIFIED
     ("raised", f"1/2 receipts of sel=x have a usable x (missing: none; not ok: ['f1 /1']); {_SURVIVORS}", "incomplete-denominator", True)),
], ids=["empty", "usable", "unread", "missing-and-failed", "unknown", "failed", "absent", "absent-three", "absent-no-pointer", "absent-and-failed"])
def test_values_gives_every_value_or_says_why_not(records, expected):
    try:
        got = ("ok", [str(v) for v in sel._values(records, "x", "sel=x")])
    except sel.Underivable as exc:
        got = ("raised", str(exc), exc.code, exc.fail)
    assert got == expected
