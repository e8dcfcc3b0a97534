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


def _drop(i, key):
    def change(d):
        lines = _lines(d)
        lines[i].pop(key)
        _write_lines(d, lines)
    return change


def _case(**kw):
    return _plan(lambda p: p["cases"][0].update(kw))


CASES = [
    ("ok-after-deadline", _plan(lambda p: p.update(timeout_seconds=0.021)), _plan(lambda p: p.update(timeout_seconds=0.05))),
    ("clock-order", _line(2, completed_at_monotonic_seconds=100.09, latency_seconds=0.02), _line(2, completed_at_monotonic_seconds=100.12)),
    ("latency-disagrees-with-clocks", _line(2, latency_seconds=0.03), _line(2, latency_seconds=0.0200000000000000001)),
    # the honest oracles match the fixture's retained bytes {"answer": "ok"} (issue 39: ok bytes are re-checked against the oracle)
    ("oracle-count", _case(oracle={}), _case(oracle={"exact_bytes": "eyJhbnN3ZXIiOiAib2sifQ=="})),
    ("oracle-count", _case(oracle={"exact_json": {"answer": "ok"}, "exact_bytes": "b2s="}), _case(oracle={"exact_json": {"answer": "ok"}})),
    ("oracle-count", lambda d: _edit_plan(d, lambda p: p["cases"][0].pop("oracle")), _case()),
    ("budget-beyond-plan", _config(lambda c: c["effective_budget"].update(repetitions=3)),
     _config(lambda c: c["effective_budget"].update(repetitions=2))),
    # the honest ignore paths name fields of the oracle (issue 39: a path that resolves nowhere is refused)
    ("ignore-paths-overlap", _case(ignore_paths=["/metadata", "/metadata/inference_seconds"]),
     _case(oracle={"exact_json": {"answer": "ok", "inference_seconds": 1.5, "latency_ms": 7}}, ignore_paths=["/inference_seconds", "/latency_ms"])),
    ("ignore-paths-overlap", _case(ignore_paths=["/a", "/a"]),
     _case(oracle={"exact_json": {"answer": "ok", "a": 1, "ab": 2}}, ignore_paths=["/a", "/ab"])),
    ("credential-retained", _plan(lambda p: p.update(headers={"Authorization": "Bearer abc.def"})),
     _plan(lambda p: p.update(headers={"Authorization": ""}))),
    ("credential-retained", _config(lambda c: c["client"].update(env=["OMNI_JEV_TEST_TOKEN=sk-abcdefghijklmnopqrstu"])),
     _config(lambda c: c["client"].update(env=["OMNI_JEV_TEST_TOKEN set (value not retained)"]))),
    ("credential-retained", _plan(lambda p: p.update(headers={"X-Api-Key": "abc123"})),
     _plan(lambda p: p.update(headers={"X-Request-Id": "abc123"}))),
    ("requests-below-concurrency", _plan(lambda p: p.update(concurrency=[1, 8])), _plan(lambda p: p.update(concurrency=[1, 4]))),
    ("raw-response-absent", _drop(3, "raw_response_base64"), _line(3, raw_response_base64="eyJhbnN3ZXIiOiAib2sifQ==")),
    ("raw-response-absent", _line(3, raw_response_base64="{\"answer\": \"ok\"}"),
     _line(3, raw_response_base64="eyJhbnN3ZXIiOiJvayJ9")),  # the same JSON, other bytes (an empty body would contradict the oracle)
]


