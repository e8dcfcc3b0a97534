"""
Tests that `verifier.readers.claimdocs._collect`, which reads a container's children in its own loop, yields what the one-call-per-node walk it replaced did.

The former walk is kept here as the spec; the claim documents of the corpus
(JSON, CSV and Markdown views) and generated documents (escaped and `#` keys,
prose items, true/false, null, numbers, strings stating none, one or several
numbers, nesting) must give the same `(pointer, value, parsed)` list in the same order, and
the `source` `_collect` adds must be the string the pointer names before `#`.
"""

from __future__ import annotations

import random
from decimal import Decimal

from conftest import CORPUS

from verifier.readers import claimdocs
from verifier.readers.tree import Tree


def _former(document, base, out, memo, skip=claimdocs._SHOWN_KEYS):
    """`_collect` before containers read their own children (since 4 Dec 2026 it skips the members in `skip`, not every `#` member)."""
    if isinstance(document, dict):
        prose = "numbers" in document and "text" in document and "#line" in document
        for key, value in document.items():
            if key in skip or (prose and key in ("text", "code")):
                continue
            _former(value, f"{base}/{claimdocs._escape(str(key))}", out, memo, skip)
    elif isinstance(document, list):
        for index, value in enumerate(document):
            _former(value, f"{base}/{index}", out, memo, skip)
    elif isinstance(document, str):
        found = memo.get(document)
        if found is None:
            found = memo[document] = claimdocs._string_numbers(document)
        out.extend((base + suffix, text, parsed) for suffix, text, parsed in found)
    elif isinstance(document, bool) or claimdocs.quantity(document) is not None:
        out.append((base, document, None))


def _both(document, base=""):
    """Return `_collect`'s `(pointer, value, parsed)` and the former walk's; each `source` `_collect` gives is checked to be the string its pointer names before `#`."""
    new: list = []
    old: list = []
    claimdocs._collect(document, base, new, {}, claimdocs._SHOWN_KEYS)
    _former(document, base, old, {})
    for pointer, value, _parsed, source in new:
        if isinstance(value, str) and pointer.startswith(base) and "#" not in pointer[len(base):].partition("#numbers/")[0]:
            assert source == claimdocs._string_at(document, pointer[len(base):].partition("#")[0], None), pointer
        else:
            assert source is None or "#" not in pointer[len(base):], pointer
    return [item[:3] for item in new], old


def test_the_corpus_claim_documents_are_read_as_by_the_former_walk():
    read = 0
    for bundle in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        tree = Tree(bundle)
        for rel in tree.files():
            if rel.rsplit(".", 1)[-1].lower() not in ("json", "csv", "md") or tree.read_bytes(rel).__len__() > 2_000_000:
                continue
            try:
                document = tree.json(rel)
            except Exception:  # not strict JSON or not its grammar: not a claim document this test can read
                continue
            new, old = _both(document)
            assert new == old, f"{bundle.name}/{rel}"
            read += bool(old)
    assert read >= 10


_LEAVES = [None, True, False, 0, 7, -3, Decimal("396.30"), 1.5, "", "no number", "244.6s", "75%", "18,812 MiB (32.1%)", "v2.6.0",
           "3 of 4 runs", "ConvRot-256"]
_KEYS = ["a", "b/c", "t~1", "#line", "#table", "text", "code", "numbers", "value", "0"]


def _document(rng: random.Random, depth: int):
    roll = rng.random()
    if depth > 4 or roll < 0.4:
        return rng.choice(_LEAVES)
    if roll < 0.7:
        return [_document(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    doc = {key: _document(rng, depth + 1) for key in rng.sample(_KEYS, rng.randint(0, 5))}
    if rng.random() < 0.2:
        doc.update({"#line": 3, "text": "12 GiB", "code": ["7"], "numbers": ["12 GiB"]})  # a Markdown prose item: text and code not walked
    return doc


def test_generated_documents_are_read_as_by_the_former_walk():
    rng = random.Random(11)
    kinds = set()
    for _ in range(3000):
        document = _document(rng, 0)
        new, old = _both(document, rng.choice(["", "/tables/x"]))
        assert new == old, document
        kinds |= {type(value).__name__ for _pointer, value, _parsed in old}
        kinds |= {"numbers-in" for pointer, _value, _parsed in old if "#numbers/" in pointer}
    assert {"bool", "int", "Decimal", "str", "numbers-in"} <= kinds
