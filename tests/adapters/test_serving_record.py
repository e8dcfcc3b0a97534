"""The real `serving-performance-v1` record from ../shared/seeds (read in place, never copied)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SHARED

from verifier.core import verify_path
from verifier.model.findings import Status

RECORD = SHARED / "seeds" / "serving-performance-record.json"


def _by(report, check):
    return [f for f in report.findings if f.check == check]


def test_real_record_rederives_counts_median_and_p95_and_is_incomplete():
    report = verify_path(str(RECORD))
    assert report.kind == "serving-performance-v1"
    assert report.verdict == "INCOMPLETE" and int(report.exit_code) == 3
    counts = {f.pointer: f for f in _by(report, "derivation.claims")}
    assert counts["/counts/declared"].status == "PASS" and counts["/counts/declared"].observed == 8
    assert counts["/counts/outcomes/pass"].observed == 6 and counts["/counts/outcomes/fail"].observed == 2
    metrics = {f.message.split(" ")[0]: f for f in _by(report, "derivation.claims")}
    assert metrics["completion_median_ms"].status == "PASS"
    assert metrics["completion_median_ms"].expected == "4155.3015"
    assert metrics["completion_p95_ms"].status == "PASS"
    assert metrics["completion_p95_ms"].expected == "6909.58135"
    for name in ("completion_throughput_tps", "first_generated_median_ms", "first_final_content_median_ms",
                 "stream_chunk_interval_median_ms"):
        assert metrics[name].status == "UNVERIFIED", name
        assert "retains no" in metrics[name].message


def _mutated(tmp_path: Path, change) -> Path:
    record = json.loads(RECORD.read_text())
    change(record)
    out = tmp_path / "record.json"
    out.write_text(json.dumps(record))
    return out


def test_record_whose_cases_disagree_with_its_median_fails(tmp_path):
    def change(r):
        r["cases"][0]["duration_ms"] = 4000.0  # moves the median off 4155.3015
    report = verify_path(str(_mutated(tmp_path, change)))
    assert report.verdict == "FAIL"
    (found,) = [f for f in report.findings if f.code == "metric-mismatch" and "completion_median_ms" in f.message]
    assert (found.expected, found.observed["claimed"], found.observed["derived"]) == ("4193.6130", "4155.3015", "4193.6130")  # derived expected


def test_record_whose_outcome_counts_disagree_fails(tmp_path):
    def change(r):
        r["cases"][1]["outcome"] = "pass"
    report = verify_path(str(_mutated(tmp_path, change)))
    assert report.verdict == "FAIL"
    assert {f.pointer for f in report.findings if f.code == "count-mismatch"} >= {"/counts/outcomes/pass", "/counts/outcomes/fail"}


def test_record_with_wrong_p95_definition_fails(tmp_path):
    def change(r):
        for m in r["metrics"]:
            if m["id"] == "completion_p95_ms":
                m["value"] = 6931.26  # nearest-rank p95 of 8 values is the maximum; the record says linear
    report = verify_path(str(_mutated(tmp_path, change)))
    # the definition's own words say linear: the nearest-rank value contradicts them (issue 13)
    assert any(f.code == "definition-contradicts-value" and "completion_p95_ms" in f.message for f in report.findings)


def test_cli_exit_code_is_3(run):
    result = run(str(RECORD))
    assert result.exit_code == 3
    assert "INCOMPLETE" in result.stdout


# ---- issue 13: the record's own statements (the rule pack verifier/checks/packs/serving_record.py, gate.rules) ----

import pytest  # noqa: E402


def _report(tmp_path, change):
    return verify_path(str(_mutated(tmp_path, change)))


def _codes(report, check="gate.rules"):
    return {(f.status, f.code) for f in report.findings if f.check == check}


def _perf(**kw):
    def change(r):
        r["performance"].update(kw)
    return change


def _set(key, value):
    def change(r):
        r[key] = value
    return change


def _case(i, **kw):
    def change(r):
        r["cases"][i].update(kw)
    return change


def _metric(mid, **kw):
    def change(r):
        for m in r["metrics"]:
            if m["id"] == mid:
                m.update(kw)
    return change


def _both(*changes):
    def change(r):
        for c in changes:
            c(r)
    return change


def _timed(r, overlap):
    """Give every case a start/end: back-to-back, or the first `overlap` cases all at once."""
    for i, c in enumerate(r["cases"]):
        start = 0 if i < overlap else 10 * i
        c["started_at"] = f"2026-09-20T14:31:{40 + start // 10:02d}.000000+00:00"
        c["completed_at"] = f"2026-09-20T14:31:{40 + start // 10:02d}.900000+00:00" if i >= overlap else "2026-09-20T14:31:40.500000+00:00"


RULE_CASES = [
    # (code, change that must FAIL it, change that keeps it PASS)
    ("run-not-completed", _set("status", "running"), _set("status", "completed")),
    ("clock-order", _set("completed_at", "2026-09-20T14:31:36.083420+00:00"), _set("completed_at", "2026-09-20T14:33:00Z")),
    ("batch-outside-envelope", _metric("batch_duration_seconds", value=57.0), _metric("batch_duration_seconds", value=56.0)),
    ("case-longer-than-batch", _case(1, duration_ms=40000.0), _case(1, duration_ms=6931.26)),
    ("peak-without-timestamps", _perf(observed_peak_inflight=1), _perf(observed_peak_inflight=None)),
    ("peak-mismatch", lambda r: (_timed(r, 0), r["performance"].update(observed_peak_inflight=2)),
     lambda r: (_timed(r, 0), r["performance"].update(observed_peak_inflight=1))),
    ("peak-above-cap", lambda r: (_timed(r, 2), r["performance"].update(observed_peak_inflight=2)),
     lambda r: (_timed(r, 2), r["performance"].update(observed_peak_inflight=2, client_concurrency_limit=2))),
    ("transport-above-declared", _perf(transport_successes=9), _perf(transport_successes=8)),
    ("token-range-inverted", _perf(actual_input_tokens_min=3736), _perf(actual_input_tokens_min=3735)),
    ("pass-with-failure-stage", _case(0, failure_stage="answer_checks"), _case(1, failure_stage="answer_checks")),
    ("duplicate-case-id", _case(1, case_id="request-01"), _case(1, case_id="request-02b")),
    ("not-actual-inference", _set("evidence_mode", "replay"), _set("evidence_mode", "actual_inference")),
    ("correctness-not-attested", lambda r: r["deployment"].update(weights_verified=False),
     lambda r: r["deployment"].update(weights_verified=True)),
    ("digest-malformed", lambda r: r["conditions"][0].update(value="8a29437cb3e4b806f4be7845"),
     lambda r: r["conditions"][0].update(value=r["conditions"][0]["value"].upper())),
]


@pytest.mark.parametrize("code,bad,good", RULE_CASES, ids=[c[0] for c in RULE_CASES])
def test_record_rule_fails_on_breaking_input_and_holds_on_honest_input(tmp_path, code, bad, good):
    failing = _report(tmp_path, bad)
    assert (Status.FAIL, code) in _codes(failing), _codes(failing)
    assert failing.verdict == "FAIL"
    passing = _report(tmp_path, good)
    assert (Status.FAIL, code) not in _codes(passing)
    assert not [f for f in passing.findings if f.status == Status.FAIL], [f.message for f in passing.findings if f.status == Status.FAIL]


def test_real_record_holds_every_stated_rule():
    report = verify_path(str(RECORD))
    rules = _by(report, "gate.rules")
    assert rules and all(f.status == Status.PASS for f in rules)


@pytest.mark.parametrize("field,value", [("suite_sha256", "7604BE858E8B928DD7C2ACB188DD25EC8B46BF26D544872220E18C20344DB1D6"),
                                         ("evaluator_sha256", "1F2D6733C17C647CBA8599F8B560FDB2529B2FC9E710F8DD6AD71C68D606BF40")])
def test_uppercase_digest_is_the_same_digest(tmp_path, field, value):
    report = _report(tmp_path, _set(field, value))
    assert not [f for f in report.findings if f.status == Status.FAIL]


@pytest.mark.parametrize("value", ["7604be858e8b928dd7c2acb188dd25ec8b46bf26d544872220e18c20344db1d", "g" * 64, "7604be85 " * 8])
def test_digest_of_wrong_length_or_not_hex_fails_schema(tmp_path, value):
    report = _report(tmp_path, _set("suite_sha256", value))
    assert any(f.code == "schema-violation" and f.pointer == "/suite_sha256" for f in report.findings)


def test_definition_saying_nearest_rank_with_the_linear_value_fails(tmp_path):
    report = _report(tmp_path, _metric("completion_p95_ms", definition="Nearest-rank p95 over all recorded request durations."))
    bad = [f for f in report.findings if f.code == "definition-contradicts-value"]
    assert bad and "linear" in bad[0].message and bad[0].expected == "6931.26"


def test_definition_saying_nearest_rank_with_the_nearest_rank_value_passes(tmp_path):
    report = _report(tmp_path, _metric("completion_p95_ms", value=6931.26, definition="Nearest-rank p95 of every duration."))
    p95 = [f for f in report.findings if f.pointer == "/metrics/4/value"]
    assert p95 and p95[0].status == Status.PASS and "nearest-rank" in p95[0].derivation


@pytest.mark.parametrize("change", [_set("suite_version", "serving-performance-v2"), _set("schema_version", 2),
                                    _perf(version="serving-cell-v2"), _set("schema_version", True)])
def test_unknown_version_of_the_family_is_unverified_not_fail(tmp_path, change):
    report = _report(tmp_path, change)
    assert report.kind == "serving-performance-v1"
    producer = _by(report, "schema.documents")[0]
    assert producer.status == Status.UNVERIFIED and producer.code == "unknown-producer-version"
    assert not [f for f in report.findings if f.status == Status.FAIL]
    # the families the reader does not feed are the roster's `not-in-evidence` stand-ins (issue 10), not blocked checks
    assert all(f.code == "blocked-by" for f in report.findings if f.check != "schema.documents" and f.code != "not-in-evidence")
    assert report.verdict == "INCOMPLETE" and int(report.exit_code) == 3


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_record_with_nan_is_a_fail_report_not_exit_2(tmp_path, run, token):
    bad = tmp_path / "record.json"
    bad.write_text(RECORD.read_text().replace('"value": 4155.3015', f'"value": {token}'))
    result = run(str(bad))
    assert result.exit_code == 1, result.output
    assert "non-finite-number" in result.stdout and "FAIL" in result.stdout


@pytest.mark.parametrize("change", [_set("status", 3), _perf(observed_peak_inflight="2"), _perf(transport_successes=8.5),
                                    lambda r: r["deployment"].update(weights_verified="no"), _case(0, failure_stage=7),
                                    lambda r: r["conditions"].append({"label": "x SHA-256"}), _set("started_at", 5)])
def test_wrong_typed_field_is_a_schema_finding_not_a_crash(tmp_path, change):
    report = _report(tmp_path, change)
    assert any(f.code == "schema-violation" for f in report.findings)
    assert not [f for f in report.findings if f.status == Status.ERROR]


def test_definition_naming_both_percentile_methods_fails_at_the_definition(tmp_path):
    report = _report(tmp_path, _metric("completion_p95_ms", definition="Nearest-rank or linear-interpolated p95 of the durations."))
    p95 = [f for f in report.findings if f.check == "derivation.claims" and "completion_p95_ms" in f.message]
    assert [(f.status, f.code, f.pointer) for f in p95] == [(Status.FAIL, "definition-contradicts-value", "/metrics/4/definition")]


def test_a_p95_whose_definition_names_no_method_is_the_linear_one(tmp_path):
    """`METRICS` says linear: the seed's own value passes with a definition silent on the method, the nearest-rank one does not."""
    silent = _metric("completion_p95_ms", definition="p95 of every recorded duration.")
    p95 = [f for f in _report(tmp_path, silent).findings if f.pointer == "/metrics/4/value"]
    assert [(f.status, f.expected) for f in p95] == [(Status.PASS, "6909.58135")]
    nearest = _both(silent, _metric("completion_p95_ms", value=6931.26))
    assert [f.code for f in _report(tmp_path, nearest).findings if f.pointer == "/metrics/4/value"] == ["metric-mismatch"]


