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

from verifier.model.findings import CheckInfo, ExitCode, Finding, Report, Status, exit_code_for
from verifier.report import REPORTERS, render
from verifier.report.github import escape_data, escape_property

SARIF_SCHEMA = Path(__file__).parent.parent / "data" / "sarif-schema-2.1.0.json"
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


def test_a_registered_format_without_its_parse_check_is_named(monkeypatch):
    """A new format needs its module, its `REPORTERS` entry and its check in tests/report_formats.py `PARSERS`; a missing one is named."""
    from report_formats import PARSERS, assert_all_formats_parse

    report = Report(subject="b", kind="bundle-v1", verifier_version="0", roster=(), findings=())
    assert set(assert_all_formats_parse(report)) == set(REPORTERS) == set(PARSERS)
    monkeypatch.setitem(REPORTERS, "yaml", lambda report, **options: "verdict: PASS\n")
    with pytest.raises(AssertionError, match=r"format\(s\) \['yaml'\] of verifier.report.REPORTERS have no well-formedness check in tests/report_formats.py PARSERS"):
        assert_all_formats_parse(report)
    monkeypatch.delitem(REPORTERS, "yaml")
    monkeypatch.delitem(REPORTERS, "tap")
    with pytest.raises(AssertionError, match=r"PARSERS checks \['tap'\], which verifier.report.REPORTERS no longer registers"):
        assert_all_formats_parse(report)


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


def test_example_bundle_renders_in_every_format(example_copy, monkeypatch):
    from verifier.core import verify_path

    monkeypatch.chdir(example_copy.parent)  # GitHub's file= is relative to where verify runs; a file outside it gets none

    report = verify_path(str(EXAMPLE))
    assert report.verdict == "PASS"
    out = assert_valid_everywhere(report)
    assert "| ✅ PASS | `reduction_pct` | 73.45 % | 73.4525 % | -0.0025 % |" in out["markdown"]
    (example_copy / "claims.json").write_text((example_copy / "claims.json").read_text().replace("73.45", "74.45"))
    tampered = verify_path(str(example_copy))
    assert tampered.verdict == "FAIL"
    assert "::error file=" in assert_valid_everywhere(tampered)["github"]


def test_error_status_from_a_crashing_check_renders(tiny_assets, tmp_path, monkeypatch):
    from verifier import core
    from verifier.engine.pipeline import check

    @check("quality.recorded", title="crashes on purpose")
    def boom(ctx):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(core, "BUNDLE_PIPELINE", tuple(boom if c.id == "quality.recorded" else c for c in core.BUNDLE_PIPELINE))
    report = core.verify_path(str(write_bundle(tmp_path / "b")))
    assert report.verdict == "ERROR" and int(report.exit_code) == 4
    out = assert_valid_everywhere(report)
    sarif = json.loads(out["sarif"])["runs"][0]["invocations"][0]
    assert sarif["executionSuccessful"] is False and sarif["toolExecutionNotifications"]


