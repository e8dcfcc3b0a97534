"""
Whether a checkout's trust root differs from its default branch's: a plain `verify` on a pull-request checkout.

A reviewer who runs `verify bundle/` on a pull request's checkout is judged
by the gates, profiles and pins that pull request may have loosened and
re-pinned; only `--trust-ref BASE` reads them from the base. `differs` finds
the base a plain run should have used (the Action's base ref in CI, else the
remote's default branch, else a local `main` or `master`) and lists the
trusted files the working tree changes relative to it, so every report says
so at the top and in its verdict line and names the `--trust-ref` to use
(`verifier.report._common.trust_warning`).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from verifier.errors import ConfigError, UsageError
from verifier.trust.trustroot import GitCommit, changed_files, read_config

__all__ = ["default_ref", "differs"]


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def default_ref(root: Path) -> str | None:
    """
    Return the ref a plain `verify` in the git checkout `root` should be judged by, or None when there is none.

    In CI (`CI` or `GITHUB_ACTIONS` true) with `GITHUB_BASE_REF` (a pull
    request's base, as the Action knows it): `origin/BASE`, else `BASE`.
    Otherwise the remote's default branch (`origin/HEAD` -> `origin/main`),
    else a local `main` or `master`. Side effects: runs `git` read-only.
    """
    truthy = ("1", "true", "yes")
    names: list[str] = []
    base = os.environ.get("GITHUB_BASE_REF", "").strip()
    if base and (os.environ.get("CI", "").strip().lower() in truthy or os.environ.get("GITHUB_ACTIONS") == "true"):
        names += [f"origin/{base}", base]
    head = _git(root, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD")
    if head:
        names.append(head.removeprefix("refs/remotes/"))
    names += ["main", "master"]
    for name in names:
        if _git(root, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"):
            return name
    return None


def differs(start: str | Path) -> dict[str, Any] | None:
    """
    Return `{ref, commit, changed}` when the trusted files of the checkout holding `start` differ from its default ref's, else None.

    The checkout is the first directory up from `start` with a `.git` entry.
    `changed` lists the config, inventory, gates, profiles and schemas whose
    working-tree bytes differ from the ref's (`trustroot.changed_files`).
    None too when there is no git checkout, no default ref, or the ref's
    trust root cannot be read. Side effects: runs `git` read-only.
    """
    here = Path(os.path.realpath(start))
    if not here.is_dir():
        here = here.parent
    while not os.path.lexists(here / ".git"):
        if here.parent == here:
            return None
        here = here.parent
    root = here
    ref = default_ref(root)
    if ref is None:
        return None
    try:
        commit = GitCommit(root, ref)
        changed = changed_files(root, commit, read_config(commit))
    except (UsageError, ConfigError):
        return None
    return {"ref": ref, "commit": commit.commit, "changed": list(changed)} if changed else None
