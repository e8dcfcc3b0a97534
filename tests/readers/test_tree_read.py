"""`Tree.read_bytes` returns a file's bytes exactly, whatever its size, and never follows a symlink."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from verifier.readers.tree import Tree


@pytest.mark.parametrize("size", [0, 1, 4095, (1 << 20) + 1, 3 * (1 << 20) + 7])
def test_reads_every_byte(tmp_path, size):
    data = os.urandom(size)
    (tmp_path / "f.bin").write_bytes(data)
    assert Tree(root=tmp_path).read_bytes("f.bin") == data


def test_a_file_that_grows_after_its_size_was_taken_is_read_to_its_end(tmp_path, monkeypatch):
    (tmp_path / "f.txt").write_bytes(b"x" * 10)
    real = os.fstat

    def stale(fd):  # the size a file had before a writer appended to it
        result = real(fd)
        return os.stat_result((*result[:6], 3, *result[7:]))

    monkeypatch.setattr(os, "fstat", stale)
    assert Tree(root=tmp_path).read_bytes("f.txt") == b"x" * 10


def test_a_symlink_is_not_read(tmp_path):
    (tmp_path / "real.txt").write_text("secret")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real.txt")
    with pytest.raises(OSError):
        Tree(root=tmp_path).read_bytes("link.txt")


def test_reads_every_byte_whatever_fstat_says_and_however_short_the_reads(tmp_path, monkeypatch):
    """The read that stops at fstat's size (no read to confirm the end) is taken only when that size is the whole file."""
    import random

    rng = random.Random(11)
    real_fstat, real_read = os.fstat, os.read
    said = {"delta": 0, "chunk": None}

    def fstat(fd):  # a size off by `delta` (a file that grew or shrank after it was taken, or a file system that guesses)
        result = real_fstat(fd)
        return os.stat_result((*result[:6], max(0, result.st_size + said["delta"]), *result[7:]))

    def read(fd, n):  # reads no longer than `chunk` (a file system that returns short reads)
        return real_read(fd, n if said["chunk"] is None else min(n, said["chunk"]))

    monkeypatch.setattr(os, "fstat", fstat)
    monkeypatch.setattr(os, "read", read)
    for _ in range(300):
        data = os.urandom(rng.choice([0, 1, 2, 7, 100, 4096, 70000]))
        (tmp_path / "f.bin").write_bytes(data)
        said["delta"] = rng.choice([0, 0, -1, 1, -len(data), 5, -3])
        said["chunk"] = rng.choice([None, None, 1, 3, 4096])
        assert Tree(root=tmp_path).read_bytes("f.bin") == data, said


@pytest.mark.parametrize("root", ["/", ".", "rel/dir", "/abs/dir", "/abs/dir/", "rel/"])
def test_the_path_opened_is_os_path_join_of_root_and_name(monkeypatch, root):
    opened = []

    def fake_open(path, flags):
        opened.append(path)
        raise FileNotFoundError(path)

    tree = Tree(root=Path(root), only=frozenset({"a.txt", "d/b.txt"}))
    monkeypatch.setattr(os, "open", fake_open)
    for rel in ("a.txt", "d/b.txt"):
        with pytest.raises(FileNotFoundError):
            tree.read_bytes(rel)
    assert opened == [os.path.join(Path(root), "a.txt"), os.path.join(Path(root), "d/b.txt")]
