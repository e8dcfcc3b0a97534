"""Issue 38: profile authoring a new team can trust: units cannot lie, mistakes stop at load, `optional` works, counting is honest."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from conftest import ROOT, make_assets
from helpers import by_check as _by
from helpers import one_claim as _claim
from helpers import write_tree

from verifier.core import verify_path
from verifier.errors import ConfigError
from verifier.profiles import load_profile

SCHEMA = json.loads((ROOT / "schemas" / "profile.schema.json").read_text())

RUNS = {"runs/baseline.csv": "s,samples\n1.2,10\n1.2,10\n", "runs/candidate.csv": "s,samples\n1.0,10\n1.0,10\n"}  # speedup 1.2


def _doc(claims: list[dict], **extra) -> dict:
    """Return a profile `run` reading `runs/{arm}.csv` (columns s, samples) with `claims`."""
    return {
        "id": "run", "version": 1, "description": "test profile",
        "detect": {"files": ["summary.json"]},
        "manifest": {"kind": "none", "reason": "no digests"},
        "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv", "name": "runs/{arm}.csv",
                              "fields": {"latency": {"pointer": "/s", "unit": "s"}, "arm": {"from_name": "arm"}, "phase": {"value": "measured"}},
                              "values": {"samples": {"pointer": "/samples", "unit": "samples"}}}},
        "claims": claims,
        **extra,
    }


def _run(tmp_path: Path, files: dict[str, str], claims: list[dict], **extra):
    """Return the report of `verify` over `files` with the profile of `_doc(claims)`."""
    bundle = write_tree(tmp_path / "run", files)
    return verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": _doc(claims, **extra)}))


def _refused(doc: dict, pointer: str, *words: str) -> str:
    """Assert `doc` is refused at load with one line naming the file and `pointer` (and each of `words`); return the line."""
    with pytest.raises(ConfigError) as info:
        load_profile(doc, SCHEMA, origin="draft.json")
    line = str(info.value)
    assert "\n" not in line and line.startswith(f"draft.json: invalid profile at {pointer}:"), line
    for word in words:
        assert word in line, (word, line)
    return line


# ---------------------------------------------------------------- 1. units cannot lie

SPEEDUP = {"id": "speedup", "receipts": "runs", "statistic": "speedup", "baseline": "baseline", "candidate": "candidate",
           "selection": {"phase": "measured"}, "unit": "%", "at": {"file": "summary.json", "pointer": "/speedup"}}


def test_a_speedup_in_percent_is_the_ratio_times_100(tmp_path):
    report = _run(tmp_path, {**RUNS, "summary.json": '{"speedup": 120}'}, [SPEEDUP])
    assert _claim(report, "speedup").status == "PASS"


def test_a_speedup_in_percent_stated_without_the_factor_fails(tmp_path):
    report = _run(tmp_path, {**RUNS, "summary.json": '{"speedup": 1.2}'}, [SPEEDUP])
    assert _claim(report, "speedup").status == "FAIL"


def test_a_reduction_in_percent_stated_as_a_fraction_with_unit_1(tmp_path):
    claim = {**SPEEDUP, "id": "saved", "statistic": "relative_reduction_pct", "unit": "1"}  # (1 - 1.0/1.2) = 0.1667 = 16.67 %
    report = _run(tmp_path, {**RUNS, "summary.json": '{"speedup": 0.1667}'}, [claim])
    assert _claim(report, "saved").status == "PASS"
    report = _run(tmp_path / "b", {**RUNS, "summary.json": '{"speedup": 16.67}'}, [claim])
    assert _claim(report, "saved").status == "FAIL"


def test_a_speedup_gate_in_percent_applies_the_factor(tmp_path):
    rule = {k: v for k, v in SPEEDUP.items() if k != "at"} | {"id": "at-least-110-pct", "min": 110}
    report = _run(tmp_path, {**RUNS, "summary.json": "{}"}, [], gate={"rules": [rule]})
    assert [f.status for f in _by(report, "profile.gate")] == ["PASS"]
    report = _run(tmp_path / "b", {**RUNS, "summary.json": "{}"}, [], gate={"rules": [rule | {"min": 130}]})
    assert [f.status for f in _by(report, "profile.gate")] == ["FAIL"]


@pytest.mark.parametrize(("statistic", "unit", "instead"), [
    ("speedup", "ms", "`1`, `x` or `%`"),
    ("relative_reduction_pct", "s", "`%`"),
    ("count", "%", "`1`"),
    ("count", "ms", "`1`"),
])
def test_a_unit_of_another_dimension_than_the_statistic_is_refused(statistic, unit, instead):
    claim = {**SPEEDUP, "statistic": statistic, "unit": unit}
    if statistic == "count":
        claim = {k: v for k, v in claim.items() if k not in ("baseline", "candidate")}
    _refused(_doc([claim]), "/claims/0/unit", repr(unit), instead)
