"""
Issue 41, What to build item 2: a results table of the bundle gets a grid in the HTML and Markdown reports
(rows by columns, one cell per judged value, coloured and marked by status, stated and derived in the title or text).
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


def _claim(status: Status, name: str, stated: str, derived: str | None, path: str, pointer: str) -> Finding:
    """A `derivation.claims` finding as `verifier.checks.profile_claims` writes it (stated in `expected`, derived in `observed`)."""
    if derived is None:
        return Finding(check="derivation.claims", status=status, code="receipt-absent", message=f"{name}: states {stated}",
                       expected="r.csv", observed=stated, path=path, pointer=pointer)
    code = "derived" if status is Status.PASS else "claim-mismatch"
    return Finding(check="derivation.claims", status=status, code=code, message=f"{name}: stated {stated} s, derived {derived} s",
                   expected=f"{stated} s", observed=f"{derived} s", path=path, pointer=pointer)


def _bundle(rows: int = 2, columns: int = 1) -> Report:
    """A made-up profile-read bundle: a README table (one FAIL), a CSV table (PASS and UNVERIFIED) and a JSON claim (no table)."""
    findings = [_claim(Status.PASS, "readme.wall[arm=a]", "1.00", "1.00", "README.md", "/tables/Results/0/Wall <b>s<~1b>"),
                _claim(Status.FAIL, "readme.wall[arm=b]", "1.50", "1.20", "README.md", "/tables/Results/1/Wall <b>s<~1b>"),
                _claim(Status.PASS, "readme.speedup[arm=b]", "2.0", "2.0", "README.md", "/tables/Results/1/Speedup#numbers/0")]
    bad = (lambda i, j: (i % 7 == 0 and j == 0) or (i, j) == (45, 14))  # UNVERIFIED: rows 0, 7, ..., 49 in column x0; row 45 in x14
    findings += [_claim(Status.UNVERIFIED if bad(i, j) else Status.PASS, f"csv.x{j}[arm=a{i}]", f"{i}.{j}", None if bad(i, j) else f"{i}.{j}",
                        "r.csv", f"/{i}/x{j}") for i in range(rows) for j in range(columns)]
    findings.append(_claim(Status.FAIL, "json.mean", "3.0", "2.0", "summary.json", "/mean"))
    return Report(subject="evidence/made-up", kind="profile:made-up", verifier_version="0", roster=(), findings=tuple(findings))


def test_a_claim_in_a_table_cell_is_placed_by_its_table_row_and_column():
    from verifier.report.grids import cell_of

    assert cell_of("README.md", "/tables/(top)/3/Result#acc") == ("(top)", 3, "Result#acc")
    assert cell_of("docs/r.html", "/tables/a~1b/0/c~1d") == ("a/b", 0, "c/d")
    assert cell_of("summary.csv", "/12/Result") == ("", 12, "Result")
    assert cell_of("summary.json", "/12/Result") is None  # a JSON document is no results table
    assert cell_of("README.md", "#numbers/3") is None and cell_of("README.md", "/tables/t/x/c") is None and cell_of(None, "/0/a") is None


def test_the_grid_of_a_made_up_bundle_has_its_rows_by_columns_failures_first():
    from verifier.report.grids import grids

    found, left = grids(_bundle())
    assert left == 0 and [g.title for g in found] == ["README.md: Results", "r.csv"]  # the table with a FAIL first
    readme = found[0]
    assert readme.columns == ("Wall <b>s</b>", "Speedup#numbers/0") and readme.units == ("s", "s")
    assert [label for label, _cells in readme.rows] == ["0: arm=a", "1: arm=b"]  # the dimension that varies between rows
    (_, (wall_a, speed_a)), (_, (wall_b, speed_b)) = readme.rows
    assert speed_a is None and wall_a.status is Status.PASS and wall_b.status is Status.FAIL and speed_b.status is Status.PASS
    assert wall_b.values("s") == [("1.50", "1.20")] and "stated 1.50 s, derived 1.20 s" in wall_b.detail()
    assert readme.counts == {"FAIL": 1, "PASS": 2}
    assert found[1].counts == {"UNVERIFIED": 1, "PASS": 1}


def test_html_draws_the_grid_coloured_and_marked_by_status_with_stated_and_derived_in_the_title():
    page = render(_bundle(), "html")
    grid = page.split('<table class="grid">', 1)[1].split("</table>", 1)[0]
    assert "<th>Wall &lt;b&gt;s&lt;/b&gt; (s)</th>" in grid  # evidence text escaped
    cell = re.search(r'<td class="c-FAIL" title="([^"]*)">([^<]*)</td>', grid)
    assert cell and "stated 1.50 s, derived 1.20 s, delta" in cell.group(1) and "(FAIL)" in cell.group(1)
    assert cell.group(2) == "✗ 1.50 → 1.20"
    assert re.search(r'<td class="c-PASS" title="readme.wall\[arm=a\]: stated 1.00 s, derived 1.00 s[^"]*">✓ 1.00</td>', grid)
    assert '<td class="c-UNVERIFIED"' in page and "td.c-FAIL{" in page and "td.c-UNVERIFIED{" in page
    assert page.index('id="grids"') > page.index('id="claims"')  # after the claims table: the first FAIL stays on the first screen


def test_markdown_draws_the_grid_with_stated_and_derived_in_the_text():
    md = render(_bundle(), "markdown")
    section = md.split("#### Results tables", 1)[1]
    assert "| Row | Wall &#60;b&#62;s&#60;/b&#62; (s) | Speedup (1st number, s) |" in section
    assert "| 1: arm=b | ❌ 1.50 → 1.20 | ✅ 2.0 |" in section
    assert "| 0: arm=a | ✅ 1.00 |  |" in section
    assert "| ⚠️ 0.0 |" in section and "→ -" not in section  # an UNVERIFIED value: stated, as HTML shows it (trial41c item 12)
    assert '<details open="open"><summary>❌ `README.md: Results`' in section and "<details><summary>⚠️ `r.csv`" in section


def test_a_cell_holding_several_values_takes_the_worst_status_and_lists_each():
    from verifier.report.grids import grids

    report = Report(subject="b", kind="profile:x", verifier_version="0", roster=(), findings=(
        _claim(Status.PASS, "html.n[arm=a]", "5", "5", "index.html", "/tables/t/5/c#numbers/1"),
        _claim(Status.FAIL, "html.n[arm=b]", "5", "4", "index.html", "/tables/t/5/c#numbers/1")))
    [(label, (cell,))] = grids(report)[0][0].rows
    assert label == "5" and cell.status is Status.FAIL and cell.values("s") == [("5", "5"), ("5", "4")]
    assert "✗ 5 · 5 → 4</td>" in render(report, "html") and "| 5 | ❌ 5; 5 → 4 |" in render(report, "markdown")


def test_no_table_no_grid():
    plain = Report(subject="b", kind="profile:x", verifier_version="0", roster=(),
                   findings=(_claim(Status.FAIL, "json.mean", "3.0", "2.0", "summary.json", "/mean"),))
    assert 'id="grids"' not in render(plain, "html") and "Results tables" not in render(plain, "markdown")


def test_a_grid_is_bounded_and_says_what_it_left_out_keeping_what_is_not_pass():
    from verifier.report.grids import MAX_COLUMNS, MAX_ROWS, grids

    report = _bundle(rows=MAX_ROWS + 10, columns=MAX_COLUMNS + 3)
    csv = next(g for g in grids(report)[0] if g.file == "r.csv")
    assert len(csv.rows) == MAX_ROWS and csv.more_rows == 10 and len(csv.columns) == MAX_COLUMNS and csv.more_columns == 3
    drawn = {c.claims[0].claim for _l, cells in csv.rows for c in cells if c is not None and c.status is Status.UNVERIFIED}
    assert {"csv.x0[arm=a49]", "csv.x14[arm=a45]"} <= drawn  # past both bounds, but not PASS: kept
    assert csv.columns[-1] == "x14" and [label for label, _c in csv.rows][-2:] == ["45: arm=a45", "49: arm=a49"]
    assert "10 more row(s) not drawn; 3 more column(s) not drawn" in render(report, "html")
    assert "10 more row(s) not drawn; 3 more column(s) not drawn" in render(report, "markdown")
    many = Report(subject="b", kind="profile:x", verifier_version="0", roster=(), findings=tuple(
        _claim(Status.PASS, f"t{i}", "1", "1", f"t{i}.csv", "/0/a") for i in range(12)))
    assert len(grids(many)[0]) == 8 and grids(many)[1] == 4
    assert "…and 4 more results table(s) not drawn" in render(many, "html")


@pytest.fixture(scope="module")
def mlperf() -> Report:
    from verifier.core import verify_path

    return verify_path(str(MLPERF))


@pytest.mark.skipif(not MLPERF.is_dir(), reason="the shared corpus is not here")
def test_the_mlperf_summary_table_gets_its_grid(mlperf):
    page = render(mlperf, "html")
    grids = page.split('id="grids"', 1)[1]
    assert "<code>summary.csv</code>: 84 claim(s) and 5 other finding(s) at its cells: 6 FAIL, 3 UNVERIFIED, 80 PASS" in grids
    assert "<code>README.md: (top)</code>: 84 claim(s) and 5 other finding(s) at its cells: 6 FAIL, 3 UNVERIFIED, 80 PASS" in grids
    assert re.search(r'<th class="row">1: platform=gh_action-reference-cpu-pytorch_v2\.6\.0-default_config, model=mixtral-8x7b</th>'
                     r'<td class="c-FAIL" title="csv\.Result\[[^"]*stated 0\.0148696 Samples/s, derived 0\.000195653 Samples/s[^"]*">'
                     r"✗ 0\.0148696 Samples/s → 0\.000195653 Samples/s</td>", grids)
    md = render(mlperf, "markdown").split("#### Results tables", 1)[1]
    assert "| 1: platform=gh&#95;action-reference-cpu-pytorch&#95;v2.6.0-default&#95;config, model=mixtral-8x7b " \
           "| ❌ 0.0148696 Samples/s → 0.000195653 Samples/s |" in md


@pytest.mark.skipif(not H3.is_dir(), reason="the shared corpus is not here")
def test_the_h3_results_md_tables_get_their_grids():
    from verifier.core import verify_path

    report = verify_path(str(H3))
    md = render(report, "markdown").split("#### Results tables", 1)[1]
    assert "❌ `RESULTS.md: DLO cold-start memory`: 9 claim(s): 1 FAIL, 8 PASS" in md
    assert "| Stream processed DiT FP8 layers to CPU | ✅ 39884 | ❌ 32.1 → 32.0499 |" in md
    page = render(report, "html")
    assert re.search(r'<td class="c-FAIL" title="dlo\.saved_pct_streaming: stated 32\.1 %, derived 32\.0499 %, delta 0\.0501 %, tolerance 0\.05 % \(FAIL\)">✗ 32\.1 → 32\.0499</td>', page)


@pytest.mark.skipif(not MLPERF.is_dir(), reason="the shared corpus is not here")
def test_a_changed_cell_of_a_copied_results_table_turns_red_in_its_grid_only(tmp_path):
    """A FAIL copy of the MLPerf tree (one README cell changed): its grid cell is the FAIL, the CSV's same cell stays PASS."""
    import shutil

    from verifier.core import verify_path

    bundle = tmp_path / "mlperf"
    shutil.copytree(MLPERF, bundle)
    readme = bundle / "README.md"
    text = readme.read_text()
    assert text.count("|  0.421941  |") == 1
    readme.write_text(text.replace("|  0.421941  |", "|  0.521941  |"))
    page = render(verify_path(str(bundle)), "html").split('id="grids"', 1)[1]
    readme_grid, csv_grid = (page.split(f"<code>{name}</code>", 1)[1].split("</table>", 1)[0] for name in ("README.md: (top)", "summary.csv"))
    assert re.search(r'<th class="row">0: [^<]*</th><td class="c-FAIL" title="readme\.Result[^"]*stated 0\.521941[^"]*">✗ 0\.521941 Samples/s → 0\.421941 Samples/s', readme_grid)
    assert re.search(r'<th class="row">0: [^<]*</th><td class="c-PASS" title="csv\.Result[^"]*">✓ 0\.421941 Samples/s</td>', csv_grid)