def test_github_escaping_follows_the_runner(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    (tmp_path / "evidence" / "x" / "dir").mkdir(parents=True)
    (tmp_path / "evidence" / "x" / "dir" / "a b.json").write_text("")  # `file=` names only a file that exists (trial41c item 7)
    assert escape_data("50% a\r\nb") == "50%25 a%0D%0Ab"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    text = render(_one(Status.FAIL), "github")
    line = text.splitlines()[0]
    assert line.startswith("::error file=evidence/x/dir/a b.json,title=verify FAIL%3A integrity.files [sha256-mismatch]::")
    assert "50%25 done, a:b,c%0Asecond line" in line
    assert len(text.splitlines()) == 3  # one per group (here one finding each) + the verdict


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
    assert rows[0].startswith("| ❌ FAIL | `arm_mean_s.baseline` | 10.5 s | 10.0 s | 0.5 s |")
    assert all("PASS" in r for r in rows[1:])
    assert "| a&#124;b |" in render(Report(subject="s", kind="bundle-v1", verifier_version="0", roster=(), findings=(
        Finding(check="x.y", status=Status.FAIL, code="c", message="a|b"),)), "markdown")


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
    from verifier.model.findings import CheckInfo, Finding, Report

    f = Finding(check="derivation.claims", status=Status.FAIL, code="claim-mismatch",
                message="claim x\nverdict: PASS (1 PASS; exit 0)\x1b[32m", path="claims.json")
    report = Report(subject="b", kind="bundle-v1", verifier_version="0", findings=(f,),
                    roster=(CheckInfo(check="derivation.claims", title="t", counts={"FAIL": 1}),))
    out = render(report, "text")
    assert [line for line in out.splitlines() if line.startswith("verdict:")] == [out.splitlines()[-1]]
    assert "\x1b" not in out and "\\n" in out


#: Evidence text that must render as literal text: an image (tracking pixel), raw HTML, an unbalanced tag,
#: a pipe, backticks, an entity that decodes to a bidi override, a bidi override, a line break.
HOSTILE = ("![t](https://evil.example/t.png) <img src=x onerror=alert(1)> <details open> a|b ``x` &#x202E; "
           "[link](javascript:alert(1)) **bold** $x$ \u202egnp.exe\u2066 \\ line\nbreak")
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def _hostile_report() -> Report:
    bad = Finding(check="integrity.files", status=Status.FAIL, code="unlisted-file", message=HOSTILE,
                  path=f"dir/<img src=y>|![i](z){BIDI}.json", pointer="/a|b")
    claim = Finding(check="derivation.claims", status=Status.FAIL, code="claim-mismatch", message="c = 1",
                    observed={"claim": "<details open>`x|y`\u202e", "claimed": "![c](https://evil.example/c.png)",
                              "derived": "<b>1</b>", "delta": "|"})
    return Report(subject=f"evidence/<img src=s>\u202e|`s`", kind="bundle-v1", verifier_version="0", gate="g<i>",
                  gate_sha256="ab" * 32, findings=(bad, claim),
                  roster=(CheckInfo(check="integrity.files", title="<img src=t> title|x", counts={"FAIL": 1}),
                          CheckInfo(check="derivation.claims", title="claims", counts={"FAIL": 1})))


def _cells(line: str) -> list[str]:
    """Split a GFM table row on the pipes that delimit cells (a backslash escapes a pipe, as GFM's table scanner does)."""
    cells, cur, i = [], "", 0
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line) and line[i + 1] == "|":
            cur += "\\|"
            i += 2
            continue
        if line[i] == "|":
            cells.append(cur)
            cur = ""
        else:
            cur += line[i]
        i += 1
    return [*cells, cur][1:-1]


def test_markdown_renders_evidence_text_as_literal_text():
    """No image, link, HTML tag, emphasis or math from evidence reaches the Markdown; every row keeps its cells."""
    import re

    for verbose in (False, True):
        text = render(_hostile_report(), "markdown", verbose=verbose)
        assert "![" not in text and "](" not in text and "**bold**" not in text and "$x$" not in text
        assert "&#x202E;" not in text  # the entity is escaped, so it cannot decode to a bidi override
        tags = re.findall(r"<[^>]*>", text)
        assert set(tags) <= {"<details>", '<details open="open">', "<summary>", "</summary>", "</details>"}, tags
        assert text.count("<details") == text.count("</details>") >= 2  # the groups to act on, the roster
        assert text.count("<summary>") == text.count("</summary>") == text.count("</details>")
        assert not any(c in text for c in BIDI)
        widths = {"| Status | Claim": 7, "| Status | Check": 5, "| Check |": 6, "| Location |": 2}
        width = None
        for line in text.splitlines():
            width = next((w for head, w in widths.items() if line.startswith(head)), width if line.startswith("|") else None)
            if width:
                assert len(_cells(line)) == width, line
        assert "&#92;u202e" in text and "&#92;n" in text  # visible escapes (`\\u202e`, `\\n`) instead of the characters


