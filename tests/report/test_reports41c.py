"""
Issue 41, second reviewer trial (trial41c): what a reviewer who did not write the code found wrong in the four FAIL reports.

Each test was red before its fix; the numbers in the docstrings are the brief's items.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from verifier.model.findings import Finding, Report, Status
from verifier.report import render

CORPUS = Path(__file__).resolve().parent.parents[2] / "shared" / "corpus"
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/corpus")
MLPERF = CORPUS / "mlperf-inference-test-submissions-v5.0"
H3 = CORPUS / "vllm-omni-rankings-h3-online-fp8"

#: How `verifier.checks.profile_claims` records where a claimed number comes from (the gate rule's `[...]` names the same).
_DERIVED = "first (in file order) of 1 values of rouge1 (model=m, platform={p})"


def _cell_claim(row: int, platform: str, value: str) -> Finding:
    return Finding(check="derivation.claims", status=Status.PASS, code="derived", message=f"csv.ROUGE1[platform={platform}]: stated {value}, derived {value}",
                   expected=value, observed=value, path="summary.csv", pointer=f"/{row}/Accuracy#ROUGE1", derivation=_DERIVED.format(p=platform))


def _gated() -> Report:
    """Two PASS claims of a CSV table's cells, a gate rule not met by the first one's quantity, and another check's FAIL at the second cell."""
    gate = Finding(check="gate.rules", status=Status.FAIL, code="rule-not-met",
                   message="stated-range-ROUGE1: not met: platform=a: rouge1 = 31.4286 (does not meet >= 45.14291 stated in a/README.md)",
                   path="a/README.md", observed={"platform=a": {"value": "31.4286", "bounds": ">= 45.14291", "met": False, "file": "a/README.md"}},
                   derivation=f"platform=a: rouge1 = 31.4286 (does not meet >= 45.14291 stated in a/README.md) [{_DERIVED.format(p='a')}]; "
                              f"platform=b: rouge1 = 50 (meets >= 45.14291 stated in b/README.md) [{_DERIVED.format(p='b')}]")
    other = Finding(check="claims.stated", status=Status.FAIL, code="stated-mismatch", message="summary.csv: a cell states 50.1, not 50",
                    path="summary.csv", pointer="/1/Accuracy#ROUGE1")
    findings = (_cell_claim(0, "a", "31.4286"), _cell_claim(1, "b", "50"), gate, other)
    return Report(subject="evidence/made-up", kind="profile:made-up", verifier_version="0", roster=(), findings=findings)


def test_a_grid_cell_takes_the_worst_status_of_every_finding_located_at_it():
    """Item 1: a gate rule not met at a cell's quantity, or any finding at the cell, makes the cell FAIL and is counted."""
    from verifier.report.grids import grids

    (grid,), _left = grids(_gated())
    (_l0, (first,)), (_l1, (second,)) = grid.rows
    assert first.status is Status.FAIL and "stated-range-ROUGE1" in first.detail()  # the gate rule, through the shared derivation
    assert second.status is Status.FAIL and "a cell states 50.1" in second.detail()  # located at the cell itself
    assert grid.counts == {"FAIL": 2, "PASS": 2}
    page = render(_gated(), "html").split('id="grids"', 1)[1]
    assert page.count('<td class="c-FAIL"') == 2 and '<td class="c-PASS"' not in page
    assert "2 claim(s) and 2 other finding(s) at its cells: 2 FAIL, 2 PASS" in page
    md = render(_gated(), "markdown").split("#### Results tables", 1)[1]
    assert md.count("❌ 31.4286") == 1 and "✅" not in md.split("</summary>", 1)[1]


@pytest.mark.skipif(not MLPERF.is_dir(), reason="the shared corpus is not here")
def test_the_mlperf_grid_shows_the_gate_rules_it_fails():
    """Item 1 on the corpus: ROUGE1/2/L and mbxp of the mixtral row, F1 of the bert-99 rows fail their stated ranges."""
    from verifier.core import verify_path
    from verifier.report.grids import grids

    found, _left = grids(verify_path(str(MLPERF)))
    csv = next(g for g in found if g.title == "summary.csv")
    failing = {(label.split(":")[0], column) for label, cells in csv.rows for column, c in zip(csv.columns, cells, strict=True)
               if c is not None and c.status is Status.FAIL}
    assert {("1", "Accuracy#ROUGE1"), ("1", "Accuracy#ROUGE2"), ("1", "Accuracy#ROUGEL"), ("1", "Accuracy#mbxp_accuracy"), ("1", "Result")} <= failing
    assert sum(column == "Accuracy#F1" for _row, column in failing) == 2
    assert csv.counts["FAIL"] == 6 and csv.others == 5  # one claim FAIL and five gate rules (F1 at two cells counts once)


