"""One statistics engine (`stats.derive`) and one tolerance (`stats.tolerance`/`stats.compare`) for every reader."""

from __future__ import annotations

import ast
import json
import shutil
from decimal import Decimal as D
from decimal import Decimal
from pathlib import Path

import pytest

from verifier.engine import stats
from verifier.core import verify_path

ROOT = Path(__file__).resolve().parent.parent.parent
SYSTEM1 = ROOT.parent / "shared" / "corpus" / "system1-omni-gdn-20261003"


def _functions_named(names: set[str]) -> list[str]:
    """Return the module-level functions of the package with one of `names` (methods such as the gate lookup
    `scoring.Scorers.tolerance(metric)` read a declared value and are not a second tolerance rule)."""
    found = []
    for path in (ROOT / "verifier").rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.name in names:
                found.append(f"{path.relative_to(ROOT)}:{node.name}")
    return sorted(found)


def test_one_derivation_function_and_one_tolerance_function_in_the_package():
    assert _functions_named({"derive"}) == ["verifier/engine/stats.py:derive"]
    assert _functions_named({"tolerance", "claim_tolerance", "default_tolerance", "within"}) == ["verifier/engine/stats.py:tolerance"]


def test_the_vocabulary_is_the_union_of_the_old_roads():
    xs = [D("4"), D("1"), D("3"), D("2")]
    assert stats.derive("mean", xs).value == D("2.5")
    assert stats.derive("median", xs).value == D("2.5")
    assert stats.derive("min", xs).value == 1 and stats.derive("max", xs).value == 4
    assert stats.derive("sum", xs).value == 10 and stats.derive("count", xs).value == 4
    assert stats.derive("percentile", xs, q=50, method="nearest-rank").value == 2
    assert stats.derive("percentile", xs, q=50, method="linear").value == D("2.5")
    assert abs(stats.derive("sd", xs).value - D("1.2909944487358056283930884665941332036109739017638")) < D("1e-40")
    assert abs(stats.derive("population_sd", xs).value - D("1.1180339887498948482045868343656381177203091798058")) < D("1e-40")
    servers = {"a1": [D(1), D(3)], "a2": [D(5)]}
    assert stats.derive("mean_of_server_means", servers).value == D("3.5")
    assert abs(stats.derive("sd_of_server_means", servers).value - D("2.1213203435596425732025330863145471178545078130654")) < D("1e-40")
    arms = {"base": {"s": [D(4)]}, "cand": {"s": [D(1)]}}
    assert stats.derive("speedup", arms, baseline="base", candidate="cand").value == 4
    assert stats.derive("relative_reduction_pct", arms, baseline="base", candidate="cand").value == 75
    assert stats.derive("ratio", (D(3), D(4))).value == D("0.75")
    assert stats.derive("relative_change_pct", (D(4), D(5))).value == 25


@pytest.mark.parametrize("statistic, values, code, fail", [
    ("mean", [], "empty-selection", True),
    ("sd", [D(1)], "empty-selection", False),
    ("sd_of_server_means", {"only": [D(1)]}, "empty-selection", False),
    ("percentile", [D(1)], "unknown-statistic", True),  # no method: never guessed
    ("geomean", [D(1)], "unknown-statistic", True),
])
def test_what_cannot_be_derived_is_said_not_guessed(statistic, values, code, fail):
    with pytest.raises(stats.Underivable) as caught:
        stats.derive(statistic, values)
    assert (caught.value.code, caught.value.fail) == (code, fail)


def test_tolerance_is_half_a_unit_of_the_stated_place_and_widens_only_from_what_it_is_given():
    assert stats.tolerance(D("73.45")) == D("0.005")
    assert stats.tolerance(D("396.30")) == D("0.005")
    assert stats.tolerance(D("73.45"), declared="0.1") == D("0.1")
    assert stats.tolerance(D("12"), exact=True) == 0
    full = D("0.42005871365966563")
    assert stats.tolerance(full, statistic="relative_reduction_pct") >= 100 * D(2) ** -48 > stats.tolerance(full)
    assert stats.tolerance(D("1.5"), source=D("1.50001")) == D("0.05")
    tiny = D("6.9e-15")
    assert stats.tolerance(tiny, statistic="population_sd", values=[D("0.5")] * 4, scale=1000) > tiny


