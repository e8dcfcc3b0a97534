"""
Tests that kill surviving mutants of `verifier/checks/profile_base.py` (issue 14): the selection join `joined`.

A join reads, from the one record of a receipt set whose `on` dimensions
equal the instance key, the value at `pointer` (split at `split`); no match,
two matches, or an absent value without `"absent": "all"` is UNVERIFIED
(`Underivable(..., fail=False)`, code `join-unresolved`). Unit level: a
`Context` holding two hand-made records, no bundle. Issue 42's cosmic-ray
survivors: a dropped `absent: all` join does not stop the joins after it;
the receipt sets and file names are built once per model, the same list
returned, and rebuilt when the model is replaced; `_one_site` falls back to
a `missing` site; `never_stated` at each of its conditions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from verifier.checks.profile_base import _all_records, _one_site, _profile, _records, _tree, exists, joined, never_stated
from verifier.engine.pipeline import Context, RunData
from verifier.model.evidence import Evidence, FileEntry, Location, Receipt, Site
from helpers import profile_evidence, profile_receipt
from verifier.engine.stats import Underivable


def _ctx(*records: Receipt) -> Context:
    return Context(subject=Path("."), assets=None, options={"profile": {"id": "p"}}, run=RunData(**profile_evidence(jobs=list(records))))


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


# --- issue 42, cosmic-ray run of record -------------------------------------------------------------------------------

def test_a_join_dropped_by_absent_all_does_not_stop_the_joins_after_it():
    """Kills `:148` `continue` -> `break` (the second join, `node`, would stay an unresolved dict in the selection)."""
    rule = {"id": "r", "selection": {"gpu": {"receipts": "jobs", "pointer": "/gpus", "on": ["job"], "absent": "all"},
                                     "node": {"receipts": "jobs", "pointer": "/node", "on": ["job"]}}}
    ctx = _ctx(profile_receipt("jobs.json", "/a", {"job": "a", "node": "n7"}, dims={"job": "a"}))
    assert joined(ctx, rule, {"job": "a"})["selection"] == {"node": ["n7"]}


def test_read_receipts_are_one_list_per_model_and_rebuilt_for_a_new_model():
    """
    Kills `:55` `cached[0]` -> `cached[1]`, `cached[-1]` (a new list on every call, not the same one its docstring
    promises) and `is not model` -> `is model` (a replaced model would still answer with the old one's receipts).
    """
    ctx = _ctx(_job("a", "0"))
    first = _records(ctx, "jobs")
    assert _records(ctx, "jobs") is first and [r.dims for r in first] == [{"job": "a"}]
    ctx.run.evidence = profile_evidence(jobs=[_job("b", "1"), _job("c", "2")])["evidence"]
    assert [r.dims for r in _records(ctx, "jobs")] == [{"job": "b"}, {"job": "c"}]
    assert [r.dims for r in _all_records(ctx, "jobs")] == [{"job": "b"}, {"job": "c"}]


def test_exists_answers_for_the_model_it_is_asked_with():
    """Kills `:84` `is not model` -> `is model` (after the model is replaced, its files would be the old model's)."""
    ctx = Context(subject=Path("."), assets=None, run=RunData(evidence=Evidence(reader="profile:test", files=(FileEntry("a.json", 1, None),))))
    assert exists(ctx, "a.json") and not exists(ctx, "b.json")
    ctx.run.evidence = Evidence(reader="profile:test", files=(FileEntry("b.json", 1, None),))
    assert exists(ctx, "b.json") and not exists(ctx, "a.json")


def test_one_site_is_the_readers_site_else_a_missing_one():
    """Kills `:105` `found[0] if found` -> `if not found` (an IndexError without a site, a `missing` site with one)."""
    site = Site("/claims/0", "named", (), Location("summary.json", "/winner"), value="x")
    ctx = Context(subject=Path("."), assets=None, run=RunData(evidence=Evidence(reader="profile:test", sites=(site,))))
    assert _one_site(ctx, "/claims/0", "named") is site
    assert _one_site(ctx, "/claims/1", "named") == Site("/claims/1", "named", (), Location(""), problem="missing",
                                                        detail="the reader recorded no such place")


def test_never_stated_needs_a_named_value_a_read_receipt_and_no_receipt_stating_it():
    """
    Kills `:164` `unread is None` -> `is not None`, and `:165` `value is not None` -> `is None`, each `and` -> `or`,
    and `not any(...)` -> `any(...)`.
    """
    stating = profile_receipt("r.json", "/0", dims={}, bytes=5)
    silent = profile_receipt("r.json", "/1", dims={})
    unread = profile_receipt("r.json", "/2", dims={}, unread="blocked")
    rule = {"id": "r", "value": "bytes"}
    assert never_stated(rule, [silent, unread]) is True  # read, and none states bytes
    assert never_stated(rule, [silent, stating]) is False  # one states it
    assert never_stated(rule, [unread]) is False  # nothing read: unknown, not never
    assert never_stated({"id": "n"}, [silent]) is False  # a count names no value
    assert never_stated({"id": "n"}, []) is False
