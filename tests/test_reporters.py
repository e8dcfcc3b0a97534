"""Reporters: every format renders every bundle case and every status; JSON and SARIF validate, JUnit parses."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema
import pytest
from conftest import EXAMPLE, ROOT, SHARED
from helpers import write_bundle
from junitparser import Error, Failure, JUnitXml

from verifier.model import CheckInfo, ExitCode, Finding, Report, Status, exit_code_for
from verifier.report import REPORTERS, render
from verifier.report.github import escape_data, escape_property

SARIF_SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
#: sha256 of the OASIS SARIF 2.1.0 (errata01) schema as vendored; see tests/data/README.md for its provenance.
SARIF_SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"


def sarif_validator():
    data = SARIF_SCHEMA.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SARIF_SCHEMA_SHA256
    schema = json.loads(data)
    assert schema["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def report_validator():
    schema = json.loads((ROOT / "schemas" / "report.schema.json").read_text())
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def assert_valid_everywhere(report: Report) -> dict[str, str]:
    """Render `report` in every format (plain and verbose), validate the machine formats, return the plain renders."""
    out = {}
    for fmt in REPORTERS:
        for verbose in (False, True):
            text = render(report, fmt, verbose=verbose, color=False)
            assert text.strip(), (fmt, verbose)
            if fmt == "json":
                errors = list(report_validator().iter_errors(json.loads(text)))
                assert not errors, errors[0].message
            if fmt == "sarif":
                errors = list(sarif_validator().iter_errors(json.loads(text)))
                assert not errors, errors[0].message
            if fmt == "junit":
                xml = JUnitXml.fromstring(text)
                suite = next(iter(xml))
                assert suite.tests == len(report.roster)
            if not verbose:
                out[fmt] = text
    return out


def _one(status: Status) -> Report:
    finding = Finding(check="integrity.files", status=status, code="sha256-mismatch" if status is Status.FAIL else "match",
                      message=f"a {status.value} finding: 50% done, a:b,c\nsecond line", path="dir/a b.json", pointer="/files/0")
    other = Finding(check="gate.pinned", status=Status.PASS, code="pinned", message="gate ok", path="manifest.json")
    return Report(subject="evidence/x", kind="bundle-v1", verifier_version="0.1.0", findings=(finding, other),
                  roster=(CheckInfo(check="integrity.files", title="files", counts={status.value: 1}),
                          CheckInfo(check="gate.pinned", title="gate", counts={"PASS": 1})))


@pytest.mark.parametrize("status", list(Status))
def test_every_status_renders_in_every_format_and_maps_to_an_exit_code(status):
    report = _one(status)
    assert report.verdict in ("PASS", "FAIL", "INCOMPLETE", "ERROR")
    assert isinstance(exit_code_for(report.verdict), ExitCode)
    out = assert_valid_everywhere(report)
    for fmt, text in out.items():
        if fmt == "github":
            expect = {"FAIL": "::error ", "ERROR": "::error ", "UNVERIFIED": "::warning ", "PASS": "::debug::PASS"}[status.value]
            assert expect in text
        elif fmt == "junit":
            xml = JUnitXml.fromstring(text)
            case = next(c for c in next(iter(xml)) if c.name == "integrity.files")
            kinds = {(type(r).__name__, r.type) for r in case.result}
            assert kinds == {"FAIL": {("Failure", "FAIL")}, "ERROR": {("Error", "ERROR")},
                             "UNVERIFIED": {("Failure", "UNVERIFIED")}, "PASS": set()}[status.value]
        elif fmt == "sarif":
            result = json.loads(text)["runs"][0]["results"][0]
            assert (result["kind"], result["level"]) == {"FAIL": ("fail", "error"), "ERROR": ("fail", "error"),
                                                        "UNVERIFIED": ("open", "none"), "PASS": ("pass", "none")}[status.value]
        else:
            assert status.value in text, fmt


def test_every_format_is_a_cli_choice(run, tiny_assets, tmp_path):
    bundle = write_bundle(tmp_path / "b")
    for fmt in REPORTERS:
        result = run(str(bundle), "--format", fmt)
        assert result.exit_code == 0, (fmt, result.stderr)


def _cases(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """Return every bundle case of the tests: name -> (path, expected verdict)."""
    cases = {
        "pass": (str(write_bundle(tmp_path / "pass")), "PASS"),
        "claim-mismatch": (str(write_bundle(tmp_path / "mismatch", baseline_mean="10.5")), "FAIL"),
        "external": (str(write_bundle(tmp_path / "ext", externals=[
            {"path": "media/a.mp4", "sha256": "cd" * 32, "size": 9, "source": "s3", "reason": "large"}])), "INCOMPLETE"),
        "serving-record": (str(SHARED / "seeds" / "serving-performance-record.json"), "INCOMPLETE"),
    }
    broken = write_bundle(tmp_path / "broken")
    (broken / "receipts.jsonl").write_text("not json\n")
    cases["tampered"] = (str(broken), "FAIL")
    return cases


def test_every_bundle_case_renders_in_every_format(tiny_assets, tmp_path):
    from verifier.core import verify_path

    for name, (path, verdict) in _cases(tmp_path).items():
        report = verify_path(path)
        assert report.verdict == verdict, name
        assert_valid_everywhere(report)


def test_example_bundle_renders_in_every_format(example_copy):
    from verifier.core import verify_path

    report = verify_path(str(EXAMPLE))
    assert report.verdict == "PASS"
    out = assert_valid_everywhere(report)
    assert "| ✅ PASS | `reduction_pct` | 73.45 | 73.4525 | -0.0025 |" in out["markdown"]
    (example_copy / "claims.json").write_text((example_copy / "claims.json").read_text().replace("73.45", "74.45"))
    tampered = verify_path(str(example_copy))
    assert tampered.verdict == "FAIL"
    assert "::error file=" in assert_valid_everywhere(tampered)["github"]


def test_error_status_from_a_crashing_check_renders(tiny_assets, tmp_path, monkeypatch):
    from verifier import core
    from verifier.pipeline import check

    @check("quality.recorded", title="crashes on purpose")
    def boom(ctx):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(core, "BUNDLE_PIPELINE", tuple(boom if c.id == "quality.recorded" else c for c in core.BUNDLE_PIPELINE))
    report = core.verify_path(str(write_bundle(tmp_path / "b")))
    assert report.verdict == "ERROR" and int(report.exit_code) == 4
    out = assert_valid_everywhere(report)
    sarif = json.loads(out["sarif"])["runs"][0]["invocations"][0]
    assert sarif["executionSuccessful"] is False and sarif["toolExecutionNotifications"]


def test_github_escaping_follows_the_runner():
    assert escape_data("50% a\r\nb") == "50%25 a%0D%0Ab"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    text = render(_one(Status.FAIL), "github")
    line = text.splitlines()[0]
    assert line.startswith("::error file=evidence/x/dir/a b.json,title=verify FAIL%3A integrity.files [sha256-mismatch]::")
    assert "50%25 done, a:b,c%0Asecond line" in line
    assert len(text.splitlines()) == 3  # one per finding + the verdict


def test_sarif_locations_are_bundle_relative_with_pointer():
    log = json.loads(render(_one(Status.FAIL), "sarif"))
    run = log["runs"][0]
    result = run["results"][0]
    assert result["ruleId"] == "integrity.files/sha256-mismatch"
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["fullDescription"]["text"] == "files"
    loc = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc == {"uri": "dir/a%20b.json", "uriBaseId": "BUNDLE"}
    assert run["originalUriBaseIds"]["BUNDLE"]["uri"] == "evidence/x/"
    assert result["properties"]["pointer"] == "/files/0"


def test_markdown_claims_table_lists_failures_first(tiny_assets, tmp_path):
    from verifier.core import verify_path

    report = verify_path(str(write_bundle(tmp_path / "b", baseline_mean="10.5")))
    text = render(report, "markdown")
    assert "**Verdict: FAIL**" in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and "`arm_mean_s" in line or "`count." in line]
    assert rows[0].startswith("| ❌ FAIL | `arm_mean_s.baseline` | 10.5 | 10.0 | 0.5 |")
    assert all("PASS" in r for r in rows[1:])
    assert "| a\\|b |" in render(Report(subject="s", kind="bundle-v1", verifier_version="0", roster=(), findings=(
        Finding(check="x.y", status=Status.FAIL, code="c", message="a|b"),)), "markdown").replace("`", "")


def test_junit_counts_and_failure_types(tiny_assets, tmp_path):
    from verifier.core import verify_path

    report = verify_path(str(write_bundle(tmp_path / "ext", baseline_mean="10.5", externals=[
        {"path": "media/a.mp4", "sha256": "cd" * 32, "size": 9, "source": "s3", "reason": "large"}])))
    suite = next(iter(JUnitXml.fromstring(render(report, "junit"))))
    results = {case.name: [(type(r), r.type) for r in case.result] for case in suite}
    assert results["derivation.claims"] == [(Failure, "FAIL")]
    assert results["integrity.files"] == [(Failure, "UNVERIFIED")]
    assert results["gate.pinned"] == []
    assert suite.failures == 2 and suite.errors == 0 and suite.tests == len(report.roster)
    assert not any(t is Error for r in results.values() for t, _ in r)


def test_text_colour_only_when_asked():
    assert "\x1b[" in render(_one(Status.FAIL), "text", color=True)
    assert "\x1b[" not in render(_one(Status.FAIL), "text", color=False)


def _reader_cases():
    fixtures = ROOT / "tests" / "fixtures"
    return sorted([*fixtures.glob("vllm/*.json"), *(p for p in fixtures.glob("*/*") if p.is_dir()),
                   *(SHARED / "corpus" / "vllm-save-result-ascend").glob("*.json")])


@pytest.mark.parametrize("path", _reader_cases(), ids=lambda p: p.name)
def test_every_receipt_reader_case_renders_in_every_format(path):
    from verifier.core import verify_path

    report = verify_path(str(path))
    out = assert_valid_everywhere(report)
    for line in out["github"].splitlines():
        if " file=" in line:
            file = line.split(" file=", 1)[1].split(",", 1)[0]
            assert Path(file.replace("%3A", ":").replace("%2C", ",")).exists(), line


def test_text_report_escapes_control_characters_from_evidence():
    from verifier.model import CheckInfo, Finding, Report

    f = Finding(check="derivation.claims", status=Status.FAIL, code="claim-mismatch",
                message="claim x\nverdict: PASS (1 PASS; exit 0)\x1b[32m", path="claims.json")
    report = Report(subject="b", kind="bundle-v1", verifier_version="0", findings=(f,),
                    roster=(CheckInfo(check="derivation.claims", title="t", counts={"FAIL": 1}),))
    out = render(report, "text")
    assert [line for line in out.splitlines() if line.startswith("verdict:")] == [out.splitlines()[-1]]
    assert "\x1b" not in out and "\\n" in out
