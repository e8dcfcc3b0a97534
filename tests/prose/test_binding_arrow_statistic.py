"""
Both ends of one arrow bind to the same pair: the statistic its own words name, else its partner's, else the sentence's (issue 42).

"Mean latency went from 407.27 s to 108.12 s; the SD shrank." was PASS for
407.27 s (its words say "mean") and FAIL for 108.12 s against the SD pair:
the end's own words name no statistic, and the sentence's first by
precedence is "SD", from another clause.
"""

from __future__ import annotations

import pytest
from conftest import EXAMPLE

from verifier.prose.binding import bind
from verifier.formats.bundle import Bundle
from verifier.checks import derivation, gate, integrity, plan, schema, statements
from verifier.readers.claimtext import extract
from verifier.engine.pipeline import Context, run_pipeline
from verifier.trust.assets import assets


@pytest.fixture(scope="module")
def example():
    ctx = Context(subject=EXAMPLE, assets=assets(), bundle=Bundle(root=EXAMPLE))
    run_pipeline((integrity.files, gate.pinned, schema.documents, plan.conformance, derivation.claims), ctx)
    return statements.collect_all(ctx)


def _judged(text: str, example) -> list[tuple[str, str | None]]:
    return [(o.status, o.evidence) for o in bind(extract(text, "pr.md"), *example)]


def test_the_end_of_an_arrow_takes_the_statistic_its_start_names(example):
    assert _judged("Mean latency went from 407.27 s to 108.12 s; the SD shrank.", example) == [
        ("PASS", "arm_mean_s.baseline"), ("PASS", "arm_mean_s.candidate")]


def test_the_start_of_an_arrow_takes_the_statistic_its_end_names(example):
    assert _judged("It went from 15.51 s to an SD of 2.06 s; the mean fell.", example) == [
        ("PASS", "sd_server_means_s.baseline"), ("PASS", "sd_server_means_s.candidate")]


def test_an_arrow_whose_ends_name_no_statistic_takes_the_sentences(example):
    assert _judged("Latency went from 15.51 s to 3 s; the SD shrank.", example) == [
        ("PASS", "sd_server_means_s.baseline"), ("FAIL", "sd_server_means_s.candidate")]
