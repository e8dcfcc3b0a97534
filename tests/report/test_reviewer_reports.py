"""
Reports a reviewer acts on (issue 41; issue 36 item 3): every format leads with FAIL, then ERROR, then UNVERIFIED,
grouped by check, code and rule; every bundle's claims are shown whatever its reader; numbers are written one way.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from decimal import Decimal
from pathlib import Path

import pytest

from verifier.model.findings import CheckInfo, Finding, Report, Status
from verifier.report import REPORTERS, render

CORPUS = Path(__file__).resolve().parent.parents[2] / "shared" / "corpus"
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/corpus")
MLPERF = CORPUS / "mlperf-inference-test-submissions-v5.0"
GDN = CORPUS / "system1-omni-gdn-20261003"


def _crowd() -> Report:
    """A report like the rankings study's: many PASS, 531 alike UNVERIFIED, one ERROR and two FAIL found last."""
    findings = [Finding(check="derivation.claims", status=Status.PASS, code="derived", message=f"c{i}: stated 1 s, derived 1 s", expected="1", observed="1",
                        path="r.json", pointer=f"/{i}") for i in range(40)]
    findings += [Finding(check="claims.coverage", status=Status.UNVERIFIED, code="needs-external",
                         message=f"results.json /{i}/ssim states 1.0: needs the MP4s", path="results.json", pointer=f"/{i}/ssim")
                 for i in range(531)]
    findings.append(Finding(check="quality.rescore", status=Status.ERROR, code="scorer-crashed", message="boom <b>"))
    findings += [Finding(check="gate.rules", status=Status.FAIL, code="rule-not-met",
                         message=f"min-speedup (over phase=measured): not met in case {i}", path="plan.json", pointer="/gate")
                 for i in range(2)]
    roster = tuple(CheckInfo(check=c, title=c, counts=n) for c, n in (("derivation.claims", {"PASS": 40}), ("claims.coverage", {"UNVERIFIED": 531}),
                                                                      ("quality.rescore", {"ERROR": 1}), ("gate.rules", {"FAIL": 2})))
    return Report(subject="evidence/study", kind="profile:x", verifier_version="0", roster=roster, findings=tuple(findings))


def _order(text: str, *needles: str) -> list[int]:
    return [text.index(n) for n in needles]


def test_the_grouping_is_one_function_worst_first():
    from verifier.report._common import groups

    found = groups(_crowd())
    assert [(g.status, g.check, g.rule, g.count) for g in found] == [
        (Status.FAIL, "gate.rules", "min-speedup", 2), (Status.ERROR, "quality.rescore", "", 1),
        (Status.UNVERIFIED, "claims.coverage", "", 531)]


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_human_formats_lead_with_fail_then_error_then_unverified_grouped(fmt):
    out = render(_crowd(), fmt)
    fail, error, unverified = _order(out, "min-speedup", "scorer-crashed", "needs-external")
    assert fail < error < unverified
    assert "531 finding(s)" in out and "2 finding(s)" in out
    assert out.count("needs the MP4s") == 5  # the first few instances, not 531
    claims = out.index("c0") if fmt != "text" else out.index("claims: 40")
    assert unverified < claims  # then the claims
    assert {"html": "boom &lt;b&gt;", "markdown": "boom &#60;b&#62;", "text": "boom <b>"}[fmt] in out
    if fmt == "html":
        assert re.search(r'<details class="group g-FAIL" id="[^"]+" open><summary>', out)
        assert re.search(r'<details class="group g-UNVERIFIED" id="[^"]+"><summary>', out)
        assert out.index("To act on") < out.index("<h2>Claims") < out.index("<h2>PASS findings")


def test_verbose_lists_every_instance_of_a_group():
    assert render(_crowd(), "text", verbose=True).count("needs the MP4s") == 531
    assert render(_crowd(), "markdown", verbose=True).count("needs the MP4s") == 531


def test_github_gives_one_annotation_per_group_not_531():
    lines = render(_crowd(), "github").splitlines()
    warnings = [line for line in lines if line.startswith("::warning") and "needs-external" in line]
    errors = [line for line in lines if line.startswith("::error") and "verdict" not in line]
    assert len(warnings) == 1 and "(531)" in warnings[0] and "and 526 more" in warnings[0]
    assert [("rule-not-met" in e, "scorer-crashed" in e) for e in errors] == [(True, False), (False, True)]
    assert any(line.startswith("::notice") and "40 claim(s)" in line for line in lines)


