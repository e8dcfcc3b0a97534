"""The claim-site reader and the profile checks pinned by examples; lookups on one tree (its per-run caches) find what each on a fresh tree finds."""

from __future__ import annotations

import dataclasses
import json
import random
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest

from verifier.checks import profile_coverage, profile_matches
from verifier.model.evidence import Location, StatedClaim
from verifier.readers import sites
from verifier.readers.tree import Tree


def _outcome(fn: Any, *args: Any) -> Any:
    """Return what `fn(*args)` returns, or the type and text of what it raises."""
    try:
        return ("value", fn(*args))
    except Exception as exc:  # noqa: BLE001 - compared, not handled
        return ("raised", type(exc).__name__, str(exc))


@pytest.mark.parametrize("a, b, equal, within_precision", [
    ("637.535", "637.54", False, True),  # LoadGen's summary prints 637.54 of its log's 637.535: half a unit of 0.01
    ("637.54", "637.544", False, True), ("637.54", "637.546", False, False),
    ("35342.6", "35342.64", False, True), ("35342.6", "35342.66", False, False),
    ("1.0", "1.04", False, True), ("1", "1.4", False, True), ("1", "1.6", False, False),
    ("637.535", Decimal("637.535"), True, True), (" 637.535 ", Decimal("637.535"), True, True), ("637.5350", 637, False, False),
    ("1e3", 1000, True, True), ("1000", Decimal("1E+3"), True, True), ("1/2", Decimal("0.50"), True, True), ("0.5", Decimal("0.50"), True, True),
    (7, Decimal("7.0"), True, True), ("-0", 0, True, True), ("-0", Decimal("-0"), True, True),
    ("0.5", 0.5, False, False),  # a float is no stated number
    ("NaN", Decimal("NaN"), False, False), ("inf", Decimal("Infinity"), False, False),
    ("x", "x", True, True), ("12 ms", "12 ms", True, True), ("12 ms", 12, False, False), ("", "x", False, False), ("x", None, False, False),
    (True, True, False, False), (True, 1, False, False), (Decimal("7.0"), True, False, False), (None, None, False, False),
])
def test_stated_values_are_equal_by_value_or_as_text(a, b, equal, within_precision):
    assert (profile_matches._same(a, b), profile_matches._same(a, b, True)) == (equal, within_precision)


def test_the_line_naming_a_bound_names_it_as_a_whole_word():
    text = "latencyx >= 1\n.latency <= 2\nthe `latency` >= 1.5\nlatency <= 9"
    assert sites._naming_line(text, "latency", sites._naming("latency")) == "the `latency` >= 1.5"
    assert sites._naming_line("a\r\nlatency >= 2", "latency", sites._naming("latency")) == "latency >= 2"
    assert sites._naming_line("latencies >= 2", "latency", sites._naming("latency")) is None


def test_a_bounds_file_read_once_gives_what_each_read_gives(tmp_path):
    (tmp_path / "a.md").write_text("x\n`acc`: 1, Required `>= 2` and `<= 3`\n`mAP`: 4 `>= 5`\n")
    (tmp_path / "bad.md").write_bytes(b"\xff latency >= 1")
    tree = Tree(tmp_path)
    texts: dict[str, str | None] = {}
    for naming in ("`acc`", "`mAP`", "`none`", "`acc`"):
        for rel in ("a.md", "bad.md", "absent.md"):
            at = {"file": rel, "line_naming": naming}
            assert _outcome(sites.stated_bounds, tree, at, {}, texts) == _outcome(sites.stated_bounds, tree, at, {}), (naming, rel)
    assert texts == {"a.md": (tmp_path / "a.md").read_text(), "bad.md": None, "absent.md": None}


_ROWS_TEXTS = ["a", "A", "b", "ß", "SS", "ss", "x/y", "t~0", "1", "", None, 3]


def _general(fn: Any, tree_root: Any, at: dict[str, Any], *args: Any) -> Any:
    """Return `_outcome` of `fn` on a fresh tree (nothing of an earlier lookup kept) and its file parsed afresh."""
    tree = Tree(tree_root)
    return _outcome(fn, tree, _parsed(tree, at), at, *args)


def _parsed(tree: Tree, at: dict[str, Any]) -> dict[str, Any]:
    """Return the claim files `parse_claim_files` gives for one location `at` read by a claim over receipts of set `r`."""
    return sites.parse_claim_files(tree, {"claims": [{"receipts": "r", "at": at}]}, [SimpleNamespace(receipt_set="r")])