def test_a_median_whose_definition_says_linear_is_a_median_mismatch_not_a_percentile_contradiction(tmp_path):
    """Its words choose no percentile: a median of the maximum's value is a `metric-mismatch` (it was "the nearest-rank one", p100)."""
    report = _report(tmp_path, _metric("completion_median_ms", definition="Median over linear time of all durations", value=6931.26))
    assert [f.code for f in report.findings if f.pointer == "/metrics/3/value"] == ["metric-mismatch"]


@pytest.mark.parametrize("batch,inside", [(56.000000001, True), (56.000000002, False)])
def test_record_clocks_are_read_in_any_case_to_the_nanosecond(tmp_path, batch, inside):
    """Found by this stop's trial: a lower-case "z" (valid RFC 3339) was an ERROR in `gate.rules`; the envelope was cut to microseconds."""
    def change(r):
        r.update(started_at="2026-09-20t14:31:36.000000000z", completed_at="2026-09-20t14:32:32.000000001z")
        next(m for m in r["metrics"] if m["id"] == "batch_duration_seconds")["value"] = batch
    report = _report(tmp_path, change)
    assert not [f for f in report.findings if f.status == Status.ERROR]
    assert ((Status.FAIL, "batch-outside-envelope") in _codes(report)) is not inside


def _claims_of(report, metric):
    return [(f.status, f.code, f.message, f.pointer, f.expected, f.observed) for f in report.findings
            if f.check == "derivation.claims" and metric in f.message]


