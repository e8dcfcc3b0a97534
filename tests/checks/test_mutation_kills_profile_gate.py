"""
Tests that kill mutants of `verifier/checks/profile_gate.py` (issue 42, cosmic-ray): the profile's gate rules.

Each test verifies a tiny profile run (`runs/{arm}-{server}.csv`, one latency
per file: arm a 3 and 4 s, arm b 1 and 2 s; a `summary.json`) and pins the
`gate.rules` findings by example: status, code, place and the exact message.
Written before the session of record from the lines the config's other test
files never reached (`coverage report`), then extended with its survivors.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from conftest import make_assets
from helpers import profile_receipt, write_tree

from verifier.checks.profile_gate import _stated_bounds
from verifier.core import verify_path
from verifier.readers.select import Underivable

RUNS = {"runs/a-1.csv": "s\n3\n", "runs/a-2.csv": "s\n4\n", "runs/b-1.csv": "s\n1\n", "runs/b-2.csv": "s\n2\n"}
FIELDS = {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"}, "server": {"from_name": "server"}}


def _gate(tmp_path: Path, gate: dict, summary: dict | None = None, runs: dict[str, str] = RUNS, files: dict[str, str] | None = None,
          sets: dict | None = None) -> list:
    """Verify `runs` (and `files`) under a profile with `gate` (and extra receipt `sets`); return the `gate.rules` findings."""
    bundle = write_tree(tmp_path / "run", {**runs, "summary.json": json.dumps(summary or {"mean": 3.5}), **(files or {})})
    receipts = {"runs": {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}-{server}.csv",
                         "fields": {**FIELDS, "phase": {"value": "measured"}}}, **(sets or {})}
    doc = {"id": "run", "version": 1, "description": "kill tests", "detect": {"files": ["summary.json"]},
           "manifest": {"kind": "none", "reason": "no digests"}, "receipts": receipts,
           "claims": [{"id": "m", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured", "arm": "a"}, "unit": "s",
                       "at": {"file": "summary.json", "pointer": "/mean"}}],
           "gate": gate}
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": doc}))
    return [f for f in report.findings if f.check == "gate.rules"]


def _seen(findings: list) -> list[tuple]:
    return [(f.status.value, f.code, f.path, f.pointer, f.message) for f in findings]


MEAN = {"id": "t", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "unit": "s"}
MET = {**MEAN, "id": "met", "max": 3}
MET_SEEN = ("PASS", "rule-met", None, None, "met (over phase=measured): met: mean = 2.5 s (needs <= 3 s)")
WARMUP = {"phase": "warmup"}  # no receipt is a warmup


# --- `unmatched: skip` (:46 ==, and/or, not x2; :47 continue -> break) ------------------------------------------------

def test_a_skipped_rule_gives_no_finding_and_the_rules_after_it_are_judged(tmp_path):
    """Kills :46 `== "skip"` -> `!=`, `and` -> `or`, `not _held` -> `_held`, and :47 `continue` -> `break`."""
    skip = {**MEAN, "id": "skip", "selection": WARMUP, "max": 3, "unmatched": "skip"}
    assert _seen(_gate(tmp_path, {"rules": [skip, MET]})) == [MET_SEEN]


def test_without_unmatched_skip_an_empty_selection_is_unverified(tmp_path):
    """Kills :46 `== "skip"` -> `!=` and the first `and` -> `or` (a rule without `unmatched` is never skipped)."""
    plain = {**MEAN, "id": "plain", "selection": WARMUP, "max": 3}
    assert _seen(_gate(tmp_path, {"rules": [plain, MET]})) == [
        ("UNVERIFIED", "empty-selection", None, None, "plain (over phase=warmup): cannot be judged: no receipts match phase=warmup"), MET_SEEN]


def test_a_skip_rule_that_matches_receipts_is_judged(tmp_path):
    """Kills :46 `not select(...)` -> `select(...)` (a matching rule would be skipped) and `and` -> `or`."""
    skip = {**MET, "unmatched": "skip"}
    assert _seen(_gate(tmp_path, {"rules": [skip]})) == [MET_SEEN]


def test_a_skip_rule_whose_benchmark_another_set_holds_is_unverified(tmp_path):
    """Kills :46 `not _held(...)` -> `_held(...)` from the other side: a warmup receipt in another glob's set makes the gap UNVERIFIED."""
    other = {"other": {"glob": "other/*.csv", "encoding": "csv", "name": "other/{arm}-{server}.csv",
                       "fields": {**FIELDS, "phase": {"value": "warmup"}}}}
    skip = {**MEAN, "id": "skip", "selection": WARMUP, "max": 3, "unmatched": "skip"}
    found = _gate(tmp_path, {"rules": [skip, MET]}, files={"other/a-1.csv": "s\n9\n"}, sets=other)
    assert _seen(found) == [("UNVERIFIED", "empty-selection", None, None,
                             "skip (over phase=warmup): cannot be judged: no receipts match phase=warmup"), MET_SEEN]


