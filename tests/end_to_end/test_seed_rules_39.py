"""
Issue 39, item 3: the seed rules still open, each with a FAIL input and a PASS input, in every naming the seeds use.

Plan durations that bound each other (`receipts.consistency`): the ref2va campaign review
(`shared/seeds/ref2va-campaign-review.txt`, P2) has `wave_timeout_s` and `http_timeout_s` of 14,400 s
inside one 3-hour hard reservation shared by every arm, with a soft TERM at 165 minutes (and, in the
pilot, a 2-hour reservation, a soft TERM at 105 minutes and a forced kill 180 s later).
"""

from __future__ import annotations

import pytest
from test_mutation_kills_receipts import _consistency, _request



SEED_FAIL = [
    ({"wave_timeout_s": 14400, "http_timeout_s": 14400, "hard_reservation_s": 10800, "soft_term_s": 9900},
     {"/timeouts/wave_timeout_s", "/timeouts/http_timeout_s"}),
    ({"http_timeout_s": 14400, "reservation_hard_min": 180, "soft_terminate_min": 165}, {"/timeouts/http_timeout_s"}),
    ({"wave_timeout_s": 14400, "shared_reservation_h": 2, "soft_term_after_min": 105, "kill_after_s": 180},
     {"/timeouts/wave_timeout_s"}),
    ({"request_timeout_s": 9901, "shared_reservation_s": 10800, "sigterm_after_s": 9900}, {"/timeouts/request_timeout_s"}),
]
SEED_PASS = [
    {"wave_timeout_s": 9000, "http_timeout_s": 9000, "hard_reservation_s": 10800, "soft_term_s": 9900},
    {"http_timeout_s": 9900, "reservation_hard_min": 180, "soft_terminate_min": 165},
    {"wave_timeout_s": 6000, "shared_reservation_h": 2, "soft_term_after_min": 105, "kill_after_s": 180},
]


@pytest.mark.parametrize("timeouts,pointers", SEED_FAIL)
def test_a_timeout_longer_than_the_machine_may_be_held_fails_in_every_naming(timeouts, pointers):
    found = _consistency([_request(0)], timeouts=timeouts)
    over = {p for s, code, p in found if code == "timeout-beyond-reservation" and s == "FAIL"}
    assert over == pointers, found


@pytest.mark.parametrize("timeouts", SEED_PASS)
def test_timeouts_inside_the_hold_pass(timeouts):
    found = _consistency([_request(0)], timeouts=timeouts)
    assert all(s == "PASS" for s, _, _ in found), found
    assert len(found) >= 2  # the status rule, the hold rule (and the request timeout rule where one is named)


def test_a_soft_terminate_after_the_hard_reservation_fails():
    found = _consistency([_request(0)], timeouts={"request_s": 600, "hard_reservation_min": 60, "soft_term_min": 70})
    assert ("FAIL", "terminate-after-reservation", "/timeouts/soft_term_min") in found
    found = _consistency([_request(0)], timeouts={"request_s": 600, "hard_reservation_min": 60, "soft_term_min": 55})
    assert all(s == "PASS" for s, _, _ in found), found


@pytest.mark.parametrize("key", ["request_s", "request_timeout_s", "http_timeout_s"])
def test_an_ok_request_after_the_request_timeout_fails_in_every_naming(key):
    found = _consistency([_request(0, elapsed_s=901)], timeouts={key: 900})
    assert ("FAIL", "ok-after-timeout", "/0") in found
    assert ("FAIL", "ok-after-timeout", "/0") not in _consistency([_request(0, elapsed_s=899)], timeouts={key: 900})


def test_a_timeout_in_minutes_is_read_in_minutes():
    found = _consistency([_request(0, elapsed_s=901)], timeouts={"request_timeout_min": 15})
    assert ("FAIL", "ok-after-timeout", "/0") in found
    assert ("FAIL", "ok-after-timeout", "/0") not in _consistency([_request(0, elapsed_s=899)], timeouts={"request_timeout_min": 15})


