"""
Issue 13: the runnable promises of docs/exit-codes.md, docs/receipts.md and docs/bundle-format.md, read from the docs and run.

Each test parses the promise out of the Markdown (so an edit to the doc that
no longer matches the code turns a test red) and runs a case for it.
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT, SHARED
from helpers import write_bundle

EXIT_DOC = (ROOT / "docs" / "exit-codes.md").read_text()
RECEIPTS_DOC = (ROOT / "docs" / "receipts.md").read_text()
RECORD = SHARED / "seeds" / "serving-performance-record.json"


def _verdict_table() -> dict[str, int]:
    rows = re.findall(r"^\| (PASS|FAIL|ERROR|INCOMPLETE) \|[^|]*\| (\d) \|$", EXIT_DOC, re.MULTILINE)
    return {verdict: int(code) for verdict, code in rows}


def test_the_table_lists_every_verdict_once():
    assert set(_verdict_table()) == {"PASS", "FAIL", "ERROR", "INCOMPLETE"}


def _record(tmp_path, change=None, text=None):
    path = tmp_path / "record.json"
    if text is not None:
        path.write_text(text)
    else:
        doc = json.loads(RECORD.read_text())
        if change:
            change(doc)
        path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize("verdict", ["PASS", "FAIL", "INCOMPLETE", "ERROR"])
def test_each_verdict_exits_with_its_documented_code(verdict, tiny_assets, tmp_path, run, monkeypatch):
    if verdict == "PASS":
        target = str(write_bundle(tmp_path / "b"))
    elif verdict == "FAIL":
        target = str(write_bundle(tmp_path / "b", baseline_mean="10.5"))
    elif verdict == "INCOMPLETE":
        target = str(RECORD)
    else:
        from verifier.checks.packs import serving_record

        monkeypatch.setattr(serving_record, "HEX64", None)  # a crash inside the record's rule pack (gate.rules): our bug, not the evidence's
        target = str(RECORD)
    result = run(target)
    assert f"verdict: {verdict}" in result.stdout, result.stdout[-400:]
    assert result.exit_code == _verdict_table()[verdict]


def test_exit_2_is_a_one_line_usage_error(run, tmp_path):
    assert "Exit code 2 is not a verdict" in EXIT_DOC
    result = run(str(tmp_path / "missing"))
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


def test_unknown_producer_version_is_unverified_as_documented(tmp_path, run):
    assert "UNVERIFIED `unknown-producer-version`" in RECEIPTS_DOC and "it is\nnever FAIL" in RECEIPTS_DOC
    result = run(_record(tmp_path, lambda d: d.update(suite_version="serving-performance-v2")), "--format", "json")
    report = json.loads(result.stdout)
    assert [f["code"] for f in report["findings"] if f["check"] == "schema.documents"] == ["unknown-producer-version"]
    assert {f["status"] for f in report["findings"]} == {"UNVERIFIED"}
    assert result.exit_code == _verdict_table()["INCOMPLETE"]


@pytest.mark.parametrize("token", ["NaN", "Infinity"])
def test_nan_in_a_known_receipt_is_a_fail_report_as_documented(tmp_path, run, token):
    assert "the report is FAIL with one finding `json.strict`" in RECEIPTS_DOC
    text = RECORD.read_text().replace('"value": 4155.3015', f'"value": {token}')
    result = run(_record(tmp_path, text=text), "--format", "json")
    report = json.loads(result.stdout)
    assert [(f["check"], f["status"], f["code"]) for f in report["findings"]] == [("json.strict", "FAIL", "non-finite-number")]
    assert report["kind"] == "serving-performance-v1"  # recognised as the producer's receipt, not an anonymous JSON file
    assert result.exit_code == _verdict_table()["FAIL"]


def test_nan_in_an_unrecognised_json_file_fails_and_non_json_stays_exit_2(tmp_path, run):
    assert "same FAIL under kind\n`json-file`" in RECEIPTS_DOC and "not JSON at all stay a usage error (exit 2)" in RECEIPTS_DOC
    result = run(_record(tmp_path, text='{"a": NaN}'), "--format", "json")
    assert result.exit_code == 1 and json.loads(result.stdout)["kind"] == "json-file"
    (tmp_path / "notes.txt").write_text("hello")
    assert run(str(tmp_path / "notes.txt")).exit_code == 2


# ---- docs/receipts.md: the unknown-version and NaN promises, for every family the doc lists ----

import shutil  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"


def _vllm_newer(tmp_path):
    doc = json.loads((FIXTURES / "vllm" / sorted(p.name for p in (FIXTURES / "vllm").glob("*.json"))[0]).read_text())
    doc.update(rtfx=1.0, queue_times=[0.0])  # the newer result the doc says matches neither profile
    path = tmp_path / "newer.json"
    path.write_text(json.dumps(doc))
    return str(path)


def _dir_edit(tmp_path, source, name, change):
    dest = tmp_path / "d"
    shutil.copytree(source, dest)
    doc = json.loads((dest / name).read_text())
    change(doc)
    (dest / name).write_text(json.dumps(doc))
    return str(dest)


UNKNOWN_VERSIONS = {
    "serving-performance": lambda t: _record(t, lambda d: d.update(suite_version="serving-performance-v2")),
    "vllm save-result": _vllm_newer,
    "frozen HTTP matrix": lambda t: _dir_edit(t, FIXTURES / "matrix" / "good", "config.json", lambda c: c.update(output_version=2)),
    "telemetry receipt": lambda t: _dir_edit(t, FIXTURES / "telemetry" / "good", "telemetry-receipt.json", lambda r: r.update(receipt_version=2)),
}


@pytest.mark.parametrize("family", sorted(UNKNOWN_VERSIONS))
def test_unknown_version_of_every_family_is_unverified_and_blocks_the_rest(tmp_path, run, family):
    """docs/receipts.md: matches no profile -> UNVERIFIED `unknown-producer-version`, every other check `blocked-by`, never FAIL."""
    assert "the other checks report `blocked-by`" in RECEIPTS_DOC
    result = run(UNKNOWN_VERSIONS[family](tmp_path), "--format", "json")
    findings = json.loads(result.stdout)["findings"]
    assert "unknown-producer-version" in {f["code"] for f in findings}, [(f["check"], f["code"]) for f in findings]
    assert {f["status"] for f in findings} <= {"PASS", "UNVERIFIED"}
    after = [f for f in findings[[f["code"] for f in findings].index("unknown-producer-version") + 1:]
             if f["code"] != "not-in-evidence"]  # the families the reader does not feed stand in (docs/receipts.md)
    assert after and {f["code"] for f in after} == {"blocked-by"}
    assert result.exit_code == _verdict_table()["INCOMPLETE"]


@pytest.mark.parametrize("token", ["NaN", "-Infinity"])
def test_nan_in_a_vllm_result_is_a_fail_report_as_documented(tmp_path, run, token):
    source = FIXTURES / "vllm" / sorted(p.name for p in (FIXTURES / "vllm").glob("*.json"))[0]
    text = re.sub(r'"duration": [0-9.eE+-]+', f'"duration": {token}', source.read_text(), count=1)
    assert token in text
    (tmp_path / "r.json").write_text(text)
    result = run(str(tmp_path / "r.json"), "--format", "json")
    report = json.loads(result.stdout)
    assert [(f["check"], f["status"], f["code"]) for f in report["findings"]] == [("json.strict", "FAIL", "non-finite-number")]
    assert result.exit_code == _verdict_table()["FAIL"]


@pytest.mark.parametrize("source,name,check", [(FIXTURES / "telemetry" / "good", "telemetry-receipt.json", "schema.documents"),
                                               (FIXTURES / "matrix" / "good", "summary.json", "schema.documents")])
def test_nan_in_a_receipt_directory_fails_and_is_not_a_usage_error(tmp_path, run, source, name, check):
    dest = tmp_path / "d"
    shutil.copytree(source, dest)
    (dest / name).write_text((dest / name).read_text().replace("true", "NaN", 1).replace("false", "NaN", 1))
    result = run(str(dest), "--format", "json")
    report = json.loads(result.stdout)
    assert (check, "FAIL", "non-finite-number") in {(f["check"], f["status"], f["code"]) for f in report["findings"]}
    assert result.exit_code == _verdict_table()["FAIL"]


# ---- docs/bundle-format.md: every reason code it promises, read from the doc and triggered ----

from bundlekit import edit_json, read_lines, rehash, write_lines  # noqa: E402
from verifier.formats.jsonio import LINE_LIMIT  # noqa: E402

BUNDLE_DOC = (ROOT / "docs" / "bundle-format.md").read_text()


def _doc_codes() -> set[str]:
    """Reason codes the doc promises: a backticked code in a sentence that says FAIL(s) or UNVERIFIED."""
    found = set()
    for sentence in re.split(r"(?<=[.:;])\s", BUNDLE_DOC.replace("\n", " ")):
        if re.search(r"\bFAILs?\b|\bUNVERIFIED\b", sentence):
            found |= {c for c in re.findall(r"`([a-z]+(?:-[a-z]+)+)`", sentence)
                      if c not in ("verify-bundle", "verify-plan", "verify-claims", "verify-quality-index")}
    return found


def _receipts(change):
    def apply(b):
        rows = read_lines(b / "receipts.jsonl")
        change(rows)
        write_lines(b / "receipts.jsonl", rows)
        rehash(b)
    return apply


def _json(name, change):
    def apply(b):
        edit_json(b / name, change)
        rehash(b)
    return apply


def _measured(rows):
    return next(r for r in rows if r.get("phase") == "measured")


def _attempt(**kw):
    def apply(b):
        from test_seed_bundle import _attempt as attempt

        attempt(b, **kw)
    return apply


def _write(name, text):
    def apply(b):
        (b / name).parent.mkdir(parents=True, exist_ok=True)
        (b / name).write_text(text)
        rehash(b)
    return apply


def _claims(change):
    return _json("claims.json", change)


RECIPES = {
    "unknown-document": ("FAIL", _write("NOTES.JSON", "{}")),
    "plan-frozen-late": ("FAIL", _json("plan.json", lambda p: p.update(frozen_at="2026-10-01T08:30:00Z"))),
    "ok-after-timeout": ("FAIL", _json("plan.json", lambda p: p["timeouts"].update(request_s=395))),
    "timeout-beyond-reservation": ("FAIL", _json("plan.json", lambda p: p["timeouts"].update(reservation_s=800))),
    "terminate-after-reservation": ("FAIL", _json("plan.json", lambda p: p["timeouts"].update(hard_reservation_min=60, soft_term_min=70))),
    "outcome-contradicts-status": ("FAIL", _receipts(lambda rows: _measured(rows).update(http_status=503))),
    "ok-without-output": ("FAIL", _receipts(lambda rows: _measured(rows).update(outputs=[]))),
    "output-shared": ("FAIL", _receipts(lambda rows: [r for r in rows if r.get("phase") == "measured"][1].update(
        outputs=_measured(rows)["outputs"]))),
    "attempt-mixed-in": ("FAIL", lambda b: _attempt(rows=read_lines(b / "receipts.jsonl")[:1])(b)),
    "attempt-not-receipts": ("FAIL", _attempt(name="attempts/a1.log", role="rejected-attempt")),
    "undeclared-receipts": ("FAIL", _attempt(name="attempts/a1.log", role=None)),
    "unit-mismatch": ("FAIL", _claims(lambda d: [c.update(unit="samples/s") for c in d["claims"] if c["id"] == "server_mean_s.A1"])),
    "not-derivable": ("UNVERIFIED", _claims(lambda d: d["claims"].append({"id": "tail_latency_s.A1", "value": 1, "unit": "s"}))),
    "claim-missing": ("FAIL", _claims(lambda d: d.update(claims=[c for c in d["claims"] if c["id"] != "server_mean_s.A1"]))),
    "scorer-identity-differs": ("FAIL", _json("quality-index.json", lambda q: q["scorers"]["ssim"]["parameters"].pop("data_range"))),
    "incomplete-denominator": ("FAIL", _receipts(lambda rows: rows.remove(next(r for r in rows if r.get("request_id") == "B2-m2")))),
    "line-too-long": ("FAIL", _receipts(lambda rows: rows[0].update(error="x" * (LINE_LIMIT + 1)))),
    "missing-document": ("FAIL", _json("plan.json", lambda d: d.update(requests={"file": "plan-requests.jsonl"}))),
    "schema-violation": ("FAIL", _json("plan.json", lambda p: p.update(frozen_at=p["frozen_at"] + "\n"))),  # a date-time's final newline
}


def test_every_code_the_bundle_format_promises_has_a_recipe_here():
    assert _doc_codes() <= set(RECIPES), sorted(_doc_codes() - set(RECIPES))
    assert len(_doc_codes()) >= 12  # the reader of the doc still finds the promises


@pytest.mark.parametrize("code", sorted(RECIPES))
def test_bundle_format_promise_runs(example_copy, code):
    from verifier.core import verify_path

    assert f"`{code}`" in BUNDLE_DOC
    status, recipe = RECIPES[code]
    recipe(example_copy)
    report = verify_path(str(example_copy))
    assert (status, code) in {(f.status, f.code) for f in report.findings}, \
        [(f.check, f.status, f.code) for f in report.findings if f.status != "PASS"]
    assert report.verdict == {"FAIL": "FAIL", "UNVERIFIED": "INCOMPLETE"}[status]


@pytest.mark.parametrize("damage,code", [(lambda t: "\ufeff" + t, "invalid-json"),
                                         (lambda t: t.replace('"format_version": 1', '"format_version": 1, "format_version": 1', 1), "duplicate-key"),
                                         (lambda t: t.replace("396.30", "NaN", 1), "non-finite-number")])
def test_bundle_documents_reject_bom_duplicate_keys_and_nan_as_documented(example_copy, damage, code):
    from verifier.core import verify_path

    assert "without a byte order mark. Duplicate keys and\n`NaN`/`Infinity` are rejected" in BUNDLE_DOC
    path = example_copy / "claims.json"
    path.write_text(damage(path.read_text()))
    rehash(example_copy)
    report = verify_path(str(example_copy))
    assert ("FAIL", code) in {(f.status, f.code) for f in report.findings}
