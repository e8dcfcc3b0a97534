"""A plan too large to list its requests names a JSON Lines shard for them, `plan-requests.jsonl` (issue 40: 10^7 requests)."""

from __future__ import annotations

import json
from pathlib import Path

from bundlekit import read_lines, rehash, write_lines

from verifier.core import verify_path
from verifier.model.findings import Status
from verifier.engine.pipeline import RunData


def _shard(bundle: Path, change=None) -> list[dict]:
    """Move the plan's requests into plan-requests.jsonl (after `change` of the rows), name the shard in plan.json, re-hash."""
    plan = json.loads((bundle / "plan.json").read_text())
    rows = plan["requests"]
    if change:
        change(rows)
    write_lines(bundle / "plan-requests.jsonl", rows)
    plan["requests"] = {"file": "plan-requests.jsonl"}
    (bundle / "plan.json").write_text(json.dumps(plan, indent=2))
    rehash(bundle)
    return rows


def _of(report, code):
    return [(f.status.value, f.path, f.pointer, f.message) for f in report.findings if f.code == code]


def test_a_plan_whose_requests_are_in_its_shard_is_judged_as_if_it_listed_them(example_copy):
    listed = verify_path(str(example_copy))
    _shard(example_copy)
    sharded = verify_path(str(example_copy))
    assert sharded.verdict == listed.verdict == "PASS"
    assert ("PASS", "plan-requests.jsonl", None, "plan-requests.jsonl is valid against plan-request.schema.json") in _of(sharded, "valid")
    same = lambda report: [(f.check, f.status, f.code, f.message) for f in report.findings  # noqa: E731
                           if f.path not in ("plan-requests.jsonl", "manifest.json") and f.check != "integrity.files"]
    assert same(sharded) == same(listed)


def test_a_named_shard_that_is_absent_fails_and_leaves_the_plan_unverified(example_copy):
    _shard(example_copy)
    (example_copy / "plan-requests.jsonl").unlink()
    rehash(example_copy)
    report = verify_path(str(example_copy))
    assert _of(report, "missing-document") == [("FAIL", "plan-requests.jsonl", None,
                                                "plan-requests.jsonl is required by bundle format v1 but absent")]
    assert [f.status for f in report.findings if f.check == "plan.conformance"] == [Status.UNVERIFIED]


def test_a_shard_the_plan_does_not_name_is_an_unknown_document(example_copy):
    plan = json.loads((example_copy / "plan.json").read_text())
    write_lines(example_copy / "plan-requests.jsonl", plan["requests"])
    rehash(example_copy)
    report = verify_path(str(example_copy))
    assert [(s, p) for s, p, _ptr, _m in _of(report, "unknown-document")] == [("FAIL", "plan-requests.jsonl")]
    assert report.verdict == "FAIL"
    valid = {f.path for f in report.findings if f.check == "schema.documents" and f.code == "valid"}
    assert {"receipts.jsonl", "claims.json", "quality-index.json"} <= valid  # the documents after the shard are still validated


def test_a_bad_shard_line_is_named_and_blocks_the_plan(example_copy):
    _shard(example_copy, lambda rows: rows[2].update(phase="cooldown"))
    report = verify_path(str(example_copy))
    [(status, path, pointer, message)] = _of(report, "schema-violation")
    assert (status, path, pointer) == ("FAIL", "plan-requests.jsonl", "/2/phase") and "line 3" in message
    conformance = [f for f in report.findings if f.check == "plan.conformance"]
    assert [(f.status, f.code) for f in conformance] == [(Status.UNVERIFIED, "blocked-by-schema")]


def test_the_shards_requests_are_the_plans(example_copy):
    rows = _shard(example_copy, lambda rows: rows.append({**rows[0], "id": "extra-1"}))
    report = verify_path(str(example_copy))
    assert [m for _s, _p, _ptr, m in _of(report, "missing-receipt")] == [
        f"planned {rows[0]['phase']} request extra-1 on {rows[0]['server']} has no receipt"]
    assert [f for f in read_lines(example_copy / "plan-requests.jsonl")][-1]["id"] == "extra-1"


def test_the_shard_is_read_once_by_its_schema_pass(example_copy, monkeypatch):
    from verifier.formats.bundle import Bundle

    _shard(example_copy)
    reads = []
    real = Bundle.record_batches

    def record_batches(self, kind, vouch=None):
        reads.append(kind)
        return real(self, kind, vouch)

    monkeypatch.setattr(Bundle, "record_batches", record_batches)
    assert verify_path(str(example_copy)).verdict == "PASS"
    assert sorted(reads) == ["plan_requests", "receipts"]


def test_a_plan_whose_shard_cannot_be_used_is_no_plan_in_the_model(example_copy):
    """The model holds no plan without its requests: the plan part is unmapped with the shard's reason, and `plan` is None."""
    import hashlib
    from types import SimpleNamespace

    from verifier.formats.bundle import Bundle
    from verifier.model.evidence import Location
    from verifier.readers.native import evidence_of

    _shard(example_copy)
    names = ("plan.json", "receipts.jsonl", "claims.json")  # the shard did not pass integrity: not verified
    bundle = Bundle(example_copy, verified={n: n for n in names},
                    digests={n: hashlib.sha256((example_copy / n).read_bytes()).hexdigest() for n in names})
    evidence = evidence_of(SimpleNamespace(bundle=bundle, run=RunData(), options={}, gate_id=None))
    assert evidence.plan is None
    assert [(u.what, u.where, u.part, u.code) for u in evidence.unmapped if u.part == "plan"] == [  # named by the shard's own file
        ("document plan-requests.jsonl", Location("plan-requests.jsonl"), "plan", "blocked-by-integrity")]


def test_a_shard_request_on_a_server_the_plan_does_not_list_is_inconsistent_at_its_line(example_copy):
    rows = _shard(example_copy, lambda rows: rows.extend({**rows[0], "id": f"Z9-m{k}", "server": "Z9", "phase": "measured"} for k in (1, 2, 3)))
    report = verify_path(str(example_copy))
    assert [(s, p, ptr, m) for s, p, ptr, m in _of(report, "plan-inconsistent") if "Z9" in m] == [
        ("FAIL", "plan-requests.jsonl", f"/{len(rows) - 3}", "plan lists 3 request(s) for server Z9, which is not one of its servers")]  # its first line


def test_a_request_the_shard_lists_twice_is_inconsistent_at_its_second_line(example_copy):
    """As a receipt's duplicate is named at its second receipt: the shard's line that should not be there, not plan.json /requests."""
    rows = _shard(example_copy, lambda rows: rows.append(dict(rows[1])))
    report = verify_path(str(example_copy))
    assert [(s, p, ptr, m) for s, p, ptr, m in _of(report, "plan-inconsistent") if "times" in m] == [
        ("FAIL", "plan-requests.jsonl", f"/{len(rows) - 1}", f"plan lists request {rows[1]['id']} 2 times")]