def test_compared_places_shows_a_delta_past_its_tolerance_as_past_it():
    """Item 2: two places past the stated precision, and more until the shown delta compares with the tolerance as the exact one does."""
    from verifier.model.numtext import compared_places

    assert compared_places("0.0501158511653", "0.05", 1) == 4  # 0.050 would read as within 0.05: 0.0501
    assert compared_places("-0.0501158511653", "0.05", 1) == 4  # the sign of a difference does not matter
    assert compared_places("0.00", "0.005000000000308", 2) == 4  # a PASS within its tolerance: the two places past the claim
    assert compared_places("0.04986", "0.0499", 2) == 5  # 0.0499 (4 places) reads as within 0.0499 only at 5: 0.04986
    assert compared_places("0.9974992020035848", "0.005", 2) == 4 and compared_places("-", "0.05", 1) == 3
    assert compared_places("0.0501", None, 1) == 3 and compared_places("0.0501", "0.05", None) is None


@pytest.mark.skipif(not H3.is_dir(), reason="the shared corpus is not here")
def test_the_h3_claim_row_shows_derived_delta_and_tolerance_at_digits_that_show_the_fail():
    """Item 2 on the corpus: `32.1 % | 32.050 % | 0.050 %` hid that 0.0501 exceeds 0.05."""
    from verifier.core import verify_path
    from verifier.report._common import claim_rows

    report = verify_path(str(H3))
    row = next(r for r in claim_rows(report) if r.status is Status.FAIL and r.claim == "dlo.saved_pct_streaming")
    assert (row.claimed, row.derived, row.delta, row.tolerance) == ("32.1 %", "32.0499 %", "0.0501 %", "0.05 %")
    page = render(report, "html")
    assert "<th>tolerance</th>" in page and "<td class=num>0.0501 %</td><td class=num>0.05 %</td>" in page
    assert "dlo.saved_pct_streaming: stated 32.1 %, derived 32.0499 %, delta 0.0501 %, tolerance 0.05 % (FAIL)" in page
    md = render(report, "markdown")
    assert "| 32.1 % | 32.0499 % | 0.0501 % | 0.05 % |" in md


def _fail_example(tmp_path: Path) -> Path:
    """The example with its README's 73.45 % changed to 74.45 %, the manifest re-listed: one stated-number FAIL."""
    import shutil

    from bundlekit import rehash

    bundle = tmp_path / "fail-example"
    shutil.copytree(Path(__file__).resolve().parent.parents[1] / "examples" / "ref2va-5s", bundle)
    readme = bundle / "README.md"
    readme.write_text(readme.read_text().replace("73.45 % lower", "74.45 % lower", 1))
    rehash(bundle)
    return bundle


def test_a_stated_number_fail_message_writes_derived_delta_and_tolerance_as_the_tables_do(tmp_path):
    """Item 3 (a1): `73.452500798 %` with no delta in the message, `73.4525 %` in the table."""
    from verifier.core import verify_path

    report = verify_path(str(_fail_example(tmp_path)))
    (bad,) = [f for f in report.findings if f.status is Status.FAIL]
    assert "but the evidence gives 73.4525 % (delta 0.9975 %, tolerance 0.005 %; arm_mean_s: baseline 407.27 s, candidate 108.12 s)" in bad.message


GDN = CORPUS / "system1-omni-gdn-20261003"


@pytest.mark.skipif(not GDN.is_dir(), reason="the shared corpus is not here")
def test_a_gate_comparison_message_names_both_arms_and_the_bound_with_its_unit():
    """Item 3 (c): `relative_reduction_pct = 0.42005871366 % (needs >= 2)`: 11 digits, no unit on the bound, no arm means."""
    from verifier.core import verify_path

    report = verify_path(str(GDN))
    (rule,) = [f for f in report.findings if f.status is Status.FAIL and f.check == "gate.rules"]
    # the arm means carry their unit (the value's, in the base unit of its dimension): unitless seconds inside a % rule misled a newcomer
    assert rule.message.endswith("relative_reduction_pct = 0.42 % (needs >= 2 %; baseline 0.0484081 s, candidate 0.0482048 s)")