# --- an underivable rule (:56 except, :59 in, :61 continue, :163 not keys) -------------------------------------------

def test_an_underivable_rule_first_does_not_stop_the_rules_after_it(tmp_path):
    """Kills :61 `continue` -> `break`, :56 `except Underivable` replaced, :163 `not keys` -> `keys` (a `per` rule selecting nothing)."""
    empty = {**MEAN, "id": "empty", "selection": WARMUP, "per": ["server"], "max": 3}
    assert _seen(_gate(tmp_path, {"rules": [empty, MET]})) == [
        ("UNVERIFIED", "empty-selection", None, None, "empty (over phase=warmup): cannot be judged: no receipts match {'phase': 'warmup'}"), MET_SEEN]


def test_a_rule_underivable_for_one_instance_compares_the_recorded_outcome_of_the_others(tmp_path):
    """
    Kills :59 `"recorded" in rule` -> `not in`, :118 `ours is None` -> `is not None`, :81 `None in outcomes` -> `not in`.

    A sample SD per arm: arm a has two values (judged), arm b one (underivable, so the rule is UNVERIFIED); the outcome
    recorded for a is compared, the one for b and the whole gate's are not.
    """
    sd = {**MEAN, "id": "sd", "statistic": "sd", "per": ["arm"], "max": 3, "recorded": {"file": "summary.json", "pointer": "/ok/{arm}"}}
    runs = {"runs/a-1.csv": "s\n3\n", "runs/a-2.csv": "s\n4\n", "runs/b-1.csv": "s\n1\n"}
    found = _gate(tmp_path, {"rules": [sd], "recorded": {"file": "summary.json", "pointer": "/gate"}},
                  {"mean": 3.5, "ok": {"a": True, "b": True}, "gate": True}, runs=runs)
    assert _seen(found) == [
        ("UNVERIFIED", "empty-selection", None, None,
         "sd (over phase=measured): cannot be judged: a sample SD needs at least two values, values of latency (arm=b, phase=measured) has 1"),
        ("PASS", "recorded-agrees", "summary.json", "/ok/a", "sd[arm=a]: summary.json#/ok/a records true; re-derived outcome is true"),
        ("UNVERIFIED", "recorded-not-compared", "summary.json", "/ok/b",
         "sd[arm=b]: this instance was not judged, so the outcome summary.json#/ok/b records is not compared"),
        ("UNVERIFIED", "recorded-not-compared", "summary.json", "/gate", "a rule could not be judged, so the recorded outcome is not compared")]
    assert found[2].observed is True


# --- thresholds (:153, :157-:177) -----------------------------------------------------------------------------------

def test_a_value_equal_to_its_bound_meets_it_and_a_range_names_both_bounds(tmp_path):
    """Kills :169 `value >= min` -> `>`, `value <= max` -> `<`, `and` -> `or`; :153 `is not None` -> `is` (x2); the expected dict (:69 `in`)."""
    rules = [{**MEAN, "id": "max", "max": 2.5}, {**MEAN, "id": "min", "min": 2.5}, {**MEAN, "id": "range", "min": 2, "max": 3},
             {**MEAN, "id": "above", "min": 2.51}, {**MEAN, "id": "below", "min": 1, "max": 2.49}]
    found = _gate(tmp_path, {"rules": rules})
    assert _seen(found) == [
        ("PASS", "rule-met", None, None, "max (over phase=measured): met: mean = 2.5 s (needs <= 2.5 s)"),
        ("PASS", "rule-met", None, None, "min (over phase=measured): met: mean = 2.5 s (needs >= 2.5 s)"),
        ("PASS", "rule-met", None, None, "range (over phase=measured): met: mean = 2.5 s (needs >= 2 s and <= 3 s)"),
        ("FAIL", "rule-not-met", None, None, "above (over phase=measured): not met: mean = 2.5 s (needs >= 2.51 s)"),
        ("FAIL", "rule-not-met", None, None, "below (over phase=measured): not met: mean = 2.5 s (needs >= 1 s and <= 2.49 s)")]
    assert [f.expected for f in found] == [{"max": Decimal("2.5")}, {"min": Decimal("2.5")}, {"min": 2, "max": 3}, {"min": Decimal("2.51")},
                                           {"min": 1, "max": Decimal("2.49")}]
    assert [f.observed for f in found] == ["2.5"] * 5
    assert found[0].derivation.startswith("mean = 2.5 s (needs <= 2.5 s) [")