def test_compare_is_inclusive_and_reports_delta_and_tolerance():
    held = stats.compare(D("73.45"), D("73.455"))
    assert held.holds and held.tolerance == D("0.005") and held.delta == D("-0.005")
    assert not stats.compare(D("73.45"), D("73.4551")).holds


def _copy_system1(tmp_path: Path) -> Path:
    dest = tmp_path / "system1"
    shutil.copytree(SYSTEM1, dest)
    return dest


def test_uppercase_digest_in_a_files_map_manifest_is_the_same_digest(tmp_path):
    bundle = _copy_system1(tmp_path)
    manifest = json.loads((bundle / "manifest.json").read_text())
    rel = sorted(manifest["files"])[0]
    manifest["files"][rel]["sha256"] = manifest["files"][rel]["sha256"].upper()
    (bundle / "manifest.json").write_text(json.dumps(manifest, indent=2))
    report = verify_path(str(bundle))
    match = [f for f in report.findings if f.check == "integrity.files" and f.path == rel]
    assert [(f.status, f.code) for f in match] == [("PASS", "match")]


def test_uppercase_digest_in_a_native_manifest_is_the_same_digest(example_copy):
    manifest = json.loads((example_copy / "manifest.json").read_text())
    entry = manifest["files"][0]
    entry["sha256"] = entry["sha256"].upper()
    (example_copy / "manifest.json").write_text(json.dumps(manifest, indent=2))
    report = verify_path(str(example_copy))
    assert report.verdict == "PASS"
    match = [f for f in report.findings if f.check == "integrity.files" and f.path == entry["path"]]
    assert [(f.status, f.code) for f in match] == [("PASS", "match")]


def test_message_formatting_rounds_to_significant_digits_and_never_changes_magnitude():
    """`stats.fmt` is display only: 12 significant digits, never a truncated string (which once cut 1e26 to 24 digits)."""
    from decimal import Decimal as D

    from verifier.engine.stats import fmt

    assert fmt(D("0.0500000000000814348588"), 3) == "0.05"  # a newcomer saw "(tolerance 0.0500000000000814348588)"
    assert fmt(D("1.3327567227551501808460")) == "1.33275672276"
    assert D(fmt(D("123456789012345678901234567.5"))) == D("1.23456789012E+26")
    assert fmt(D("1E+2")) == "100" and fmt(D("-0")) == "0" and fmt(D("NaN")) == "NaN"


# --- many receipts judged at once (issue 40): the screen decides nothing `compare` would decide otherwise ---

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_SECONDS = st.one_of(st.decimals(min_value=-10**6, max_value=10**6, places=9, allow_nan=False),
                     st.integers(-10**6, 10**6), st.just(D("0.0005")), st.just(D("0.001")), st.just(D("0.0010000001")))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_SECONDS, st.integers(-10**15, 10**15), st.integers(-2_000_000, 2_000_000)), max_size=30),
       st.sampled_from([D("0.001"), D("0"), D("1e-9"), D("5")]))
def test_compare_spans_finds_exactly_the_rows_compare_refuses(rows, declared):
    """Spans near the stated seconds (within a few ms either way, to the nanosecond) and far from them; tolerances 0 to 5 s."""
    stated = [s for s, _far, _near in rows]
    spans = [int(D(s) * 10**9) + near if i % 2 else far for i, (s, far, near) in enumerate(rows)]
    expected = []
    for k, (s, span) in enumerate(zip(stated, spans)):
        comparison = stats.compare(s, stats.seconds_of(span), declared=declared)
        if not comparison.holds:
            expected.append((k, stats.seconds_of(span), comparison))
    import numpy as np

    assert stats.compare_spans(stated, spans, declared=declared) == expected
    assert stats.compare_spans(stated, np.array(spans, dtype=np.int64), declared=declared) == expected


