"""Issue 13, native bundles: receipt outcome vs status, outputs, timeouts, plan freeze, retained attempts."""

from __future__ import annotations

import json

import pytest

from bundlekit import edit_json, read_lines, rehash, write_lines

from verifier.core import verify_path


def _fails(report, check):
    return {f.code for f in report.findings if f.check == check and f.status == "FAIL"}


def _receipts(bundle, change):
    rows = read_lines(bundle / "receipts.jsonl")
    change(rows)
    write_lines(bundle / "receipts.jsonl", rows)
    rehash(bundle)


def _plan(bundle, change):
    edit_json(bundle / "plan.json", change)
    rehash(bundle)


def _measured(rows):
    return next(r for r in rows if r.get("phase") == "measured")


CASES = [
    ("outcome-contradicts-status", lambda b: _receipts(b, lambda rows: _measured(rows).update(http_status=503)),
     lambda b: _receipts(b, lambda rows: _measured(rows).update(http_status=201))),
    ("outcome-contradicts-status", lambda b: _receipts(b, lambda rows: _measured(rows).update(error="upstream reset")),
     lambda b: _receipts(b, lambda rows: _measured(rows).update(error="")),),
    ("ok-without-output", lambda b: _receipts(b, lambda rows: _measured(rows).update(outputs=[])),
     lambda b: _receipts(b, lambda rows: next(r for r in rows if r.get("phase") == "warmup").update(outputs=[]))),
    ("ok-after-timeout", lambda b: _plan(b, lambda p: p["timeouts"].update(request_s=395)),
     lambda b: _plan(b, lambda p: p["timeouts"].update(request_s=600))),
    ("timeout-beyond-reservation", lambda b: _plan(b, lambda p: p["timeouts"].update(reservation_s=800)),
     lambda b: _plan(b, lambda p: p["timeouts"].update(reservation_s=10800, arm_s=7200))),
    ("timeout-beyond-reservation", lambda b: _plan(b, lambda p: p["timeouts"].update(reservation_s=10800, arm_s=14400)),
     lambda b: _plan(b, lambda p: p["timeouts"].update(reservation_s=900))),
    ("plan-frozen-late", lambda b: _plan(b, lambda p: p.update(frozen_at="2026-10-01T07:59:00.000001Z")),
     lambda b: _plan(b, lambda p: p.update(frozen_at="2026-10-01T07:59:00Z"))),
]


