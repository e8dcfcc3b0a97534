"""
Kill tests for `verifier/engine/derive.py` (issue 42): survivors of the cosmic-ray session `tools/cosmic-ray/derive.toml`.

`derive_rule` over a hand-made `Source`: `count` counts items and `count_ok`
their successes; `ratio` is candidate / baseline and `relative_change_pct`
(candidate - baseline) / baseline * 100; an `of` rule keeps the selection's
other dimensions; a memoised rule returns the derived value again.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest

from verifier.engine.derive import arm_name, derive_rule
from verifier.engine.stats import Underivable

D = Decimal


@dataclass
class Item:
    ok: bool


class StubSource:
    """Arm `a`: server means 10 and 20 (mean 15); arm `b`: 6; counts: three items, two ok. Records every selection asked for."""

    def __init__(self) -> None:
        self.basis = object()
        self.asked: list[dict[str, Any]] = []

    def label(self, selection):
        return ", ".join(f"{k}={v}" for k, v in sorted(selection.items()))

    def count(self, rule, selection):
        return [Item(True), Item(False), Item(True)], "items"

    def arms(self, selection, name, baseline, candidate):
        self.asked.append(dict(selection))
        data = {"a": {"s1": [D(10)], "s2": [D(20)]}, "b": {"s1": [D(6)]}}
        return {baseline: data[baseline], candidate: data[candidate]}, "values"

    def values(self, selection, name):
        self.asked.append(dict(selection))
        return {"a": [D(10), D(20)], "b": [D(6)]}[selection["arm"]], "values"


def test_count_counts_items_and_count_ok_their_successes():
    assert derive_rule({"statistic": "count"}, StubSource(), {}).value == 3
    assert derive_rule({"statistic": "count_ok"}, StubSource(), {}).value == 2


def test_ratio_is_candidate_over_baseline_and_relative_change_is_against_the_baseline():
    rule = {"baseline": "a", "candidate": "b"}
    assert derive_rule({**rule, "statistic": "ratio"}, StubSource(), {}).value == D("0.4")
    assert derive_rule({**rule, "statistic": "relative_change_pct"}, StubSource(), {}).value == D(-60)


def test_an_of_rule_keeps_every_selected_dimension_but_the_arm():
    source = StubSource()
    rule = {"statistic": "speedup", "baseline": "a", "candidate": "b", "of": {"statistic": "max"},
            "selection": {"arm": "z", "aa": "1", "phase": "measured"}}  # "aa" sorts before "arm", "phase" after
    derived = derive_rule(rule, source, {})
    assert str(derived.value).startswith("3.33333333333")  # max 20 of arm a over max 6 of arm b
    assert source.asked == [{"aa": "1", "phase": "measured", "arm": "a"}, {"aa": "1", "phase": "measured", "arm": "b"}]


def test_arm_name_takes_a_braced_dimension_from_the_key_and_anything_else_literally():
    assert arm_name("{case}", {"case": "bf16"}) == "bf16"
    assert arm_name("{case}", {}) == "{case}"
    assert arm_name("{case", {"case": "bf16"}) == "{case"
    assert arm_name("case}", {"case": "bf16"}) == "case}"
    assert arm_name("base", {"base": "x"}) == "base"


def test_a_memoised_rule_returns_its_derivation_and_its_refusal_again():
    memo: dict[Any, Any] = {}
    source = StubSource()
    first = derive_rule({"statistic": "count"}, source, {}, memo)
    assert first.value == 3 and derive_rule({"statistic": "count"}, source, {}, memo) is first
    bad = {"statistic": "max", "selection": {"arm": "c"}}

    class Empty(StubSource):
        def values(self, selection, name):
            raise Underivable("empty", "no values")

    empty = Empty()
    for _ in range(2):
        with pytest.raises(Underivable, match="empty"):
            derive_rule(bad, empty, {}, memo)


def test_statistic_names_read_from_a_file_select_the_same_branch():
    """Rule members come from JSON: equal to the code's names, not the same objects (`==`, never `is`)."""
    assert derive_rule({"statistic": "".join(["co", "unt"])}, StubSource(), {}).value == 3
    rule = {"baseline": "a", "candidate": "b", "statistic": "".join(["ra", "tio"])}
    assert derive_rule(rule, StubSource(), {}).value == D("0.4")


