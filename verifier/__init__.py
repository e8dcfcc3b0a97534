"""
`verify`: a declarative verifier for benchmark evidence bundles.

Public API: `verify_path` runs every check on a bundle or receipt and returns
a `Report`; the CLI (`verifier.cli`) is a thin layer over it.
"""

from __future__ import annotations

__version__ = "0.1.0"

from verifier.model import ExitCode, Finding, Report, Status  # noqa: E402

__all__ = ["ExitCode", "Finding", "Report", "Status", "__version__", "verify_path"]


def verify_path(path: str, **options: object) -> Report:
    """Verify the bundle directory or receipt file at `path`; see `verifier.core.verify_path`."""
    from verifier.core import verify_path as _verify_path

    return _verify_path(path, **options)  # type: ignore[arg-type]
