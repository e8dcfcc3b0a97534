"""
A caller's decimal context does not change what `verify` derives or decides.

`decimal` arithmetic rounds to the calling thread's context; a host program
that set `decimal.getcontext().prec = 3` made the hyperfine corpus FAIL (its
means derived as `2.35` instead of `2.34611163914`). Every check now runs in
`verifier.engine.stats.RUN_CONTEXT` (`verifier.engine.pipeline.run_pipeline`).
"""

from __future__ import annotations

import decimal

import pytest
from conftest import CORPUS

from verifier.core import verify_path


def _findings(path: str) -> list[tuple[str, str, str, str]]:
    return [(f.check, str(f.status), f.code, f.message) for f in verify_path(path).findings]


@pytest.mark.parametrize("name", ["hyperfine-3em", "mlperf-inference-test-submissions-v5.0", "vllm-omni-rankings-fasth3-vae-int8"])
def test_a_coarse_caller_context_changes_nothing(name):
    path = str(CORPUS / name)
    expected = _findings(path)
    with decimal.localcontext(decimal.Context(prec=3, rounding=decimal.ROUND_DOWN, traps=[])):
        assert _findings(path) == expected
        assert decimal.getcontext().prec == 3  # and the caller's context is theirs again afterwards
