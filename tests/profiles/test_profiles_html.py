"""HTML claim documents (`verifier.readers.html`) and margins to a stated target (`minus`): the fasth3 page read in place, mutated copies under tmp_path."""

from __future__ import annotations

import pytest
from conftest import CORPUS, copy_bundle, make_assets, profile_document
from helpers import by_check as _by
from helpers import one_claim as _claim

from verifier.core import verify_path
from verifier.errors import ConfigError
from verifier.readers.html import html_document

FASTH3 = CORPUS / "vllm-omni-rankings-fasth3-vae-int8"
PROFILE = "vllm-omni-rankings-comparison"


# ---------------------------------------------------------------- the reader


def test_a_page_reads_as_prose_runs_with_their_numbers_tables_and_title():
    page = html_document(
        "<html><head><title>Run 7</title><script>var limit = 99;</script><style>p {width: 3px}</style></head><body>"
        "<h2>Timing</h2><p>mean <strong>17.4168<span> s</span></strong><span>over five</span></p>"
        "<div class=chips><span>seed 1101</span><span>362 frames</span></div><p>saved 1.344 s (<b>7.72%</b>)<br>and <code>n=5</code></p>"
        "<table><caption>Runs</caption><thead><tr><th>run</th><th>s</th></tr></thead><tbody><tr><td>a</td><td>2.5</td></tr></tbody></table>"
        "<input type=range max=15.083333></body></html>".encode())
    assert page["title"] == "Run 7"
    texts = [p["text"] for p in page["prose"]]
    assert texts == ["Timing", "mean 17.4168 s over five", "seed 1101 362 frames", "saved 1.344 s ( 7.72% ) and n=5"]
    assert [p["numbers"] for p in page["prose"]][1:] == [["17.4168 s"], ["1101", "362 frames"], ["1.344 s", "7.72%", "5"]]
    assert page["prose"][3]["code"] == ["n=5"]
    assert page["tables"] == {"Runs": [{"run": "a", "s": "2.5", "#line": 1}]}
    assert "99" not in str(page) and "15.083333" not in str(page)  # scripts, styles and attribute values are not stated text


def test_a_table_without_caption_or_head_takes_its_first_row_and_the_heading_above():
    page = html_document(b"<h3>Per task</h3><table><tr><th>task</th><th>wall s</th></tr><tr><td>t2va</td><td>232.07</td></tr></table>"
                         b"<h3>Per task</h3><table><tr><td>k</td></tr><tr><td>1</td></tr></table>")
    assert page["tables"] == {"Per task": [{"task": "t2va", "wall s": "232.07", "#line": 1}], "Per task (2)": [{"k": "1", "#line": 1}]}


# ---------------------------------------------------------------- the fasth3 page (real evidence)


@pytest.fixture(scope="module")
def fasth3():
    return verify_path(str(FASTH3))


def test_fasth3_page_restates_means_first_requests_saving_reduction_margin_and_counts_and_all_pass(fasth3):
    page = [f for f in _by(fasth3, "derivation.claims") if f.path == "index.html"]
    assert len(page) == 9 and all(f.status == "PASS" for f in page)
    assert {f.pointer for f in page} == {"/prose/8/numbers/0", "/prose/15/numbers/0", "/prose/9/numbers/1", "/prose/16/numbers/1",
                                         "/prose/34/numbers/0", "/prose/34/numbers/1", "/prose/34/numbers/3",
                                         "/tables/当前最佳 + INT8 ConvRot/5/对比条件#numbers/1"}
    margin = _claim(fasth3, "html.margin_to_15_s")
    assert margin.expected == "1.073" and "minus the target 15 s stated at index.html#/prose/34/numbers/2" in margin.derivation


def test_fasth3_page_leaves_no_stated_number_unchecked(fasth3):
    assert not [f for f in _by(fasth3, "claims.coverage") if f.path == "index.html" and f.code != "needs-external"]
    needs = {f.pointer for f in _by(fasth3, "claims.coverage", "needs-external") if f.path == "index.html"}
    assert "/prose/34/numbers/4" in needs and "/prose/34/numbers/5" in needs  # SSIM and PSNR of the absent MP4s
    assert fasth3.verdict == "INCOMPLETE" and not [f for f in fasth3.findings if f.status in ("FAIL", "ERROR")]


