"""The shortcuts of the claim-site reader and the profile checks give what the general code gives (speed2-sites)."""

from __future__ import annotations

import dataclasses
import json
import random
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from verifier.checks import profile_coverage, profile_matches
from verifier.evidence import Location, StatedClaim
from verifier.textnumbers import numbers_in
from verifier.readers import locate, sites
from verifier.readers.pointers import to_decimal
from verifier.readers.tree import Tree
from verifier.stats import half_unit


def _outcome(fn: Any, *args: Any) -> Any:
    """Return what `fn(*args)` returns, or the type and text of what it raises."""
    try:
        return ("value", fn(*args))
    except Exception as exc:  # noqa: BLE001 - compared, not handled
        return ("raised", type(exc).__name__, str(exc))


def _same_as_it_was(a: Any, b: Any, stated_precision: bool = False) -> bool:
    da, db = to_decimal(a), to_decimal(b)
    if da is not None and db is not None:
        return abs(da - db) <= max(half_unit(da), half_unit(db)) if stated_precision else da == db
    return isinstance(a, str) and isinstance(b, str) and a == b


def test_equal_values_compare_as_they_did():
    mine = ["637.535", " 637.535 ", "637.5350", "1e3", "1000", "1/2", "0.5", "NaN", "inf", "-0", "0", "x", "", "12 ms", True, None, 7, Decimal("7.0")]
    theirs = [637, 1000, 0, -0, 7, True, False, Decimal("637.535"), Decimal("0.50"), Decimal("NaN"), Decimal("Infinity"), Decimal("-0"), "637.535", "x", None, 0.5]
    for a in mine:
        for b in theirs:
            for precision in (False, True):
                assert _outcome(profile_matches._same, a, b, precision) == _outcome(_same_as_it_was, a, b, precision), (a, b, precision)


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


def _general(fn: Any, tree_root: Any, *args: Any) -> Any:
    """Return `_outcome` of `fn` on a fresh tree (nothing of an earlier lookup kept)."""
    return _outcome(fn, Tree(tree_root), *args)


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
                    assert _outcome(locate.locate, kept, at, key, {}) == _general(locate.locate, tmp_path, at, key, {}), (rows, at, key)
                    assert _outcome(locate.locate_beside, kept, at, key, {}, "/u") == _general(locate.locate_beside, tmp_path, at, key, {}, "/u"), (rows, at, key)
                    other = {**at, "member": "acc" if at.get("member") == "mAP" else "mAP"} if "member" in at else at  # the same texts, another member
                    assert _outcome(locate.locate, kept, other, key, {}) == _general(locate.locate, tmp_path, other, key, {}), (rows, other, key)


def _by_file_as_it_was(model: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for claim in model.claims:
        out.setdefault(claim.location.file, ([], []))[0].append(claim)
    for outcome in model.outcomes:
        out.setdefault(outcome.location.file, ([], []))[1].append(outcome)
    return out


def _member_names_as_they_were(seen: set[tuple[str, str]]) -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {}
    for where, place in seen:
        if "#" in place and "#numbers/" not in place:
            pointer, _, name = place.partition("#")
            out.setdefault(where, {}).setdefault(pointer, []).append(name)
    return out


def _member_numbers_as_they_were(names: dict[str, list[str]], claims: list[StatedClaim]) -> set[str]:
    out: set[str] = set()
    for claim in claims:
        pointer, _, suffix = claim.id.partition("#numbers/")
        if not suffix or pointer not in names:
            continue
        begins = [begin for begin, _end, _number, _unit in numbers_in(claim.words)]
        starts = {locate.member_start(claim.words, name) for name in names[pointer]}
        index = int(suffix)
        if index < len(begins) and begins[index] in starts:
            out.add(claim.id)
    return out


def test_coverage_groups_and_member_places_as_it_did():
    rng = random.Random(9)
    words = ["acc: 1  mAP: 2.5", "ROUGE1: 3 ROUGE2: 4", "5 ms", "none"]
    for _ in range(200):
        claims = []
        for i in range(rng.randrange(0, 30)):
            file = rng.choice(["a.json", "b.csv", "a.json", "c.md"])  # runs of one file, and a file coming back after another
            pointer = f"/{i % 4}/{rng.choice(['Accuracy', 'Result'])}" + rng.choice(["", "#numbers/0", "#numbers/1", "#numbers/7", "#numbers/"])
            claims.append(StatedClaim(pointer, None, rng.choice(words), Location(file, pointer)))
        outcomes = [SimpleNamespace(location=Location(rng.choice(["a.json", "d.json"]), f"/{i}"), passed=True) for i in range(rng.randrange(0, 4))]
        model = SimpleNamespace(claims=claims, outcomes=outcomes)
        assert profile_coverage._by_file(model) == _by_file_as_it_was(model)  # type: ignore[arg-type]
        seen = {(rng.choice(["a.json", "b.csv"]), f"/{rng.randrange(4)}/Accuracy" + rng.choice(["", "#acc", "#mAP", "#ROUGE2", "#numbers/0", "#a#b"]))
                for _ in range(rng.randrange(0, 12))}
        names = profile_coverage._member_names(seen)
        assert names == _member_names_as_they_were(seen)
        for file, (mine, _outs) in profile_coverage._by_file(model).items():  # type: ignore[arg-type]
            assert profile_coverage._member_numbers(names.get(file, {}), mine) == _member_numbers_as_they_were(names.get(file, {}), mine)


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

    from verifier.readers.sites import read_sites

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
            both = [s for s in read_sites(Tree(tmp_path), profile, records) if s.rule == "/gate/rules/0"]
            alone = read_sites(Tree(tmp_path), {"receipts": profile["receipts"], "gate": {"rules": [rule]}}, records)
            assert both == list(alone) and alone and alone[0].role == "bounds", (selection, per, other)
