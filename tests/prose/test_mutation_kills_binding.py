"""
Tests that kill mutants of `verifier/prose/binding.py` by example (issue 42, cosmic-ray session of `binding`).

Each test pins inputs and exact outputs: the formulas of `PHRASES` on one
pair, `_compatible` and `_fmt` on a table, an arithmetic error turned into
`unchecked-claim`, the "and N more" cuts of every list a message shows at
their boundaries (3 names, 4 values, 6 candidates), and, on the shipped
example's evidence (`statements.collect_all`, subject levels included), the
status, code and message of every stated number of about a hundred
sentences: each phrase and its wording mismatch, ties of a relative
number (arrow, role words, headline), arrow ends and the pair they choose,
differences, gate thresholds and their window, recorded scores (bounds,
extremes, any score, the range), counts and plan counts, subjects (a
request, a selector, each server, a count of one server, none), the
narrowing by arm, server, statistic and topic, bounds, unit mismatches,
foreign nouns, years, and the bare-number fallback.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import EXAMPLE

from verifier.prose.binding import PHRASES, Evidence, Outcome, Pair, _compatible, _fmt, bind
from verifier.formats.bundle import Bundle
from verifier.checks import derivation, gate, integrity, plan, schema, statements
from verifier.readers.claimtext import Quantity, extract
from verifier.engine.pipeline import Context, run_pipeline
from verifier.trust.assets import assets


@pytest.fixture(scope="module")
def example():
    """`(evidence, pairs, keys, levels)` of the shipped example (the checks before `claims.stated` run first)."""
    ctx = Context(subject=EXAMPLE, assets=assets(), bundle=Bundle(root=EXAMPLE))
    run_pipeline((integrity.files, gate.pinned, schema.documents, plan.conformance, derivation.claims), ctx)
    return statements.collect_all(ctx)


def _e(name: str, value: object, unit: str | None = "s", source: str = "derived", **kw: object) -> Evidence:
    return Evidence(name, Decimal(str(value)), unit, source, f"d {name}", **kw)  # type: ignore[arg-type]


def _q(unit: str | None, informational: str | None = None) -> Quantity:
    return Quantity(Decimal("1.2"), "1.2", unit, None, "", "", "", "It is 1.2.", "pr.md", 1, 7, informational=informational)


def _run(text: str, evidence, pairs=(), keys=None, levels=None, source: str = "pr.md") -> list[tuple[str, str, str]]:
    return [(o.status, o.code, o.message) for o in bind(extract(text, source), evidence, list(pairs), keys or {}, levels)]


def test_each_phrase_has_its_formula_meaning_and_unit():
    """Kills every operator and constant of `_pct_less`, `_pct_faster`, `_pct_more`, `_ratio`, `_inverse` and any `PHRASES` entry changed."""
    b, c = Decimal(400), Decimal(100)
    assert {k: v[2](b, c) for k, v in PHRASES.items()} == {
        "pct-less": 75, "pct-faster": 300, "pct-slower": -75, "pct-more": -75, "x-faster": 4, "x-as-fast": 4, "x-less": 4,
        "speedup": 4, "x-slower": Decimal("0.25")}
    assert PHRASES["pct-less"][2](Decimal(100), Decimal(400)) == -300 and PHRASES["pct-faster"][2](Decimal(100), Decimal(400)) == -75
    assert {k: (v[0], v[1], v[3]) for k, v in PHRASES.items()} == {
        "pct-less": ("X % lower / less time / reduction", "(1 - candidate/baseline) x 100", "%"),
        "pct-faster": ("X % faster (speed, not time)", "(baseline/candidate - 1) x 100", "%"),
        "pct-slower": ("X % slower (more time)", "(candidate/baseline - 1) x 100", "%"),
        "pct-more": ("rises / X % higher / more", "(new/old - 1) x 100 = (candidate/baseline - 1) x 100", "%"),
        "x-faster": ("N x faster (read as N x as fast; some read it as N + 1)", "baseline/candidate", "x"),
        "x-as-fast": ("N x as fast", "baseline/candidate", "x"),
        "x-less": ("N x lower / less time", "baseline/candidate", "x"),
        "speedup": ("N x speedup", "baseline/candidate", "x"),
        "x-slower": ("N x slower", "candidate/baseline", "x")}


@pytest.mark.parametrize(("stated", "given", "compatible"), [
    (None, None, True), (None, "s", True), ("requests", None, True), ("s", None, False), ("frames", None, False),
    ("furlongs", "furlongs", True), ("furlongs", "s", False), ("s", "furlongs", False), ("ms", "s", True), ("%", "s", False),
    ("frames/s", "s", False)])
def test_a_stated_unit_is_compatible_with_a_value_of_its_dimension_only(stated, given, compatible):
    """Kills `_compatible`'s `is None` flips, `and`/`or` swaps, `in` -> `not in`, `known` negations and `==` -> `!=`."""
    assert _compatible(_q(stated), _e("v", 1, given)) is compatible


@pytest.mark.parametrize(("value", "shown"), [("20.00", "20"), ("3.50", "3.50"), ("0.000001", "0.000001"),
                                              ("1234567890.123456", "1234567890.12"), ("Infinity", "Infinity")])
def test_a_value_is_shown_without_the_fraction_of_an_integer(value, shown):
    """Kills `_fmt`'s `and` -> `or`, `==` -> `!=` and the `normalize` skipped."""
    assert _fmt(Decimal(value)) == shown


def test_an_identifier_is_informational_and_an_arithmetic_error_is_unchecked_never_raised():
    """Kills `bind`'s `if q.informational` negated, the `continue` -> `break` after it, and the `except` clause replaced."""
    outcomes = bind([_q(None, "version"), _q(None)], [_e("v", "1.2", None, source="plan")], [], {})
    assert [(o.status, o.code, o.message) for o in outcomes] == [
        ("PASS", "informational", "1.2 is an identifier (version), not a quantity"),
        ("PASS", "plan-count", "1.2 is v = 1.2 (d v)")]
    base, cand = _e("m.a", 0, statistic="mean", keys=frozenset({"a"}), level="arm"), _e("m.b", 5, statistic="mean", keys=frozenset({"b"}))
    keys = {"a": "a", "b": "b", "baseline": "a", "candidate": "b"}
    assert _run("The candidate is 50 % lower than the baseline. It took 5 s.", [base, cand], [Pair("m", base, cand)], keys) == [
        ("UNVERIFIED", "unchecked-claim", "50 % is not accounted for: it could not be compared (DivisionByZero: [<class 'decimal.DivisionByZero'>])"),
        ("PASS", "bound", "5 s is m.b = 5 s (d m.b)")]
    assert isinstance(bind(extract("It took 5 s.", "pr.md"), [cand], [], {})[0], Outcome)


@pytest.mark.parametrize(("n", "names"), [(3, "m0, m1, m2"), (4, "m0, m1, m2 and 1 more")])
def test_a_bound_names_three_values_then_how_many_more(n, names):
    """Kills `_judge_bound`'s `chosen[:3]` and `len(chosen) > 3` constants and comparison (`>=`)."""
    evidence = [_e(f"m{i}", 10 + i, statistic="mean", topics=frozenset({"latency"})) for i in range(n)]
    assert _run("The mean is at most 100 s.", evidence) == [("PASS", "bound", f"at most 100 s holds for {names} (d m0)")]


@pytest.mark.parametrize(("n", "shown"), [(4, "m0, m1, m2, m3"), (5, "m0, m1, m2, m3, and 1 more")])
def test_values_the_wording_leaves_are_listed_four_then_how_many_more(n, shown):
    """Kills `_bind_value`'s `fits[:4]` and `len(fits) > 4` constants and comparison."""
    evidence = [_e(f"m{i}", 10 + i, statistic="mean") for i in range(n)]
    assert _run("The mean is 50 s.", evidence) == [
        ("UNVERIFIED", "unchecked-claim", f"50 s is not accounted for: the wording ('mean') leaves {n} values ({shown}) and none is 50 s")]


@pytest.mark.parametrize(("n", "shown"), [(6, "k0 = 10; k1 = 11; k2 = 12; k3 = 13; k4 = 14; k5 = 15"),
                                          (7, "k0 = 10; k1 = 11; k2 = 12; k3 = 13; k4 = 14; k5 = 15; and 1 more")])
def test_unbound_candidates_are_listed_six_then_how_many_more(n, shown):
    """Kills `_unbound`'s `chosen[:6]` and `len(chosen) > 6` constants and comparison, and the only-key unbound path of `_bind_value`."""
    evidence = [_e(f"k{i}", 10 + i, keys=frozenset({"B1"}), statistic="mean" if i == 0 else None) for i in range(n)]
    assert _run("B1 took 50 s.", evidence, keys={"B1": "B1"}) == [
        ("UNVERIFIED", "unbound-claim", f"50 s is not bound: the subject ('B1') leaves {n} derivations that disagree ({shown})")]


@pytest.mark.parametrize(("n", "names"), [(3, "s0.count, s1.count, s2.count"), (4, "s0.count, s1.count, s2.count and 1 more")])
def test_a_subject_of_several_values_names_three_then_how_many_more(n, names):
    """Kills `_bind_by_subject`'s `chosen[:3]`, `len(chosen) > 3` and `len(chosen) == 1` (one value: `_pass`)."""
    evidence = [_e(f"s{i}.count", 3, None, statistic="count", keys=frozenset({f"s{i}"}), level="server", phase="measured") for i in range(n)]
    keys = {f"s{i}": f"s{i}" for i in range(n)}
    assert _run("Each server ran 3 measured requests.", evidence, keys=keys, levels=dict.fromkeys(keys, "server")) == [
        ("PASS", "bound", f"3 holds for {names}, the values the subject ('each server', 'measured', 'each') names (d s0.count)")]


def test_an_arm_value_not_marked_primary_is_not_the_headline():
    """Kills `Evidence.primary`'s default `False` -> `True` (x.a would join the primary m.a and bind 7 s)."""
    evidence = [_e("m.a", 10, keys=frozenset({"a"}), primary=True, statistic="mean", level="arm"), _e("x.a", 7, keys=frozenset({"a"}))]
    assert _run("a took 7 s.", evidence, keys={"a": "a"}) == [
        ("UNVERIFIED", "unbound-claim", "7 s is not bound: the subject ('a') leaves 2 derivations that disagree (m.a = 10; x.a = 7)")]


def test_a_relative_number_with_no_headline_pair_compares_the_first_time_pair():
    """Kills `_pair_for`'s `(candidates or primary or time_pairs or [None])[0]` -> `[-1]` (the median pair: 20 %)."""
    p1b, p1c, p2b, p2c = (_e("p.b", 10, statistic="mean"), _e("p.c", 5, statistic="mean"), _e("q.b", 10, statistic="median"),
                          _e("q.c", 8, statistic="median"))
    pairs = [Pair("p", p1b, p1c), Pair("q", p2b, p2c)]
    assert _run("The candidate is 50 % lower.", [p1b, p1c, p2b, p2c], pairs) == [
        ("PASS", "bound", '50 % ("X % lower / less time / reduction" = (1 - candidate/baseline) x 100) re-derives: 50 from p: '
                          "baseline 10 s, candidate 5 s")]
    assert _run("Latency went from 50 s to 40 s.", [p1b, p1c, p2b, p2c], pairs) == [
        ("UNVERIFIED", "unchecked-claim", "50 s is not accounted for: an arrow pair that matches no baseline/candidate pair the evidence derives"),
        ("UNVERIFIED", "unchecked-claim", "40 s is not accounted for: an arrow pair that matches no baseline/candidate pair the evidence derives")]
    assert _run("Latency went from 50 s to 40 s.", [p1b, p1c], pairs[:1]) == [
        ("FAIL", "claim-mismatch", "states 50 s, but as the start of an arrow (the baseline) it is p.b, which the evidence gives as 10 s "
                                   "(delta 40 s, tolerance 5 s; d p.b)"),
        ("FAIL", "claim-mismatch", "states 40 s, but as the end of an arrow (the candidate) it is p.c, which the evidence gives as 5 s "
                                   "(delta 35 s, tolerance 5 s; d p.c)")]


