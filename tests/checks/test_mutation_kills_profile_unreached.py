"""
Tests that kill surviving mutants of `verifier/checks/profile_unreached.py` (issue 42, cosmic-ray run of record).

`_underived` is fed `stated` sites directly (what `verifier.readers.sites`
reads backwards from a claim's location), over hand-made receipts of model m1
arm a (and m2 arm a, an unread stand-in for arm u), with `summary.json` as
the claim file: each value no instance reached is reported exactly once, in
site order, with its message, pointer and observed value pinned; the
guards (a site with a problem, a place already judged, a text stating no
number, another claim's own place, an instance already judged, a row the
selection leaves out) say nothing and never stop the values after them.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from pathlib import Path
from typing import Any

from helpers import profile_evidence, profile_receipt

from verifier.checks.profile_unreached import _said, _underived
from verifier.model.evidence import FileEntry, Location, Site
from verifier.engine.pipeline import Context, RunData

CLAIM = {"id": "m", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured", "model": "m1"}, "per": ["model", "arm"],
         "unit": "s", "at": {"file": "summary.json", "pointer": "/mean/{model}/{arm}"}}
RUNS = {"glob": "runs/*.csv", "name": "runs/{arm}.csv", "fields": {"arm": {"from_name": "arm"}}}


def _rec(arm: str, latency: str, model: str = "m1"):
    return profile_receipt(f"runs/{arm}.csv", "/0", {"arm": arm, "s": latency}, dims={"arm": arm, "phase": "measured", "model": model},
                           latency=Decimal(latency))


RECORDS = [_rec("a", "2"), _rec("a", "4"), _rec("a", "9", "m2"),
           profile_receipt("runs/u.csv", "", dims={"arm": "u", "phase": "measured", "model": "m1"}, unread="not parsed")]


def _site(key: dict[str, str], pointer: str, value: Any, *, rule: str = "/claims/0", role: str = "stated", problem: str | None = None) -> Site:
    return Site(rule, role, tuple(key.items()), Location("summary.json", pointer), value, problem=problem)


def _ctx(sites: list[Site], files: tuple[str, ...] = tuple(f"runs/{c}.csv" for c in "astuvwyz"), claim: dict = CLAIM) -> Context:
    data = profile_evidence(runs=RECORDS)
    data["evidence"] = dataclasses.replace(data["evidence"], sites=tuple(sites), files=tuple(FileEntry(f, None, None) for f in files))
    profile = {"id": "run", "receipts": {"runs": RUNS}, "claims": [claim]}
    return Context(subject=Path("."), assets=None, bundle=None, options={"profile": profile}, run=RunData(**data))


def _underived_of(ctx: Context, *, claim: dict = CLAIM, handled: frozenset = frozenset(), ranked: dict | None = None) -> list[tuple]:
    found = _underived(ctx, "/claims/0", claim, RECORDS, [{"model": "m1", "arm": "a"}], lambda: ranked or {}, set(handled), set())
    return [(f.status.value, f.code, f.pointer, f.message, f.observed) for f in found]


def _m1(arm: str) -> dict[str, str]:
    return {"model": "m1", "arm": arm}


def test_each_guard_says_nothing_and_never_stops_the_values_after_it():
    """
    Kills the `continue` -> `break` of every guard and report (`:61`, `:64`, `:66`, `:81`, `:83`, `:93`, `:103`), `:62`
    `pointer or ""` -> `and`, `:63` `or` -> `and` and its `not` deleted, `:91` the `except Underivable` replaced, `:92`/`:95`
    `isinstance(value, Decimal)` negated (observed a Decimal, not its text), `:96` negated and `and` -> `or` (the unit
    after a number, never after a text), `:87` `"baseline" in rule` negated (the arm named in what no receipt matches),
    `:130` `not template` negated or its `not` deleted, `:134` `m.group(1)` -> `group(0)`, `:137` `exists` negated.
    """
    sites = [
        _site(_m1("p"), "/mean/m1/p", Decimal(1), problem="unreadable"),  # a problem site: its own finding came from the claim
        _site(_m1("h"), "/mean/m1/h", Decimal(2)),  # a place an instance judged (`handled`)
        _site(_m1("n"), "/mean/m1/n", "N/A"),  # a text stating no number
        _site(_m1("t"), "/mean/m1/t", Decimal(3)), _site(_m1("t"), "/mean/m1/t", Decimal(3), rule="/claims/1", role="claim"),  # claim 1's place
        _site(_m1("a"), "/mean/m1/a/again", Decimal(4)),  # the instance a was judged
        _site({"model": "m2", "arm": "a"}, "/mean/m2/a", Decimal(9)),  # model m2: the selection leaves it out
        _site(_m1("u"), "/mean/m1/u", Decimal(5)),  # only an unread stand-in may back it
        _site(_m1("x"), "/mean/m1/x", Decimal(6)),  # runs/x.csv is not in the bundle
        _site(_m1("y"), "/mean/m1/y", Decimal(7)),  # runs/y.csv is, but backs no m1 record
        _site(_m1("z"), "/mean/m1/z", "8 ms"),  # a text stating a number, shown as written
    ]
    ctx = _ctx(sites)
    assert _underived_of(ctx, handled=frozenset({("summary.json", "/mean/m1/h")})) == [
        ("UNVERIFIED", "incomplete-denominator", "/mean/m1/u",
         "m[model=m1][arm=u]: arm=u, model=m1, phase=measured covers receipts that were not read: runs/u.csv (not parsed); "
         "a statistic over the others is not one over all", "5"),
        ("UNVERIFIED", "receipt-absent", "/mean/m1/x",
         "m[model=m1][arm=x]: summary.json#/mean/m1/x states 6 s, but its receipt file runs/x.csv (receipt set runs: runs/{arm}.csv) "
         "is not in this bundle, so it cannot be derived or checked", "6"),
        ("UNVERIFIED", "not-derivable", "/mean/m1/y",
         "m[model=m1][arm=y]: summary.json#/mean/m1/y states 7 s, but no receipt matches arm=y, model=m1, phase=measured, "
         "so it cannot be derived or checked", "7"),
        ("UNVERIFIED", "not-derivable", "/mean/m1/z",
         "m[model=m1][arm=z]: summary.json#/mean/m1/z states 8 ms, but no receipt matches arm=z, model=m1, phase=measured, "
         "so it cannot be derived or checked", "8 ms"),
    ]
    assert all(type(f[4]) is str for f in _underived_of(ctx, handled=frozenset({("summary.json", "/mean/m1/h")})))
    assert ctx.run.examined == {("summary.json", p) for p in ("/mean/m1/a/again", "/mean/m1/u", "/mean/m1/x", "/mean/m1/y", "/mean/m1/z")}


def test_a_ratio_rule_names_no_arm_in_what_no_receipt_matches():
    """Kills `:87` `if "baseline" in rule:` negated: a rule with a baseline pops the arm from the selection it names."""
    claim = {**CLAIM, "baseline": "a"}
    found = _underived_of(_ctx([_site(_m1("y"), "/mean/m1/y", Decimal(7))], claim=claim), claim=claim)
    assert [f[3] for f in found] == ["m[model=m1][arm=y]: model=m1, phase=measured covers receipts that were not read: runs/u.csv (not parsed); "
                                     "a statistic over the others is not one over all"]  # arm u's stand-in: a rule with a baseline selects every arm


def test_only_another_claims_found_value_makes_a_place_its_own():
    """
    Kills `claimed_places`' loop made empty (`:27`), its condition negated, `and` -> `or`, `==` -> `!=`, `is None` ->
    `is not None` (`:28`) and `pointer or ""` -> `and` (`:29`): a place claim 1 found its value at is claim 1's; a place
    claim 1 only read backwards, or looked for and did not find, is still reported here.
    """
    sites = [
        _site(_m1("t"), "/mean/m1/t", Decimal(3)), _site(_m1("t"), "/mean/m1/t", Decimal(3), rule="/claims/1", role="claim"),
        _site(_m1("s"), "/mean/m1/s", Decimal(4)), _site(_m1("s"), "/mean/m1/s", Decimal(4), rule="/claims/1"),  # claim 1 read it backwards too
        _site(_m1("w"), "/mean/m1/w", Decimal(5)), _site(_m1("w"), "/mean/m1/w", None, rule="/claims/1", role="claim", problem="missing"),
    ]
    assert [(f[1], f[2]) for f in _underived_of(_ctx(sites))] == [("not-derivable", "/mean/m1/s"), ("not-derivable", "/mean/m1/w")]


def test_the_places_other_claims_found_are_those_of_the_model_in_use():
    """Kills `:51` `kept[0] is not model` -> `is model`: a context whose model was replaced does not judge by the former model's places."""
    mine = [_site(_m1("t"), "/mean/m1/t", Decimal(3))]
    ctx = _ctx(mine)
    assert [f[2] for f in _underived_of(ctx)] == ["/mean/m1/t"]
    ctx.run.evidence = dataclasses.replace(ctx.run.evidence, sites=(*mine, _site(_m1("t"), "/mean/m1/t", Decimal(3), rule="/claims/1", role="claim")))
    assert _underived_of(ctx) == []
    ctx.run.evidence = dataclasses.replace(ctx.run.evidence, sites=tuple(mine))
    assert [f[2] for f in _underived_of(ctx)] == ["/mean/m1/t"]