def test_a_per_rule_is_met_only_when_every_instance_is_and_a_missed_one_is_reported_at_the_gate(tmp_path):
    """Kills :172 `met and ok` -> `or` and :65 `isinstance(o, dict) and ...` -> `or` (a threshold's observations are strings: no file to point at)."""
    rule = {**MEAN, "id": "p", "per": ["arm"], "max": 3}
    found = _gate(tmp_path, {"rules": [rule]})
    assert _seen(found) == [("FAIL", "rule-not-met", None, None,
                             "p (over phase=measured): not met: arm=a: mean = 3.5 s (needs <= 3 s); arm=b: mean = 1.5 s (needs <= 3 s)")]
    assert found[0].observed == {"arm=a": "3.5", "arm=b": "1.5"}


def test_a_count_over_no_matching_receipt_is_zero_against_its_bounds(tmp_path):
    """
    Kills :157 `in COUNT_RESULTS` -> `not in`, each `and` -> `or`, `not chosen`/`not per` -> kept; :158 `low <= 0` -> `<`, `high >= 0` -> `>`,
    `is None` -> `is not None`, `or` -> `and`, the middle `and` -> `or`; :160 `each is not None` -> `is None`, `not per` -> `per` (the instance
    outcome compared with `recorded`).
    """
    count = {"id": "n", "receipts": "runs", "statistic": "count", "selection": {"phase": "measured", "arm": "zzz"}}
    said = "no receipt of the 4 read matches {'phase': 'measured', 'arm': 'zzz'}"
    rules = [{**count, "min": 0, "recorded": {"file": "summary.json", "pointer": "/n_ok"}}, {**count, "id": "n2", "max": 0},
             {**count, "id": "n3", "min": 1}, {**count, "id": "n4", "per": ["arm"], "min": 0},
             {**count, "id": "n5", "selection": {"phase": "measured"}, "max": 4}, {**MEAN, "id": "m", "selection": {"phase": "measured", "arm": "zzz"}, "min": 0}]
    found = _gate(tmp_path, {"rules": rules}, {"mean": 3.5, "n_ok": True})
    assert _seen(found) == [
        ("PASS", "rule-met", None, None, f"n (over arm=zzz, phase=measured): met: count = 0 (needs >= 0): {said}"),
        ("PASS", "recorded-agrees", "summary.json", "/n_ok", "n: summary.json#/n_ok records true; re-derived outcome is true"),
        ("PASS", "rule-met", None, None, f"n2 (over arm=zzz, phase=measured): met: count = 0 (needs <= 0): {said}"),
        ("FAIL", "rule-not-met", None, None, f"n3 (over arm=zzz, phase=measured): not met: count = 0 (needs >= 1): {said}"),
        ("UNVERIFIED", "empty-selection", None, None,
         "n4 (over arm=zzz, phase=measured): cannot be judged: no receipts match {'phase': 'measured', 'arm': 'zzz'}"),
        ("PASS", "rule-met", None, None, "n5 (over phase=measured): met: count = 4 (needs <= 4)"),
        ("UNVERIFIED", "empty-selection", None, None, "m (over arm=zzz, phase=measured): cannot be judged: no receipts match arm=zzz, phase=measured")]
    assert found[0].observed == "0" and found[2].observed == "0"


def test_a_judged_value_is_shown_at_the_lower_bounds_places_with_its_unit(tmp_path):
    """
    Kills :174 `low if low is not None else high` -> `is None`, :140 `is_finite() and value == integral` -> `or` / `!=`, :141 `unit and unit != "1"`
    mutants, :133 `not unit or unit == "1"` mutants, and :146 `arms is None` -> `is not None`.

    57.142857...% against `>= 50.5` shows three places (50.5's one plus two), against 70 it would show two; an arm
    mean 4.0 is shown as 4 (an integral value normalized), 2.50 as 2.50; a dimensionless count shows no unit.
    """
    rel = {"id": "rel", "receipts": "runs", "statistic": "relative_reduction_pct", "baseline": "a", "candidate": "b", "selection": {"phase": "measured"},
           "unit": "%", "min": 50.5, "max": 70}
    per = {**MEAN, "id": "per", "per": ["arm"], "max": 5}
    count = {"id": "n", "receipts": "runs", "statistic": "count", "selection": {"phase": "measured"}, "unit": "1", "min": 2, "max": 9}
    runs = {"runs/a-1.csv": "s\n3.0\n", "runs/a-2.csv": "s\n5.0\n", "runs/b-1.csv": "s\n2.00\n", "runs/b-2.csv": "s\n3.00\n"}
    assert [f.message for f in _gate(tmp_path, {"rules": [rel]})] == [
        "rel (over phase=measured): met: relative_reduction_pct = 57.143 % (needs >= 50.5 % and <= 70 %; baseline 3.5 s, candidate 1.5 s)"]
    assert [f.message for f in _gate(tmp_path / "places", {"rules": [per, count]}, runs=runs)] == [
        "per (over phase=measured): met: arm=a: mean = 4 s (needs <= 5 s); arm=b: mean = 2.50 s (needs <= 5 s)",
        "n (over phase=measured): met: count = 4 (needs >= 2 and <= 9)"]