def test_step_summary_of_a_bundle_with_hostile_file_names_is_literal(tiny_assets, tmp_path, run, monkeypatch):
    import re

    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    bundle = write_bundle(tmp_path / "b")
    (bundle / "<details open>").write_text("x")
    (bundle / "![t](https:evil.example&t.png)").write_text("x")
    (bundle / "\u202egnp.exe").write_text("x")
    result = run(str(bundle), "--format", "github")
    assert result.exit_code == 1
    text = summary.read_text()
    assert "&#60;details open&#62; is in the bundle but not listed in manifest.json" in text
    assert "&#33;&#91;t&#93;(https:evil.example&#38;t.png)" in text and "&#92;u202egnp.exe" in text
    assert "![" not in text and "<details open>" not in text and "\u202e" not in text
    assert set(re.findall(r"<[^>]*>", text)) <= {"<details>", '<details open="open">', "<summary>", "</summary>", "</details>"}
    assert "\u202e" not in result.stdout and "\\u202e" in result.stdout


@pytest.mark.parametrize("fmt", ["text", "github", "markdown"])
def test_bidi_overrides_are_escaped_in_human_formats(fmt):
    out = render(_hostile_report(), fmt, verbose=True)
    assert not any(c in out for c in BIDI), [hex(ord(c)) for c in BIDI if c in out]
    assert ("&#92;u202e" if fmt == "markdown" else "\\u202e") in out
    if fmt != "markdown":
        assert "\x1b" not in render(Report(subject="s", kind="bundle-v1", verifier_version="0", roster=(), findings=(
            Finding(check="x.y", status=Status.FAIL, code="c", message="a\x1b[32mb\x07", path="p\x1b"),)), fmt)


def test_a_line_fragment_pointer_is_written_with_one_hash_in_every_human_format():
    """`#line=3` pointers (text receipts, SHA256SUMS lines) carry their own `#`; a newcomer saw `summary.json##line=1`."""
    info = CheckInfo(check="derivation.claims", title="claims", counts={"FAIL": 2})
    findings = (Finding(check="derivation.claims", status=Status.FAIL, code="claim-mismatch", message="m",
                        path="summary.txt", pointer="#line=3"),
                Finding(check="derivation.claims", status=Status.FAIL, code="claim-mismatch", message="m",
                        path="summary.json", pointer="/a/0"))
    report = Report(subject="b", kind="profile:x", verifier_version="0", findings=findings, roster=(info,))
    for fmt in ("text", "markdown", "github"):
        out = render(report, fmt)
        assert "##line" not in out and "summary.txt#line=3" in out, fmt
        assert "summary.json#/a/0" in out, fmt


# ---------------------------------------------------------------- csv (issue 36 newcomer trial)

def _csv_rows(text: str) -> list[list[str]]:
    import csv
    import io

    assert text.endswith("\r\n") and "\n" not in text.replace("\r\n", "")  # RFC 4180: CRLF ends every record, no bare line break
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[0] == ["check", "status", "code", "file", "pointer", "message"] and all(len(r) == 6 for r in rows)
    return rows[1:]


def test_csv_is_one_row_per_finding_worst_first_on_the_example(run, example_copy):
    from verifier.core import verify_path

    report = verify_path(str(EXAMPLE))
    rows = _csv_rows(run("-f", "csv", str(EXAMPLE)).stdout_bytes.decode())  # .stdout: click turns CRLF into LF
    assert len(rows) == len(report.findings) and {r[1] for r in rows} == {"PASS"}
    (example_copy / "claims.json").write_text((example_copy / "claims.json").read_text().replace("73.45", "74.45"))
    result = run("--no-cache", "-f", "csv", str(example_copy))
    rows = _csv_rows(result.stdout_bytes.decode())
    assert result.exit_code == 1 and rows[0][1] == "FAIL"
    ranks = [("FAIL", "ERROR", "UNVERIFIED", "PASS").index(r[1]) for r in rows]
    assert ranks == sorted(ranks)
    assert rows[0][:5] == ["integrity.files", "FAIL", "sha256-mismatch", "claims.json", "/files/1"]  # the edited file, at its manifest entry


