"""`harmonic_mean`: n / sum(1/x) of values > 0, derived exactly by `stats.derive`, judged within `stats.tolerance`'s relative n eps bound."""

from __future__ import annotations

import json
import statistics
from decimal import Decimal as D
from fractions import Fraction

import pytest
from conftest import make_assets
from helpers import by_check, one_claim, write_tree

from verifier.engine import stats
from verifier.core import verify_path

XS = ["1.0", "2.0", "4.0", "7.5", "3.2"]
EXACT = Fraction(5) / sum(1 / Fraction(x) for x in XS)  # 5 / 2.1958333... = 2.277039848197343...


def _float_harmonic(xs: list[str]) -> float:
    """The harmonic mean as a float program computes it: n / sum(1/x), left to right in binary64."""
    total = 0.0
    for x in xs:
        total += 1.0 / float(x)
    return len(xs) / total


# ---------------------------------------------------------------- the engine


def test_the_harmonic_mean_is_derived_exactly():
    derived = stats.derive("harmonic_mean", [D(x) for x in XS])
    assert abs(Fraction(derived.value) - EXACT) < Fraction(1, 10**45)
    assert derived.inputs == tuple(D(x) for x in XS)
    assert derived.text.startswith("harmonic mean n / sum(1/x) of 5 values")
    assert stats.derive("harmonic_mean", [D(40), D(60)]).value == D(48)  # 2 / (1/40 + 1/60): the classic average speed


@pytest.mark.parametrize(("values", "words"), [([], "no values (values)"), ([D(0), D(4)], "a harmonic mean needs values > 0, values has 0"),
                                               ([D(4), D(-1)], "a harmonic mean needs values > 0, values has -1")])
def test_no_value_or_a_value_at_or_below_zero_is_underivable(values, words):
    with pytest.raises(stats.Underivable) as info:
        stats.derive("harmonic_mean", values)
    assert (str(info.value), info.value.code, info.value.fail) == (words, "empty-selection", True)


def test_a_float_programs_harmonic_mean_passes_and_ten_bounds_off_fails():
    values = [D(x) for x in XS]
    derived = stats.derive("harmonic_mean", values).value
    for produced in (_float_harmonic(XS), statistics.harmonic_mean([float(x) for x in XS])):
        stated = D(repr(produced))
        assert stats.compare(stated, derived, statistic="harmonic_mean", values=values).holds, stated
        bound = stats.tolerance(stated, statistic="harmonic_mean", values=values)
        assert bound < stated * D("1e-14")  # relative: about n eps, far below anything a reviewer cares about
        assert not stats.compare(stated + 10 * bound, derived, statistic="harmonic_mean", values=values).holds


def test_a_float_sum_of_many_reciprocals_passes_only_with_the_summation_term():
    """1000 values in [1, 1.1): the float summation's error exceeds the print and input terms, and stays within n eps."""
    import random

    rng, beyond = random.Random(7), 0
    for _ in range(20):
        xs = [repr(rng.uniform(1.0, 1.1)) for _ in range(1000)]
        values = [D(x) for x in xs]
        derived, stated = stats.derive("harmonic_mean", values).value, D(repr(_float_harmonic(xs)))
        assert stats.compare(stated, derived, statistic="harmonic_mean", values=values).holds
        beyond += abs(stated - derived) > stats.half_unit(stated) + stats.U * max(values)
    assert beyond >= 5, beyond  # 15 of 20 with this seed


def test_the_bound_is_relative_n_eps():
    one = stats.tolerance(D("2.0000000000000000"), statistic="harmonic_mean", values=[D(1), D(4)])
    big = stats.tolerance(D("2.0000000000000000"), statistic="harmonic_mean", values=[D(1), D(4)] * 50)
    print_term = stats.half_unit(D("2.0000000000000000"))
    assert (big - print_term) / (one - print_term) > 20  # grows with n: (100 eps + 4u) against (2 eps + 4u)
    assert one - print_term >= 2 * 2 * stats.EPS  # n eps of the result 2, n = 2


def test_the_bound_is_relative_in_the_stated_unit_and_carries_each_inputs_own_error():
    values, print_term = [D(1), D(4)], D("0.5")
    one = stats.tolerance(D(2), statistic="harmonic_mean", values=values) - print_term
    two = stats.tolerance(D(4), statistic="harmonic_mean", values=values, scale=2) - print_term  # stated in a unit 2 times smaller
    assert one > 0 and abs(two - 2 * one) < D("1e-26"), (one, two)
    upstream = stats.tolerance(D(2), statistic="harmonic_mean", values=values, input_error=D("1e-6")) - print_term
    assert abs(upstream - one - D("2e-6")) < D("1e-26")  # relative 1e-6 at the smallest input (1), times the result 2
    steps = stats.tolerance(D(2), statistic="harmonic_mean", values=values, steps=2) - print_term
    assert abs(steps - one - 2 * 2 * stats.U) < D("1e-26")  # each declared binary64 operation: relative u more


