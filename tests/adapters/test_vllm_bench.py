"""`vllm bench serve --save-result` reader: real Ascend results (read in place) and generated fixtures."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import ROOT, SHARED

from verifier.checks.packs.vllm import bucket_peak, exact_peak
from verifier.core import verify_path
from verifier.errors import UsageError

CORPUS = SHARED / "corpus" / "vllm-save-result-ascend"
FIX = ROOT / "tests" / "fixtures" / "vllm"
ABCD = FIX / "abcd-bucket-peak.json"
H01 = FIX / "h01-half-failed.json"


def _by(report, check, status=None):
    return [f for f in report.findings if f.check == check and (status is None or f.status == status)]


#: Pointers of the aggregate identities among `derivation.claims` (the rest are the latency statistics)
AGGREGATES = {"/request_throughput", "/output_throughput", "/total_token_throughput", "/failed", "/completed"}


def _aggregates(report):
    return [f for f in _by(report, "derivation.claims") if f.pointer in AGGREGATES]


def _latencies(report):
    return [f for f in _by(report, "derivation.claims") if f.pointer not in AGGREGATES and f.code not in UNSUPPORTED]


def _write(tmp_path: Path, doc: dict, name: str = "result.json") -> Path:
    out = tmp_path / name
    out.write_text(json.dumps(doc))
    return out


def _load(path: Path) -> dict:
    return json.loads(path.read_text())


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.json")), ids=lambda p: p.name[-20:])
def test_real_ascend_results_aggregates_pass_percentiles_unverified(path):
    report = verify_path(str(path))
    assert report.kind == "vllm-bench-serve"
    producer = _by(report, "schema.documents")[0]
    assert producer.status == "PASS" and "benchmark_serving.py" in producer.message and "request_goodput:" in producer.message
    agg = _aggregates(report)
    assert len(agg) == 4 and all(f.status == "PASS" for f in agg)
    lat = _latencies(report)
    assert lat and all(f.status == "UNVERIFIED" and f.code == "no-per-request-arrays" for f in lat)
    assert {f.pointer for f in lat} >= {"/p99_ttft_ms", "/p99_tpot_ms", "/p99_itl_ms"}
    # the stray key is handled by profile data: null means nothing claimed
    stray = [f for f in report.findings if f.pointer == "/request_goodput:"]
    assert len(stray) == 1 and stray[0].code == "not-claimed"
    assert any(f.code == "not-a-producer-field" and f.pointer == "/accuracy_rate" for f in report.findings)
    assert report.verdict == "INCOMPLETE" and int(report.exit_code) == 3


def test_real_result_with_wrong_throughput_fails(tmp_path):
    doc = _load(sorted(CORPUS.glob("*.json"))[1])
    doc["request_throughput"] = 0.2790
    report = verify_path(str(_write(tmp_path, doc)))
    assert report.verdict == "FAIL"
    assert [f.pointer for f in _by(report, "derivation.claims", "FAIL")] == ["/request_throughput"]


@pytest.mark.parametrize("key", ["output_throughput", "total_token_throughput"])
def test_token_throughput_identities_fail_when_off(tmp_path, key):
    doc = _load(sorted(CORPUS.glob("*.json"))[0])
    doc[key] = doc[key] * 1.01
    report = verify_path(str(_write(tmp_path, doc)))
    assert [f.pointer for f in _by(report, "derivation.claims", "FAIL")] == [f"/{key}"]


def test_stray_goodput_key_with_a_value_is_unverified_not_pass(tmp_path):
    doc = _load(sorted(CORPUS.glob("*.json"))[0])
    doc["request_goodput:"] = 0.1
    report = verify_path(str(_write(tmp_path, doc)))
    stray = [f for f in report.findings if f.pointer == "/request_goodput:"]
    assert stray[0].status == "UNVERIFIED" and stray[0].code == "not-derivable" and "SLO" in stray[0].message


def test_completed_plus_failed_must_equal_num_prompts(tmp_path):
    doc = _load(ABCD)
    doc["failed"] = 1
    report = verify_path(str(_write(tmp_path, doc)))
    assert any(f.code == "count-mismatch" and f.pointer == "/failed" for f in _by(report, "derivation.claims", "FAIL"))


def test_legacy_result_with_missing_requests_is_unverified_disposition(tmp_path):
    doc = _load(sorted(CORPUS.glob("*.json"))[1])
    doc["completed"] = 7
    doc["request_throughput"] = 7 / doc["duration"]
    report = verify_path(str(_write(tmp_path, doc)))
    assert any(f.code == "disposition-unknown" for f in report.findings)


def test_detailed_result_rederives_every_statistic_and_the_bucket_peak():
    report = verify_path(str(ABCD))
    lat = _latencies(report)
    assert len(lat) == 20 and all(f.status == "PASS" for f in lat)
    assert {f.pointer for f in lat} >= {"/p99_ttft_ms", "/std_tpot_ms", "/median_itl_ms", "/p50_e2el_ms"}
    assert report.verdict == "INCOMPLETE"  # max_output_tokens_per_s stays UNVERIFIED


def test_abcd_bucket_peak_is_4_exact_peak_is_2_and_never_engine_concurrency():
    iv = [(Decimal("0.05"), Decimal("0.80"))] * 2 + [(Decimal("0.81"), Decimal("1.40"))] * 2
    assert exact_peak(iv) == 2
    assert bucket_peak(iv) == 4
    report = verify_path(str(ABCD))
    (peak,) = [f for f in _by(report, "vllm.peak") if f.pointer == "/max_concurrent_requests"]
    assert peak.status == "PASS" and peak.expected == 4
    assert peak.observed["exact_client_peak"] == 2 and peak.observed["bucket_peak"] == 4
    assert peak.observed["engine_observation"] is False and peak.observed["foreign_traffic_evidence"] is False
    assert peak.observed["scope"] == "client-own-successful-requests"
    assert "not engine concurrency" in peak.message and "not evidence of foreign traffic" in peak.message
    text = " ".join(f.message for f in report.findings).lower()
    assert "engine peak" not in text and "shared window" not in text and "foreign_in_flight" not in text


def test_peak_claimed_as_exact_overlap_fails_under_bucket_definition(tmp_path):
    doc = _load(ABCD)
    doc["max_concurrent_requests"] = 2
    report = verify_path(str(_write(tmp_path, doc)))
    (peak,) = [f for f in _by(report, "vllm.peak") if f.pointer == "/max_concurrent_requests"]
    assert peak.status == "FAIL" and peak.expected == 4
    assert peak.message == ("max_concurrent_requests = 2, but the whole-second bucket peak (inclusive int buckets) of 4/4 successful "
                            "client requests (exact client peak 2) gives 4")  # a trial read "...requests; exact client peak 2 gives 4"
    from verifier.report._common import claim_rows

    (row,) = [r for r in claim_rows(report) if r.finding is peak]  # a stated number that FAILs is a row of the claims table
    assert (row.status, row.claimed, row.derived) == ("FAIL", "2", "4")


def test_h01_failed_requests_stay_in_the_denominator():
    report = verify_path(str(H01))
    assert report.verdict == "INCOMPLETE"
    completed = [f for f in _by(report, "vllm.requests") if f.pointer == "/completed"][0]
    assert completed.status == "PASS" and "5/10" in completed.message
    mean = [f for f in _by(report, "derivation.claims") if f.pointer == "/mean_e2el_ms"][0]
    assert mean.status == "PASS" and "5/10 successful" in mean.derivation


def test_h01_dropping_failed_requests_from_the_arrays_fails(tmp_path):
    doc = _load(H01)
    for key in ("input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "generated_texts", "errors"):
        doc[key] = doc[key][:5]
    report = verify_path(str(_write(tmp_path, doc)))
    assert any(f.code == "denominator-dropped" for f in report.findings)
    assert report.verdict == "FAIL"


def test_h01_calling_failures_successes_fails(tmp_path):
    doc = _load(H01)
    doc["completed"], doc["failed"] = 10, 0
    doc["request_throughput"] = 10 / doc["duration"]
    report = verify_path(str(_write(tmp_path, doc)))
    assert any(f.code == "count-mismatch" and f.pointer == "/completed" for f in _by(report, "vllm.requests", "FAIL"))


def test_h03_ttft_zero_on_successful_request_is_not_measured(tmp_path):
    doc = _load(ABCD)
    doc["ttfts"][2] = 0.0
    report = verify_path(str(_write(tmp_path, doc)))
    bad = [f for f in report.findings if f.code == "ttft-not-measured"]
    assert len(bad) == 1 and bad[0].status == "FAIL" and bad[0].pointer == "/ttfts/2"
    for key in ("/mean_ttft_ms", "/median_ttft_ms", "/mean_tpot_ms"):
        f = [x for x in _by(report, "derivation.claims") if x.pointer == key][0]
        assert f.status == "UNVERIFIED" and f.code == "unmeasured-ttft"
    itl = [x for x in _by(report, "derivation.claims") if x.pointer == "/mean_itl_ms"][0]
    assert itl.status == "PASS"
    assert report.verdict == "FAIL"


def test_wrong_percentile_definition_fails(tmp_path):
    doc = _load(ABCD)
    doc["p50_itl_ms"] = 220.0  # nearest-rank p50 of the 10 ITLs; numpy linear gives 230.0
    doc["median_ttft_ms"] = 110.0000001
    report = verify_path(str(_write(tmp_path, doc)))
    assert {f.pointer for f in _by(report, "derivation.claims", "FAIL")} == {"/p50_itl_ms", "/median_ttft_ms"}


def test_sample_std_instead_of_population_std_fails(tmp_path):
    doc = _load(ABCD)
    import numpy as np
    doc["std_ttft_ms"] = float(np.std([0.10, 0.12, 0.09, 0.11], ddof=1) * 1000)
    report = verify_path(str(_write(tmp_path, doc)))
    assert [f.pointer for f in _by(report, "derivation.claims", "FAIL")] == ["/std_ttft_ms"]


def test_token_total_that_counts_failed_output_fails(tmp_path):
    doc = _load(H01)
    doc["total_output_tokens"] += 1
    doc["output_throughput"] = doc["total_output_tokens"] / doc["duration"]
    doc["total_token_throughput"] = (doc["total_input_tokens"] + doc["total_output_tokens"]) / doc["duration"]
    report = verify_path(str(_write(tmp_path, doc)))
    assert [f.pointer for f in _by(report, "vllm.requests", "FAIL")] == ["/total_output_tokens"]


def test_unknown_version_of_the_family_is_unverified_not_fail(tmp_path):
    doc = _load(ABCD)
    doc["rtfx"] = 0.0  # a newer vllm bench serve (exact sweep-line peak): no profile pinned here
    report = verify_path(str(_write(tmp_path, doc)))
    assert report.kind == "vllm-bench-serve"
    assert report.verdict == "INCOMPLETE"
    producer = _by(report, "schema.documents")[0]  # not findings[0]: the roster's integrity and gate stand-ins come first (issue 10)
    assert producer.code == "unknown-producer-version" and "result.json" in producer.message
    assert not any(f.status == "FAIL" for f in report.findings)



def test_a_version_missing_a_key_its_signature_requires_is_unknown(tmp_path):
    doc = _load(ABCD)
    del doc["failed"]  # bucket-peak requires it; goodput-colon forbids max_concurrent_requests: no version matches
    (producer,) = _by(verify_path(str(_write(tmp_path, doc))), "schema.documents")
    assert producer.code == "unknown-producer-version"


def test_keys_that_match_several_signatures_name_no_version():
    from verifier.checks.schema import _by_signature

    class Assets:
        def schema(self, name):
            return {"x-verify-profile": {"producer": name, "signature": {"keys_present": ["a"], "keys_absent": ["z"]}}}

    assert _by_signature(Assets(), ("one", "two"), {"a"}) is None
    assert _by_signature(Assets(), ("one",), {"a"})[0] == "one" and _by_signature(Assets(), ("one",), {"a", "z"}) is None

def test_schema_violation_names_file_and_field(tmp_path):
    doc = _load(ABCD)
    doc["completed"] = "four"
    report = verify_path(str(_write(tmp_path, doc)))
    bad = _by(report, "schema.documents", "FAIL")
    assert bad and bad[0].pointer == "/completed" and "result.json" in bad[0].message


def test_unrelated_json_is_a_usage_error(tmp_path, run):
    path = _write(tmp_path, {"hello": "world", "duration": 3})
    with pytest.raises(UsageError):
        verify_path(str(path))
    result = run(str(path))
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_cli_on_real_result_exits_3(run):
    result = run(str(sorted(CORPUS.glob("*.json"))[0]))
    assert result.exit_code == 3 and "vllm-bench-serve" in result.stdout


def test_text_report_names_producer_and_version_without_verbose(run):
    result = run(str(ABCD))
    header = result.stdout.splitlines()[:2]
    assert any(line.startswith("producer: vLLM vllm bench serve --save-result") and "version:" in line for line in header)
    report = verify_path(str(ABCD))
    assert report.to_json()["producer"]["producer"].startswith("vLLM vllm bench serve")


def test_h05_exact_client_peak_above_declared_max_concurrency_fails(tmp_path):
    doc = _load(ABCD)
    doc["max_concurrency"] = 1  # A and B overlap: the client ran 2 at once against a declared cap of 1
    report = verify_path(str(_write(tmp_path, doc)))
    bad = [f for f in report.findings if f.code == "cap-exceeded"]
    assert len(bad) == 1 and bad[0].status == "FAIL" and bad[0].pointer == "/max_concurrency"
    assert bad[0].expected == 1 and bad[0].observed["exact_client_peak"] == 2
    ok = [f for f in verify_path(str(ABCD)).findings if f.pointer == "/max_concurrency"]
    assert len(ok) == 1 and ok[0].status == "PASS"


def test_h05_max_concurrency_zero_is_refused(tmp_path):
    doc = _load(ABCD)
    doc["max_concurrency"] = 0  # not a valid cap; must not silently mean "unlimited"
    report = verify_path(str(_write(tmp_path, doc)))
    assert any(f.check == "schema.documents" and f.pointer == "/max_concurrency" for f in report.findings)
    assert report.verdict == "FAIL"


def test_h03_ttft_above_latency_fails(tmp_path):
    doc = _load(ABCD)
    doc["ttfts"][0] = 0.9  # request 0 lasted 0.75 s
    report = verify_path(str(_write(tmp_path, doc)))
    assert [f.pointer for f in report.findings if f.code == "ttft-not-measured"] == ["/ttfts/0"]


def test_no_reader_code_special_cases_the_stray_goodput_spelling():
    for path in (ROOT / "verifier").rglob("*.py"):
        assert "request_goodput:" not in path.read_text(), path


def test_std_tolerates_numpy_rounding_but_not_a_wrong_value(tmp_path):
    import json

    from verifier.core import verify_path as _verify

    source = Path(__file__).parent.parent / "fixtures" / "vllm" / "abcd-bucket-peak.json"
    doc = json.loads(source.read_text())
    doc["std_e2el_ms"] = 80.000000000001  # 1e-12 off: within n * eps * max|x| * 4, beyond half a unit of the stated place
    noisy = tmp_path / "noisy.json"
    noisy.write_text(json.dumps(doc))
    assert not any(f.status == "FAIL" and "std_e2el_ms" in f.message for f in _verify(str(noisy)).findings)
    doc["std_e2el_ms"] = 80.01
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps(doc))
    assert any(f.status == "FAIL" and "std_e2el_ms" in f.message for f in _verify(str(wrong)).findings)


def test_the_ascend_folder_reads_every_result_through_the_serving_reader(tmp_path):
    import shutil

    from verifier.core import verify_path as _verify

    folder = Path(__file__).resolve().parent.parent.parent.parent / "shared" / "corpus" / "vllm-save-result-ascend"
    report = _verify(str(folder))
    assert report.kind == "receipt-folder:vllm-bench-serve"
    assert report.verdict == "INCOMPLETE" and int(report.exit_code) == 3
    aggregates = _aggregates(report)
    assert len(aggregates) == 12 and all(f.status == "PASS" for f in aggregates)
    skipped = {f.path for f in report.findings if f.code == "not-a-receipt"}
    assert skipped == {"SOURCE.md", *(p.name for p in folder.glob("*.csv"))}
    copy = tmp_path / "ascend"
    shutil.copytree(folder, copy)
    one = next(copy.glob("*.json"))
    doc = json.loads(one.read_text())
    doc["request_throughput"] = doc["request_throughput"] * 2
    one.write_text(json.dumps(doc))
    assert _verify(str(copy)).verdict == "FAIL"


def test_a_result_written_before_goodput_is_recognised_but_nothing_in_it_is_rederived(tmp_path):
    # benchmarks/benchmark_serving.py --save-result up to vLLM 0.6.3 (issue 37's check): `input_throughput`, no
    # `request_goodput:` nor `total_token_throughput`. No version profile knows that field set (docs/profiles.md says so):
    # UNVERIFIED `unknown-producer-version`, never a PASS and never a FAIL
    doc = {k: v for k, v in _load(CORPUS / sorted(p.name for p in CORPUS.glob("*.json"))[0]).items()
           if k not in ("request_goodput:", "total_token_throughput")}
    doc["input_throughput"] = doc["total_input_tokens"] / doc["duration"]
    report = verify_path(str(_write(tmp_path, doc)))
    assert report.kind == "vllm-bench-serve"
    (producer,) = _by(report, "schema.documents")
    assert (producer.status, producer.code) == ("UNVERIFIED", "unknown-producer-version")
    assert not any(f.status in ("PASS", "FAIL") for f in report.findings if f.check.startswith("vllm.")) and report.verdict == "INCOMPLETE"


#: The check the aggregates and latency statistics report under (before issue 36: vllm.aggregates, vllm.latency)
CLAIM_IDS = {"derivation.claims"}


def _claim(report, pointer):
    """Return (status, code, message, expected, observed) of the one aggregate or latency finding at `pointer`."""
    (f,) = [f for f in report.findings if f.check in CLAIM_IDS and f.pointer == pointer]
    return f.status.value, f.code, f.message, f.expected, f.observed


def test_every_refusal_of_a_latency_statistic_keeps_its_code_and_words(tmp_path):
    doc = {k: v for k, v in _load(ABCD).items() if not k.endswith("_ms")}
    assert _claim(verify_path(str(_write(tmp_path, doc))), None) == (
        "UNVERIFIED", "no-findings", "result.json: no latency statistics claimed", None, None)
    doc = _load(ABCD)
    doc["ttfts"] = doc["ttfts"][:3]
    assert _claim(verify_path(str(_write(tmp_path, doc))), "/mean_e2el_ms") == (
        "UNVERIFIED", "blocked-by-ledger", "mean_e2el_ms: per-request arrays do not cover num_prompts", None, str(doc["mean_e2el_ms"]))
    doc = _load(ABCD)
    doc["output_lens"], doc["itls"] = [1] * 4, [[]] * 4
    report = verify_path(str(_write(tmp_path, doc)))
    assert _claim(report, "/mean_itl_ms") == ("UNVERIFIED", "empty-sample", "mean_itl_ms = 225.99999999999997: no measured sample "
                                               "(0 itls of 4/4 successful requests); the producer prints 0 for an empty sample", None,
                                               "225.99999999999997")  # a refused stated number is its finding's observed (trial 69)
    assert _claim(report, "/p99_tpot_ms")[:3] == ("UNVERIFIED", "empty-sample", "p99_tpot_ms = 249.70000000000002: no measured sample "
                                                   "((latency - ttft) / (output_len - 1) of the 0 successful requests with output_len > 1 "
                                                   "(4/4 successful)); the producer prints 0 for an empty sample")
    doc = _load(ABCD)
    doc["ttfts"][1] = 0.0
    assert _claim(verify_path(str(_write(tmp_path, doc))), "/std_tpot_ms") == (
        "UNVERIFIED", "unmeasured-ttft", "std_tpot_ms = 16.393596310755: not re-derived: its sample holds TTFT 0.0 'not measured' at "
        "requests [1], which the producer counted as data", None, "16.393596310755")
    doc = _load(sorted(CORPUS.glob("*.json"))[0])  # the goodput-colon version retains no latencies: E2EL and TPOT are not retained
    assert (doc["num_prompts"], doc["completed"]) == (1, 1)
    doc.update(input_lens=[doc["total_input_tokens"]], output_lens=[doc["total_output_tokens"]], ttfts=[0.5], itls=[[0.01]], errors=[""])
    report = verify_path(str(_write(tmp_path, doc)))
    assert _claim(report, "/p99_tpot_ms") == ("UNVERIFIED", "not-retained", f"p99_tpot_ms = {doc['p99_tpot_ms']}: not re-derived: the result "
                                              "does not retain per-request latencies", None, str(doc["p99_tpot_ms"]))
    assert _claim(report, "/p99_ttft_ms")[:2] == ("FAIL", "claim-mismatch")  # TTFT is retained: judged
    doc = _load(sorted(CORPUS.glob("*.json"))[0])
    assert _claim(verify_path(str(_write(tmp_path, doc))), "/p99_ttft_ms") == (
        "UNVERIFIED", "no-per-request-arrays", f"p99_ttft_ms = {doc['p99_ttft_ms']}: not re-derived: the result keeps aggregates only "
        "(no per-request ttfts/itls/latencies)", None, str(doc["p99_ttft_ms"]))
    doc = _load(ABCD)
    doc["errors"] = ["boom"] * 4
    doc["completed"], doc["failed"] = 0, 4
    report = verify_path(str(_write(tmp_path, doc)))
    why = "no successful request (0/4 requests succeeded (errors array)): nothing was measured, so a stated {0} is no measurement (the producer prints 0 for an empty sample)"
    for key in ("mean_ttft_ms", "request_throughput"):
        assert _claim(report, f"/{key}") == ("FAIL", "no-successful-request", f"{key} = {doc[key]}: " + why.format(key), None, str(doc[key]))


def test_the_count_identities_keep_their_codes_and_words(tmp_path):
    doc = _load(ABCD)
    report = verify_path(str(ABCD))
    assert _claim(report, "/failed") == ("PASS", "derived", "completed + failed = 4 + 0 = 4, num_prompts = 4", 4, 4)
    assert [f.derivation for f in report.findings if f.check in CLAIM_IDS and f.pointer == "/failed"] == [None]  # an identity of stated counts: no derivation text
    doc["failed"] = 1
    assert _claim(verify_path(str(_write(tmp_path, doc))), "/failed") == (
        "FAIL", "count-mismatch", "completed + failed = 4 + 1 = 5, num_prompts = 4", 4, 5)
    doc = _load(sorted(CORPUS.glob("*.json"))[0])  # no `failed`: completed against num_prompts, below it the dispositions are unknown
    assert _claim(verify_path(str(_write(tmp_path, doc))), "/completed") == ("PASS", "derived", "completed = num_prompts = 1: no request failed", 1, 1)
    doc["completed"] = 2
    assert _claim(verify_path(str(_write(tmp_path, doc))), "/completed") == ("FAIL", "count-mismatch", "completed = 2 exceeds num_prompts = 1", 1, 2)
    doc["completed"], doc["num_prompts"] = 1, 3
    assert _claim(verify_path(str(_write(tmp_path, doc))), "/completed") == (
        "UNVERIFIED", "disposition-unknown", "1/3 requests succeeded; this version records no failed count, so 2 requests have no recorded "
        "disposition (they stay in the denominator)", 3, 1)


def test_a_throughput_is_judged_at_its_stated_precision_a_latency_with_its_float_error(tmp_path):
    from verifier.engine import stats

    doc = _load(ABCD)
    doc["output_throughput"] = 10.5
    report = verify_path(str(_write(tmp_path, doc)))
    status, code, message, expected, observed = _claim(report, "/output_throughput")
    assert (status, code, expected) == ("FAIL", "claim-mismatch", "10.370370370370371138545953360768232484885434130980")
    assert message == ("output_throughput = 10.5, but total_output_tokens / duration = 14 / 1.3499999999999999 gives "
                       "10.370 (delta 0.130, tolerance 0.05: docs/tolerances.md)")  # the stated places plus two
    assert observed["tolerance"] == str(stats.tolerance(Decimal("10.5")))  # the stated precision alone: no float model of the quotient
    status, _, message, _, full = _claim(report, "/total_token_throughput")
    assert status == "PASS" and message == ("total_token_throughput = 57.777777777777786 re-derives (57.77777777777778206) "
                                            "from (total_input_tokens + total_output_tokens) / duration = (64 + 14) / 1.3499999999999999")
    assert full["tolerance"] == str(stats.tolerance(Decimal(full["claimed"]))) and "claim" not in full
    mean = _claim(report, "/mean_e2el_ms")[4]
    latencies = [Decimal(str(x)) for x in doc["latencies"]]
    assert mean["tolerance"] == str(stats.tolerance(Decimal(mean["claimed"]), statistic="mean", values=latencies, scale=1000))
    tpot = _claim(report, "/mean_tpot_ms")[4]
    rows = [(lat, Decimal(str(ttft)), n) for lat, ttft, n in zip(latencies, doc["ttfts"], doc["output_lens"], strict=True) if n > 1]
    values = [stats.CONTEXT.divide(lat - ttft, n - 1) for lat, ttft, n in rows]  # vLLM's TPOT, and each one's own float error
    error = max(stats.EPS * (abs(lat) + abs(ttft)) / (n - 1) for lat, ttft, n in rows)
    assert error > 0 and tpot["tolerance"] == str(stats.tolerance(Decimal(tpot["claimed"]), statistic="mean", values=values, scale=1000, input_error=error))


def test_the_ascend_corpus_reports_every_stated_number_in_its_claims_table(run):
    """Issue 36 item 3: the vLLM reader's numbers are `derivation.claims`, so the claims table lists them all (9 rows before the move)."""
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent.parent.parent / "shared" / "corpus" / "vllm-save-result-ascend"
    result = run("check", "--no-cache", str(folder))
    assert result.exit_code == 3
    assert "claims: 51 (39 UNVERIFIED, 12 PASS" in result.stdout  # with each file's foreign accuracy_rate (issue 36: vllm.unsupported moved)