def test_not_derivable_says_why_a_statistic_is_refused():
    from verifier.engine.derive import CAMPAIGN_STATISTICS, not_derivable

    rules = [{"statistic": "max"}, {"statistic": "ratio"}]
    index, why = not_derivable(rules, CAMPAIGN_STATISTICS, "a native campaign")
    assert index == 1 and "takes two given numbers" in why
    index, why = not_derivable([{"statistic": "ratio_of_sums"}], CAMPAIGN_STATISTICS, "a native campaign")
    assert index == 0 and why.startswith("statistic 'ratio_of_sums' cannot be derived from a native campaign: the statistics it can give are count, ")
    assert not_derivable([{"statistic": "max"}, {"statistic": "nonsense"}], CAMPAIGN_STATISTICS, "x") is None


def test_ratio_and_relative_change_of_another_statistic_take_the_arms_in_their_order():
    """Kills `:158` `statistic == "ratio"` -> `!=` / `not`: max 6 (b) over max 20 (a) is 0.3, and b's max is 70 % below a's."""
    rule = {"baseline": "a", "candidate": "b", "of": {"statistic": "max"}}
    assert derive_rule({**rule, "statistic": "ratio"}, StubSource(), {}).value == D("0.3")
    assert derive_rule({**rule, "statistic": "relative_change_pct"}, StubSource(), {}).value == D(-70)


@pytest.mark.parametrize(("stated", "value", "unit"), [
    ("tok/s", "tokens_per_s", "tok/s"),    # the alternative of the stated unit's dimension replaces value and unit
    ("tok/ms", "tokens_per_s", "tok/s"),   # any unit of that dimension
    ("samples/s", "samples_per_s", "samples/s"),  # the claim's own dimension: the rule itself
    ("ms", "samples_per_s", "samples/s"),  # a dimension no alternative has: the rule itself
    ("furlongs", "samples_per_s", "samples/s"),  # a unit the registry does not know: the rule itself
    (None, "samples_per_s", "samples/s"),  # no stated unit: the rule itself
])
def test_a_value_by_unit_alternative_is_chosen_by_the_stated_units_dimension(stated, value, unit):
    """Kills `:197`-`:201`: every flip of the guard, the loop over nothing, and the dimension test (`for_stated_unit`)."""
    from verifier.engine.derive import for_stated_unit

    rule = {"statistic": "value", "value": "samples_per_s", "unit": "samples/s",
            "value_by_unit": [{"value": "tokens_per_s", "unit": "tok/s"}, {"value": "queries_per_s", "unit": "queries/s"}]}
    chosen = for_stated_unit(rule, stated)
    assert (chosen["value"], chosen["unit"]) == (value, unit)
    assert for_stated_unit({"statistic": "value", "value": "v", "unit": "s"}, "tok/s") == {"statistic": "value", "value": "v", "unit": "s"}


def test_claim_finding_takes_its_place_and_words_by_name():
    """Kills `:233` the `*` of `claim_finding` -> `/` (cosmic-ray run on 7daa449): name, pointer, label and how are keyword-only."""
    from decimal import Decimal

    from verifier.engine.derive import claim_finding

    with pytest.raises(TypeError):
        claim_finding("c", 1, Decimal(1), "r.json", "/a", "a", "the cases")  # type: ignore[misc]
    found = claim_finding("c", 1, Decimal(1), name="r.json", pointer="/a", label="a", how="the cases", exact=True)
    assert (found.status.value, found.code, found.message) == ("PASS", "derived", "a = 1 re-derives (1) from the cases")