# --- below_baseline (:50, :239-:255) ------------------------------------------------------------------------------------

BELOW = {**MEAN, "id": "b-below-a", "per": ["server"], "below_baseline": {"baseline": "a", "candidate": "b"}}


def test_below_baseline_needs_every_candidate_strictly_below_its_baseline(tmp_path):
    """Kills :50 `in` -> `not in`, :249 `c < b` -> `<=`, :252 `met and ok` -> `or`, :253 the sign shown, :243 `not keys` -> `keys`."""
    runs = {**RUNS, "runs/b-2.csv": "s\n4\n"}  # server 2: candidate 4 = baseline 4, not below
    found = _gate(tmp_path, {"rules": [BELOW]}, runs=runs)
    assert _seen(found) == [("FAIL", "rule-not-met", None, None,
                             "b-below-a (over phase=measured): not met: mean per server: server=1: candidate 1 < baseline 3 s; "
                             "server=2: candidate 4 >= baseline 4 s")]
    assert found[0].expected == {"below_baseline": {"baseline": "a", "candidate": "b"}}
    assert found[0].observed == {"server=1": {"baseline": "3", "candidate": "1"}, "server=2": {"baseline": "4", "candidate": "4"}}
    met = _gate(tmp_path / "met", {"rules": [BELOW]})
    assert _seen(met) == [("PASS", "rule-met", None, None,
                           "b-below-a (over phase=measured): met: mean per server: server=1: candidate 1 < baseline 3 s; server=2: candidate 2 < baseline 4 s")]
    empty = _gate(tmp_path / "empty", {"rules": [{**BELOW, "selection": WARMUP}]})
    assert _seen(empty) == [("UNVERIFIED", "empty-selection", None, None,
                             "b-below-a (over phase=warmup): cannot be judged: no receipts match {'phase': 'warmup'}")]


# --- the outcome the bundle records for the whole gate (:72-:93) --------------------------------------------------------

WORDS = {"true": ["passed"], "false": ["failed", "broken"]}


def _recorded(tmp_path: Path, value: object, outcomes: dict | None = WORDS, rules: list | None = None) -> list[tuple]:
    at = {"file": "summary.json", "pointer": "/gate", **({"outcomes": outcomes} if outcomes else {})}
    summary = {"mean": 3.5} if value is None else {"mean": 3.5, "gate": value}
    return _seen(_gate(tmp_path, {"rules": rules or [MET], "recorded": at}, summary))[1:]


def test_a_recorded_gate_outcome_that_cannot_be_read_is_unverified_at_its_declared_place(tmp_path):
    """Kills :72 `in` -> `not in`, :75 `site.problem is not None` -> `is None`."""
    assert _recorded(tmp_path, None) == [("UNVERIFIED", "recorded-unreadable", "summary.json", "/gate",
                                          "the recorded gate outcome cannot be read: '/gate'")]


def test_a_recorded_gate_outcome_that_is_no_outcome_fails_naming_the_words(tmp_path):
    """Kills :83 `said is None` -> `is not None`, :85 `if words` -> `if not words`."""
    assert _recorded(tmp_path, "maybe") == [("FAIL", "recorded-not-boolean", "summary.json", "/gate",
                                             "summary.json#/gate holds 'maybe', not true/false or one of the outcome words ['broken', 'failed', 'passed']")]
    assert _recorded(tmp_path / "bare", "maybe", outcomes=None) == [("FAIL", "recorded-not-boolean", "summary.json", "/gate",
                                                                    "summary.json#/gate holds 'maybe', not true/false")]


