"""
Issue 42: tests that kill the mutants an independent mutation sample left alive.

Each test names the mutant it kills (the statement and what was done to it).
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import EXAMPLE

from verifier import stats
from verifier.binding import bind
from verifier.bundle import Bundle
from verifier.checks import derivation, gate, integrity, plan, schema, statements
from verifier.claimtext import extract
from verifier.pipeline import Context, run_pipeline
from verifier.trust import assets


@pytest.fixture(scope="module")
def example_evidence():
    """Return `(evidence, pairs, keys)` of the shipped example (the checks before `claims.stated` run first)."""
    ctx = Context(subject=EXAMPLE, assets=assets(), bundle=Bundle(root=EXAMPLE))
    run_pipeline((integrity.files, gate.pinned, schema.documents, plan.conformance, derivation.claims), ctx)
    return statements.collect(ctx)


# checks/statements.py `_finding`: `detail["delta"] = str(q.value - o.derived)` with the operands swapped
@pytest.mark.parametrize(("text", "delta"), [
    ("The candidate arm mean is 98.12 s.", "-10.00"),
    ("The candidate arm mean is 118.12 s.", "10.00"),
])
def test_the_delta_a_stated_number_finding_records_is_stated_minus_derived(text, delta, example_evidence):
    [outcome] = bind(extract(text, "pr.md"), *example_evidence)
    finding = statements._finding(outcome, None)
    assert finding.observed["claimed"] == text.split()[-2] and Decimal(finding.observed["derived"]) == Decimal("108.12")
    assert finding.observed["delta"] == delta  # stated - derived, as `stats.Comparison.delta` and every other claim finding


# stats.py `tolerance`, the confidence-interval branch: `work = EPS * total + per_input + (abs(stated) / k) * (2 * n * EPS + 4 * U)`
# with its last term dropped, a sign flipped, or a constant changed
@pytest.mark.parametrize("statistic", sorted(stats.CI_STATISTICS))
@pytest.mark.parametrize("scale", [1, 1000])
def test_the_ci_tolerance_is_the_means_bound_plus_the_half_widths_quotient_term(statistic, scale):
    xs = [Decimal("100.5"), Decimal("99.25"), Decimal("101")]
    stated = Decimal("3.123456789012345678901234") * scale  # enough places that half a unit of the last is negligible
    n, k = Decimal(3), Decimal(scale)
    mean_bound = stats.EPS * sum(xs) + stats.U * max(xs)
    quotient = (stated / k) * (2 * n * stats.EPS + 4 * stats.U)
    expected = stats.half_unit(stated) + (mean_bound + quotient) * k
    got = stats.tolerance(stated, statistic=statistic, values=xs, scale=scale)
    assert abs(got - expected) <= expected * Decimal("1e-20"), (got, expected)
    assert quotient * k > expected / 20  # the quotient term is a visible part of the bound, so dropping it is seen
