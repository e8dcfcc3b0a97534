"""
Tests of how `verifier.readers.records.read_receipts` reads a receipt set's field mappings: a value a record does not state, and file-name dimensions.
"""

from __future__ import annotations


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


def test_file_name_dimensions_are_read_from_the_name(tmp_path):
    """`read_receipts` reads a `from_name` dimension from the file name; a placeholder the name lacks is a missing field."""
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