def test_a_recorded_gate_outcome_is_compared_with_the_rederived_one(tmp_path):
    """Kills :89 `ours == said` -> `!=`, :90 `isinstance(recorded, bool)` shown plain, :81 `None in outcomes` -> `not in`."""
    assert _recorded(tmp_path, " PASSED ") == [("PASS", "recorded-agrees", "summary.json", "/gate",
                                                "the bundle records gate outcome ' PASSED ' (true); re-derived outcome is true")]
    assert _recorded(tmp_path / "f", "failed") == [("FAIL", "recorded-disagrees", "summary.json", "/gate",
                                                    "the bundle records gate outcome 'failed' (false); re-derived outcome is true")]
    assert _recorded(tmp_path / "t", True) == [("PASS", "recorded-agrees", "summary.json", "/gate", "the bundle records gate outcome true; re-derived outcome is true")]
    missed = [MET, {**MEAN, "id": "low", "max": 1}]
    assert _recorded(tmp_path / "m", True, rules=missed)[-1] == ("FAIL", "recorded-disagrees", "summary.json", "/gate",
                                                                 "the bundle records gate outcome true; re-derived outcome is false")
    assert _recorded(tmp_path / "mf", False, rules=missed)[-1][:2] == ("PASS", "recorded-agrees")


# --- the outcome the bundle records per rule instance (:96-:128) ------------------------------------------------------

PER = {**MEAN, "id": "p", "per": ["arm"], "max": 3,
       "recorded": {"file": "summary.json", "pointer": "/ok/{arm}", "outcomes": {"true": ["Passed", "yes"], "false": ["FAILED"]}}}
P_SEEN = ("FAIL", "rule-not-met", None, None, "p (over phase=measured): not met: arm=a: mean = 3.5 s (needs <= 3 s); arm=b: mean = 1.5 s (needs <= 3 s)")


def test_the_outcome_recorded_per_instance_is_compared_per_instance(tmp_path):
    """Kills :70 `in` -> `not in`, :127 `ours == said` -> `!=` (status and code), the words shown (:126)."""
    assert _seen(_gate(tmp_path, {"rules": [PER]}, {"mean": 3.5, "ok": {"a": "FAILED", "b": "yes"}})) == [
        P_SEEN,
        ("PASS", "recorded-agrees", "summary.json", "/ok/a", "p[arm=a]: summary.json#/ok/a records 'FAILED' (false); re-derived outcome is false"),
        ("PASS", "recorded-agrees", "summary.json", "/ok/b", "p[arm=b]: summary.json#/ok/b records 'yes' (true); re-derived outcome is true")]


def test_an_instance_outcome_that_disagrees_or_is_no_outcome_fails(tmp_path):
    """Kills :121 `said is None` -> `is not None`, :123 `if words` -> `if not words`, :127 `==` -> `!=`."""
    found = _gate(tmp_path, {"rules": [PER]}, {"mean": 3.5, "ok": {"a": True, "b": "dunno"}})
    assert _seen(found) == [
        P_SEEN,
        ("FAIL", "recorded-disagrees", "summary.json", "/ok/a", "p[arm=a]: summary.json#/ok/a records true; re-derived outcome is false"),
        ("FAIL", "recorded-not-boolean", "summary.json", "/ok/b", "p[arm=b]: summary.json#/ok/b holds 'dunno', not true/false or one of the outcome words "
                                                                  "['FAILED', 'Passed', 'yes']")]
    assert (found[1].expected, found[1].observed, found[2].observed) == (False, True, "dunno")
    bare = {**PER, "recorded": {"file": "summary.json", "pointer": "/ok/{arm}"}}
    assert _seen(_gate(tmp_path / "bare", {"rules": [bare]}, {"mean": 3.5, "ok": {"a": False, "b": "yes"}}))[2] == (
        "FAIL", "recorded-not-boolean", "summary.json", "/ok/b", "p[arm=b]: summary.json#/ok/b holds 'yes', not true/false")


def test_an_unreadable_instance_outcome_does_not_stop_the_next_instance(tmp_path):
    """Kills :111 `site.problem is not None` -> `is None` and :113 `continue` -> `break`."""
    assert _seen(_gate(tmp_path, {"rules": [PER]}, {"mean": 3.5, "ok": {"b": True}})) == [
        P_SEEN,
        ("UNVERIFIED", "recorded-unreadable", "summary.json", "/ok/{arm}", "p[arm=a]: the outcome recorded for this instance cannot be read: '/ok/a'"),
        ("PASS", "recorded-agrees", "summary.json", "/ok/b", "p[arm=b]: summary.json#/ok/b records true; re-derived outcome is true")]


# --- bounds the bundle states (:52-:53, :64-:66, :180-:230) ---------------------------------------------------------

BOUNDS = {**MEAN, "id": "within", "per": ["arm"], "bounds_at": {"file": "{arm}.md", "line_naming": "latency"}}
THREE = {"runs/a-1.csv": "s\n3\n", "runs/a-2.csv": "s\n4\n", "runs/b-1.csv": "s\n1\n", "runs/c-1.csv": "s\n2\n"}  # means a 3.5, b 1, c 2