def test_a_difference_is_of_a_time_pair_only_and_without_a_headline_pair_it_is_unchecked():
    """Kills `_bind_difference`'s `and` -> `or` in `usable` (a frames/s pair), `not usable or q.unit is None`, and the primary fallback.

    A number stated as a difference that no time pair gives is `unchecked-claim`: never compared with a level value.
    """
    fb, fc = _e("f.b", 26, "frames/s", statistic="mean"), _e("f.c", 24, "frames/s", statistic="mean")
    assert _run("Fps fell by 2 frames/s.", [fb, fc], [Pair("f", fb, fc, primary=True)]) == [
        ("UNVERIFIED", "unchecked-claim", "2 frames/s is not accounted for: it is stated as a difference, and no baseline/candidate pair of time values the evidence derives has it")]
    tb, tc = _e("t.b", 26, statistic="mean"), _e("t.c", 24, statistic="mean")
    assert _run("Latency fell by 2 s. Latency fell by 3 s.", [tb, tc], [Pair("t", tb, tc)]) == [
        ("PASS", "bound", "2 s is the difference baseline - candidate of t = 2 s (26 - 24 s)"),
        ("UNVERIFIED", "unchecked-claim", "3 s is not accounted for: it is stated as a difference, and no baseline/candidate pair of time values the evidence derives has it")]


def test_a_bare_number_binds_only_to_derived_values_and_plan_counts():
    """Kills `_bind_value`'s `e.source in ("derived", "plan") and ...` -> `or` (a gate threshold, a recorded score would bind)."""
    evidence = [_e("gate.x", 5, None, source="gate"), _e("quality.x", 6, None, source="recorded"), _e("plan.x", 7, None, source="plan")]
    assert _run("It ran 5 requests. It ran 6 requests. It ran 7 requests.", evidence) == [
        ("UNVERIFIED", "unchecked-claim", "5 requests is not accounted for: no derived value, plan count or gate threshold has this value, "
                                          "and the wording names none"),
        ("UNVERIFIED", "unchecked-claim", "6 requests is not accounted for: no derived value, plan count or gate threshold has this value, "
                                          "and the wording names none"),
        ("PASS", "plan-count", "7 requests is plan.x = 7 requests (d plan.x)")]


def test_evidence_and_outcomes_are_immutable_values():
    """Kills `frozen=True` -> `False` of `Evidence`, `Pair` and `Outcome` (a bound value could be changed after it is judged)."""
    e = _e("m", 1)
    for value, field in ((e, "name"), (Pair("p", e, e), "name"), (Outcome(_q("s"), "PASS", "bound", "m"), "code")):
        with pytest.raises((AttributeError, TypeError)):  # FrozenInstanceError, or TypeError from a frozen slots class's __setattr__
            setattr(value, field, "other")
        assert getattr(value, field) != "other"


def _score_q(unit: str, sentence: str) -> Quantity:
    at = sentence.index("0.99")
    return Quantity(Decimal("0.99"), "0.99", unit, None, sentence[:at].lower(), sentence[at + 4:].lower(), "", sentence, "pr.md", 1, at + 1,
                    start=at)


def test_a_score_in_a_dimensionless_or_unknown_unit_is_a_recorded_score_and_in_seconds_it_is_not():
    """Kills `_bind_one`'s `q.unit is None or not units.known(q.unit) or ... == "dimensionless"` (`or` -> `and`, `not` deleted, `!=`)."""
    recorded = [_e("quality.x.c1", "0.99", None, source="recorded", topics=frozenset({"ssim"}))]
    quantities = [_score_q("ratio", "The SSIM is 0.99 ratio."), _score_q("furlongs", "The SSIM is 0.99 furlongs."),
                  _score_q("s", "The SSIM run took 0.99 s.")]
    assert [(o.status, o.code, o.message) for o in bind(quantities, recorded, [], {})] == [
        ("PASS", "recorded-score", "0.99 ratio is quality.x.c1 = 0.99 ratio (d quality.x.c1)"),
        ("PASS", "recorded-score", "0.99 furlongs is quality.x.c1 = 0.99 furlongs (d quality.x.c1)"),
        ("UNVERIFIED", "unchecked-claim", "0.99 s is not accounted for: no derived value, plan count or gate threshold has this value, "
                                          "and the wording names none")]


def test_gate_thresholds_of_one_topic_fail_a_number_only_when_they_agree_and_name_the_first():
    """Kills `_bind_threshold`'s `len(named) == 1 or len({...}) == 1 and named` (`or` -> `and`, `1` -> `2`) and `named[0]` -> `[-1]`."""
    agree = [_e("gate.x.min", "0.9", None, source="gate", statistic="threshold", topics=frozenset({"x"})),
             _e("gate.x.low", "0.9", None, source="gate", statistic="threshold", topics=frozenset({"x"}))]
    assert _run("The x gate is 0.5.", agree) == [
        ("FAIL", "claim-mismatch", "states 0.5, but the wording quotes a gate threshold; it is gate.x.min, which the evidence gives as 0.9 "
                                   "(delta -0.4, tolerance 0.05; d gate.x.min)")]
    differ = [agree[0], _e("gate.x.max", "0.99", None, source="gate", statistic="threshold", topics=frozenset({"x"}))]
    assert _run("The x gate is 0.5.", differ) == [
        ("UNVERIFIED", "unchecked-claim", "0.5 is not accounted for: no derived value, plan count or gate threshold has this value, "
                                          "and the wording names none")]


def test_a_bound_on_the_score_an_extreme_names_judges_that_one_score_only():
    """Kills `_bind_score`'s `chosen[:1]` -> `chosen[:2]` (the second minimum, 0.90, would fail the bound)."""
    recorded = [_e("quality.x.min", "0.95", None, source="recorded", statistic="min", topics=frozenset({"x"})),
                _e("quality.x.min2", "0.90", None, source="recorded", statistic="min", topics=frozenset({"x"}))]
    assert _run("The minimum x was at least 0.92.", recorded) == [
        ("PASS", "recorded-score", "at least 0.92 holds for quality.x.min (d quality.x.min)")]


def test_the_wording_that_leaves_equal_values_fails_naming_the_first():
    """Kills `_bind_value`'s `e = fits[0]` -> `[-1]` (two means of one value: the message names m0)."""
    assert _run("The mean is 20 s.", [_e("m0", 10, statistic="mean"), _e("m1", 10, statistic="mean")]) == [
        ("FAIL", "claim-mismatch", "states 20 s, but the wording ('mean') says it is m0, which the evidence gives as 10 s "
                                   "(delta 10 s, tolerance 5 s; d m0)")]


def test_an_arrow_end_whose_partner_index_is_past_the_list_has_no_partner():
    """Kills `_bind_arrow`'s `q.partner < len(quantities)` -> `<=` (an IndexError)."""
    import dataclasses

    b, c = _e("p.b", 10, statistic="mean"), _e("p.c", 5, statistic="mean")
    end = extract("It went from 10 s to 5 s.", "pr.md")[1]
    outcomes = bind([dataclasses.replace(end, partner=1)], [b, c], [Pair("p", b, c)], {})
    assert [(o.status, o.code, o.message) for o in outcomes] == [
        ("PASS", "bound", "5 s is p.c = 5 s (d p.c); the end of an arrow is the candidate")]


def test_an_arrow_matching_no_pair_takes_the_first_headline_pair():
    """Kills `_bind_arrow`'s `primary[0]` -> `primary[-1]`."""
    p1b, p1c, p2b, p2c = (_e("p.b", 10, statistic="mean"), _e("p.c", 5, statistic="mean"), _e("q.b", 20, statistic="median"),
                          _e("q.c", 8, statistic="median"))
    pairs = [Pair("p", p1b, p1c, primary=True), Pair("q", p2b, p2c, primary=True)]
    assert [o.evidence for o in bind(extract("It went from 50 s to 40 s.", "pr.md"), [p1b, p1c, p2b, p2c], pairs, {})] == ["p.b", "p.c"]


def test_a_relative_number_compares_time_pairs_only():
    """Kills `_pair_for`'s `p.base.unit and units.known(...) and ... == "time"` (`and` -> `or`): a frames/s pair is no latency pair."""
    fb, fc = _e("f.b", 26, "frames/s", statistic="mean"), _e("f.c", 13, "frames/s", statistic="mean")
    assert _run("The candidate is 50 % lower.", [fb, fc], [Pair("f", fb, fc, primary=True)]) == [
        ("UNVERIFIED", "unchecked-claim", "50 % is not accounted for: the evidence derives no baseline/candidate pair to compare")]


def test_a_bound_outcome_has_no_tolerance():
    """Kills `_judge_bound`'s `tolerance=Decimal(0)` -> `Decimal(-1)` / `Decimal(1)` in its PASS and its FAIL."""
    evidence = [_e("m0", 10, statistic="mean")]
    outcomes = bind(extract("The mean is at most 100 s. The mean is at most 5 s.", "pr.md"), evidence, [], {})
    assert [(o.status, o.tolerance) for o in outcomes] == [("PASS", Decimal(0)), ("FAIL", Decimal(0))]


def test_the_score_an_extreme_names_is_the_first_of_that_statistic():
    """Kills `_bind_score`'s `e = chosen[0]` -> `[-1]`."""
    recorded = [_e("quality.x.min", "0.95", None, source="recorded", statistic="min", topics=frozenset({"x"})),
                _e("quality.x.min2", "0.90", None, source="recorded", statistic="min", topics=frozenset({"x"}))]
    assert _run("The minimum x is 0.5.", recorded) == [
        ("FAIL", "claim-mismatch", "states 0.5, but the wording (min) says it is quality.x.min, which the evidence gives as 0.95 "
                                   "(delta -0.45, tolerance 0.05; d quality.x.min)")]


def test_an_arm_named_keeps_its_server_values_unless_it_has_arm_values():
    """Kills `_narrow`'s `e.level == "arm"` -> `!=` (the server value 5 of arm a would be dropped for a value of no level)."""
    evidence = [_e("s1.mean", 5, keys=frozenset({"s1", "a"}), statistic="mean", level="server"),
                _e("a.other", 9, keys=frozenset({"a"}), statistic="mean")]
    assert _run("The mean of a is 5 s.", evidence, keys={"a": "a", "s1": "s1"}) == [("PASS", "bound", "5 s is s1.mean = 5 s (d s1.mean)")]


def test_an_arrow_takes_the_first_pair_one_of_its_ends_matches():
    """Kills `_bind_arrow`'s `break` -> `continue` (the last matching pair, q, would be chosen: its candidate is 8 s)."""
    p1b, p1c, p2b, p2c = (_e("p.b", 10, statistic="mean"), _e("p.c", 5, statistic="mean"), _e("q.b", 10, statistic="median"),
                          _e("q.c", 8, statistic="median"))
    pairs = [Pair("p", p1b, p1c), Pair("q", p2b, p2c)]
    assert [(o.status, o.evidence) for o in bind(extract("It went from 10 s to 5 s.", "pr.md"), [p1b, p1c, p2b, p2c], pairs, {})] == [
        ("PASS", "p.b"), ("PASS", "p.c")]


