"""Issue 7 acceptance: the real bundles in ../shared/corpus read through the shipped profiles (read in place)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from conftest import CORPUS, copy_bundle, make_assets, profile_document, repin_files_map

from verifier.engine import stats
from verifier.core import verify_path
from verifier.formats.jsonio import loads_strict_lines

SYSTEM1 = CORPUS / "system1-omni-gdn-20261003"
PR6540 = CORPUS / "vllm-omni-pr6540"
ASCEND = CORPUS / "vllm-save-result-ascend"


def _by(report, check, code=None):
    return [f for f in report.findings if f.check == check and (code is None or f.code == code)]


def _claim(report, label):
    hits = [f for f in _by(report, "derivation.claims") if f.message.startswith(label + ":")]
    assert len(hits) == 1, (label, [f.message for f in _by(report, "derivation.claims")][:5])
    return hits[0]


@pytest.fixture(scope="module")
def system1():
    return verify_path(str(SYSTEM1))


@pytest.fixture(scope="module")
def pr6540():
    return verify_path(str(PR6540))


# ---------------------------------------------------------------- system1-omni-gdn-20261003


def test_system1_is_detected_and_fails_with_exactly_two_fail_findings(system1):
    assert system1.kind == "profile:system1-omni-gdn"
    assert system1.verdict == "FAIL" and int(system1.exit_code) == 1
    fails = [f for f in system1.findings if f.status == "FAIL"]
    assert [(f.check, f.code) for f in fails] == [("integrity.files", "missing-file"), ("gate.rules", "rule-not-met")]
    assert fails[0].path == "kernel/harness/compare.py"
    assert "aggregate-mean-reduction-at-least-2pct" in fails[1].message
    assert not [f for f in system1.findings if f.status == "ERROR"]


def test_system1_integrity_14_match_one_missing_13_external(system1):
    matched = _by(system1, "integrity.files", "match")
    assert len(matched) == 14 and all(f.status == "PASS" for f in matched)
    assert "e2e/baseline-measured-1.jsonl" in {f.path for f in matched}
    assert matched[0].observed["size"] == matched[0].expected["size"]
    external = _by(system1, "integrity.files", "external-not-supplied")
    assert len(external) == 13 and all(f.status == "UNVERIFIED" for f in external)
    assert {f.pointer for f in external} == {f"/full_local_archives/{i}" for i in range(13)}


def test_system1_four_receipt_files_of_74_requests(system1):
    mapped = {f.path: f.observed for f in _by(system1, "schema.documents", "mapped")}
    for arm in ("baseline", "candidate"):
        for p in (1, 2):
            assert mapped[f"e2e/{arm}-measured-{p}.jsonl"] == 74


def test_system1_pass_statistics_rederive_exactly_with_nearest_rank_p95(system1):
    mean = _claim(system1, "pass_mean_ms[arm=baseline][server=1]")
    p50 = _claim(system1, "pass_p50_ms[arm=baseline][server=1]")
    p95 = _claim(system1, "pass_p95_ms[arm=baseline][server=1]")
    assert (mean.status, mean.expected) == ("PASS", "48.37519689189189")
    assert (p50.status, p50.expected) == ("PASS", "25.3186545")
    assert (p95.status, p95.expected) == ("PASS", "227.743904")
    assert "nearest-rank" in p95.derivation
    for label in ("pass_mean_ms", "pass_p50_ms", "pass_p95_ms", "pass_requests"):
        for arm in ("baseline", "candidate"):
            for p in (1, 2):
                assert _claim(system1, f"{label}[arm={arm}][server={p}]").status == "PASS"


def test_system1_linear_p95_would_be_about_222_31_and_is_not_used():
    records = loads_strict_lines((SYSTEM1 / "e2e" / "baseline-measured-1.jsonl").read_bytes())
    ms = [r["latency_s"] * 1000 for r in records]
    assert stats.percentile_nearest_rank(ms, Decimal(95)) == Decimal("227.743904")
    assert abs(stats.percentile_linear(ms, Decimal(95)) - Decimal("222.31")) < Decimal("0.01")


def test_system1_p95_under_a_linear_profile_fails(tmp_path):
    doc = profile_document("system1-omni-gdn")
    for claim in doc["claims"]:
        if claim["id"] == "pass_p95_ms":
            claim["method"] = "linear"
    report = verify_path(str(SYSTEM1), asset_root=make_assets(tmp_path, {"system1-omni-gdn": doc}))
    p95 = _claim(report, "pass_p95_ms[arm=baseline][server=1]")
    assert (p95.status, p95.code) == ("FAIL", "claim-mismatch")
    assert p95.observed.startswith("222.31")


def test_system1_aggregates_are_means_of_pass_means_and_reduction_rederives(system1):
    for arm, stated in (("baseline", "48.408149155405404"), ("candidate", "48.20480650675675")):
        f = _claim(system1, f"aggregate_mean_ms[arm={arm}]")
        assert (f.status, f.expected) == ("PASS", stated)
        assert "mean of server means" in f.derivation
    red = _claim(system1, "aggregate_reduction_percent")
    assert (red.status, red.expected) == ("PASS", "0.42005871365966563")


def test_system1_clock_identity_within_1e_9_s_and_no_overlap(system1):
    (clock,) = _by(system1, "derivation.identities")
    assert (clock.status, clock.code) == ("PASS", "identity-holds") and clock.observed == 296
    overlap = _by(system1, "plan.overlap")
    assert len(overlap) == 4 and all(f.status == "PASS" and f.observed == 74 for f in overlap)
    tolerance = next(i for i in profile_document("system1-omni-gdn")["identities"] if i["id"] == "clock-span-equals-latency")["tolerance"]
    assert tolerance == "1e-9"


def test_system1_gate_reduction_fails_per_pass_rule_passes_and_agrees_with_bundle(system1):
    rules = {f.message.split(" ")[0]: f for f in _by(system1, "gate.rules") if f.code.startswith("rule")}
    assert rules["aggregate-mean-reduction-at-least-2pct"].status == "FAIL"
    assert rules["aggregate-mean-reduction-at-least-2pct"].observed.startswith("0.42005871365966")
    assert rules["each-candidate-pass-mean-below-baseline"].status == "PASS"
    (recorded,) = _by(system1, "gate.rules", "recorded-agrees")
    assert recorded.status == "PASS" and recorded.observed is False and recorded.expected is False


def test_system1_kernel_six_reductions_rederive(system1):
    reductions = [f for f in _by(system1, "derivation.claims") if f.message.startswith("kernel_reduction_percent[")]
    assert len(reductions) == 6 and all(f.status == "PASS" for f in reductions)
    assert _claim(system1, "kernel_reduction_percent[tokens=936][server=1]").expected == "13.48696850733544"


# ---- system1 copies that must fail (the producer re-pinned its manifest after each edit)


def _edit(bundle, rel, old, new, count=1):
    path = bundle / rel
    text = path.read_text()
    assert text.count(old) >= 1, old
    path.write_text(text.replace(old, new, count))
    repin_files_map(bundle, rel)


def test_system1_summary_claim_rounded_is_accepted_but_1e_12_off_fails(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    _edit(bundle, "e2e/summary.json", '"mean_ms": 48.37519689189189', '"mean_ms": 48.375196892')  # rounded: holds
    _edit(bundle, "e2e/summary.json", '"mean_ms": 48.44110141891892', '"mean_ms": 48.44110141891992')  # 1e-12 off
    report = verify_path(str(bundle))
    assert _claim(report, "pass_mean_ms[arm=baseline][server=1]").status == "PASS"
    f = _claim(report, "pass_mean_ms[arm=baseline][server=2]")
    assert (f.status, f.code) == ("FAIL", "claim-mismatch")


def test_system1_overlapping_requests_fail(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    # the second request of candidate pass 1 starts before the first one ended
    lines = (bundle / "e2e/candidate-measured-1.jsonl").read_text().split("\n")
    first, second = json.loads(lines[0]), lines[1]
    start = json.loads(second)["client_start_monotonic_ns"]
    lines[1] = second.replace(str(start), str(first["client_end_monotonic_ns"] - 5))
    (bundle / "e2e/candidate-measured-1.jsonl").write_text("\n".join(lines))
    repin_files_map(bundle, "e2e/candidate-measured-1.jsonl")
    report = verify_path(str(bundle))
    (fail,) = [f for f in _by(report, "plan.overlap") if f.status == "FAIL"]
    assert fail.code == "overlap" and fail.path == "e2e/candidate-measured-1.jsonl"
    # and the clock identity catches the edited start too
    assert any(f.code == "identity-mismatch" for f in _by(report, "derivation.identities"))


def test_system1_clock_two_ns_off_fails_identity(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    rel = "e2e/baseline-measured-2.jsonl"
    end = json.loads((bundle / rel).read_text().split("\n")[0])["client_end_monotonic_ns"]
    _edit(bundle, rel, f'"client_end_monotonic_ns": {end}', f'"client_end_monotonic_ns": {end + 2}')
    report = verify_path(str(bundle))
    (bad,) = [f for f in _by(report, "derivation.identities") if f.status == "FAIL"]
    assert bad.code == "identity-mismatch" and bad.path == rel and bad.pointer == "#line=1/latency_s"


def test_system1_per_pass_rule_fails_when_a_candidate_pass_is_not_below(tmp_path):
    doc = profile_document("system1-omni-gdn")
    rule = doc["gate"]["rules"][1]
    rule["below_baseline"] = {"baseline": "candidate", "candidate": "baseline"}  # baseline passes are the slower ones
    report = verify_path(str(SYSTEM1), asset_root=make_assets(tmp_path, {"system1-omni-gdn": doc}))
    rules = {f.message.split(" ")[0]: f for f in _by(report, "gate.rules") if f.code.startswith("rule")}
    assert rules["each-candidate-pass-mean-below-baseline"].status == "FAIL"
    assert set(rules["each-candidate-pass-mean-below-baseline"].observed) == {"server=1", "server=2"}


def test_system1_tampered_receipt_is_not_parsed(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    path = bundle / "e2e/baseline-measured-1.jsonl"
    path.write_text(path.read_text().replace('"latency_s": 0.0205433', '"latency_s": 0.0105433', 1))  # manifest not re-pinned
    report = verify_path(str(bundle))
    assert any(f.code == "sha256-mismatch" and f.path == "e2e/baseline-measured-1.jsonl" for f in report.findings)
    assert any(f.code == "blocked-by-integrity" and f.status == "UNVERIFIED" for f in _by(report, "schema.documents"))
    assert _claim(report, "pass_mean_ms[arm=baseline][server=2]").status == "PASS"
    blocked = [f for f in _by(report, "derivation.claims") if "[arm=baseline][server=1]" in f.message]
    assert len(blocked) == 4  # mean, p50, p95, requests of the blocked pass: each UNVERIFIED naming the file, never dropped
    assert all(f.status == "UNVERIFIED" and f.code == "blocked-by-integrity" and "e2e/baseline-measured-1.jsonl" in f.message for f in blocked)


def test_system1_recorded_gate_outcome_disagreeing_fails(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    _edit(bundle, "e2e/summary.json", '"accepted_e2e_latency_gate": false', '"accepted_e2e_latency_gate": true')
    report = verify_path(str(bundle))
    (f,) = _by(report, "gate.rules", "recorded-disagrees")
    assert f.status == "FAIL"


# ---------------------------------------------------------------- vllm-omni-pr6540


def test_pr6540_is_incomplete_without_fail(pr6540):
    assert pr6540.kind == "profile:vllm-omni-pr6540"
    assert pr6540.verdict == "INCOMPLETE" and int(pr6540.exit_code) == 3
    assert not [f for f in pr6540.findings if f.status in ("FAIL", "ERROR")]


def test_pr6540_summaries_rederive_from_measured_records_only(pr6540):
    claims = _by(pr6540, "derivation.claims")
    assert claims and all(f.status == "PASS" for f in claims)
    ten = _claim(pr6540, "wall_mean_s[file=artifacts/results.json][duration=10]")
    assert ten.expected == "18.160357077606022" and "phase=measured" in ten.derivation
    assert "3 values" in ten.derivation
    for run in ("alignment-after", "alignment-before", "alignment-rebased", "native-2k"):
        assert _claim(pr6540, f"wall_mean_s[file=artifacts/{run}/results.json]").status == "PASS"


def test_pr6540_including_warmup_would_move_the_10s_mean_to_about_21_27():
    from verifier.profiles.language import RecordSource, Tree, derive_rule, read_receipts

    spec = profile_document("vllm-omni-pr6540")["receipts"]["runs-by-duration"]
    records, problems, _ = read_receipts(Tree(root=PR6540), "runs-by-duration", spec)
    assert not problems
    measured = derive_rule({"statistic": "mean", "selection": {"phase": "measured"}}, RecordSource(records), {"duration": "10"}).value
    everything = derive_rule({"statistic": "mean", "selection": {"duration": "10"}}, RecordSource(records), {}).value
    assert abs(measured - Decimal("18.16")) < Decimal("0.01")
    assert abs(everything - Decimal("21.27")) < Decimal("0.01")


def test_pr6540_profile_that_forgets_the_phase_selection_fails(tmp_path):
    doc = profile_document("vllm-omni-pr6540")
    for claim in doc["claims"]:
        if claim["id"] == "wall_mean_s" and claim["receipts"] == "runs-by-duration":
            claim["selection"] = {"file": "artifacts/results.json"}
    report = verify_path(str(PR6540), asset_root=make_assets(tmp_path, {"vllm-omni-pr6540": doc}))
    f = _claim(report, "wall_mean_s[file=artifacts/results.json][duration=10]")
    assert f.status == "FAIL" and f.observed.startswith("21.27")


def test_pr6540_identities_hold(pr6540):
    found = {(f.message.split(":")[0], f.status) for f in _by(pr6540, "derivation.identities")}
    for name in ("stage-sum", "orchestration-residual", "stage-0-ms", "stage-1-ms", "frames-over-fps-is-duration"):
        assert (name, "PASS") in found
    assert len(_by(pr6540, "derivation.identities")) == 10  # five identities on two receipt sets


def test_pr6540_output_digests_are_in_sha256sums_and_media_unverified(pr6540):
    listed = _by(pr6540, "derivation.digests")
    assert len(listed) == 5 and all(f.status == "PASS" for f in listed)
    assert sum(f.observed for f in listed) == 24
    # the 24 records name 24 outputs, but seeded repeats wrote identical bytes: SHA256SUMS lists their digests under
    # 9 distinct byte streams, each judged (once) by the coverage family, none supplied in this copy
    media = _by(pr6540, "coverage.streams")
    assert len(media) == 9 and all(f.status == "UNVERIFIED" and f.code == "media-not-verified" for f in media)
    assert all(f.path.startswith("videos/") for f in media)
    absent = _by(pr6540, "integrity.files", "external-not-supplied")
    assert len(absent) == 28 and all(f.path.endswith(".mp4") for f in absent)


def test_pr6540_digest_not_in_sha256sums_fails(tmp_path):
    bundle = copy_bundle("vllm-omni-pr6540", tmp_path)
    path = bundle / "artifacts/native-2k/results.json"
    path.write_text(path.read_text().replace("0e9a1ba2ef27", "0e9a1ba2ef28", 1))
    report = verify_path(str(bundle))
    (f,) = _by(report, "derivation.digests", "digest-unlisted")
    assert f.status == "FAIL" and f.path == "artifacts/native-2k/results.json" and f.pointer.endswith("/sha256")


def test_pr6540_stage_sum_that_does_not_add_up_fails(tmp_path):
    bundle = copy_bundle("vllm-omni-pr6540", tmp_path)
    path = bundle / "artifacts/alignment-after/results.json"
    doc = json.loads(path.read_text())
    doc["records"][2]["stage_sum_s"] += 0.001
    path.write_text(json.dumps(doc, indent=2))
    report = verify_path(str(bundle))
    bad = [f for f in _by(report, "derivation.identities") if f.status == "FAIL"]
    assert any(f.message.startswith("stage-sum") and f.path == "artifacts/alignment-after/results.json" for f in bad)


def test_pr6540_frames_over_fps_more_than_one_frame_off_fails(tmp_path):
    bundle = copy_bundle("vllm-omni-pr6540", tmp_path)
    path = bundle / "artifacts/results.json"
    doc = json.loads(path.read_text())
    doc["records"][1]["validation"]["frames"] = 123  # 123/24 = 5.125 s vs 5.042 s: two frames off
    path.write_text(json.dumps(doc, indent=2))
    report = verify_path(str(bundle))
    assert any(f.message.startswith("frames-over-fps-is-duration") and f.status == "FAIL" for f in _by(report, "derivation.identities"))


# ---------------------------------------------------------------- vllm-save-result-ascend


def test_ascend_directory_is_not_claimed_by_any_profile(run, tmp_path):
    """--save-result JSON is the serving receipt reader's; no profile duplicates it, the folder is read file by file."""
    from verifier.core import verify_path

    assert not verify_path(str(ASCEND)).kind.startswith("profile:")
    assert run(str(ASCEND)).exit_code == 3
    (tmp_path / "notes.txt").write_text("no receipts here")
    result = run(str(tmp_path))
    assert result.exit_code == 3  # discovery (issue 37): nothing to bind, one finding naming the shipped profiles
    assert "no shipped profile matches" in result.stdout
    for pid in ("hyperfine", "system1-omni-gdn", "vllm-omni-pr6540"):
        assert pid in result.stdout


def test_cli_on_corpus_bundles(run):
    assert run(str(SYSTEM1)).exit_code == 1
    assert run("--profile", "system1-omni-gdn", str(SYSTEM1)).exit_code == 1
    result = run(str(PR6540))
    assert result.exit_code == 3 and "INCOMPLETE" in result.stdout
