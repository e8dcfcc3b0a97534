"""The shortcuts of the claim pipeline give what the general code gives (speed-pipe): backward binding, member lookup, compared-once claims."""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

from verifier.readers import locate
from verifier.readers.locate import _PLACEHOLDER, _bind_into, _elements, _template, _walk, dim_text, member_of


def _where_matches_by_pattern(document: Any, at: dict[str, Any], bound: dict[str, str]) -> list[tuple[dict[str, str], str, Any]]:
    """The backward `where` binding as it was: every member's template bound through its pattern."""
    fold = at.get("fold_case", ())
    tests = [(member, member in fold, _template(template, ".+"), _PLACEHOLDER.findall(template)) for member, template in at["where"].items()]
    out = []
    for b1, pointer, node in _walk(document, at["pointer"], "", bound):
        if not isinstance(node, (list, dict)):
            continue
        for i, element in _elements(node):
            if not isinstance(element, dict):
                continue
            b2 = dict(b1)
            for member, folded, pattern, names in tests:
                text = dim_text(element.get(member))
                if text is None or not _bind_into(pattern, text.casefold() if folded else text, names, b2):
                    break
            else:
                out.append((b2, f"{pointer}/{i}", element))
    return out


_TEXTS = ["", "a", "A", "a\nb", "\n", "x\r", " ", "Offline", "offline", "ß", "SS", "1", "01", "v-1.0", "a b", "\u2028", None, 3, Decimal("2.50")]


def test_where_templates_bind_backwards_as_their_patterns_do():
    rng = random.Random(11)
    wheres = [
        {"A": "{a}", "B": "{b}"},
        {"A": "{a}", "B": "{a}"},  # one dimension twice: both must agree
        {"A": "{a.index}", "B": "x{b}"},
        {"A": "{a}-{b}", "B": "{b}"},
    ]
    for where in wheres:
        for fold in ((), ("B",), ("A", "B")):
            at = {"pointer": "", "where": where, "fold_case": list(fold)}
            for _ in range(60):
                rows = [{"A": rng.choice(_TEXTS), "B": rng.choice(_TEXTS)} for _ in range(6)] + ["not an object"]
                for bound in ({}, {"a": "a"}, {"b": "ss"}):
                    assert list(locate._where_matches(rows, at, bound)) == _where_matches_by_pattern(rows, at, bound), (where, fold, rows, bound)


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