def test_claim_counts_include_the_stated_numbers_of_the_prose(tmp_path):
    """Item 4 (a1): `14 claim(s): 14 PASS` above a stated-number FAIL; github `14 claim(s) compared with their derivation: 0 FAIL`."""
    from verifier.core import verify_path

    report = verify_path(str(_fail_example(tmp_path)))
    page = render(report, "html")
    count = re.search(r'<p id="claims-count">([^<]*)</p>', page)
    assert count and re.fullmatch(r"14 claim\(s\) and \d+ stated number\(s\) of the prose: 1 FAIL, \d+ PASS", count.group(1)), count
    assert re.search(r"\n14 claim\(s\) and \d+ stated number\(s\) of the prose: 1 FAIL, \d+ PASS\n", render(report, "markdown"))
    notice = next(line for line in render(report, "github").splitlines() if "title=verify claims" in line)
    assert re.search(r"::14 claim\(s\) and \d+ stated number\(s\) of the prose compared with their derivation: 1 FAIL, 0 ERROR, \d+ UNVERIFIED, \d+ PASS$", notice), notice
    assert re.search(r"claims: 14 and \d+ stated number\(s\) of the prose \(1 FAIL, ", render(report, "text"))


def _linked(subject: str) -> Report:
    f = Finding(check="derivation.claims", status=Status.FAIL, code="claim-mismatch", message="wall: stated 2 s, derived 1 s",
                expected="2", observed={"claim": "wall", "claimed": "2", "derived": "1", "delta": "1"}, path="claims.json", pointer="/claims/0/value")
    return Report(subject=subject, kind="bundle-v1", verifier_version="0", roster=(), findings=(f,))


def test_html_links_are_relative_to_the_report_file_and_never_absolute(tmp_path, monkeypatch):
    """Item 5: `cd /work/shared && verify --report html=/tmp/x.html corpus/b` linked `./corpus/b/...` (resolving under /tmp); an absolute bundle linked `/abs/...`."""
    from verifier.report.outputs import ReportTarget, write_targets

    (tmp_path / "work" / "b").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    for subject in ("b", str(tmp_path / "work" / "b")):
        write_targets(_linked(subject), [ReportTarget("html", tmp_path / "out" / "x.html")])
        hrefs = re.findall(r'href="([^"#][^"]*)"', (tmp_path / "out" / "x.html").read_text())
        assert hrefs and set(hrefs) == {"../work/b/claims.json"}, (subject, hrefs)
        page = render(_linked(subject), "html")  # no report file (stdout): relative to the working folder
        assert set(re.findall(r'href="([^"#][^"]*)"', page)) == {"./b/claims.json"}, subject


def test_every_location_cell_of_a_stated_number_links_to_its_file(tmp_path):
    """Item 6 (a1): `README.md:3:55` in the "Stated in the prose" FAIL row was plain text, a link in the group above."""
    from verifier.core import verify_path

    page = render(verify_path(str(_fail_example(tmp_path))), "html")
    cells = re.findall(r"<td class=loc>(.*?)</td>", page)
    stated = [c for c in cells if "3:55" in re.sub(r"<[^>]*>", "", c)]
    assert len(stated) >= 2 and all(c.startswith('<a href="') and 'README.md">' in c for c in stated), stated


def test_github_and_markdown_name_the_bundle_without_its_absolute_path():
    """Item 10: `::error title=verify FAIL%3A /tmp/...::` and `### ❌ verify: FAIL — /work/shared/corpus/...`."""
    report = _linked("/work/secret/home/bundle-x")
    assert "/work/secret" not in render(report, "github") and "title=verify FAIL%3A bundle-x::" in render(report, "github")
    heading = render(report, "markdown").splitlines()[0]
    assert heading.endswith("verify: FAIL — `bundle-x`"), heading
    assert render(_linked("evidence/b"), "markdown").splitlines()[0].endswith("— `evidence/b`")