def test_junit_and_sarif_lead_with_failures_and_stay_well_formed():
    suite = ET.fromstring(render(_crowd(), "junit")).find("testsuite")
    names = [c.get("name") for c in suite.iter("testcase")]
    assert names == ["gate.rules", "quality.rescore", "claims.coverage", "derivation.claims"]
    text = next(c for c in suite.iter("testcase") if c.get("name") == "claims.coverage").find("failure").text
    assert "needs-external]: 531 finding(s)" in text and "... and 526 more" in text and text.count("needs the MP4s") == 5
    sarif = json.loads(render(_crowd(), "sarif"))
    run = sarif["runs"][0]
    assert [r["properties"]["status"] for r in run["results"][:3]] == ["FAIL", "FAIL", "ERROR"]
    assert run["properties"]["groups"][0] == {"status": "FAIL", "check": "gate.rules", "code": "rule-not-met",
                                             "rule": "min-speedup", "count": 2}
    assert len(run["properties"]["claims"]) == 40


def test_every_format_still_renders_every_registered_format():
    for fmt in REPORTERS:
        assert render(_crowd(), fmt)


@pytest.fixture(scope="module")
def mlperf():
    from verifier.core import verify_path

    return verify_path(str(MLPERF))


@pytest.mark.skipif(not MLPERF.is_dir(), reason="the shared corpus is not here")
def test_a_profile_read_bundle_gets_its_claims_table_in_html_and_markdown(mlperf):
    page = render(mlperf, "html")
    assert "No claim findings" not in page
    table = page.split('id="claims"', 1)[1].split("</table>", 1)[0]
    # a tokens/s figure stated as Samples/s: claimed, derived, delta and where in one row
    # (where second, issue 41 trial: a reviewer sees it without scrolling sideways)
    assert re.search(r"<td class=loc><a href=\"[^\"]*/summary\.json\"><code><span>summary\.json#/</span><wbr><span>1/</span><wbr><span>Result</span></code></a></td><td class=name>[^<]*(<wbr>[^<]*)*</td>"
                     r"<td class=num>0\.0148696 Samples/s</td><td class=num>0\.000195653 Samples/s</td><td class=num>- \(unit-mismatch\)</td>",
                     table)
    assert "252 claim(s): 3 FAIL, 9 UNVERIFIED, 240 PASS" in page
    md = render(mlperf, "markdown")
    assert "#### Claims" in md and "| Status | Claim | Claimed | Derived | Delta | Tolerance | Where |" in md
    assert "0.0148696 Samples/s | 0.000195653 Samples/s | - (unit-mismatch) | - | `summary.json#/1/Result` |" in md  # no difference of two units
    text = render(mlperf, "text")
    assert "claims: 252 (3 FAIL, 9 UNVERIFIED, 240 PASS" in text


@pytest.mark.skipif(not GDN.is_dir(), reason="the shared corpus is not here")
def test_the_gdn_bundle_shows_claimed_against_derived():
    pytest.importorskip("matplotlib")
    from verifier.core import verify_path
    from verifier.report import html

    report = verify_path(str(GDN))
    page = render(report, "html")
    assert f'id="plot-{html.CLAIM_PLOT}"' in page and f'id="plot-{html.RECEIPTS_PLOT}"' in page
    series = {(s["set"], s["quantity"]): s for s in report.figures["receipt_sets"]}
    assert ("e2e", "latency") in series and len(series[("e2e", "latency")]["values"]) == 296, sorted(series)
    assert re.search(r"pass_<wbr>mean_<wbr>ms<wbr>\[arm=<wbr>baseline\]<wbr>\[server=<wbr>1\]</td>"
                     r"<td class=num>48\.37519689189189 ms</td><td class=num>48\.3751968918918919 ms</td>", page)  # with the unit


@pytest.mark.parametrize(("value", "kwargs", "shown"), [
    ("396.30", {}, "396.30"), ("0E-8", {}, "0"), ("0E+4", {}, "0"), ("5E+2", {}, "500"), (Decimal("1.997499202"), {}, "1.997499202"),
    (Decimal("0.00500000000016"), {"digits": 3}, "0.005"), ("48.375196891891891891891891891891891891891891891892", {}, "48.3751968919"),
    ("1.5E+30", {}, "1.5E+30"), ("-0", {}, "0"), ("0.00", {}, "0.00"), ("n/a", {}, "n/a"), ("396.3012345678", {"places": 4}, "396.3012")])
def test_numbers_are_written_one_way(value, kwargs, shown):
    from verifier.model.numtext import number

    assert number(value, **kwargs) == shown


