"""Issue 13, frozen HTTP matrix (seed 003): deadline, clocks, oracles, budget, ignore paths, credentials, requests per case."""

from __future__ import annotations

import pytest
from test_http_matrix import _copy, _edit, _edit_plan, _lines, _write_lines

from verifier.core import verify_path


def _plan(change):
    return lambda d: _edit_plan(d, change)


def _config(change):
    return lambda d: _edit(d / "config.json", change)


def _line(i, **kw):
    def change(d):
        lines = _lines(d)
        lines[i].update(kw)
        _write_lines(d, lines)
    return change


def _case(**kw):
    return _plan(lambda p: p["cases"][0].update(kw))


CASES = [
    ("ok-after-deadline", _plan(lambda p: p.update(timeout_seconds=0.021)), _plan(lambda p: p.update(timeout_seconds=0.05))),
    ("clock-order", _line(2, completed_at_monotonic_seconds=100.09, latency_seconds=0.02), _line(2, completed_at_monotonic_seconds=100.12)),
    ("latency-disagrees-with-clocks", _line(2, latency_seconds=0.03), _line(2, latency_seconds=0.0200000000000000001)),
    ("oracle-count", _case(oracle={}), _case(oracle={"exact_bytes": "b2s="})),
    ("oracle-count", _case(oracle={"exact_json": {"answer": "ok"}, "exact_bytes": "b2s="}), _case(oracle={"exact_json": {}})),
    ("oracle-count", lambda d: _edit_plan(d, lambda p: p["cases"][0].pop("oracle")), _case()),
    ("budget-beyond-plan", _config(lambda c: c["effective_budget"].update(repetitions=3)),
     _config(lambda c: c["effective_budget"].update(repetitions=2))),
    ("ignore-paths-overlap", _case(ignore_paths=["/metadata", "/metadata/inference_seconds"]),
     _case(ignore_paths=["/metadata/inference_seconds", "/usage/latency_ms"])),
    ("ignore-paths-overlap", _case(ignore_paths=["/a", "/a"]), _case(ignore_paths=["/a", "/ab"])),
    ("credential-retained", _plan(lambda p: p.update(headers={"Authorization": "Bearer abc.def"})),
     _plan(lambda p: p.update(headers={"Authorization": ""}))),
    ("credential-retained", _config(lambda c: c["client"].update(env=["OMNI_JEV_TEST_TOKEN=sk-abcdefghijklmnopqrstu"])),
     _config(lambda c: c["client"].update(env=["OMNI_JEV_TEST_TOKEN set (value not retained)"]))),
    ("credential-retained", _plan(lambda p: p.update(headers={"X-Api-Key": "abc123"})),
     _plan(lambda p: p.update(headers={"X-Request-Id": "abc123"}))),
    ("requests-below-concurrency", _plan(lambda p: p.update(concurrency=[1, 8])), _plan(lambda p: p.update(concurrency=[1, 4]))),
]


@pytest.mark.parametrize("code,bad,good", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_matrix_rule_fails_on_breaking_input_and_holds_on_honest_input(tmp_path, code, bad, good):
    broken = _copy(tmp_path / "b", "good")
    bad(broken)
    report = verify_path(str(broken))
    fails = {x.code for x in report.findings if x.status == "FAIL" and x.check.startswith("matrix.") and x.check.endswith("rules")}
    assert code in fails, [x.message for x in report.findings if x.status == "FAIL"]
    honest = _copy(tmp_path / "h", "good")
    good(honest)
    report = verify_path(str(honest))
    assert not [x for x in report.findings if x.check.endswith("rules") and x.status != "PASS"], \
        [x.message for x in report.findings if x.check.endswith("rules") and x.status != "PASS"]


def test_credential_value_is_never_shown(tmp_path):
    d = _copy(tmp_path, "good")
    _edit_plan(d, lambda p: p.update(headers={"Authorization": "Bearer s3cr3t-value"}))
    report = verify_path(str(d))
    assert all("s3cr3t" not in (x.message + str(x.observed) + str(x.expected)) for x in report.findings)


@pytest.mark.parametrize("field,value", [("timeout_seconds", "30"), ("ignore_paths", "/a")])
def test_wrong_typed_plan_field_is_a_schema_finding(tmp_path, field, value):
    d = _copy(tmp_path, "good")
    _edit_plan(d, lambda p: p.update({field: value}))
    report = verify_path(str(d))
    assert any(x.code == "schema-violation" for x in report.findings)
    assert not [x for x in report.findings if x.status == "ERROR"]
