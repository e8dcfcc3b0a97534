"""
The bundle pipeline on the shipped example and on mutated copies of it.

Each fault of issue 2 gets a mutated copy with its expected verdict and the
finding's (check, status, code).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import unicodedata
from decimal import Decimal
from pathlib import Path

import pytest
from bundlekit import ROOT, codes, edit_json, read_lines, rehash, write_lines

from verifier.core import verify_path
from verifier.errors import PinMismatch
from verifier.model.findings import Status


def verify(bundle: Path, **kw):
    return verify_path(str(bundle), **kw)


def snapshot(root: Path) -> dict[str, tuple[int, float, str]]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink():
            st = p.stat()
            out[str(p)] = (st.st_size, st.st_mtime, p.read_bytes().hex()[:64])
    return out


# --- the shipped example -------------------------------------------------------

def test_example_passes_and_lists_its_roster(run):
    result = run(str(ROOT / "examples" / "ref2va-5s"))
    assert result.exit_code == 0, result.stdout
    assert "verdict: PASS" in result.stdout
    for check in ("integrity.files", "gate.pinned", "schema.documents", "plan.conformance", "derivation.claims", "quality.recorded"):
        assert check in result.stdout


def test_example_headline_rederives(example_copy):
    report = verify(example_copy)
    derived = {f.message.split(" ")[0]: f for f in report.findings if f.check == "derivation.claims"}
    assert derived["arm_mean_s.baseline"].status == "PASS" and derived["arm_mean_s.baseline"].expected.startswith("407.27")
    assert derived["arm_mean_s.candidate"].expected.startswith("108.12")
    assert derived["reduction_pct"].expected.startswith("73.452")
    assert derived["speedup_x"].expected.startswith("3.766")
    assert derived["count.worker_exits"].expected == "32"
    assert derived["count.comparisons"].expected == "14"


def test_verification_never_writes_into_the_bundle(example_copy):
    before = snapshot(example_copy)
    verify(example_copy)
    (example_copy / "receipts.jsonl").write_bytes((example_copy / "receipts.jsonl").read_bytes().replace(b"396", b"397", 1))
    before = snapshot(example_copy)
    verify(example_copy)
    assert snapshot(example_copy) == before


def test_json_report_validates_against_report_schema(run, example_copy):
    from verifier.trust.assets import assets, schema_validator

    (example_copy / "extra.txt").write_text("x")
    result = run("--format", "json", str(example_copy)) if False else run("check", "-f", "json", str(example_copy))
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    schema_validator(assets().schema("report")).validate(document)
    assert document["verdict"] == "FAIL" and document["exit_code"] == 1
    assert [r["check"] for r in document["roster"]][0] == "integrity.files"


# --- integrity -----------------------------------------------------------------

def test_receipt_byte_changed_same_size_fails_sha256(example_copy):
    path = example_copy / "receipts.jsonl"
    data = bytearray(path.read_bytes())
    i = data.index(b"396.30") + 2
    data[i] = ord("7")
    path.write_bytes(bytes(data))
    report = verify(example_copy)
    assert report.verdict == "FAIL"
    assert ("integrity.files", "FAIL", "sha256-mismatch") in codes(report)
    assert ("integrity.files", "FAIL", "size-mismatch") not in codes(report)
    # the tampered receipts are not parsed
    assert ("schema.documents", "UNVERIFIED", "blocked-by-integrity") in codes(report)


def test_every_problem_is_reported_not_only_the_first(example_copy):
    (example_copy / "media" / "A1-m1.mp4").unlink()
    (example_copy / "media" / "B1-m1.mp4").unlink()
    (example_copy / "stray.txt").write_text("x")
    (example_copy / ".hidden").write_text("x")
    with open(example_copy / "media" / "A2-m1.mp4", "ab") as f:
        f.write(b"\0")
    report = verify(example_copy)
    missing = [f.path for f in report.findings if f.code == "missing-file"]
    unlisted = [f.path for f in report.findings if f.code == "unlisted-file"]
    assert sorted(missing) == ["media/A1-m1.mp4", "media/B1-m1.mp4"]
    assert sorted(unlisted) == [".hidden", "stray.txt"]
    assert [f.path for f in report.findings if f.code == "size-mismatch"] == ["media/A2-m1.mp4"]
    assert report.exit_code == 1


def test_manifest_path_with_dotdot_fails_and_is_not_read(example_copy, tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    manifest = json.loads((example_copy / "manifest.json").read_text())
    manifest["files"].append({"path": "../secret.txt", "sha256": "0" * 64, "size": 6})
    manifest["files"].append({"path": "/etc/passwd", "sha256": "0" * 64, "size": 6})
    (example_copy / "manifest.json").write_text(json.dumps(manifest))
    report = verify(example_copy)
    unsafe = [f for f in report.findings if f.code == "unsafe-path"]
    assert {f.observed for f in unsafe} == {"../secret.txt", "/etc/passwd"}
    assert report.verdict == "FAIL"


def test_symlink_out_of_bundle_fails_and_is_never_read(example_copy, tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    (example_copy / "link.json").symlink_to(outside)
    (example_copy / "media" / "inner").symlink_to(example_copy / "plan.json")
    report = verify(example_copy)
    assert ("integrity.files", "FAIL", "symlink-escape") in codes(report)
    assert ("integrity.files", "FAIL", "symlink") in codes(report)


def test_symlink_listed_in_manifest_is_not_followed(example_copy, tmp_path):
    outside = tmp_path / "payload.mp4"
    shutil.copy(example_copy / "media" / "A1-m1.mp4", outside)
    (example_copy / "media" / "A1-m1.mp4").unlink()
    (example_copy / "media" / "A1-m1.mp4").symlink_to(outside)
    report = verify(example_copy)
    assert ("integrity.files", "FAIL", "symlink-escape") in codes(report)
    assert not any(f.code == "match" and f.path == "media/A1-m1.mp4" for f in report.findings)


def test_nfd_manifest_name_matches_nfc_file_h09(example_copy):
    nfc_name = unicodedata.normalize("NFC", "data/cer\u00e1mica.txt")
    nfd_name = unicodedata.normalize("NFD", nfc_name)
    (example_copy / "data").mkdir()
    (example_copy / nfc_name).write_text("clay")
    rehash(example_copy)
    manifest = json.loads((example_copy / "manifest.json").read_text())
    for entry in manifest["files"]:
        if entry["path"] == nfc_name:
            entry["path"] = nfd_name
    (example_copy / "manifest.json").write_text(json.dumps(manifest))
    report = verify(example_copy)
    assert report.verdict == "PASS", [f for f in report.findings if f.status != "PASS"]
    assert any(f.code == "match" and f.path == nfc_name for f in report.findings)


def test_two_spellings_that_collide_after_nfc_fail_h09(example_copy):
    (example_copy / "data").mkdir()
    (example_copy / "data" / unicodedata.normalize("NFC", "cer\u00e1mica.txt")).write_text("a")
    (example_copy / "data" / unicodedata.normalize("NFD", "cer\u00e1mica.txt")).write_text("b")
    rehash(example_copy)
    report = verify(example_copy)
    assert ("integrity.files", "FAIL", "name-collision") in codes(report)


def _made_external(example_copy, tmp_path):
    """Move media/A1-m1.mp4 out of the bundle into tmp_path/artifacts/media and list it as external; return that directory."""
    manifest = json.loads((example_copy / "manifest.json").read_text())
    moved = tmp_path / "artifacts" / "media"
    moved.mkdir(parents=True)
    entry = next(e for e in manifest["files"] if e["path"] == "media/A1-m1.mp4")
    manifest["files"].remove(entry)
    manifest["external"].append({**entry, "source": "https://example.invalid/A1-m1.mp4", "reason": "raw media kept outside the repository"})
    (example_copy / "manifest.json").write_text(json.dumps(manifest))
    shutil.move(str(example_copy / "media" / "A1-m1.mp4"), moved / "A1-m1.mp4")
    return moved


def test_external_artifact_is_unverified_not_missing_h08(example_copy, tmp_path):
    moved = _made_external(example_copy, tmp_path)
    report = verify(example_copy)
    assert ("integrity.files", "UNVERIFIED", "external-not-supplied") in codes(report)
    assert not any(f.code == "missing-file" for f in report.findings)
    assert report.verdict == "INCOMPLETE" and int(report.exit_code) == 3
    supplied = verify(example_copy, artifacts=str(tmp_path / "artifacts"))
    assert ("integrity.files", "PASS", "external-match") in codes(supplied)
    assert supplied.verdict == "PASS"
    (moved / "A1-m1.mp4").write_bytes(b"not the file")
    assert ("integrity.files", "FAIL", "external-mismatch") in codes(verify(example_copy, artifacts=str(tmp_path / "artifacts")))


def test_an_external_artifact_swapped_after_it_matched_fails_integrity_unchanged(example_copy, tmp_path, monkeypatch):
    from verifier.checks import coverage

    moved = _made_external(example_copy, tmp_path)
    other = (example_copy / "media" / "B2-m3.mp4").read_bytes()
    real = coverage.check_file

    def swapped(path, name, *args, **kw):  # another process replaces the artifact between its hash and its demux
        if name == "media/A1-m1.mp4":
            (moved / "A1-m1.mp4").write_bytes(other)
        return real(path, name, *args, **kw)

    monkeypatch.setattr(coverage, "check_file", swapped)
    report = verify(example_copy, artifacts=str(tmp_path / "artifacts"))
    assert ("integrity.unchanged", "FAIL", "changed-during-verification") in codes(report)
    assert report.verdict == "FAIL"


def test_file_removed_fails_h08(example_copy):
    (example_copy / "media" / "B2-m3.mp4").unlink()
    report = verify(example_copy)
    assert ("integrity.files", "FAIL", "missing-file") in codes(report)
    assert report.exit_code == 1


def test_empty_directory_is_never_a_pass_h19(tmp_path, run):
    """H-19 (an empty submission root validated "successfully"): `verify EMPTY` is INCOMPLETE, exit 3 (no bundle: nothing to check, docs/exit-codes.md)."""
    (tmp_path / "empty").mkdir()
    report = verify(tmp_path / "empty")
    assert report.verdict == "INCOMPLETE" and report.kind == "discovery"
    assert codes(report) == {("discovery.claims", "UNVERIFIED", "nothing-to-bind")}
    assert run(str(tmp_path / "empty")).exit_code == 3


def test_the_bundle_pipeline_on_an_empty_directory_fails_no_evidence_h19(tmp_path):
    """A caller running the bundle pipeline itself on an empty directory gets integrity's FAIL `no-evidence`."""
    from verifier.formats.bundle import Bundle
    from verifier.core import BUNDLE_PIPELINE
    from verifier.engine.pipeline import Context, run_pipeline
    from verifier.trust.assets import assets
    from verifier.trust.trustroot import TrustSet

    (tmp_path / "empty").mkdir()
    ctx = Context(subject=tmp_path / "empty", assets=TrustSet(assets(None)), bundle=Bundle(root=tmp_path / "empty"), options={})
    findings, _ = run_pipeline(BUNDLE_PIPELINE, ctx)
    assert ("integrity.files", "FAIL", "no-evidence") in {(f.check, f.status.value, f.code) for f in findings}


