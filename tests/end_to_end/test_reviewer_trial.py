"""
Issue 41, second reviewer trial: what a reviewer who had not written the code found in the reports.

Each test was red before its fix: integrity locations name the manifest their
pointer is into; a stated number's location carries its line and column (and
the message does not repeat it); the arrow wording is English; a bounded scan
of a folder of bundles says "at least N"; GitHub annotations carry `line=`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from bundlekit import rehash
from conftest import EXAMPLE

from verifier.core import verify_path
from verifier.report import render


@pytest.fixture(scope="module")
def tampered(tmp_path_factory) -> Path:
    """The example with receipts.jsonl changed after hashing (sha256-mismatch) and README's headline 108.12 s stated as 108.21 s."""
    bundle = tmp_path_factory.mktemp("trial") / "ex"
    shutil.copytree(EXAMPLE, bundle)
    readme = bundle / "README.md"
    readme.write_text(readme.read_text().replace("-> 108.12 s", "-> 108.21 s", 1))
    rehash(bundle)
    return bundle


@pytest.fixture(scope="module")
def stated_report(tampered):
    return verify_path(str(tampered))


@pytest.fixture(scope="module")
def integrity_report(tampered, tmp_path_factory):
    bundle = tmp_path_factory.mktemp("trial-integrity") / "ex"
    shutil.copytree(tampered, bundle)
    data = (bundle / "receipts.jsonl").read_bytes()
    (bundle / "receipts.jsonl").write_bytes(data.replace(b"1", b"2", 1))  # same size, another sha256
    return verify_path(str(bundle))


@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "github", "junit"])
def test_an_integrity_location_names_the_manifest_its_pointer_is_into(integrity_report, fmt):
    page = render(integrity_report, fmt)
    if fmt == "html":  # a location is split into spans at its slashes (a break opportunity, not text)
        page = page.replace("</span><wbr><span>", "")
    index = json.loads((Path(integrity_report.subject) / "manifest.json").read_text())
    number = [e["path"] for e in index["files"]].index("receipts.jsonl")
    assert f"manifest.json#/files/{number}" in page
    assert f"receipts.jsonl#/files/{number}" not in page
    assert "receipts.jsonl sha256" in page  # the data file is still named


def test_a_stated_number_is_located_at_its_line_and_column_once(stated_report, monkeypatch):
    text = render(stated_report, "text")
    line = next(x for x in text.splitlines() if "claims.stated [claim-mismatch]" in x and x.startswith("FAIL"))
    assert " README.md:3:23: states 108.21 s" in line and "README.md: README.md" not in line
    assert "README.md:3:23" in render(stated_report, "html").split('id="act"', 1)[1].split("</details>", 1)[0]
    monkeypatch.chdir(Path(stated_report.subject).parent)  # where a CI job runs verify: the bundle below it
    github = render(stated_report, "github")
    assert any("file=" in x and "line=3" in x and "claim-mismatch" in x for x in github.splitlines())
    assert "file=/" not in github  # GitHub wants paths relative to the checkout, never absolute


def test_the_arrow_wording_is_english(stated_report):
    text = render(stated_report, "text")
    assert "as the end of an arrow (the candidate) it is arm_mean_s.candidate" in text
    assert "the to end" not in text and "the from end" not in text


def test_a_bounded_folder_scan_says_at_least(tmp_path, monkeypatch):
    from verifier.profiles import folders
    from verifier.trust.assets import assets
    from verifier.trust.trustroot import TrustSet

    for i in range(6):
        (tmp_path / f"b{i}").mkdir()
        (tmp_path / f"b{i}" / "manifest.json").write_text("{}")
    trusted = TrustSet(assets(None))
    assert "Its first two folder levels hold 6 bundles:" in folders.not_one_bundle(tmp_path, trusted)
    monkeypatch.setattr(folders, "SUBDIR_LIMIT", 3)
    assert "Its first two folder levels hold at least 3 bundles (the scan stopped" in folders.not_one_bundle(tmp_path, trusted)
    monkeypatch.setattr(folders, "SUBDIR_LIMIT", 64)

    class Clock:  # each reading 0.2 s later: the 0.5 s scan stops after two sub-folders
        now = 0.0

        def monotonic(self) -> float:
            Clock.now += 0.2
            return Clock.now

    monkeypatch.setattr(folders, "time", Clock())
    assert "Its first two folder levels hold at least 2 bundles (the scan stopped" in folders.not_one_bundle(tmp_path, trusted)


def test_a_blocked_claims_document_is_no_fake_row_but_one_sentence(integrity_report):
    for fmt in ("text", "markdown", "html"):
        page = render(integrity_report, fmt)
        assert "claimed -, derived -" not in page and "| `receipts.jsonl` | - | - |" not in page, fmt
        assert "claims not judged: 1 blocked by integrity" in page, fmt