def test_compare_spans_at_the_edge_of_the_tolerance_and_past_binary64():
    stated = [D("1.5"), D("1.5"), D("1.5"), 10**400, D("1e-400")]
    spans = [1_501_000_000, 1_501_000_001, 1_499_000_000, 10**410, 0]
    found = stats.compare_spans(stated, spans, declared=D("0.001"))
    assert [k for k, _span, _c in found] == [1, 3]  # 10**400 s against 10**401 s: no binary64 holds them, judged exactly
    assert found[1] == (3, stats.seconds_of(10**410), stats.compare(10**400, stats.seconds_of(10**410), declared=D("0.001")))
    assert str(found[0][1]) == "1.501000001"
    # 1.4999999999999999999 s reads as 1.5 in binary64, exactly 1 ms from the span: the margin sends it to the exact judgement, which refuses it
    assert [k for k, _s, _c in stats.compare_spans([D("1.4999999999999999999")], [1_501_000_000], declared=D("0.001"))] == [0]
    assert found[0][2] == stats.compare(D("1.5"), D("1.501000001"), declared=D("0.001"))
    assert stats.seconds_of(1_500_000_000) == D("1.5") and stats.seconds_of(-1) == D("-1E-9")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 5), st.integers(0, 4)), max_size=12))
def test_the_peak_overlap_is_the_largest_number_of_intervals_open_at_one_instant(pairs):
    """Half-open [start, end): counted at every instant written out (ends before starts on ties); int64 arrays, objects, Decimals."""
    import numpy as np

    intervals = [(s, s + length) for s, length in pairs]
    expected = max([sum(1 for s, e in intervals if s <= t < e) for t in range(-5, 10)], default=0)
    assert stats.peak_in_flight(intervals) == expected
    starts, ends = [s for s, _ in intervals], [e for _, e in intervals]
    assert stats.peak_overlap(np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)) == expected
    assert stats.peak_overlap(np.array([s + 2**70 for s in starts], dtype=object), np.array([e + 2**70 for e in ends], dtype=object)) == expected
    assert stats.peak_in_flight([(D(s) / 2, D(e) / 2) for s, e in intervals]) == expected


def test_a_difference_past_the_tolerance_in_its_38th_digit_does_not_hold_in_the_run_context():
    """`abs()` of a Decimal rounds to the context's precision (28 digits in a check): the comparison must not (trial, helper-65)."""
    import decimal

    from verifier.engine.estimators import RUN_CONTEXT

    with decimal.localcontext(RUN_CONTEXT):
        assert not stats.compare(D("0.50100000000000000000000000000000000001"), D("0.5"), declared=D("0.001")).holds
        assert stats.compare(D("0.501"), D("0.5"), declared=D("0.001")).holds


@pytest.mark.parametrize(("statistic", "values", "exact"), [
    ("sum", ["1E+20", "1E-10"], "100000000000000000000.0000000001"),
    ("mean", ["1E+20", "1E-10"], "50000000000000000000.00000000005"),
    ("mean_of_server_means", {"s1": ["1E+20", "1E-10"]}, "50000000000000000000.00000000005"),
    ("ratio_of_sums", (["1E+20", "1E-10"], ["1"]), "100000000000000000000.0000000001"),
])
def test_derivations_are_exact_in_the_engines_50_digits_whatever_the_callers_context(statistic, values, exact):
    """docs/tolerances.md: every claim re-derives exactly (`Decimal`, 50 digits). Sums ran in the thread's context (28 digits by
    default) and dropped the 1E-10 beside 1E+20 (the newcomer helper-72's finding); a caller's context must not matter either."""
    import decimal

    from verifier.engine import stats

    def as_decimals(v):
        return [Decimal(x) for x in v] if isinstance(v, list) else {k: as_decimals(x) for k, x in v.items()} if isinstance(v, dict) \
            else tuple(as_decimals(x) for x in v)

    for prec in (28, 6):
        with decimal.localcontext(decimal.Context(prec=prec)):
            assert stats.derive(statistic, as_decimals(values)).value == Decimal(exact)
