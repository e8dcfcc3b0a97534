"""`verify schema NAME`: a shipped schema as the verifier reads it, its named statistic lists filled (`x-verify-enum`)."""

from __future__ import annotations

import json

import jsonschema

from conftest import ROOT


def test_the_gate_schema_is_printed_with_its_statistics_filled(run):
    result = run("schema", "gate")
    assert result.exit_code == 0, result.output
    schema = json.loads(result.stdout)
    assert "x-verify-enum" not in result.stdout  # every named list is an enum an editor or check-jsonschema can read
    gate = json.loads((ROOT / "gates" / "ref2va-5s-v1.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(gate)
    gate["claims"][0]["statistic"] = "geomean"
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(gate))
    assert any("geomean" in e.message for e in errors), [e.message for e in errors]


def test_the_printed_profile_schema_validates_a_shipped_profile(run):
    result = run("schema", "profile")
    assert result.exit_code == 0, result.output
    profile = json.loads((ROOT / "profiles" / "hyperfine.json").read_text())
    jsonschema.Draft202012Validator(json.loads(result.stdout)).validate(profile)


def test_an_unknown_schema_name_is_one_line_naming_the_shipped_ones(run):
    result = run("schema", "nonsense")
    assert result.exit_code == 2
    assert "nonsense" in result.stderr and "gate" in result.stderr and "Traceback" not in result.output


def test_the_schema_file_name_is_its_name(run):
    assert run("schema", "gate.schema.json").stdout == run("schema", "gate").stdout