def test_an_index_placeholder_reads_the_instance_by_rank_and_names_an_unknown_rank_as_written():
    """Kills `:73` `if int(text) in by_rank:` negated: rank 0 is the judged arm a, rank 1 arm y, rank 7 no arm."""
    sites = [_site({"model": "m1", "arm.index": "0"}, "/mean/m1/0", Decimal(3)), _site({"model": "m1", "arm.index": "1"}, "/mean/m1/1", Decimal(4)),
             _site({"model": "m1", "arm.index": "7"}, "/mean/m1/7", Decimal(5))]
    found = _underived_of(_ctx(sites), ranked={"arm": {"a": 0, "y": 1}})
    assert [(f[2], f[3].split(":")[0]) for f in found] == [("/mean/m1/1", "m[model=m1][arm=y]"), ("/mean/m1/7", "m[model=m1][arm.index=7]")]
    assert "no receipt matches arm=y, model=m1, phase=measured," in found[0][3]
    assert found[1][3].endswith(": model=m1, phase=measured covers receipts that were not read: runs/u.csv (not parsed); "
                                "a statistic over the others is not one over all")  # no arm known: arm u's stand-in may back it


def test_a_selection_is_named_in_words():
    """
    Kills `_said`'s `:111` condition negated and `and` -> `or` (a text holding "not" taken for an exclusion) and `:112`
    `"not in " + ...` -> `-`: an exclusion reads "not in a,b", any other value as itself.
    """
    assert _said({"not": ["h8", "h9"]}) == "not in h8,h9" and _said("notable") == "not" + "able" and _said("m1") == "m1"
    claim = {**CLAIM, "selection": {**CLAIM["selection"], "host": {"not": ["h9"]}, "tag": "notable"}}
    found = _underived_of(_ctx([_site(_m1("y"), "/mean/m1/y", Decimal(7))], claim=claim), claim=claim)
    assert [f[3] for f in found] == ["m[model=m1][arm=y]: summary.json#/mean/m1/y states 7 s, but no receipt matches "
                                     "arm=y, host=not in h9, model=m1, phase=measured, tag=notable, so it cannot be derived or checked"]