def test_quantities_leave_out_the_dimensionless_unit():
    from verifier.model.numtext import quantity

    assert quantity(5, "1") == "5" and quantity("5E+2", "/s") == "500 /s" and quantity("1.50", "s") == "1.50 s"


def test_the_claims_table_never_writes_exponents():
    from verifier.report._common import claim_rows

    finding = Finding(check="derivation.claims", status=Status.PASS, code="derived", message="n = 500 re-derives",
                      observed={"claim": "n", "claimed": "500", "derived": "5E+2", "delta": "0E-8", "tolerance": "0.5"})
    row = claim_rows(Report(subject="b", kind="bundle-v1", verifier_version="0", roster=(), findings=(finding,)))[0]
    assert (row.claimed, row.derived, row.delta) == ("500", "500", "0")


def test_a_derivation_message_states_its_tolerance_as_the_claim_does(tmp_path):
    from conftest import EXAMPLE

    from verifier.core import verify_path

    report = verify_path(str(EXAMPLE))
    message = next(f.message for f in report.findings if f.check == "derivation.claims")
    assert message.endswith("re-derives (396.30, tolerance 0.005 s)"), message


def test_the_text_report_of_an_unregistered_bundle_names_the_digest_to_register(tmp_path):
    import shutil

    from conftest import CORPUS

    from verifier.commands.repository import verify_repository

    repo = tmp_path / "repo"
    shutil.copytree(CORPUS / "hyperfine-3em", repo / "evidence" / "hyperfine")
    (repo / "evidence-inventory.json").write_text(json.dumps({"format": "verify-evidence-inventory", "format_version": 1, "bundles": {}}))
    report = verify_repository(str(repo))
    [f] = [f for f in report.findings if f.code == "unregistered-bundle"]
    digest = f.observed["files_sha256"]
    assert f'"files_sha256": "{digest}"' in render(report, "text")


def test_sarif_records_no_absolute_path_when_the_bundle_is_given_absolutely(tmp_path):
    finding = Finding(check="integrity.files", status=Status.FAIL, code="sha256-mismatch", message="m", path="a.json")
    report = Report(subject=str(tmp_path / "bundle") + "/", kind="bundle-v1", verifier_version="0", roster=(), findings=(finding,))
    text = render(report, "sarif")
    assert str(tmp_path) not in text
    run = json.loads(text)["runs"][0]
    assert run["originalUriBaseIds"]["BUNDLE"]["uri"] == "bundle/" and run["properties"]["subject"] == "bundle"
    single = Report(subject=str(tmp_path / "r.json"), kind="serving-performance-v1", verifier_version="0", roster=(),
                    findings=(Finding(check="schema.documents", status=Status.FAIL, code="x", message="m", path="r.json"),))
    assert str(tmp_path) not in render(single, "sarif")


def _tree_of_bundles(root: Path) -> Path:
    import shutil

    for name in ("system1-omni-gdn-20261003", "mlperf-inference-test-submissions-v5.0"):
        shutil.copytree(CORPUS / name, root / "evidence" / name)
    shutil.copytree(CORPUS / "hyperfine-3em", root / "evidence" / "hyperfine-3em")
    return root


def test_a_folder_of_several_bundles_is_not_read_as_one(tmp_path, run):
    import time

    root = _tree_of_bundles(tmp_path / "repo")
    started = time.monotonic()
    result = run(str(root))
    assert result.exit_code == 2 and time.monotonic() - started < 10  # within a second of work; slack for a loaded machine
    line = (result.output + (result.stderr if result.stderr_bytes is not None else "")).strip().splitlines()[-1]
    assert "not one bundle" in line and "hold 2 bundles:" in line and "verify inventory" in line
    assert "evidence/mlperf-inference-test-submissions-v5.0/ (profile mlperf-inference)" in line
    assert "evidence/system1-omni-gdn-20261003/ (profile system1-omni-gdn)" in line
    assert run(str(root / "evidence" / "hyperfine-3em")).exit_code == 3  # one bundle is still read


def test_a_source_checkout_is_not_read_as_one_bundle(tmp_path, run):
    import shutil

    from conftest import EXAMPLE

    repo = tmp_path / "checkout"
    (repo / ".git").mkdir(parents=True)
    (repo / "pyproject.toml").write_text("[project]\nname='x'\n")
    shutil.copytree(CORPUS / "hyperfine-3em", repo / "bench")
    for i in range(25):
        (repo / "data" / f"d{i}.json").parent.mkdir(exist_ok=True)
        (repo / "data" / f"d{i}.json").write_text("{}")
    shutil.copytree(EXAMPLE, repo / "examples" / "ex")
    result = run(str(repo))
    assert result.exit_code == 2, result.output[-500:]
    assert "It is a source checkout (.git, pyproject.toml" in result.output + str(result.stderr) and "verify inventory" in result.output + str(result.stderr)
    assert run(str(repo), "--profile", "hyperfine").exit_code != 2  # the reader asked for by name still reads it