def test_a_fixed_where_finds_what_the_general_lookup_finds(tmp_path):
    """Lookups on one tree (its per-run caches: the `where` index, each location's `_Spot`) find what each on a fresh tree finds."""
    rng = random.Random(3)
    for trial in range(40):
        rows: Any = [{"A": rng.choice(_ROWS_TEXTS), "B": rng.choice(_ROWS_TEXTS), "v": rng.choice(["1", "acc: 2  acc: 3", "acc: 4", "acc: 4 acc: 4", "acc: 6 mAP: 7", 5, None]),
                      "u": rng.choice(["ms", None])} for _ in range(6)]
        for row in rows:
            if rng.random() < 0.15:
                del row["v"]
        if trial % 3 == 0:
            rows = {rng.choice(["r", "a/b", "t~1", "~", "/"]) + str(i): row for i, row in enumerate(rows)}  # a table keyed by row name
        (tmp_path / f"t{trial}.json").write_text(json.dumps({"rows": rows}))
        for where in ({"A": "{a}", "B": "{b}"}, {"A": "{a}"}, {"A": "{a}", "B": "x{b}"}):
            for extra in ({}, {"member": "acc"}, {"member": "mAP"}, {"then": "/v/0"}, {"fold_case": ["B"]}, {"fold_case": ["A", "B"], "member": "acc"}):
                at = {"file": f"t{trial}.json", "pointer": "/rows", "where": where, "then": "/v", **extra}
                kept = Tree(tmp_path)  # one tree for the claims on one file: the members read for one claim are kept for the next
                for _ in range(8):
                    key = {"a": rng.choice(["a", "A", "ß", "x/y", "t~0", "1", "z"]), "b": rng.choice(["b", "ss", "SS", "z"])}
                    if rng.random() < 0.1:
                        del key["b"]
                    assert _outcome(sites.locate, kept, _parsed(kept, at), at, key, {}) == _general(sites.locate, tmp_path, at, key, {}), (rows, at, key)
                    assert _outcome(sites.locate_beside, kept, _parsed(kept, at), at, key, {}, "/u") == _general(sites.locate_beside, tmp_path, at, key, {}, "/u"), (rows, at, key)
                    other = {**at, "member": "acc" if at.get("member") == "mAP" else "mAP"} if "member" in at else at  # the same texts, another member
                    assert _outcome(sites.locate, kept, _parsed(kept, other), other, key, {}) == _general(sites.locate, tmp_path, other, key, {}), (rows, other, key)


def _claim(file: str, pointer: str, words: str = "x") -> StatedClaim:
    return StatedClaim(pointer, None, words, Location(file, pointer))


def test_coverage_groups_by_file_and_finds_the_numbers_members_name():
    """Claims of one file in runs (a file coming back after another), outcomes of a file with no claim; `pointer#NAME` places against `#numbers/N` ones."""
    claims = [_claim("a.json", "/0/Accuracy#numbers/0", "acc: 1  mAP: 2.5"), _claim("a.json", "/0/Accuracy#numbers/1", "acc: 1  mAP: 2.5"),
              _claim("b.csv", "/1/Result"), _claim("a.json", "/2/Result#numbers/0", "5 ms"),
              _claim("c.md", "/3/Accuracy#numbers/1", "ROUGE1: 3 ROUGE2: 4"), _claim("a.json", "/0/Accuracy#numbers/7", "acc: 1  mAP: 2.5"),
              _claim("a.json", "/0/Accuracy#numbers/", "acc: 1  mAP: 2.5"), _claim("c.md", "/3/Accuracy#numbers/0", "ROUGE1: 3 ROUGE2: 4")]
    outcomes = [SimpleNamespace(location=Location(file, pointer), passed=True) for file, pointer in (("a.json", "/0"), ("d.json", "/1"), ("a.json", "/2"))]
    by_file = profile_coverage._by_file(SimpleNamespace(claims=claims, outcomes=outcomes))  # type: ignore[arg-type]
    assert {rel: ([c.id for c in mine], [str(o.location) for o in outs]) for rel, (mine, outs) in by_file.items()} == {
        "a.json": (["/0/Accuracy#numbers/0", "/0/Accuracy#numbers/1", "/2/Result#numbers/0", "/0/Accuracy#numbers/7", "/0/Accuracy#numbers/"],
                   ["a.json#/0", "a.json#/2"]),
        "b.csv": (["/1/Result"], []),
        "c.md": (["/3/Accuracy#numbers/1", "/3/Accuracy#numbers/0"], []),
        "d.json": ([], ["d.json#/1"]),
    }
    assert list(by_file) == ["a.json", "b.csv", "c.md", "d.json"]
    seen = {("a.json", "/0/Accuracy#mAP"), ("a.json", "/0/Accuracy"), ("a.json", "/0/Accuracy#numbers/0"), ("c.md", "/3/Accuracy#ROUGE2"),
            ("c.md", "/3/Accuracy#ROUGE1"), ("b.csv", "/1/Result#a#b"), ("a.json", "/2/Result#acc")}
    names = profile_coverage._member_names(seen)
    assert {rel: {pointer: sorted(found) for pointer, found in at.items()} for rel, at in names.items()} == {
        "a.json": {"/0/Accuracy": ["mAP"], "/2/Result": ["acc"]}, "c.md": {"/3/Accuracy": ["ROUGE1", "ROUGE2"]}, "b.csv": {"/1/Result": ["a#b"]}}
    numbers = {rel: profile_coverage._member_numbers(names.get(rel, {}), mine) for rel, (mine, _outs) in by_file.items()}
    # mAP's value is "acc: 1  mAP: 2.5"'s second number; "5 ms" names no `acc`; `#numbers/7` and `#numbers/` are no number of the text
    assert numbers == {"a.json": {"/0/Accuracy#numbers/1"}, "b.csv": set(), "c.md": {"/3/Accuracy#numbers/0", "/3/Accuracy#numbers/1"}, "d.json": set()}


