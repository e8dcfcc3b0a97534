"""
Tests that kill surviving mutants of `verifier/profiles.py` (issue 14): each cross-reference rule of `load_profile`.

Every rule beyond the profile schema is broken once in a shipped profile
(which loads as shipped), and must be refused with `ConfigError` naming the
JSON pointer of the offending member; a profile that keeps the rule loads.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

import pytest
from conftest import ROOT, profile_document

from verifier.errors import ConfigError
from verifier.profiles import load_profile
from verifier.trust import Assets


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return Assets(ROOT).schema("profile")


def _broken(profile_id: str, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    doc = copy.deepcopy(profile_document(profile_id))
    change(doc)
    return doc


def _claim(doc: dict[str, Any], claim_id: str) -> dict[str, Any]:
    return next(c for c in doc["claims"] if c["id"] == claim_id)


CASES = [
    ("hyperfine", lambda d: d["receipts"]["runs"].pop("unnest") and d["receipts"]["runs"]["fields"].pop("outcome"),
     "/receipts/runs/fields/latency", "`element` needs an `unnest`"),
    ("hyperfine", lambda d: d["receipts"]["runs"]["unnest"]["parallel"].clear(),
     "/receipts/runs/fields/outcome", "is not declared in `unnest.parallel`"),
    ("hyperfine", lambda d: d["receipts"]["runs"].pop("ok_outcomes"),
     "/receipts/runs/fields/outcome", "`ok_outcomes`"),
    ("system1-omni-gdn", lambda d: d["receipts"]["e2e"]["no_overlap"].append("gpu"),
     "/receipts/e2e/no_overlap", "'gpu' is not a dimension"),
    ("system1-omni-gdn", lambda d: d["receipts"]["e2e"]["fields"].pop("start") and d["receipts"]["e2e"]["fields"].pop("end"),
     "/receipts/e2e/no_overlap", "needs `start` and `end`"),
    ("vllm-omni-rankings-study", lambda d: _claim(d, "prose.highest-mean-speedup")["per"].append("task"),
     "/per", "exactly one `per` dimension"),
    ("vllm-omni-rankings-study", lambda d: _claim(d, "prose.highest-mean-speedup")["at"].update(pointer="/prose/{arm}"),
     "/at", "location placeholder {arm}"),
    ("system1-omni-gdn", lambda d: d["claims"][0]["at"].update(pointer=d["claims"][0]["at"]["pointer"] + "/{phase}"),
     "/claims/0/at", "location placeholder {phase}"),
    ("system1-omni-gdn", lambda d: d["gate"]["rules"][1]["per"].append("arm"),
     "/gate/rules/1/below_baseline", "`arm` cannot also be in `per` or `selection`"),
    ("system1-omni-gdn", lambda d: d["gate"]["rules"][1]["selection"].update(arm="baseline"),
     "/gate/rules/1/below_baseline", "`arm` cannot also be in `per` or `selection`"),
    ("system1-omni-gdn", lambda d: d["claims"][0].update(value="tokens_per_s"),
     "/claims/0/value", "is not declared in receipts.e2e.values"),
    ("system1-omni-gdn", lambda d: d["claims"][0].update(unit="MiB"),
     "/claims/0/unit", "is not of the dimension"),
    ("system1-omni-gdn", lambda d: d["receipts"]["e2e"]["fields"].pop("arm") and d["receipts"]["e2e"]["no_overlap"].remove("arm"),
     "/claims/0/per", "'arm' is not a dimension of receipt set 'e2e'"),
]


@pytest.mark.parametrize("profile_id,change,pointer,says", CASES, ids=[f"{c[0]}:{c[3][:30]}" for c in CASES])
def test_each_cross_reference_rule_is_refused_naming_its_pointer(schema, profile_id, change, pointer, says):
    with pytest.raises(ConfigError) as caught:
        load_profile(_broken(profile_id, change), schema, origin="p.json")
    text = str(caught.value)
    assert says in text and pointer in text, text


@pytest.mark.parametrize("profile_id", ["hyperfine", "system1-omni-gdn", "vllm-omni-rankings-study"])
def test_the_shipped_profiles_load(schema, profile_id):
    assert load_profile(copy.deepcopy(profile_document(profile_id)), schema)["id"] == profile_id
