"""
Issue 13, bad input: every leaf of a known receipt replaced by each JSON type yields findings, never an ERROR.

The serving record (the seed file, read in place) and the frozen HTTP matrix
fixture; the telemetry receipt has its own sweep in test_telemetry_rules.py.
A field of the wrong type is a schema finding, and the rules behind the
schema read only what it validated.
"""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest
from conftest import ROOT, SHARED

from verifier.core import verify_path

VALUES = (None, "x", -1, 1.5, True, [], {})


def _leaves(node, path=()):
    if isinstance(node, dict) and node:
        for k, v in node.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(node, list) and node:
        for i, v in enumerate(node[:2]):
            yield from _leaves(v, (*path, i))
    else:
        yield path


def _replaced(base, path, value):
    doc = json.loads(json.dumps(base))
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return doc


def _errors(report, where):
    return [(where, x.check, x.message[:160]) for x in report.findings if x.status == "ERROR"]


def test_serving_record_leaves_of_any_type_never_error(tmp_path):
    base = json.loads((SHARED / "seeds" / "serving-performance-record.json").read_text())
    out, errors = tmp_path / "record.json", []
    for path in _leaves(base):
        if path[0] == "suite_version":
            continue  # the family marker: another value is not this family (a usage error, exit 2)
        for value in VALUES:
            out.write_text(json.dumps(_replaced(base, path, value)))
            errors += _errors(verify_path(str(out)), (path, value))
    assert not errors, errors[:5]


@pytest.mark.parametrize("name", ["plan.json", "config.json", "summary.json", "responses.jsonl"])
def test_matrix_leaves_of_any_type_never_error(tmp_path, name):
    src = ROOT / "tests" / "fixtures" / "matrix" / "good"
    d = tmp_path / "m"
    shutil.copytree(src, d)
    orig = (src / name).read_text()
    lines = orig.splitlines()
    base = [json.loads(line) for line in lines[:3]] if name.endswith(".jsonl") else json.loads(orig)
    errors = []
    for path in _leaves(base):
        for value in VALUES:
            doc = _replaced(base, path, value)
            text = ("".join(json.dumps(x) + "\n" for x in doc) + "".join(x + "\n" for x in lines[3:])) if name.endswith(".jsonl") \
                else json.dumps(doc)
            (d / name).write_text(text)
            if name == "plan.json":  # keep the snapshot digest right, so the rules behind it run
                config = json.loads((src / "config.json").read_text())
                config["plan_sha256"] = hashlib.sha256(text.encode()).hexdigest()
                (d / "config.json").write_text(json.dumps(config))
            errors += _errors(verify_path(str(d)), (path, value))
    assert not errors, errors[:5]


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "tests" / "fixtures" / "vllm").glob("*.json")))
def test_vllm_result_leaves_of_any_type_never_error(tmp_path, name):
    base = json.loads((ROOT / "tests" / "fixtures" / "vllm" / name).read_text())
    out, errors = tmp_path / "r.json", []
    for path in _leaves(base):
        for value in VALUES:
            out.write_text(json.dumps(_replaced(base, path, value)))
            try:
                report = verify_path(str(out))
            except Exception as exc:  # noqa: BLE001 - a key of the family marker changed: not this family, a usage error
                assert type(exc).__name__ == "UsageError", exc
                continue
            errors += _errors(report, (path, value))
    assert not errors, errors[:5]
