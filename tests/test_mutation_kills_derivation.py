"""
Tests that kill surviving mutants of `verifier/checks/derivation.py` and `gate.py` (issue 14), on the tiny bundle.

A claim the gate requires but the bundle does not state is a FAIL
`claim-missing`; a claim stated in another unit of the rule's dimension is
compared at the precision it was stated in (half a unit of its last place,
converted into the rule's unit); a shipped gate's PASS says which trust
root pinned it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bundlekit import asset_root, rehash
from helpers import TINY_GATE, make_assets, write_bundle

from verifier.core import verify_path


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> str:
    return str(make_assets(tmp_path_factory.mktemp("kills-derivation") / "assets"))


def _claims(bundle: Path, change) -> None:
    doc = json.loads((bundle / "claims.json").read_text())
    change(doc["claims"])
    (bundle / "claims.json").write_text(json.dumps(doc))
    rehash(bundle)


def _findings(report, code):
    return [f for f in report.findings if f.code == code]


def test_a_required_claim_the_bundle_does_not_state_fails(tmp_path, tiny):
    bundle = write_bundle(tmp_path / "b")
    _claims(bundle, lambda claims: claims.pop(2))  # arm_mean_s.candidate
    report = verify_path(str(bundle), asset_root=tiny)
    missing = _findings(report, "claim-missing")
    assert len(missing) == 1 and missing[0].status.value == "FAIL" and missing[0].expected == "arm_mean_s.candidate"
    assert report.verdict == "FAIL"


def _baseline_mean_stated_in(tmp_path, stated: str, unit: str) -> list:
    """Return the `derivation.claims` findings of `arm_mean_s.baseline` (derived 10 s, the rule in s) stated as `stated` `unit`."""
    gate = {k: v for k, v in TINY_GATE.items() if k != "id"}
    gate["claims"] = [dict(rule, unit="s") if rule["claim"] == "arm_mean_s" else rule for rule in gate["claims"]]
    assets = asset_root(tmp_path, {"tiny-units-v1": gate})
    bundle = write_bundle(tmp_path / "b")
    manifest = json.loads((bundle / "manifest.json").read_text())
    (bundle / "manifest.json").write_text(json.dumps({**manifest, "gate": "tiny-units-v1"}))
    _claims(bundle, lambda claims: claims[1].update(value=float(stated), unit=unit))
    report = verify_path(str(bundle), asset_root=assets)
    return [f for f in report.findings if f.check == "derivation.claims" and "arm_mean_s.baseline" in f.message]


@pytest.mark.parametrize("stated,status", [("0.17", "PASS"), ("0.18", "FAIL")])
def test_a_claim_in_another_unit_keeps_its_stated_precision(tmp_path, stated, status):
    # derived baseline arm mean 10 s; 0.17 min = 10.2 s is within half a unit of 0.01 min (0.3 s), 0.18 min = 10.8 s is not
    claim = _baseline_mean_stated_in(tmp_path, stated, "min")
    assert [f.status.value for f in claim] == [status], [f.message for f in claim]


def test_a_shipped_gate_says_inventory_json_pinned_it(tmp_path, tiny):
    report = verify_path(str(write_bundle(tmp_path / "b")), asset_root=tiny)
    pinned = [f for f in report.findings if f.check == "gate.pinned"]
    assert len(pinned) == 1 and pinned[0].message.endswith("pinned by inventory.json"), pinned[0].message


@pytest.mark.parametrize("value,rule,meets,bound", [
    (0.5, None, True, "no threshold"),
    (0.97, {"min": 0.97}, True, ">= 0.97"),  # bounds are inclusive
    (0.969, {"min": 0.97}, False, ">= 0.97"),
    (0.2, {"max": 0.2}, True, "<= 0.2"),
    (0.21, {"max": 0.2}, False, "<= 0.2"),
    (0.5, {"min": 0.1, "max": 0.9}, True, ">= 0.1 and <= 0.9"),
    (0.05, {"min": 0.1, "max": 0.9}, False, ">= 0.1 and <= 0.9"),
    (0.95, {"min": 0.1, "max": 0.9}, False, ">= 0.1 and <= 0.9"),
])
def test_a_quality_threshold_is_met_inclusively_and_says_its_bounds(value, rule, meets, bound):
    from verifier.checks.rescore import judge_threshold

    assert judge_threshold(value, rule) == (meets, bound)


@pytest.mark.parametrize("stated,status", [("10000.000000000002", "PASS"), ("10000.00000002", "FAIL")])
def test_a_claim_restated_in_ms_is_judged_by_the_float_bound_in_ms(tmp_path, stated, status):
    """The derived 10 s restated at 17 digits in ms: the float bound is scaled to ms before it is carried back (it was not)."""
    claim = _baseline_mean_stated_in(tmp_path, stated, "ms")
    assert [f.status.value for f in claim] == [status], [f.message for f in claim]