#: The check the claims this reader cannot re-derive report under (before issue 36: vllm.unsupported), and their codes
UNSUPPORTED_IDS = {"derivation.claims"}
UNSUPPORTED = ("not-claimed", "not-derivable", "not-a-producer-field")
BUCKET_PRODUCER = "vLLM vllm bench serve --save-result (vllm/benchmarks/serve.py)"


def _unsupported(report):
    """Return (status, code, message, path, pointer, expected, observed, derivation) of each finding on a claim this reader cannot derive."""
    return [(f.status.value, f.code, f.message, f.path, f.pointer, f.expected, f.observed, f.derivation) for f in report.findings
            if f.check in UNSUPPORTED_IDS and f.code in UNSUPPORTED]


def test_every_claim_this_reader_cannot_derive_keeps_its_code_words_and_place(tmp_path):
    doc = _load(ABCD)
    doc.update({"zeta": 3, "accuracy_rate": 0.5, "a/b~c": 2, "note": "text", "flag": True, "meta": {"x": 1}})
    report = verify_path(str(_write(tmp_path, doc)))
    foreign = "not a field " + BUCKET_PRODUCER + " writes; no derivation known"
    assert _unsupported(report) == [
        ("PASS", "not-claimed", "'request_goodput' is null: nothing claimed", "result.json", "/request_goodput", None, None, None),
        ("UNVERIFIED", "not-derivable", "'max_output_tokens_per_s' = 7.0: not re-derived: this reader does not re-derive the per-second "
         "output-token peak", "result.json", "/max_output_tokens_per_s", None, "7.0", None),
        ("UNVERIFIED", "not-a-producer-field", f"'a/b~c' = 2: {foreign}", "result.json", "/a~1b~0c", None, "2", None),
        ("UNVERIFIED", "not-a-producer-field", f"'accuracy_rate' = 0.5: {foreign}", "result.json", "/accuracy_rate", None, "0.5", None),
        ("UNVERIFIED", "not-a-producer-field", f"'zeta' = 3: {foreign}", "result.json", "/zeta", None, "3", None)]
    doc = _load(ABCD)
    doc["request_goodput"] = 1.5
    del doc["max_output_tokens_per_s"]  # a not-derivable key the result does not write: nothing to say
    assert _unsupported(verify_path(str(_write(tmp_path, doc)))) == [
        ("UNVERIFIED", "not-derivable", "'request_goodput' = 1.5: not re-derived: goodput counts requests that met the --goodput SLOs, "
         "and the result does not record the SLOs", "result.json", "/request_goodput", None, "1.5", None)]
    doc = _load(sorted(CORPUS.glob("*.json"))[0])  # the goodput-colon version: its own not-derivable key, its own producer
    del doc["accuracy_rate"]
    assert _unsupported(verify_path(str(_write(tmp_path, doc)))) == [
        ("PASS", "not-claimed", "'request_goodput:' is null: nothing claimed", "result.json", "/request_goodput:", None, None, None)]


