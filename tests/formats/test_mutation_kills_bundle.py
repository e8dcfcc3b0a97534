"""
Tests that kill surviving mutants of `verifier/formats/bundle.py` (issue 14): path and name rules, safe opening, the walk.

Each rule of `unsafe_reason` / `unsafe_name` is met once with the reason it
names, and once by a name that is fine; `open_regular` refuses a FIFO and
a symlink and hands back a blocking descriptor; `hash_bytes_of` holds its
limit exactly; `walk` raises on a directory it cannot list, `walk_safely`
reports it and keeps walking.
"""

from __future__ import annotations

import hashlib
import os

import pytest

from verifier.formats import bundle
from verifier.formats.bundle import hash_bytes_of, hash_file, open_regular, unsafe_name, unsafe_reason, walk, walk_safely


@pytest.mark.parametrize("path,reason", [
    ("", "empty path"),
    ("a/\x00b", "NUL byte"),
    ("a\\b", "backslash"),
    ("a/\x1bb", "control character"),
    ("a/\u202eb", "bidirectional"),
    ("a/\udcffb", "not valid UTF-8"),
    ("/etc/passwd", "absolute path"),
    ("C:x", "absolute path"),
    ("a/../../b", "'..' component"),
    ("..", "'..' component"),
    ("a//b", "empty or '.' component"),
    ("./a", "empty or '.' component"),
    ("a/", "empty or '.' component"),
])
def test_each_unsafe_path_names_its_reason(path, reason):
    assert reason in (unsafe_reason(path) or ""), unsafe_reason(path)


@pytest.mark.parametrize("path", ["a", "a/b.json", "caf\u00e9/x", "ab:c", "x" * 300, "\u0394/\u00fc", "a.b/..c"])
def test_plain_relative_paths_are_safe(path):
    assert unsafe_reason(path) is None


@pytest.mark.parametrize("name,reason", [
    ("a\x7fb", "control"), ("a\x85b", "control"), ("a\u2028b", "control"), ("a\x1f", "control"),
    ("a\u061cb", "bidirectional"), ("a\u2066b", "bidirectional"),
    ("a\udc80", "not valid UTF-8"),
])
def test_each_unsafe_name_names_its_reason(name, reason):
    assert reason in (unsafe_name(name) or "")


@pytest.mark.parametrize("name", ["plain", "caf\u00e9", "\u00a0nbsp", "\u4e2d\u6587", "a b"])
def test_printable_names_are_safe(name):
    assert unsafe_name(name) is None


def test_open_regular_refuses_fifos_and_symlinks_and_returns_a_blocking_descriptor(tmp_path):
    (tmp_path / "f").write_bytes(b"abc")
    fd = open_regular(tmp_path / "f")
    try:
        assert os.get_blocking(fd) and os.read(fd, 10) == b"abc"
    finally:
        os.close(fd)
    os.mkfifo(tmp_path / "p")
    with pytest.raises(OSError, match="not a regular file"):
        open_regular(tmp_path / "p")
    (tmp_path / "l").symlink_to(tmp_path / "f")
    with pytest.raises(OSError):
        open_regular(tmp_path / "l")


def test_hash_bytes_of_holds_its_limit_exactly(tmp_path):
    (tmp_path / "f").write_bytes(b"x" * 10)
    assert hash_bytes_of(tmp_path / "f", 10) == (10, hashlib.sha256(b"x" * 10).hexdigest(), b"x" * 10)
    with pytest.raises(OSError, match="larger than 9 bytes"):
        hash_bytes_of(tmp_path / "f", 9)
    assert hash_file(tmp_path / "f") == (10, hashlib.sha256(b"x" * 10).hexdigest())


def test_walk_lists_files_links_and_others_and_reports_what_it_cannot_list(tmp_path, monkeypatch):
    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "d" / "e" / "f").write_bytes(b"12345")
    (tmp_path / "l").symlink_to("d")
    os.mkfifo(tmp_path / "p")
    (tmp_path / "locked").mkdir()
    entries = {e.rel: (e.kind, e.size, e.link_target) for e in walk(tmp_path) if e.rel != "locked"}
    assert entries == {"d/e/f": ("file", 5, None), "l": ("symlink", 0, "d"), "p": ("other", 0, None)}
    real = bundle.os.scandir

    def refuse(path):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(bundle.os, "scandir", refuse)
    found, unreadable = walk_safely(tmp_path)
    assert unreadable == [("locked", "Permission denied")] and [e.rel for e in found] == ["d/e/f", "l", "p"]
    with pytest.raises(OSError, match="locked: cannot list: Permission denied"):
        walk(tmp_path)


# --- boundaries of the name rules, and reading documents -----------------------------------------------------------------

@pytest.mark.parametrize("path,reason", [("C:", "absolute path"), ("C:x", "absolute path"), ("ab:c", None), ("a/../b", "'..' component"),
                                         ("a/b", None), ("caf\u00e9 menu.txt", None), ("caf\u00e9\u00a0x", None),
                                         ("caf\u00e9\x7f", "control character"), ("caf\u00e9\x1f", "control character"),
                                         ("caf\u00e9\x9f", "control character")])
def test_name_rules_at_their_boundaries(path, reason):
    found = unsafe_reason(path)
    assert found is None if reason is None else (found or "").startswith(reason), found


def _docs(tmp_path, files: dict[str, bytes], verified: tuple[str, ...]) -> bundle.Bundle:
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return bundle.Bundle(root=tmp_path, verified={n: n for n in verified})


def test_documents_are_read_only_after_integrity_and_their_parsed_bytes_are_digested(tmp_path):
    from verifier.errors import Unverifiable

    b = _docs(tmp_path, {"plan.json": b'{"a": 1}', "receipts.jsonl": b'{"kind": "x"}\n', "claims.json": b"{}"},
              ("plan.json", "receipts.jsonl"))
    b.contents["plan.json"] = b'{"a": 1}'  # the bytes integrity hashed win over a second read
    (tmp_path / "plan.json").write_bytes(b'{"a": 2}')
    b.digests["receipts.jsonl"] = hashlib.sha256(b'{"kind": "x"}\n').hexdigest()
    assert b.raw_document("plan") == {"a": 1} and b.raw_document("receipts") == [{"kind": "x"}]  # JSON Lines: streamed from disk
    assert b.parsed_sha256["plan"] == hashlib.sha256(b'{"a": 1}').hexdigest() + ":json"
    assert b.parsed_sha256["receipts"] == hashlib.sha256(b'{"kind": "x"}\n').hexdigest() + ":lines"
    with pytest.raises(Unverifiable) as caught:
        b.raw_document("claims")
    assert caught.value.code == "blocked-by-integrity"
    for kind, code in (("claims", "blocked-by-integrity"), ("quality", "not-in-evidence")):
        with pytest.raises(Unverifiable) as caught:
            b.document(kind)
        assert caught.value.code == code
    assert b.document("plan") == {"a": 1}
    b.problems["plan"] = "1 schema error(s)"
    with pytest.raises(Unverifiable, match="plan.json: 1 schema error"):
        b.document("plan")


def test_has_means_a_regular_file_of_a_known_kind(tmp_path):
    b = _docs(tmp_path, {"plan.json": b"{}"}, ())
    os.symlink("plan.json", tmp_path / "claims.json")
    assert b.has("plan") and not b.has("claims") and not b.has("quality") and not b.has("nonsense")
