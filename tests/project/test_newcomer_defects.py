"""Defects a newcomer hit from the docs alone (lead's newcomer trial), each pinned by a test."""

from __future__ import annotations

import builtins

import pytest


@pytest.mark.parametrize("name, text", [
    ("lines.jsonl", '{"a": 1}\n{"b": 2}\n'),  # JSON Lines is not one JSON document; no single-file reader reads it
    ("broken.json", "hello {"),
    ("empty.json", ""),
])
def test_a_file_that_is_not_json_and_no_known_receipt_is_a_usage_error(run, tmp_path, name, text):
    target = tmp_path / name
    target.write_text(text)
    result = run(str(target))
    assert result.exit_code == 2, result.output
    assert "not a receipt verify can read" in result.stderr and name in result.stderr


def test_a_json_file_breaking_strictness_still_fails(run, tmp_path):
    target = tmp_path / "nan.json"
    target.write_text('{"a": NaN}')
    result = run(str(target))
    assert result.exit_code == 1, result.output


def test_executor_without_the_distributed_extra_is_a_usage_error_before_any_check(run, example_copy, monkeypatch):
    real_import = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    result = run("--executor", "tcp://127.0.0.1:1", str(example_copy))
    assert result.exit_code == 2, result.output
    assert "distributed" in result.stderr and "verdict" not in result.output


@pytest.mark.parametrize("fmt, marker", [("text", ", rules of profile:hyperfine sha256 "),
                                         ("markdown", " · rules of `profile:hyperfine` (sha256 "),
                                         ("html", "; rules of <code>profile:hyperfine</code> sha256 ")])
def test_a_profile_without_a_gate_is_not_called_a_gate_in_the_header(run, fmt, marker):
    from conftest import CORPUS

    result = run("check", "-f", fmt, str(CORPUS / "hyperfine-3em"))
    assert marker in result.output
    assert "gate profile:" not in result.output and "gate <code>profile:" not in result.output
    assert "gate `profile:" not in result.output


@pytest.mark.parametrize("fmt, marker", [("text", ", gate ref2va-5s-v1 sha256 "),
                                         ("markdown", " · gate `ref2va-5s-v1` (sha256 "),
                                         ("html", "; gate <code>ref2va-5s-v1</code> sha256 ")])
def test_a_gate_is_still_called_a_gate_in_the_header(run, fmt, marker):
    from conftest import ROOT

    result = run("check", "-f", fmt, str(ROOT / "examples" / "ref2va-5s"))
    assert marker in result.output


def test_an_unreachable_scheduler_is_a_usage_error_before_any_check(run, example_copy):
    """docs/distributed.md: a scheduler that does not answer is exit 2 with one line, not an ERROR inside quality.rescore."""
    result = run("--no-cache", "--executor", "tcp://127.0.0.1:1", str(example_copy))
    assert result.exit_code == 2, result.output
    assert "cannot connect to a Dask scheduler" in result.stderr and result.stderr.count("\n") == 1
    assert "ERROR" not in result.output


def test_a_derivation_mismatch_prints_its_tolerance_rounded_not_at_full_decimal_precision(run, example_copy):
    from decimal import Decimal

    from bundlekit import edit_json, rehash

    def bump(doc):
        next(c for c in doc["claims"] if c["id"] == "sd_server_means_s.baseline")["value"] = Decimal("15.61")
    edit_json(example_copy / "claims.json", bump)
    rehash(example_copy)
    result = run("-f", "json", str(example_copy))
    import json as _json
    found = [f for f in _json.loads(result.stdout)["findings"] if f["check"] == "derivation.claims" and f["status"] == "FAIL"]
    assert found, result.stdout[:2000]
    import re
    tolerance = re.search(r"tolerance ([0-9.eE+-]+)(?: [^)]*)?\)", found[0]["message"]).group(1)  # `tolerance 0.005 s)`
    assert len(tolerance.replace(".", "").lstrip("0")) <= 12, found[0]["message"]


def test_an_unknown_gate_says_where_a_repository_gate_is_pinned(run, example_copy):
    from bundlekit import edit_json, rehash

    edit_json(example_copy / "manifest.json", lambda doc: doc.update(gate="team-v1"))
    rehash(example_copy)
    result = run(str(example_copy))
    assert result.exit_code == 1
    assert "unknown-gate" in result.output and "trust root" in result.output and "--trust-ref" in result.output


def test_a_folder_no_profile_matches_names_its_json_files_that_do_not_parse(run, tmp_path):
    import shutil

    from conftest import ROOT
    folder = tmp_path / "hf"
    shutil.copytree(ROOT.parent / "shared" / "corpus" / "hyperfine-3em", folder)
    results = folder / "tools" / "benchmarks" / "results.json"
    results.write_bytes(results.read_bytes()[:-40])  # a truncated export
    result = run(str(folder))
    assert result.exit_code == 3, result.output  # discovery (issue 37) says why no profile could read it
    assert "no shipped profile matches it" in result.stdout
    assert "tools/benchmarks/results.json:" in result.stdout and "not strict JSON" in result.stdout, result.stdout


def test_a_folder_no_profile_matches_with_only_valid_json_says_nothing_of_parsing(run, tmp_path):
    (tmp_path / "a.json").write_text('{"x": 1}')
    result = run(str(tmp_path))
    assert result.exit_code == 3  # discovery (issue 37)
    assert "not strict JSON" not in result.stdout + result.stderr


def test_a_directory_named_like_a_command_gets_a_note_on_how_to_verify_it(run, tmp_path, monkeypatch):
    (tmp_path / "pin").mkdir()
    monkeypatch.chdir(tmp_path)
    result = run("pin")
    assert "verify ./pin" in result.stderr, result.stderr
    assert "verify ./pin" not in run("./pin").stderr


def test_a_known_producers_receipt_with_a_byte_that_is_not_utf8_fails_as_in_a_folder(run, tmp_path):
    """The same file FAILs json.strict not-utf8 given alone as inside a receipt folder (stop 52's trial left it exit 2)."""
    from conftest import CORPUS

    source = sorted((CORPUS / "vllm-save-result-ascend").glob("*.json"))[0].read_bytes()
    at = source.index(b'"') + 1
    (tmp_path / "folder").mkdir()
    for target in (tmp_path / "r.json", tmp_path / "folder" / "r.json"):
        target.write_bytes(source[:at] + b"\xff" + source[at:])
    alone, folder = run(str(tmp_path / "r.json")), run(str(tmp_path / "folder"))
    assert folder.exit_code == 1, folder.output
    assert alone.exit_code == 1, alone.output + alone.stderr
    assert "FAIL       json.strict [not-utf8] r.json:" in alone.output and "0xff at offset" in alone.output
    assert "vllm-bench receipt" in alone.output or "vllm" in alone.output