def test_a_value_the_subject_names_carries_the_tolerance_it_was_compared_at(example):
    """Kills `_bind_by_subject`'s `tol or Decimal(0)` (`or` -> `and`, `0` -> `-1`): 0.005 s at the stated precision, 0 for a bound."""
    evidence, pairs, keys, levels = example
    outcomes = bind(extract("The fastest request took 105.46 s. The fastest request took at most 110 s.", "pr.md"), evidence, pairs, keys, levels)
    assert [(o.status, o.evidence, o.tolerance) for o in outcomes] == [
        ("PASS", "all.all.min_s", Decimal("0.005")), ("PASS", "all.all.min_s", Decimal(0))]


def test_server_means_narrow_a_mean_only():
    """Kills `_narrow`'s `if statistic == "mean" and _server_means(local)` `not` added (a median would be narrowed to the servers)."""
    evidence = [_e("a.median", 10, keys=frozenset({"a"}), statistic="median", level="arm"),
                _e("s1.median", 20, keys=frozenset({"s1", "a"}), statistic="median", level="server")]
    assert _run("The median of the server means of a is 10 s.", evidence, keys={"a": "a", "s1": "s1"}) == [
        ("PASS", "bound", "10 s is a.median = 10 s (d a.median)")]


def test_a_unit_of_another_dimension_is_named_and_an_unknown_one_is_a_question_mark():
    """Kills the `unit-mismatch` message's `q.unit and units.known(q.unit)` -> `or` (an unknown unit would be parsed: UnitError)."""
    sentence = "The baseline mean is 5 furlongs."
    q = Quantity(Decimal(5), "5", "furlongs", None, "the baseline mean is ", " furlongs.", "", sentence, "pr.md", 1, 22, start=21)
    outcomes = bind([q], [_e("m.b", 10, keys=frozenset({"b"}), statistic="mean", level="arm")], [], {"baseline": "b", "b": "b"})
    assert [(o.status, o.code, o.message) for o in outcomes] == [
        ("FAIL", "unit-mismatch", "states 5 furlongs, but the wording ('baseline', 'mean') names m.b, which is in s (time), not furlongs (?)")]


def test_a_value_in_an_unknown_unit_equal_to_the_stated_one_is_compared_unconverted():
    """Kills `_holds`'s `q.unit and e.unit and units.known(...) and ...` -> `or` (an unknown unit would be parsed: UnitError)."""
    q = Quantity(Decimal(5), "5", "furlongs", None, "it is ", " furlongs.", "", "It is 5 furlongs.", "pr.md", 1, 7, start=6)
    assert [(o.status, o.code, o.message) for o in bind([q], [_e("v", 5, "furlongs")], [], {})] == [
        ("PASS", "bound", "5 furlongs is v = 5 furlongs (d v)")]


def test_a_pair_in_an_unknown_unit_is_no_time_pair():
    """Kills `_pair_for`'s `units.known(p.base.unit) and ... == "time"` -> `or` (an unknown unit would be parsed: UnitError)."""
    fb, fc = _e("f.b", 26, "furlongs", statistic="mean"), _e("f.c", 13, "furlongs", statistic="mean")
    assert _run("The candidate is 50 % lower.", [fb, fc], [Pair("f", fb, fc, primary=True)]) == [
        ("UNVERIFIED", "unchecked-claim", "50 % is not accounted for: the evidence derives no baseline/candidate pair to compare")]


def test_the_nearest_topic_is_that_of_the_first_value_naming_the_nearest_word():
    """Kills `_nearest_topic`'s `at > best[0]` -> `>=` (g2's topics {x} would replace g1's {x, y}, and g3 of topic y would drop out)."""
    gates = [_e("g1", "0.9", None, source="gate", statistic="threshold", topics=frozenset({"x", "y"})),
             _e("g2", "0.8", None, source="gate", statistic="threshold", topics=frozenset({"x"})),
             _e("g3", "0.7", None, source="gate", statistic="threshold", topics=frozenset({"y"}))]
    assert _run("The x gate is 0.7.", gates) == [("PASS", "gate-threshold", "0.7 is g3 = 0.7 (d g3)")]


def test_a_unit_mismatch_names_a_known_dimension_only():
    """Kills the `unit-mismatch` message's `e.unit and units.known(e.unit)` -> `or` (an unknown evidence unit would be parsed)."""
    evidence = [_e("m.b", 10, "furlongs", keys=frozenset({"b"}), statistic="mean")]
    assert _run("The baseline mean is 5 frames/s.", evidence, keys={"baseline": "b", "b": "b"}) == [
        ("FAIL", "unit-mismatch", "states 5 frames/s, but the wording ('baseline', 'mean') names m.b, which is in furlongs (a count), "
                                  "not frames/s (frames/time)")]


def test_a_bare_number_next_to_an_arm_is_not_yet_its_value():
    """Kills `named_only_by_key = q.unit is None and only_key` (`is None` -> `is not None`): a FAIL against a's value."""
    evidence = [_e("a.x", 10, keys=frozenset({"a"})), _e("a.y", 10, keys=frozenset({"a"}))]
    assert _run("a took 7.", evidence, keys={"a": "a"}) == [
        ("UNVERIFIED", "unchecked-claim", "7 is not accounted for: the wording ('a') leaves 2 values (a.x, a.y) and none is 7")]