@pytest.mark.parametrize("timeouts", [{"request_s": 600, "reservation_s": 3600, "term_grace_s": 60},
                                      {"request_s": 600, "reservation_s": 3600, "kill_after_s": 7200}])
def test_a_grace_before_the_forced_kill_bounds_nothing(timeouts):
    """A grace counts from the TERM, not from the start: it is neither a hold limit nor a timeout inside one."""
    found = _consistency([_request(0)], timeouts=timeouts)
    assert all(s == "PASS" for s, _, _ in found), found


def _share_output(bundle, second_outcome="ok"):
    """Give request A1-m2 the output of A1-m1 (same path and digest), with `second_outcome`."""
    from bundlekit import read_lines, rehash, write_lines

    rows = read_lines(bundle / "receipts.jsonl")
    first = next(r for r in rows if r.get("request_id") == "A1-m1")
    second = next(r for r in rows if r.get("request_id") == "A1-m2")
    second["outputs"] = [dict(o) for o in first["outputs"]]
    if second_outcome != "ok":
        second.update(outcome=second_outcome, http_status=504, error="gateway timeout")
    write_lines(bundle / "receipts.jsonl", rows)
    rehash(bundle)


def _plan_codes(bundle):
    from test_claims_stated import run_claims

    return [(f.status.value, f.code, f.pointer) for f in run_claims(bundle) if f.check == "plan.conformance"]


def test_two_successful_requests_naming_the_same_output_file_fail(example_copy):
    assert ("PASS", "outputs", None) in _plan_codes(example_copy)
    _share_output(example_copy)
    found = _plan_codes(example_copy)
    assert [f for f in found if f[1] == "output-shared"] == [("FAIL", "output-shared", "/3/outputs/0/path")], found


def test_a_failed_request_naming_a_successful_ones_output_is_not_a_shared_output(example_copy):
    _share_output(example_copy, "failed")
    found = _plan_codes(example_copy)
    assert not [f for f in found if f[1] == "output-shared"] and ("PASS", "outputs", None) in found, found


# ---- frozen HTTP matrix (seed frozen-http-matrix-review.txt): the credential rule reads every output file ----

import base64  # noqa: E402
from pathlib import Path  # noqa: E402
import json  # noqa: E402

from test_http_matrix import _copy, _edit, _edit_plan, _lines, _write_lines  # noqa: E402

from verifier.core import verify_path  # noqa: E402


def _credential_findings(d):
    return [(x.status.value, x.path, x.pointer) for x in verify_path(str(d)).findings
            if x.check == "gate.rules" and (x.code == "credential-retained" or "credential" in x.message)]


def _raw_line(d, i, body: bytes):
    lines = _lines(d)
    lines[i]["raw_response_base64"] = base64.b64encode(body).decode()
    _write_lines(d, lines)


MATRIX_LEAKS = [
    ("responses.jsonl", "/3/raw_response_base64",
     lambda d: _raw_line(d, 3, json.dumps({"answer": "ok", "echo": {"Authorization": "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig"}}).encode())),
    ("responses.jsonl", "/4/raw_response_base64", lambda d: _raw_line(d, 4, b"upstream said: header was Bearer sk-live-0123456789abcdef (not JSON)")),
    ("responses.jsonl", "/2/request_headers/authorization",
     lambda d: _write_lines(d, [dict(x, request_headers={"authorization": "Bearer abc.def"}) if i == 2 else x for i, x in enumerate(_lines(d))])),
    ("summary.json", "/client_env/0", lambda d: _edit(d / "summary.json", lambda s: s.update(client_env=["OMNI_JEV_TEST_TOKEN=sk-abcdefghijklmnopqrstu"]))),
    ("summary.json", "/hf_token", lambda d: _edit(d / "summary.json", lambda s: s.update(hf_token="hf_abcdefghijklmnopqrstuvwx"))),
]