# --- schema --------------------------------------------------------------------

def test_duplicate_key_in_claims_fails(example_copy):
    path = example_copy / "claims.json"
    path.write_text(path.read_text().replace('"format": "verify-claims",', '"format": "verify-claims", "x": 1, "x": 2,', 1))
    rehash(example_copy)
    report = verify(example_copy)
    assert ("schema.documents", "FAIL", "duplicate-key") in codes(report)
    assert ("derivation.claims", "UNVERIFIED", "blocked-by-schema") in codes(report)
    assert report.verdict == "FAIL"


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_claim_fails_h10(example_copy, token):
    path = example_copy / "claims.json"
    path.write_text(path.read_text().replace("\"value\": 73.45", f"\"value\": {token}", 1))
    rehash(example_copy)
    report = verify(example_copy)
    assert ("schema.documents", "FAIL", "non-finite-number") in codes(report)
    assert report.verdict == "FAIL"


def test_date_time_holding_not_a_date_fails_h11(example_copy):
    edit_json(example_copy / "plan.json", lambda d: d.update(frozen_at="not a date"))
    rehash(example_copy)
    report = verify(example_copy)
    bad = [f for f in report.findings if f.code == "schema-violation"]
    assert bad and bad[0].path == "plan.json" and bad[0].pointer == "/frozen_at"
    assert report.verdict == "FAIL"