@pytest.mark.parametrize(("old", "new", "label"), [
    ("<strong>17.4168<span>", "<strong>17.4169<span>", "html.mean_s.baseline"),
    ("<b>16.112 s</b>", "<b>16.113 s</b>", "html.request_1_s.candidate"),
    ("减少 1.344 秒", "减少 1.345 秒", "html.saved_s"),
    ("（7.72%）", "（7.73%）", "html.reduction_percent"),
    ("还有 1.073 秒", "还有 1.074 秒", "html.margin_to_15_s"),
    ("距离 15 秒", "距离 14 秒", "html.margin_to_15_s"),  # the target is compared too: a changed target changes the margin
    ("5 次正式请求", "6 次正式请求", "html.formal_requests[arm=baseline]"),
])
def test_fasth3_page_number_changed_in_its_last_place_fails(tmp_path, old, new, label):
    bundle = copy_bundle("vllm-omni-rankings-fasth3-vae-int8", tmp_path)
    page = bundle / "index.html"
    text = page.read_text(encoding="utf-8")
    assert text.count(old) == 1
    page.write_text(text.replace(old, new), encoding="utf-8")
    report = verify_path(str(bundle))
    f = _claim(report, label)
    assert (f.status, f.code, f.path) == ("FAIL", "claim-mismatch", "index.html") and report.verdict == "FAIL"


def test_fasth3_page_stating_a_new_number_is_an_unchecked_claim(tmp_path):
    bundle = copy_bundle("vllm-omni-rankings-fasth3-vae-int8", tmp_path)
    page = bundle / "index.html"
    # appended after the last block: prose items are addressed by document order (as in Markdown), so the others keep their places
    page.write_text(page.read_text(encoding="utf-8").replace("</main>", "<p>Speedup 1.0836x</p></main>"), encoding="utf-8")
    report = verify_path(str(bundle))
    (f,) = [f for f in _by(report, "claims.coverage", "unchecked-claim") if f.path == "index.html"]
    assert f.observed == "1.0836x" and f.pointer.startswith("/prose/") and report.verdict == "INCOMPLETE"


def test_fasth3_page_that_is_not_utf8_is_unverified_never_a_traceback(tmp_path):
    bundle = copy_bundle("vllm-omni-rankings-fasth3-vae-int8", tmp_path)
    (bundle / "index.html").write_bytes((bundle / "index.html").read_bytes().replace("当前".encode(), b"\xff\xfe", 1))
    report = verify_path(str(bundle))
    page = [f for f in report.findings if f.path == "index.html" and f.check in ("derivation.claims", "claims.coverage")]
    assert page and all(f.status == "UNVERIFIED" and f.code == "claim-unreadable" for f in page), [(f.status, f.code) for f in page]
    assert "not UTF-8" in page[0].message and report.verdict == "INCOMPLETE"


# ---------------------------------------------------------------- `minus`: validated when the profile loads


def _with(tmp_path, change):
    doc = profile_document(PROFILE)
    change(doc)
    return make_assets(tmp_path / "assets", {PROFILE: doc})


def _margin(doc):
    return next(c for c in doc["claims"] if c["id"] == "html.margin_to_15_s")


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: _margin(d).update(statistic="count", unit="requests"), r"invalid profile at /claims/\d+/minus: `minus` .* not count"),
    (lambda d: _margin(d)["minus"].update(pointer="/prose/{arm}/numbers/2"), r"invalid profile at /claims/\d+/minus: location placeholder \{arm\}"),
    (lambda d: _margin(d)["minus"].update(unit=3), r"invalid profile at /claims/\d+/minus/unit"),
])
def test_a_broken_minus_is_refused_naming_file_and_pointer(tmp_path, change, message):
    with pytest.raises(ConfigError, match=rf"{PROFILE}\.json: " + message):
        verify_path(str(FASTH3), asset_root=_with(tmp_path, change))


def test_a_margin_whose_target_is_not_stated_is_unverified(tmp_path):
    assets = _with(tmp_path, lambda d: _margin(d)["minus"].update(pointer="/prose/34/numbers/40"))
    f = _claim(verify_path(str(FASTH3), asset_root=assets), "html.margin_to_15_s")
    assert (f.status, f.code) == ("UNVERIFIED", "target-not-stated")
