"""Issue 13, our own assets: a `format` name no checker knows stops start-up; digests compare case-insensitively."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

from verifier.errors import ConfigError
from verifier.trust.assets import Assets, schema_validator, unknown_formats, write_inventory

KNOWN = {"date-time", "uri"}


def test_format_keyword_with_unknown_name_is_found_and_a_property_named_format_is_not():
    schema = {"type": "object", "properties": {"format": {"const": "verify-plan"}, "when": {"type": "string", "format": "date_time"}},
              "$defs": {"x": {"format": "uri"}}, "examples": [{"format": "nonsense"}]}
    assert unknown_formats(schema, KNOWN) == [("/properties/when/format", "date_time")]
    assert unknown_formats({"properties": {"when": {"format": "date-time"}}}, KNOWN) == []


def test_schema_validator_refuses_a_typo_format():
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "t", "properties": {"a": {"format": "date_time"}}}
    with pytest.raises(ConfigError, match="'date_time'"):
        schema_validator(schema)
    schema["properties"]["a"]["format"] = "date-time"
    assert schema_validator(schema).is_valid({"a": "2026-01-01T00:00:00Z"})


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "verifier", tree / "verifier", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("schemas", "gates", "profiles"):
        shutil.copytree(ROOT / name, tree / name)
    shutil.copy(ROOT / "inventory.json", tree / "inventory.json")
    return tree


@pytest.mark.parametrize("typo", ["date_time", "datetime"])
def test_shipped_schema_with_typo_format_refuses_to_start_even_when_pinned(tmp_path, typo):
    tree = _tree(tmp_path)
    target = tree / "schemas" / "serving-performance-v1.schema.json"
    target.write_text(target.read_text().replace('"format": "date-time"', f'"format": "{typo}"', 1))
    write_inventory(tree)  # the pin is right: only the format name is wrong
    with pytest.raises(ConfigError, match=typo):
        Assets(tree)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    result = subprocess.run([sys.executable, "-m", "verifier", str(ROOT / "examples" / "ref2va-5s")], cwd=tree, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "serving-performance-v1.schema.json" in result.stderr and typo in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_shipped_schemas_all_load_at_start_up():
    Assets(ROOT)  # every shipped schema names only known formats


# ---- upper-case hex is the same digest; wrong length or non-hex FAILs ----

from bundlekit import codes, edit_json, read_lines, rehash, write_lines  # noqa: E402

from verifier.core import verify_path  # noqa: E402


def _upper_manifest(bundle: Path) -> None:
    edit_json(bundle / "manifest.json", lambda m: [e.update(sha256=e["sha256"].upper()) for e in m["files"] + m.get("external", [])])


def test_manifest_and_receipt_digests_in_upper_case_pass(example_copy):
    rows = read_lines(example_copy / "receipts.jsonl")
    for r in rows:
        for o in r.get("outputs", []):
            o["sha256"] = o["sha256"].upper()
    write_lines(example_copy / "receipts.jsonl", rows)
    rehash(example_copy)
    _upper_manifest(example_copy)
    report = verify_path(str(example_copy))
    assert report.verdict == "PASS", [f.message for f in report.findings if f.status != "PASS"]


@pytest.mark.parametrize("bad", ["ab" * 31, "zz" * 32, "AB" * 33])
def test_manifest_digest_of_wrong_length_or_not_hex_fails(example_copy, bad):
    edit_json(example_copy / "manifest.json", lambda m: m["files"][0].update(sha256=bad))
    report = verify_path(str(example_copy))
    assert report.verdict == "FAIL"
    assert any(status == "FAIL" for _, status, _ in codes(report))


@pytest.mark.parametrize("digest,ok", [("UPPER", True), ("ab" * 31, False)])
def test_receipt_output_digest_case_and_length(example_copy, digest, ok):
    rows = read_lines(example_copy / "receipts.jsonl")
    r = next(r for r in rows if r.get("outputs"))
    r["outputs"][0]["sha256"] = r["outputs"][0]["sha256"].upper() if digest == "UPPER" else digest
    write_lines(example_copy / "receipts.jsonl", rows)
    rehash(example_copy)
    report = verify_path(str(example_copy))
    assert (report.verdict == "PASS") is ok, [f.message for f in report.findings if f.status == "FAIL"]