@pytest.mark.parametrize("name,pointer,leak", MATRIX_LEAKS, ids=[f"{m[0]}{m[1]}" for m in MATRIX_LEAKS])
def test_a_credential_in_the_response_log_or_summary_fails(tmp_path, name, pointer, leak):
    d = _copy(tmp_path, "good")
    leak(d)
    assert ("FAIL", name, pointer) in _credential_findings(d)


HARMLESS = [
    lambda d: _edit_plan(d, lambda p: p["cases"][0]["body"].update(tokenizer="Qwen/Qwen2.5-Omni-7B", eos_token="</s>", pad_token_id=0)),
    lambda d: _edit_plan(d, lambda p: p["cases"][0]["body"].update(prompt="Explain basic arithmetic to a child", max_tokens=64)),
    lambda d: _edit(d / "config.json", lambda c: c["client"].update(env=["OMNI_JEV_TEST_TOKEN set (value not retained)"])),
    lambda d: _raw_line(d, 3, b'{"answer": "ok", "usage": {"prompt_tokens": 3, "stop_token": "<|im_end|>"}}'),
]


@pytest.mark.parametrize("harmless", HARMLESS, ids=["tokenizer-eos", "prompt-basic", "env-named-only", "usage-in-raw"])
def test_harmless_keys_and_words_are_no_credential(tmp_path, harmless):
    d = _copy(tmp_path, "good")
    harmless(d)
    found = _credential_findings(d)
    assert found and all(s == "PASS" for s, _, _ in found), found
    assert {p for _, p, _ in found} == {"plan.json", "config.json", "responses.jsonl", "summary.json"}


# ---- frozen HTTP matrix: ignore paths, the oracle re-checked on the retained bytes, the run's own clock ----

def _rules(d):
    return {(x.code, x.pointer) for x in verify_path(str(d)).findings if x.check == "gate.rules"
            and x.status.value == "FAIL"}


def _open_jev(d, seconds=(1.25, 1.5, 2.0), answer="ok"):
    """Open-Jev-shaped responses (the review's finding 1): metadata.inference_seconds differs per request."""
    lines = _lines(d)
    for i, x in enumerate(lines):
        body = {"answer": answer if i != 5 else x.get("_answer", answer), "metadata": {"inference_seconds": seconds[i % len(seconds)]}}
        x["raw_response_base64"] = base64.b64encode(json.dumps(body).encode()).decode()
    _write_lines(d, lines)


def _every_raw(d, body: bytes):
    lines = _lines(d)
    for x in lines:
        x["raw_response_base64"] = base64.b64encode(body).decode()
    _write_lines(d, lines)


def _oracle(ignore_case=None, ignore_plan=None, oracle=None):
    def change(p):
        p["cases"][0]["oracle"] = {"exact_json": oracle if oracle is not None else {"answer": "ok", "metadata": {"inference_seconds": 1.25}}}
        if ignore_case is not None:
            p["cases"][0]["ignore_paths"] = ignore_case
        if ignore_plan is not None:
            p["ignore_paths"] = ignore_plan
    return change