def test_the_harmonic_mean_is_in_the_schemas_and_derivable_by_both_readers():
    from verifier.engine.derive import CAMPAIGN_STATISTICS, RECORD_STATISTICS
    from verifier.profiles.language import VALUE_STATISTICS

    assert "harmonic_mean" in stats.STATISTICS and "harmonic_mean" in CAMPAIGN_STATISTICS and "harmonic_mean" in RECORD_STATISTICS
    assert "harmonic_mean" in VALUE_STATISTICS  # in the unit of its values: a profile rule states `unit`


# ---------------------------------------------------------------- a profile's claim and gate rules

RUNS = {"runs/a.csv": "s\n" + "\n".join(XS) + "\n"}


def _doc(claims: list[dict], rules: list[dict] = ()) -> dict:
    doc = {"id": "run", "version": 1, "description": "test profile", "detect": {"files": ["summary.json"]},
           "manifest": {"kind": "none", "reason": "no digests"},
           "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv",
                                 "fields": {"latency": {"pointer": "/s", "unit": "s"}, "phase": {"value": "measured"}}}},
           "claims": claims}
    if rules:
        doc["gate"] = {"rules": list(rules)}
    return doc


CLAIM = {"id": "hm", "receipts": "runs", "statistic": "harmonic_mean", "selection": {"phase": "measured"}, "unit": "s",
         "at": {"file": "summary.json", "pointer": "/hm"}}


def _verify(tmp_path, files: dict[str, str], doc: dict):
    bundle = write_tree(tmp_path / "run", files)
    return verify_path(str(bundle), asset_root=make_assets(tmp_path, {"run": doc}))


@pytest.mark.parametrize(("stated", "unit", "status"), [("2.2770", "s", "PASS"), ("2277.04", "ms", "PASS"), ("2.2780", "s", "FAIL"),
                                                        ("2.277039848197343", "s", "PASS"), ("2.277039848199", "s", "FAIL")])
def test_a_profile_claim_of_a_harmonic_mean(tmp_path, stated, unit, status):
    report = _verify(tmp_path, {**RUNS, "summary.json": '{"hm": %s}' % stated}, _doc([{**CLAIM, "unit": unit}]))
    found = one_claim(report, "hm")
    assert found.status.value == status, found.message


@pytest.mark.parametrize("rates", ["2,0", "2,-1"])
def test_a_profile_claim_over_a_value_at_or_below_zero_fails_as_underivable(tmp_path, rates):
    """A latency of 0 is no usable latency (`incomplete-denominator`), so the value is a declared rate, as `geometric_mean`'s test reads one."""
    doc = _doc([{**CLAIM, "value": "r", "unit": "1"}])
    doc["receipts"]["runs"]["values"] = {"r": {"pointer": "/r", "unit": "1"}}
    rows = "\n".join(f"1.0,{r}" for r in rates.split(","))
    report = _verify(tmp_path, {"runs/a.csv": f"s,r\n{rows}\n", "summary.json": '{"hm": 0}'}, doc)
    found = one_claim(report, "hm")
    assert (found.status.value, found.code) == ("FAIL", "empty-selection") and "harmonic mean needs values > 0" in found.message, found.message


@pytest.mark.parametrize(("bounds", "status", "code"), [({"max": 2.3}, "PASS", "rule-met"), ({"max": 2.2}, "FAIL", "rule-not-met"),
                                                         ({"min": 2.27, "max": 2.28}, "PASS", "rule-met")])
def test_a_profile_gate_rule_on_a_harmonic_mean(tmp_path, bounds, status, code):
    rule = {"id": "hm-bound", "receipts": "runs", "statistic": "harmonic_mean", "selection": {"phase": "measured"}, "unit": "s", **bounds}
    report = _verify(tmp_path, {**RUNS, "summary.json": "{}"}, _doc([], [rule]))
    assert [(f.status.value, f.code) for f in by_check(report, "gate.rules")] == [(status, code)]


def test_a_profile_rule_without_its_unit_is_refused_at_load():
    from conftest import ROOT

    from verifier.errors import ConfigError
    from verifier.profiles.language import load_profile

    schema = json.loads((ROOT / "schemas" / "profile.schema.json").read_text())
    load_profile(_doc([CLAIM]), schema, origin="draft.json")
    with pytest.raises(ConfigError) as info:
        load_profile(_doc([{k: v for k, v in CLAIM.items() if k != "unit"}]), schema, origin="draft.json")
    assert str(info.value).startswith("draft.json: invalid profile at /claims/0"), str(info.value)