def _bounds(tmp_path: Path, files: dict[str, str], rule: dict = BOUNDS, **gate) -> list[tuple]:
    return _seen(_gate(tmp_path, {"rules": [rule], **gate}, runs=THREE, files=files))


def test_a_missed_stated_bound_is_reported_at_the_file_of_the_first_instance_that_misses_it(tmp_path):
    """Kills :52 `in` -> `not in`, :64 `not met` -> `met`, `not path` -> `path`, each `and` -> `or`, :65 `is False` -> `is not False`, `and` -> `or`."""
    files = {"a.md": "latency <= 4", "b.md": "latency >= 2", "c.md": "latency < 1"}
    text = ("within (over phase=measured): not met: arm=b: mean = 1 s (does not meet >= 2 s stated in b.md); "
            "arm=c: mean = 2 s (does not meet < 1 s stated in c.md) (3 judged, 2 not met)")
    assert _bounds(tmp_path, files) == [("FAIL", "rule-not-met", "b.md", None, text)]
    assert _bounds(tmp_path / "src", files, source="summary.json#/acceptance") == [("FAIL", "rule-not-met", "summary.json", "/acceptance", text)]
    met = {"a.md": "latency <= 4", "b.md": "latency > 0.5", "c.md": "latency >= 1 and <= 2"}
    assert _bounds(tmp_path / "met", met) == [("PASS", "rule-met", None, None,
                                               "within (over phase=measured): met: arm=a: mean = 3.5 s (meets <= 4 s stated in a.md) (3 judged, 0 not met)")]


def test_every_stated_bound_of_an_instance_must_hold(tmp_path):
    """Kills :215 `all` of the bounds (a value above the second bound of `>= 1 and <= 2`) and :223 `in` -> `not in`."""
    found = _bounds(tmp_path, {"a.md": "latency >= 1 and <= 4", "b.md": "latency > 0.5", "c.md": "latency >= 1 and <= 1.5"})
    assert found == [("FAIL", "rule-not-met", "c.md", None,
                      "within (over phase=measured): not met: arm=c: mean = 2 s (does not meet >= 1 s and <= 1.5 s stated in c.md) (3 judged, 1 not met)")]


def test_a_missed_bound_fails_even_when_another_instance_states_none(tmp_path):
    """Kills :225 `not failing and missing` -> `or` / `failing` and :224 `if missing` -> `if not missing`."""
    assert _bounds(tmp_path, {"a.md": "latency <= 4", "b.md": "nothing", "c.md": "latency < 1.5"}) == [
        ("FAIL", "rule-not-met", "c.md", None,
         "within (over phase=measured): not met: arm=c: mean = 2 s (does not meet < 1.5 s stated in c.md) (2 judged, 1 not met; 1 unverified)")]


def test_bounds_not_stated_without_a_miss_are_unverified(tmp_path):
    """Kills :205 `is not None` -> `is None`, :207 `== "skip"` -> `!=`, :225 `not failing` -> `failing`."""
    assert _bounds(tmp_path, {"a.md": "latency <= 4", "b.md": "nothing"}) == [
        ("UNVERIFIED", "bounds-not-stated", None, None,
         "within (over phase=measured): cannot be judged: arm=b: the bounds are not stated ('b.md: no line naming latency states a bound'); "
         "arm=c: the bounds are not stated ('c.md'); 2 unverified")]


def test_unstated_skip_counts_the_runs_quoting_no_range_unless_required(tmp_path):
    """Kills :207 `and` -> `or`, `not (...)` -> `(...)`, `all(... == v)` -> `!=`, :224 `if skipped` -> `if not skipped`, :227 `not lines` -> `lines`."""
    skip = {**BOUNDS, "bounds_at": {**BOUNDS["bounds_at"], "unstated": "skip"}}
    required = {**BOUNDS, "bounds_at": {**skip["bounds_at"], "required_for": {"arm": "b"}}}
    assert _bounds(tmp_path, {"a.md": "latency <= 4"}, skip) == [
        ("PASS", "rule-met", None, None,
         "within (over phase=measured): met: arm=a: mean = 3.5 s (meets <= 4 s stated in a.md) (1 judged, 0 not met; 2 run(s) quote no range and are not judged)")]
    assert _bounds(tmp_path / "none", {}, skip) == [
        ("UNVERIFIED", "bounds-not-stated", None, None, "within (over phase=measured): cannot be judged: 3 run(s) quote no range, so nothing is judged")]
    assert _bounds(tmp_path / "req", {"a.md": "latency <= 4"}, required) == [
        ("UNVERIFIED", "bounds-not-stated", None, None,
         "within (over phase=measured): cannot be judged: arm=b: the bounds are not stated ('b.md'); 1 run(s) quote no range and are not judged; 1 unverified")]
    assert _bounds(tmp_path / "req-ok", {"b.md": "latency <= 4"}, required) == [
        ("PASS", "rule-met", None, None,
         "within (over phase=measured): met: arm=b: mean = 1 s (meets <= 4 s stated in b.md) (1 judged, 0 not met; 2 run(s) quote no range and are not judged)")]