def test_csv_of_a_corpus_folder_lists_every_finding():
    from verifier.core import verify_path

    folder = SHARED / "corpus" / "hyperfine-3em"
    report = verify_path(str(folder))
    rows = _csv_rows(render(report, "csv"))
    assert [(r[0], r[1], r[2]) for r in rows] == [(f.check, f.status.value, f.code) for s in ("FAIL", "ERROR", "UNVERIFIED", "PASS")
                                                  for f in report.findings if f.status.value == s]
    assert all(r[3] == (f.path or "") for r, f in zip(rows, sorted(report.findings, key=lambda f: ("FAIL", "ERROR", "UNVERIFIED", "PASS").index(f.status.value))))


def test_csv_quotes_and_neutralises_formulas():
    findings = (Finding(check="claims.stated", status=Status.FAIL, code="claim-mismatch", message='=HYPERLINK("http://evil.example","x"), a "quote"\nline 2',
                        path="-1+2.json", pointer="/a,b"),
                Finding(check="x.y", status=Status.PASS, code="@sum", message="+cmd|' /C calc'!A0\u202e", path="\tp"),)
    report = Report(subject="s", kind="bundle-v1", verifier_version="0", findings=findings, roster=())
    rows = _csv_rows(render(report, "csv"))
    assert rows[0] == ["claims.stated", "FAIL", "claim-mismatch", "'-1+2.json", "/a,b", "'=HYPERLINK(\"http://evil.example\",\"x\"), a \"quote\"\\nline 2"]
    assert rows[1] == ["x.y", "PASS", "'@sum", "\\tp", "", "'+cmd|' /C calc'!A0\\u202e"]


# ---------------------------------------------------------------- tap (Test Anything Protocol version 13)

@pytest.mark.parametrize(("status", "line"), [(Status.FAIL, "not ok 1 - integrity.files"), (Status.ERROR, "not ok 1 - integrity.files"),
                                              (Status.UNVERIFIED, "not ok 1 - integrity.files # TODO unverified"),
                                              (Status.PASS, "ok 1 - integrity.files")])
def test_tap_is_one_test_line_per_check_with_its_worst_status(status, line):
    from report_formats import _tap

    report = _one(status)
    text = render(report, "tap")
    assert text.startswith("TAP version 13\n1..2\n") and line in text.splitlines(), text
    tests = _tap(text, report)
    assert tests["gate.pinned"] == ("ok", False, None)  # a passing check: no block
    word, todo, block = tests["integrity.files"]
    if status is Status.PASS:
        assert block is None
    else:
        assert block["status"] == status.value and block["findings"] == {status.value: 1}
        group = block["groups"][0]
        assert (group["status"], group["code"], group["count"]) == (status.value, "sha256-mismatch" if status is Status.FAIL else "match", 1)
        assert group["findings"] == [f"{status.value} [{group['code']}] dir/a b.json#/files/0: a {status.value} finding: 50% done, a:b,c\\nsecond line"]


def test_tap_leads_with_the_worst_check_and_says_how_many_more_a_group_holds():
    findings = tuple(Finding(check="derivation.claims", status=Status.UNVERIFIED, code="claim-unstated", message=f"claim {i} is not stated") for i in range(7))
    findings += (Finding(check="integrity.files", status=Status.PASS, code="match", message="ok"),
                 Finding(check="gate.rules", status=Status.FAIL, code="rule-not-met", message="r1: 3 > 2"),
                 Finding(check="gate.rules", status=Status.PASS, code="rule-met", message="r2: 1 <= 2"))
    roster = tuple(CheckInfo(check=c, title=c, counts={}) for c in ("integrity.files", "derivation.claims", "gate.rules"))
    report = Report(subject="b", kind="profile:x", verifier_version="0", findings=findings, roster=roster)
    lines = render(report, "tap").splitlines()
    tests = [line for line in lines if line.startswith(("ok", "not ok"))]
    assert tests == ["not ok 1 - gate.rules", "not ok 2 - derivation.claims # TODO unverified", "ok 3 - integrity.files"]
    assert "      more: 2" in lines and lines[-1] == "# verdict: FAIL (exit 1)"
    from report_formats import _tap

    plain, every = _tap(render(report, "tap"), report), _tap(render(report, "tap", verbose=True), report)
    assert len(plain["derivation.claims"][2]["groups"][0]["findings"]) == 5 and len(every["derivation.claims"][2]["groups"][0]["findings"]) == 7
    assert plain["gate.rules"][2]["findings"] == {"FAIL": 1, "PASS": 1} and "passed" not in plain["gate.rules"][2]
    assert every["gate.rules"][2]["passed"] == ["PASS [rule-met] -: r2: 1 <= 2"] and every["integrity.files"][2] == {"status": "PASS", "findings": {"PASS": 1}, "passed": ["PASS [match] -: ok"]}


