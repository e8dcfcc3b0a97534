"""
An evidence repository with its own trust root, as the trust-root, action and pre-commit tests build it.

`trusted_repository(root)` makes a git repository (branch main) holding
`verify.toml`, the gate `team-v1` (`TEAM_GATE`: `TINY_GATE` with two measured
requests per server), the pins of every asset and one bundle `evidence/run1`
that the gate PASSes, committed as one commit.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from bundlekit import make_bundle
from helpers import TINY_GATE

from verifier.trust.assets import assets
from verifier.commands.trustroot_cmds import init, pin

TEAM_GATE = {**TINY_GATE, "id": "team-v1", "description": "the team's gate: two measured requests per server",
             "plan": {**TINY_GATE["plan"], "measured_per_server": 2}}


def git(repo: Path, *args: str) -> str:
    """Run git in `repo` with a throwaway identity; return its stdout; raise CalledProcessError on failure."""
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
                          check=True, capture_output=True, text=True).stdout


def bundle(root: Path, measured: int) -> Path:
    """Write a `team-v1` bundle with `measured` requests per server (baseline 10 s, candidate 5 s) at `root`."""
    rows = [("measured", 10.0, "ok")] * measured
    fast = [("measured", 5.0, "ok")] * measured
    return make_bundle(root, "team-v1", {"s1": ("baseline", rows), "s2": ("candidate", fast)},
                       {"count.requests": 2 * measured, "arm_mean_s.baseline": "10.0", "arm_mean_s.candidate": "5.0"})


def write_gate(repo: Path, gate: dict) -> None:
    """Write `gate` as the repository gate `verify/gates/ID.json` (not pinned: call `pin` after)."""
    (repo / "verify" / "gates" / f"{gate['id']}.json").write_text(json.dumps(gate, indent=2))


def trusted_repository(root: Path, *, before_commit: Callable[[Path], None] | None = None) -> Path:
    """
    Build the trusted evidence repository at `root` (created) and return it.

    `before_commit(root)` runs after the bundle is written and before the
    one commit (to register the bundle in an inventory, say).
    """
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    init(str(root))
    write_gate(root, TEAM_GATE)
    pin(str(root), assets())
    bundle(root / "evidence" / "run1", measured=2)
    if before_commit:
        before_commit(root)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "trust root and run1")
    return root
