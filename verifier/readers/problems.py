"""The problems met while reading a receipt set (`verifier.readers.records.read_receipts`): each becomes a finding of the checks."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Problem"]


@dataclass
class Problem:
    """Represents a bundle problem met while reading receipts: status, code, message, file and pointer."""

    status: str
    code: str
    message: str
    path: str
    pointer: str | None = None
    field: str | None = None