def test_the_informational_regex_matches_as_the_predicate_does():
    patterns = ["/*/number_of_nodes", "/*/host_processor_model_name#numbers/*", "/a"]
    regex = profile_coverage._regex_of(tuple(patterns))
    assert profile_coverage._regex_of(()) is None and not profile_coverage._any_of([])("")
    for pointer in ["/0/number_of_nodes", "/0/1/number_of_nodes", "/x/host_processor_model_name#numbers/3", "/a", "/a/b", "", "/b/number_of_nodesx"]:
        assert (regex.fullmatch(pointer) is not None) == profile_coverage._any_of(patterns)(pointer) == any(
            profile_coverage.pointer_matches(p, pointer) for p in patterns)


def test_a_gate_rule_takes_the_instances_of_a_claim_over_the_same_receipts(tmp_path):
    """`read_sites` reuses a claim's instances for a `bounds_at` rule of the same signature: its bounds sites are those it reads alone."""
    from helpers import profile_receipt

    from verifier.readers.select import rule_instances
    from verifier.readers.sites import parse_claim_files, read_sites

    records = [dataclasses.replace(profile_receipt(f"runs/{arm}.csv", "/0", {"s": "1"}, dims={"arm": arm, "phase": "measured", "model": model},
                                                   latency=Decimal("1")), receipt_set="runs")
               for arm, model in (("b", "m1"), ("a", "m2"), ("a", "m1"), ("c", "m3"))]
    for arm, text in (("a", "latency >= 1"), ("b", "nothing"), ("c", "latency <= 2 and >= 0")):
        (tmp_path / f"{arm}.md").write_text(text)
    (tmp_path / "summary.json").write_text(json.dumps({"a": 1, "b": 2}))
    for selection, per in (({"phase": "measured"}, ["arm"]), ({"model": ["m1", "m3"]}, ["arm"]), ({"phase": "measured"}, ["arm", "model"]), ({}, [])):
        rule = {"id": "r", "receipts": "runs", "statistic": "mean", "selection": selection, "per": per,
                "bounds_at": {"file": "{arm}.md" if per else "a.md", "line_naming": "latency"}}
        claim = {"id": "c", "receipts": "runs", "statistic": "mean", "selection": selection, "per": per, "at": {"file": "summary.json", "pointer": "/{arm}" if per else "/a"}}
        for other in (claim, {**claim, "selection": {"phase": "measured", "arm": ["a"]}}, {**claim, "per": ["model"]}):
            profile = {"receipts": {"runs": {"glob": "runs/*.csv"}}, "claims": [other], "gate": {"rules": [rule]}}
            alone_profile = {"receipts": profile["receipts"], "gate": {"rules": [rule]}}
            both = [s for s in read_sites(Tree(tmp_path), parse_claim_files(Tree(tmp_path), profile, records), rule_instances(profile, records), profile) if s.rule == "/gate/rules/0"]
            alone = read_sites(Tree(tmp_path), parse_claim_files(Tree(tmp_path), alone_profile, records), rule_instances(alone_profile, records), alone_profile)
            assert both == list(alone) and alone and alone[0].role == "bounds", (selection, per, other)
