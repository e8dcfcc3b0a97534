"""
Tests of `verifier.readers.pointers.resolve`: JSON Pointer evaluation as RFC 6901 section 4 defines it.

An array index is "0" or ASCII digits without a leading zero; anything else
(a leading zero, a superscript or non-ASCII digit, "-") names no element, so
`KeyError`, never another exception and never some other element.
"""

from __future__ import annotations

import pytest

from verifier.readers.pointers import resolve

DOC = {"a": [10, 20, 30], "m~n": {"x/y": 1}, "": {"": 2}}


@pytest.mark.parametrize("pointer, value", [
    ("", DOC), ("/a/0", 10), ("/a/2", 30), ("/m~0n/x~1y", 1), ("//", 2),
])
def test_resolves_what_rfc_6901_names(pointer, value):
    assert resolve(DOC, pointer) == value


@pytest.mark.parametrize("pointer", ["/a/01", "/a/00", "/a/\u00b2", "/a/\u0967", "/a/-", "/a/3", "/a/-1", "/a/ 1", "/a/1.0", "/b", "/a/0/x"])
def test_anything_else_is_a_missing_step(pointer):
    with pytest.raises(KeyError):
        resolve(DOC, pointer)


@pytest.mark.parametrize("pointer", ["/a/01", "/a/\u00b2", "/a/\u0967", "/a/-"])
def test_the_grammars_pointer_walkers_read_indexes_alike(pointer):
    """The receipt grammars' `fold` walk refuses what `resolve` refuses (one rule: `jsonio.array_index`)."""
    from verifier.readers import grammars

    with pytest.raises(KeyError):
        grammars._walk(DOC, pointer[1:].split("/"))


def test_a_superscript_thread_limit_is_ignored(monkeypatch):
    from verifier.scorers import threads

    monkeypatch.setenv("OMP_NUM_THREADS", "\u00b2")
    assert threads._cpus() >= 1