def test_non_utf8_document_fails(example_copy):
    path = example_copy / "claims.json"
    path.write_bytes(path.read_bytes().replace(b"HTTP E2E", b"HTTP \xff\xfe", 1))
    rehash(example_copy)
    assert ("schema.documents", "FAIL", "not-utf8") in codes(verify(example_copy))


def test_receipt_without_phase_is_refused_h04(example_copy):
    rows = read_lines(example_copy / "receipts.jsonl")
    del rows[3]["phase"]
    write_lines(example_copy / "receipts.jsonl", rows)
    rehash(example_copy)
    report = verify(example_copy)
    assert any(f.code == "schema-violation" and f.pointer == "/3" for f in report.findings)
    assert report.verdict == "FAIL"


def test_unknown_json_document_fails(example_copy):
    (example_copy / "notes.json").write_text("{}")
    rehash(example_copy)
    assert ("schema.documents", "FAIL", "unknown-document") in codes(verify(example_copy))


def test_schema_without_dollar_schema_is_refused_h12():
    from verifier.errors import ConfigError
    from verifier.trust.assets import schema_validator

    with pytest.raises(ConfigError, match=r"\$schema"):
        schema_validator({"type": "array", "prefixItems": [{"type": "integer"}]})
    validator = schema_validator({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array",
                                  "prefixItems": [{"type": "integer"}, {"type": "integer"}], "minItems": 2})
    assert not validator.is_valid(["a", "b"])
    assert validator.is_valid([1, 2])


