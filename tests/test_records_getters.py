"""
Tests that `verifier.readers.records._getter` (each field mapping's kind decided once per receipt set) reads as `_map` does.

Random records (dicts, lists, scalars; members named with `/`, `~`, digits,
spaces), elements, parallel columns and file-name values, read through every
kind of mapping: the getter and `_map` give the same `(found, value)`.
"""

from __future__ import annotations

import random
from decimal import Decimal

from verifier.readers.records import _getter, _map

_NAMES = ["a", "b", "Samples per second", "0", "1", "01", "a/b", "a~b", "~1", "", "x.y", "x_y"]
_SCALARS = [None, True, False, 0, 7, Decimal("1.50"), "", "12", "x"]


def _value(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth > 2 or roll < 0.4:
        return rng.choice(_SCALARS)
    if roll < 0.55:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(_NAMES): _value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def _escaped(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _mapping(rng: random.Random) -> dict:
    kind = rng.choice(["value", "from_name", "element", "parallel", "pointer", "pointer", "pointer"])
    if kind == "value":
        return {"value": rng.choice(_SCALARS)}
    if kind == "from_name":
        return {"from_name": rng.choice(["x.y", "x_y", "a", "missing"])}
    if kind == "element":
        return {"element": True}
    if kind == "parallel":
        return {"parallel": rng.choice(["a", "b"])}
    tokens = [rng.choice([_escaped(n), n]) for n in rng.sample(_NAMES, rng.randint(0, 3))]
    return {"pointer": "".join("/" + t for t in tokens), "unit": "s"}


def test_each_getter_reads_as_map():
    rng = random.Random(1205)
    kinds = set()
    for _ in range(20000):
        mapping = _mapping(rng)
        record = _value(rng) if rng.random() < 0.3 else {n: _value(rng, 1) for n in rng.sample(_NAMES, rng.randint(0, 6))}
        element, parallel = _value(rng), {n: _value(rng, 2) for n in rng.sample(["a", "b"], rng.randint(0, 2))}
        from_name = {n: "v" for n in rng.sample(["x_y", "a"], rng.randint(0, 2))}
        got = _getter(mapping)(record, element, parallel, from_name)
        expected = _map(mapping, record, element, parallel, from_name)
        assert repr(got) == repr(expected), (mapping, record)
        kinds.add((next(iter(mapping)), got[0]))
    assert {("pointer", True), ("pointer", False), ("from_name", True), ("from_name", False), ("value", True)} <= kinds


def test_a_value_not_stated_is_none_or_left_out_and_missing_only_when_required(tmp_path):
    """A mapped value a record does not state (absent or null): a required one is None and FAIL `missing-field`; an optional one is left out of `quantities` (`select.ABSENT`)."""
    from pathlib import Path

    from verifier.readers.records import read_receipts
    from verifier.readers.tree import Tree

    (tmp_path / "r.json").write_text('[{"a": null, "c": 2}]')
    spec = {"glob": "r.json", "encoding": "json", "records": "", "fields": {"phase": {"value": "measured"}},
            "values": {"a": {"pointer": "/a", "unit": "s", "optional": True}, "b": {"pointer": "/b", "unit": "s", "optional": True},
                       "n": {"pointer": "/a", "unit": "s"}, "m": {"pointer": "/b", "unit": "s"}, "c": {"pointer": "/c", "unit": "s"}}}
    records, problems, _files = read_receipts(Tree(Path(tmp_path)), "r", spec)
    assert [(p.code, p.field) for p in problems] == [("missing-field", "n"), ("missing-field", "m")]
    assert {k: (None if v is None else str(v.value)) for k, v in records[0].quantities.items()} == {"n": None, "m": None, "c": "2"}


def test_file_name_dimensions_read_in_the_record_loop_as_their_getters_read_them(tmp_path):
    """`read_receipts` reads a `from_name` dimension inline (no getter call per record): the same texts, and a placeholder the name lacks is a missing field."""
    from pathlib import Path

    from verifier.readers.records import read_receipts
    from verifier.readers.tree import Tree

    (tmp_path / "gpu-a").mkdir()
    (tmp_path / "gpu-a" / "run.x.json").write_text('[{"v": 1}]')
    spec = {"glob": "*/*.json", "encoding": "json", "records": "", "name": "{arm}/run.{case.id}.json",
            "fields": {"phase": {"value": "measured"}, "arm": {"from_name": "arm"}},
            "dimensions": {"model": {"from_name": "case.id"}, "gone": {"from_name": "nowhere"}, "fixed": {"value": "k", "from_name": "arm"}},
            "values": {"v": {"pointer": "/v", "unit": "s"}}}
    records, problems, _files = read_receipts(Tree(Path(tmp_path)), "r", spec)
    assert dict(records[0].dims) == {"file": "gpu-a/run.x.json", "phase": "measured", "arm": "gpu-a", "model": "x", "fixed": "k"}
    assert records[0].unknown == frozenset({"gone"})
    assert [(p.code, p.field) for p in problems] == [("missing-field", "gone")]
