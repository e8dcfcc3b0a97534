"""
Issue 10 acceptance: the example bundle laid out in a foreign shape reads through a profile onto the same checks.

The foreign layout has other names and nesting, a `SHA256SUMS` manifest and
CSV receipts (latencies in ms). A profile maps its plan, receipts, claims,
media and quality index (`bundle` section, `verifier.readers.mapped`); the
plan-conformance, coverage, derivation and quality findings must equal the
native ones, and the same mutations (a truncated audio track, a warmup
counted as measured) must FAIL through the profile exactly as natively.
"""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import json
import shutil
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest
from bundlekit import dumps, rehash
from conftest import ROOT, make_assets

from verifier.core import verify_path

pytestmark = pytest.mark.media

FAMILIES = ("plan.conformance", "coverage.streams", "derivation.claims", "quality.recorded", "quality.rescore")

PROFILE = {
    "id": "ref2va-foreign",
    "version": 1,
    "description": "The ref2va example laid out by another team: SHA256SUMS, CSV receipts in ms, media per server",
    "detect": {"files": ["SHA256SUMS", "run/frozen-plan.json"]},
    "manifest": {"kind": "sha256sums", "file": "SHA256SUMS", "missing": "fail", "unlisted": "fail"},
    "bundle": {
        "gate": "ref2va-5s-v1",
        "documents": {
            "plan": {"file": "run/frozen-plan.json"},
            "claims": {"file": "summary/headline.json"},
            "quality": {"file": "scores/index.json"},
            "receipts": {"sources": [
                {"file": "run/requests.csv", "encoding": "csv", "record": {
                    "kind": {"value": "request"},
                    "request_id": {"column": "id"},
                    "arm": {"column": "arm"},
                    "server": {"column": "server"},
                    "phase": {"column": "phase"},
                    "started_at": {"column": "start"},
                    "ended_at": {"column": "end"},
                    "elapsed_s": {"column": "latency_ms", "type": "number", "unit": "ms", "to": "s"},
                    "outcome": {"column": "outcome"},
                    "http_status": {"column": "http_status", "type": "integer", "keep_null": True},
                    "error": {"column": "error", "keep_null": True},
                    "outputs": {"list": [{"object": {"path": {"column": "output"}, "sha256": {"column": "output_sha256"}}}]},
                }},
                {"file": "run/workers.csv", "encoding": "csv", "record": {
                    "kind": {"value": "worker"},
                    "worker_id": {"column": "worker"},
                    "arm": {"column": "arm"},
                    "server": {"column": "server"},
                    "pid": {"column": "pid", "type": "integer"},
                    "started_at": {"column": "start"},
                    "ended_at": {"column": "end"},
                    "exit_code": {"column": "exit_code", "type": "integer", "keep_null": True},
                    "signal": {"column": "signal", "keep_null": True},
                }},
            ]},
        },
    },
}

REQUEST_COLUMNS = ["id", "arm", "server", "phase", "start", "end", "latency_ms", "outcome", "http_status", "error", "output", "output_sha256"]
WORKER_COLUMNS = ["worker", "arm", "server", "pid", "start", "end", "exit_code", "signal"]


def _moved(path: str) -> str:
    """media/A1-m1.mp4 -> out/A1/A1-m1.mp4 (nested per server)."""
    name = path.split("/")[-1]
    return f"out/{name.split('-')[0]}/{name}"


def _cell(value) -> str:
    return "" if value is None else str(value)


