"""
Gate pinning: the bundle names a pinned gate, shipped by this project or by the evidence repository's trust root.

A shipped gate lives in the project's `gates/`, pinned by `inventory.json`;
a repository's gate in the directory its `verify.toml` names, pinned by its
inventory (both checked when the verifier starts, see `verifier.trust` and
`verifier.trustroot`). A bundle cannot bring its own gate. A bundle naming
an unknown gate FAILs.
"""

from __future__ import annotations

from collections.abc import Iterator

from verifier.errors import Unverifiable
from verifier.model import Finding, Status
from verifier.pipeline import Context, check

__all__ = ["pinned"]


@check("gate.pinned", title="The bundle names a pinned gate (shipped by verify, or the repository's trust root)")
def pinned(ctx: Context) -> Iterator[Finding]:
    """
    Resolve the gate id from `manifest.json` and load it.

    Emits PASS `pinned` (with the gate's sha256) or FAIL `unknown-gate`; an
    override given with `--gate` must equal the bundle's own choice, else FAIL
    `gate-override-differs`. Sets `ctx.gate` and `ctx.gate_id`.
    """
    manifest = ctx.data.get("manifest")
    if manifest is None:
        raise Unverifiable("manifest.json is missing or invalid, so the bundle names no gate", code="no-gate", path="manifest.json")
    gate_id = manifest["gate"]
    override = ctx.options.get("gate")
    if override and override != gate_id:
        yield Finding(check="gate.pinned", status=Status.FAIL, code="gate-override-differs",
                      message=f"--gate {override} was given but the bundle asks to be judged by {gate_id}",
                      path="manifest.json", pointer="/gate", expected=override, observed=gate_id)
        return
    if not ctx.assets.has_gate(gate_id):
        yield Finding(check="gate.pinned", status=Status.FAIL, code="unknown-gate",
                      message=f"manifest.json names gate {gate_id!r}, which is not pinned "
                              f"(pinned: {', '.join(ctx.assets.gate_ids())}); a gate of an evidence repository is pinned in its trust "
                              f"root: run verify inside that repository (verify.toml) or with --trust-ref (docs/trust-root.md)",
                      path="manifest.json", pointer="/gate", observed=gate_id, expected=ctx.assets.gate_ids())
        return
    ctx.gate_id = gate_id
    ctx.gate = ctx.assets.gate(gate_id)
    sha = ctx.assets.gate_sha256(gate_id)
    origin = ctx.assets.origin("gate", gate_id) if hasattr(ctx.assets, "origin") else {"origin": "shipped"}
    pinned_by = "the repository's trust root" if origin["origin"] == "repository" else "inventory.json"
    yield Finding(check="gate.pinned", status=Status.PASS, code="pinned",
                  message=f"gate {gate_id} v{ctx.gate['version']} (sha256 {sha[:12]}...) pinned by {pinned_by}",
                  path="manifest.json", pointer="/gate", observed={"gate": gate_id, "sha256": sha})
