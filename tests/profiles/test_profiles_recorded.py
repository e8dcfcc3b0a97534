"""Recorded gate outcomes per rule instance (`gate.rules[*].recorded`): each instance's recorded outcome against the re-derived one."""

from __future__ import annotations

import json

import pytest
from conftest import make_assets
from helpers import by_check as _by
from helpers import write_tree

from verifier.core import verify_path
from verifier.errors import ConfigError

RUNS = {"runs/a.csv": "ms\n1500\n2500\n", "runs/b.csv": "ms\n900\n1100\n"}  # arm a: mean 2.0 s, arm b: mean 1.0 s


def _bundle(tmp_path, outcomes: dict, *, rule_extra: dict | None = None, claim_documents: bool = True):
    summary = {"arms": {arm: {"mean_s": mean, "under_1_5_s": ok} for (arm, mean), ok in zip({"a": 2.0, "b": 1.0}.items(), outcomes.values(), strict=True)}}
    bundle = write_tree(tmp_path / "acme", {**RUNS, "summary.json": json.dumps(summary)})
    rule = {"id": "mean-under-1.5-s", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"], "unit": "s", "max": 1.5,
            "recorded": {"file": "summary.json", "pointer": "/arms/{arm}/under_1_5_s"}, **(rule_extra or {})}
    doc = {
        "id": "acme", "version": 1, "description": "test profile",
        "detect": {"files": ["summary.json"]},
        "manifest": {"kind": "none", "reason": "no digests"},
        "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}.csv",
                              "fields": {"latency": {"pointer": "/ms", "unit": "ms"}, "arm": {"from_name": "arm"}, "phase": {"value": "measured"}}}},
        "claims": [{"id": "mean_s", "receipts": "runs", "statistic": "mean", "selection": {"phase": "measured"}, "per": ["arm"], "unit": "s",
                    "at": {"file": "summary.json", "pointer": "/arms/{arm}/mean_s"}}],
        "gate": {"rules": [rule]},
    }
    if claim_documents:
        doc["claim_documents"] = [{"file": "summary.json"}]
    return bundle, make_assets(tmp_path, {"acme": doc})


def _recorded(report):
    return {f.message.split(":")[0]: (f.status, f.code) for f in _by(report, "gate.rules") if f.code.startswith("recorded")}


def test_each_instance_recorded_outcome_that_agrees_passes_and_is_covered(tmp_path):
    bundle, assets = _bundle(tmp_path, {"a": False, "b": True})
    report = verify_path(str(bundle), asset_root=assets)
    assert _recorded(report) == {"mean-under-1.5-s[arm=a]": ("PASS", "recorded-agrees"), "mean-under-1.5-s[arm=b]": ("PASS", "recorded-agrees")}
    assert not _by(report, "claims.coverage", "unchecked-claim") and [f.code for f in _by(report, "claims.coverage")] == ["covered"]


def test_an_instance_recording_a_pass_the_evidence_does_not_give_fails(tmp_path):
    bundle, assets = _bundle(tmp_path, {"a": True, "b": True})  # arm a's mean 2.0 s is not under 1.5 s
    report = verify_path(str(bundle), asset_root=assets)
    assert _recorded(report) == {"mean-under-1.5-s[arm=a]": ("FAIL", "recorded-disagrees"), "mean-under-1.5-s[arm=b]": ("PASS", "recorded-agrees")}
    (bad,) = [f for f in _by(report, "gate.rules", "recorded-disagrees")]
    assert (bad.path, bad.pointer, bad.expected, bad.observed) == ("summary.json", "/arms/a/under_1_5_s", False, True) and report.verdict == "FAIL"


def test_outcome_words_and_a_word_not_listed(tmp_path):
    extra = {"recorded": {"file": "summary.json", "pointer": "/arms/{arm}/under_1_5_s", "outcomes": {"true": ["passed"], "false": ["failed"]}}}
    bundle, assets = _bundle(tmp_path, {"a": "failed", "b": "ok"}, rule_extra=extra)
    report = verify_path(str(bundle), asset_root=assets)
    assert _recorded(report) == {"mean-under-1.5-s[arm=a]": ("PASS", "recorded-agrees"), "mean-under-1.5-s[arm=b]": ("FAIL", "recorded-not-boolean")}


def test_an_instance_with_nothing_recorded_is_unverified(tmp_path):
    bundle, assets = _bundle(tmp_path, {"a": False, "b": True}, rule_extra={"recorded": {"file": "summary.json", "pointer": "/arms/{arm}/gate"}})
    report = verify_path(str(bundle), asset_root=assets)
    assert set(_recorded(report).values()) == {("UNVERIFIED", "recorded-unreadable")}


def test_without_recorded_the_outcomes_are_unexamined_stated_outcomes(tmp_path):
    bundle, assets = _bundle(tmp_path, {"a": False, "b": True}, rule_extra={"recorded": None})
    doc = json.loads((tmp_path / "assets" / "profiles" / "acme.json").read_text())
    del doc["gate"]["rules"][0]["recorded"]
    report = verify_path(str(bundle), asset_root=make_assets(tmp_path / "q", {"acme": doc}))
    assert not _recorded(report)
    assert {f.pointer for f in _by(report, "claims.coverage", "unchecked-claim")} == {"/arms/a/under_1_5_s", "/arms/b/under_1_5_s"}
    assert [f.code for f in _by(report, "gate.rules")] == ["rule-not-met"]  # the rule itself still judged: arm a's 2.0 s


def test_a_recorded_placeholder_that_is_not_a_per_dimension_is_refused(tmp_path):
    with pytest.raises(ConfigError, match=r"acme\.json: invalid profile at /gate/rules/0/recorded: location placeholder \{server\}"):
        _, assets = _bundle(tmp_path, {"a": False, "b": True}, rule_extra={"recorded": {"file": "summary.json", "pointer": "/arms/{server}/x"}})
        verify_path(str(tmp_path / "acme"), asset_root=assets)