def lay_out_foreign(native: Path, dest: Path) -> Path:
    """Write `native` (a bundle v1 directory) to `dest` in the foreign shape; return `dest`."""
    dest.mkdir(parents=True)
    for media in sorted((native / "media").glob("*.mp4")):
        target = dest / _moved(f"media/{media.name}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(media, target)
    (dest / "run").mkdir()
    (dest / "summary").mkdir()
    (dest / "scores").mkdir()
    (dest / "notes").mkdir()
    shutil.copy(native / "plan.json", dest / "run" / "frozen-plan.json")
    shutil.copy(native / "claims.json", dest / "summary" / "headline.json")
    shutil.copy(native / "README.md", dest / "notes" / "README.md")
    quality = json.loads((native / "quality-index.json").read_text(), parse_float=Decimal)
    for comparison in quality["comparisons"]:
        comparison["reference"], comparison["candidate"] = _moved(comparison["reference"]), _moved(comparison["candidate"])
    (dest / "scores" / "index.json").write_text(dumps(quality))
    receipts = [json.loads(line, parse_float=Decimal) for line in (native / "receipts.jsonl").read_text().splitlines() if line.strip()]
    with open(dest / "run" / "requests.csv", "w", newline="") as requests, open(dest / "run" / "workers.csv", "w", newline="") as workers:
        rw, ww = csv.writer(requests), csv.writer(workers)
        rw.writerow(REQUEST_COLUMNS)
        ww.writerow(WORKER_COLUMNS)
        for r in receipts:
            if r["kind"] == "request":
                out = r["outputs"][0] if r["outputs"] else {"path": None, "sha256": None}
                rw.writerow([r["request_id"], r["arm"], r["server"], r["phase"], r["started_at"], r["ended_at"],
                             _cell(r["elapsed_s"] * 1000), r["outcome"], _cell(r["http_status"]), _cell(r["error"]),
                             _cell(out["path"] and _moved(out["path"])), _cell(out["sha256"])])
            else:
                ww.writerow([r["worker_id"], r["arm"], r["server"], r["pid"], r["started_at"], r["ended_at"], _cell(r["exit_code"]), _cell(r["signal"])])
    files = sorted(p for p in dest.rglob("*") if p.is_file())
    (dest / "SHA256SUMS").write_text("".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(dest).as_posix()}\n" for p in files))
    return dest


@pytest.fixture(scope="module")
def assets(tmp_path_factory) -> str:
    return make_assets(tmp_path_factory.mktemp("foreign-assets"), {PROFILE["id"]: PROFILE})


def _families(report) -> Counter:
    """Return the multiset of (check, status, code, derived value) of the families that must agree across layouts."""
    out = Counter()
    for f in report.findings:
        if f.check in FAMILIES:
            value = f.expected if f.check == "derivation.claims" else None
            out[(f.check, f.status.value if hasattr(f.status, "value") else f.status, f.code, str(value))] += 1
    return out


def _both(native: Path, tmp_path: Path, assets: str):
    foreign = lay_out_foreign(native, tmp_path / "foreign")
    return verify_path(str(native), asset_root=assets), verify_path(str(foreign), asset_root=assets)


def test_the_foreign_layout_gets_the_native_findings(example_copy, tmp_path, assets):
    native, foreign = _both(example_copy, tmp_path, assets)
    assert native.verdict == "PASS"
    assert foreign.kind == f"profile:{PROFILE['id']}"
    assert [i.check for i in foreign.roster] == [i.check for i in native.roster]  # the same families, order and ids
    assert _families(foreign) == _families(native)
    assert {f.code for f in foreign.findings if f.check == "derivation.claims"} == {"derived"}
    assert foreign.verdict == "PASS", [(f.check, f.code, f.message) for f in foreign.findings if f.status != "PASS"]


def _load_clips():
    spec = importlib.util.spec_from_file_location("make_clips", ROOT / "tests" / "media" / "make_clips.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _restate_output(bundle: Path, name: str) -> None:
    """Make receipts.jsonl record the current sha256 of media/`name`, then re-pin the manifest (the mutation is the media only)."""
    digest = hashlib.sha256((bundle / "media" / name).read_bytes()).hexdigest()
    lines = (bundle / "receipts.jsonl").read_text().splitlines()
    out = []
    for line in lines:
        r = json.loads(line, parse_float=Decimal)
        for o in r.get("outputs", []):
            if o["path"] == f"media/{name}":
                line = line.replace(o["sha256"], digest)
        out.append(line)
    (bundle / "receipts.jsonl").write_text("\n".join(out) + "\n")
    rehash(bundle)


def test_a_truncated_audio_track_fails_through_the_profile_as_natively(example_copy, tmp_path, assets):
    _load_clips().write_clip(example_copy / "media" / "A1-m1.mp4", audio_samples=16000)
    _restate_output(example_copy, "A1-m1.mp4")
    native, foreign = _both(example_copy, tmp_path, assets)
    assert ("coverage.streams", "FAIL", "audio-end-short", "None") in _families(native)
    assert native.verdict == foreign.verdict == "FAIL"
    assert _families(foreign) == _families(native)


def test_a_warmup_counted_as_measured_fails_through_the_profile_as_natively(example_copy, tmp_path, assets):
    text = (example_copy / "receipts.jsonl").read_text()
    line = next(x for x in text.splitlines() if '"request_id": "A1-w2"' in x)
    (example_copy / "receipts.jsonl").write_text(text.replace(line, line.replace('"phase": "warmup"', '"phase": "measured"')))
    rehash(example_copy)
    native, foreign = _both(example_copy, tmp_path, assets)
    assert native.verdict == foreign.verdict == "FAIL"
    assert any(k[0] == "plan.conformance" and k[1] == "FAIL" for k in _families(native))
    assert _families(foreign) == _families(native)


def _model(path: Path, assets: str, profile: dict | None = None):
    """Run the pipeline on `path` (native, or mapped through `profile`) and return the evidence model of the run."""
    from verifier.formats.bundle import Bundle
    from verifier.core import BUNDLE_PIPELINE
    from verifier.engine.pipeline import Context, run_pipeline
    from verifier.readers.mapped import MappedBundle, mapped_pipeline
    from verifier.readers.native import evidence_of
    from verifier.readers.tree import Tree
    from verifier.trust.assets import Assets

    trusted = Assets(Path(assets))
    if profile is None:
        ctx = Context(subject=path, assets=trusted, bundle=Bundle(root=path))
        run_pipeline(BUNDLE_PIPELINE, ctx)
    else:
        ctx = Context(subject=path, assets=trusted, bundle=MappedBundle.of(Tree(root=path), profile["bundle"]), options={"profile": profile})
        run_pipeline(mapped_pipeline(BUNDLE_PIPELINE), ctx)
    return evidence_of(ctx)


def test_both_readers_produce_the_same_evidence_model(example_copy, tmp_path, assets):
    native = _model(example_copy, assets)
    foreign = _model(lay_out_foreign(example_copy, tmp_path / "foreign"), assets, PROFILE)
    assert (native.reader, foreign.reader) == ("bundle-v1", "profile:ref2va-foreign")
    assert native.gate == foreign.gate == "ref2va-5s-v1" and not native.unmapped and not foreign.unmapped
    assert foreign.plan.requests == native.plan.requests and foreign.plan.per_server == native.plan.per_server
    assert [(r.dims, r.quantities["elapsed"].value, r.ok) for r in foreign.receipts] == \
           [(r.dims, r.quantities["elapsed"].value, r.ok) for r in native.receipts]
    assert foreign.receipts[0].quantities["elapsed"].unit == "s" and len(native.receipts) == 20
    assert [(c.id, c.quantity) for c in foreign.claims] == [(c.id, c.quantity) for c in native.claims]
    assert [(q.id, q.scores) for q in foreign.quality] == [(q.id, q.scores) for q in native.quality] and native.quality
    assert foreign.scorers == native.scorers and [p.text for p in foreign.prose] == [p.text for p in native.prose]
    assert [(m.path, m.role) for m in foreign.media] == [(_moved(m.path), m.role) for m in native.media]
    assert len(foreign.files) == len(native.files) + 1  # SHA256SUMS lists the two CSVs where manifest.json lists receipts.jsonl
    assert all(getattr(native, part) for part in ("plan", "receipts", "claims", "quality", "media", "gate", "processes"))
    assert [(p.name, p.exit_code, p.signal) for p in foreign.processes] == [(p.name, p.exit_code, p.signal) for p in native.processes]


def test_a_quantity_takes_its_unit_from_the_one_registry():
    from verifier.model.evidence import Quantity
    from verifier.model.units import UnitError

    assert Quantity(Decimal("1500"), "ms").to("s") == Decimal("1.5")
    with pytest.raises(UnitError):
        Quantity(Decimal(1), "furlongs")


def test_a_column_no_field_reads_is_unverified_not_ignored(example_copy, tmp_path, assets):
    foreign = lay_out_foreign(example_copy, tmp_path / "foreign")
    csv_path = foreign / "run" / "workers.csv"
    rows = [line + (",note" if i == 0 else ",x") for i, line in enumerate(csv_path.read_text().splitlines())]
    csv_path.write_text("\n".join(rows) + "\n")
    sums = foreign / "SHA256SUMS"
    sums.write_text("".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(foreign).as_posix()}\n"
                            for p in sorted(foreign.rglob("*")) if p.is_file() and p.name != "SHA256SUMS"))
    report = verify_path(str(foreign), asset_root=assets)
    unmapped = [f for f in report.findings if f.code == "unmapped-field"]
    assert [(f.check, f.status, f.path) for f in unmapped] == [("schema.documents", "UNVERIFIED", "run/workers.csv")]
    assert "'note'" in unmapped[0].message and report.verdict == "INCOMPLETE"


