"""
A receipt set's `name_patterns`: a regular expression per file-name placeholder, so a placeholder followed by one whose text has a known shape is read whole.

lm-evaluation-harness writes `samples_<task>_<timestamp>.jsonl` (`--log_samples`); task names hold `_`
(`masakhaner_luo_prompt_2`, `mmlu_abstract_algebra`), so the template `samples_{task}_{ts}.jsonl` read with
lazy placeholders gives task `masakhaner` and timestamp `luo_prompt_2_2026-...`. The file names below are
real ones (`EleutherAI/lm-evaluation-harness` fork commit `74407d93ec157454f42c980cd6b9aa37977fcba3`,
`african_nlp_benchmarks/`); the records are made up.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from conftest import ROOT

from verifier.errors import ConfigError
from verifier.profiles.language import load_profile
from verifier.readers.records import _name_values, read_receipts
from verifier.readers.tree import Tree

REAL = "samples_masakhaner_luo_prompt_2_2026-01-16T16-59-59.899345.jsonl"
TS = {"ts": "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}[.][0-9]+"}
TEMPLATE = "samples_{task}_{ts}.jsonl"


def test_without_a_pattern_a_task_name_holding_underscores_is_cut_at_its_first_underscore():
    assert _name_values(TEMPLATE, REAL) == {"task": "masakhaner", "ts": "luo_prompt_2_2026-01-16T16-59-59.899345"}


def test_a_timestamp_pattern_anchors_the_timestamp_so_the_task_is_read_whole():
    patterns = tuple(sorted(TS.items()))
    assert _name_values(TEMPLATE, REAL, frozenset(), patterns) == {"task": "masakhaner_luo_prompt_2", "ts": "2026-01-16T16-59-59.899345"}
    assert _name_values(TEMPLATE, "samples_arc_easy_latest.jsonl", frozenset(), patterns) is None  # the pattern must match whole
    assert _name_values("{model}/" + TEMPLATE, "google__gemma-2b/" + REAL, frozenset(), patterns)["task"] == "masakhaner_luo_prompt_2"


def _spec(**extra) -> dict:
    return {"glob": "*.jsonl", "encoding": "jsonl", "records": "", "name": TEMPLATE, **extra,
            "fields": {"phase": {"value": "measured"}}, "dimensions": {"task": {"from_name": "task"}},
            "values": {"acc": {"pointer": "/acc,none", "unit": "1"}}}


def test_read_receipts_reads_the_task_dimension_through_the_pattern(tmp_path):
    (tmp_path / REAL).write_text('{"doc_id": 0, "acc,none": 1.0}\n{"doc_id": 1, "acc,none": 0.0}\n')
    records, problems, _ = read_receipts(Tree(Path(tmp_path)), "samples", _spec(name_patterns=TS))
    assert not problems and {r.dims["task"] for r in records} == {"masakhaner_luo_prompt_2"}
    records, problems, _ = read_receipts(Tree(Path(tmp_path)), "samples", _spec())
    assert {r.dims["task"] for r in records} == {"masakhaner"}  # the misreading the pattern fixes


def _profile(**extra) -> dict:
    return {"id": "lm-eval-draft", "version": 1, "description": "test", "detect": {"glob": "*.jsonl"},
            "manifest": {"kind": "none", "reason": "lm-eval writes none"}, "receipts": {"samples": _spec(**extra)}, "claims": []}


@pytest.mark.parametrize("patterns, message", [
    ({"date": "[0-9]+"}, "/receipts/samples/name_patterns/date.*'date' is not a placeholder"),
    ({"ts": "[0-9"}, "/receipts/samples/name_patterns/ts.*not a regular expression"),
])
def test_a_pattern_for_no_placeholder_or_that_does_not_compile_is_refused(patterns, message):
    schema = json.loads((ROOT / "schemas" / "profile.schema.json").read_text())
    load_profile(copy.deepcopy(_profile(name_patterns=TS)), schema, origin="draft.json")  # the good one loads
    with pytest.raises(ConfigError, match=message):
        load_profile(_profile(name_patterns=patterns), schema, origin="draft.json")
