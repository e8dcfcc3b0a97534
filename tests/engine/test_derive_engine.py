"""The one rule derivation (`verifier.engine.derive.derive_rule`): defined once, read by native and profile checks through a `Source`."""

import ast
from decimal import Decimal
from pathlib import Path

import pytest

from verifier.engine.derive import derive_rule
from verifier.engine.stats import Underivable

PACKAGE = Path(__file__).resolve().parent.parent.parent / "verifier"


def test_one_derive_rule_in_the_package():
    found = [f"{p.relative_to(PACKAGE)}:{node.lineno}" for p in PACKAGE.rglob("*.py") if "_assets" not in p.parts
             for node in ast.walk(ast.parse(p.read_text())) if isinstance(node, ast.FunctionDef) and node.name == "derive_rule"]
    assert found == ["engine/derive.py:" + found[0].split(":")[1]], found


def test_native_and_profile_checks_call_the_engine():
    from verifier.checks import derivation, profile_claims, statements

    assert derivation.derive_rule is statements.derive_rule is profile_claims.derive_rule is derive_rule


class _Fake:
    """A source of fixed values, recording which shape each rule asked for."""

    def __init__(self):
        self.asked = []
        self.basis = object()

    def label(self, selection):
        return ",".join(sorted(selection))

    def count(self, rule, selection):
        self.asked.append(("count", selection))
        return [1, 2, 3], "things"

    def values(self, selection, name):
        self.asked.append(("values", selection, name))
        return [Decimal(1), Decimal(3)], "values"

    def groups(self, selection, name):
        self.asked.append(("groups", selection))
        return {"s1": [Decimal(2)], "s2": [Decimal(4)]}, "groups"

    def arms(self, selection, name, baseline, candidate):
        self.asked.append(("arms", selection, baseline, candidate))
        return {baseline: {"s": [Decimal(4)]}, candidate: {"s": [Decimal(2)]}}, "arms"

    def sums(self, selection, numerator, denominator):
        self.asked.append(("sums", numerator, denominator))
        return [[Decimal(6)], [Decimal(3)]], "sums"


def test_each_statistic_asks_its_shape_with_the_instance_key_joined():
    fake = _Fake()
    assert derive_rule({"statistic": "count", "selection": {"phase": "measured"}}, fake, {"server": "s1"}).value == 3
    assert fake.asked[-1] == ("count", {"phase": "measured", "server": "s1"})
    assert derive_rule({"statistic": "mean", "value": "ttft"}, fake, {}).value == 2
    assert fake.asked[-1] == ("values", {}, "ttft")
    assert abs(derive_rule({"statistic": "sd_of_server_means"}, fake, {}).value - Decimal("1.41421356237309504880")) < Decimal("1e-20")
    assert derive_rule({"statistic": "speedup", "baseline": "{case}", "candidate": "c"}, fake, {"case": "b"}).value == 2
    assert fake.asked[-1] == ("arms", {"case": "b"}, "b", "c")
    assert derive_rule({"statistic": "ratio_of_sums", "numerator": "n", "denominator": "d"}, fake, {}).value == 2


def test_the_memo_derives_a_rule_once_per_basis_and_key_and_keeps_its_refusal():
    fake, memo = _Fake(), {}
    rule = {"statistic": "mean", "id": "a"}
    twin = {"statistic": "mean", "id": "b", "at": "x"}
    assert derive_rule(rule, fake, {}, memo) == derive_rule(twin, fake, {}, memo)
    assert len(fake.asked) == 1
    derive_rule(rule, fake, {"server": "s"}, memo)
    assert len(fake.asked) == 2

    class Empty(_Fake):
        def values(self, selection, name):
            self.asked.append("values")
            raise Underivable("none", "empty-selection")

    empty = Empty()
    for _ in range(2):
        with pytest.raises(Underivable):
            derive_rule(rule, empty, {}, memo)
    assert empty.asked == ["values"]