# Outcomes (status, code, message) of each sentence on the shipped example, generated from the code under test and read line by line.
ON_EXAMPLE = [
    ('The candidate is 73.45 % lower than the baseline.', [
        ('PASS', 'bound', '73.45 % ("X % lower / less time / reduction" = (1 - candidate/baseline) x 100) re-derives: 73.452500798 from arm_mean_s: baseline 407.27 s, candidate 108.12 s'),
    ]),
    ('The candidate is 73.45 % faster than the baseline.', [
        ('FAIL', 'wording-mismatch', 'states "73.45 % faster than": that wording means (baseline/candidate - 1) x 100, which the evidence gives as 276.683314835 %; 73.45 % is (1 - candidate/baseline) x 100 ("X % lower / less time / reduction") (arm_mean_s: baseline 407.27 s, candidate 108.12 s)'),
    ]),
    ('The candidate is 276.68 % faster than the baseline.', [
        ('PASS', 'bound', '276.68 % ("X % faster (speed, not time)" = (baseline/candidate - 1) x 100) re-derives: 276.683314835 from arm_mean_s: baseline 407.27 s, candidate 108.12 s'),
    ]),
    ('The candidate is 73.45 % slower than the baseline.', [
        ('FAIL', 'wording-mismatch', 'states "73.45 % slower than": that wording means (candidate/baseline - 1) x 100, which the evidence gives as -73.452500798 %; 73.45 % is (1 - candidate/baseline) x 100 ("X % lower / less time / reduction") (arm_mean_s: baseline 407.27 s, candidate 108.12 s)'),
    ]),
    ('The candidate is 3.77x faster than the baseline.', [
        ('PASS', 'bound', '3.77 x ("N x faster (read as N x as fast; some read it as N + 1)" = baseline/candidate) re-derives: 3.76683314835 from arm_mean_s: baseline 407.27 s, candidate 108.12 s'),
    ]),
    ('The candidate is 3.77x as fast as the baseline.', [
        ('PASS', 'bound', '3.77 x ("N x as fast" = baseline/candidate) re-derives: 3.76683314835 from arm_mean_s: baseline 407.27 s, candidate 108.12 s'),
    ]),
    ('The candidate takes 3.77x less time.', [
        ('PASS', 'bound', '3.77 x ("N x lower / less time" = baseline/candidate) re-derives: 3.76683314835 from arm_mean_s: baseline 407.27 s, candidate 108.12 s'),
    ]),
    ('The candidate shows a 3.77x speedup.', [
        ('PASS', 'bound', '3.77 x ("N x speedup" = baseline/candidate) re-derives: 3.76683314835 from arm_mean_s: baseline 407.27 s, candidate 108.12 s'),
    ]),
    ('The candidate is 3.77x slower than the baseline.', [
        ('FAIL', 'wording-mismatch', 'states "3.77 x slower than": that wording means candidate/baseline, which the evidence gives as 0.26547499202 x; 3.77 x is baseline/candidate ("N x faster (read as N x as fast; some read it as N + 1)") (arm_mean_s: baseline 407.27 s, candidate 108.12 s)'),
    ]),
    ('The candidate is 0.27x slower than the baseline.', [
        ('PASS', 'bound', '0.27 x ("N x slower" = candidate/baseline) re-derives: 0.26547499202 from arm_mean_s: baseline 407.27 s, candidate 108.12 s'),
    ]),
    ('It is 50 % faster.', [
        ('FAIL', 'claim-mismatch', 'states 50 % ("X % faster (speed, not time)" = (baseline/candidate - 1) x 100), but the evidence gives 276.68 % (delta -226.68 %, tolerance 0.5 %; arm_mean_s: baseline 407.27 s, candidate 108.12 s)'),
    ]),
    ('The baseline rises 50 %.', [
        ('FAIL', 'claim-mismatch', 'states 50 % ("rises / X % higher / more" = (new/old - 1) x 100 = (candidate/baseline - 1) x 100), but the evidence gives -73.45 % (delta 123.45 %, tolerance 0.5 %; arm_mean_s: baseline 407.27 s, candidate 108.12 s)'),
    ]),
    ('Latency rises 50 %.', [
        ('UNVERIFIED', 'unchecked-claim', 'states 50 % ("rises / X % higher / more" = (new/old - 1) x 100 = (candidate/baseline - 1) x 100), but the evidence gives -73.45 % (delta 123.45 %, tolerance 0.5 %; arm_mean_s: baseline 407.27 s, candidate 108.12 s)'),
    ]),
    ('Memory is 20 % lower.', [
        ('UNVERIFIED', 'unchecked-claim', '20 % is not accounted for: it is about memory, which the evidence derives no pair for'),
    ]),
    ('Throughput is 3x higher.', [
        ('UNVERIFIED', 'unchecked-claim', '3 x is not accounted for: it is about throughput, which the evidence derives no pair for'),
    ]),
    ('It is 12 % lower.', [
        ('UNVERIFIED', 'unchecked-claim', '12 % is not accounted for: nothing in its sentence ties it to the baseline/candidate latencies'),
    ]),
    ('The candidate is 73.45 % of the baseline.', [
        ('PASS', 'bound', '73.45 % (no wording; equals (1 - candidate/baseline) x 100) re-derives: 73.452500798 from arm_mean_s: baseline 407.27 s, candidate 108.12 s'),
    ]),
    ('The candidate is 3.77 x the baseline.', [
        ('PASS', 'bound', '3.77 x (no wording; equals baseline/candidate) re-derives: 3.76683314835 from arm_mean_s: baseline 407.27 s, candidate 108.12 s'),
    ]),
    ('The baseline is 10 % here.', [
        ('UNVERIFIED', 'unchecked-claim', '10 % is not accounted for: it has no wording that names a formula, and no formula on arm_mean_s: baseline 407.27 s, candidate 108.12 s gives it'),
    ]),
    ('Mean latency went from 407.27 s to 108.12 s (73.45 % lower).', [
        ('PASS', 'bound', '407.27 s is arm_mean_s.baseline = 407.27 s (mean of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3); the start of an arrow is the baseline'),
        ('PASS', 'bound', '108.12 s is arm_mean_s.candidate = 108.12 s (mean of server means (arm=candidate, phase=measured): server B1 mean 106.66 over 3; server B2 mean 109.58 over 3); the end of an arrow is the candidate'),
        ('PASS', 'bound', '73.45 % ("X % lower / less time / reduction" = (1 - candidate/baseline) x 100) re-derives: 73.452500798 from arm_mean_s: baseline 407.27 s, candidate 108.12 s'),
    ]),
    ('Mean latency went from 407.27 s to 108.12 s (50 % lower).', [
        ('PASS', 'bound', '407.27 s is arm_mean_s.baseline = 407.27 s (mean of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3); the start of an arrow is the baseline'),
        ('PASS', 'bound', '108.12 s is arm_mean_s.candidate = 108.12 s (mean of server means (arm=candidate, phase=measured): server B1 mean 106.66 over 3; server B2 mean 109.58 over 3); the end of an arrow is the candidate'),
        ('FAIL', 'claim-mismatch', 'states 50 % ("X % lower / less time / reduction" = (1 - candidate/baseline) x 100), but the evidence gives 73.45 % (delta -23.45 %, tolerance 0.5 %; arm_mean_s: baseline 407.27 s, candidate 108.12 s)'),
    ]),
    ('The median latency is 73.45 % lower for the candidate.', [
        ('PASS', 'bound', '73.45 % ("X % lower / less time / reduction" = (1 - candidate/baseline) x 100) re-derives: 73.452500798 from arm_mean_s: baseline 407.27 s, candidate 108.12 s'),
    ]),
    ('The SD is 86.69 % lower.', [
        ('UNVERIFIED', 'unchecked-claim', '86.69 % is not accounted for: nothing in its sentence ties it to the baseline/candidate latencies'),
    ]),
    ('Mean latency went from 407.27 s to 108.12 s.', [
        ('PASS', 'bound', '407.27 s is arm_mean_s.baseline = 407.27 s (mean of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3); the start of an arrow is the baseline'),
        ('PASS', 'bound', '108.12 s is arm_mean_s.candidate = 108.12 s (mean of server means (arm=candidate, phase=measured): server B1 mean 106.66 over 3; server B2 mean 109.58 over 3); the end of an arrow is the candidate'),
    ]),
    ('Mean latency went from 407.27 s to 90 s.', [
        ('PASS', 'bound', '407.27 s is arm_mean_s.baseline = 407.27 s (mean of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3); the start of an arrow is the baseline'),
        ('FAIL', 'claim-mismatch', 'states 90 s, but as the end of an arrow (the candidate) it is arm_mean_s.candidate, which the evidence gives as 108.12 s (delta -18.12 s, tolerance 5 s; mean of server means (arm=candidate, phase=measured): server B1 mean 106.66 over 3; server B2 mean 109.58 over 3)'),
    ]),
    ('Mean latency went from 300 s to 108.12 s.', [
        ('FAIL', 'claim-mismatch', 'states 300 s, but as the start of an arrow (the baseline) it is arm_mean_s.baseline, which the evidence gives as 407.27 s (delta -107.27 s, tolerance 50 s; mean of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)'),
        ('PASS', 'bound', '108.12 s is arm_mean_s.candidate = 108.12 s (mean of server means (arm=candidate, phase=measured): server B1 mean 106.66 over 3; server B2 mean 109.58 over 3); the end of an arrow is the candidate'),
    ]),
    ('The SD went from 15.51 s to 2.06 s.', [
        ('PASS', 'bound', '15.51 s is sd_server_means_s.baseline = 15.5139227792 s (sample SD (n-1) of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3); the start of an arrow is the baseline'),
        ('PASS', 'bound', '2.06 s is sd_server_means_s.candidate = 2.06475180106 s (sample SD (n-1) of server means (arm=candidate, phase=measured): server B1 mean 106.66 over 3; server B2 mean 109.58 over 3); the end of an arrow is the candidate'),
    ]),
    ('The SD went from 15.51 s to 3 s.', [
        ('PASS', 'bound', '15.51 s is sd_server_means_s.baseline = 15.5139227792 s (sample SD (n-1) of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3); the start of an arrow is the baseline'),
        ('FAIL', 'claim-mismatch', 'states 3 s, but as the end of an arrow (the candidate) it is sd_server_means_s.candidate, which the evidence gives as 2.06 s (delta 0.94 s, tolerance 0.5 s; sample SD (n-1) of server means (arm=candidate, phase=measured): server B1 mean 106.66 over 3; server B2 mean 109.58 over 3)'),
    ]),
    ('The SD went from 20 s to 2.06 s.', [
        ('PASS', 'bound', '20 s is sd_server_means_s.baseline = 15.5139227792 s (sample SD (n-1) of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3); the start of an arrow is the baseline'),
        ('PASS', 'bound', '2.06 s is sd_server_means_s.candidate = 2.06475180106 s (sample SD (n-1) of server means (arm=candidate, phase=measured): server B1 mean 106.66 over 3; server B2 mean 109.58 over 3); the end of an arrow is the candidate'),
    ]),
    ('Latency went from 5 ms to 3 ms.', [
        ('FAIL', 'claim-mismatch', 'states 5 ms, but as the start of an arrow (the baseline) it is arm_mean_s.baseline, which the evidence gives as 407270.00 ms (delta -407265.00 ms, tolerance 0.5 ms; mean of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)'),
        ('FAIL', 'claim-mismatch', 'states 3 ms, but as the end of an arrow (the candidate) it is arm_mean_s.candidate, which the evidence gives as 108120.00 ms (delta -108117.00 ms, tolerance 0.5 ms; mean of server means (arm=candidate, phase=measured): server B1 mean 106.66 over 3; server B2 mean 109.58 over 3)'),
    ]),
    ('Fps went from 5 frames/s to 3 frames/s.', [
        ('UNVERIFIED', 'unchecked-claim', '5 frames/s is not accounted for: an arrow pair, but the evidence derives no baseline/candidate pair in this unit'),
        ('UNVERIFIED', 'unchecked-claim', '3 frames/s is not accounted for: an arrow pair, but the evidence derives no baseline/candidate pair in this unit'),
    ]),
    ('Latency fell by 299.15 s.', [
        ('PASS', 'bound', '299.15 s is the difference baseline - candidate of arm_mean_s = 299.15 s (407.27 - 108.12 s)'),
    ]),
    ('Latency fell by 200 s.', [
        ('FAIL', 'claim-mismatch', 'states a difference of 200 s, but baseline - candidate of arm_mean_s is 299.15 s (delta -99.15 s, tolerance 0.5 s; 407.27 - 108.12 s)'),
    ]),
    ('The SD fell by 13.45 s.', [
        ('PASS', 'bound', '13.45 s is the difference baseline - candidate of sd_server_means_s = 13.4491709782 s (15.5139227792 - 2.06475180106 s)'),
    ]),
    ('The SD fell by 5 s.', [
        ('FAIL', 'claim-mismatch', 'states a difference of 5 s, but baseline - candidate of sd_server_means_s is 13.45 s (delta -8.45 s, tolerance 0.5 s; 15.5139227792 - 2.06475180106 s)'),
    ]),
    ('The p95 fell by 5 s.', [
        ('FAIL', 'claim-mismatch', 'states a difference of 5 s, but baseline - candidate of arm_mean_s is 299.15 s (delta -294.15 s, tolerance 0.5 s; 407.27 - 108.12 s)'),
    ]),
    ('Latency is 299.15 s lower.', [
        ('PASS', 'bound', '299.15 s is the difference baseline - candidate of arm_mean_s = 299.15 s (407.27 - 108.12 s)'),
    ]),
    ('The SSIM gate is 0.97.', [
        ('PASS', 'gate-threshold', '0.97 is gate.quality.ssim.min = 0.97 (gate ref2va-5s-v1 quality.thresholds.ssim.min)'),
    ]),
    ('The SSIM threshold is 0.95.', [
        ('FAIL', 'claim-mismatch', 'states 0.95, but the wording quotes a gate threshold; it is gate.quality.ssim.min, which the evidence gives as 0.97 (delta -0.02, tolerance 0.005; gate ref2va-5s-v1 quality.thresholds.ssim.min)'),
    ]),
    ('The LPIPS limit is 0.2.', [
        ('PASS', 'gate-threshold', '0.2 is gate.quality.lpips.max = 0.2 (gate ref2va-5s-v1 quality.thresholds.lpips.max)'),
    ]),
    ('The audio cosine floor is 0.8.', [
        ('PASS', 'gate-threshold', '0.8 is gate.quality.audio_cosine.min = 0.8 (gate ref2va-5s-v1 quality.thresholds.audio_cosine.min)'),
    ]),
    ('The gate is 0.97.', [
        ('PASS', 'gate-threshold', '0.97 is gate.quality.ssim.min = 0.97 (gate ref2va-5s-v1 quality.thresholds.ssim.min)'),
    ]),
    ('The threshold is 0.5.', [
        ('UNVERIFIED', 'unchecked-claim', '0.5 is not accounted for: no derived value, plan count or gate threshold has this value, and the wording names none'),
    ]),
    ('SSIM 0.99 (gate 0.97).', [
        ('PASS', 'recorded-score', '0.99 is quality.ssim.min = 0.991703 (lowest recorded ssim (c01 of 14))'),
        ('PASS', 'gate-threshold', '0.97 is gate.quality.ssim.min = 0.97 (gate ref2va-5s-v1 quality.thresholds.ssim.min)'),
    ]),
    ('SSIM was at least 0.99.', [
        ('PASS', 'recorded-score', 'at least 0.99 holds for quality.ssim.min, quality.ssim.max, quality.ssim.c01 and 13 more (lowest recorded ssim (c01 of 14))'),
    ]),
    ('SSIM was at least 0.995.', [
        ('FAIL', 'claim-mismatch', 'states at least 0.995, but the recorded score quality.ssim.min, which is 0.991703 (lowest recorded ssim (c01 of 14))'),
    ]),
    ('The minimum SSIM is 0.9917.', [
        ('PASS', 'recorded-score', '0.9917 is quality.ssim.min = 0.991703 (lowest recorded ssim (c01 of 14))'),
    ]),
    ('The minimum SSIM is 0.95.', [
        ('FAIL', 'claim-mismatch', 'states 0.95, but the wording (min) says it is quality.ssim.min, which the evidence gives as 0.9917 (delta -0.0417, tolerance 0.005; lowest recorded ssim (c01 of 14))'),
    ]),
    ('The highest audio cosine is 0.98.', [
        ('FAIL', 'claim-mismatch', 'states 0.98, but the wording (max) says it is quality.audio_cosine.max, which the evidence gives as 1.0000 (delta -0.0200, tolerance 0.005; highest recorded audio_cosine (c11 of 14))'),
    ]),
    ('The SSIM max is 1.0.', [
        ('PASS', 'recorded-score', '1.0 is quality.ssim.max = 1 (highest recorded ssim (c11 of 14))'),
    ]),
    ('SSIM is 0.991729.', [
        ('PASS', 'recorded-score', '0.991729 is quality.ssim.c02 = 0.991729 (ssim of comparison c02)'),
    ]),
    ('SSIM mean 0.991729.', [
        ('PASS', 'recorded-score', '0.991729 is quality.ssim.c02 = 0.991729 (ssim of comparison c02)'),
    ]),
    ('SSIM is 0.5.', [
        ('FAIL', 'claim-mismatch', 'states 0.5 for ssim, but no recorded score is 0.5 at its stated precision (recorded range 0.991703 .. 1)'),
    ]),
    ('Audio cosine was above 0.97.', [
        ('PASS', 'recorded-score', 'above 0.97 holds for quality.audio_cosine.min, quality.audio_cosine.max, quality.audio_cosine.c01 and 13 more (lowest recorded audio_cosine (c03 of 14))'),
    ]),
    ('Audio cosine was below 0.99.', [
        ('FAIL', 'claim-mismatch', 'states below 0.99, but the recorded score quality.audio_cosine.max, which is 1 (highest recorded audio_cosine (c11 of 14))'),
    ]),
    ('The run made 20 requests.', [
        ('PASS', 'bound', '20 requests is count.requests = 20 requests (count of 20 request receipts matching all (0 planned without receipt))'),
    ]),
    ('The run made 21 requests.', [
        ('FAIL', 'claim-mismatch', 'states 21 requests, but "21 " names a count; it is count.requests, which the evidence gives as 20 requests (delta 1 requests, tolerance 0.5 requests; count of 20 request receipts matching all (0 planned without receipt))'),
    ]),
    ('The run made 12 measured requests.', [
        ('PASS', 'bound', "12 is count.measured_requests = 12 (count of 12 request receipts matching {'phase': 'measured'} (0 planned without receipt))"),
    ]),
    ('There are 4 servers.', [
        ('PASS', 'plan-count', '4 is plan.servers = 4 (servers listed in plan.json)'),
    ]),
    ('There are 2 servers per arm.', [
        ('PASS', 'plan-count', '2 is plan.servers_per_arm = 2 (servers per arm in plan.json)'),
    ]),
    ('There are 124 frames.', [
        ('PASS', 'plan-count', '124 frames is plan.expected_output.frames = 124 frames (plan.json expected_output.frames)'),
    ]),
    ('There are 14 comparisons.', [
        ('PASS', 'bound', '14 is count.comparisons = 14 (count of 14 comparisons in quality-index.json)'),
    ]),
    ('Each server ran 3 measured requests.', [
        ('PASS', 'bound', "3 holds for server.A1.measured.count, server.B1.measured.count, server.B2.measured.count and 1 more, the values the subject ('each server', 'measured', 'each') names (count of request receipts (server A1, measured))"),
    ]),
    ('Each server ran 2 warmups.', [
        ('PASS', 'bound', "2 holds for server.A1.warmup.count, server.B1.warmup.count, server.B2.warmup.count and 1 more, the values the subject ('each server', 'warmups', 'each') names (count of request receipts (server A1, warmup))"),
    ]),
    ('Server B2 handled 5 requests.', [
        ('PASS', 'bound', "5 requests is server.B2.all.count = 5 requests (count of request receipts (server B2)); the subject ('B2') names it"),
    ]),
    ('Server B2 handled 6 requests.', [
        ('FAIL', 'claim-mismatch', "states 6 requests, but the subject ('B2') names it is server.B2.all.count, which the evidence gives as 5 requests (delta 1 requests, tolerance 0.5 requests; count of request receipts (server B2))"),
    ]),
    ('The fastest request took 105.46 s.', [
        ('PASS', 'bound', "105.46 s is all.all.min_s = 105.46 s (minimum of 20 elapsed seconds (all requests)); the subject ('fastest') names it"),
    ]),
    ('The fastest request took 100 s.', [
        ('FAIL', 'claim-mismatch', "states 100 s, but the subject ('fastest') names it is all.all.min_s, which the evidence gives as 105.46 s (delta -5.46 s, tolerance 0.5 s; minimum of 20 elapsed seconds (all requests))"),
    ]),
    ('The first warmup took 495.38 s.', [
        ('PASS', 'bound', "495.38 s is all.warmup.first_s = 495.38 s (first (by start time) of 8 elapsed seconds (all requests, warmup)); the subject ('warmup', 'first') names it"),
    ]),
    ("A1's warmups took 500 s.", [
        ('UNVERIFIED', 'unbound-claim', "500 s is not bound: the subject ('A1', 'warmups') leaves 2 derivations that disagree (request.A1-w1.elapsed_s = 495.38; request.A1-w2.elapsed_s = 498.38)"),
    ]),
    ('The slowest server mean was 400 s.', [
        ('UNVERIFIED', 'unbound-claim', "400 s is not bound: the subject ('slowest') names no derivation the evidence has"),
    ]),
    ('The request timeout is 900 s.', [
        ('PASS', 'plan-count', '900 s is plan.timeouts.request_s = 900 s (plan.json timeouts.request_s)'),
    ]),
    ('The baseline mean is 407.27 s.', [
        ('PASS', 'bound', '407.27 s is arm_mean_s.baseline = 407.27 s (mean of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)'),
    ]),
    ('The baseline mean is 400.1 s.', [
        ('FAIL', 'claim-mismatch', "states 400.1 s, but the wording ('baseline', 'mean') says it is arm_mean_s.baseline, which the evidence gives as 407.27 s (delta -7.17 s, tolerance 0.05 s; mean of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)"),
    ]),
    ('A1 mean 396.30 s.', [
        ('PASS', 'bound', '396.30 s is server_mean_s.A1 = 396.30 s (mean of 3 measured values (phase=measured, server=A1))'),
    ]),
    ('B1 mean 106.66 s.', [
        ('PASS', 'bound', '106.66 s is server_mean_s.B1 = 106.66 s (mean of 3 measured values (phase=measured, server=B1))'),
    ]),
    ('The baseline server means are 396.3 s and 418.24 s.', [
        ('PASS', 'bound', '396.3 s is server_mean_s.A1 = 396.30 s (mean of 3 measured values (phase=measured, server=A1))'),
        ('PASS', 'bound', '418.24 s is server_mean_s.A2 = 418.24 s (mean of 3 measured values (phase=measured, server=A2))'),
    ]),
    ('The candidate server mean is 110 s.', [
        ('PASS', 'bound', '110 s is server_mean_s.B1 = 106.66 s (mean of 3 measured values (phase=measured, server=B1))'),
    ]),
    ('B1 took 107.00 s.', [
        ('UNVERIFIED', 'unbound-claim', "107.00 s is not bound: the subject ('B1') leaves 18 derivations that disagree (server_mean_s.B1 = 106.66; request.B1-w1.elapsed_s = 133.32; request.B1-w2.elapsed_s = 136.32; request.B1-m1.elapsed_s = 105.46; request.B1-m2.elapsed_s = 106.66; request.B1-m3.elapsed_s = 107.86; and 12 more)"),
    ]),
    ('The baseline SD is 15.51 s.', [
        ('PASS', 'bound', '15.51 s is sd_server_means_s.baseline = 15.5139227792 s (sample SD (n-1) of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)'),
    ]),
    ('The baseline SD is 20 s.', [
        ('PASS', 'bound', '20 s is sd_server_means_s.baseline = 15.5139227792 s (sample SD (n-1) of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)'),
    ]),
    ('The baseline p95 is 5 s.', [
        ('UNVERIFIED', 'unchecked-claim', "5 s is not accounted for: the wording ('baseline', 'p95') names no value the evidence derives"),
    ]),
    ('The p95 is 500 s.', [
        ('UNVERIFIED', 'unchecked-claim', "500 s is not accounted for: the wording ('p95') names no value the evidence derives"),
    ]),
    ('The baseline mean is at most 500 s.', [
        ('PASS', 'bound', 'at most 500 s holds for arm_mean_s.baseline (mean of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)'),
    ]),
    ('The baseline mean is at most 300 s.', [
        ('FAIL', 'claim-mismatch', "states at most 300 s, but the wording ('baseline', 'mean') names arm_mean_s.baseline, which is 407.27 s (mean of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)"),
    ]),
    ('The baseline mean is below 407.27 s.', [
        ('FAIL', 'claim-mismatch', "states below 407.27 s, but the wording ('baseline', 'mean') names arm_mean_s.baseline, which is 407.27 s (mean of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)"),
    ]),
    ('The mean is at most 200 s.', [
        ('UNVERIFIED', 'unchecked-claim', "200 s is not accounted for: a bound, but the wording ('mean') leaves 6 values and not all lie on its side"),
    ]),
    ('The mean is at most 500 s.', [
        ('PASS', 'bound', 'at most 500 s holds for server_mean_s.A1, server_mean_s.B1, server_mean_s.B2 and 3 more (mean of 3 measured values (phase=measured, server=A1))'),
    ]),
    ('The mean is 5 frames/s.', [
        ('UNVERIFIED', 'unchecked-claim', "5 frames/s is not accounted for: the wording ('mean') leaves 6 values, none in the dimension of frames/s"),
    ]),
    ('The timeout is 900 s.', [
        ('PASS', 'plan-count', '900 s is plan.timeouts.request_s = 900 s (plan.json timeouts.request_s)'),
    ]),
    ('The fps is 24 frames/s.', [
        ('PASS', 'plan-count', '24 frames/s is plan.expected_output.fps = 24 frames/s (plan.json expected_output.fps)'),
    ]),
    ('We saw 4 crashes.', [
        ('UNVERIFIED', 'unchecked-claim', "4 is not accounted for: it counts 'crashes', which the evidence does not count"),
    ]),
    ('In 2024 we ran it.', [
        ('PASS', 'informational', '2024 is a year, not a quantity'),
    ]),
    ('Then 3000.', [
        ('UNVERIFIED', 'unchecked-claim', '3000 is not accounted for: no derived value, plan count or gate threshold has this value, and the wording names none'),
    ]),
    ('Then 12.', [
        ('PASS', 'bound', "12 is count.measured_requests = 12 (count of 12 request receipts matching {'phase': 'measured'} (0 planned without receipt))"),
    ]),
    ('Then 900.', [
        ('PASS', 'plan-count', '900 is plan.timeouts.request_s = 900 (plan.json timeouts.request_s); no unit stated, read as s'),
    ]),
    ('It took 123.45 s.', [
        ('UNVERIFIED', 'unchecked-claim', '123.45 s is not accounted for: no derived value, plan count or gate threshold has this value, and the wording names none'),
    ]),
    ('It took at most 1000 s.', [
        ('UNVERIFIED', 'unchecked-claim', '1000 s is not accounted for: a bound, but the wording names no value the evidence derives'),
    ]),
    ('The baseline mean is 5 frames/s.', [
        ('FAIL', 'unit-mismatch', "states 5 frames/s, but the wording ('baseline', 'mean') names arm_mean_s.baseline, which is in s (time), not frames/s (frames/time)"),
    ]),
    ('The baseline took 5 frames/s.', [
        ('UNVERIFIED', 'unchecked-claim', "5 frames/s is not accounted for: the wording names only 'baseline', and the evidence derives nothing in frames/s for it"),
    ]),
    ('Mean latency is 407.27 s.', [
        ('PASS', 'bound', '407.27 s is arm_mean_s.baseline = 407.27 s (mean of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)'),
    ]),
    ('The mean is 108.12 s.', [
        ('PASS', 'bound', '108.12 s is arm_mean_s.candidate = 108.12 s (mean of server means (arm=candidate, phase=measured): server B1 mean 106.66 over 3; server B2 mean 109.58 over 3)'),
    ]),
    ('The mean is 200 s.', [
        ('UNVERIFIED', 'unchecked-claim', "200 s is not accounted for: the wording ('mean') leaves 6 values (server_mean_s.A1, server_mean_s.B1, server_mean_s.B2, server_mean_s.A2, and 2 more) and none is 200 s"),
    ]),
    ('The mean is 200 frames.', [
        ('FAIL', 'claim-mismatch', 'states 200 frames, but "200 " names a count; it is plan.expected_output.frames, which the evidence gives as 124 frames (delta 76 frames, tolerance 0.5 frames; plan.json expected_output.frames)'),
    ]),
    ('Audio cosine is 0.5.', [
        ('FAIL', 'claim-mismatch', 'states 0.5 for audio, but no recorded score is 0.5 at its stated precision (recorded range 0.977337 .. 1)'),
    ]),
    ('The SSIM run took 0.99 s.', [
        ('UNVERIFIED', 'unchecked-claim', '0.99 s is not accounted for: no derived value, plan count or gate threshold has this value, and the wording names none'),
    ]),
    ('The SSIM is 0.99 ms.', [
        ('UNVERIFIED', 'unchecked-claim', '0.99 ms is not accounted for: no derived value, plan count or gate threshold has this value, and the wording names none'),
    ]),
    ('It ran 0.97 requests per minute.', [
        ('UNVERIFIED', 'unchecked-claim', '0.97 requests per minute is not accounted for: no derived value, plan count or gate threshold has this value, and the wording names none'),
    ]),
    ('Latency went from 15.51 s to 2.06 s.', [
        ('PASS', 'bound', '15.51 s is sd_server_means_s.baseline = 15.5139227792 s (sample SD (n-1) of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3); the start of an arrow is the baseline'),
        ('PASS', 'bound', '2.06 s is sd_server_means_s.candidate = 2.06475180106 s (sample SD (n-1) of server means (arm=candidate, phase=measured): server B1 mean 106.66 over 3; server B2 mean 109.58 over 3); the end of an arrow is the candidate'),
    ]),
    ('Latency went from 15.51 s to 2.06 s (86.69 % lower).', [
        ('PASS', 'bound', '15.51 s is sd_server_means_s.baseline = 15.5139227792 s (sample SD (n-1) of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3); the start of an arrow is the baseline'),
        ('PASS', 'bound', '2.06 s is sd_server_means_s.candidate = 2.06475180106 s (sample SD (n-1) of server means (arm=candidate, phase=measured): server B1 mean 106.66 over 3; server B2 mean 109.58 over 3); the end of an arrow is the candidate'),
        ('PASS', 'bound', '86.69 % ("X % lower / less time / reduction" = (1 - candidate/baseline) x 100) re-derives: 86.6909753874 from sd_server_means_s: baseline 15.5139227792 s, candidate 2.06475180106 s'),
    ]),
    ('A gate of 0.97 holds for SSIM and audio cosine.', [
        ('PASS', 'gate-threshold', '0.97 is gate.quality.ssim.min = 0.97 (gate ref2va-5s-v1 quality.thresholds.ssim.min)'),
    ]),
    ('The run made 13 measured requests and 8 warmups.', [
        ('FAIL', 'claim-mismatch', 'states 13, but "13 measured requests and" names a count; it is count.measured_requests, which the evidence gives as 12 (delta 1, tolerance 0.5; count of 12 request receipts matching {\'phase\': \'measured\'} (0 planned without receipt))'),
        ('PASS', 'plan-count', '8 is plan.warmups = 8 (warmups_per_server x servers in plan.json)'),
    ]),
    ('An agate was set to what is 0.97 here.', [
        ('PASS', 'gate-threshold', '0.97 is gate.quality.ssim.min = 0.97 (gate ref2va-5s-v1 quality.thresholds.ssim.min)'),
    ]),
    ('It is 0.97 as set by the best gatekeeper here.', [
        ('PASS', 'gate-threshold', '0.97 is gate.quality.ssim.min = 0.97 (gate ref2va-5s-v1 quality.thresholds.ssim.min)'),
    ]),
    ('Then 0.97 here.', [
        ('UNVERIFIED', 'unchecked-claim', "0.97 is not accounted for: it counts 'here', which the evidence does not count"),
    ]),
    ('Audio-cosine is 0.5.', [
        ('UNVERIFIED', 'unchecked-claim', '0.5 is not accounted for: no derived value, plan count or gate threshold has this value, and the wording names none'),
    ]),
    ('The fastest request took at most 100 s.', [
        ('FAIL', 'claim-mismatch', "states 100 s, but the subject ('fastest') names it is all.all.min_s, which the evidence gives as 105.46 s (delta -5.46 s, tolerance 0 s; minimum of 20 elapsed seconds (all requests))"),
    ]),
    ('Fps fell by 2 frames/s.', [
        ('UNVERIFIED', 'unchecked-claim', "2 frames/s is not accounted for: it is stated as a difference, and no baseline/candidate pair of time values the evidence derives has it"),  # a change, not the plan's 24 fps
    ]),
    ('A gate of 0.85 holds for audio cosine.', [
        ('FAIL', 'claim-mismatch', 'states 0.85, but the wording quotes a gate threshold; it is gate.quality.audio_cosine.min, which the evidence gives as 0.8 (delta 0.05, tolerance 0.005; gate ref2va-5s-v1 quality.thresholds.audio_cosine.min)'),
    ]),
    ('The baseline mean is 407.27 s, and its SD is 15.51 s.', [
        ('PASS', 'bound', '407.27 s is arm_mean_s.baseline = 407.27 s (mean of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)'),
        ('PASS', 'bound', '15.51 s is sd_server_means_s.baseline = 15.5139227792 s (sample SD (n-1) of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)'),
    ]),
    ('The baseline mean latency is 400.1 s.', [
        ('FAIL', 'claim-mismatch', "states 400.1 s, but the wording ('baseline', 'mean') says it is arm_mean_s.baseline, which the evidence gives as 407.27 s (delta -7.17 s, tolerance 0.05 s; mean of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)"),
    ]),
    ('The timeout is 800 s.', [
        ('FAIL', 'claim-mismatch', "states 800 s, but the wording ('timeout') says it is plan.timeouts.request_s, which the evidence gives as 900 s (delta -100 s, tolerance 0.5 s; plan.json timeouts.request_s)"),
    ]),
    ('The A1 server mean is 300 s.', [
        ('FAIL', 'claim-mismatch', "states 300 s, but the wording ('A1', 'mean') says it is server_mean_s.A1, which the evidence gives as 396.30 s (delta -96.30 s, tolerance 50 s; mean of 3 measured values (phase=measured, server=A1))"),
    ]),
    ('The SD went from 30 s to 10 s.', [
        ('FAIL', 'claim-mismatch', 'states 30 s, but as the start of an arrow (the baseline) it is sd_server_means_s.baseline, which the evidence gives as 15.51 s (delta 14.49 s, tolerance 5 s; sample SD (n-1) of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)'),
        ('FAIL', 'claim-mismatch', 'states 10 s, but as the end of an arrow (the candidate) it is sd_server_means_s.candidate, which the evidence gives as 2.06 s (delta 7.94 s, tolerance 5 s; sample SD (n-1) of server means (arm=candidate, phase=measured): server B1 mean 106.66 over 3; server B2 mean 109.58 over 3)'),
    ]),
    ('Latency fell by 299.15.', [
        ('UNVERIFIED', 'unchecked-claim', "299.15 is not accounted for: it is stated as a difference, and no baseline/candidate pair of time values the evidence derives has it"),
    ]),
    ('The mean is at least 100 s.', [
        ('PASS', 'bound', 'at least 100 s holds for server_mean_s.A1, server_mean_s.B1, server_mean_s.B2 and 3 more (mean of 3 measured values (phase=measured, server=A1))'),
    ]),
    ('Latency went from 16.5 s to 2.06 s.', [
        ('FAIL', 'claim-mismatch', 'states 16.5 s, but as the start of an arrow (the baseline) it is sd_server_means_s.baseline, which the evidence gives as 15.514 s (delta 0.986 s, tolerance 0.05 s; sample SD (n-1) of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)'),
        ('PASS', 'bound', '2.06 s is sd_server_means_s.candidate = 2.06475180106 s (sample SD (n-1) of server means (arm=candidate, phase=measured): server B1 mean 106.66 over 3; server B2 mean 109.58 over 3); the end of an arrow is the candidate'),
    ]),
    ('The candidate is 73.45 % lower and 3.77x faster.', [
        ('PASS', 'bound', '73.45 % ("X % lower / less time / reduction" = (1 - candidate/baseline) x 100) re-derives: 73.452500798 from arm_mean_s: baseline 407.27 s, candidate 108.12 s'),
        ('PASS', 'bound', '3.77 x ("N x faster (read as N x as fast; some read it as N + 1)" = baseline/candidate) re-derives: 3.76683314835 from arm_mean_s: baseline 407.27 s, candidate 108.12 s'),
    ]),
    ('The run made 10 measured requests.', [
        ('FAIL', 'claim-mismatch', 'states 10, but "10 measured requests" names a count; it is count.measured_requests, which the evidence gives as 12 (delta -2, tolerance 0.5; count of 12 request receipts matching {\'phase\': \'measured\'} (0 planned without receipt))'),
    ]),
    ('The timeout is 1000 s.', [
        ('FAIL', 'claim-mismatch', "states 1000 s, but the wording ('timeout') says it is plan.timeouts.request_s, which the evidence gives as 900 s (delta 100 s, tolerance 0.5 s; plan.json timeouts.request_s)"),
    ]),
    ('The timeout is 800.', [
        ('FAIL', 'claim-mismatch', "states 800, but the wording ('timeout') says it is plan.timeouts.request_s, which the evidence gives as 900 (delta -100, tolerance 0.5; plan.json timeouts.request_s)"),
    ]),
    ('It ran 3 measured requests and 2 warmups on each server.', [
        ('PASS', 'plan-count', '3 is plan.measured_per_server = 3 (plan.json measured_per_server)'),
        ('PASS', 'bound', "2 holds for server.A1.warmup.count, server.B1.warmup.count, server.B2.warmup.count and 1 more, the values the subject ('each server', 'warmups', 'each') names (count of request receipts (server A1, warmup))"),
    ]),
    ('The baseline server mean is 407.27 s.', [
        ('UNVERIFIED', 'unbound-claim', "407.27 s is not bound: the subject ('baseline', 'mean') leaves 2 derivations that disagree (server_mean_s.A1 = 396.30; server_mean_s.A2 = 418.24)"),
    ]),
    ('The baseline SD is 86.69 % lower for the candidate.', [
        ('PASS', 'bound', '86.69 % ("X % lower / less time / reduction" = (1 - candidate/baseline) x 100) re-derives: 86.6909753874 from sd_server_means_s: baseline 15.5139227792 s, candidate 2.06475180106 s'),
    ]),
    ('The candidate is 276.68 % lower than the baseline.', [
        ('FAIL', 'wording-mismatch', 'states "276.68 % lower than": that wording means (1 - candidate/baseline) x 100, which the evidence gives as 73.452500798 %; 276.68 % is (baseline/candidate - 1) x 100 ("X % faster (speed, not time)") (arm_mean_s: baseline 407.27 s, candidate 108.12 s)'),
    ]),
    ('The SD is 5 frames/s.', [
        ('UNVERIFIED', 'unchecked-claim', "5 frames/s is not accounted for: the wording ('sd') leaves 2 values, none in the dimension of frames/s"),
    ]),
    ('The mean is below 418.24 s.', [
        ('UNVERIFIED', 'unchecked-claim', "418.24 s is not accounted for: a bound, but the wording ('mean') leaves 6 values and not all lie on its side"),
    ]),
    ('The value is 0.5; that is the SSIM.', [
        ('FAIL', 'claim-mismatch', 'states 0.5 for ssim, but no recorded score is 0.5 at its stated precision (recorded range 0.991703 .. 1)'),
    ]),
    ('The baseline is 400.1 s; that is its mean.', [
        ('FAIL', 'claim-mismatch', "states 400.1 s, but the wording ('baseline', 'mean') says it is arm_mean_s.baseline, which the evidence gives as 407.27 s (delta -7.17 s, tolerance 0.05 s; mean of server means (arm=baseline, phase=measured): server A1 mean 396.3 over 3; server A2 mean 418.24 over 3)"),
    ]),
    # "worst"/"best" of a recorded score: the end the gate's threshold gives (a floor: the greater is better), never another
    # comparison's score (was: c02's 0.991729 passed "the worst SSIM"); "closest" names one end, never which
    ('The worst SSIM was 0.991729.', [
        ('FAIL', 'claim-mismatch', 'states 0.991729, but the wording (worst; gate.quality.ssim.min = 0.97: a greater score is better) says it is quality.ssim.min, which the evidence gives as 0.991703 (delta 0.000026, tolerance 0.0000005; lowest recorded ssim (c01 of 14))'),
    ]),
    ('The worst SSIM was 0.9917.', [
        ('PASS', 'recorded-score', '0.9917 is quality.ssim.min = 0.991703 (lowest recorded ssim (c01 of 14)); the wording (worst; gate.quality.ssim.min = 0.97: a greater score is better) names it'),
    ]),
    ('The best audio cosine was 1.0.', [
        ('PASS', 'recorded-score', '1.0 is quality.audio_cosine.max = 1 (highest recorded audio_cosine (c11 of 14)); the wording (best; gate.quality.audio_cosine.min = 0.8: a greater score is better) names it'),
    ]),
    ('The worst SSIM was at least 0.9918.', [
        ('FAIL', 'claim-mismatch', 'states at least 0.9918, but the wording (worst; gate.quality.ssim.min = 0.97: a greater score is better) names quality.ssim.min, which is 0.991703 (lowest recorded ssim (c01 of 14))'),
    ]),
    ('The closest audio cosine was 0.977337.', [
        ('PASS', 'recorded-score', '0.977337 holds for quality.audio_cosine.min = 0.977337 (lowest recorded audio_cosine (c03 of 14)): the wording (closest) names the lowest or the highest recorded score, and nothing says which; this is the lowest'),
    ]),
    ('The closest SSIM was 0.991729.', [
        ('FAIL', 'claim-mismatch', 'states 0.991729, but the wording (closest) names the lowest or the highest recorded score, and nothing says which, and it is neither: quality.ssim.min = 0.991703 (lowest recorded ssim (c01 of 14)) and quality.ssim.max = 1 (highest recorded ssim (c11 of 14))'),
    ]),
]
NO_LEVELS = [
    ('B1 took 107.00 s.', [
        ('UNVERIFIED', 'unbound-claim', "107.00 s is not bound: the subject ('B1') leaves 18 derivations that disagree (server_mean_s.B1 = 106.66; request.B1-w1.elapsed_s = 133.32; request.B1-w2.elapsed_s = 136.32; request.B1-m1.elapsed_s = 105.46; request.B1-m2.elapsed_s = 106.66; request.B1-m3.elapsed_s = 107.86; and 12 more)"),
    ]),
    ('B1 took 105.46 s.', [
        ('UNVERIFIED', 'unbound-claim', "105.46 s is not bound: the subject ('B1') leaves 18 derivations that disagree (server_mean_s.B1 = 106.66; request.B1-w1.elapsed_s = 133.32; request.B1-w2.elapsed_s = 136.32; request.B1-m1.elapsed_s = 105.46; request.B1-m2.elapsed_s = 106.66; request.B1-m3.elapsed_s = 107.86; and 12 more)"),
    ]),
    ('The fastest request took 105.46 s.', [
        ('UNVERIFIED', 'unchecked-claim', "105.46 s is not accounted for: the wording ('fastest') names no value the evidence derives"),
    ]),
    # a server mean is no fastest request: before the extreme words narrowed the wording, this PASSed against server_mean_s.B1
    ('The fastest request took 106.66 s.', [
        ('UNVERIFIED', 'unchecked-claim', "106.66 s is not accounted for: the wording ('fastest') names no value the evidence derives"),
    ]),
    ('The slowest B1 request took 106.66 s.', [
        ('UNVERIFIED', 'unchecked-claim', "106.66 s is not accounted for: the wording ('B1', 'slowest') names no value the evidence derives"),
    ]),
]
HEADLINE = [
    ('12 % lower', [
        ('FAIL', 'claim-mismatch', 'states 12 % ("X % lower / less time / reduction" = (1 - candidate/baseline) x 100), but the evidence gives 73.45 % (delta -61.45 %, tolerance 0.5 %; arm_mean_s: baseline 407.27 s, candidate 108.12 s)'),
    ]),
    ('73.45 % lower', [
        ('PASS', 'bound', '73.45 % ("X % lower / less time / reduction" = (1 - candidate/baseline) x 100) re-derives: 73.452500798 from arm_mean_s: baseline 407.27 s, candidate 108.12 s'),
    ]),
]


