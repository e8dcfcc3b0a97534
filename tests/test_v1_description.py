"""Bundle format v1 described in the profile language (issue 10, item 2): read through that description, the example gets the native findings."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from conftest import ROOT

from verifier.bundle import Bundle
from verifier.checks.integrity import listed
from verifier.checks.profile import pinned as profile_pinned
from verifier.core import BUNDLE_PIPELINE
from verifier.pipeline import Context, run_pipeline
from verifier.profiles import load_profile
from verifier.readers.mapped import MappedBundle, mapped_pipeline
from verifier.readers.native import V1_PROFILE
from verifier.readers.tree import Tree
from verifier.trust import Assets

pytestmark = pytest.mark.media


def _findings(path: Path, profile: dict | None) -> list[tuple]:
    trusted = Assets(ROOT)
    if profile is None:
        ctx = Context(subject=path, assets=trusted, bundle=Bundle(root=path))
        findings, _ = run_pipeline(BUNDLE_PIPELINE, ctx)
    else:
        ctx = Context(subject=path, assets=trusted, bundle=MappedBundle.of(Tree(root=path), profile["bundle"]), options={"profile": profile})
        findings, _ = run_pipeline(mapped_pipeline(BUNDLE_PIPELINE, listed, profile_pinned), ctx)
    return sorted((f.check, f.status.value, f.code, f.path or "", f.pointer or "") for f in findings)


def test_the_description_is_a_valid_profile():
    load_profile(copy.deepcopy(V1_PROFILE), Assets(ROOT).schema("profile"), origin="V1_PROFILE")


def test_the_example_read_through_the_description_gets_the_native_findings(example_copy):
    native = _findings(example_copy, None)
    described = _findings(example_copy, V1_PROFILE)
    assert native == described
    assert len([f for f in native if f[1] == "PASS"]) == 151


def test_a_tampered_copy_fails_alike(example_copy):
    receipts = example_copy / "receipts.jsonl"
    receipts.write_bytes(receipts.read_bytes().replace(b"396.30", b"396.31", 1))
    native = _findings(example_copy, None)
    assert ("integrity.files", "FAIL", "sha256-mismatch", "receipts.jsonl", "/files/2") in native or any(
        f[:3] == ("integrity.files", "FAIL", "sha256-mismatch") for f in native)
    assert _findings(example_copy, V1_PROFILE) == native