MATRIX_CASES = [
    # (what, change of the good fixture, expected FAIL codes (empty: every rule holds))
    ("open-jev, its timing ignored", lambda d: (_open_jev(d), _edit_plan(d, _oracle(["/metadata/inference_seconds"]))), set()),
    ("open-jev, plan-level ignore", lambda d: (_open_jev(d), _edit_plan(d, _oracle(None, ["/metadata/inference_seconds"]))), set()),
    ("open-jev, nothing ignored", lambda d: (_open_jev(d), _edit_plan(d, _oracle())), {("ok-contradicts-oracle", "/1/raw_response_base64")}),
    ("ok bytes with a wrong answer", lambda d: (_open_jev(d), _raw_line(d, 6, b'{"answer": "no", "metadata": {"inference_seconds": 9}}'),
                                                _edit_plan(d, _oracle(["/metadata/inference_seconds"]))),
     {("ok-contradicts-oracle", "/6/raw_response_base64")}),
    ("type-strict: 1.0 is not 1", lambda d: (_every_raw(d, b'{"answer": "ok", "n": 1}'), _raw_line(d, 2, b'{"answer": "ok", "n": 1.0}'),
                                             _edit_plan(d, _oracle(oracle={"answer": "ok", "n": 1}))),
     {("ok-contradicts-oracle", "/2/raw_response_base64")}),
    ("type-strict: 1 is 1", lambda d: (_every_raw(d, b'{"n": 1, "answer": "ok"}'), _edit_plan(d, _oracle(oracle={"answer": "ok", "n": 1}))), set()),
    ("exact bytes differ", lambda d: _edit_plan(d, lambda p: p["cases"][0].update(oracle={"exact_bytes": "b2s="})),
     {("ok-contradicts-oracle", "/0/raw_response_base64")}),
    ("ignore hides the only field", lambda d: _edit_plan(d, _oracle(["/answer"], oracle={"answer": "ok"})),
     {("ignore-paths-hide-oracle", "/cases/0/ignore_paths")}),
    ("ignore hides every field", lambda d: (_open_jev(d), _edit_plan(d, _oracle(["/answer", "/metadata"]))),
     {("ignore-paths-hide-oracle", "/cases/0/ignore_paths")}),
    ("ignore path resolves nowhere", lambda d: _edit_plan(d, _oracle(["/usage/latency_ms"], oracle={"answer": "ok"})),
     {("ignore-path-unresolved", "/cases/0/ignore_paths")}),
    ("plan ignore path resolves nowhere", lambda d: _edit_plan(d, _oracle(None, ["/metadata/inference_secs"], oracle={"answer": "ok"})),
     {("ignore-path-unresolved", "/cases/0/ignore_paths")}),
    ("ignore path with a bytes oracle", lambda d: _edit_plan(d, lambda p: p["cases"][0].update(
        oracle={"exact_bytes": "eyJhbnN3ZXIiOiAib2sifQ=="}, ignore_paths=["/answer"])), {("ignore-path-unresolved", "/cases/0/ignore_paths")}),
    ("run finished before it started", lambda d: _edit(d / "config.json", lambda c: c.update(finished_at="2026-10-13T07:59:59Z")),
     {("finished-before-started", "/finished_at")}),
    ("bytes oracle that is not base64", lambda d: _edit_plan(d, lambda p: p["cases"][0].update(oracle={"exact_bytes": "not base64!"})), set()),
    ("run finished as it started", lambda d: _edit(d / "config.json", lambda c: c.update(finished_at="2026-10-13T08:00:00Z")), set()),
    ("run finished 400 ns before it started", lambda d: _edit(d / "config.json", lambda c: c.update(
        started_at="2026-10-13t08:00:00.0000005z", finished_at="2026-10-13T08:00:00.0000001Z")), {("finished-before-started", "/finished_at")}),
]


@pytest.mark.parametrize("what,change,codes", MATRIX_CASES, ids=[m[0] for m in MATRIX_CASES])
def test_matrix_oracle_and_ignore_path_rules(tmp_path, what, change, codes):
    d = _copy(tmp_path, "good")
    change(d)
    assert _rules(d) == codes


def test_an_unreadable_oracle_leaves_the_bytes_unchecked_not_passed(tmp_path):
    d = _copy(tmp_path, "good")
    _edit_plan(d, lambda p: p["cases"][0].update(oracle={"exact_bytes": "not base64!"}))
    from verifier.checks.packs.http_matrix import RULES

    found = [(x.status.value, x.code, x.message) for x in verify_path(str(d)).findings if x.check == "gate.rules"]
    assert ("UNVERIFIED", "oracle-unreadable") in {(s, c) for s, c, _ in found}
    assert ("PASS", "holds", RULES["ok-contradicts-oracle"]) not in found  # never "every ok response matches" unchecked


# ---- telemetry receipt (seed telemetry-receipt-review.txt): preemptions, the subject's axes, a gamma arrival ----

