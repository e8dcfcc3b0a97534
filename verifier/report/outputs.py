"""
Where rendered reports go: stdout, `--report FORMAT=PATH` files, the GitHub step summary.

The CLI's I/O for reports lives here so reporters stay pure. Report targets
are validated before the run (unknown format, missing directory: a one-line
`UsageError`, exit 2) and written after it, whatever the verdict. `-` is
stdout. Nothing is ever written into what is being verified: a report path
(or `GITHUB_STEP_SUMMARY`) that resolves, through `..` and symlinks, to the
verified path or anything below it, or to a file with another hard link, is
refused, and so are two reports to one path.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from verifier.errors import UsageError
from verifier.model.findings import Report
from verifier.report import REPORTERS, render
from verifier.report import markdown as markdown_report

__all__ = ["STDOUT", "ReportTarget", "append_step_summary", "check_step_summary", "parse_targets", "write_targets"]

#: The `--report FORMAT=PATH` path that means standard output.
STDOUT = "-"


@dataclass(frozen=True, slots=True)
class ReportTarget:
    """Represents one `--report FORMAT=PATH`: a reporter name and the file it is written to (`stdout`: PATH was `-`)."""

    fmt: str
    path: Path
    stdout: bool = False


def check_format(fmt: str) -> str:
    """Return `fmt` if it names a reporter; raises `UsageError` listing the known ones otherwise."""
    if fmt not in REPORTERS:
        raise UsageError(f"unknown report format {fmt!r}; choose one of: {', '.join(sorted(REPORTERS))}")
    return fmt


def _guard(label: str, raw: str, protected: Iterable[str]) -> Path:
    """
    Return the resolved `raw`; raise `UsageError` (naming `label`) when writing there could change verified input.

    That is: `raw` resolves (through `..` and symlinks) to a `protected` path
    or below one, or it is an existing file with more than one hard link
    (another name for it may be evidence).
    """
    real = Path(raw).resolve()
    for given in protected:
        root = Path(given).resolve()
        if real == root or root in real.parents:
            raise UsageError(f"{label}: {raw} is inside the verified path {given}; verify never writes into the evidence it checks")
    try:
        links = os.stat(real).st_nlink if real.is_file() else 1
    except OSError:
        links = 1
    if links > 1:
        raise UsageError(f"{label}: {raw} has another hard link (which may be evidence); refusing to overwrite it")
    return real


def parse_targets(values: tuple[str, ...] | list[str], protected: Iterable[str] = ()) -> list[ReportTarget]:
    """
    Return the targets of repeated `--report FORMAT=PATH` values (`-` is stdout).

    Raises `UsageError` for a value without `=`, an unknown format, an empty
    path, a path that is a directory, a parent directory that does not
    exist, a path inside one of the `protected` (verified) paths or with
    another hard link, and a second report to the same path. Side effects:
    none (nothing is created).
    """
    protected = [p for p in protected if p]
    targets = []
    seen: dict[object, str] = {}
    for value in values:
        fmt, sep, raw = value.partition("=")
        if not sep or not raw:
            raise UsageError(f"--report {value!r}: expected FORMAT=PATH, e.g. sarif=verify.sarif")
        check_format(fmt)
        if raw == STDOUT:
            key: object = STDOUT
            target = ReportTarget(fmt, Path(STDOUT), stdout=True)
        else:
            path = Path(raw)
            parent = path.parent
            if path.is_dir():
                raise UsageError(f"--report {value!r}: {raw} is a directory")
            if not parent.is_dir():
                raise UsageError(f"--report {value!r}: directory {parent} does not exist")
            key = _guard(f"--report {value!r}", raw, protected)
            target = ReportTarget(fmt, path)
        if key in seen:
            raise UsageError(f"--report {value!r}: the same path as --report {seen[key]!r}; give each report its own path")
        seen[key] = value
        targets.append(target)
    return targets


def check_step_summary(protected: Iterable[str], env: dict[str, str] | None = None) -> None:
    """Raise `UsageError` when `$GITHUB_STEP_SUMMARY` is set and appending to it could change verified input."""
    env = env if env is not None else dict(os.environ)
    target = env.get("GITHUB_STEP_SUMMARY")
    if target:
        _guard(f"GITHUB_STEP_SUMMARY={target}", target, [p for p in protected if p])


def write_targets(report: Report, targets: list[ReportTarget], *, verbose: bool = False) -> None:
    """
    Write `report` in each target's format to its path (UTF-8, no colour), or to stdout for `-`.

    Raises `UsageError` when a file cannot be written. Side effects: creates
    or replaces each target file.
    """
    for target in targets:
        if target.stdout:
            sys.stdout.write(render(report, target.fmt, verbose=verbose, color=False))
            sys.stdout.flush()
            continue
        try:
            at = {"at": os.path.dirname(os.path.abspath(target.path))} if target.fmt == "html" else {}  # its links: from the file's folder
            target.path.write_text(render(report, target.fmt, verbose=verbose, color=False, **at), encoding="utf-8")
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
