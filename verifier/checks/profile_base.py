"""What the profile checks (`verifier.checks.profile`) share: the finding helper and the run's receipts."""

from __future__ import annotations

import re
from typing import Any

from verifier.model import Finding, Status
from verifier.pipeline import Context
from verifier.readers.records import Record
from verifier.readers.tree import Tree

__all__ = ["_BRACKETED", "_PLACEHOLDER_RE", "_all_records", "_f", "_profile", "_records", "_tree", "examined"]

_PLACEHOLDER_RE = re.compile(r"\{([A-Za-z0-9_.-]+)\}")
_BRACKETED = re.compile(r" \[[^]]*\]")  # the derivation detail, kept out of the one-line message


def _f(check_id: str, status: Status, code: str, message: str, **kw: Any) -> Finding:
    return Finding(check=check_id, status=status, code=code, message=message, **kw)


def _profile(ctx: Context) -> dict[str, Any]:
    return ctx.options["profile"]  # type: ignore[no-any-return]


def _tree(ctx: Context) -> Tree:
    return ctx.bundle  # type: ignore[no-any-return]


def _records(ctx: Context, rid: str) -> list[Record]:
    """Return the receipts of `rid` that were read (no stand-ins for unread files): what per-record checks look at."""
    return [r for r in _all_records(ctx, rid) if r.unread is None]


def _all_records(ctx: Context, rid: str) -> list[Record]:
    """Return the receipts of `rid` with the stand-ins for unread files: what derivations (claims, gate) run over."""
    return ctx.data.setdefault("receipts", {}).get(rid, [])  # type: ignore[no-any-return]


def examined(ctx: Context) -> set[tuple[str, str]]:
    """Return the `(file, JSON Pointer)` places of stated values some check compared (claims, the recorded gate outcome, manifest entries)."""
    return ctx.data.setdefault("examined", set())  # type: ignore[no-any-return]
