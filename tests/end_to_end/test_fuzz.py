"""
Short fuzz pass over every reader of hostile input (issue 14), under the hypothesis profile `fuzz-short`.

The targets and strategies live in `tests/fuzz_targets.py`; the long pass is
`tools/fuzz.py` (command and last result in docs/testing.md). Example counts
are kept small so all fuzz tests together stay well under 3 minutes on the
2-core machine; `HYPOTHESIS_PROFILE=fuzz-long` raises them.
"""

from __future__ import annotations

import json
import os

import pytest
from fuzz_targets import DIRECTORIES, SEEDS, edited, mutated, json_values, dumps
import fuzz_targets as targets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.formats.bundle import DOCUMENTS

settings.register_profile("fuzz-short", max_examples=25, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("fuzz-long", max_examples=int(os.environ.get("FUZZ_EXAMPLES", "200")), deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "fuzz-short") if os.environ.get("HYPOTHESIS_PROFILE", "").startswith("fuzz") else "fuzz-short"
fuzz = settings.get_profile(PROFILE)
fast = settings(fuzz, max_examples=fuzz.max_examples * 8)  # in-memory targets cost microseconds


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory):
    from helpers import make_assets

    return str(make_assets(tmp_path_factory.mktemp("fuzz") / "assets"))


@fast
@given(st.one_of(st.binary(max_size=200), json_values.map(lambda v: dumps(v).encode()),
                 edited(SEEDS["vllm"].read_bytes()[:600])))
def test_fuzz_json_loader(data):
    targets.loader(data)


@fast
@given(st.one_of(st.binary(max_size=100), mutated(json.loads((targets.ROOT / "examples" / "ref2va-5s" / "manifest.json").read_text()))
                 .map(lambda d: dumps(d).encode())))
def test_fuzz_manifest_reader(data):
    targets.read_manifest(data)


@fast
@given(st.sampled_from(["hyperfine", "system1-omni-gdn", "vllm-omni-pr6540", "vllm-omni-rankings-comparison"]).flatmap(
    lambda pid: mutated(json.loads((targets.ROOT / "profiles" / f"{pid}.json").read_text()))))
def test_fuzz_profile_loader(document):
    targets.profile(document)


@fuzz
@given(st.data())
def test_fuzz_bundle_reader(tiny_root, data):
    from helpers import write_bundle  # noqa: F401 - the target imports it; fail here if it moved

    name = data.draw(st.sampled_from([n for n, *_ in DOCUMENTS.values() if n != "quality-index.json"]))
    if name.endswith(".jsonl"):
        lines = [{"kind": "request", "request_id": "r1", "arm": "baseline", "server": "s1", "phase": "measured",
                  "started_at": "2026-01-01T00:00:00Z", "ended_at": "2026-01-01T00:00:10Z", "elapsed_s": 10, "outcome": "ok",
                  "outputs": []}]
        body = "\n".join(dumps(x) for x in data.draw(st.lists(mutated(lines[0]), min_size=1, max_size=3))) + "\n"
        blob = data.draw(st.one_of(st.just(body.encode()), edited(body.encode())))
    else:
        seed = {"manifest.json": {"format": "verify-bundle", "format_version": 1, "gate": "tiny-v1", "files": [], "external": []},
                "plan.json": {"format": "verify-plan", "format_version": 1, "arm_order": ["A", "B"], "servers": [{"id": "s1", "arm": "baseline"}]},
                "claims.json": {"format": "verify-claims", "format_version": 1, "claims": [{"id": "count.requests", "value": 2}]}}[name]
        blob = data.draw(st.one_of(mutated(seed).map(lambda d: dumps(d).encode()), edited(dumps(seed).encode())))
    targets.verify_bundle({name: blob}, tiny_root)


@fuzz
@given(st.sampled_from(sorted(SEEDS)).flatmap(lambda k: st.tuples(st.just(k), st.one_of(
    mutated(json.loads(SEEDS[k].read_text())).map(lambda d: dumps(d).encode()), edited(SEEDS[k].read_bytes())))))
def test_fuzz_single_file_readers(case):
    name, blob = case
    targets.verify_file(name, blob)


@fuzz
@given(st.data())
def test_fuzz_directory_readers(data):
    name = data.draw(st.sampled_from(sorted(DIRECTORIES)))
    files = sorted(p.name for p in DIRECTORIES[name].iterdir() if p.suffix in (".json", ".jsonl"))
    rel = data.draw(st.sampled_from(files))
    text = (DIRECTORIES[name] / rel).read_bytes()
    if rel.endswith(".jsonl"):
        blob = data.draw(edited(text))
    else:
        blob = data.draw(st.one_of(mutated(json.loads(text)).map(lambda d: dumps(d).encode()), edited(text)))
    targets.verify_directory(name, {rel: blob})
