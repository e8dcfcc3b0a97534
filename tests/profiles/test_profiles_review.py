"""Review defects of the profile engine: blocked receipts shrinking denominators, unchecked stated claims, impossible values."""

from __future__ import annotations

import json

from conftest import CORPUS, ROOT, copy_bundle, repin_files_map

from verifier.core import verify_path

EXPORT = ROOT / "tests" / "data" / "hyperfine" / "export.json"


def _by(report, check, code=None):
    return [f for f in report.findings if f.check == check and (code is None or f.code == code)]


def _claims(report, label):
    return [f for f in _by(report, "derivation.claims") if f.message.startswith(label + ":")]


def _rule(report, rule_id):
    (f,) = [f for f in _by(report, "gate.rules") if f.message.startswith(rule_id + " ")]
    return f


def _flip_one_byte(path, old, new):
    """Change one byte of `path` in place (same size); the manifest is not re-pinned."""
    data = path.read_bytes()
    assert len(old) == len(new) == 1 and old in data
    index = data.index(old)
    path.write_bytes(data[:index] + new + data[index + 1:])


# ---------------------------------------------------------------- 1. a blocked receipt never shrinks a denominator


def test_blocked_candidate_pass_makes_every_derivation_over_it_unverified(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    rel = "e2e/candidate-measured-1.jsonl"
    _flip_one_byte(bundle / rel, b"6", b"7")  # same size, different bytes: blocked by integrity
    report = verify_path(str(bundle))
    assert any(f.code == "sha256-mismatch" and f.path == rel for f in report.findings)
    for label in ("aggregate_mean_ms[arm=candidate]", "aggregate_reduction_percent", "pass_mean_ms[arm=candidate][server=1]",
                  "pass_requests[arm=candidate][server=1]"):
        (f,) = _claims(report, label)
        assert f.status == "UNVERIFIED" and f.code in ("blocked-by-integrity", "incomplete-denominator"), (label, f.status, f.code, f.message)
        assert rel in f.message
    # what the blocked file does not cover still derives
    assert _claims(report, "aggregate_mean_ms[arm=baseline]")[0].status == "PASS"
    assert _claims(report, "pass_mean_ms[arm=candidate][server=2]")[0].status == "PASS"
    for rule_id in ("aggregate-mean-reduction-at-least-2pct", "each-candidate-pass-mean-below-baseline"):
        f = _rule(report, rule_id)
        assert f.status == "UNVERIFIED" and rel in f.message, (rule_id, f.status, f.message)
    assert not [f for f in _by(report, "gate.rules") if f.status == "PASS"]


def test_unreadable_receipt_makes_the_statistics_over_it_unverified_not_computed_on_the_rest(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    rel = "e2e/baseline-measured-2.jsonl"
    (bundle / rel).write_text((bundle / rel).read_text().replace('"latency_s": ', '"latency_s": NaN, "x": ', 1))
    repin_files_map(bundle, rel)
    report = verify_path(str(bundle))
    (f,) = _claims(report, "aggregate_mean_ms[arm=baseline]")
    assert f.status == "UNVERIFIED" and f.code == "incomplete-denominator" and rel in f.message
    assert _rule(report, "aggregate-mean-reduction-at-least-2pct").status == "UNVERIFIED"


def test_blocked_kernel_results_leave_every_kernel_claim_unverified(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    rel = "kernel/analysis/results.jsonl"
    _flip_one_byte(bundle / rel, b"7", b"8")
    report = verify_path(str(bundle))
    kernel = [f for f in _by(report, "derivation.claims") if f.message.startswith("kernel_")]
    assert kernel and all(f.status == "UNVERIFIED" and rel in f.message for f in kernel), [f.message for f in kernel if f.status != "UNVERIFIED"][:3]


# ---------------------------------------------------------------- 2. every stated claim yields a finding


def test_stated_pass_without_receipts_is_not_derivable(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    summary = json.loads((bundle / "e2e/summary.json").read_text())
    summary["arms"]["candidate"]["passes"].append({"pass": 3, "requests": 74, "mean_ms": 40.0})
    (bundle / "e2e/summary.json").write_text(json.dumps(summary, indent=2))
    repin_files_map(bundle, "e2e/summary.json")
    report = verify_path(str(bundle))
    stated = {f.pointer: f for f in _by(report, "derivation.claims") if f.pointer and f.pointer.startswith("/arms/candidate/passes/2/")}
    assert set(stated) == {"/arms/candidate/passes/2/mean_ms", "/arms/candidate/passes/2/requests"}, sorted(stated)
    for f in stated.values():
        assert (f.status, f.code, f.path) == ("UNVERIFIED", "not-derivable", "e2e/summary.json"), f.message
        assert "server=3" in f.message
    assert report.verdict != "PASS"


def test_hyperfine_command_with_no_times_but_stated_statistics_is_not_derivable(tmp_path):
    doc = json.loads(EXPORT.read_text())
    doc["results"][1]["times"] = []
    doc["results"][1]["exit_codes"] = []
    out = tmp_path / "bench.json"
    out.write_text(json.dumps(doc, indent=2))
    report = verify_path(str(out), profile="hyperfine")
    stated = {f.pointer: f for f in _by(report, "derivation.claims") if f.pointer and f.pointer.startswith("/results/1/")}
    assert {"/results/1/mean", "/results/1/min", "/results/1/max", "/results/1/median"} <= set(stated), sorted(stated)
    assert all(f.status == "UNVERIFIED" and f.code == "not-derivable" and f.path == "bench.json" for f in stated.values())
    assert report.verdict != "PASS"


def test_extra_stated_kernel_pass_and_extra_duration_are_not_derivable(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    rel = "kernel/analysis/summary.json"
    summary = json.loads((bundle / rel).read_text())
    summary["shapes"][0]["baseline_ms"].append(0.05)
    (bundle / rel).write_text(json.dumps(summary, indent=2))
    repin_files_map(bundle, rel)
    report = verify_path(str(bundle))
    (f,) = [f for f in _by(report, "derivation.claims") if f.pointer == "/shapes/0/baseline_ms/2"]
    assert (f.status, f.code) == ("UNVERIFIED", "not-derivable")

    pr = copy_bundle("vllm-omni-pr6540", tmp_path)
    rel = "artifacts/results.json"
    results = json.loads((pr / rel).read_text())
    by_duration = results["measured_summary_by_duration"]
    by_duration["99"] = dict(next(iter(by_duration.values())))
    (pr / rel).write_text(json.dumps(results, indent=2))
    report = verify_path(str(pr))
    extra = [f for f in _by(report, "derivation.claims") if f.pointer and f.pointer.startswith("/measured_summary_by_duration/99/")]
    assert len(extra) == 6 and all(f.status == "UNVERIFIED" and f.code == "not-derivable" for f in extra), [f.message for f in extra]


def test_blocked_kernel_results_yield_a_finding_per_stated_kernel_value(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    rel = "kernel/analysis/results.jsonl"
    _flip_one_byte(bundle / rel, b"7", b"8")
    report = verify_path(str(bundle))
    kernel = [f for f in _by(report, "derivation.claims") if f.message.startswith("kernel_")]
    assert len(kernel) == 18  # 3 shapes x 2 passes x (baseline, candidate, reduction)
    assert all(f.status == "UNVERIFIED" and rel in f.message for f in kernel)


# ---------------------------------------------------------------- 3. impossible values


def test_negative_hyperfine_times_fail_as_impossible_values(tmp_path):
    doc = json.loads(EXPORT.read_text())
    r = doc["results"][0]
    r.update(times=[-1.0, -2.0, -3.0], exit_codes=[0, 0, 0], mean=-2.0, median=-2.0, min=-3.0, max=-1.0, stddev=1.0)
    out = tmp_path / "bench.json"
    out.write_text(json.dumps(doc, indent=2))
    report = verify_path(str(out), profile="hyperfine")
    bad = _by(report, "schema.documents", "impossible-value")
    assert len(bad) == 3 and all(f.status == "FAIL" and f.path == "bench.json" and f.expected == "latency" for f in bad)
    assert {f.pointer for f in bad} == {"/results/0/times/0", "/results/0/times/1", "/results/0/times/2"}
    derived = [f for f in _by(report, "derivation.claims") if "[arm=sleep 0.1]" in f.message]
    assert derived and not [f for f in derived if f.status == "PASS"], [f.message for f in derived if f.status == "PASS"]
    assert report.verdict == "FAIL"


def test_zero_latency_and_zero_stage_duration_fail(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    rel = "e2e/baseline-measured-2.jsonl"
    lines = (bundle / rel).read_text().split("\n")
    record = json.loads(lines[3])
    record["latency_s"] = 0
    lines[3] = json.dumps(record)
    (bundle / rel).write_text("\n".join(lines))
    repin_files_map(bundle, rel)
    report = verify_path(str(bundle))
    (bad,) = _by(report, "schema.documents", "impossible-value")
    assert (bad.status, bad.path, bad.pointer, bad.expected) == ("FAIL", rel, "#line=4", "latency")
    assert _claims(report, "pass_mean_ms[arm=baseline][server=2]")[0].status != "PASS"

    pr = copy_bundle("vllm-omni-pr6540", tmp_path)
    rel = "artifacts/native-2k/results.json"
    doc = json.loads((pr / rel).read_text())
    doc["records"][-1]["stage_0_draft_s"] = -0.5
    (pr / rel).write_text(json.dumps(doc, indent=2))
    report = verify_path(str(pr))
    (bad,) = _by(report, "schema.documents", "impossible-value")
    assert (bad.status, bad.path, bad.expected) == ("FAIL", rel, "stage_0")


# ---------------------------------------------------------------- 4. `verify changed` sees profile bundles


def test_changed_finds_the_enclosing_sha256sums_bundle_by_profile_detection(tmp_path, run, monkeypatch):
    import shutil

    evidence = tmp_path / "evidence"
    evidence.mkdir()
    shutil.copytree(CORPUS / "vllm-omni-pr6540", evidence / "pr6540")
    monkeypatch.chdir(tmp_path)
    result = run("changed", "evidence/pr6540/artifacts/native-2k/results.json", "README.md")
    assert result.exit_code == 3 and "verify: INCOMPLETE: evidence/pr6540" in result.stderr, result.stderr
    assert "evidence/pr6540/artifacts/native-2k/results.json: not inside any bundle" not in result.stderr
    path = evidence / "pr6540" / "artifacts" / "native-2k" / "results.json"
    path.write_text(path.read_text().replace("0e9a1ba2ef27", "0e9a1ba2ef28", 1))  # an output digest not in SHA256SUMS.txt
    result = run("changed", "evidence/pr6540/artifacts/native-2k/results.json")
    assert result.exit_code == 1 and "verify: FAIL: evidence/pr6540" in result.stderr


def _repository(tmp_path, digest_of):
    import hashlib
    import shutil

    repo = tmp_path / "repo"
    (repo / "evidence").mkdir(parents=True)
    shutil.copytree(CORPUS / "vllm-omni-pr6540", repo / "evidence" / "pr6540")
    digest = hashlib.sha256((repo / "evidence" / "pr6540" / digest_of).read_bytes()).hexdigest()
    (repo / "evidence-inventory.json").write_text(json.dumps({"format": "verify-evidence-inventory", "format_version": 1,
                                                              "bundles": {"pr6540": {"kind": "pilot", "manifest_sha256": digest}}}))
    return repo


def test_inventory_registers_a_foreign_bundle_by_the_manifest_its_profile_names(tmp_path, run):
    from verifier.commands.repository import verify_repository

    repo = _repository(tmp_path, "SHA256SUMS.txt")
    report = verify_repository(str(repo))
    (registered,) = [f for f in report.findings if f.check == "inventory.registered" and f.path == "evidence-inventory.json" and f.pointer]
    assert (registered.status, registered.code) == ("PASS", "registered"), registered.message
    assert "SHA256SUMS.txt" in registered.message
    (verdict,) = [f for f in report.findings if f.code == "bundle-verdict"]
    assert verdict.observed == "INCOMPLETE" and report.verdict == "INCOMPLETE"
    assert run("inventory", str(repo)).exit_code == 3
    (repo / "evidence" / "pr6540" / "SHA256SUMS.txt").write_text("")  # the manifest changed after registration
    changed = [f for f in verify_repository(str(repo)).findings if f.code == "manifest-digest-changed"]
    assert len(changed) == 1 and changed[0].status == "FAIL" and "SHA256SUMS.txt" in changed[0].message


def test_a_blocked_claim_file_is_never_parsed(tmp_path):
    bundle = copy_bundle("system1-omni-gdn-20261003", tmp_path)
    _flip_one_byte(bundle / "e2e/summary.json", b"{", b"[")  # no longer JSON, and not what the manifest pinned
    report = verify_path(str(bundle), profile="system1-omni-gdn")
    on_summary = [f for f in _by(report, "derivation.claims") if f.path == "e2e/summary.json"]
    assert on_summary and all(f.status == "UNVERIFIED" and f.code == "blocked-by-integrity" for f in on_summary), \
        sorted({(f.code, f.status) for f in on_summary})
