"""
GitHub reporter: workflow commands that become annotations on the pull request.

One annotation per group of findings (`_common.groups`: status, check, code
and rule), worst first: FAIL and ERROR groups are `::error`, UNVERIFIED
`::warning`, each on the group's first file with its count, its first
finding's message and where the next few are (GitHub shows only a handful
of annotations per step, so 531 alike findings are one annotation, not 531).
A `::notice` counts the claims (claimed against derived); PASS findings are
`::debug` (visible only with step debug logging); a closing `::notice` (or
`::error`) carries the verdict. `file=` is the path relative to the checkout
(`GITHUB_WORKSPACE`, else where `verify` ran), whether the bundle was given by a
relative or an absolute path, so annotations land on the changed file; a file
the manifest lists but the bundle lacks is placed on the manifest; a bundle
outside the checkout gets no `file=` (the CLI says so once on stderr). Escaping follows GitHub's runner
(`@actions/core` `toCommandValue`/`escapeData`/`escapeProperty`): in data,
`%` -> `%25`, CR -> `%0D`, LF -> `%0A`; in properties additionally `:` ->
`%3A` and `,` -> `%2C`. Other control characters and bidi controls become
visible escapes (`\\x1b`, `\\u202e`), so evidence cannot colour the log or
reorder what a reader sees. The Markdown step summary is written by the CLI
(`verifier.report.outputs`), not here: reporters do no I/O.
"""

from __future__ import annotations

import os

from verifier.model.findings import Finding, Report, Status
from verifier.report._common import Group, claim_rows, groups, location, message, relative_subject, repo_path, trust_lines, trust_warning, visible
from verifier.report.statements import counted

__all__ = ["NAME", "escape_data", "escape_property", "render", "root", "unplaced"]

NAME = "github"

COMMANDS = {Status.FAIL: "error", Status.ERROR: "error", Status.UNVERIFIED: "warning", Status.PASS: "debug"}


def escape_data(text: str) -> str:
    """Return `text` escaped as a workflow command's message (`%`, CR, LF; other control and bidi characters as `\\x..`/`\\u....`)."""
    return visible(text.replace("%", "%25"), keep="\r\n").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Return `text` escaped as a workflow command property value (`%`, CR, LF, `:`, `,`)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(report: Report, f: Finding) -> str:
    kind = COMMANDS[f.status]
    text = f"{f.status.value} {f.check} [{f.code}] {location(f)}: {message(f)}"
    if kind == "debug":
        return f"::debug::{escape_data(text)}"
    props = _place(report, f)
    props.append(f"title={escape_property(f'verify {f.status.value}: {f.check} [{f.code}]')}")
    return f"::{kind} {','.join(props)}::{escape_data(text)}"


def root() -> str:
    """Return the folder `file=` paths are relative to: `GITHUB_WORKSPACE` (the checkout, in Actions), else where verify runs."""
    return os.environ.get("GITHUB_WORKSPACE") or os.getcwd()


def unplaced(report: Report) -> str | None:
    """
    Return one plain sentence when `report`'s subject lies outside `root()`, so no annotation can name a file (else None).

    GitHub places an annotation only on a file of the checkout; the CLI prints this once on stderr.
    """
    subject = os.path.abspath(report.subject)
    if os.path.relpath(subject, root()).startswith(".."):
        return (f"{report.subject} is outside {root()} (GITHUB_WORKSPACE, else the working folder), so the annotations name no file: "
                "run verify from the repository that holds the bundle")
    return None


