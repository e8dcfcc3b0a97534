"""Serving-load telemetry receipt reader: fixture from tests/fixtures/make_telemetry.py (the review's contract)."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from verifier.core import verify_path

FIX = ROOT / "tests" / "fixtures" / "telemetry" / "good"
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
import make_telemetry  # noqa: E402


def _by(report, check, status=None):
    return [f for f in report.findings if f.check == check and (status is None or f.status == status)]


def _rows(report, *where):
    """The derivation.claims findings at a pointer or, for those that name none, a carrier in `where`."""
    return [f for f in report.findings if f.check == "derivation.claims" and (f.pointer in where or f.pointer is None and f.path in where)]


ENGINE = ("/facts/engine_generation_tokens_delta", "metrics-before.prom", "metrics-after.prom")
SURPLUS = "/facts/engine_surplus_tokens"


def _fails(report):
    return {(f.check, f.code) for f in report.findings if f.status == "FAIL"}


@pytest.fixture
def receipt_dir(tmp_path: Path) -> Path:
    dest = tmp_path / "telemetry"
    shutil.copytree(FIX, dest)
    return dest


def _edit(d: Path, change) -> None:
    doc = json.loads((d / "telemetry-receipt.json").read_text())
    change(doc)
    (d / "telemetry-receipt.json").write_text(json.dumps(doc, indent=2))


def _replace_carrier(d: Path, name: str, filename: str, text: str) -> None:
    """Rewrite a carrier and re-pin its sha256, so only the intended rule is exercised."""
    (d / filename).write_text(text)
    digest = hashlib.sha256((d / filename).read_bytes()).hexdigest()
    _edit(d, lambda r: r["evidence"][name].__setitem__("sha256", digest))


def test_good_receipt_replays_every_fact_and_keeps_standings_unverified():
    report = verify_path(str(FIX))
    assert report.kind == "serving-load-telemetry"
    assert "gunbc.spark.serving_load_probe" in next(f for f in _by(report, "schema.documents") if f.code == "producer-identified").message
    assert not _fails(report)
    replayed = {f.pointer for f in _by(report, "derivation.claims", "PASS")}
    assert {"/facts/successful_requests", "/facts/failed_requests", "/facts/output_tokens", "/facts/benchmark_duration_s",
            "/facts/latency_ms/p99_itl"} <= replayed
    assert [f.status for f in _rows(report, *ENGINE)] == ["PASS"]
    (surplus,) = _rows(report, SURPLUS)
    assert surplus.status == "PASS" and "not observed foreign traffic" in surplus.message
    # what the seed's live receipt honestly cannot establish: telemetry, not qualification
    assert {f.code for f in report.findings if f.status == "UNVERIFIED" and f.code != "not-in-evidence"} == {  # roster stand-ins aside
        "arrival-unread", "isolation-not-established", "implementation-unbound", "boundary-only"}
    assert report.verdict == "INCOMPLETE"


def test_a_receipt_without_the_optional_stderr_carrier_is_read(receipt_dir):
    # stderr is optional in the schema (found by tools/fuzz.py: KeyError 'stderr' became ERROR in two checks)
    def drop(doc):
        doc["evidence"].pop("stderr", None)

    _edit(receipt_dir, drop)
    (receipt_dir / "bench.stderr").unlink(missing_ok=True)
    report = verify_path(str(receipt_dir))
    assert not [f for f in report.findings if f.status == "ERROR"], [f.message for f in report.findings if f.status == "ERROR"]
    assert [f.status for f in _rows(report, *ENGINE)] == ["PASS"] and not _fails(report)


@pytest.mark.parametrize("inside", [True, False])
def test_a_symlinked_carrier_fails_as_a_symlink_never_followed_not_as_missing(receipt_dir, tmp_path, inside):
    """A carrier that is a link is named a link (as `integrity.files` names one in a bundle), not "not retained"."""
    carrier = receipt_dir / "metrics-after.prom"
    real = (receipt_dir / "kept.prom") if inside else (tmp_path / "elsewhere.prom")
    real.write_bytes(carrier.read_bytes())
    carrier.unlink()
    carrier.symlink_to(real)
    report = verify_path(str(receipt_dir))
    (row,) = [f for f in report.findings if f.check == "telemetry.carriers" and f.status == "FAIL"]
    assert row.code == ("symlink" if inside else "symlink-escape") and row.path == "metrics-after.prom"
    assert row.message == (f"metrics-after.prom is a symlink to {str(real)!r} ({'inside' if inside else 'outside'} the receipt directory); "
                           "symlinks are never followed, so facts cannot replay from it")


def test_a_missing_carrier_fails(receipt_dir):
    (receipt_dir / "metrics-after.prom").unlink()
    report = verify_path(str(receipt_dir))
    assert ("telemetry.carriers", "carrier-missing") in _fails(report)
    blocked, *stated = _by(report, "derivation.claims", "UNVERIFIED")  # client facts and engine delta: one finding each
    assert blocked.code == "blocked-by" and blocked.message == "the client facts are not replayed: telemetry.carriers did not pass"
    assert blocked.observed == ["telemetry.carriers"] and blocked.path is None and blocked.pointer is None
    # the surplus and the rate the receipt states, each its own row naming what did not replay (trial 69: they were dropped)
    assert [(f.code, f.pointer, f.observed) for f in stated] == [("not-replayed", SURPLUS, "0"), ("not-replayed", "/facts/rate/output_tokens_per_s", "30.06")]
    assert all("telemetry.carriers did not pass" in f.message for f in stated)


def test_a_carrier_edited_after_the_receipt_fails(receipt_dir):
    (receipt_dir / "bench.stdout").write_text(make_telemetry.bench_stdout(tokens=600))
    report = verify_path(str(receipt_dir))
    assert ("telemetry.carriers", "sha256-mismatch") in _fails(report)


def test_a_fact_that_does_not_replay_from_stdout_fails(receipt_dir):
    _edit(receipt_dir, lambda r: r["facts"].__setitem__("benchmark_duration_s", 15.0))
    report = verify_path(str(receipt_dir))
    assert [f.pointer for f in _by(report, "derivation.claims", "FAIL")] == ["/facts/benchmark_duration_s"]


def test_failed_requests_stay_in_the_denominator(receipt_dir):
    # stdout reports 3 successful and 0 failed of 4 offered: one request has no disposition
    _replace_carrier(receipt_dir, "stdout", "bench.stdout", make_telemetry.bench_stdout(successful=3, tokens=384))
    _edit(receipt_dir, lambda r: r["facts"].update(successful_requests=3, output_tokens=384, engine_surplus_tokens=128))
    report = verify_path(str(receipt_dir))
    assert ("derivation.claims", "denominator-mismatch") in _fails(report)


@pytest.mark.parametrize("execution", [{"outcome": "exited", "exit_code": 1}, {"outcome": "unreachable", "cause": "ssh: timed out"}])
def test_failed_or_unreachable_process_with_a_perfect_summary_yields_no_facts(receipt_dir, execution, run):
    _edit(receipt_dir, lambda r: r.__setitem__("execution", execution))
    report = verify_path(str(receipt_dir))
    bad = _by(report, "telemetry.process", "FAIL")
    assert bad and all(f.code == "facts-from-failed-process" for f in bad)
    assert {f.pointer for f in bad} >= {"/facts/successful_requests", "/facts/output_tokens"}
    blocked = _by(report, "derivation.claims")[0]
    assert blocked.code == "blocked-by" and blocked.observed == ["telemetry.process"]
    assert [f.status for f in _rows(report, *ENGINE)] == ["PASS"]  # the scrapes replay whatever the process did
    assert report.verdict == "FAIL"
    result = run(str(receipt_dir))
    assert result.exit_code == 1 and "Traceback" not in result.output


def test_failed_process_stating_no_facts_is_unverified(receipt_dir):
    def change(r):
        r["execution"] = {"outcome": "exited", "exit_code": 1}
        r["facts"] = {"engine_generation_tokens_delta": None}
    _edit(receipt_dir, change)
    report = verify_path(str(receipt_dir))
    assert _by(report, "telemetry.process")[0].code == "no-facts"
    assert not [f for f in report.findings if f.status == "FAIL"]
    assert report.verdict == "INCOMPLETE"


def test_truncated_stdout_yields_no_facts_even_with_a_summary_in_stderr(receipt_dir):
    full = make_telemetry.bench_stdout()
    _replace_carrier(receipt_dir, "stdout", "bench.stdout", full[: len(full) // 2])
    _replace_carrier(receipt_dir, "stderr", "bench.stderr", full)  # stderr is diagnostics, never parsed
    report = verify_path(str(receipt_dir))
    bad = _by(report, "derivation.claims")[0]
    assert bad.status == "FAIL" and bad.code == "stdout-truncated" and bad.path == "bench.stdout" and bad.pointer is None
    # the surplus and the rate are stated over client facts that did not replay: each UNVERIFIED naming the truncation (trial 69: dropped)
    assert [(f.code, f.status) for f in _rows(report, SURPLUS, "/facts/rate/output_tokens_per_s")] == [("not-replayed", "UNVERIFIED")] * 2
    assert all("never closes" in f.message for f in _rows(report, SURPLUS, "/facts/rate/output_tokens_per_s"))


def test_untyped_generation_family_yields_no_delta(receipt_dir):
    _replace_carrier(receipt_dir, "metrics_after", "metrics-after.prom", make_telemetry.scrape(1512.0, engine_type="untyped"))
    report = verify_path(str(receipt_dir))
    (eng,) = _rows(report, *ENGINE)
    assert eng.status == "UNVERIFIED" and eng.code == "untyped-family" and eng.path == "metrics-after.prom"
    assert report.verdict == "INCOMPLETE"


def test_counter_reset_is_not_a_negative_delta(receipt_dir):
    _replace_carrier(receipt_dir, "metrics_after", "metrics-after.prom", make_telemetry.scrape(300.0))
    _edit(receipt_dir, lambda r: r["facts"].__setitem__("engine_generation_tokens_delta", -700))
    report = verify_path(str(receipt_dir))
    (eng,) = _rows(report, *ENGINE)
    assert eng.status == "FAIL" and eng.code == "reset-as-delta" and "not a negative delta" in eng.message


def test_counter_reset_without_a_stated_delta_is_unverified(receipt_dir):
    _replace_carrier(receipt_dir, "metrics_after", "metrics-after.prom", make_telemetry.scrape(300.0))
    _edit(receipt_dir, lambda r: r["facts"].update(engine_generation_tokens_delta=None, engine_surplus_tokens=None))
    report = verify_path(str(receipt_dir))
    assert [f.code for f in _rows(report, *ENGINE)] == ["counter-reset"]
    assert report.verdict == "INCOMPLETE"


def test_non_whole_token_delta_is_refused(receipt_dir):
    _replace_carrier(receipt_dir, "metrics_after", "metrics-after.prom", make_telemetry.scrape(1512.0005))
    report = verify_path(str(receipt_dir))
    assert [f.code for f in _rows(report, *ENGINE)] == ["not-whole-tokens"]


def test_unparseable_scrape_fails_naming_the_file(receipt_dir):
    _replace_carrier(receipt_dir, "metrics_before", "metrics-before.prom", "vllm:generation_tokens_total{ 12 {\n")
    report = verify_path(str(receipt_dir))
    (eng,) = _rows(report, *ENGINE)
    assert eng.status == "FAIL" and eng.code == "scrape-unparseable" and "metrics-before.prom" in eng.message


def test_client_tokens_above_engine_delta_are_a_contradiction_not_zero_foreign_work(receipt_dir):
    _replace_carrier(receipt_dir, "metrics_after", "metrics-after.prom", make_telemetry.scrape(1100.0))
    _edit(receipt_dir, lambda r: r["facts"].update(engine_generation_tokens_delta=100, engine_surplus_tokens=0))
    report = verify_path(str(receipt_dir))
    (bad,) = _rows(report, SURPLUS)
    assert bad.status == "FAIL" and bad.code == "client-exceeds-engine" and "not zero foreign work" in bad.message


def test_wrong_surplus_fails(receipt_dir):
    _replace_carrier(receipt_dir, "metrics_after", "metrics-after.prom", make_telemetry.scrape(1712.0))
    _edit(receipt_dir, lambda r: r["facts"].update(engine_generation_tokens_delta=712))
    report = verify_path(str(receipt_dir))
    assert [f.pointer for f in _by(report, "derivation.claims", "FAIL")] == [SURPLUS]


def test_send_all_declaration_is_not_an_observed_zero_stagger(receipt_dir):
    _edit(receipt_dir, lambda r: r["standings"]["arrival"].__setitem__("observed_max_stagger_ms", 0))
    report = verify_path(str(receipt_dir))
    assert ("gate.rules", "declaration-as-observation") in _fails(report)


def test_missing_lease_is_not_contention_observed(receipt_dir):
    _edit(receipt_dir, lambda r: r["standings"]["window"].__setitem__("standing", "foreign-traffic-observed"))
    report = verify_path(str(receipt_dir))
    assert ("gate.rules", "contention-without-receipt") in _fails(report)


def test_isolated_without_lease_fails(receipt_dir):
    _edit(receipt_dir, lambda r: r["standings"]["window"].__setitem__("standing", "isolated"))
    report = verify_path(str(receipt_dir))
    assert ("gate.rules", "isolation-without-lease") in _fails(report)


def test_unknown_producer_is_unverified_not_fail(receipt_dir):
    _edit(receipt_dir, lambda r: r.__setitem__("receipt_version", 2))
    report = verify_path(str(receipt_dir))
    assert _by(report, "schema.documents")[-1].code == "unknown-producer-version"  # after the receipt read; stand-ins come first
    assert report.verdict == "INCOMPLETE" and not _fails(report)


def test_receipt_with_duplicate_key_fails_without_traceback(receipt_dir, run):
    (receipt_dir / "telemetry-receipt.json").write_text('{"producer": 1, "producer": 2}')
    report = verify_path(str(receipt_dir))
    assert _fails(report) == {("schema.documents", "duplicate-key")}
    assert "Traceback" not in run(str(receipt_dir)).output


def test_carrier_path_may_not_escape(receipt_dir):
    _edit(receipt_dir, lambda r: r["evidence"]["stderr"].__setitem__("path", "../elsewhere.txt"))
    report = verify_path(str(receipt_dir))
    assert ("telemetry.carriers", "unsafe-path") in _fails(report)


def test_schema_violation_names_file_and_pointer(receipt_dir):
    _edit(receipt_dir, lambda r: r["execution"].__setitem__("exit_code", "0"))
    report = verify_path(str(receipt_dir))
    bad = _by(report, "schema.documents", "FAIL")
    assert bad and bad[0].path == "telemetry-receipt.json" and "/execution" in bad[0].message


# ---- the schema family (schema.documents): reading, producer version, schema, in the words telemetry.read/producer/schema had ----

READ = ("PASS", "read", "telemetry-receipt.json read", None)


def _schema_family(report) -> list[tuple]:
    return [(f.status, f.code, f.message, f.pointer) for f in report.findings if f.check == "schema.documents"]


def test_the_schema_family_reads_the_receipt_names_its_producer_and_validates_it():
    assert _schema_family(verify_path(str(FIX))) == [
        READ, ("PASS", "producer-identified", "telemetry-receipt.json: producer gunbc.spark.serving_load_probe (telemetry capture around vllm bench "
               "serve); version: receipt_version 1 (raw stdout, stderr and both scrapes retained with sha256)", None),
        ("PASS", "valid", "telemetry-receipt.json is valid against serving-load-telemetry-v1.schema.json", None)]


def test_an_unknown_receipt_version_is_unverified_in_the_schema_family_and_blocks_the_rest(receipt_dir):
    _edit(receipt_dir, lambda r: r.__setitem__("receipt_version", 2))
    report = verify_path(str(receipt_dir))
    assert _schema_family(report) == [READ, (
        "UNVERIFIED", "unknown-producer-version", "telemetry-receipt.json: producer/receipt_version {'producer': 'gunbc.spark.serving_load_probe', "
        "'receipt_version': 2} is not a known telemetry receipt ({'producer': 'gunbc.spark.serving_load_probe', 'receipt_version': 1}); "
        "nothing re-derived", "/receipt_version")]
    assert [(f.code, f.observed) for f in _by(report, "telemetry.carriers")] == [("blocked-by", ["schema.documents"])]


def test_a_schema_violation_is_the_schema_familys_fail_at_its_pointer(receipt_dir):
    _edit(receipt_dir, lambda r: r["execution"].__setitem__("exit_code", "0"))
    family = _schema_family(verify_path(str(receipt_dir)))
    assert family[:2] == [READ, ("PASS", "producer-identified", family[1][2], None)]
    assert family[2:] and all(x[:2] == ("FAIL", "schema-violation") and x[2].startswith("telemetry-receipt.json at /execution") for x in family[2:])


def test_a_schema_pointer_escapes_a_key_with_a_slash(receipt_dir):
    # a JSON Pointer (RFC 6901) as for a bundle's documents: "/" in a key is "~1" (issue 36: one schema family for every reader)
    _edit(receipt_dir, lambda r: r["facts"]["latency_ms"].__setitem__("p99/x", -1))
    bad = _by(verify_path(str(receipt_dir)), "schema.documents", "FAIL")
    assert [(f.message, f.pointer) for f in bad] == [
        ("telemetry-receipt.json at /facts/latency_ms/p99~1x: -1 is less than the minimum of 0", "/facts/latency_ms/p99~1x")]


def test_a_stdout_with_two_result_blocks_that_differ_replays_no_fact(receipt_dir):
    """Which of two different printed results is the run's cannot be told (hostile trial helper-69, #5: the claims PASSed against the
    first, the second ignored): UNVERIFIED stdout-ambiguous naming both lines, and no client fact replays. The same block printed
    twice is no ambiguity."""
    good = make_telemetry.bench_stdout()
    once = [(f.check, f.status, f.code, f.path, f.pointer) for f in verify_path(str(receipt_dir)).findings]
    _replace_carrier(receipt_dir, "stdout", "bench.stdout", good + make_telemetry.bench_stdout(successful=2, failed=2, duration=99.99))
    report = verify_path(str(receipt_dir))
    (amb,) = [f for f in _by(report, "derivation.claims") if f.code == "stdout-ambiguous"]
    assert amb.status == "UNVERIFIED" and amb.path == "bench.stdout" and "2 result blocks" in amb.message
    assert not [f for f in _by(report, "derivation.claims") if f.code == "derived" and f.path == "telemetry-receipt.json"
                and (f.pointer or "").startswith("/facts/latency_ms")]
    assert report.verdict == "INCOMPLETE"
    _replace_carrier(receipt_dir, "stdout", "bench.stdout", good + good)
    twice = verify_path(str(receipt_dir))
    assert [(f.check, f.status, f.code, f.path, f.pointer) for f in twice.findings] == once


def test_a_counter_reset_names_its_labels_in_one_order_whatever_the_hash_seed(receipt_dir):
    """The reset message listed each series' labels in a frozenset's order, so the same receipt gave other report bytes
    from run to run (helper-91's capture); the labels are now named sorted."""
    import subprocess

    _replace_carrier(receipt_dir, "metrics_after", "metrics-after.prom", make_telemetry.scrape(300.0))
    _edit(receipt_dir, lambda r: r["facts"].__setitem__("engine_generation_tokens_delta", -700))
    code = ("import sys; from verifier.core import verify_path; r = verify_path(sys.argv[1]); "
            "print([f.message for f in r.findings if f.code == 'reset-as-delta'])")
    seen = {subprocess.run([sys.executable, "-c", code, str(receipt_dir)], capture_output=True, text=True, cwd=ROOT,
                           env={**__import__("os").environ, "PYTHONHASHSEED": str(seed)}, check=True).stdout for seed in range(6)}
    assert len(seen) == 1, seen
    assert "[{'engine': '0', 'model_name': " in next(iter(seen))  # sorted by label name
