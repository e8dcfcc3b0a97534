"""
Test helpers: a tiny pinned asset root and small bundles and evidence repositories built in tmp dirs.

Bundles get their manifest from `verifier.commands.manifest.write_manifest`, the same
code as `verify manifest --write`.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from verifier.commands.manifest import write_manifest
from verifier.trust.assets import write_inventory

ROOT = Path(__file__).resolve().parent.parent

TINY_GATE = {
    "id": "tiny-v1",
    "version": 1,
    "description": "test gate: two arms, one server each, one measured request per server; counts and arm means",
    "plan": {"arm_order": ["A", "B"], "servers_per_arm": 1, "warmups_per_server": 0, "measured_per_server": 1},
    "claims": [
        {"claim": "count.requests", "statistic": "count", "of": "requests"},
        {"claim": "arm_mean_s", "statistic": "mean_of_server_means", "per": "arm", "selection": {"phase": "measured"}},
    ],
}


def make_assets(root: Path) -> Path:
    """Return an asset root with our schemas and gates plus `gates/tiny-v1.json`, pinned by a fresh inventory.json."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(ROOT / "schemas", root / "schemas")
    shutil.copytree(ROOT / "gates", root / "gates")
    (root / "gates" / "tiny-v1.json").write_text(json.dumps(TINY_GATE, indent=2))
    (root / "inventory.json").write_text(json.dumps({"inventory_version": 1, "assets": {}}))
    write_inventory(root)
    return root


def _receipt(rid: str, arm: str, server: str, start: str, end: str, elapsed: float) -> dict:
    return {"kind": "request", "request_id": rid, "arm": arm, "server": server, "phase": "measured",
            "started_at": start, "ended_at": end, "elapsed_s": elapsed, "outcome": "ok", "http_status": 200,
            "error": None, "outputs": []}


def write_bundle(root: Path, *, baseline_mean: str = "10.0", externals: list[dict] | None = None,
                 extra: dict[str, bytes] | None = None) -> Path:
    """
    Write a small bundle that PASSes under `tiny-v1` and return its directory.

    `baseline_mean` is the claimed baseline arm mean (derived: 10.0);
    `externals` are declared in the manifest before it is written; `extra`
    adds files (name -> bytes).
    """
    root.mkdir(parents=True, exist_ok=True)
    plan = {
        "format": "verify-plan", "format_version": 1, "campaign": "tiny", "frozen_at": "2026-01-01T00:00:00Z",
        "arms": [{"id": "baseline", "label": "A", "role": "baseline", "revision": "r0"},
                 {"id": "candidate", "label": "B", "role": "candidate", "revision": "r1"}],
        "servers": [{"id": "s1", "arm": "baseline"}, {"id": "s2", "arm": "candidate"}],
        "arm_order": ["A", "B"], "warmups_per_server": 0, "measured_per_server": 1,
        "requests": [{"id": "r1", "server": "s1", "phase": "measured"}, {"id": "r2", "server": "s2", "phase": "measured"}],
        "expected_output": {"frames": 24, "fps": "24", "sample_rate": 32000, "channels": 2},
    }
    receipts = [
        _receipt("r1", "baseline", "s1", "2026-01-01T00:00:00Z", "2026-01-01T00:00:10Z", 10.0),
        _receipt("r2", "candidate", "s2", "2026-01-01T00:01:00Z", "2026-01-01T00:01:05Z", 5.0),
    ]
    claims = {"format": "verify-claims", "format_version": 1, "claims": [
        {"id": "count.requests", "value": 2},
        {"id": "arm_mean_s.baseline", "value": float(baseline_mean), "unit": "s"},
        {"id": "arm_mean_s.candidate", "value": 5.0, "unit": "s"},
    ]}
    (root / "plan.json").write_text(json.dumps(plan, indent=2))
    (root / "receipts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in receipts))
    (root / "claims.json").write_text(json.dumps(claims, indent=2).replace(f"{float(baseline_mean)}", baseline_mean))
    for name, data in (extra or {}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    if externals:
        (root / "manifest.json").write_text(json.dumps({"format": "verify-bundle", "format_version": 1, "gate": "tiny-v1",
                                                       "files": [], "external": externals}))
        write_manifest(root)
    else:
        write_manifest(root, gate="tiny-v1")
    return root


def by_check(report, check: str, code: str | None = None) -> list:
    """Return the findings of `report` from `check` (and with `code`, when given)."""
    return [f for f in report.findings if f.check == check and (code is None or f.code == code)]


def one_claim(report, label: str):
    """Return the one `derivation.claims` finding whose message starts with `label:`; assert there is exactly one."""
    hits = [f for f in by_check(report, "derivation.claims") if f.message.startswith(label + ":")]
    assert len(hits) == 1, (label, [f.message for f in by_check(report, "derivation.claims")])
    return hits[0]


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write each `relative path -> text` of `files` under `root` (parents created); return `root`."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def sha256(path: Path) -> str:
    """Return the hex sha256 of a file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_repository(root: Path, names: tuple[str, ...] = ("campaign-a", "pilot-b"), *,
                     register: tuple[str, ...] | None = None) -> Path:
    """Write an evidence repository with one PASSing bundle per name, registering `register` (default: all)."""
    for name in names:
        write_bundle(root / "evidence" / name)
    bundles = {n: {"kind": "campaign" if n.startswith("campaign") else "pilot",
                   "manifest_sha256": sha256(root / "evidence" / n / "manifest.json")}
               for n in (names if register is None else register) if (root / "evidence" / n).is_dir()}
    (root / "evidence-inventory.json").write_text(json.dumps(
        {"format": "verify-evidence-inventory", "format_version": 1, "bundles": bundles}, indent=2))
    return root


def profile_receipt(path: str, pointer: str, raw: object = None, *, dims: dict | None = None, unread: str | None = None,
                    **values: object) -> object:
    """Return a profile-read `verifier.model.evidence.Receipt` for unit tests: `values` are base-unit numbers (seconds), None when missing."""
    from verifier.model.evidence import Location, Quantity, Receipt

    quantities = {name: None if v is None else Quantity(v, "s") for name, v in values.items()}
    return Receipt(dims=dict(dims or {}), quantities=quantities, location=Location(path, pointer or None), ok=unread is None,
                   raw=raw, unread=unread)


def profile_evidence(**sets: list) -> dict:
    """Return the `verifier.engine.pipeline.RunData` fields (a dict for `RunData(**...)`) holding the evidence model of a profile run whose receipt sets are `sets` (set id -> receipts)."""
    import dataclasses

    from verifier.model.evidence import Evidence

    receipts = tuple(dataclasses.replace(r, receipt_set=rid) for rid, rs in sets.items() for r in rs)
    return {"evidence": Evidence(reader="profile:test", receipts=receipts)}
