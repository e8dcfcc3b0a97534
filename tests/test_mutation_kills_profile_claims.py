"""
Tests that kill surviving mutants of `verifier/checks/profile_claims.py` (issue 14): claims and gate rules of a profile.

Each test pins one documented rule at its boundary on a tiny profile run
(`runs/{arm}.csv` receipts, a `summary.json` of stated numbers) or on the
rule helpers with hand-made records: a claim the bundle does not state is
FAIL `claim-missing`; a stated unit of another dimension is FAIL
`unit-mismatch` naming both dimensions (never an ERROR); an absent `at.unit`
falls back to the unit inside the stated value; a list selection keeps the
records whose dimension is in the list; a `per` gate rule with one instance
still reports its observation per instance.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from conftest import make_assets
from helpers import by_check, one_claim, write_tree

from verifier.checks.profile_claims import _threshold, select_records
from verifier.core import verify_path
from verifier.readers.records import Record

RUNS = {"runs/a.csv": "s\n2\n4\n", "runs/b.csv": "s\n1\n"}


def _run(tmp_path: Path, summary: dict, claims: list[dict], runs: dict[str, str] = RUNS, **extra):
    """Verify a bundle of `runs` and `summary.json` under a profile with `claims`; return the report."""
    bundle = write_tree(tmp_path / "run", {**runs, "summary.json": json.dumps(summary)})
    doc = {"id": "run", "version": 1, "description": "kill tests", "detect": {"files": ["summary.json"]},
           "manifest": {"kind": "none", "reason": "no digests"},
           "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}.csv",
                                 "fields": {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"},
                                            "phase": {"value": "measured"}}}},
           "claims": claims, **extra}
    return verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": doc}))


def _claim(cid: str, pointer: str, **kw) -> dict:
    return {"id": cid, "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured", "arm": "a"},
            "unit": "s", "at": {"file": "summary.json", "pointer": pointer}, **kw}


def test_a_claim_the_bundle_does_not_state_fails_claim_missing(tmp_path):
    report = _run(tmp_path, {"mean": 3}, [_claim("m", "/mean"), _claim("gone", "/absent")])
    assert (one_claim(report, "m").status, one_claim(report, "m").code) == ("PASS", "derived")
    missing = one_claim(report, "gone")
    assert (missing.status, missing.code) == ("FAIL", "claim-missing") and "/absent" in missing.message


def test_a_count_stated_in_seconds_is_a_unit_mismatch_naming_both_dimensions_not_an_error(tmp_path):
    count = {"id": "n", "receipts": "runs", "statistic": "count", "selection": {"phase": "measured", "arm": "a"},
             "at": {"file": "summary.json", "pointer": "/n"}}
    report = _run(tmp_path, {"n": "2 s"}, [count])
    f = one_claim(report, "n")
    assert (f.status, f.code) == ("FAIL", "unit-mismatch"), f.message
    assert "(time)" in f.message and "derived in 1 (dimensionless)" in f.message
    assert report.verdict == "FAIL"
    good = _run(tmp_path / "good", {"n": "2"}, [count])
    assert one_claim(good, "n").status == "PASS"


def test_a_unit_location_the_bundle_lacks_falls_back_to_the_unit_in_the_value(tmp_path):
    at = {"file": "summary.json", "pointer": "/mean", "unit": "/unit"}
    claim = {**_claim("m", "/mean"), "at": at}
    assert one_claim(_run(tmp_path, {"mean": "3000 ms"}, [claim]), "m").status == "PASS"  # no /unit: the value's ms
    wrong = one_claim(_run(tmp_path / "w", {"mean": "3000 ms", "unit": "s"}, [claim]), "m")  # /unit says s: 3000 s
    assert (wrong.status, wrong.code) == ("FAIL", "claim-mismatch")
    assert one_claim(_run(tmp_path / "s", {"mean": 3, "unit": "s"}, [claim]), "m").status == "PASS"


def _rec(arm: str, latency: str, model: str = "m1") -> Record:
    return Record(dims={"arm": arm, "phase": "measured", "model": model}, values={"latency": Decimal(latency)},
                  raw={"arm": arm, "s": latency}, path=f"runs/{arm}.csv", pointer="/0")


def test_select_records_keeps_the_records_in_a_list_selection():
    records = [_rec("a", "1", "m1"), _rec("a", "2", "m2"), _rec("b", "3", "m3")]
    assert select_records(records, {"selection": {"model": ["m1", "m3"]}}) == [records[0], records[2]]
    assert select_records(records, {"selection": {"model": "m2"}}) == [records[1]]
    assert select_records(records, {"selection": {"arm": "a"}, "baseline": "a"}) == records  # arm ignored for arm rules
    assert select_records(records, {"selection": {"gpu": {"receipts": "jobs"}}}) == records  # joins: per instance


def test_a_per_rule_with_one_instance_reports_its_observation_per_instance():
    rule = {"id": "g", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"], "max": 5}
    met, text, observed = _threshold(rule, [_rec("a", "2"), _rec("a", "4")])
    assert met and observed == {"arm=a": "3"} and text.startswith("arm=a: mean = 3")
    met, _, observed = _threshold({**rule, "per": []}, [_rec("a", "2"), _rec("a", "4")])
    assert met and observed == "3"  # no `per`: the one value
    met, _, observed = _threshold({**rule, "max": 2.5}, [_rec("a", "2"), _rec("a", "4"), _rec("b", "2")])
    assert not met and observed == {"arm=a": "3", "arm=b": "2"}
    assert by_check  # (re-exported helper used by sibling kill files)
