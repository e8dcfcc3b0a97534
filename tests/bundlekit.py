"""
Test helpers: build small bundles and test asset roots (gates pinned like ours).

`rehash(bundle)` rewrites a bundle's manifest after a deliberate content
mutation, so a test reaches the check it targets instead of stopping at
integrity. `asset_root(tmp, gates)` copies our schemas and gates, adds test
gates and pins them all in a fresh `inventory.json`, exercising the real
pinning code.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def rehash(bundle: Path) -> None:
    """Rewrite `bundle/manifest.json` so every file on disk is listed with its current sha256 and size."""
    manifest = json.loads((bundle / "manifest.json").read_text())
    files = sorted(p for p in bundle.rglob("*") if p.is_file() and not p.is_symlink() and p.name != "manifest.json")
    manifest["files"] = [{"path": p.relative_to(bundle).as_posix(), "sha256": sha(p), "size": p.stat().st_size} for p in files]
    (bundle / "manifest.json").write_text(json.dumps(manifest, indent=2))


def edit_json(path: Path, change) -> None:
    """Load `path` (numbers as Decimal), apply `change(doc)`, write it back keeping stated precision."""
    doc = json.loads(path.read_text(), parse_float=Decimal)
    change(doc)
    path.write_text(dumps(doc))


def dumps(value: Any) -> str:
    """JSON text with `Decimal` written exactly as stated."""
    return json.dumps(value, indent=2, default=_dec).replace('"@D', "").replace('D@"', "")


def _dec(obj: Any) -> Any:
    if isinstance(obj, Decimal):
        return f"@D{obj}D@"
    raise TypeError(type(obj))


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line, parse_float=Decimal) for line in path.read_text().splitlines()]


def write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, default=_dec).replace('"@D', "").replace('D@"', "") + "\n" for r in rows))


def asset_root(tmp: Path, gates: dict[str, dict[str, Any]] | None = None) -> str:
    """Return a directory with our schemas, gates plus `gates`, pinned in a fresh inventory.json."""
    from verifier.trust.assets import write_inventory

    root = tmp / "assets"
    shutil.copytree(ROOT / "schemas", root / "schemas")
    shutil.copytree(ROOT / "gates", root / "gates")
    for gid, gate in (gates or {}).items():
        (root / "gates" / f"{gid}.json").write_text(json.dumps({"id": gid, "version": 1, "description": "test gate", **gate}, indent=2))
    (root / "inventory.json").write_text(json.dumps({"inventory_version": 1, "assets": {}}))
    write_inventory(root)
    return str(root)


def make_bundle(root: Path, gate: str, servers: dict[str, tuple[str, list[tuple[str, Any, str]]]],
                claims: dict[str, Any], *, arm_order: list[str] | None = None, plan_extra: dict[str, Any] | None = None) -> Path:
    """
    Write a minimal bundle (no media, no quality index) into `root`.

    `servers` maps server id -> (arm, [(phase, elapsed_s, outcome), ...]) in
    run order; arms are `baseline` (label A) and `candidate` (label B).
    Requests run back to back with 1 s gaps. Returns `root`.
    """
    root.mkdir(parents=True, exist_ok=True)
    labels = {"baseline": "A", "candidate": "B"}
    t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    requests, receipts = [], []
    warm = meas = None
    for sid, (arm, rows) in servers.items():
        counts = {"warmup": 0, "measured": 0}
        for phase, elapsed, outcome in rows:
            counts[phase] += 1
            rid = f"{sid}-{phase[0]}{counts[phase]}"
            requests.append({"id": rid, "server": sid, "phase": phase})
            value = Decimal(str(elapsed))
            end = t + timedelta(microseconds=int(value * 1_000_000))
            receipts.append({"kind": "request", "request_id": rid, "arm": arm, "server": sid, "phase": phase,
                             "started_at": t.isoformat().replace("+00:00", "Z"), "ended_at": end.isoformat().replace("+00:00", "Z"),
                             "elapsed_s": value, "outcome": outcome, "http_status": 200 if outcome == "ok" else 503, "outputs": []})
            t = end + timedelta(seconds=1)
        warm, meas = counts["warmup"], counts["measured"]
    plan = {
        "format": "verify-plan", "format_version": 1, "campaign": "test", "frozen_at": "2025-12-31T00:00:00Z",
        "arms": [{"id": "baseline", "label": "A", "role": "baseline", "revision": "r1"},
                 {"id": "candidate", "label": "B", "role": "candidate", "revision": "r2"}],
        "servers": [{"id": sid, "arm": arm} for sid, (arm, _) in servers.items()],
        "arm_order": arm_order or [labels[arm] for arm, _ in servers.values()],
        "warmups_per_server": warm, "measured_per_server": meas, "requests": requests,
        "expected_output": {"frames": 124, "fps": "24", "sample_rate": 32000, "channels": 2},
        **(plan_extra or {}),
    }
    (root / "plan.json").write_text(json.dumps(plan, indent=2))
    write_lines(root / "receipts.jsonl", receipts)
    (root / "claims.json").write_text(dumps({"format": "verify-claims", "format_version": 1,
                                             "claims": [{"id": k, "value": Decimal(str(v))} for k, v in claims.items()]}))
    (root / "manifest.json").write_text(json.dumps({"format": "verify-bundle", "format_version": 1, "gate": gate, "files": [], "external": []}))
    rehash(root)
    return root


def codes(report) -> set[tuple[str, str, str]]:
    """Return the set of (check, status, code) of a report's findings."""
    return {(f.check, f.status.value, f.code) for f in report.findings}
