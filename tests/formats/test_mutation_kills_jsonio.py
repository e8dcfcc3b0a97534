"""
Tests that kill surviving mutants of `verifier/formats/jsonio.py` (issue 14), each at the boundary of a documented rule.

A lone surrogate in a key is named by at most 60 characters of the key; a
blank JSON Lines line is named as blank; `unparsed_files` (the names a
usage error gives for a directory no reader recognises) reads `*.json`
files only, no symlinks, three directory levels deep, files up to 64 MiB.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from verifier.formats.jsonio import JSONProblem, loads_strict, loads_strict_lines, unparsed_files


def test_a_lone_surrogate_key_is_named_by_its_first_60_escaped_characters():
    key = "k" * 100
    with pytest.raises(JSONProblem) as exc:
        loads_strict(('{"' + key + '\\ud800": 1}').encode())
    assert exc.value.code == "invalid-unicode"
    assert f"key {'k' * 60} holds a lone surrogate" in str(exc.value)


def test_a_blank_json_lines_line_is_named_as_blank():
    with pytest.raises(JSONProblem) as exc:
        loads_strict_lines(b'{"a": 1}\n\n{"a": 2}\n')
    assert (exc.value.code, str(exc.value), exc.value.line) == ("invalid-json", "line 2 is blank", 2)


def _broken(path: Path, data: bytes = b"{broken") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_unparsed_files_names_broken_json_three_levels_deep_and_no_deeper(tmp_path):
    _broken(tmp_path / "a" / "b" / "c" / "level3.json")
    _broken(tmp_path / "a" / "b" / "c" / "d" / "level4.json")
    assert [line.split(":")[0] for line in unparsed_files(tmp_path)] == ["a/b/c/level3.json"]


def test_unparsed_files_reads_json_files_only_and_never_a_symlink(tmp_path):
    _broken(tmp_path / "notes.txt")
    target = _broken(tmp_path / "elsewhere" / "real.json")
    os.symlink(target, tmp_path / "link.json")
    assert [line.split(":")[0] for line in unparsed_files(tmp_path)] == ["elsewhere/real.json"]


def test_unparsed_files_reads_files_up_to_64_mib(tmp_path):
    _broken(tmp_path / "big.json", b"[" + b" " * (2 * 2**20))  # 2 MiB, unterminated: broken, and well under the limit
    assert [line.split(":")[0] for line in unparsed_files(tmp_path)] == ["big.json"]
    assert unparsed_files(tmp_path, max_bytes=2**20) == []  # over a smaller limit it is not read
