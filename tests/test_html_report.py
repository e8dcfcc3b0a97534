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
from verifier.model import Finding, Report, Status
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

    for attribute in re.findall(r'(?:src|href)="([^"]*)"', page):
        assert attribute.startswith(("#", "data:")), attribute
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