def test_the_json_report_carries_the_groups_and_the_claims_and_stays_schema_valid():
    from report_formats import report_validator

    document = json.loads(render(_crowd(), "json"))
    assert not list(report_validator().iter_errors(document))
    assert [(g["status"], g["count"]) for g in document["to_act_on"]] == [("FAIL", 2), ("ERROR", 1), ("UNVERIFIED", 531)]
    assert document["findings"][document["to_act_on"][0]["findings"][0]]["code"] == "rule-not-met"
    assert len(document["claims"]) == 40 and document["claims"][0]["where"] == "r.json#/0"


def test_json_and_sarif_claims_carry_the_tolerance_the_text_formats_show():
    """Text, Markdown and HTML show each claim's tolerance; JSON and SARIF left it out (hostile trial helper-69, #13)."""
    from report_formats import report_validator

    finding = Finding(check="derivation.claims", status=Status.FAIL, code="claim-mismatch", message="rate: stated 30.09, derived 30.0646",
                      observed={"claimed": "30.09", "derived": "30.0646", "delta": "0.0254", "tolerance": "0.005"}, path="r.json", pointer="/rate")
    report = Report(subject="r", kind="serving-load-telemetry", verifier_version="0", roster=(), findings=(finding,))
    document = json.loads(render(report, "json"))
    assert not list(report_validator().iter_errors(document))
    assert document["claims"][0]["tolerance"] == "0.005"
    sarif = json.loads(render(report, "sarif"))
    assert sarif["runs"][0]["properties"]["claims"][0]["tolerance"] == "0.005"


@pytest.mark.parametrize("subject", ["tests/fixtures/vllm/abcd-bucket-peak.json", "tests/fixtures/telemetry/good"])
def test_a_receipt_readers_html_report_plots_its_receipts(subject):
    """Issue 36 item 3: every reader's HTML report plots its receipts; only profile-read models were drawn (`figures.receipt_sets`
    returned nothing for a receipt reader whose model holds receipts: a vLLM result's per-request latencies)."""
    from verifier.core import verify_path
    from verifier.report.html import RECEIPTS_PLOT

    report = verify_path(str(Path(__file__).resolve().parent.parent.parent / subject))
    page = render(report, "html")
    if subject.endswith(".json"):
        assert report.figures.get("receipt_sets") and f'id="plot-{RECEIPTS_PLOT}"' in page
    else:  # the telemetry receipt's model holds no receipt rows (its facts are claims): nothing to draw, and no empty figure
        assert not report.figures.get("receipt_sets") and f'id="plot-{RECEIPTS_PLOT}"' not in page


def test_a_native_bundles_receipts_are_drawn_per_request_not_again_as_receipt_sets():
    """A native bundle's receipts are plotted as latency per request (`figures.requests`); drawing them again as receipt sets
    would repeat every elapsed time in a second figure."""
    from verifier.core import verify_path

    report = verify_path(str(Path(__file__).resolve().parent.parent.parent / "examples" / "ref2va-5s"))
    assert report.figures.get("requests") is not None and "receipt_sets" not in report.figures


def test_a_receipt_folders_html_report_plots_each_files_receipts_named_by_its_file(tmp_path):
    """Issue 36 item 3 for a folder of several receipts (stop 52 left it): each file's receipts are series of their own,
    named by the file, since each file is its own run (two vLLM results with per-request details)."""
    import shutil

    from verifier.core import verify_path
    from verifier.report.html import RECEIPTS_PLOT

    folder = tmp_path / "results"
    folder.mkdir()
    for name in ("a.json", "b.json"):
        shutil.copy(Path(__file__).resolve().parent.parent / "fixtures" / "vllm" / "abcd-bucket-peak.json", folder / name)
    report = verify_path(str(folder))
    names = sorted(p.name for p in folder.glob("*.json"))
    sets = report.figures.get("receipt_sets") or []
    assert {s["set"].split(": ", 1)[0] for s in sets} == set(names)
    alone = verify_path(str(folder / names[0])).figures["receipt_sets"]
    assert [s["values"] for s in sets if s["set"].startswith(names[0] + ": ")] == [s["values"] for s in alone]
    assert f'id="plot-{RECEIPTS_PLOT}"' in render(report, "html")
