"""The claim pipeline pinned by examples: backward binding of `where` templates, member lookup, a derivation compared at two precisions."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from verifier.readers import sites
from verifier.readers.sites import member_of


#: Rows whose members bind templates or not: case and casefolding (`ß` folds to `ss`), line breaks (`.+` stops at one), an
#: empty text, None, numbers (read as their text), a missing member and an element that is not an object.
ROWS = [{"A": "Offline", "B": "offline"}, {"A": "a", "B": "a"}, {"A": "ß", "B": "SS"}, {"A": "1", "B": "x01"}, {"A": "v-1.0", "B": "1.0"},
        {"A": "a\nb", "B": "x\r"}, {"A": None, "B": "a"}, {"A": 3, "B": Decimal("2.50")}, {"A": "", "B": "b"}, {"B": "a"}, "not an object"]


@pytest.mark.parametrize("where, fold, bound, expected", [
    ({"A": "{a}", "B": "{b}"}, (), {}, [({"a": "Offline", "b": "offline"}, "/0"), ({"a": "a", "b": "a"}, "/1"), ({"a": "ß", "b": "SS"}, "/2"),
                                        ({"a": "1", "b": "x01"}, "/3"), ({"a": "v-1.0", "b": "1.0"}, "/4"), ({"a": "3", "b": "2.50"}, "/7")]),
    ({"A": "{a}", "B": "{b}"}, (), {"a": "a"}, [({"a": "a", "b": "a"}, "/1")]),  # a bound dimension must agree
    ({"A": "{a}", "B": "{b}"}, (), {"b": "ss"}, []),
    ({"A": "{a}", "B": "{b}"}, ("B",), {"b": "ss"}, [({"b": "ss", "a": "ß"}, "/2")]),  # only the folded member is casefolded
    ({"A": "{a}", "B": "{b}"}, ("A", "B"), {}, [({"a": "offline", "b": "offline"}, "/0"), ({"a": "a", "b": "a"}, "/1"), ({"a": "ss", "b": "ss"}, "/2"),
                                                ({"a": "1", "b": "x01"}, "/3"), ({"a": "v-1.0", "b": "1.0"}, "/4"), ({"a": "3", "b": "2.50"}, "/7")]),
    ({"A": "{a}", "B": "{a}"}, (), {}, [({"a": "a"}, "/1")]),  # one dimension twice: both members must agree
    ({"A": "{a}", "B": "{a}"}, ("A", "B"), {"b": "ss"}, [({"b": "ss", "a": "offline"}, "/0"), ({"b": "ss", "a": "a"}, "/1"), ({"b": "ss", "a": "ss"}, "/2")]),
    ({"A": "{a.index}", "B": "x{b}"}, (), {"a": "a"}, [({"a": "a", "a.index": "1", "b": "01"}, "/3")]),  # a literal prefix; `.index` its own name
    ({"A": "{a}-{b}", "B": "{b}"}, (), {}, [({"a": "v", "b": "1.0"}, "/4")]),  # two dimensions in one member, one of them again in the next
    ({"A": "{a}-{b}", "B": "{b}"}, (), {"a": "a"}, []),
])
def test_where_templates_bind_backwards(where, fold, bound, expected):
    at = {"pointer": "", "where": where, "fold_case": list(fold)}
    assert [(b, pointer) for b, pointer, _element in sites._where_matches(ROWS, at, bound)] == expected


def test_a_member_is_read_backwards_only_where_its_name_is_written():
    for text in ["acc: 76.0", "ROUGE1: 1  ROUGE2: 2", "ROUGE1: 1 ROUGE1: 2", "mAP:37.5", "nothing", "", "x acc : 1"]:
        for name in ["acc", "ROUGE1", "ROUGE2", "mAP", "a"]:
            try:
                expected: Any = member_of(text, name)
            except LookupError:
                expected = None
            if name not in text:
                assert expected is None  # what the shortcut in `stated` assumes


def test_one_derivation_stated_at_two_precisions_is_compared_at_each(tmp_path):
    """derivation.claims compares a derivation with a stated number once per run; "3.00" and "3.000" are equal numbers of other precisions."""
    import json

    from conftest import make_assets
    from helpers import one_claim, write_tree

    from verifier.core import verify_path

    bundle = write_tree(tmp_path / "run", {"runs/a.csv": "s\n2\n4.008\n", "summary.json": json.dumps({"two": "3.00", "three": "3.000", "again": "3.00"})})
    claims = [{"id": cid, "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured", "arm": "a"}, "unit": "s",
               "at": {"file": "summary.json", "pointer": pointer}} for cid, pointer in (("two", "/two"), ("three", "/three"), ("again", "/again"))]
    doc = {"id": "run", "version": 1, "description": "compared once", "detect": {"files": ["summary.json"]},
           "manifest": {"kind": "none", "reason": "no digests"},
           "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}.csv",
                                 "fields": {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"}, "phase": {"value": "measured"}}}},
           "claims": claims}
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": doc}))
    assert one_claim(report, "two").status == "PASS"  # |3.004 - 3.00| within half a unit of 0.01
    assert (one_claim(report, "three").status, one_claim(report, "three").code) == ("FAIL", "claim-mismatch")  # not within 0.0005
    again = one_claim(report, "again")
    assert again.status == "PASS" and again.message == "again" + one_claim(report, "two").message.removeprefix("two")