def _place(report: Report, f: Finding) -> list[str]:
    """
    Return the `file=` and `line=` (a stated number's line) properties of `f`'s annotation.

    `file=` is relative to `root()`, for a bundle given by a relative or an absolute path alike (none for a file
    outside it). A file the manifest lists but the bundle lacks (`missing-file`) cannot carry an annotation: it
    is placed on the manifest that lists it (`expected["listed_in"]`); so is any other path that names no existing
    file (a glob, an external file not supplied) in a native bundle, and elsewhere the annotation names no file.
    A finding on a bundle folder (`verify inventory`'s) is placed on the bundle's `manifest.json`.
    """
    props = []
    listed_in = f.expected.get("listed_in") if isinstance(f.expected, dict) else None
    if f.code == "missing-file" and isinstance(listed_in, str):
        f = Finding(check=f.check, status=f.status, code=f.code, message=f.message, path=listed_in)
    path = repo_path(report, f)
    if path and os.path.isdir(path) and os.path.isfile(os.path.join(path, "manifest.json")):  # a bundle (an inventory's finding): its manifest
        path = os.path.join(path, "manifest.json")
    if path and not os.path.isfile(path):  # a glob or an absent file: no annotation can sit on it, so on its manifest entry's file or none
        manifest = repo_path(report, Finding(check=f.check, status=f.status, code=f.code, message=f.message, path="manifest.json"))
        path = manifest if manifest and report.kind == "bundle-v1" and os.path.isfile(manifest) else None
    if path:  # GitHub resolves `file=` against the checkout: a path outside it names nothing
        rel = os.path.relpath(os.path.abspath(path), root())
        path = None if rel.startswith("..") else rel.replace(os.sep, "/")
    if path:
        props.append(f"file={escape_property(path)}")
        detail = f.observed if isinstance(f.observed, dict) else {}
        if isinstance(detail.get("line"), int) and not isinstance(detail.get("line"), bool) and detail["line"] > 0:
            props.append(f"line={detail['line']}")
    return props


def _group(report: Report, g: Group) -> str:
    """Return the one annotation of a group: on its first file, titled `verify STATUS: check [code] rule (N)` (no `(N)` for one)."""
    first = g.findings[0]
    others = [location(f) for f in g.findings[1:5]]
    text = f"{g.status.value} {g.title}: {g.count} finding(s). {location(first)}: {message(first)}"
    if others:
        text += "\nalso at: " + ", ".join(others) + (f" and {g.count - 1 - len(others)} more" if g.count - 1 > len(others) else "")
    props = _place(report, first)
    props.append(f"title={escape_property(f'verify {g.status.value}: {g.title}' + (f' ({g.count})' if g.count > 1 else ''))}")
    return f"::{COMMANDS[g.status]} {','.join(props)}::{escape_data(text)}"


def render(report: Report, *, verbose: bool = False, color: bool = False) -> str:
    """Return one annotation per group, the claims notice, a debug line per PASS finding and a closing verdict command (`verbose`, `color` are ignored)."""
    lines = [_group(report, g) for g in groups(report)]
    rows = claim_rows(report)
    if rows:
        words, every = counted(report, [r.status for r in rows])  # the stated numbers of the prose too
        counts = ", ".join(f"{n} {s.value}" for s, n in every.items())
        lines.append(f"::notice title={escape_property('verify claims')}::{escape_data(f'{len(rows)} claim(s){words} compared with their derivation: {counts}')}")
    lines += [_command(report, f) for f in report.findings if f.status is Status.PASS]
    changed = bool(isinstance(report.trust, dict) and report.trust.get("changed") and report.trust.get("ref"))
    for line in trust_lines(report):  # where the judge came from; trusted files a pull request edits are a warning
        kind = "warning" if (changed and line.startswith("trusted files changed")) or line.startswith("TRUST ROOT DIFFERS") else "notice"
        lines.append(f"::{kind} title={escape_property('verify trust root')}::{escape_data(line)}")
    counts = ", ".join(f"{sum(1 for f in report.findings if f.status is s)} {s.value}" for s in Status)
    kind = "notice" if report.verdict == "PASS" else ("warning" if report.verdict == "INCOMPLETE" else "error")
    title = escape_property(f"verify {report.verdict}: {relative_subject(report.subject)}")  # no absolute path (as JUnit, SARIF)
    warning = trust_warning(report)
    verdict = f"verdict {report.verdict} ({counts}; exit {int(report.exit_code)})" + (f" -- {warning}" if warning else "")
    lines.append(f"::{kind} title={title}::{escape_data(verdict)}")
    return "\n".join(lines) + "\n"