from test_telemetry import _replace_carrier, make_telemetry  # noqa: E402
from test_telemetry_rules import _both, _copy as _telemetry_copy, _qualified_except, _set  # noqa: E402


def _telemetry(tmp_path, *changes):
    d = _telemetry_copy(tmp_path, "t")
    for change in changes:
        change(d)
    return verify_path(str(d))


def _preempted(before, after):
    def change(d):
        _replace_carrier(d, "metrics_before", "metrics-before.prom", make_telemetry.scrape(1000.0, preemptions=before))
        _replace_carrier(d, "metrics_after", "metrics-after.prom", make_telemetry.scrape(1512.0, preemptions=after))
    return change


def _qualification(report):
    (q,) = [x for x in report.findings if x.check == "gate.rules" and x.code in {"telemetry-only", "qualification-without-prerequisites", "qualification-recorded"}]
    return q


def test_a_window_with_preemptions_does_not_qualify(tmp_path):
    report = _telemetry(tmp_path, _qualified_except(), _preempted(0.0, 3.0))
    q = _qualification(report)
    assert (q.status.value, q.code) == ("FAIL", "qualification-without-prerequisites") and q.observed == ["no-preemptions"]
    seen = [(x.status.value, x.code) for x in report.findings if x.check == "telemetry.occupancy" and "preempt" in x.code]
    assert seen == [("UNVERIFIED", "preemptions-observed")]


def test_a_window_without_preemptions_keeps_its_qualification(tmp_path):
    report = _telemetry(tmp_path, _qualified_except(), _preempted(2.0, 2.0))
    assert (_qualification(report).status.value, _qualification(report).code) == ("UNVERIFIED", "qualification-recorded")
    assert ("PASS", "no-preemptions") in {(x.status.value, x.code) for x in report.findings if x.check == "telemetry.occupancy"}


def test_unread_preemptions_are_unmet_not_zero(tmp_path):
    q = _qualification(_telemetry(tmp_path, _qualified_except("no-preemptions")))
    assert q.status.value == "FAIL" and q.observed == ["no-preemptions"]


@pytest.mark.parametrize("axes", [
    {"checkpoint_revision": None, "collective_transport": None, "kv_cache_dtype": None},
    {"checkpoint_revision": None, "transport": None, "kv_dtype": None},
    {"checkpoint_revision": "c7d63d15", "collective_transport": None, "kv_cache_dtype": "fp8"},
], ids=["all-null", "short-names", "transport-unread"])
def test_an_established_subject_with_unread_axes_does_not_qualify(tmp_path, axes):
    report = _telemetry(tmp_path, _qualified_except(), _set("standings", "subject", value={"standing": "established", **axes}))
    q = _qualification(report)
    assert q.status.value == "FAIL" and q.observed == ["subject-established"]
    assert [x.code for x in report.findings if x.check == "gate.rules" and x.status.value == "FAIL"] == ["subject-axes-unread", "qualification-without-prerequisites"]


def test_an_established_subject_with_every_axis_read_qualifies(tmp_path):
    subject = {"standing": "established", "checkpoint_revision": "c7d63d15", "collective_transport": "RoCE", "kv_cache_dtype": "fp8"}
    report = _telemetry(tmp_path, _qualified_except(), _set("standings", "subject", value=subject))
    assert _qualification(report).code == "qualification-recorded"


def _printed(burstiness: str):
    """stdout of a rate-5 run with the given burstiness line (vLLM prints 'Poisson process' for 1.0, 'Gamma distribution' otherwise)."""
    text = make_telemetry.bench_stdout().replace("Traffic request rate: inf", "Traffic request rate: 5.0")
    return lambda d: _replace_carrier(d, "stdout", "bench.stdout", text.replace("Burstiness factor: 1.0 (Poisson process)", burstiness))


GAMMA = _both(_printed("Burstiness factor: 0.5 (Gamma distribution)"),
              _set("protocol", "request_rate", value=5), _set("protocol", "burstiness", value=0.5), _set("protocol", "arrival", value="gamma"))


