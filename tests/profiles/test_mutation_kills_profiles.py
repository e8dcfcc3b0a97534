"""
Tests that kill surviving mutants of `verifier/profiles/language.py` (issue 14): each cross-reference rule of `load_profile`.

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
from verifier.profiles.language import load_profile
from verifier.trust.assets import Assets


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
    ("system1-omni-gdn", lambda d: d["receipts"]["e2e"]["fields"]["latency"].update(unit="fortnights"),
     "/receipts/e2e/fields/latency/unit", "unknown unit 'fortnights'"),
    ("system1-omni-gdn", lambda d: d["receipts"]["e2e"].update(name="e2e/{arm}-{phase}.jsonl"),
     "/receipts/e2e/name", "fields taken from the file name ['server'] are not in its name template"),
    ("mlperf-inference", lambda d: d["receipts"]["performance"].pop("lines"), "/receipts/performance",
     "a `text` receipt set must name its line grammars in `lines`"),
    ("mlperf-inference", lambda d: d["receipts"]["detail"].pop("prefix"), "/receipts/detail/lines", "`prefixed-json` lines need a `prefix`"),
    ("system1-omni-gdn", lambda d: d["identities"][0].update(receipts="nowhere"), "/identities/0/receipts", "unknown receipt set 'nowhere'"),
    ("system1-omni-gdn", lambda d: d["claims"][0].update(receipts="nowhere"), "/claims/0/receipts", "unknown receipt set 'nowhere'"),
    ("system1-omni-gdn", lambda d: d["gate"]["rules"][0].update(receipts="nowhere"), "/gate/rules/0/receipts", "unknown receipt set 'nowhere'"),
    ("system1-omni-gdn", lambda d: d["claims"][0]["at"].update(outcomes={"true": ["passed"]}), "/claims/0/at/outcomes",
     "`outcomes` words belong to gate.recorded"),
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


class _Tree:
    def __init__(self, docs: dict):
        self.docs = docs

    def exists(self, rel: str) -> bool:
        return rel in self.docs

    def glob(self, pattern: str) -> list[str]:
        from pathlib import PurePosixPath

        return sorted(r for r in self.docs if PurePosixPath(r).match(pattern))

    def json(self, rel: str):
        if rel not in self.docs:
            raise OSError(rel)
        return self.docs[rel]


def test_detection_needs_every_file_a_glob_match_and_a_resolving_pointer():
    from verifier.profiles.language import matches

    tree = _Tree({"a.json": {"results": [1]}, "b.json": {"other": 1}})
    assert matches({"detect": {"glob": "*.json", "pointers": [{"pointer": "/results/0"}]}}, tree)
    assert not matches({"detect": {"glob": "*.csv"}}, tree)  # the glob matches nothing
    assert not matches({"detect": {"glob": "*.json", "pointers": [{"pointer": "/missing"}]}}, tree)
    assert matches({"detect": {"files": ["b.json"], "pointers": [{"file": "b.json", "pointer": "/other"}]}}, tree)
    assert not matches({"detect": {"files": ["b.json", "c.json"]}}, tree)
    assert not matches({"detect": {"pointers": [{"pointer": "/results"}]}}, tree)  # no glob: no file to look in
    assert matches({"detect": {}}, tree)


def _ratio_profile(numerator: str, denominator: str, unit: str) -> dict:
    return {"id": "run", "version": 1, "description": "ratio of sums", "detect": {"files": ["summary.json"]},
            "manifest": {"kind": "none", "reason": "no digests"},
            "receipts": {"runs": {"glob": "runs/*.csv", "encoding": "csv",
                                  "fields": {"latency": {"pointer": "/s", "unit": "s"}, "phase": {"value": "measured"}},
                                  "values": {"tokens": {"pointer": "/tokens", "unit": "tokens"}}}},
            "claims": [{"id": "rate", "receipts": "runs", "statistic": "ratio_of_sums", "numerator": numerator, "denominator": denominator,
                        "selection": {"phase": "measured"}, "unit": unit, "at": {"file": "summary.json", "pointer": "/rate"}}]}


@pytest.mark.parametrize("numerator,denominator,unit,ok", [
    ("#receipts", "latency", "requests/s", True), ("tokens", "#receipts", "tokens", True), ("tokens", "latency", "tokens/s", True),
    ("#receipts", "latency", "ms", False), ("latency", "#receipts", "tokens", False),
    ("tokens", "#receipts", "tokens/s", False),  # a count of receipts is no time: only a count dimension or none
])
def test_a_ratio_of_sums_counts_receipts_in_a_count_dimension(schema, numerator, denominator, unit, ok):
    doc = _ratio_profile(numerator, denominator, unit)
    if ok:
        assert load_profile(doc, schema)["id"] == "run"
    else:
        with pytest.raises(ConfigError, match="/claims/0/unit"):
            load_profile(doc, schema)
