"""
Rows of `shared/docs/field-failures.md` on small bundles judged by test gates.

Test gates are pinned in a fresh inventory by `bundlekit.asset_root`, so the
real pinning code runs.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from bundlekit import asset_root, codes, make_bundle

from verifier.engine import stats
from verifier.core import verify_path

MEAN_GATE = {
    "plan": {},
    "claims": [
        {"claim": "server_mean_ms", "statistic": "mean", "per": "server", "selection": {"phase": "measured"}},
    ],
}
HEADLINE_GATE = {
    "plan": {},
    "claims": [
        {"claim": "arm_mean_ms", "statistic": "mean_of_server_means", "per": "arm", "selection": {"phase": "measured"}},
        {"claim": "reduction_pct", "statistic": "relative_reduction_pct", "baseline": "baseline", "candidate": "candidate"},
        {"claim": "speedup_x", "statistic": "speedup", "baseline": "baseline", "candidate": "candidate"},
    ],
}
P99_GATE = {
    "plan": {},
    "claims": [{"claim": "p99_ms", "statistic": "percentile", "q": 99, "method": "nearest-rank", "per": "server",
                "selection": {"phase": "measured"}}],
}
P99_LINEAR_GATE = {
    "plan": {},
    "claims": [{"claim": "p99_ms", "statistic": "percentile", "q": 99, "method": "linear", "per": "server",
                "selection": {"phase": "measured"}}],
}
CONCURRENCY_GATE = {"plan": {"warmups_at_least_concurrency": True}, "claims": MEAN_GATE["claims"]}


@pytest.fixture
def assets_dir(tmp_path):
    return asset_root(tmp_path, {"t-mean": MEAN_GATE, "t-headline": HEADLINE_GATE, "t-p99": P99_GATE,
                                 "t-p99-linear": P99_LINEAR_GATE, "t-conc": CONCURRENCY_GATE})


def run(bundle, assets_dir):
    return verify_path(str(bundle), asset_root=assets_dir)


def test_h01_failed_requests_stay_in_the_denominator(tmp_path, assets_dir):
    servers = {
        "A1": ("baseline", [("measured", 0.200, "ok")] * 10),
        "B1": ("candidate", [("measured", 0.150, "ok")] * 5 + [("measured", 0.005, "failed")] * 5),
    }
    bundle = make_bundle(tmp_path / "b", "t-mean", servers, {"server_mean_ms.A1": "0.200", "server_mean_ms.B1": "0.150"})
    report = run(bundle, assets_dir)
    assert report.verdict == "FAIL"
    bad = [f for f in report.findings if f.code == "incomplete-denominator"]
    assert len(bad) == 1 and "5/10" in bad[0].message and "server_mean_ms.B1" in bad[0].message
    assert any(f.code == "derived" and "server_mean_ms.A1" in f.message for f in report.findings)


def test_h02_p99_of_three_is_the_maximum_not_the_median(tmp_path, assets_dir):
    servers = {"A1": ("baseline", [("measured", v, "ok") for v in (10, 20, 30)])}
    wrong = make_bundle(tmp_path / "wrong", "t-p99", servers, {"p99_ms.A1": 20})
    assert ("derivation.claims", "FAIL", "claim-mismatch") in codes(run(wrong, assets_dir))
    right = make_bundle(tmp_path / "right", "t-p99", servers, {"p99_ms.A1": 30})
    assert run(right, assets_dir).verdict == "PASS"
    linear = make_bundle(tmp_path / "linear", "t-p99-linear", servers, {"p99_ms.A1": "29.8"})
    assert run(linear, assets_dir).verdict == "PASS"
    linear_wrong = make_bundle(tmp_path / "linear-wrong", "t-p99-linear", servers, {"p99_ms.A1": 20})
    assert run(linear_wrong, assets_dir).verdict == "FAIL"


def test_h02_percentile_definitions():
    values = [Decimal(v) for v in (10, 20, 30)]
    assert stats.percentile_nearest_rank(values, Decimal(99)) == 30
    assert stats.percentile_linear(values, Decimal(99)) == Decimal("29.8")
    nineteen = [Decimal(v) for v in range(1, 20)]
    assert stats.percentile_nearest_rank(nineteen, Decimal(95)) == 19  # p95 is the maximum when n < 20
    assert stats.percentile_nearest_rank([Decimal(v) for v in range(1, 21)], Decimal(95)) == 19


def test_h04_measured_only_mean_passes_and_mixed_fails(tmp_path, assets_dir):
    rows = [("warmup", 0.900, "ok"), ("warmup", 0.850, "ok"), ("measured", 0.100, "ok"), ("measured", 0.110, "ok"), ("measured", 0.120, "ok")]
    servers = {"A1": ("baseline", rows)}
    good = make_bundle(tmp_path / "good", "t-mean", servers, {"server_mean_ms.A1": "0.110"})
    assert run(good, assets_dir).verdict == "PASS"
    mixed = make_bundle(tmp_path / "mixed", "t-mean", servers, {"server_mean_ms.A1": "0.416"})
    assert ("derivation.claims", "FAIL", "claim-mismatch") in codes(run(mixed, assets_dir))


def test_h04_warmups_below_declared_concurrency_flagged(tmp_path, assets_dir):
    rows = [("warmup", 0.9, "ok"), ("warmup", 0.8, "ok"), ("measured", 0.1, "ok")]
    bundle = make_bundle(tmp_path / "b", "t-conc", {"A1": ("baseline", rows)}, {"server_mean_ms.A1": "0.1"},
                         plan_extra={"max_concurrency": 4})
    assert ("plan.conformance", "FAIL", "warmups-below-concurrency") in codes(run(bundle, assets_dir))
    ok = make_bundle(tmp_path / "ok", "t-conc", {"A1": ("baseline", rows)}, {"server_mean_ms.A1": "0.1"},
                     plan_extra={"max_concurrency": 2})
    assert run(ok, assets_dir).verdict == "PASS"


def test_h05_peak_in_flight_above_declared_cap_fails(tmp_path, assets_dir):
    import json

    from bundlekit import read_lines, rehash, write_lines

    rows = [("measured", 1.0, "ok")] * 10
    bundle = make_bundle(tmp_path / "b", "t-mean", {"A1": ("baseline", rows)}, {"server_mean_ms.A1": "1.0"},
                         plan_extra={"max_concurrency": 4})
    receipts = read_lines(bundle / "receipts.jsonl")
    for r in receipts:
        r["started_at"], r["ended_at"] = "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z"
    write_lines(bundle / "receipts.jsonl", receipts)
    rehash(bundle)
    report = run(bundle, assets_dir)
    bad = [f for f in report.findings if f.code == "concurrency-exceeded"]
    assert bad and bad[0].observed == 10 and bad[0].expected == 4
    plan = json.loads((bundle / "plan.json").read_text())
    plan["max_concurrency"] = 0
    (bundle / "plan.json").write_text(json.dumps(plan))
    rehash(bundle)
    assert run(bundle, assets_dir).verdict == "FAIL"  # 0 is not a valid cap (schema minimum 1), never "unlimited"


@pytest.mark.parametrize(("claims", "verdict"), [
    ({"reduction_pct": "44.1", "speedup_x": "1.79"}, "PASS"),
    ({"reduction_pct": "44.06", "speedup_x": "1.787"}, "PASS"),
    ({"reduction_pct": "78.7", "speedup_x": "1.79"}, "FAIL"),
    ({"reduction_pct": "128.7", "speedup_x": "1.79"}, "FAIL"),
])
def test_h06_percent_lower_on_the_right_base(tmp_path, assets_dir, claims, verdict):
    servers = {"A1": ("baseline", [("measured", "9.42", "ok")]), "B1": ("candidate", [("measured", "5.27", "ok")])}
    bundle = make_bundle(tmp_path / "b", "t-headline", servers,
                         {"arm_mean_ms.baseline": "9.42", "arm_mean_ms.candidate": "5.27", **claims})
    assert run(bundle, assets_dir).verdict == verdict


def test_h19_declared_server_without_measured_receipts_fails(tmp_path, assets_dir):
    from bundlekit import read_lines, rehash, write_lines

    servers = {"A1": ("baseline", [("measured", 1.0, "ok")]), "A2": ("baseline", [("measured", 1.0, "ok")])}
    bundle = make_bundle(tmp_path / "b", "t-mean", servers, {"server_mean_ms.A1": "1.0", "server_mean_ms.A2": "1.0"})
    write_lines(bundle / "receipts.jsonl", [r for r in read_lines(bundle / "receipts.jsonl") if r["server"] != "A2"])
    rehash(bundle)
    report = run(bundle, assets_dir)
    assert ("plan.conformance", "FAIL", "no-measured-receipts") in codes(report)
    assert report.verdict == "FAIL"