def test_unverified_claim_rows_are_capped_like_the_groups():
    from verifier.model.findings import Finding, Report, Status

    findings = tuple(Finding(check="derivation.claims", status=Status.UNVERIFIED, code="needs-external", message=f"c{i}: stated 1",
                             path="r.json", pointer=f"/{i}", observed="1") for i in range(30))
    report = Report(subject="x", kind="profile:x", verifier_version="0", roster=(), findings=findings)
    text = render(report, "text")
    assert text.count("claimed 1, derived -") == 5 and "...and 25 more UNVERIFIED [needs-external] claim(s)" in text
    assert render(report, "html").count("<td class=num>1</td>") == 5
    assert render(report, "markdown").count("| ⚠️ UNVERIFIED | `c") == 5


def test_stated_pass_rows_are_collapsed_and_fail_rows_first(stated_report):
    page = render(stated_report, "html")
    stated = page.split("<h3>Stated in the prose</h3>", 1)[1]
    table = stated.split("</table>", 1)[0]
    assert 'id="stated-claims"' in table and "claim-mismatch" not in table and "108.21" in table and "st PASS" not in table
    assert "PASS stated number(s)</summary>" in stated


def test_the_plots_label_their_lines_and_count_as_the_table(stated_report, tmp_path):
    pytest.importorskip("matplotlib")
    from verifier.report import html

    plots = {ident: (caption, svg) for ident, caption, svg in html._plots(stated_report)}
    caption, _svg = plots[html.CLAIM_PLOT]
    assert "a point off the dashed line" not in caption and "the table gives the delta" in caption
    import matplotlib.figure

    seen = []
    real = matplotlib.figure.Figure.add_subplot

    def spy(self, *a, **k):
        ax = real(self, *a, **k)
        seen.append(ax)
        return ax

    import unittest.mock

    with unittest.mock.patch.object(matplotlib.figure.Figure, "add_subplot", spy):
        html._frame_scores(matplotlib.figure.Figure, stated_report.figures["frames"])
        html._claims_plot(matplotlib.figure.Figure, [(1.0, 1.0, "PASS"), (2.0, 2.5, "FAIL")], {"PASS": 4, "FAIL": 1})
    ssim = next(ax for ax in seen if "ssim" in ax.get_title())
    labels = [t.get_text() for t in ssim.get_legend().get_texts()]
    assert len([x for x in labels if not x.startswith("gate")]) == 14  # every comparison line is named
    assert [t.get_text() for t in seen[-1].get_legend().get_texts()][1:] == ["PASS (1 drawn of 4)", "FAIL (1)"]


MLPERF = Path("/work/shared/corpus/mlperf-inference-test-submissions-v5.0")


@pytest.mark.skipif(not MLPERF.is_dir(), reason="the shared corpus is not here")
def test_a_gate_fail_on_a_stated_bound_is_located_at_the_readme_stating_it(monkeypatch):
    report = verify_path(str(MLPERF))
    failed = [f for f in report.findings if f.check == "gate.rules" and f.code == "rule-not-met"]
    assert failed and all(f.path and f.path.endswith("README.md") and f.path in f.message for f in failed)
    monkeypatch.chdir(MLPERF.parent)
    report = verify_path(MLPERF.name)
    github = [x for x in render(report, "github").splitlines() if "rule-not-met" in x]
    assert github and all(x.startswith(f"::error file={MLPERF.name}/open/") for x in github)


def test_no_stray_space_before_a_comma_and_the_derived_value_keeps_its_unit(tmp_path):
    from bundlekit import edit_json

    gdn = Path("/work/shared/corpus/system1-omni-gdn-20261003")
    if gdn.is_dir():
        page = render(verify_path(str(gdn)), "text", verbose=True)
        assert " , " not in page and "stated 74, derived 74 (tolerance" in page
    bundle = tmp_path / "ex"
    shutil.copytree(EXAMPLE, bundle)
    edit_json(bundle / "claims.json", lambda d: d["claims"][0].update(value=__import__("decimal").Decimal("380.00")))
    rehash(bundle)
    text = render(verify_path(str(bundle)), "text")
    assert "claims 380.00 s, the receipts give 396.30 s (delta" in text


def test_one_derived_value_reads_the_same_in_the_claims_and_the_stated_tables(stated_report):
    from verifier.report.statements import statement_rows

    rows = {r.stated: r.derived for r in statement_rows(stated_report)}
    assert rows["108.21 s"] == "108.12" and rows["73.45 %"] == "73.4525"  # two places past the stated number's, as the claims table
    assert rows["3.77 x"] == "3.7668"  # was 3.76676... at 12 significant digits
