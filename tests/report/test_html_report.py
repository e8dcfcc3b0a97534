"""
The HTML report (issue 15): one self-contained page, checked in a real headless browser.

The browser is Debian's `chromium` (`.ci/run` installs it with apt-get). Each
page is loaded from a file:// URL with a fresh profile: the DOM is dumped,
a screenshot taken, the console logged to stderr and the network log written.
A page passes when the console is silent, the page made no request (net log
events of the page's own origin, `file://`, for any non-file URL), every plot
is in the DOM and the screenshot is not blank. `test_the_browser_check_can_fail`
feeds the same check a page with an external image and a console error.
Screenshots of the example's report and of a FAIL copy's are written under
the test's tmp dir (`example.png`, `fail.png`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from bundlekit import edit_json, rehash
from conftest import EXAMPLE

from verifier.core import verify_path
from verifier.model.findings import Finding, Report, Status
from verifier.report import html, render

BROWSER = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
needs_browser = pytest.mark.skipif(BROWSER is None, reason="no chromium on PATH: .ci/run installs Debian's `chromium` "
                                                           "with apt-get; install it to run the browser test")


@dataclass
class Loaded:
    dom: str
    console: list[str]
    requests: list[str]
    screenshot: Path


def load(page: Path, out: Path) -> Loaded:
    """Open `page` in headless chromium (no network, fresh profile); return its DOM, console lines, page requests, screenshot."""
    out.mkdir(parents=True, exist_ok=True)
    common = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
              "--enable-logging=stderr", "--v=0", "--window-size=1280,2400"]
    shot = out / "screenshot.png"
    runs = [
        common + [f"--user-data-dir={out / 'profile-1'}", f"--log-net-log={out / 'net.json'}", f"--screenshot={shot}",
                  page.as_uri()],
        common + [f"--user-data-dir={out / 'profile-2'}", "--dump-dom", page.as_uri()],
    ]
    console: list[str] = []
    dom = ""
    for i, args in enumerate(runs):
        done = subprocess.run(args, capture_output=True, text=True, timeout=180, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        # The page's console messages; chromium's own pages (source chrome://...) log too, e.g. a font fallback
        # notice of its internal UI under load, and are not the page's doing.
        console += [line for line in done.stderr.splitlines() if ":CONSOLE" in line and "source: chrome://" not in line]
        if i == 1:
            dom = done.stdout
    events = json.loads((out / "net.json").read_text())["events"]
    # A request the page makes carries the page's network isolation key (file://); the browser's own
    # background traffic (component updates, time sync) carries "null null" and is not the page's doing.
    requests = sorted({e["params"]["url"] for e in events
                       if "url" in e.get("params", {}) and "file://" in str(e["params"].get("network_isolation_key", ""))
                       and not e["params"]["url"].startswith("file:")})
    return Loaded(dom=dom, console=console, requests=requests, screenshot=shot)


def not_blank(png: Path) -> int:
    """Return the number of distinct colours of the screenshot (a blank page has one)."""
    from PIL import Image

    with Image.open(png) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    return len(colours or [])


def assert_page_ok(loaded: Loaded, plots: tuple[str, ...], verdict: str) -> None:
    assert loaded.console == [], loaded.console
    assert loaded.requests == [], loaded.requests
    for ident in plots:
        start = loaded.dom.find(f'id="plot-{ident}"')
        assert start >= 0 and "<svg" in loaded.dom[start:start + 2000], f"plot {ident} missing"
    assert f'id="verdict">{verdict}<' in loaded.dom
    assert not_blank(loaded.screenshot) > 50


@pytest.fixture(scope="module")
def example_report() -> Report:
    return verify_path(str(EXAMPLE))


@needs_browser
def test_example_and_fail_copy_reports_load_offline_with_every_plot(example_report, tmp_path):
    page = tmp_path / "example.html"
    page.write_text(render(example_report, "html"))
    loaded = load(page, tmp_path / "example")
    shutil.copy(loaded.screenshot, tmp_path / "example.png")
    assert_page_ok(loaded, html.PLOTS, "PASS")

    bundle = tmp_path / "fail-copy"
    shutil.copytree(EXAMPLE, bundle)
    edit_json(bundle / "claims.json", lambda d: d["claims"][0].update(value=__import__("decimal").Decimal("380.00")))
    rehash(bundle)
    failed = verify_path(str(bundle))
    assert failed.verdict == "FAIL"
    page = tmp_path / "fail.html"
    page.write_text(render(failed, "html"))
    loaded = load(page, tmp_path / "fail")
    shutil.copy(loaded.screenshot, tmp_path / "fail.png")
    assert_page_ok(loaded, html.PLOTS, "FAIL")
    assert "server_mean_s.A1" in loaded.dom and "380.00" in loaded.dom
    print(f"screenshots: {tmp_path / 'example.png'} {tmp_path / 'fail.png'}")


@needs_browser
def test_the_browser_check_can_fail(tmp_path):
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html><body><h1 id="verdict">PASS</h1><img src="http://example.invalid/x.png">'
                    '<p>no plots</p></body></html>')
    loaded = load(page, tmp_path / "bad")
    assert loaded.requests == ["http://example.invalid/x.png"]
    with pytest.raises(AssertionError):
        assert_page_ok(loaded, (), "PASS")
    page.write_text('<!DOCTYPE html><html><body><h1 id="verdict">PASS</h1><script>console.error("boom")</script></body></html>')
    assert any("boom" in line for line in load(page, tmp_path / "bad2").console)


def test_page_is_self_contained_and_escapes_evidence(example_report):
    page = render(example_report, "html")
    assert "default-src 'none'" in page and "<script" not in page.lower()
    assert 'id="claims"' in page and 'id="stated-claims"' in page and "Server means: A1 396.30 s" in page  # the sentence
    import re

    for attribute in re.findall(r'src="([^"]*)"', page):
        assert attribute.startswith(("#", "data:")), attribute
    for attribute in re.findall(r'href="([^"]*)"', page):  # in-page, or a link to a bundle file: no scheme, no host (issue 41 trial, 7)
        assert attribute.startswith(("#", "data:", "./", "/")) and not attribute.startswith("//") and ":" not in attribute, attribute
    hostile = Report(subject="<b>x</b>", kind="bundle-v1", verifier_version="0", roster=(), findings=(
        Finding(check="c.x", status=Status.FAIL, code="x", message='<script>alert(1)</script> "\u202e', path="a<b"),))
    out = render(hostile, "html")
    assert "<script>alert" not in out and "&lt;script&gt;alert(1)&lt;/script&gt;" in out and "\\u202e" in out
    assert "<b>x</b>" not in out


def test_plots_need_matplotlib_and_say_so(example_report, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    page = render(example_report, "html")
    assert 'id="no-plots"' in page and "html" in page and "<svg" not in page


def test_plots_follow_the_figures(example_report):
    figures = example_report.figures
    assert len(figures["requests"]) == 20 and figures["requests"][0]["phase"] == "warmup"
    assert [r["order"] for r in figures["requests"]] == list(range(20))
    assert len(figures["coverage"]) == 20 and {s["stream"] for s in figures["coverage"][0]["streams"]} == {"video", "audio"}
    ssim = [f for f in figures["frames"] if f["metric"] == "ssim"]
    assert len(ssim) == 14 and all(len(f["scores"]) == 124 for f in ssim) and ssim[0]["threshold"] == {"min": 0.97}
    bare = render(replace(example_report, figures=None), "html")
    assert __import__("re").findall(r'id="plot-([a-z-]+)"', bare) == [html.CLAIM_PLOT]  # claimed vs derived needs no figures
    assert "figures" not in example_report.to_json()


#: Measures the page as laid out (injected into a copy whose CSP admits this one inline script; the report has none):
#: the viewport, the page's scroll width, elements wider than the viewport outside a table scroller (`div.scroll`),
#: the top of the first FAIL group's summary, and locations or digests that wrap onto a second line.
PROBE = """(function(){
 const vw = document.documentElement.clientWidth, vh = window.innerHeight;
 const wide = [];
 for (const e of document.body.querySelectorAll('*')) {
   if ((e.closest('div.scroll') && !e.matches('div.scroll')) || e.closest('svg')) continue;
   const r = e.getBoundingClientRect();
   if (r.width > 0 && r.right > vw + 1) wide.push(e.tagName + '.' + e.className + ':' + Math.round(r.right));
 }
 const first = document.querySelector('details.group.g-FAIL > summary');
 const wrapped = [];
 for (const e of document.querySelectorAll('code.digest, #head code')) { if (e.getClientRects().length > 1) wrapped.push(e.textContent); }
 for (const e of document.querySelectorAll('.loc code')) {  // a location may wrap after a '/' (its <wbr>), never inside a part
   for (const t of e.childNodes) {
     const range = document.createRange(); range.selectNodeContents(t);
     const tops = Array.from(range.getClientRects()).filter(x => x.width > 0).map(x => x.top);
     if (tops.length && Math.max(...tops) - Math.min(...tops) > 4) { wrapped.push(e.textContent); break; }  // a second line, not a 1 px run offset
   }
 }
 const clipped = [];
 for (const t of document.querySelectorAll('table#claims, table#stated-claims')) {
   const box = t.closest('div.scroll') || document.documentElement, b = box.getBoundingClientRect();
   const scrolls = ['auto', 'scroll'].includes(getComputedStyle(box).overflowX) && box.scrollWidth > box.clientWidth + 1 && b.height <= vh;  // its scrollbar on the table's first screen
   for (const c of t.querySelectorAll('td')) {
     const r = c.getBoundingClientRect();
     if ((r.right > b.right + 1 || c.scrollWidth > c.clientWidth + 1) && !scrolls) clipped.push(t.id + ':' + c.textContent.slice(0, 40));
   }
   for (const c of t.querySelectorAll('td.name')) {  // a claim name breaks at its separators, never inside a word
     const words = c.textContent.split(/[-./_:=, []/).filter(w => w.length > 0);
     const range = document.createRange(); range.selectNodeContents(c);
     const rows = new Set(Array.from(range.getClientRects()).filter(x => x.width > 0).map(x => Math.round(x.top)));
     if (rows.size > words.length) clipped.push('split:' + c.textContent.slice(0, 40));
   }
 }
 document.body.setAttribute('data-geometry', JSON.stringify({vw, vh, scrollWidth: document.documentElement.scrollWidth,
   wide: wide.slice(0, 10), firstFail: first ? Math.round(first.getBoundingClientRect().top) : null, wrapped: wrapped.slice(0, 10),
   clipped: clipped.slice(0, 10)}));
})();"""
#: The widths the layout must hold at, and the height of the "first screen".
WIDTHS, FIRST_SCREEN = (900, 1400), 1000


def geometry(page: Path, width: int, out: Path, shot: Path | None = None) -> dict:
    """Return the `PROBE` measures of `page` at `width` x `FIRST_SCREEN` px; with `shot`, also save a screenshot of the first screen (no probe)."""
    import html as html_lib
    import re

    out.mkdir(parents=True, exist_ok=True)
    probed = out / f"probed-{width}.html"
    text = page.read_text()
    probed.write_text(text.replace("default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';", 1)
                      .replace("</body>", f"<script>{PROBE}</script></body>", 1))
    common = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
              "--disable-background-networking", f"--window-size={width},{FIRST_SCREEN}"]
    done = subprocess.run(common + [f"--user-data-dir={out / f'p{width}'}", "--dump-dom", probed.as_uri()],
                          capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'data-geometry="([^"]*)"', done.stdout)
    assert found, done.stdout[-500:]
    if shot is not None:
        shot.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(common + [f"--user-data-dir={out / f's{width}'}", f"--screenshot={shot}", page.as_uri()],
                       capture_output=True, text=True, timeout=180, check=True)
    return json.loads(html_lib.unescape(found.group(1)))


def _pages(example_report: Report, tmp_path: Path) -> dict[str, tuple[Report, Path]]:
    from conftest import SHARED

    bundle = tmp_path / "fail-copy"
    shutil.copytree(EXAMPLE, bundle)
    edit_json(bundle / "claims.json", lambda d: d["claims"][0].update(value=__import__("decimal").Decimal("380.00")))
    rehash(bundle)
    reports = {"example": example_report, "example-fail": verify_path(str(bundle)),
               "mlperf": verify_path(str(SHARED / "corpus" / "mlperf-inference-test-submissions-v5.0")),
               "gdn": verify_path(str(SHARED / "corpus" / "system1-omni-gdn-20261003"))}
    out = {}
    for name, report in reports.items():
        page = tmp_path / f"{name}.html"
        page.write_text(render(report, "html"))
        out[name] = (report, page)
    return out


@needs_browser
def test_layout_holds_at_900_and_1400_px_with_the_first_fail_in_the_first_screen(example_report, tmp_path):
    """
    Issue 41: no element wider than the viewport (tables scroll inside themselves), no location or digest wraps,
    and the first FAIL group starts in the first screen of every FAIL report. With VERIFY_SCREENSHOTS=DIR the
    first screens are saved there as NAME-WIDTH.png (how docs/img/ was made).
    """
    import os

    shots = Path(os.environ["VERIFY_SCREENSHOTS"]) if os.environ.get("VERIFY_SCREENSHOTS") else None
    pages = _pages(example_report, tmp_path)
    assert [pages[n][0].verdict for n in ("example", "example-fail", "mlperf", "gdn")] == ["PASS", "FAIL", "FAIL", "FAIL"]
    for name, (report, page) in pages.items():
        for width in WIDTHS:
            got = geometry(page, width, tmp_path / f"{name}-geometry", shots / f"{name}-{width}.png" if shots else None)
            assert got["vw"] == width and got["scrollWidth"] <= width and got["wide"] == [], (name, width, got)
            assert got["wrapped"] == [], (name, width, got)
            assert got["clipped"] == [], (name, width, got)  # every claims cell visible, or its box visibly scrolls
            if report.verdict == "FAIL":
                assert got["firstFail"] is not None and got["firstFail"] < got["vh"] - 40, (name, width, got)


@needs_browser
def test_the_geometry_check_can_fail(tmp_path):
    page = tmp_path / "wide.html"
    page.write_text("<!DOCTYPE html><html><head><meta http-equiv=Content-Security-Policy content=\"default-src 'none'; "
                    "style-src 'unsafe-inline'\"></head><body><table><tr><td class=loc><code>" + "x" * 400
                    + "</code></td></tr></table><p style='width:700px'><code class=digest>ab cd</code></p>"
                    "<details class='group g-FAIL' open><summary>late</summary></details></body></html>")
    got = geometry(page, 900, tmp_path / "g")
    assert got["wide"] and got["scrollWidth"] > 900
    page.write_text(page.read_text().replace("<details", "<div style='height:3000px'></div><details"))
    assert geometry(page, 900, tmp_path / "g2")["firstFail"] > 1000
    # a claims table taller than the screen whose cells run past its box: the scrollbar is out of sight, so it counts as clipped
    rows = "".join(f"<tr><td class=name>claim_{i}</td><td>{'w' * 300}</td></tr>" for i in range(80))
    page.write_text("<!DOCTYPE html><html><head><meta http-equiv=Content-Security-Policy content=\"default-src 'none'; "
                    "style-src 'unsafe-inline'\"></head><body><div class=scroll style='overflow-x:auto;max-width:100%'>"
                    f"<table id=claims>{rows}</table></div></body></html>")
    assert geometry(page, 900, tmp_path / "g3")["clipped"]
    page.write_text(page.read_text().replace("overflow-x:auto;", "overflow:auto;max-height:70vh;"))
    assert geometry(page, 900, tmp_path / "g4")["clipped"] == []
    page.write_text("<!DOCTYPE html><html><head><meta http-equiv=Content-Security-Policy content=\"default-src 'none'; "
                    "style-src 'unsafe-inline'\"></head><body><table id=claims><tr><td class=name style='width:3em;overflow-wrap:anywhere'>"
                    "averagelongclaimname</td></tr></table></body></html>")
    assert any(c.startswith("split:") for c in geometry(page, 900, tmp_path / "g5")["clipped"])
    page.write_text("<!DOCTYPE html><html><head><meta http-equiv=Content-Security-Policy content=\"default-src 'none'; "
                    "style-src 'unsafe-inline'\"></head><body><table><tr><td class=loc style='width:3em'>"
                    "<code style='white-space:normal;overflow-wrap:anywhere'>dir/<wbr>README.md:11:14</code></td></tr></table></body></html>")
    assert geometry(page, 900, tmp_path / "g6")["wrapped"] == ["dir/README.md:11:14"]


@needs_browser
def test_the_wrap_check_can_fail(tmp_path):
    """Issue 41, Why: `README.md:11:14` wrapped in a squeezed location column (reads like line 1) and the gate digest wrapped in the header."""
    page = tmp_path / "wrap.html"
    page.write_text("<!DOCTYPE html><html><head><meta http-equiv=Content-Security-Policy content=\"default-src 'none'; "
                    "style-src 'unsafe-inline'\"></head><body><p id=head style='width:160px'>gate sha256 <code class=digest "
                    "style='overflow-wrap:anywhere'>" + "0123456789abcdef" * 4 + "</code></p><table style='width:120px'><tr>"
                    "<td class=loc style='width:40px'><code style='overflow-wrap:anywhere'><span>README.md:11:14</span></code></td>"
                    "<td>message</td></tr></table></body></html>")
    wrapped = geometry(page, 900, tmp_path / "w")["wrapped"]
    assert "0123456789abcdef" * 4 in wrapped and "README.md:11:14" in wrapped, wrapped
    page.write_text(page.read_text().replace("overflow-wrap:anywhere", "white-space:nowrap"))
    assert geometry(page, 900, tmp_path / "w2")["wrapped"] == []