def test_a_mapped_unit_outside_the_registry_refuses_the_profile(tmp_path):
    import copy

    from verifier.errors import ConfigError

    doc = copy.deepcopy(PROFILE)
    doc["bundle"]["documents"]["receipts"]["sources"][0]["record"]["elapsed_s"]["unit"] = "furlongs"
    root = make_assets(tmp_path, {doc["id"]: doc})
    from verifier.trust.assets import Assets

    with pytest.raises(ConfigError, match=r"/bundle/documents/receipts/sources/0/record/elapsed_s/unit.*furlongs"):
        Assets(Path(root)).profile(doc["id"])


def test_claims_text_binds_through_a_mapped_profile_as_natively(example_copy, tmp_path, assets):
    """A pull-request body is checked against a bundle read through a profile, not silently dropped (newcomer defect)."""
    foreign = lay_out_foreign(example_copy, tmp_path / "foreign")
    text = ("pr.md", "HTTP E2E went 407.27 s -> 108.12 s, 73.45 % lower.\n\nThat is 3.95x faster.\n")
    reports = [verify_path(str(p), asset_root=assets, claims_text=text) for p in (example_copy, foreign)]
    stated = [sorted((f.status.value, f.code) for f in r.findings if f.check == "claims.stated"
                     and isinstance(f.observed, dict) and f.observed.get("source") == "pr.md") for r in reports]
    assert stated[0] == stated[1]
    assert ("FAIL", "claim-mismatch") in stated[1] and any(status == "PASS" for status, _ in stated[1])
    assert reports[1].verdict == "FAIL"


