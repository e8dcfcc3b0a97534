"""
Tests that kill surviving mutants of `verifier/commands/manifest.py` (issue 14): writing a bundle's manifest.

`read_manifest` refuses an invalid manifest naming its first error;
`build_manifest` refuses symlinks, special files, case/NFC collisions and a
file also declared external, keeps declared roles, and names a file it
cannot read; `diff_manifests` lists additions, removals and changes
(digests compared without case) and a layout-only difference.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from verifier.commands import manifest as mf
from verifier.errors import UsageError


def _bundle(root: Path, files: dict[str, bytes], current: dict | None = None) -> Path:
    root.mkdir(parents=True)
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    if current is not None:
        (root / "manifest.json").write_text(json.dumps(current))
    return root


def test_an_invalid_manifest_is_refused_naming_its_error(tmp_path):
    root = _bundle(tmp_path / "b", {}, {"format": "verify-bundle", "format_version": 1, "gate": "g", "files": [], "external": [], "x": 1})
    with pytest.raises(UsageError, match="invalid manifest: Additional properties are not allowed"):
        mf.read_manifest(root)


@pytest.mark.parametrize("make,says", [
    (lambda r: os.symlink("a.txt", r / "link.txt"), "link.txt is a symlink (to 'a.txt')"),
    (lambda r: os.mkfifo(r / "pipe"), "pipe is not a regular file"),
    (lambda r: (r / "A.TXT").write_bytes(b"x"), "collide after NFC normalisation or case folding"),
])
def test_entries_a_manifest_cannot_list_are_refused(tmp_path, make, says):
    root = _bundle(tmp_path / "b", {"a.txt": b"a"})
    make(root)
    with pytest.raises(UsageError, match="refusing to write a manifest") as caught:
        mf.build_manifest(root, gate="g")
    assert says in str(caught.value)


def test_a_file_on_disk_that_is_also_declared_external_is_refused(tmp_path):
    current = {"format": "verify-bundle", "format_version": 1, "gate": "g", "files": [],
               "external": [{"path": "Media/A.mp4", "sha256": "a" * 64, "size": 1, "reason": "large", "source": "s3"}]}
    root = _bundle(tmp_path / "b", {"media/a.mp4": b"a"}, current)
    with pytest.raises(UsageError, match="media/a.mp4 is on disk but declared external"):
        mf.build_manifest(root)


def test_roles_are_kept_and_a_file_that_cannot_be_read_is_named(tmp_path, monkeypatch):
    current = {"format": "verify-bundle", "format_version": 1, "gate": "g", "external": [],
               "files": [{"path": "old.jsonl", "sha256": "b" * 64, "size": 1, "role": "rejected-attempt"}]}
    root = _bundle(tmp_path / "b", {"old.jsonl": b"{}\n", "new.txt": b"n"}, current)
    built = mf.build_manifest(root)
    assert [(f["path"], f.get("role")) for f in built["files"]] == [("new.txt", None), ("old.jsonl", "rejected-attempt")]
    assert built["gate"] == "g" and built["files"][0]["size"] == 1
    monkeypatch.setattr(mf, "hash_many", lambda paths, **kw: {p: PermissionError(13, "Permission denied") for p in paths})
    with pytest.raises(UsageError, match=r"new.txt: cannot read: Permission denied$"):
        mf.build_manifest(root)


def _m(files: list[dict], gate: str = "g", **extra) -> dict:
    return {"format": "verify-bundle", "format_version": 1, "gate": gate, "files": files, "external": [], **extra}


def test_differences_are_listed_per_file_with_digests_compared_without_case():
    a = {"path": "a.txt", "sha256": "ab" * 32, "size": 1}
    b = {"path": "b.txt", "sha256": "cd" * 32, "size": 2}
    assert mf.diff_manifests(_m([a, b]), _m([{**a, "sha256": "AB" * 32}, b])) == ["~ manifest.json: same entries, different layout or order"]
    assert mf.diff_manifests(_m([a]), _m([{**a, "size": 3, "sha256": "ef" * 32}, b], gate="h")) == [
        "~ gate: g -> h", f"~ a.txt: 1 -> 3 bytes, sha256 {'ab' * 6}... -> {'ef' * 6}...", f"+ b.txt (2 bytes, sha256 {'cd' * 6}...)"]
    assert mf.diff_manifests(_m([a, b]), _m([b])) == ["- a.txt (listed, not on disk)"]
    assert mf.diff_manifests(None, _m([a])) == ["+ manifest.json (new, 1 file(s), gate g)", f"+ a.txt (1 bytes, sha256 {'ab' * 6}...)"]


def test_a_layout_only_difference_is_one_line():
    a = {"path": "a.txt", "sha256": "ab" * 32, "size": 1}
    assert mf.diff_manifests(_m([a], description="x"), _m([a], description="y")) == ["~ manifest.json: same entries, different layout or order"]
    text = mf.dumps_manifest({"files": [], "zeta": 1, "format": "verify-bundle", "alpha": 2})
    assert list(json.loads(text)) == ["format", "files", "alpha", "zeta"] and text.endswith("}\n")


# --- readers/manifests.py: the manifest kinds of profiles ------------------------------------------------------------


def test_an_incomplete_entry_is_named_by_path_in_a_files_map_and_by_index_in_a_list():
    from verifier.readers.manifests import read_listing

    files_map = read_listing({"kind": "files-map", "file": "m.json", "pointer": "/files", "sha256": "sha256"},
                             {"files": {"a.txt": {"sha256": "x"}}})
    entries = read_listing({"kind": "entries", "file": "m.json", "pointer": "/list", "path": "path", "sha256": "sha256"},
                           {"list": [{"path": "a.txt"}]})
    assert [p[:2] for p in files_map.problems] == [("manifest-entry", "entry 'a.txt' lacks a sha256 (sha256)")]
    assert [p[:2] for p in entries.problems] == [("manifest-entry", "entry 0 lacks a path (path), a sha256 (sha256)")]


def test_sha256sums_lines_are_numbered_from_1_and_blank_lines_are_skipped():
    from verifier.readers.manifests import read_listing

    digest = "ab" * 32
    raw = f"not a sha256sums line\n\n{digest}  a.txt\n   \n".encode()
    listing = read_listing({"kind": "sha256sums", "file": "SHA256SUMS"}, raw)
    assert [(code, pointer) for code, _msg, pointer, _line in listing.problems] == [("manifest-entry", "#line=1")]
    assert "line 1 is not" in listing.problems[0][1]
    assert list(listing.entries) == ["a.txt"] and listing.entries["a.txt"].sha256 == digest