def test_the_claims_this_reader_cannot_derive_close_its_derivation_claims():
    """They are `derivation.claims` rows after the latency statistics (before issue 36 `vllm.unsupported`, after `vllm.peak`)."""
    report = verify_path(str(ABCD))
    checks = [(f.check, f.pointer) for f in report.findings]
    first = next(i for i, f in enumerate(report.findings) if f.code in UNSUPPORTED)
    assert checks[first - 1] == ("derivation.claims", "/std_ttft_ms")
    assert checks[first:first + 2] == [("derivation.claims", "/request_goodput"), ("derivation.claims", "/max_output_tokens_per_s")]
    assert [c for c, _ in checks[first + 2:]][:2] == ["vllm.peak", "vllm.peak"]
    assert "vllm.unsupported" not in {c.check for c in report.roster}


def test_a_claim_this_reader_cannot_derive_is_a_row_of_the_claims_table_a_null_one_is_not():
    """Issue 36 item 3: the claims table lists what a vLLM result states and this reader leaves UNVERIFIED (claimed, no derived)."""
    from verifier.report._common import claim_rows

    report = verify_path(str(sorted(CORPUS.glob("*.json"))[0]))
    rows = [(r.claim, r.status.value, r.claimed, r.derived, r.where) for r in claim_rows(report) if r.finding.code in UNSUPPORTED]
    assert rows == [("'accuracy_rate'", "UNVERIFIED", "100.0", "-", f"{sorted(CORPUS.glob('*.json'))[0].name}#/accuracy_rate")]