@pytest.mark.parametrize(("text", "expected"), ON_EXAMPLE, ids=[t for t, _ in ON_EXAMPLE])
def test_each_sentence_on_the_example_binds_as_pinned(text, expected, example):
    """Kills the mutants of every branch these sentences take (see the module docstring); each message is pinned whole."""
    evidence, pairs, keys, levels = example
    assert _run(text, evidence, pairs, keys, levels) == expected


@pytest.mark.parametrize(("text", "expected"), NO_LEVELS + [(f"{t} (headline)", o) for t, o in HEADLINE], ids=lambda x: x if isinstance(x, str) else "")
def test_without_subject_levels_and_in_a_headline(text, expected, example):
    """Kills `levels or {}` / `if levels and not q.role` flips (the profile path passes none) and the headline tie of `_pair_for`."""
    evidence, pairs, keys, levels = example
    headline = text.endswith(" (headline)")
    source = "claims.json#/headline" if headline else "pr.md"
    assert _run(text.removesuffix(" (headline)"), evidence, pairs, keys, None, source) == expected


@pytest.mark.parametrize(("text", "unit", "expected"), [
    ("the lowest latency", "s", ("lowest", {"min"})), ("minimum of b1", None, ("minimum", {"min"})),
    ("its shortest run", "ms", ("shortest", {"min"})), ("smallest batch", None, ("smallest", {"min"})),
    ("the highest rate", "req/s", ("highest", {"max"})), ("the longest request", "s", ("longest", {"max"})),
    ("max memory", "GiB", ("max", {"max"})), ("maximum", None, ("maximum", {"max"})), ("largest", None, ("largest", {"max"})),
    ("the fastest request", "s", ("fastest", {"min"})), ("the quickest run", "ms", ("quickest", {"min"})),
    ("the slowest request", "s", ("slowest", {"max"})),
    ("the fastest server", "req/s", ("fastest", {"max"})), ("the slowest server", "tok/s", ("slowest", {"min"})),
    ("the fastest server", None, ("fastest", {"min", "max"})), ("the slowest one", "GiB", ("slowest", {"min", "max"})),
    ("the fastest, then the highest", "s", ("fastest", {"min"})), ("highest, not the fastest", "s", ("highest", {"max"})),
    ("the mean latency", "s", None), ("steadfastest minimal maxima", "s", None),
])
def test_the_extreme_a_word_names_depends_on_the_unit_for_speed_words(text, unit, expected):
    from verifier.prose.wording import extreme

    found = extreme(text, unit)
    assert (None if found is None else (found[0], set(found[1]))) == expected


