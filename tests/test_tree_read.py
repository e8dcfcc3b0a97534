"""`Tree.read_bytes` returns a file's bytes exactly, whatever its size, and never follows a symlink."""

from __future__ import annotations

import os

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
