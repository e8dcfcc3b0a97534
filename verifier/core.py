"""
The core: choose the reader for a path, run its pipeline, return a `Report`.

Readers:
- a directory with `manifest.json` is a bundle (format v1, `BUNDLE_PIPELINE`);
- a directory without one whose files a receipt-directory reader recognises
  (`detect_directory`: frozen HTTP matrix output, telemetry receipt) is given
  to that reader; any other directory is treated as a bundle, as before (the
  bundle checks then report the missing manifest);
- a file is read as strict JSON and given to the adapter whose detection
  matches what it records about its producer (`verifier.adapters.ADAPTERS`);
  no match is a usage error (exit 2).

Order of `BUNDLE_PIPELINE` (a security property, see `docs/architecture.md`):
(1) integrity before anything is parsed; (2) the gate the bundle names;
(3) schemas of the hashed documents; (4) plan conformance; (5) derivation of
claims; (6) recorded quality against thresholds.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from verifier import __version__
from verifier.adapters import ADAPTERS, detect, detect_directory
from verifier.bundle import Bundle
from verifier.checks import derivation, gate, integrity, plan, quality, schema
from verifier.errors import UsageError
from verifier.jsonio import JSONProblem, loads_strict
from verifier.model import Report
from verifier.pipeline import Context, run_pipeline
from verifier.trust import assets

__all__ = ["BUNDLE_PIPELINE", "verify_path"]

BUNDLE_PIPELINE = (
    integrity.files,  # (1) nothing is parsed before it is hashed
    gate.pinned,  # (2) the gate comes from our pinned gates/, never the bundle
    schema.documents,  # (3) hashed documents validate against pinned schemas
    plan.conformance,  # (4) receipts are exactly what the plan called for
    derivation.claims,  # (5) claims re-derive from receipts
    quality.recorded,  # (6) recorded scores against the gate's thresholds
)


def verify_path(path: str, *, artifacts: str | None = None, gate_id: str | None = None,
                debug: bool = False, asset_root: str | None = None, progress: Any = None) -> Report:
    """
    Verify the bundle directory, receipt directory or receipt file at `path` and return its `Report`.

    `artifacts` is a directory holding external artifacts by their manifest
    path; `gate_id` (optional) must equal the gate the bundle names;
    `progress` (a `verifier.progress.Progress` or None) shows hashing progress.
    Raises `UsageError` for a missing or unreadable path or an unrecognised
    file, `ConfigError`/`PinMismatch` when our own assets fail their pins.
    Side effects: reads the bundle; never writes.
    """
    trusted = assets(asset_root)
    target = Path(path)
    if not os.path.lexists(target):
        raise UsageError(f"{path}: no such file or directory")
    if target.is_dir():
        if not os.access(target, os.R_OK | os.X_OK):
            raise UsageError(f"{path}: directory is not readable")
        reader = None if (target / "manifest.json").exists() else detect_directory(target)
        if reader is not None:
            ctx = Context(subject=target, assets=trusted, options={"directory": target, "name": target.name})
            findings, roster = run_pipeline(reader.PIPELINE, ctx, debug=debug)
            return Report(subject=path, kind=reader.KIND, verifier_version=__version__, findings=tuple(findings),
                          roster=tuple(roster), producer=ctx.data.get("producer"))
        ctx = Context(subject=target, assets=trusted, bundle=Bundle(root=target),
                      options={"artifacts": artifacts, "gate": gate_id, "progress": progress})
        findings, roster = run_pipeline(BUNDLE_PIPELINE, ctx, debug=debug)
        return Report(subject=path, kind="bundle-v1", verifier_version=__version__, findings=tuple(findings),
                      roster=tuple(roster), gate=ctx.gate_id,
                      gate_sha256=trusted.gate_sha256(ctx.gate_id) if ctx.gate_id else None)
    if not target.is_file():
        raise UsageError(f"{path}: not a regular file or directory")
    try:
        data = target.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        document: Any = loads_strict(data)
    except JSONProblem as exc:
        raise UsageError(f"{path}: not a bundle directory, and not a receipt verify can read: {exc}") from None
    adapter = detect(document)
    if adapter is None:
        raise UsageError(
            f"{path}: a file, not a bundle directory, and not a receipt of a known producer "
            f"(known: {', '.join(a.KIND for a in ADAPTERS)}); pass a bundle directory"
        )
    ctx = Context(subject=target, assets=trusted, options={"document": document, "name": target.name})
    findings, roster = run_pipeline(adapter.PIPELINE, ctx, debug=debug)
    return Report(subject=path, kind=adapter.KIND, verifier_version=__version__, findings=tuple(findings), roster=tuple(roster),
                  producer=ctx.data.get("producer"))