def test_an_instance_without_a_bounds_site_is_not_read():
    """Kills :210 `site is not None` -> `is None` (an instance the claim-site reader gave no `bounds` site), :226 / :228 `fail=False` -> True."""
    records = [profile_receipt("runs/a-1.csv", "/0", {"s": "3"}, dims={"arm": "a", "phase": "measured"}, latency=Decimal(3))]
    try:
        _stated_bounds({}, BOUNDS, records)
    except Underivable as exc:
        assert (str(exc), exc.code, exc.fail) == ("arm=a: the bounds are not stated (not read); 1 unverified", "bounds-not-stated", False)
    else:
        raise AssertionError("no bounds site: not judged")
    skip = {**BOUNDS, "bounds_at": {**BOUNDS["bounds_at"], "unstated": "skip"}}
    try:
        _stated_bounds({}, skip, records)
    except Underivable as exc:  # :228 `fail=False` -> True: a run quoting no range is a gap, never a failure
        assert (str(exc), exc.code, exc.fail) == ("1 run(s) quote no range, so nothing is judged", "bounds-not-stated", False)
    else:
        raise AssertionError("nothing stated: not judged")


# --- second pass: the mutants the tests above left alive (applied by hand) -------------------------------------------

def test_a_count_over_nothing_misses_a_negative_maximum_and_needs_no_instance_map():
    """Kills :158 `high >= 0` -> `high >= -1` and :160 `each is not None and not per` -> `or` (`_threshold` called without `each`)."""
    from verifier.checks.profile_gate import _threshold

    count = {"id": "n", "receipts": "runs", "statistic": "count", "selection": {"phase": "measured", "arm": "zzz"}}
    records = [profile_receipt("runs/a-1.csv", "/0", {"s": "3"}, dims={"arm": "a", "phase": "measured"}, latency=Decimal(3))]
    assert _threshold({**count, "max": -1}, records)[:1] == (False,)
    assert _threshold({**count, "max": 0}, records) == (True, "count = 0 (needs <= 0): no receipt of the 1 read matches {'phase': 'measured', 'arm': 'zzz'}", "0")


def test_a_per_rule_with_one_instance_keeps_its_observation_per_instance(tmp_path):
    """Kills :177 `len(keys) > 1 or keys[0]` -> `and` (one `per` instance: a mapping, not the bare value)."""
    found = _gate(tmp_path, {"rules": [{**MEAN, "id": "one", "selection": {"phase": "measured", "arm": "a"}, "per": ["arm"], "max": 4}]})
    assert _seen(found) == [("PASS", "rule-met", None, None, "one (over arm=a, phase=measured): met: arm=a: mean = 3.5 s (needs <= 4 s)")]
    assert found[0].observed == {"arm=a": "3.5"}


def test_stated_bounds_count_the_judged_instances_only_when_more_than_one(tmp_path):
    """Kills :230 `judged > 1` -> `>= 1`, `> 0` (one judged: no count) and `> 2` (two judged: the count)."""
    two = {"runs/a-1.csv": "s\n3\n", "runs/a-2.csv": "s\n4\n", "runs/b-1.csv": "s\n1\n"}
    files = {"a.md": "latency <= 4", "b.md": "latency > 0.5"}
    assert [f.message for f in _gate(tmp_path, {"rules": [BOUNDS]}, runs=two, files=files)] == [
        "within (over phase=measured): met: arm=a: mean = 3.5 s (meets <= 4 s stated in a.md) (2 judged, 0 not met)"]
    one = {**BOUNDS, "selection": {"phase": "measured", "arm": "a"}}
    assert [f.message for f in _gate(tmp_path / "one", {"rules": [one]}, runs=two, files=files)] == [
        "within (over arm=a, phase=measured): met: arm=a: mean = 3.5 s (meets <= 4 s stated in a.md)"]