def test_a_gamma_arrival_with_its_burstiness_is_describable(tmp_path):
    report = _telemetry(tmp_path, GAMMA)
    assert not [x for x in report.findings if x.code == "schema-violation"]
    axes = {x.pointer: (x.status.value, x.code) for x in report.findings if x.check == "telemetry.protocol"}
    assert axes["/protocol/arrival"] == ("PASS", "protocol-matches") and axes["/protocol/burstiness"] == ("PASS", "protocol-matches")


def test_a_gamma_arrival_that_stdout_prints_as_poisson_fails(tmp_path):
    report = _telemetry(tmp_path, GAMMA, _printed("Burstiness factor: 1.0 (Poisson process)"), _set("protocol", "burstiness", value=1.0))
    axes = {x.pointer: (x.status.value, x.code) for x in report.findings if x.check == "telemetry.protocol"}
    assert axes["/protocol/arrival"] == ("FAIL", "protocol-mismatch")


def test_a_preemption_counter_that_went_down_is_a_reset_not_zero(tmp_path):
    report = _telemetry(tmp_path, _qualified_except(), _preempted(5.0, 0.0))
    q = _qualification(report)
    assert q.status.value == "FAIL" and q.observed == ["no-preemptions"]
    assert not [x for x in report.findings if "preempt" in x.code]  # neither observed (a rise of -5) nor none


# ---- vLLM result in which every request failed: nothing was measured, so its stated claims FAIL ----

from test_vllm_bench import CORPUS, H01, _load, _write  # noqa: E402


def _all_failed(doc: dict, detailed: bool = True) -> dict:
    """H01 with every request failed, its statistics printed as the producer prints empty samples (0)."""
    n = doc["num_prompts"]
    doc.update(errors=["ReadTimeout"] * n, completed=0, failed=n, total_input_tokens=0, total_output_tokens=0,
               request_throughput=0.0, output_throughput=0.0, total_token_throughput=0.0, output_lens=[0] * n, ttfts=[0.0] * n,
               itls=[[] for _ in range(n)], generated_texts=[""] * n, max_concurrent_requests=0)
    doc.update({k: 0.0 for k in doc if k.endswith("_ms")})
    if not detailed:
        for k in ("errors", "output_lens", "ttfts", "itls", "generated_texts", "latencies", "start_times", "input_lens"):
            doc.pop(k, None)
    return doc


@pytest.mark.parametrize("detailed", [True, False], ids=["per-request-arrays", "aggregates-only"])
def test_a_vllm_result_with_no_successful_request_fails_its_claims(tmp_path, detailed):
    report = verify_path(str(_write(tmp_path, _all_failed(_load(H01), detailed))))
    assert report.verdict == "FAIL"
    failed = [x for x in report.findings if x.status.value == "FAIL"]
    assert failed and all(x.code == "no-successful-request" and "no successful request" in x.message for x in failed)
    assert {x.pointer for x in failed} >= {"/request_throughput", "/mean_e2el_ms", "/p99_ttft_ms"}


def test_a_vllm_result_with_one_successful_request_is_judged_as_before(tmp_path):
    assert not [x for x in verify_path(str(H01)).findings if x.code == "no-successful-request"]
    assert all(not [x for x in verify_path(str(p)).findings if x.code == "no-successful-request"] for p in sorted(CORPUS.glob("*.json"))[:2])


# ---- quality: a record naming another LPIPS version than the gate pins is refused, not compared ----

from decimal import Decimal  # noqa: E402

from bundlekit import edit_json, rehash  # noqa: E402

from verifier.formats.bundle import Bundle  # noqa: E402
from verifier.checks import gate as gate_check, integrity, quality, schema  # noqa: E402
from verifier.engine.pipeline import Context, run_pipeline  # noqa: E402
from verifier.trust.assets import assets  # noqa: E402

PRODUCTION = json.loads((Path(__file__).resolve().parent.parents[1] / "gates" / "ref2va-5s-production-v1.json").read_text())


