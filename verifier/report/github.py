"""
GitHub reporter: workflow commands that become annotations on the pull request.

FAIL and ERROR findings are `::error`, UNVERIFIED `::warning`, PASS `::debug`
(visible only with step debug logging); a closing `::notice` (or `::error`)
carries the verdict. `file=` is the path relative to where `verify` ran, so
annotations land on the changed file. Escaping follows GitHub's runner
(`@actions/core` `toCommandValue`/`escapeData`/`escapeProperty`): in data,
`%` -> `%25`, CR -> `%0D`, LF -> `%0A`; in properties additionally `:` ->
`%3A` and `,` -> `%2C`. Other control characters and bidi controls become
visible escapes (`\\x1b`, `\\u202e`), so evidence cannot colour the log or
reorder what a reader sees. The Markdown step summary is written by the CLI
(`verifier.outputs`), not here: reporters do no I/O.
"""

from __future__ import annotations

from verifier.model import Finding, Report, Status
from verifier.report._common import location, repo_path, trust_lines, visible

__all__ = ["NAME", "escape_data", "escape_property", "render"]

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
    message = f"{f.status.value} {f.check} [{f.code}] {location(f)}: {f.message}"
    if kind == "debug":
        return f"::debug::{escape_data(message)}"
    props = []
    path = repo_path(report, f)
    if path:
        props.append(f"file={escape_property(path)}")
    props.append(f"title={escape_property(f'verify {f.status.value}: {f.check} [{f.code}]')}")
    return f"::{kind} {','.join(props)}::{escape_data(message)}"


def render(report: Report, *, verbose: bool = False, color: bool = False) -> str:
    """Return one workflow command per finding and a closing verdict command (`verbose`, `color` are ignored)."""
    lines = [_command(report, f) for f in report.findings]
    changed = bool(isinstance(report.trust, dict) and report.trust.get("changed") and report.trust.get("ref"))
    for line in trust_lines(report):  # where the judge came from; trusted files a pull request edits are a warning
        kind = "warning" if changed and line.startswith("trusted files changed") else "notice"
        lines.append(f"::{kind} title={escape_property('verify trust root')}::{escape_data(line)}")
    counts = ", ".join(f"{sum(1 for f in report.findings if f.status is s)} {s.value}" for s in Status)
    kind = "notice" if report.verdict == "PASS" else ("warning" if report.verdict == "INCOMPLETE" else "error")
    title = escape_property(f"verify {report.verdict}: {report.subject}")
    lines.append(f"::{kind} title={title}::{escape_data(f'verdict {report.verdict} ({counts}; exit {int(report.exit_code)})')}")
    return "\n".join(lines) + "\n"
