"""
Tests that kill surviving mutants of `verifier/checks/profile_base.py` (issue 14): the selection join `joined`.

A join reads, from the one record of a receipt set whose `on` dimensions
equal the instance key, the value at `pointer` (split at `split`); no match,
two matches, or an absent value without `"absent": "all"` is UNVERIFIED
(`Underivable(..., fail=False)`, code `join-unresolved`). Unit level: a
`Context` holding two hand-made records, no bundle.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from verifier.checks.profile_base import _all_records, _profile, _records, _tree, joined
from verifier.pipeline import Context
from verifier.evidence import Receipt
from helpers import profile_evidence, profile_receipt
from verifier.stats import Underivable


def _ctx(*records: Receipt) -> Context:
    return Context(subject=Path("."), assets=None, options={"profile": {"id": "p"}}, data=profile_evidence(jobs=list(records)))


def _job(job: str, gpus: Any, unread: str | None = None) -> Receipt:
    raw = {"job": job} if gpus is None else {"job": job, "gpus": gpus}
    return profile_receipt("jobs.json", f"/{job}", raw, dims={"job": job}, unread=unread)


def _rule(**join: Any) -> dict[str, Any]:
    return {"id": "r", "selection": {"phase": "measured",
                                     "gpu": {"receipts": "jobs", "pointer": "/gpus", "on": ["job"], **join}}}


def test_join_reads_the_one_matching_record_and_keeps_plain_selections():
    ctx = _ctx(_job("a", "0, 1"), _job("b", "2,3"))
    rule = _rule(split=",")
    assert joined(ctx, rule, {"job": "a"})["selection"] == {"phase": "measured", "gpu": ["0", "1"]}
    assert joined(ctx, rule, {"job": "b"})["selection"] == {"phase": "measured", "gpu": ["2", "3"]}
    assert joined(ctx, _rule(), {"job": "b"})["selection"]["gpu"] == ["2,3"]  # no `split`: one value
    assert rule["selection"]["gpu"]["receipts"] == "jobs"  # the rule itself is not modified
    assert joined(ctx, _rule(), {"job": "a"})["id"] == "r"


def test_join_without_an_on_dimension_in_the_key_sees_every_record():
    ctx = _ctx(_job("a", "0"))
    assert joined(ctx, _rule(), {"other": "x"})["selection"]["gpu"] == ["0"]  # one record: it is the one
    with pytest.raises(Underivable):
        joined(_ctx(_job("a", "0"), _job("b", "1")), _rule(), {"other": "x"})  # two: ambiguous


@pytest.mark.parametrize("records,key", [((), {"job": "a"}), ((_job("a", "0"), _job("a", "1")), {"job": "a"}),
                                         ((_job("a", "0"),), {"job": "z"})], ids=["none", "two", "other-key"])
def test_join_matching_no_record_or_two_is_unverified(records, key):
    with pytest.raises(Underivable) as caught:
        joined(_ctx(*records), _rule(), key)
    assert caught.value.code == "join-unresolved" and caught.value.fail is False
    assert f"which {0 if key['job'] == 'z' or not records else 2} records match" in str(caught.value)


def test_join_ignores_unread_stand_ins():
    ctx = _ctx(_job("a", "0"), _job("a", None, unread="blocked"))
    assert joined(ctx, _rule(), {"job": "a"})["selection"]["gpu"] == ["0"]
    assert len(_all_records(ctx, "jobs")) == 2 and len(_records(ctx, "jobs")) == 1


@pytest.mark.parametrize("gpus", [None, {"nested": 1}], ids=["absent", "not-a-scalar"])
def test_join_to_an_absent_value_is_unverified_unless_absent_all(gpus):
    ctx = _ctx(_job("a", gpus))
    with pytest.raises(Underivable) as caught:
        joined(ctx, _rule(), {"job": "a"})
    assert caught.value.code == "join-unresolved" and caught.value.fail is False
    assert "jobs.json states no /gpus to select gpu by" in str(caught.value)
    assert joined(ctx, _rule(absent="all"), {"job": "a"})["selection"] == {"phase": "measured"}  # no restriction
    with pytest.raises(Underivable):
        joined(ctx, _rule(absent="none"), {"job": "a"})


def test_absent_all_keeps_a_present_value():
    assert joined(_ctx(_job("a", 7)), _rule(absent="all"), {"job": "a"})["selection"]["gpu"] == ["7"]


def test_the_accessors_return_what_the_run_holds():
    ctx = _ctx(_job("a", "0"))
    ctx.bundle = object()
    assert _profile(ctx) == {"id": "p"} and _tree(ctx) is ctx.bundle
    assert _records(Context(subject=Path("."), assets=None), "jobs") == []