def test_a_metric_stating_another_sample_count_fails_at_its_samples(tmp_path):
    """Kills the receipt road's samples branch of derivation.claims (cosmic-ray run on 7daa449, derivation.py :253-255): the count, its pointer, expected and observed."""
    (tmp_path / "wrong").mkdir()
    (tmp_path / "right").mkdir()
    wrong = _claims_of(_report(tmp_path / "wrong", _metric("completion_median_ms", samples=9)), "completion_median_ms")
    assert wrong == [(Status.FAIL, "samples-mismatch", "completion_median_ms says 9 samples, the cases record 8 durations",
                      "/metrics/3/samples", 8, 9)]
    right = _claims_of(_report(tmp_path / "right", _metric("completion_median_ms", samples=8)), "completion_median_ms")
    assert [(s, c) for s, c, *_ in right] == [(Status.PASS, "derived")]


def test_a_definition_naming_both_methods_says_so_at_the_definition_with_its_text(tmp_path):
    """Kills `:235` the conflict's pointer, message and observed indices: each is asserted."""
    definition = "Nearest-rank or linear-interpolated p95 of the durations."
    (found,) = _claims_of(_report(tmp_path, _metric("completion_p95_ms", definition=definition)), "completion_p95_ms")
    assert found[:2] == (Status.FAIL, "definition-contradicts-value") and found[3] == "/metrics/4/definition"
    assert found[2].startswith("completion_p95_ms: ") and "both" in found[2] and found[5] == definition


