"""
Errors of the verifier itself (not of the evidence).

Exceptions are never used to report a FAIL: a bundle that does not hold yields
findings. These classes cover configuration problems that stop the run (exit
2) and the `Unverifiable` shortcut a check may raise.
"""

from __future__ import annotations

__all__ = ["ConfigError", "PinMismatch", "Unverifiable", "UsageError", "VerifierError"]


class VerifierError(Exception):
    """Base class; `diagnostics()` says what happened and what to do."""

    def diagnostics(self) -> str:
        """Return a one-line, human-readable description naming the file and the problem."""
        return str(self)


class UsageError(VerifierError):
    """Bad command-line input: a missing path, a file where a bundle was expected (exit 2)."""


class ConfigError(VerifierError):
    """One of our own assets (gate, schema, inventory) is unusable (exit 2)."""


class PinMismatch(ConfigError):
    """An asset's sha256 is not the one `inventory.json` pins (exit 2)."""


class Unverifiable(Exception):
    """
    Raised inside a check when it cannot run on this evidence.

    The pipeline turns it into one UNVERIFIED finding with `code` and the
    message; `path` names the file the check needed.
    """

    def __init__(self, message: str, *, code: str = "unverifiable", path: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.path = path