def test_missing_format_checker_fails_closed_h11(monkeypatch):
    from jsonschema import Draft202012Validator

    from verifier.errors import ConfigError
    from verifier.trust.assets import schema_validator

    checkers = dict(Draft202012Validator.FORMAT_CHECKER.checkers)
    checkers.pop("date-time")
    monkeypatch.setattr(Draft202012Validator.FORMAT_CHECKER, "checkers", checkers)
    with pytest.raises(ConfigError, match="date-time"):
        schema_validator({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string", "format": "date-time"})


# --- derivation and plan -------------------------------------------------------

def test_headline_off_by_one_in_last_place_fails(example_copy):
    edit_json(example_copy / "claims.json", lambda d: [c.update(value=Decimal("73.46")) for c in d["claims"] if c["id"] == "reduction_pct"])
    rehash(example_copy)
    report = verify(example_copy)
    bad = [f for f in report.findings if f.code == "claim-mismatch"]
    assert len(bad) == 1 and bad[0].pointer.startswith("/claims/") and bad[0].observed["claimed"] == "73.46"
    assert bad[0].observed["derived"].startswith("73.4525")
    assert report.verdict == "FAIL"


def test_headline_computed_with_warmups_included_fails_h04(example_copy):
    rows = read_lines(example_copy / "receipts.jsonl")
    a1 = [r["elapsed_s"] for r in rows if r.get("server") == "A1" and r["kind"] == "request"]
    mixed = (sum(a1) / len(a1)).quantize(Decimal("0.01"))
    edit_json(example_copy / "claims.json", lambda d: [c.update(value=mixed) for c in d["claims"] if c["id"] == "server_mean_s.A1"])
    rehash(example_copy)
    report = verify(example_copy)
    bad = [f for f in report.findings if f.code == "claim-mismatch"]
    assert [f.message.split(" ")[0] for f in bad] == ["server_mean_s.A1"]
    assert bad[0].expected.startswith("396.3")


def test_measured_request_missing_from_receipts_fails(example_copy):
    rows = [r for r in read_lines(example_copy / "receipts.jsonl") if r.get("request_id") != "B2-m2"]
    write_lines(example_copy / "receipts.jsonl", rows)
    rehash(example_copy)
    report = verify(example_copy)
    assert ("plan.conformance", "FAIL", "missing-receipt") in codes(report)
    assert ("derivation.claims", "FAIL", "incomplete-denominator") in codes(report)


def test_failed_request_dropped_from_mean_fails_h01(example_copy):
    rows = read_lines(example_copy / "receipts.jsonl")
    for r in rows:
        if r.get("request_id") == "B1-m1":
            r["outcome"] = "failed"
    write_lines(example_copy / "receipts.jsonl", rows)
    survivors = [r["elapsed_s"] for r in rows if r.get("server") == "B1" and r.get("phase") == "measured" and r["outcome"] == "ok"]
    edit_json(example_copy / "claims.json", lambda d: [c.update(value=(sum(survivors) / 2).quantize(Decimal("0.01")))
                                                      for c in d["claims"] if c["id"] == "server_mean_s.B1"])
    rehash(example_copy)
    report = verify(example_copy)
    bad = [f for f in report.findings if f.code == "incomplete-denominator"]
    assert any("server_mean_s.B1" in f.message and "2/3" in f.message for f in bad)
    assert report.verdict == "FAIL"


def test_unplanned_and_duplicate_receipts_fail(example_copy):
    rows = read_lines(example_copy / "receipts.jsonl")
    extra = dict(rows[2], request_id="A1-m9")
    rows += [extra, dict(rows[3])]
    write_lines(example_copy / "receipts.jsonl", rows)
    rehash(example_copy)
    report = verify(example_copy)
    assert ("plan.conformance", "FAIL", "unplanned-receipt") in codes(report)
    assert ("plan.conformance", "FAIL", "duplicate-receipt") in codes(report)


def test_warmup_after_measured_and_arm_order_fail(example_copy):
    rows = read_lines(example_copy / "receipts.jsonl")
    by_id = {r.get("request_id"): r for r in rows}
    w, m = by_id["A1-w2"], by_id["A1-m1"]
    w["started_at"], w["ended_at"], m["started_at"], m["ended_at"] = m["started_at"], m["ended_at"], w["started_at"], w["ended_at"]
    w["elapsed_s"], m["elapsed_s"] = m["elapsed_s"], w["elapsed_s"]
    write_lines(example_copy / "receipts.jsonl", rows)
    edit_json(example_copy / "plan.json", lambda d: d.update(arm_order=["A", "B", "A", "B"]))
    rehash(example_copy)
    report = verify(example_copy)
    assert ("plan.conformance", "FAIL", "warmup-after-measured") in codes(report)
    assert ("plan.conformance", "FAIL", "plan-inconsistent") in codes(report)
    assert ("plan.conformance", "FAIL", "gate-plan-mismatch") in codes(report)


def test_elapsed_disagreeing_with_timestamps_fails(example_copy):
    rows = read_lines(example_copy / "receipts.jsonl")
    rows[2]["elapsed_s"] = rows[2]["elapsed_s"] + Decimal("0.5")
    write_lines(example_copy / "receipts.jsonl", rows)
    rehash(example_copy)
    assert ("plan.conformance", "FAIL", "elapsed-mismatch") in codes(verify(example_copy))


def test_output_digest_differing_from_manifest_fails(example_copy):
    rows = read_lines(example_copy / "receipts.jsonl")
    rows[0]["outputs"][0]["sha256"] = "f" * 64
    write_lines(example_copy / "receipts.jsonl", rows)
    rehash(example_copy)
    assert ("plan.conformance", "FAIL", "output-digest-mismatch") in codes(verify(example_copy))


def test_claim_without_derivation_is_unverified_not_pass(example_copy):
    edit_json(example_copy / "claims.json", lambda d: d["claims"].append({"id": "p99_s", "value": Decimal("1.0")}))
    rehash(example_copy)
    report = verify(example_copy)
    assert ("derivation.claims", "UNVERIFIED", "not-derivable") in codes(report)
    assert report.verdict == "INCOMPLETE" and int(report.exit_code) == 3


def test_count_claim_not_recomputable_fails_h07(example_copy):
    edit_json(example_copy / "claims.json", lambda d: [c.update(value=13) for c in d["claims"] if c["id"] == "count.comparisons"])
    rehash(example_copy)
    assert ("derivation.claims", "FAIL", "claim-mismatch") in codes(verify(example_copy))


def test_recorded_score_below_threshold_fails(example_copy):
    edit_json(example_copy / "quality-index.json", lambda d: d["comparisons"][0]["scores"].update(ssim=Decimal("0.969")))
    rehash(example_copy)
    report = verify(example_copy)
    assert ("quality.recorded", "FAIL", "threshold-missed") in codes(report)


def test_quality_comparison_naming_unlisted_media_fails(example_copy):
    edit_json(example_copy / "quality-index.json", lambda d: d["comparisons"][0].update(candidate="media/nowhere.mp4"))
    rehash(example_copy)
    assert ("quality.recorded", "FAIL", "media-not-in-bundle") in codes(verify(example_copy))


def test_required_score_missing_fails(example_copy):
    edit_json(example_copy / "quality-index.json", lambda d: d["comparisons"][2]["scores"].pop("audio_cosine"))
    rehash(example_copy)
    assert ("quality.recorded", "FAIL", "score-missing") in codes(verify(example_copy))


# --- gate pinning --------------------------------------------------------------

def test_unknown_gate_fails(example_copy):
    edit_json(example_copy / "manifest.json", lambda d: d.update(gate="no-such-gate"))
    report = verify(example_copy)
    assert ("gate.pinned", "FAIL", "unknown-gate") in codes(report)
    assert report.exit_code == 1


def test_gate_edited_without_updating_inventory_refuses_to_start(tmp_path, example_copy):
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "verifier", tree / "verifier", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("schemas", "gates", "profiles"):
        shutil.copytree(ROOT / name, tree / name)
    shutil.copy(ROOT / "inventory.json", tree / "inventory.json")
    gate = tree / "gates" / "ref2va-5s-v1.json"
    gate.write_text(gate.read_text().replace('"min": 0.97', '"min": 0.5'))
    with pytest.raises(PinMismatch):
        verify_path(str(example_copy), asset_root=str(tree))
    env = {**os.environ, "PYTHONPATH": str(tree)}
    result = subprocess.run([sys.executable, "-m", "verifier", str(example_copy)], cwd=tree, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "ref2va-5s-v1.json" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_unpinned_schema_refuses_to_start(tmp_path):
    from verifier.trust.assets import Assets

    root = Path(__import__("bundlekit").asset_root(tmp_path))
    (root / "schemas" / "extra.schema.json").write_text("{}")
    with pytest.raises(PinMismatch, match="not pinned"):
        Assets(root)


# --- bad input -----------------------------------------------------------------

def test_missing_path_is_usage_error(run, tmp_path):
    result = run(str(tmp_path / "nope"))
    assert result.exit_code == 2
    assert "no such file or directory" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_file_instead_of_directory_is_usage_error(run, tmp_path):
    (tmp_path / "x.txt").write_text("hello")
    result = run(str(tmp_path / "x.txt"))
    assert result.exit_code == 2
    assert "x.txt" in result.stderr and "not a bundle directory" in result.stderr
    (tmp_path / "y.json").write_text('{"a": 1}')
    result = run(str(tmp_path / "y.json"))
    assert result.exit_code == 2 and "known producer" in result.stderr


def test_non_json_manifest_fails_naming_the_file(example_copy, run):
    (example_copy / "manifest.json").write_text("this is not json")
    result = run(str(example_copy))
    assert result.exit_code == 1
    assert "manifest.json: not valid JSON" in result.stdout
    assert "Traceback" not in result.stdout


def test_manifest_of_wrong_schema_fails(example_copy):
    (example_copy / "manifest.json").write_text(json.dumps({"files": {"a": 1}}))
    report = verify(example_copy)
    assert ("integrity.files", "FAIL", "manifest-schema") in codes(report)
    assert report.exit_code == 1


def test_special_file_in_bundle_fails(example_copy):
    os.mkfifo(example_copy / "pipe")
    report = verify(example_copy)
    assert ("integrity.files", "FAIL", "special-file") in codes(report)


def test_crash_inside_a_check_is_error_not_traceback(example_copy, monkeypatch):
    from verifier.engine import derive  # derivation.claims judges every row through derive.judge (issue 36)

    def boom(*a, **k):
        raise RuntimeError("synthetic crash")

    monkeypatch.setattr(derive, "derive_rule", boom)
    report = verify(example_copy)
    assert ("derivation.claims", "ERROR", "verifier-error") in codes(report)
    assert report.verdict == "ERROR" and int(report.exit_code) == 4


def test_no_pass_at_all_is_never_pass():
    from verifier.model.findings import Finding, verdict_of

    assert verdict_of([]) == "INCOMPLETE"
    assert verdict_of([Finding(check="a.b", status=Status.PASS, code="x", message="m")]) == "PASS"


# --- hardening found by the adversarial review --------------------------------

def test_documents_are_parsed_from_the_bytes_that_were_hashed(example_copy, monkeypatch):
    from verifier.checks import integrity

    claims = example_copy / "claims.json"
    good = claims.read_bytes()
    claims.write_bytes(good.replace(b'"value": 73.45', b'"value": 99.99'))
    rehash(example_copy)  # the manifest pins the wrong claim
    original = integrity.hash_many

    def hash_then_swap(*args, **kwargs):
        result = original(*args, **kwargs)
        claims.write_bytes(good)  # swapped in after hashing, before parsing
        return result

    monkeypatch.setattr(integrity, "hash_many", hash_then_swap)
    report = verify(example_copy)
    assert report.verdict == "FAIL"
    assert any(f.code == "claim-mismatch" and "99.99" in f.message for f in report.findings)


def test_media_changed_during_verification_fails(example_copy, monkeypatch):
    from verifier.checks import coverage

    original = coverage.check_file

    def check_then_tamper(path, name, *args, **kwargs):
        result = original(path, name, *args, **kwargs)
        if name == "media/B1-m1.mp4":
            with open(path, "r+b") as f:
                f.seek(100)
                f.write(b"\xde\xad\xbe\xef")
        return result

    monkeypatch.setattr(coverage, "check_file", check_then_tamper)
    report = verify(example_copy)
    assert ("integrity.unchanged", "FAIL", "changed-during-verification") in codes(report)
    assert report.verdict == "FAIL"


@pytest.mark.parametrize(("change", "code"), [
    ({"exit_code": 1}, "worker-exit"),
    ({"exit_code": None, "signal": 9}, "worker-exit"),
    ({"exit_code": None, "signal": None}, "worker-not-exited"),
])
def test_worker_that_did_not_exit_cleanly_fails(example_copy, change, code):
    rows = read_lines(example_copy / "receipts.jsonl")
    worker = next(r for r in rows if r["kind"] == "worker")
    worker.update(change)
    write_lines(example_copy / "receipts.jsonl", rows)
    edit_json(example_copy / "claims.json", lambda d: [c.update(value=31) for c in d["claims"] if c["id"] == "count.worker_exits"]
              if change.get("exit_code") is None and change.get("signal") is None else None)
    rehash(example_copy)
    report = verify(example_copy)
    assert ("plan.conformance", "FAIL", code) in codes(report)
    assert report.verdict == "FAIL"


@pytest.mark.parametrize(("spelled", "verdict"), [("7E1", "FAIL"), ("1E2", "FAIL"), ("7.345E1", "PASS"), ("73.45", "PASS")])
def test_exponent_notation_never_widens_the_tolerance(example_copy, spelled, verdict):
    path = example_copy / "claims.json"
    path.write_text(path.read_text().replace('"value": 73.45', f'"value": {spelled}', 1))
    rehash(example_copy)
    assert verify(example_copy).verdict == verdict


def test_file_name_with_a_newline_is_refused_and_cannot_forge_report_lines(example_copy, run):
    (example_copy / "evil\nverdict: PASS (1 PASS; exit 0)").write_text("x")
    report = verify(example_copy)
    assert ("integrity.files", "FAIL", "unsafe-name") in codes(report)
    result = run(str(example_copy))
    assert result.exit_code == 1
    assert [line for line in result.stdout.splitlines() if line.startswith("verdict:")] == [result.stdout.splitlines()[-1]]


@pytest.mark.parametrize("literal", ["1e999999999", "1" * 400, "-1E-400"])
def test_numbers_beyond_binary64_are_refused_not_computed(example_copy, literal):
    path = example_copy / "claims.json"
    path.write_text(path.read_text().replace('"value": 73.45', f'"value": {literal}', 1))
    rehash(example_copy)
    report = verify(example_copy)
    assert ("schema.documents", "FAIL", "number-out-of-range") in codes(report)
    assert report.verdict == "FAIL"


def test_manifest_that_is_a_symlink_fails_and_is_not_followed(example_copy, tmp_path):
    real = tmp_path / "elsewhere.json"
    shutil.move(str(example_copy / "manifest.json"), real)
    (example_copy / "manifest.json").symlink_to(real)
    report = verify(example_copy)
    assert report.verdict == "FAIL" and ("integrity.files", "FAIL", "no-manifest") in codes(report)
    assert not any(f.status == "ERROR" for f in report.findings)


def test_unknown_gate_option_is_a_usage_error(run, example_copy):
    result = run("check", "--gate", "nope", str(example_copy))
    assert result.exit_code == 2 and "no such gate" in result.stderr


# --- quality index: comparisons must compare something -------------------------

def test_self_comparison_duplicates_and_uncompared_candidate_outputs_fail(example_copy):
    def change(d):
        d["comparisons"][0]["reference"] = d["comparisons"][0]["candidate"]  # B1-m1 vs itself; B1-m1 now uncompared
        d["comparisons"][1] = dict(d["comparisons"][2], id="c02")  # the same pair twice
        d["comparisons"][3]["id"] = "c05"  # an id twice
    edit_json(example_copy / "quality-index.json", change)
    rehash(example_copy)
    found = codes(verify(example_copy))
    for code in ("self-comparison", "duplicate-comparison", "duplicate-comparison-id", "candidate-output-not-compared"):
        assert ("quality.recorded", "FAIL", code) in found, code


def test_recorded_metric_neither_pinned_nor_recomputed_is_not_attested(example_copy):
    edit_json(example_copy / "quality-index.json", lambda d: [c["scores"].update(lpips=Decimal("0.01")) for c in d["comparisons"]])
    rehash(example_copy)
    report = verify(example_copy)
    assert ("quality.recorded", "UNVERIFIED", "metric-not-attested") in codes(report)
    assert report.verdict == "INCOMPLETE"


@pytest.mark.parametrize("name", ["media/evil\u202egnp.mp4", "media/line\nbreak.mp4"])
def test_manifest_path_with_control_or_bidi_characters_is_unsafe(example_copy, name):
    edit_json(example_copy / "manifest.json", lambda d: d["files"].append({"path": name, "sha256": "0" * 64, "size": 1}))
    report = verify(example_copy)
    assert ("integrity.files", "FAIL", "unsafe-path") in codes(report)


def test_schema_messages_show_numbers_as_stated_not_as_decimal_reprs(example_copy):
    rows = read_lines(example_copy / "receipts.jsonl")
    rows[2]["elapsed_s"] = -rows[2]["elapsed_s"]
    write_lines(example_copy / "receipts.jsonl", rows)
    rehash(example_copy)
    bad = [f for f in verify(example_copy).findings if f.code == "schema-violation"]
    assert bad and "Decimal(" not in bad[0].message and "-395.10" in bad[0].message


def test_json_file_with_an_upper_case_extension_is_an_unknown_document(example_copy):
    (example_copy / "NOTES.JSON").write_text("{}")
    rehash(example_copy)
    assert ("schema.documents", "FAIL", "unknown-document") in codes(verify(example_copy))


def test_claims_blocked_by_integrity_are_reported_as_such(example_copy):
    path = example_copy / "claims.json"
    path.write_bytes(path.read_bytes().replace(b"73.45", b"73.46", 1))  # same size, not re-manifested
    report = verify(example_copy)
    blocked = [f for f in report.findings if f.check == "derivation.claims"]
    assert blocked and blocked[0].code == "blocked-by-integrity"
    assert blocked[0].message.count("claims.json") == 1


@pytest.mark.parametrize("vouched", [True, False])
def test_parsed_receipts_and_their_bytes_are_not_kept_once_the_model_holds_them(example_copy, monkeypatch, vouched):
    """
    Issue 40: the kept bytes go once parsed, the parsed plan once modelled (before the receipts are read); receipts are streamed, never kept.

    Both readings of the plan: its typed reading (`native.vouch_plan`, no parsed form at all), and the reference one (strict
    reader, schema, `plan_of`), which a `\\u` escape in its notes sends it to.
    """
    from verifier.formats.bundle import Bundle

    if not vouched:
        plan = json.loads((example_copy / "plan.json").read_text())
        (example_copy / "plan.json").write_text(json.dumps({**plan, "notes": "\u00e9"}))  # é, written as an escape
        rehash(example_copy)
    seen, released = [], []
    real_release, real_batches = Bundle.release, Bundle.record_batches

    def release(self, kind):
        real_release(self, kind)
        released.append(kind)

    def record_batches(self, kind, vouch=None):
        seen.append((kind, "plan" in self._cache, self.kinds["plan"][0] in self.contents, type(self.modelled.get("plan")).__name__))
        return real_batches(self, kind, vouch)

    monkeypatch.setattr(Bundle, "release", release)
    monkeypatch.setattr(Bundle, "record_batches", record_batches)
    report = verify(example_copy)
    assert seen[0] == ("receipts", False, False, "Plan")
    assert released == ([] if vouched else ["plan"])
    assert any(f.check == "plan.conformance" and f.status is Status.PASS for f in report.findings)


def test_a_released_document_is_parsed_again_only_if_its_bytes_still_match(example_copy):
    import hashlib

    from verifier.formats.bundle import Bundle
    from verifier.errors import Unverifiable

    data = (example_copy / "plan.json").read_bytes()
    bundle = Bundle(example_copy, verified={"plan.json": "plan.json"},
                    digests={"plan.json": hashlib.sha256(data).hexdigest()}, contents={"plan.json": data})
    first = bundle.raw_document("plan")
    assert "plan.json" not in bundle.contents
    bundle.release("plan")
    assert bundle.raw_document("plan") == first  # read again from disk, same bytes
    bundle.release("plan")
    (example_copy / "plan.json").write_bytes(data.replace(b'"measured"', b'"warmup"', 1))
    with pytest.raises(Unverifiable) as caught:
        bundle.raw_document("plan")
    assert caught.value.code == "changed-during-verification"


def test_json_lines_are_read_from_disk_each_time_and_only_while_their_bytes_still_match(example_copy):
    """Issue 40: a JSON Lines document is streamed from its file (`Bundle.records`), never held; changed bytes are refused after the last line."""
    import hashlib

    from verifier.formats.bundle import Bundle
    from verifier.errors import Unverifiable

    data = (example_copy / "receipts.jsonl").read_bytes()
    bundle = Bundle(example_copy, verified={"receipts.jsonl": "receipts.jsonl"}, digests={"receipts.jsonl": hashlib.sha256(data).hexdigest()})
    first = list(bundle.document("receipts"))
    assert first == [json.loads(x, parse_float=Decimal) for x in data.splitlines()] and "receipts" not in bundle._cache
    assert bundle.parsed_sha256["receipts"] == hashlib.sha256(data).hexdigest() + ":lines"
    (example_copy / "receipts.jsonl").write_bytes(data.replace(b'"ok"', b'"error"', 1))
    for read in (lambda: list(bundle.document("receipts")), lambda: bundle.raw_document("receipts"), lambda: list(bundle.records("receipts"))):
        with pytest.raises(Unverifiable) as caught:
            read()
        assert caught.value.code == "changed-during-verification"
    with pytest.raises(Unverifiable) as caught:
        list(Bundle(example_copy).records("receipts"))
    assert caught.value.code == "blocked-by-integrity"


def test_a_receipt_line_that_breaks_strict_json_or_its_schema_is_a_finding_naming_its_line(example_copy):
    """Issue 40 "Bad input": the line is named (message and pointer); schema reading goes on past a bad line to every other one."""
    path = example_copy / "receipts.jsonl"
    lines = path.read_bytes().split(b"\n")
    original = list(lines)
    lines[3] = lines[3].replace(b"{", b"{,", 1)  # line 4 is not JSON
    path.write_bytes(b"\n".join(lines))
    rehash(example_copy)
    report = verify(example_copy)
    bad = [f for f in report.findings if f.check == "schema.documents" and f.status is Status.FAIL]
    assert [(f.code, f.path, f.pointer) for f in bad] == [("invalid-json", "receipts.jsonl", "/3")] and "line 4" in bad[0].message
    assert all(f.status is not Status.PASS for f in report.findings if f.check == "plan.conformance")  # no verdict from part of the lines
    rows = [json.loads(x) for x in original if x.strip()]
    del rows[1]["phase"]
    rows[4]["elapsed_s"] = "fast"
    write_lines(path, rows)
    rehash(example_copy)
    report = verify(example_copy)
    assert [f.pointer for f in report.findings if f.code == "schema-violation"] == ["/1", "/4/elapsed_s"]


def test_a_mapped_bundle_keeps_its_documents_on_release(tmp_path):
    """Its records are the model's `raw`, and reading them again would add the unmapped fields twice."""
    from verifier.readers.mapped import MappedBundle

    bundle = MappedBundle(root=tmp_path)
    bundle._cache["receipts"] = records = [{"kind": "request"}]
    bundle.release("receipts")
    assert bundle._cache["receipts"] is records