@pytest.mark.parametrize("code,bad,good", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_matrix_rule_fails_on_breaking_input_and_holds_on_honest_input(tmp_path, code, bad, good):
    broken = _copy(tmp_path / "b", "good")
    bad(broken)
    report = verify_path(str(broken))
    fails = {x.code for x in report.findings if x.status == "FAIL" and x.check == "gate.rules"}
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


# ---- the spread block: per (case, concurrency), min/median/max/relative spread over complete rounds ----

import sys  # noqa: E402

from conftest import ROOT  # noqa: E402
from test_http_matrix import _edit  # noqa: E402

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
import make_matrix  # noqa: E402


def _summary(change):
    return lambda d: _edit(d / "summary.json", change)


def _agg(i, metric, **kw):
    return _summary(lambda s: s["round_aggregates"][i]["metrics"][metric].update(kw))


def _varied(s):
    """Two c=1 rounds 2 % apart (1698 vs 1724 req/s, the review's local check), aggregated by the runner's own float code."""
    for row, value in zip([r for r in s["rounds"] if r["concurrency"] == 1], (1698.0, 1724.0), strict=True):
        row["throughput_rps"] = value
    s["round_aggregates"] = make_matrix.aggregates(s["rounds"])


SPREAD_CASES = [
    ("spread-mismatch", _agg(0, "throughput_rps", max=50.0), _agg(0, "throughput_rps", max=45.454545)),
    ("spread-mismatch", _agg(0, "p95_ms", median=24.0), _agg(0, "p95_ms", median=25.0)),
    ("spread-mismatch", _agg(0, "p50_ms", rounds=3), _agg(0, "p50_ms", rounds=2)),
    ("spread-mismatch", _agg(0, "throughput_rps", relative_spread=0.02), _agg(0, "throughput_rps", relative_spread=0.0)),
    ("spread-mismatch", _summary(lambda s: (_varied(s), s["round_aggregates"][0]["metrics"]["throughput_rps"].update(relative_spread=0.0153))),
     _summary(_varied)),
    ("spread-mismatch", _summary(lambda s: (_varied(s), s["round_aggregates"][0]["metrics"]["throughput_rps"].update(median=1698.0))),
     _summary(_varied)),
    ("spread-missing", _summary(lambda s: s["round_aggregates"].pop(1)), _summary(lambda s: s)),
    ("spread-missing", _summary(lambda s: s["round_aggregates"][0]["metrics"].update(p50_ms=None)),
     _summary(lambda s: s["round_aggregates"][1]["metrics"].update(steady_state_throughput_rps=None))),
]


@pytest.mark.parametrize("code,bad,good", SPREAD_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(SPREAD_CASES)])
def test_spread_block_fails_when_wrong_and_holds_when_rederived(tmp_path, code, bad, good):
    broken = _copy(tmp_path / "b", "good")
    bad(broken)
    fails = {x.code for x in verify_path(str(broken)).findings if x.check == "matrix.spread" and x.status == "FAIL"}
    assert code in fails, fails
    honest = _copy(tmp_path / "h", "good")
    good(honest)
    spread = [x for x in verify_path(str(honest)).findings if x.check == "matrix.spread"]
    assert spread and all(x.status == "PASS" for x in spread), [x.message for x in spread if x.status != "PASS"]


def test_summary_without_a_spread_block_is_unverified(tmp_path):
    d = _copy(tmp_path / "n", "good")
    _summary(lambda s: s.pop("round_aggregates"))(d)
    (only,) = [x for x in verify_path(str(d)).findings if x.check == "matrix.spread"]
    assert only.status == "UNVERIFIED" and only.code == "spread-not-stated"


@pytest.mark.parametrize("change", [lambda s: s.update(round_aggregates={"short": 1}),
                                    lambda s: s["round_aggregates"][0]["metrics"].update(p50_ms={"min": "20"}),
                                    lambda s: s["round_aggregates"][0].update(concurrency="1")])
def test_wrong_typed_spread_block_is_a_schema_finding(tmp_path, change):
    d = _copy(tmp_path / "w", "good")
    _summary(change)(d)
    report = verify_path(str(d))
    assert any(x.check == "schema.documents" and x.status == "FAIL" for x in report.findings)
    assert not [x for x in report.findings if x.status == "ERROR"]


def test_wrong_typed_raw_bytes_is_a_schema_finding(tmp_path):
    d = _copy(tmp_path / "r", "good")
    _line(0, raw_response_base64=123)(d)
    report = verify_path(str(d))
    assert any(x.check == "schema.documents" and x.status == "FAIL" for x in report.findings)
    assert not [x for x in report.findings if x.status == "ERROR"]


