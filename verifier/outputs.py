"""
Where rendered reports go: stdout, `--report FORMAT=PATH` files, the GitHub step summary.

The CLI's I/O for reports lives here so reporters stay pure. Report targets
are validated before the run (unknown format, missing directory: a one-line
`UsageError`, exit 2) and written after it, whatever the verdict.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from verifier.errors import UsageError
from verifier.model import Report
from verifier.report import REPORTERS, render
from verifier.report import markdown as markdown_report

__all__ = ["ReportTarget", "append_step_summary", "parse_targets", "write_targets"]


@dataclass(frozen=True, slots=True)
class ReportTarget:
    """Represents one `--report FORMAT=PATH`: a reporter name and the file it is written to."""

    fmt: str
    path: Path


def check_format(fmt: str) -> str:
    """Return `fmt` if it names a reporter; raises `UsageError` listing the known ones otherwise."""
    if fmt not in REPORTERS:
        raise UsageError(f"unknown report format {fmt!r}; choose one of: {', '.join(sorted(REPORTERS))}")
    return fmt


def parse_targets(values: tuple[str, ...] | list[str]) -> list[ReportTarget]:
    """
    Return the targets of repeated `--report FORMAT=PATH` values.

    Raises `UsageError` for a value without `=`, an unknown format, an empty
    path, a path that is a directory, or a parent directory that does not
    exist. Side effects: none (nothing is created).
    """
    targets = []
    for value in values:
        fmt, sep, raw = value.partition("=")
        if not sep or not raw:
            raise UsageError(f"--report {value!r}: expected FORMAT=PATH, e.g. sarif=verify.sarif")
        check_format(fmt)
        path = Path(raw)
        parent = path.parent
        if path.is_dir():
            raise UsageError(f"--report {value!r}: {raw} is a directory")
        if not parent.is_dir():
            raise UsageError(f"--report {value!r}: directory {parent} does not exist")
        targets.append(ReportTarget(fmt, path))
    return targets


def write_targets(report: Report, targets: list[ReportTarget], *, verbose: bool = False) -> None:
    """
    Write `report` in each target's format to its path (UTF-8, no colour).

    Raises `UsageError` when a file cannot be written. Side effects: creates
    or replaces each target file.
    """
    for target in targets:
        try:
            target.path.write_text(render(report, target.fmt, verbose=verbose, color=False), encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--report {target.fmt}={target.path}: cannot write: {exc.strerror or exc}") from None


def append_step_summary(report: Report, env: dict[str, str] | None = None) -> bool:
    """
    Append the Markdown summary of `report` to `$GITHUB_STEP_SUMMARY` when it is set; return whether it was.

    Raises `UsageError` when the file cannot be written. Side effects: appends
    to that file.
    """
    env = env if env is not None else dict(os.environ)
    target = env.get("GITHUB_STEP_SUMMARY")
    if not target:
        return False
    try:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(markdown_report.render(report) + "\n")
    except OSError as exc:
        raise UsageError(f"GITHUB_STEP_SUMMARY={target}: cannot append: {exc.strerror or exc}") from None
    return True
