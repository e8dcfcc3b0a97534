"""
`verify`: a declarative verifier for benchmark evidence bundles.

Public API: `verify_path` runs every check on a bundle or receipt and returns
a `Report`; the CLI (`verifier.cli`) is a thin layer over it. `ExitCode`,
`Finding`, `Report` and `Status` (from `verifier.model.findings`) are loaded on first
use, so that `import verifier` stays cheap for the whole-report fast path
(`verifier.fastpath`), which runs before any heavy import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:  # pragma: no cover
    from verifier.model.findings import ExitCode, Finding, Report, Status

__all__ = ["ExitCode", "Finding", "Report", "Status", "__version__", "verify_path"]

_MODEL_NAMES = ("ExitCode", "Finding", "Report", "Status")


def __getattr__(name: str) -> Any:
    """Return `ExitCode`, `Finding`, `Report` or `Status` from `verifier.model.findings` (imported on first use)."""
    if name in _MODEL_NAMES:
        from verifier.model import findings as model

        return getattr(model, name)
    raise AttributeError(f"module 'verifier' has no attribute {name!r}")


def verify_path(path: str, **options: object) -> Report:
    """Verify the bundle directory or receipt file at `path`; see `verifier.core.verify_path`."""
    from verifier.core import verify_path as _verify_path

    return _verify_path(path, **options)  # type: ignore[arg-type]