def _missing(subject: str) -> Report:
    findings = (Finding(check="integrity.files", status=Status.FAIL, code="missing-file", path="kernel/compare.py", pointer="/files/kernel~1compare.py",
                        expected={"listed_in": "manifest.json"}, message="kernel/compare.py is listed in manifest.json but not in the bundle"),
                Finding(check="coverage.streams", status=Status.UNVERIFIED, code="no-file", path="*/*/results/*/mlperf_log_detail.txt",
                        message="no file matches the pattern"),
                Finding(check="integrity.files", status=Status.UNVERIFIED, code="external-not-supplied", path="dlo_smoke/t2va.mp4",
                        message="dlo_smoke/t2va.mp4 is external and not supplied"))
    return Report(subject=subject, kind="bundle-v1", verifier_version="0", roster=(), findings=findings)


def test_sarif_places_a_missing_file_on_its_manifest_and_says_truly_what_srcroot_is(tmp_path, monkeypatch):
    """Item 9: SARIF put a missing file on the absent file's uri (github/HTML: manifest.json); SRCROOT claimed the directory verify ran in."""
    import json

    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "manifest.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    for subject, root in (("b", "the directory verify ran in"), (str(tmp_path / "b"), "the directory that holds the bundle")):
        run = json.loads(render(_missing(subject), "sarif"))["runs"][0]
        missing = next(r for r in run["results"] if r["properties"]["code"] == "missing-file")
        assert missing["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "manifest.json", "uriBaseId": "BUNDLE"}
        assert run["originalUriBaseIds"]["SRCROOT"]["description"]["text"].startswith(root), (subject, run["originalUriBaseIds"])
        assert run["originalUriBaseIds"]["BUNDLE"]["uri"] == "b/"


def test_github_annotations_name_only_files_that_exist(tmp_path, monkeypatch):
    """Item 7: `file=` named a glob (`*/*/results/*/...`) and an absent `dlo_smoke/t2va.mp4`."""
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "manifest.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    out = render(_missing("b"), "github", verbose=True)
    files = re.findall(r"file=([^,:]*)", out)
    assert files and all((tmp_path / f).is_file() for f in files), files
    assert "file=b/manifest.json" in out


def test_grid_headers_values_and_marks_read_plainly():
    """Item 12: `Saved vs. original#numbers/1 (%)`, `Max peak GPU MiB (MiB)`, 17-digit values, and Markdown `→ -` where HTML shows `?` alone."""
    from verifier.report.grids import grids

    def claim(status, column, stated, derived, unit="%"):
        return Finding(check="derivation.claims", status=status, code="derived" if derived else "receipt-absent",
                       message=f"c: stated {stated} {unit}, derived {derived} {unit}" if derived else f"c: states {stated}",
                       expected=f"{stated}" if derived else "r.csv", observed=derived or stated, path="R.md", pointer=f"/tables/T/0/{column}")
    findings = (claim(Status.PASS, "Saved vs. original#numbers/1", "32.1", "32.1"), claim(Status.PASS, "Max peak GPU MiB", "1.0752762466386638", "1.0752762466386638", "MiB"),
                claim(Status.UNVERIFIED, "Other", "0.342746", None))
    report = Report(subject="b", kind="profile:made-up", verifier_version="0", roster=(), findings=findings)
    (grid,), _ = grids(report)
    assert {grid.heading(j) for j in range(3)} == {"Saved vs. original (2nd number, %)", "Max peak GPU MiB", "Other"}
    mib = grid.columns.index("Max peak GPU MiB")
    assert grid.rows[0][1][mib].values(grid.units[mib]) == [("1.07527624664", "1.07527624664")]
    page = render(report, "html")
    assert "<th>Saved vs. original (2nd number, %)</th>" in page and "<th>Max peak GPU MiB</th>" in page
    md = render(report, "markdown").split("#### Results tables", 1)[1]
    assert "| Saved vs. original (2nd number, %) |" in md and "| Max peak GPU MiB |" in md and "MiB (MiB)" not in md
    assert "⚠️ 0.342746 |" in md and "→ -" not in md  # as HTML: the derived value only for FAIL and ERROR


def test_the_grid_label_column_is_capped_and_sticky_and_the_digest_is_short():
    """Items 11 and 16: row labels ~730 px wide pushed the values off a 900 px screen; the 64-character sha256 wrapped onto its own line."""
    import dataclasses

    from verifier.report.html import CSS

    rule = re.search(r"table\.grid th\.row\{([^}]*)\}", CSS)
    assert rule and "position:sticky" in rule.group(1) and "left:0" in rule.group(1) and "max-width:" in rule.group(1) and "white-space:normal" in rule.group(1)
    digest = "ab" * 32
    report = dataclasses.replace(_linked("b"), gate="g.json", gate_sha256=digest)
    page = render(report, "html")
    if "sha256 <code" in page:  # a judged-by line is drawn: the digest's first 12 characters, the whole one in its title
        assert f'<code class=digest title="{digest}">{digest[:12]}…</code>' in page and f">{digest}<" not in page


def test_plots_read_in_readable_units_with_plain_ticks():
    """Item 14: `10 T` (tera-nanoseconds) on an ns axis, a single point's x axis 0.96-1.04 `record`, log axes in exponents."""
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from verifier.report import html

    assert html._readable([1.0e13, 1.5e13], "ns") == ([10000.0, 15000.0], "s")
    assert html._readable([2.5e6, 3.0e6], "ns") == ([2.5, 3.0], "ms")
    assert html._readable([5.0, 7.0], "MiB") == ([5.0, 7.0], "MiB")
    assert "<svg" in html._receipt_sets(Figure, [{"set": "latency", "quantity": "wall", "unit": "ns", "values": [1.2e13]}])  # one point: no crash
    fig = Figure()
    ax = fig.add_subplot()
    ax.plot([1], [5.0])
    html._record_axis(ax, 1)
    assert ax.get_xlim() == (0.0, 2.0) and list(ax.get_xticks()) == [1.0]
    ax.set_xscale("log")
    html._log_ticks(ax)
    assert ax.xaxis.get_major_formatter()(100.0, 0) == "100" and ax.yaxis.get_major_formatter()(0.01, 0) == "0.01"


@pytest.mark.skipif(not H3.is_dir(), reason="the shared corpus is not here")
def test_grid_rows_are_labelled_by_the_tables_first_column():
    """Item 12: row labels `0`, `1`, `2` instead of the Loader names of the h3 DLO table; MLPerf's index column keeps its dimensions."""
    from verifier.core import verify_path
    from verifier.report.grids import grids

    found, _ = grids(verify_path(str(H3)))
    dlo = next(g for g in found if g.title == "RESULTS.md: DLO cold-start memory")
    assert [label for label, _cells in dlo.rows][:2] == ["Original online FP8, bulk CPU offload after load", "Stream processed DiT FP8 layers to CPU"]
    if MLPERF.is_dir():
        readme = next(g for g in grids(verify_path(str(MLPERF)))[0] if g.title == "README.md: (top)")
        assert readme.rows[0][0].startswith("0: platform=")  # its first column is the index itself: no better label


def test_a_grid_cell_with_no_claim_reads_differently_from_one_with_nothing_derived():
    """Item 12: blank "not judged" cells and `-` cells could not be told apart."""
    page = render(_gated(), "html")
    assert "td.c-none{" in page
    md = render(_gated(), "markdown")
    assert "blank: no claim was read from that cell" in md and "`stated → derived` for FAIL and ERROR" in md
    from verifier.report.html import _grid_cell

    assert _grid_cell(None, None) == '<td class="c-none" title="no claim was read from this cell"></td>'


def test_a_claim_finding_that_passes_with_no_number_on_either_side_is_no_row_of_the_claims_table():
    """A receipt reader's PASS that states no number ("no unsupported claims", "no rate stated") is no claim: the claims table of
    a telemetry receipt listed them as 'claimed -, derived -' rows; a FAIL with no number (a number stated where it may not be)
    stays a row, and so does a PASS with its numbers."""
    from verifier.report._common import claim_rows

    none = Finding(check="derivation.claims", status=Status.PASS, code="no-unsupported-claims", message="no claim this reader cannot re-derive",
                   path="receipt.json")
    placed = Finding(check="derivation.claims", status=Status.FAIL, code="failed-round-aggregated",
                     message="round 2 failed; its p95 is stated", path="summary.json", pointer="/rounds/1/p95_ms")
    judged = Finding(check="derivation.claims", status=Status.PASS, code="derived", message="output_throughput: stated 12.5, derived 12.5",
                     observed={"claimed": "12.5", "derived": "12.5", "delta": "0", "tolerance": "0.05"}, path="receipt.json", pointer="/output_throughput")
    report = Report(subject="r", kind="serving-load-telemetry", verifier_version="0", roster=(), findings=(none, placed, judged))
    assert [(r.status, r.finding.code) for r in claim_rows(report)] == [(Status.FAIL, "failed-round-aggregated"),
                                                                         (Status.PASS, "derived")]