@pytest.mark.parametrize("change", [lambda s: s["rounds"][0].update(throughput_rps=None),
                                    lambda s: s["rounds"][0].update(wave_seconds=None),
                                    lambda s: s["rounds"][0].update(case="other")])
def test_complete_round_without_its_numbers_or_lines_fails_not_errors(tmp_path, change):
    d = _copy(tmp_path / "c", "good")
    _summary(change)(d)
    report = verify_path(str(d))
    assert ("derivation.claims", "complete-round-unsupported") in {(x.check, x.code) for x in report.findings if x.status == "FAIL"}
    assert not [x for x in report.findings if x.status == "ERROR"]


def test_a_spread_block_is_derived_and_compared_by_the_engine():
    """`stats.compare_spread`: rounds exactly, min/median/max at their stated precision, the relative spread as a binary64 difference over the median."""
    from decimal import Decimal as D

    from verifier.engine import stats

    block = {"rounds": 3, "min": 10.0, "median": 11, "max": 12, "relative_spread": D("0.181818")}
    derived, bad = stats.compare_spread(block, [D(12), D(10), D(11)])
    assert derived == {"rounds": 3, "min": 10, "median": 11, "max": 12, "relative_spread": stats.CONTEXT.divide(D(2), D(11))} and bad == []
    assert stats.compare_spread({**block, "rounds": 2, "min": D("10.1"), "relative_spread": D("0.1817")}, [D(12), D(10), D(11)])[1] == [
        "rounds", "min", "relative_spread"]
    assert stats.compare_spread({**block, "median": None, "max": D("12.0")}, [D(12), D(10), D(11)])[1] == ["median"]
    zeros = {"rounds": 3, "min": 0, "median": 0, "max": 0}
    assert stats.compare_spread({**zeros, "relative_spread": 0}, [D(0)] * 3)[1] == []
    assert stats.compare_spread({**zeros, "relative_spread": D("1E-9")}, [D(0)] * 3)[1] == ["relative_spread"]  # exactly, over a zero median
    around = {"rounds": 3, "min": -1, "median": 0, "max": 1}
    assert stats.compare_spread({**around, "relative_spread": None}, [D(-1), D(0), D(1)]) == (
        {"rounds": 3, "min": -1, "median": 0, "max": 1, "relative_spread": None}, [])
    assert stats.compare_spread({**around, "relative_spread": 0}, [D(-1), D(0), D(1)])[1] == ["relative_spread"]
    huge = [D("1E17")] * 3  # rounds are counted, not measured: exact whatever the values' magnitude
    assert stats.compare_spread({"rounds": 4, "min": D("1E17"), "median": D("1E17"), "max": D("1E17"), "relative_spread": 0}, huge)[1] == ["rounds"]
    # (max - min) / median in binary64: the difference's two ulps at max / median (1000 / 0.001: 2.3e-10), not at max (2.3e-13)
    wide = [D("0.001"), D("0.001"), D(1000)]
    edge = {"rounds": 3, "min": D("0.001"), "median": D("0.001"), "max": 1000}
    assert stats.compare_spread({**edge, "relative_spread": D("999999.0000000001")}, wide)[1] == []
    assert stats.compare_spread({**edge, "relative_spread": D("999999.000000001")}, wide)[1] == ["relative_spread"]


def test_a_spread_block_wrong_in_two_members_names_both(tmp_path):
    d = _copy(tmp_path / "t", "good")
    _agg(0, "p50_ms", min=20.0, rounds=3)(d)
    (bad,) = [x for x in verify_path(str(d)).findings if x.check == "matrix.spread" and x.status.value == "FAIL"]
    assert (bad.code, bad.pointer, bad.observed) == ("spread-mismatch", "/round_aggregates/0/metrics/p50_ms", {"rounds": "3", "min": "20.0"})
    assert bad.message == ("/round_aggregates/0/metrics/p50_ms: rounds 3 but 2 complete round(s) give 2; min 20.0 but 2 complete round(s) give 21.0")
    assert bad.expected == {"rounds": "2", "min": "21.0", "median": "21.00", "max": "21.0", "relative_spread": "0E+1"}