def test_a_draft_profile_with_a_bundle_section_is_marked_unpinned_and_never_passes(example_copy, tmp_path, assets):
    foreign = lay_out_foreign(example_copy, tmp_path / "foreign")
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps({**PROFILE, "id": "ref2va-draft"}))
    report = verify_path(str(foreign), asset_root=assets, profile=str(draft))
    gate = [(f.status.value, f.code) for f in report.findings if f.check == "gate.pinned"]
    assert ("UNVERIFIED", "profile-unpinned") in gate
    assert report.verdict == "INCOMPLETE"
    assert "ref2va-draft" in json.dumps(report.trust)


def test_a_mapped_bundle_is_judged_by_its_gate_and_names_its_profile_only_when_unpinned(example_copy, tmp_path, assets):
    """
    `gate.pinned` through a mapped profile (`checks.gate.pinned`, one body for every reader, issue 36): a pinned profile adds no finding (the gate's
    PASS names what judges the bundle); a draft given as a file adds its UNVERIFIED `profile-unpinned` before the gate's.
    """
    foreign = lay_out_foreign(example_copy, tmp_path / "foreign")
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps({**PROFILE, "id": "ref2va-draft"}))
    found = [[(f.status.value, f.code) for f in verify_path(str(foreign), asset_root=assets, **kw).findings if f.check == "gate.pinned"]
             for kw in ({}, {"profile": str(draft)})]
    assert found == [[("PASS", "pinned")], [("UNVERIFIED", "profile-unpinned"), ("PASS", "pinned")]]


def test_findings_name_the_files_of_the_foreign_bundle(example_copy, tmp_path, assets):
    # a native check names a document by its v1 name; read through the profile it names the foreign file it read
    foreign_dir = lay_out_foreign(example_copy, tmp_path / "foreign")
    foreign = verify_path(str(foreign_dir), asset_root=assets)
    named = {f.path for f in foreign.findings if f.path}
    assert not [p for p in named if not (foreign_dir / p).exists()], "findings name files the bundle does not hold"
    derived = [f for f in foreign.findings if f.check == "derivation.claims"]
    assert derived and {f.path for f in derived} == {"summary/headline.json"}
    assert {f.path for f in foreign.findings if f.check == "quality.recorded"} == {"scores/index.json"}


def test_a_claim_missing_from_the_foreign_file_names_it(example_copy, tmp_path, assets):
    claims = json.loads((example_copy / "claims.json").read_text())  # floats: these values round-trip exactly
    claims["claims"] = claims["claims"][1:]
    (example_copy / "claims.json").write_text(json.dumps(claims))
    rehash(example_copy)
    foreign = verify_path(str(lay_out_foreign(example_copy, tmp_path / "foreign")), asset_root=assets)
    missing = [f for f in foreign.findings if f.code == "claim-missing"]
    assert missing and all(f.path == "summary/headline.json" for f in missing)
    assert "summary/headline.json (read as claims.json)" in missing[0].message