def test_a_bare_number_near_an_arm_with_one_value_says_one_value():
    """A bare number named only by its arm, whose one value differs: unchecked, worded in the singular (was "leaves 1 values")."""
    from verifier.prose.binding import Evidence, bind
    from verifier.readers.claimtext import extract

    e = [Evidence("x.alpha", Decimal(3), None, "derived", "d", statistic="mean", keys=frozenset({"alpha"}))]
    assert [(o.status, o.code, o.message) for o in bind(extract("Alpha ran 7.", "pr.md"), e, [], {"alpha": "alpha"})] == [
        ("UNVERIFIED", "unchecked-claim", "7 is not accounted for: the wording ('alpha') leaves one value (x.alpha), which is not 7")]


@pytest.mark.parametrize(("servers", "tail"), [
    (7, "n.s1 = 1; n.s2 = 2; n.s3 = 3; n.s4 = 4; n.s5 = 5; n.s6 = 6; and 1 more"),
    (6, "n.s1 = 1; n.s2 = 2; n.s3 = 3; n.s4 = 4; n.s5 = 5; n.s6 = 6"),
])
def test_a_count_naming_no_server_lists_at_most_six_counts_per_server(servers, tail):
    """Kills `:272`'s `top[:6]`, `len(top) - 6` and `> 6` -> `>= 6` mutants: six counts are listed, the rest counted."""
    from verifier.prose.binding import Evidence, bind
    from verifier.readers.claimtext import extract

    counts = [Evidence(f"n.s{i}", Decimal(i), None, "derived", "count", statistic="count", keys=frozenset({f"s{i}"}),
                       nouns=r"^(?:[a-z-]+\s+)?requests\b") for i in range(1, servers + 1)]
    (o,) = bind(extract("We ran 99 requests.", "pr.md"), counts, [], {f"s{i}": f"s{i}" for i in range(1, servers + 1)})
    assert (o.status, o.code) == ("UNVERIFIED", "unbound-claim")
    assert o.message == ("99 requests is not bound: its words name no arm or server and no 'per server' or 'each arm', and the "
                         f"evidence counts per arm or server only ({tail})")
    assert o.extra["candidates"] == ", ".join(f"n.s{i}" for i in range(1, servers + 1))


