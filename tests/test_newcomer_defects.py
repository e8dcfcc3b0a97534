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