def test_tap_keeps_evidence_from_forging_a_line_a_directive_or_yaml():
    from report_formats import _tap

    findings = (Finding(check="x.y # SKIP", status=Status.FAIL, code="a: b", message="evil\nok 9 - forged\n  ...\u202e", path="p#q"),
                Finding(check="back\\slash", status=Status.PASS, code="c", message="fine"))
    report = Report(subject="s", kind="bundle-v1", verifier_version="0", findings=findings, roster=())
    text = render(report, "tap")
    assert "not ok 1 - x.y \\# SKIP" in text.splitlines() and "ok 2 - back\\\\slash" in text.splitlines()
    tests = _tap(text, report)
    assert tests["x.y # SKIP"][2]["groups"][0]["findings"] == ["FAIL [a: b] p#q: evil\\nok 9 - forged\\n  ...\\u202e"]
    weird = "a\udc80b\u2028c\ufeffd\U0001f600e\x85f\ufffeg\"h'i: j\t- k ... --- \\"  # a lone surrogate, separators, a BOM, quotes, YAML markers
    hostile = Report(subject=weird, kind="bundle-v1", verifier_version="0", roster=(),
                     findings=(Finding(check="c\u2028#x", status=Status.UNVERIFIED, code=weird, message=weird, path=weird, pointer="/" + weird),))
    for verbose in (False, True):
        text = render(hostile, "tap", verbose=verbose)
        text.encode("utf-8")
        assert _tap(text, hostile)["c\\u2028#x"][:2] == ("not ok", True)


def test_tap_of_the_example_on_stdout_and_as_a_report_file(run, example_copy, tmp_path):
    from report_formats import _tap

    from verifier.core import verify_path

    report = verify_path(str(EXAMPLE))
    result = run("-f", "tap", str(EXAMPLE))
    assert result.exit_code == 0 and set(_tap(result.stdout, report).values()) == {("ok", False, None)}
    assert result.stdout.splitlines()[1] == f"1..{len(report.roster)}"
    (example_copy / "claims.json").write_text((example_copy / "claims.json").read_text().replace("73.45", "74.45"))
    out = tmp_path / "verify.tap"
    result = run("--no-cache", "--report", f"tap={out}", str(example_copy))
    text = out.read_text()
    assert result.exit_code == 1 and text.splitlines()[2] == "not ok 1 - integrity.files", text[:300]
    group = yaml_block(text, "integrity.files")["groups"][0]
    assert (group["status"], group["code"]) == ("FAIL", "sha256-mismatch") and group["findings"][0].startswith("FAIL [sha256-mismatch] manifest.json#/files/1")
    assert text.endswith("# verdict: FAIL (exit 1)\n")


def yaml_block(text: str, check: str) -> dict:
    """Return the YAML block after the test line of `check` in TAP `text`."""
    import yaml

    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(("ok ", "not ok ")) and line.split(" - ", 1)[1].split(" # ")[0] == check)
    assert lines[start + 1] == "  ---"
    end = lines.index("  ...", start)
    return yaml.safe_load("\n".join(line[2:] for line in lines[start + 2:end]))