def _counts(*pairs):
    from verifier.prose.binding import Evidence

    return [Evidence(name, Decimal(v), None, "derived", "count", statistic="count", keys=frozenset(k), nouns=r"^(?:[a-z-]+\s+)?requests\b")
            for name, v, k in pairs]


@pytest.mark.parametrize(("text", "counts", "expected"), [
    # a count over all arms, an arm named before the number: that arm's count is not derived (`:266` `not keyed` flips, `found[1]`)
    ("Alpha handled 2 requests.", [("n", 4, ())],
     ("UNVERIFIED", "unchecked-claim", "2 requests is not accounted for: the wording names 'alpha', and the evidence counts no requests for it")),
    ("Alpha handled 4 requests.", [("n", 4, ())],
     ("UNVERIFIED", "unchecked-claim", "4 requests is not accounted for: the wording names 'alpha', and the evidence counts no requests for it")),
    # the arms listed after the number name what the total covers: the campaign count (`:266` `re.search` on the words before)
    ("The campaign ran 4 requests (alpha and beta).", [("n", 4, ())], ("PASS", "bound", "4 requests is n = 4 requests (count)")),
    # one count of one arm and no arm named: that one count (`:270` `len(top) > 1` -> `>= 1` / `> 0`)
    ("We ran 3 requests.", [("n.alpha", 3, ("alpha",))], ("PASS", "bound", "3 requests is n.alpha = 3 requests (count)")),
])
def test_a_count_and_the_arm_its_words_name(text, counts, expected):
    from verifier.prose.binding import bind
    from verifier.readers.claimtext import extract

    (o,) = bind(extract(text, "pr.md"), _counts(*counts), [], {"alpha": "alpha", "beta": "beta"})
    assert (o.status, o.code, o.message) == expected