def test_no_case_recording_a_duration_is_the_metrics_own_failure_not_an_error(tmp_path):
    """Kills `:242` the except clause replaced and `:243` its FAIL/UNVERIFIED flipped: every duration null."""
    def change(r):
        for c in r["cases"]:
            c["duration_ms"] = None
    found = _claims_of(_report(tmp_path, change), "completion_median_ms")
    assert [(s, c, m) for s, c, m, *_ in found] == [(Status.FAIL, "metric-mismatch", "completion_median_ms: no case records a duration")]


def _schema_findings(report):
    return [(f.status, f.code, f.message, f.pointer) for f in report.findings if f.check == "schema.documents"]


def test_the_schema_family_of_a_record(tmp_path):
    """Kills the receipt road's survivors of schema.documents (cosmic-ray run on 7a69ca0, checks/schema.py :254, :262, :263): each finding asserted."""
    for sub in ("ok", "versions", "root"):
        (tmp_path / sub).mkdir()
    ok = _schema_findings(_report(tmp_path / "ok", lambda r: None))
    assert [(s, c) for s, c, *_ in ok] == [(Status.PASS, "producer-identified"), (Status.PASS, "valid")]
    assert ok[1][2] == "record.json is valid against serving-performance-v1.schema.json"

    def two_versions(r):
        r["schema_version"] = 2
        r["performance"]["version"] = "serving-cell-v2"
    (found,) = _schema_findings(_report(tmp_path / "versions", two_versions))
    assert found[:2] == (Status.UNVERIFIED, "unknown-producer-version") and found[3] == "/schema_version"  # the first that differs

    (root,) = [f for f in _schema_findings(_report(tmp_path / "root", lambda r: r.pop("run_id"))) if f[1] == "schema-violation"]
    assert root[2] == "record.json: 'run_id' is a required property" and root[3] == ""  # worded as a bundle document's (issue 36)
