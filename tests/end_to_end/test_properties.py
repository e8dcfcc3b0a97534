"""Property tests of the result model and the statistics (hypothesis)."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from verifier.engine import stats
from verifier.formats.jsonio import json_pointer
from verifier.model.findings import Finding, Status, verdict_of

RANK = {"PASS": 0, "INCOMPLETE": 1, "ERROR": 2, "FAIL": 3}
statuses = st.sampled_from(list(Status))
findings = st.lists(statuses.map(lambda s: Finding(check="a.b", status=s, code="c", message="m")), max_size=8)


@given(findings)
def test_adding_a_fail_never_improves_the_verdict(fs):
    worse = verdict_of([*fs, Finding(check="a.b", status=Status.FAIL, code="c", message="m")])
    assert worse == "FAIL"
    assert RANK[worse] >= RANK[verdict_of(fs)]


@given(findings)
def test_pass_needs_a_pass_and_nothing_else(fs):
    if verdict_of(fs) == "PASS":
        assert fs and all(f.status is Status.PASS for f in fs)


decimals = st.decimals(min_value=Decimal("0.001"), max_value=Decimal("100000"), places=3, allow_nan=False, allow_infinity=False)


@given(st.lists(decimals, min_size=1, max_size=40), st.sampled_from([Decimal(50), Decimal(95), Decimal(99)]), st.randoms())
def test_statistics_do_not_depend_on_receipt_order(values, q, rnd):
    shuffled = list(values)
    rnd.shuffle(shuffled)
    assert stats.mean(values) == stats.mean(shuffled)
    assert stats.percentile_nearest_rank(values, q) == stats.percentile_nearest_rank(shuffled, q)
    assert stats.percentile_linear(values, q) == stats.percentile_linear(shuffled, q)


@given(st.lists(decimals, min_size=1, max_size=40))
def test_percentiles_stay_within_the_sample(values):
    for q in (Decimal(1), Decimal(50), Decimal(95), Decimal(100)):
        assert min(values) <= stats.percentile_nearest_rank(values, q) <= max(values)
        assert min(values) <= stats.percentile_linear(values, q) <= max(values)


@given(st.lists(st.one_of(st.text(max_size=5), st.integers(0, 99)), max_size=5))
def test_json_pointer_round_trips(parts):
    pointer = json_pointer(parts)
    tokens = pointer.split("/")[1:] if pointer else []
    assert [t.replace("~1", "/").replace("~0", "~") for t in tokens] == [str(p) for p in parts]


def test_half_unit_of_stated_precision():
    assert stats.half_unit(Decimal("73.45")) == Decimal("0.005")
    assert stats.half_unit(Decimal("396.30")) == Decimal("0.005")
    assert stats.half_unit(Decimal("20")) == Decimal("0.5")
    assert stats.tolerance(Decimal("48.37519689189189")) > stats.half_unit(Decimal("48.37519689189189"))