# "worst"/"best"/"closest" of a recorded score (h36h): bound to an extreme only, the one the gate's direction gives when it does.
def _scores(text: str, gate: bool) -> list[tuple[str, str, str]]:
    """Bind `text` to recorded LPIPS 0.10 / mean 0.20 / 0.30 and SSIM 0.95 / mean 0.99 / 0.999, with `gate` the thresholds LPIPS <= 0.20, SSIM >= 0.97."""
    values = {"lpips": (("min", "0.10"), ("mean", "0.20"), ("max", "0.30")), "ssim": (("min", "0.95"), ("mean", "0.99"), ("max", "0.999"))}
    recorded = [Evidence(f"quality.{m}.{s}", Decimal(v), None, "recorded", f"d {m} {s}", statistic=s, topics=frozenset({m}))
                for m, pairs in values.items() for s, v in pairs]
    if gate:
        recorded += [Evidence("gate.quality.lpips.max", Decimal("0.20"), None, "gate", "g lpips max", statistic="threshold", topics=frozenset({"lpips"})),
                     Evidence("gate.quality.ssim.min", Decimal("0.97"), None, "gate", "g ssim min", statistic="threshold", topics=frozenset({"ssim"}))]
    return _run(text, recorded)


_NEITHER = "the wording ({w}) names the lowest or the highest recorded score, and nothing says which, and it is neither: "
_SSIM_ENDS = "quality.ssim.min = 0.95 (d ssim min) and quality.ssim.max = 0.999 (d ssim max)"
_LPIPS_ENDS = "quality.lpips.min = 0.10 (d lpips min) and quality.lpips.max = 0.30 (d lpips max)"


@pytest.mark.parametrize(("text", "gate", "expected"), [
    # recorded SSIM 0.95 / mean 0.99 / 0.999, LPIPS 0.10 / mean 0.20 / 0.30: a direction word never binds the mean
    ("The worst SSIM was 0.99.", False, ("FAIL", "claim-mismatch", "states 0.99, but " + _NEITHER.format(w="worst") + _SSIM_ENDS)),
    ("The worst LPIPS was 0.20.", False, ("FAIL", "claim-mismatch", "states 0.20, but " + _NEITHER.format(w="worst") + _LPIPS_ENDS)),
    ("The best SSIM was 0.99.", False, ("FAIL", "claim-mismatch", "states 0.99, but " + _NEITHER.format(w="best") + _SSIM_ENDS)),
    ("The closest LPIPS was 0.20.", True, ("FAIL", "claim-mismatch", "states 0.20, but " + _NEITHER.format(w="closest") + _LPIPS_ENDS)),
    ("The worst LPIPS was 0.10.", False, ("PASS", "recorded-score", "0.10 holds for quality.lpips.min = 0.10 (d lpips min): the wording (worst) names "
                                                                    "the lowest or the highest recorded score, and nothing says which; this is the lowest")),
    ("The closest SSIM was 0.95.", True, ("PASS", "recorded-score", "0.95 holds for quality.ssim.min = 0.95 (d ssim min): the wording (closest) names "
                                                                    "the lowest or the highest recorded score, and nothing says which; this is the lowest")),
    # with the gate (SSIM >= 0.97: the greater is better; LPIPS <= 0.20: the less), the one end it gives
    ("The worst SSIM was 0.99.", True, ("FAIL", "claim-mismatch", "states 0.99, but the wording (worst; gate.quality.ssim.min = 0.97: a greater score "
                                                                  "is better) says it is quality.ssim.min, which the evidence gives as 0.95 (delta 0.04, tolerance 0.005; d ssim min)")),
    ("The worst SSIM was 0.999.", True, ("FAIL", "claim-mismatch", "states 0.999, but the wording (worst; gate.quality.ssim.min = 0.97: a greater score "
                                                                   "is better) says it is quality.ssim.min, which the evidence gives as 0.95 (delta 0.049, tolerance 0.0005; d ssim min)")),
    ("The worst LPIPS was 0.30.", True, ("PASS", "recorded-score", "0.30 is quality.lpips.max = 0.30 (d lpips max); the wording (worst; "
                                                                   "gate.quality.lpips.max = 0.20: a less score is better) names it")),
    ("The worst LPIPS was 0.10.", True, ("FAIL", "claim-mismatch", "states 0.10, but the wording (worst; gate.quality.lpips.max = 0.20: a less score is "
                                                                   "better) says it is quality.lpips.max, which the evidence gives as 0.30 (delta -0.20, tolerance 0.005; d lpips max)")),
    ("The best SSIM was 0.999.", True, ("PASS", "recorded-score", "0.999 is quality.ssim.max = 0.999 (d ssim max); the wording (best; "
                                                                  "gate.quality.ssim.min = 0.97: a greater score is better) names it")),
    ("The best SSIM was 0.95.", True, ("FAIL", "claim-mismatch", "states 0.95, but the wording (best; gate.quality.ssim.min = 0.97: a greater score is "
                                                                 "better) says it is quality.ssim.max, which the evidence gives as 0.999 (delta -0.049, tolerance 0.005; d ssim max)")),
    ("The best LPIPS was 0.10.", True, ("PASS", "recorded-score", "0.10 is quality.lpips.min = 0.10 (d lpips min); the wording (best; "
                                                                  "gate.quality.lpips.max = 0.20: a less score is better) names it")),
    # a bound: on either end with no gate (it holds for one), on the one end with it
    ("The worst SSIM was at least 0.96.", False, ("PASS", "recorded-score", "at least 0.96 holds for quality.ssim.max = 0.999 (d ssim max): the wording "
                                                                            "(worst) names the lowest or the highest recorded score, and nothing says which; this is the highest")),
    ("The worst SSIM was above 0.9995.", False, ("FAIL", "claim-mismatch", "states above 0.9995, but " + _NEITHER.format(w="worst") + _SSIM_ENDS)),
    ("The worst SSIM was at least 0.96.", True, ("FAIL", "claim-mismatch", "states at least 0.96, but the wording (worst; gate.quality.ssim.min = 0.97: a "
                                                                           "greater score is better) names quality.ssim.min, which is 0.95 (d ssim min)")),
    # "fastest" names a clip or a run, no score: any recorded score (the mean here)
    ("On the fastest clip SSIM was 0.99.", True, ("PASS", "recorded-score", "0.99 is quality.ssim.mean = 0.99 (d ssim mean)")),
])
def test_a_direction_word_binds_a_recorded_score_to_an_extreme_only(text, gate, expected):
    assert _scores(text, gate) == [expected]


def test_a_gate_bounding_a_score_on_both_sides_or_another_metric_gives_no_direction():
    """`_better_end`: one side of one metric's thresholds only (an SSIM floor says nothing of LPIPS; a range, nothing)."""
    ssim = [Evidence(f"quality.ssim.{s}", Decimal(v), None, "recorded", f"d {s}", statistic=s, topics=frozenset({"ssim"})) for s, v in (("min", "0.95"), ("max", "0.99"))]
    floor = Evidence("gate.quality.ssim.min", Decimal("0.9"), None, "gate", "g", statistic="threshold", topics=frozenset({"ssim"}))
    ceiling = Evidence("gate.quality.ssim.max", Decimal("1"), None, "gate", "g", statistic="threshold", topics=frozenset({"ssim"}))
    other = Evidence("gate.quality.lpips.min", Decimal("0.9"), None, "gate", "g", statistic="threshold", topics=frozenset({"lpips"}))
    count = Evidence("gate.quality.ssim.max", Decimal("5"), None, "gate", "g", statistic="count", topics=frozenset({"ssim"}))
    recorded = Evidence("quality.ssim.c1", Decimal("0.97"), None, "recorded", "r", statistic="threshold", topics=frozenset({"ssim"}))

    def status(extra: list[Evidence]) -> str:
        (o,) = bind(extract("The best SSIM was 0.95.", "pr.md"), ssim + extra, [], {})
        return o.status
    assert [status(x) for x in ([floor], [floor, ceiling], [ceiling, floor], [other], [floor, count], [floor, recorded], [count, ceiling])] == \
        ["FAIL", "PASS", "PASS", "PASS", "FAIL", "FAIL", "PASS"]


@pytest.mark.parametrize(("text", "gate", "expected"), [
    # (evidence, derived, tolerance, formula): the end it holds for; FAIL: the lowest, at the stated precision (a bound: exactly)
    ("The worst SSIM was 0.99.", False, ("quality.ssim.min", Decimal("0.95"), Decimal("0.005"), "d ssim min")),
    ("The worst SSIM was above 0.9995.", False, ("quality.ssim.min", Decimal("0.95"), Decimal(0), "d ssim min")),
    ("The worst SSIM was 0.999.", False, ("quality.ssim.max", Decimal("0.999"), Decimal("0.0005"), "d ssim max")),
    ("The worst SSIM was at least 0.96.", False, ("quality.ssim.max", Decimal("0.999"), Decimal(0), "d ssim max")),
    ("The worst SSIM was above 0.95.", False, ("quality.ssim.max", Decimal("0.999"), Decimal(0), "d ssim max")),  # strict: not the lowest
    ("The worst SSIM was 0.95.", True, ("quality.ssim.min", Decimal("0.95"), Decimal("0.005"), "d ssim min")),
])
def test_a_direction_word_outcome_carries_the_end_its_value_and_tolerance(text, gate, expected):
    """Kills, in `_either_end`, `_holds(q, ends[0])` -> `ends[1]`, the FAIL's `ends[0]` -> `ends[1]` (name, formula), its tolerance (`not bound`, 0 -> 1), a bound's side and tolerance."""
    values = {"ssim": (("min", "0.95"), ("mean", "0.99"), ("max", "0.999"))}
    recorded = [Evidence(f"quality.{m}.{s}", Decimal(v), None, "recorded", f"d {m} {s}", statistic=s, topics=frozenset({m}))
                for m, pairs in values.items() for s, v in pairs]
    if gate:
        recorded.append(Evidence("gate.quality.ssim.min", Decimal("0.97"), None, "gate", "g", statistic="threshold", topics=frozenset({"ssim"})))
    (o,) = bind(extract(text, "pr.md"), recorded, [], {})
    assert (o.evidence, o.derived, o.tolerance, o.formula) == expected


def test_a_threshold_named_without_a_side_gives_no_direction_and_never_raises():
    """Kills `e.name.rsplit(".", 1)[-1]` -> `[+1]` in `_better_end`: a name with no dot has one piece (the gate's names always have a side)."""
    ssim = [Evidence(f"quality.ssim.{s}", Decimal(v), None, "recorded", f"d {s}", statistic=s, topics=frozenset({"ssim"})) for s, v in (("min", "0.95"), ("max", "0.99"))]
    odd = Evidence("floor", Decimal("0.9"), None, "gate", "g", statistic="threshold", topics=frozenset({"ssim"}))
    assert [o.status for o in bind(extract("The best SSIM was 0.95.", "pr.md"), ssim + [odd], [], {})] == ["PASS"]


def test_the_direction_is_said_with_the_first_threshold_giving_it():
    """Kills `gates[0]` -> `gates[-1]` in `_better_end`: two floors of one topic (an SSIM and an SSIM-Y gate), the first is named."""
    ssim = [Evidence(f"quality.ssim.{s}", Decimal(v), None, "recorded", f"d {s}", statistic=s, topics=frozenset({"ssim"})) for s, v in (("min", "0.95"), ("max", "0.99"))]
    floors = [Evidence(name, Decimal(v), None, "gate", "g", statistic="threshold", topics=frozenset({"ssim"}))
              for name, v in (("gate.quality.ssim.min", "0.97"), ("gate.quality.ssim_y.min", "0.9"))]
    assert _run("The worst SSIM was 0.95.", ssim + floors) == [
        ("PASS", "recorded-score", "0.95 is quality.ssim.min = 0.95 (d min); the wording (worst; gate.quality.ssim.min = 0.97: a greater score is better) names it")]
