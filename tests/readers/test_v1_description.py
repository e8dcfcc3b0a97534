"""Bundle format v1 described in the profile language (issue 10, item 2): read through that description, the example gets the native findings."""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path

import pytest
from conftest import ROOT

from verifier.formats.bundle import Bundle
from verifier.core import BUNDLE_PIPELINE
from verifier.engine.pipeline import Context, run_pipeline
from verifier.profiles.language import load_profile
from verifier.readers.mapped import MappedBundle, mapped_pipeline
from verifier.readers.native import V1_PROFILE, evidence_of
from verifier.readers.tree import Tree
from verifier.trust.assets import Assets

pytestmark = pytest.mark.media


def _run(path: Path, profile: dict | None, artifacts: Path | None = None) -> tuple[list, Context]:
    trusted = Assets(ROOT)
    if profile is None:
        ctx = Context(subject=path, assets=trusted, bundle=Bundle(root=path), options={"artifacts": artifacts and str(artifacts)})
        findings, _ = run_pipeline(BUNDLE_PIPELINE, ctx)
    else:
        ctx = Context(subject=path, assets=trusted, bundle=MappedBundle.of(Tree(root=path), profile["bundle"]),
                      options={"profile": profile, "artifacts": artifacts and str(artifacts)})
        findings, _ = run_pipeline(mapped_pipeline(BUNDLE_PIPELINE), ctx)
    return findings, ctx


def _findings(path: Path, profile: dict | None, artifacts: Path | None = None) -> list[tuple]:
    findings, _ = _run(path, profile, artifacts)
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


def _with_external_and_attempt(bundle: Path, tmp: Path, *, mixed: bool = False, supplied: bytes = b"weights") -> Path:
    """Declare `weights/w.bin` external (supplied under the returned directory with bytes `supplied`) and retain a rejected attempt."""
    import json

    from bundlekit import rehash

    artifacts = tmp / "artifacts"
    (artifacts / "weights").mkdir(parents=True)
    (artifacts / "weights" / "w.bin").write_bytes(supplied)
    line = next(x for x in (bundle / "receipts.jsonl").read_text().splitlines() if '"request_id": "A1-m1"' in x)
    (bundle / "attempts").mkdir()
    (bundle / "attempts" / "rejected.jsonl").write_text((line if mixed else line.replace('"A1-m1"', '"A1-m1-first"')) + "\n")
    rehash(bundle)
    manifest = json.loads((bundle / "manifest.json").read_text())
    next(e for e in manifest["files"] if e["path"] == "attempts/rejected.jsonl")["role"] = "rejected-attempt"
    manifest["external"] = [{"path": "weights/w.bin", "sha256": hashlib.sha256(b"weights").hexdigest(), "size": 7, "source": "https://example.org/w.bin",
                             "reason": "too large for the bundle"}]
    (bundle / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return artifacts


def test_externals_with_digests_and_retained_attempts_are_said_by_the_description(example_copy, tmp_path):
    artifacts = _with_external_and_attempt(example_copy, tmp_path)
    native = _findings(example_copy, None, artifacts)
    assert ("integrity.files", "PASS", "external-match", "weights/w.bin", "/external/0") in native
    assert ("attempts.retained", "PASS", "attempt-retained", "attempts/rejected.jsonl", "") in native
    assert _findings(example_copy, V1_PROFILE, artifacts) == native
    models = [evidence_of(_run(example_copy, profile, artifacts)[1]) for profile in (None, V1_PROFILE)]
    assert [[(e.path, e.sha256, e.size, e.reason) for e in m.externals] for m in models] == \
        [[("weights/w.bin", hashlib.sha256(b"weights").hexdigest(), 7, "too large for the bundle")]] * 2
    assert [[(a.id, a.status) for a in m.attempts] for m in models] == [[("attempts/rejected.jsonl", "rejected")]] * 2


@pytest.mark.parametrize("mixed,supplied", [(True, b"weights"), (False, b"weightz")], ids=["attempt-mixed-in", "external-mismatch"])
def test_a_mixed_in_attempt_or_a_wrong_external_fails_through_the_description_as_natively(example_copy, tmp_path, mixed, supplied):
    artifacts = _with_external_and_attempt(example_copy, tmp_path, mixed=mixed, supplied=supplied)
    native = _findings(example_copy, None, artifacts)
    code = "attempt-mixed-in" if mixed else "external-mismatch"
    assert any(f[1] == "FAIL" and f[2] == code for f in native)
    assert _findings(example_copy, V1_PROFILE, artifacts) == native


def test_an_attempt_changed_after_hashing_is_not_parsed_through_the_description(example_copy, tmp_path, monkeypatch):
    # a mapped bundle keeps no bytes, so attempts.retained reads the file again: it must parse only the matched bytes
    from verifier.checks import receipts as receipts_check

    artifacts = _with_external_and_attempt(example_copy, tmp_path)
    attempt = example_copy / "attempts" / "rejected.jsonl"
    original = receipts_check.campaign_of

    def swap_then_read(ctx):
        attempt.write_bytes(attempt.read_bytes().replace(b'"A1-m1-first"', b'"A1-m1-other"'))  # still a valid attempt
        return original(ctx)

    monkeypatch.setattr(receipts_check, "campaign_of", swap_then_read)
    described = _findings(example_copy, V1_PROFILE, artifacts)
    assert ("attempts.retained", "FAIL", "changed-during-verification", "attempts/rejected.jsonl", "") in described
    assert not any(f[0] == "attempts.retained" and f[2] == "attempt-retained" for f in described)