def test_a_value_judged_against_stated_bounds_is_shown_at_the_first_bounds_places(tmp_path):
    """Kills :220 `bounds[0][1] if bounds else None` -> `bounds[-1][1]` and -> `if not bounds` (1.333... shown at 0.1's places plus two)."""
    runs = {"runs/a-1.csv": "s\n1\n", "runs/a-2.csv": "s\n1\n", "runs/a-3.csv": "s\n2\n"}
    found = _gate(tmp_path, {"rules": [BOUNDS]}, runs=runs, files={"a.md": "latency >= 0.1 and <= 2"})
    assert [f.message for f in found] == ["within (over phase=measured): met: arm=a: mean = 1.333 s (meets >= 0.1 s and <= 2 s stated in a.md)"]


def test_the_outcome_recorded_per_instance_of_stated_bounds_and_below_baseline_rules_is_compared(tmp_path):
    """Kills :216 and :250 `each is not None` -> `is None` (the instance outcomes of `bounds_at` and `below_baseline` rules)."""
    recorded = {"file": "summary.json", "pointer": "/ok/{arm}"}
    files = {"a.md": "latency <= 4", "b.md": "latency >= 2", "c.md": "latency < 3"}
    found = _gate(tmp_path, {"rules": [{**BOUNDS, "recorded": recorded}]}, {"mean": 3.5, "ok": {"a": True, "b": False, "c": True}}, runs=THREE, files=files)
    assert [(f.code, f.pointer) for f in found] == [("rule-not-met", None), ("recorded-agrees", "/ok/a"), ("recorded-agrees", "/ok/b"),
                                                    ("recorded-agrees", "/ok/c")]
    below = {**BELOW, "recorded": {"file": "summary.json", "pointer": "/ok/{server}"}}
    found = _gate(tmp_path / "below", {"rules": [below]}, {"mean": 3.5, "ok": {"1": True, "2": False}}, runs={**RUNS, "runs/b-2.csv": "s\n5\n"})
    assert _seen(found)[1:] == [
        ("PASS", "recorded-agrees", "summary.json", "/ok/1", "b-below-a[server=1]: summary.json#/ok/1 records true; re-derived outcome is true"),
        ("PASS", "recorded-agrees", "summary.json", "/ok/2", "b-below-a[server=2]: summary.json#/ok/2 records false; re-derived outcome is false")]


def test_the_arms_a_comparison_compared_are_shown_at_six_significant_digits(tmp_path):
    """Kills :146 `digits=6` -> 7 / 5 (twice): arm a's mean 11/3 s is shown 3.66667."""
    rel = {"id": "rel", "receipts": "runs", "statistic": "relative_reduction_pct", "baseline": "a", "candidate": "b", "selection": {"phase": "measured"},
           "unit": "%", "min": 50.5}
    runs = {"runs/a-1.csv": "s\n3\n", "runs/a-2.csv": "s\n4\n", "runs/a-3.csv": "s\n4\n", "runs/b-1.csv": "s\n1.1111111\n"}
    assert [f.message for f in _gate(tmp_path, {"rules": [rel]}, runs=runs)] == [
        "rel (over phase=measured): met: relative_reduction_pct = 69.697 % (needs >= 50.5 %; baseline 3.66667 s, candidate 1.11111 s)"]


def test_below_baseline_without_per_and_in_another_unit_says_so():
    """A `below_baseline` rule without `per` names no instance ("mean per : : candidate" before), and its values are shown
    in the base unit of the rule's dimension (bytes here), never a hard-coded "s"."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        found = _gate(Path(tmp), {"rules": [{k: v for k, v in BELOW.items() if k != "per"}]})
        assert _seen(found) == [("PASS", "rule-met", None, None,
                                 "b-below-a (over phase=measured): met: mean: candidate 1.5 < baseline 3.5 s")]
        mem = {"mem": {"glob": "mem/*.csv", "encoding": "csv", "name": "mem/{arm}-{server}.csv",
                       "fields": {"arm": {"from_name": "arm"}, "server": {"from_name": "server"}, "phase": {"value": "measured"}},
                       "values": {"rss": {"pointer": "/m", "unit": "MiB"}}}}
        files = {"mem/a-1.csv": "m\n3\n", "mem/a-2.csv": "m\n4\n", "mem/b-1.csv": "m\n1\n", "mem/b-2.csv": "m\n2\n"}
        rule = {**BELOW, "receipts": "mem", "value": "rss", "unit": "MiB"}
        found = _gate(Path(tmp) / "mib", {"rules": [rule]}, files=files, sets=mem)
        assert _seen(found)[0][4].endswith("mean per server: server=1: candidate 1048576 < baseline 3145728 B; "
                                           "server=2: candidate 2097152 < baseline 4194304 B")