@pytest.mark.parametrize("code,bad,good", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_receipt_rule_fails_on_breaking_input_and_passes_honest_input(tmp_path, example_copy, code, bad, good):
    import shutil

    honest = tmp_path / "honest"
    shutil.copytree(example_copy, honest)
    bad(example_copy)
    failing = verify_path(str(example_copy))
    assert code in _fails(failing, "receipts.consistency"), [f.message for f in failing.findings if f.status == "FAIL"]
    assert failing.verdict == "FAIL"
    good(honest)
    passing = verify_path(str(honest))
    assert not _fails(passing, "receipts.consistency"), [f.message for f in passing.findings if f.status == "FAIL"]


def test_failed_request_with_5xx_is_consistent(example_copy):
    # a failed request stays in the denominator (derivation FAILs incomplete-denominator), but its receipt is consistent
    _receipts(example_copy, lambda rows: _measured(rows).update(outcome="failed", http_status=503, error="overloaded"))
    assert not _fails(verify_path(str(example_copy)), "receipts.consistency")


def test_wrong_typed_status_is_a_schema_finding_not_a_crash(example_copy):
    _receipts(example_copy, lambda rows: _measured(rows).update(http_status="503"))
    report = verify_path(str(example_copy))
    assert any(f.code == "schema-violation" and f.path == "receipts.jsonl" for f in report.findings)
    assert not [f for f in report.findings if f.status == "ERROR"]
    consistency = [f for f in report.findings if f.check == "receipts.consistency"]
    assert consistency and all(f.status == "UNVERIFIED" for f in consistency)


# ---- retained attempts ------------------------------------------------------------

def _attempt(bundle, name="attempts/a1-interrupted.jsonl", role="interrupted-attempt", rows=None):
    source = read_lines(bundle / "receipts.jsonl")
    if rows is None:
        rows = [dict(r, started_at=r["started_at"].replace("2026-10-01", "2026-09-30T"[:10])) for r in source[:2]]
        for r in rows:
            r["ended_at"] = r["ended_at"].replace("2026-10-01", "2026-09-30")
            r["outcome"], r["http_status"], r["error"], r["outputs"] = "failed", 500, "interrupted", []
    (bundle / name).parent.mkdir(parents=True, exist_ok=True)
    write_lines(bundle / name, rows)
    rehash(bundle)
    if role:
        edit_json(bundle / "manifest.json", lambda m: next(e for e in m["files"] if e["path"] == name).update(role=role))


def test_retained_attempt_with_its_role_passes(example_copy):
    _attempt(example_copy)
    report = verify_path(str(example_copy))
    assert report.verdict == "PASS", [f.message for f in report.findings if f.status != "PASS"]
    kept = [f for f in report.findings if f.code == "attempt-retained"]
    assert kept and "2 interrupted-attempt receipt(s)" in kept[0].message


def test_retained_attempt_mixed_into_the_result_fails(example_copy):
    _attempt(example_copy, rows=read_lines(example_copy / "receipts.jsonl")[:1])
    assert "attempt-mixed-in" in _fails(verify_path(str(example_copy)), "attempts.retained")


def test_attempt_without_role_fails_as_unknown_document(example_copy):
    _attempt(example_copy, role=None)
    report = verify_path(str(example_copy))
    assert report.verdict == "FAIL" and any(f.code == "unknown-document" for f in report.findings)


@pytest.mark.parametrize("name", ["attempts/a1.log", "attempts/a1.txt", "notes/old-receipts"])
def test_attempt_hidden_under_another_extension_fails(example_copy, name):
    _attempt(example_copy, name=name, role=None)
    report = verify_path(str(example_copy))
    assert "undeclared-receipts" in _fails(report, "attempts.retained")


def test_attempt_role_on_a_non_receipts_file_fails(example_copy):
    _attempt(example_copy, name="attempts/a1.log", role="rejected-attempt")
    assert "attempt-not-receipts" in _fails(verify_path(str(example_copy)), "attempts.retained")


def test_attempt_with_invalid_receipts_fails_schema(example_copy):
    _attempt(example_copy, rows=[{"kind": "request", "request_id": "A1-m1"}])
    assert "schema-violation" in _fails(verify_path(str(example_copy)), "attempts.retained")


def test_attempt_whose_bytes_changed_fails_integrity(example_copy):
    _attempt(example_copy)
    path = example_copy / "attempts" / "a1-interrupted.jsonl"
    path.write_text(path.read_text().replace("interrupted", "interrupteD"))
    report = verify_path(str(example_copy))
    assert any(f.check == "integrity.files" and f.code == "sha256-mismatch" for f in report.findings)


def test_manifest_write_keeps_roles(example_copy):
    from verifier.commands.manifest import build_manifest

    _attempt(example_copy)
    current = json.loads((example_copy / "manifest.json").read_text())
    built = build_manifest(example_copy)
    assert {e["path"]: e.get("role") for e in built["files"]}["attempts/a1-interrupted.jsonl"] == "interrupted-attempt"


# ---- quality: thresholds with an empty comparison list ---------------------------------

def _gate_without_count(tmp_path, example_copy):
    from bundlekit import asset_root

    from conftest import ROOT

    gate = json.loads((ROOT / "gates" / "ref2va-5s-v1.json").read_text())
    gate["quality"].pop("comparisons", None)
    gate["quality"].pop("pairs", None)
    gate.pop("claims_text", None)
    root = asset_root(tmp_path, gates={"nocount-v1": {k: v for k, v in gate.items() if k not in ("id", "version", "description")}})
    edit_json(example_copy / "manifest.json", lambda m: m.update(gate="nocount-v1"))
    return root


@pytest.mark.parametrize("empty", [True, False])
def test_thresholds_with_empty_comparison_list_fail_even_without_a_count(tmp_path, example_copy, empty):
    root = _gate_without_count(tmp_path, example_copy)
    if empty:
        edit_json(example_copy / "quality-index.json", lambda q: q.update(comparisons=[]))
        rehash(example_copy)
    report = verify_path(str(example_copy), asset_root=root)
    codes = {f.code for f in report.findings if f.check == "quality.recorded" and f.status == "FAIL"}
    assert ("no-comparisons" in codes) is empty, codes
    assert not [f for f in report.findings if f.code == "comparison-count"]
