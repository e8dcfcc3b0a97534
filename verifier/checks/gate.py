"""
Gate pinning: the bundle names a pinned gate, shipped by this project or by the evidence repository's trust root.

A shipped gate lives in the project's `gates/`, pinned by `inventory.json`;
a repository's gate in the directory its `verify.toml` names, pinned by its
inventory (both checked when the verifier starts, see `verifier.trust.assets` and
`verifier.trust.trustroot`). A bundle cannot bring its own gate. A bundle naming
an unknown gate FAILs. A profile reading the evidence is judged by the same
body: pinned, or UNVERIFIED when given as a file.
"""

from __future__ import annotations

from collections.abc import Iterator

from verifier.errors import Unverifiable
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context, check

__all__ = ["pinned"]


@check("gate.pinned", title="The bundle names a pinned gate (shipped by verify, or the repository's trust root)",
       roads={"profile": ("The evidence is judged by a pinned profile (its sha256 in the inventory), never one the evidence brings", ())})
def pinned(ctx: Context) -> Iterator[Finding]:
    """
    Judge what the reader says judges the run: the profile that reads it (`ctx.options["profile"]`: a profile-read or
    mapped bundle) and, for a bundle (native, or a profile with a `bundle` section), the gate id `manifest.json` names
    (`ctx.run.manifest`).

    A profile given as a file (`--profile ./mine.json`, in `ctx.assets.unpinned`) is UNVERIFIED `profile-unpinned`:
    nothing vouches for it; a pinned one is PASS `profile-pinned` when it is the only judge (with a gate, the gate's
    finding names what judges the bundle). The gate: PASS `pinned` (with its sha256) or FAIL `unknown-gate`; an
    override given with `--gate` must equal the bundle's own choice, else FAIL `gate-override-differs`. Sets
    `ctx.gate` and `ctx.gate_id`. Raises `Unverifiable` (`no-gate`) for a bundle whose manifest was not read.
    """
    reader = ctx.options.get("profile")
    profile, gate = (None, True) if reader is None else (reader["id"], "bundle" in reader)
    unpinned = getattr(ctx.assets, "unpinned", {})
    if profile in unpinned:
        path, sha, _doc = unpinned[profile]
        yield Finding(check="gate.pinned", status=Status.UNVERIFIED, code="profile-unpinned", observed=sha,
                      message=f"profile {profile} was loaded unpinned from {path} (sha256 {sha[:12]}...); nothing vouches for the rules it states")
    elif profile is not None and not gate:
        sha = ctx.assets.profile_sha256(profile)
        yield Finding(check="gate.pinned", status=Status.PASS, code="profile-pinned", observed={"profile": profile, "sha256": sha},
                      message=f"judged by profile {profile}, pinned at sha256 {sha[:12]}...")
    if not gate:
        return
    manifest = ctx.run.manifest
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
