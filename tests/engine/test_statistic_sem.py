"""The `sem` statistic (standard error of the mean, sample SD (n-1) / sqrt(n)): lm-evaluation-harness's `mean_stderr`, checked on a real stated pair."""

from __future__ import annotations

from decimal import Decimal

import pytest

from verifier.engine import stats
from verifier.engine.stats import Underivable

#: `tests/models/results_deleteme/.../results_2025-01-21T00-40-03.356274.json` in EleutherAI/lm-evaluation-harness
#: (commit 7be00f3b3bfb51237dcb723f75d28802649f001a): mmlu_abstract_algebra, `n-samples.effective` 100,
#: `acc,none` 0.34 and `acc_stderr,none` 0.047609522856952344. A binary acc over 100 documents at 0.34 is 34 ones.
STATED_ACC, STATED_STDERR, N = Decimal("0.34"), Decimal("0.047609522856952344"), 100


def _accs() -> list[Decimal]:
    ones = int(STATED_ACC * N)
    return [Decimal(1)] * ones + [Decimal(0)] * (N - ones)


def test_sem_is_the_sample_sd_over_root_n_and_reproduces_lm_evals_stated_stderr():
    derived = stats.derive("sem", _accs())
    assert derived.value == stats.CONTEXT.divide(stats.sample_sd(_accs()), Decimal(N).sqrt(stats.CONTEXT))
    assert abs(derived.value - STATED_STDERR) <= stats.tolerance(STATED_STDERR, statistic="sem", values=_accs())
    assert "sample SD (n-1) / sqrt(n)" in derived.text
    assert stats.derive("mean", _accs()).value == STATED_ACC


def test_the_population_sd_over_root_n_is_not_lm_evals_stderr():
    population = stats.population_sd(_accs()) / Decimal(N).sqrt(stats.CONTEXT)  # sqrt(p(1-p)/n) = 0.04737, not the stated 0.04761
    assert abs(population - STATED_STDERR) > stats.tolerance(STATED_STDERR, statistic="sem", values=_accs())


def test_sem_of_one_value_is_underivable_not_zero():
    with pytest.raises(Underivable):
        stats.derive("sem", [Decimal(1)])


def test_a_stderr_lm_eval_computed_in_binary64_over_mmlus_14042_documents_is_within_tolerance():
    # lm-eval computes mean_stderr in floats (mean, then the sum of squared deviations, / (n-1), sqrt, / sqrt(n)):
    # over 14042 binary values its result lies ~6e-16 from the exact one, beyond the inputs' half-ulp bound alone
    import math
    import random

    values = [1.0] * 6001 + [0.0] * 8041
    random.Random(1).shuffle(values)
    mu = sum(values) / len(values)
    stated = Decimal(repr(math.sqrt(sum((x - mu) ** 2 for x in values) / (len(values) - 1)) / math.sqrt(len(values))))
    xs = [Decimal(repr(x)) for x in values]
    off = abs(stats.derive("sem", xs).value - stated)
    assert off > Decimal(2) ** -53 and off <= stats.tolerance(stated, statistic="sem", values=xs)
