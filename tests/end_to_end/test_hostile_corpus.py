"""
The hostile corpus (issue 14): every case ends in a clean verdict, fast, without touching the evidence.

All cases run in this one process (`tests/hostile_corpus.py` builds them).
For each: no traceback and no ERROR finding (ERROR is for our own bugs), a
verdict that is not PASS unless the case is listed as legitimately fine, a
per-case time ceiling (a hang guard, not a speed target), the bytes, modes and
links of the bundle unchanged, and all six report formats accepted by their
parsers (`tests/report_formats.py`).
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest
from helpers import make_assets, write_bundle
from hostile_corpus import PICKLE_MARKER, Case, build, deny_unreadable, snapshot
from report_formats import assert_all_formats_parse
from test_hostile_repro import deadline

from verifier.core import verify_path
from verifier.errors import UsageError
from verifier.model.findings import Status

FAMILIES = ("path-traversal", "links", "special-files", "unreadable", "unicode-twins", "encoding", "surrogates",
            "duplicate-keys", "numbers", "nesting", "huge-strings", "large", "wrong-types", "jsonl", "gate-ids", "mp4",
            "pickle", "control-bidi", "foreign-vllm", "foreign-serving", "foreign-matrix", "foreign-telemetry")
CEILING_S = 30


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[list[Case], str, Path]:
    root = tmp_path_factory.mktemp("hostile")
    assets = make_assets(root / "assets")
    return build(root / "cases"), str(assets), root / "cases"


def _run(case: Case, assets: str) -> str | None:
    """Verify one case; return a problem description, or None when it behaved."""
    before = snapshot(case.path)
    started = time.monotonic()
    try:
        with deadline(CEILING_S), pytest.MonkeyPatch.context() as patch:
            if case.family == "unreadable":
                deny_unreadable(patch)  # root meets the permission checks a normal user meets
            report = verify_path(str(case.path), asset_root=assets)
    except UsageError as exc:
        if case.expect not in ("usage",):
            return f"usage error {exc.diagnostics()[:200]}"
        report = None
    except Exception as exc:  # noqa: BLE001 - a traceback is exactly what this test looks for
        return f"raised {type(exc).__name__}: {str(exc)[:300]}"
    elapsed = time.monotonic() - started
    if snapshot(case.path) != before:
        return "the evidence changed during verification"
    if report is None:
        return None
    errors = [f for f in report.findings if f.status is Status.ERROR]
    if errors:
        return f"ERROR finding {errors[0].check}: {errors[0].message[:300]}"
    if case.expect == "not-pass" and report.verdict == "PASS":
        return "verdict PASS on hostile input"
    if case.expect == "pass" and report.verdict != "PASS":
        bad = [f"{f.status.value} {f.code} {f.message[:120]}" for f in report.findings if f.status is not Status.PASS][:3]
        return f"verdict {report.verdict}, listed as legitimately fine ({case.why}): {bad}"
    try:
        assert_all_formats_parse(report)
    except AssertionError as exc:
        return f"a report format does not parse: {str(exc)[:300]}"
    if elapsed > CEILING_S:
        return f"took {elapsed:.1f} s"
    return None


def test_corpus_is_large_and_covers_every_family(corpus):
    cases, _, _ = corpus
    by_family = Counter(c.family for c in cases)
    assert len(cases) >= 150, len(cases)
    assert set(by_family) == set(FAMILIES), set(FAMILIES) ^ set(by_family)
    assert len({c.name for c in cases}) == len(cases)
    assert all(c.why for c in cases if c.expect in ("pass", "any", "usage"))


@pytest.mark.parametrize("family", FAMILIES)
def test_every_hostile_case_ends_cleanly(corpus, family):
    cases, assets, root = corpus
    problems = {c.name: _run(c, assets) for c in cases if c.family == family}
    assert not (root / PICKLE_MARKER).exists(), "a pickle payload ran"
    assert not {k: v for k, v in problems.items() if v}, {k: v for k, v in problems.items() if v}


def test_reports_are_never_written_into_the_bundle(tmp_path, run, tiny_assets):
    bundle = write_bundle(tmp_path / "b")
    before = snapshot(bundle)
    for target in (bundle / "r.json", bundle / "sub" / ".." / "r.sarif", bundle / "manifest.json", bundle):
        result = run(str(bundle), "--report", f"json={target}")
        assert result.exit_code == 2 and "Traceback" not in result.output + result.stderr, result.stderr
    (tmp_path / "link").symlink_to(bundle)
    result = run(str(bundle), "--report", f"junit={tmp_path / 'link' / 'r.xml'}")
    assert result.exit_code == 2
    assert snapshot(bundle) == before