def _lpips_record(bundle, version: str, scores=("0.05",) * 14):
    """Pin the example to the production gate and record LPIPS scores with a scorer identity naming lpips `version`."""
    pin = {k: v for k, v in PRODUCTION["quality"]["scorers"]["lpips"].items() if k not in ("facts", "state_sha256")}
    pin["weights"] = [{"name": w["name"], "sha256": w["sha256"]} for w in pin["weights"]]  # the index records name and digest
    identity = json.loads(json.dumps(pin).replace("v0.1", f"v{version}").replace('"version": "0.1"', f'"version": "{version}"'))
    edit_json(bundle / "manifest.json", lambda m: m.update(gate=PRODUCTION["id"]))

    def add(doc):
        doc["scorers"]["lpips"] = identity
        for comp, value in zip(doc["comparisons"], scores, strict=False):
            comp["scores"]["lpips"] = Decimal(value)
    edit_json(bundle / "quality-index.json", add)
    rehash(bundle)
    ctx = Context(subject=bundle, assets=assets(), bundle=Bundle(root=bundle))
    findings, _ = run_pipeline((integrity.files, gate_check.pinned, schema.documents, quality.recorded), ctx)
    return [x for x in findings if x.check == "quality.recorded"]


def test_lpips_scores_of_another_version_are_refused_not_compared(example_copy):
    found = _lpips_record(example_copy, "0.0", scores=("0.05", "0.5"))
    codes = {(x.status.value, x.code, x.pointer) for x in found}
    assert ("FAIL", "scorer-identity-differs", "/scorers/lpips") in codes
    assert ("UNVERIFIED", "scores-not-comparable", "/scorers/lpips") in codes
    assert not [x for x in found if x.code == "threshold-missed"]  # 0.5 > 0.2, but a v0.0 score is not on the v0.1 scale
    assert not [x for x in found if x.code == "threshold-met" and "lpips" in x.message]


def test_lpips_scores_of_the_pinned_version_are_compared(example_copy):
    found = _lpips_record(example_copy, "0.1", scores=("0.05", "0.5"))
    assert not [x for x in found if x.code in ("scorer-identity-differs", "scores-not-comparable")]
    assert [(x.code, x.pointer) for x in found if x.status.value == "FAIL"] == [("threshold-missed", "/comparisons/1/scores/lpips")]


@pytest.mark.parametrize("change", [
    _set("standings", "subject", value={"standing": "established", "checkpoint_revision": 5}),
    _set("protocol", "arrival", value=["gamma"]),
], ids=["subject-axis-number", "arrival-list"])
def test_a_new_telemetry_field_of_the_wrong_type_is_a_schema_finding(tmp_path, change):
    report = _telemetry(tmp_path, change)
    assert any(x.code == "schema-violation" for x in report.findings) and not [x for x in report.findings if x.status.value == "ERROR"]


@pytest.mark.parametrize("change", [
    lambda d: _edit(d / "config.json", lambda c: c.update(finished_at=5)),
    lambda d: _edit_plan(d, lambda p: p["cases"][0].update(ignore_paths=["no-slash"])),
    lambda d: _edit_plan(d, lambda p: p["cases"][0].update(oracle={"exact_bytes": 5})),
    lambda d: _raw_line(d, 3, b"\xff\xfe not utf-8"),
], ids=["finished-at-number", "ignore-path-not-a-pointer", "bytes-oracle-number", "raw-not-utf8"])
def test_a_wrong_typed_matrix_field_is_a_finding_never_a_crash(tmp_path, change):
    d = _copy(tmp_path, "good")
    change(d)
    report = verify_path(str(d))
    assert not [x for x in report.findings if x.status.value == "ERROR"], [x.message for x in report.findings if x.status.value == "ERROR"]
    assert [x for x in report.findings if x.status.value in ("FAIL", "UNVERIFIED") and x.check.startswith(("matrix.", "gate.rules"))]
