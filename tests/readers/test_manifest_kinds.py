"""One integrity implementation for every manifest kind (issue 10, item 4): our manifest.json, files-map, sha256sums, entries."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from verifier.checks import integrity
from verifier.core import verify_path
from verifier.model.findings import Status
from verifier.engine.pipeline import Context
from verifier.readers.manifests import V1_MANIFEST, read_listing
from verifier.readers.tree import Tree

PACKAGE = Path(integrity.__file__).resolve().parents[1]

FILES = {"a.txt": b"alpha\n", "sub/b.bin": bytes(range(256))}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# Each kind: its profile `manifest` spec and the manifest file's bytes for FILES.
KINDS = {
    "files-map": ({"kind": "files-map", "file": "manifest.json", "pointer": "/files", "sha256": "sha256", "size": "bytes",
                   "missing": "fail", "unlisted": "fail"},
                  json.dumps({"files": {p: {"sha256": _sha(d), "bytes": len(d)} for p, d in FILES.items()}}).encode()),
    "sha256sums": ({"kind": "sha256sums", "file": "SHA256SUMS", "missing": "fail", "unlisted": "fail"},
                   "".join(f"{_sha(d)}  {p}\n" for p, d in FILES.items()).encode()),
    "entries": ({"kind": "entries", "file": "index.json", "pointer": "/artifacts", "path": "path", "sha256": "digest",
                 "size": "bytes", "missing": "fail", "unlisted": "fail"},
                json.dumps({"artifacts": [{"path": p, "digest": "sha256:" + _sha(d).upper(), "bytes": len(d)}
                                          for p, d in FILES.items()]}).encode()),
}


def _tree(tmp_path: Path, kind: str) -> tuple[Tree, dict]:
    spec, manifest = KINDS[kind]
    for rel, data in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    (tmp_path / spec["file"]).write_bytes(manifest)
    return Tree(root=tmp_path), spec


def _run(tree: Tree, spec: dict) -> list[tuple[str, str, str | None]]:
    ctx = Context(subject=tree.root, assets=None, bundle=tree, options={"profile": {"manifest": spec}})
    return [(f.status.value, f.code, f.path) for f in integrity.files(ctx)]


def test_the_parallel_integrity_road_is_gone():
    assert not (PACKAGE / "checks" / "profile_integrity.py").exists()
    # one registration for every reader (issue 36): a profile's manifest is read by the same body (`listed_of`, `judge`)
    assert integrity.files.id == "integrity.files" and not hasattr(integrity, "listed")
    assert [integrity.files.on(road).title for road in ("bundle", "profile")] == [
        "Bundle files match the manifest (sha256 and size), nothing unlisted", "Bundle files match the manifest the profile names (sha256 and size)"]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_reads_the_same_listing_as_our_own_manifest(tmp_path, kind):
    spec, raw = KINDS[kind]
    listing = read_listing(spec, raw if kind == "sha256sums" else json.loads(raw))
    native = read_listing(V1_MANIFEST, {"files": [{"path": p, "sha256": _sha(d), "size": len(d)} for p, d in FILES.items()]})
    assert listing.problems == [] and native.problems == []
    sizes = kind != "sha256sums"  # sha256sum states no sizes
    assert {k: (e.sha256, e.size) for k, e in listing.entries.items()} == \
        {k: (e.sha256, e.size if sizes else None) for k, e in native.entries.items()}


@pytest.mark.parametrize("digest", ["sha1:" + "a" * 40, "md5:" + "a" * 32, "blake2b:" + "a" * 64, "a" * 63, "sha256:" + "g" * 64])
def test_a_digest_that_is_not_a_sha256_is_a_manifest_entry_problem(digest):
    spec = KINDS["entries"][0]
    listing = read_listing(spec, {"artifacts": [{"path": "a.txt", "digest": digest, "bytes": 6}]})
    assert listing.entries == {} and [p[0] for p in listing.problems] == ["manifest-entry"]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_passes_when_the_files_match(tmp_path, kind):
    tree, spec = _tree(tmp_path, kind)
    assert sorted(_run(tree, spec)) == [("PASS", "match", "a.txt"), ("PASS", "match", "sub/b.bin")]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_fails_tampering_exactly_as_the_native_check_does(tmp_path, kind):
    tree, spec = _tree(tmp_path, kind)
    (tmp_path / "a.txt").write_bytes(b"alphA\n")  # same size, other bytes
    (tmp_path / "sub/b.bin").unlink()
    (tmp_path / "extra.txt").write_bytes(b"x")
    (tmp_path / "link.txt").symlink_to("a.txt")
    found = _run(tree, spec)
    assert ("FAIL", "sha256-mismatch", "a.txt") in found
    assert ("FAIL", "missing-file", "sub/b.bin") in found
    assert ("FAIL", "unlisted-file", "extra.txt") in found
    assert ("FAIL", "symlink", "link.txt") in found
    assert not any(status == "PASS" for status, _, _ in found)
    assert set(tree.blocked) == {"a.txt", "extra.txt"}  # never parsed by later checks


def test_the_native_bundle_reports_the_same_codes(example_copy):
    manifest = json.loads((example_copy / "manifest.json").read_text())
    first, second = manifest["files"][0]["path"], manifest["files"][1]["path"]
    data = bytearray((example_copy / first).read_bytes())
    data[-1] ^= 1
    (example_copy / first).write_bytes(bytes(data))
    (example_copy / second).unlink()
    (example_copy / "extra.txt").write_bytes(b"x")
    found = {(f.status, f.code, f.path) for f in verify_path(str(example_copy)).findings if f.check == "integrity.files"}
    assert {(Status.FAIL, "sha256-mismatch", first), (Status.FAIL, "missing-file", second),
            (Status.FAIL, "unlisted-file", "extra.txt")} <= found


def test_sizes_are_compared_only_where_the_kind_states_them(tmp_path):
    tree, spec = _tree(tmp_path, "sha256sums")
    assert ("PASS", "match", "a.txt") in _run(tree, spec)
    tree, spec = _tree(tmp_path / "x", "files-map") if (tmp_path / "x").mkdir() is None else (None, None)
    manifest = json.loads((tree.root / "manifest.json").read_text())
    manifest["files"]["a.txt"]["bytes"] = 7
    (tree.root / "manifest.json").write_text(json.dumps(manifest))
    assert ("FAIL", "size-mismatch", "a.txt") in _run(Tree(root=tree.root), spec)


def _published_run(tree: Tree, spec: dict, artifacts: Path | None) -> list[tuple[str, str, str | None]]:
    ctx = Context(subject=tree.root, assets=None, bundle=tree,
                  options={"profile": {"manifest": {**spec, "missing": "unverified"}}, "artifacts": str(artifacts) if artifacts else None})
    return [(f.status.value, f.code, f.path) for f in integrity.files(ctx) if f.path == "sub/b.bin"], ctx.run.externals_verified


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("supplied,expected", [
    (FILES["sub/b.bin"], ("PASS", "external-match")),
    (FILES["sub/b.bin"][:-1] + b"\x00", ("FAIL", "external-mismatch")),  # same size, other bytes
    (FILES["sub/b.bin"] + b"\x00", ("FAIL", "external-mismatch")),  # one byte more: caught by size where the kind states it, else by digest
    (None, ("UNVERIFIED", "external-not-supplied")),
])
def test_a_listed_file_the_copy_lacks_is_matched_against_artifacts_for_every_kind(tmp_path, kind, supplied, expected):
    (tmp_path / "bundle").mkdir()
    tree, spec = _tree(tmp_path / "bundle", kind)
    (tree.root / "sub" / "b.bin").unlink()
    artifacts = tmp_path / "published"
    if supplied is not None:
        (artifacts / "sub").mkdir(parents=True)
        (artifacts / "sub" / "b.bin").write_bytes(supplied)
    found, verified = _published_run(Tree(root=tree.root), spec, artifacts)
    assert [(s, c) for s, c, _ in found] == [expected]
    assert ("sub/b.bin" in verified) == (expected[0] == "PASS")
    without, _ = _published_run(Tree(root=tree.root), spec, None)
    assert [(s, c) for s, c, _ in without] == [("UNVERIFIED", "external-not-supplied")]


def test_a_size_the_listing_states_is_compared_before_the_digest(tmp_path, monkeypatch):
    (tmp_path / "bundle").mkdir()
    tree, spec = _tree(tmp_path / "bundle", "entries")
    (tree.root / "sub" / "b.bin").unlink()
    (tmp_path / "published" / "sub").mkdir(parents=True)
    (tmp_path / "published" / "sub" / "b.bin").write_bytes(FILES["sub/b.bin"] + b"\x00")
    monkeypatch.setattr(integrity, "hash_file", lambda path: (path.stat().st_size, _sha(FILES["sub/b.bin"])))  # a digest that would match
    found, _ = _published_run(Tree(root=tree.root), spec, tmp_path / "published")
    assert [(s, c) for s, c, _ in found] == [("FAIL", "external-mismatch")]


@pytest.mark.parametrize("name,line,safe", [
    ("back\\slash.mp4", "\\{sha}  back\\\\slash.mp4", False),  # what GNU sha256sum writes for a name holding a backslash
    ("new\nline.mp4", "\\{sha}  new\\nline.mp4", False),
    ("cr\rx.mp4", "\\{sha} *cr\\rx.mp4", False),
    ("para\u2028sep.mp4", "{sha}  para\u2028sep.mp4", False),  # not a line break of sha256sum's format
    ("plain.mp4", "{sha}  plain.mp4\r", True),  # a CRLF file
    ("plain.mp4", "\\{sha}  plain.mp4", True),  # escaped though nothing needed it
])
def test_sha256sum_lines_are_read_as_gnu_coreutils_writes_them(name, line, safe):
    sha = _sha(b"x")
    listing = read_listing(KINDS["sha256sums"][0], (line.format(sha=sha) + "\n").encode())
    if safe:
        assert listing.problems == [] and {k: e.sha256 for k, e in listing.entries.items()} == {name: sha}
    else:  # the name as written, refused by the one path rule (`verifier.formats.bundle.unsafe_reason`), not as a malformed line
        assert listing.entries == {} and [(p[0], p[3]) for p in listing.problems] == [("unsafe-path", name)]


def test_an_escape_sha256sum_never_writes_is_a_manifest_entry_problem():
    listing = read_listing(KINDS["sha256sums"][0], f"\\{_sha(b'x')}  tab\\there.mp4\n".encode())
    assert listing.entries == {} and [p[0] for p in listing.problems] == ["manifest-entry"] and "\\t" in listing.problems[0][1]


def test_a_listed_name_the_path_rule_refuses_is_one_finding_not_also_unlisted(tmp_path):
    tree, spec = _tree(tmp_path, "sha256sums")
    (tmp_path / "back\\slash.txt").write_bytes(b"x")
    with (tmp_path / "SHA256SUMS").open("a") as sums:
        sums.write(f"\\{_sha(b'x')}  back\\\\slash.txt\n")  # as GNU sha256sum writes it
    found = [(s, c) for s, c, p in _run(Tree(root=tmp_path), spec) if s != "PASS"]
    assert found == [("FAIL", "unsafe-path")]


def test_a_supplied_file_of_another_size_than_listed_is_refused_unread(tmp_path, monkeypatch):
    (tmp_path / "bundle").mkdir()
    tree, spec = _tree(tmp_path / "bundle", "entries")
    (tree.root / "sub" / "b.bin").unlink()
    (tmp_path / "published" / "sub").mkdir(parents=True)
    (tmp_path / "published" / "sub" / "b.bin").write_bytes(b"\0" * 10_000)

    def refuse(path):
        raise AssertionError(f"{path} was read although its size already contradicts the listing")

    monkeypatch.setattr(integrity, "hash_file", refuse)
    found, _ = _published_run(Tree(root=tree.root), spec, tmp_path / "published")
    assert [(s, c) for s, c, _ in found] == [("FAIL", "external-mismatch")]
