"""
Human text reporter: one line per finding, derivations with `verbose`.

It leads with what a reviewer must act on: the FAIL, then ERROR, then
UNVERIFIED findings grouped by check, code and rule (`_common.groups`), each
group with its count and its first `FEW` findings (every one with
`verbose`); then the claims (claimed, derived, delta, where; PASS rows with
`verbose`), the stated claims, and the PASS findings (with `verbose` or
`show_pass`). The roster (every check that ran, with counts) and the
verdict close the report.
"""

from __future__ import annotations

from verifier.model.findings import Finding, Report, Status
from verifier.report._common import claim_rows, groups, judged_by, location, message, not_judged, shown_claims, trust_lines, trust_warning, visible
from verifier.report.statements import counted
from verifier.report.statements import text_lines as statement_lines

__all__ = ["NAME", "render"]

NAME = "text"

COLORS = {Status.PASS: "32", Status.FAIL: "31", Status.UNVERIFIED: "33", Status.ERROR: "35"}
VERDICT_COLORS = {"PASS": "32", "FAIL": "31", "INCOMPLETE": "33", "ERROR": "35"}


#: What a `cached` marker reused, as the `cache:` line names it.
_REUSED = {"report": "whole report (every input unchanged; docs/cache.md)", "schema": "schema validation", "coverage": "demux (coverage facts)", "markdown": "Markdown parse"}


def _paint(text: str, code: str, color: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if color else text


def _safe(text: object) -> str:
    """Return `text` with control and bidi characters escaped (`\\n`, `\\x1b`, `\\u202e`), so evidence cannot forge, colour or reorder report lines."""
    return visible(str(text))


def _location(f: Finding) -> str:
    return _safe(location(f))


def _finding_lines(findings: list[Finding] | tuple[Finding, ...], verbose: bool, color: bool, indent: str) -> list[str]:
    """Return one line per finding (`STATUS check [code] where: message`), with its derivation under it when `verbose`."""
    lines = []
    for f in findings:
        status = _paint(f"{f.status.value:<10}", COLORS[f.status], color)
        lines.append(f"{indent}{status} {_safe(f.check)} [{_safe(f.code)}] {_location(f)}: {_safe(message(f))}")  # cache state: the `cache:` footer
        if verbose and f.derivation:
            for row in f.derivation.rstrip().splitlines():
                lines.append(f"{indent}{'':11}  derivation: {_safe(row)}")
    return lines


def _claim_lines(report: Report, every: bool) -> list[str]:
    """Return the claims section: a count line, then `STATUS claim: claimed -> derived (delta) at where`, PASS rows only with `every`."""
    rows = claim_rows(report)
    skipped = not_judged(report)
    if not rows:
        return [skipped] if skipped else []
    words, counts = counted(report, [r.status for r in rows])  # the stated numbers of the prose too: their FAIL is counted here
    lines = [f"claims: {len(rows)}{_safe(words)} ({', '.join(f'{n} {s.value}' for s, n in counts.items() if n)}"
             + ("" if every or not counts[Status.PASS] else "; PASS rows with -v") + ")"]
    if skipped:
        lines.append(f"  {skipped}")
    shown, notes = shown_claims(rows, every)
    line = (lambda r: f"  {r.status.value:<10} {_safe(r.claim)}: claimed {_safe(r.claimed)}, derived {_safe(r.derived)}, "
                      f"delta {_safe(r.delta)}" + (f", tolerance {_safe(r.tolerance)}" if r.tolerance != "-" else "") + f" at {_safe(r.where)}")
    lines += [line(r) for r in shown] + [f"  {note}" for note in notes]
    lines += [line(r) for r in rows if every and r.status is Status.PASS]
    return lines


def render(report: Report, *, verbose: bool = False, color: bool = False, show_pass: bool = False) -> str:
    """
    Return the text report; `color` adds ANSI colours (the CLI enables it only on a TTY without NO_COLOR).

    PASS findings are printed with `verbose` or `show_pass`; derivations only with `verbose`.
    """
    judge = judged_by(report)
    lines = [f"verify {report.verifier_version}: {_safe(report.subject)} ({report.kind}"
             + (f", {judge[0]} {_safe(judge[1])} sha256 {_safe(report.gate_sha256[:12])}..." if judge and report.gate_sha256 else "")
             + ")"]
    if report.producer:
        lines.append(f"producer: {_safe(report.producer['producer'])}; version: {_safe(report.producer['version'])}")
    lines.extend(f"trust: {_safe(line)}" for line in trust_lines(report))
    act = groups(report)
    lines.append(f"to act on: {len(act)} group(s) of findings" + (" (FAIL, then ERROR, then UNVERIFIED)" if act else ", none"))
    for group in act:
        shown = group.findings if verbose else group.first()
        lines.append(f"== {_paint(group.status.value, COLORS[group.status], color)} {_safe(group.title)}: "
                     f"{group.counted}" + (f", first {len(shown)} below (-v lists every one)" if len(shown) < group.count else ""))
        lines += _finding_lines(shown, verbose, color, "")
    lines += _claim_lines(report, verbose or show_pass)
    lines += statement_lines(report, _safe, verbose)
    if verbose or show_pass:
        lines.append("PASS findings:")
        lines += _finding_lines([f for f in report.findings if f.status is Status.PASS], verbose, color, "  ")
    lines.append("checks run:")
    for c in report.roster:
        counts = ", ".join(f"{n} {s}" for s, n in sorted(c.counts.items()))
        lines.append(f"  {_safe(c.check):<20} {counts:<32} {_safe(c.title)}")
    reused = {}
    for f in report.findings:
        if f.cached:
            reused[f.cached] = reused.get(f.cached, 0) + 1
    if reused:  # the warm re-verify cache (docs/cache.md): which findings reused a cached digest, score, validation or demux
        lines.append("cache: " + ", ".join(f"{n} finding(s) reused a cached {_REUSED.get(kind, kind)}" for kind, n in sorted(reused.items()))
                     + " (the JSON report marks each such finding \"cached\"; --no-cache to recompute everything)")
    verdict = _paint(report.verdict, VERDICT_COLORS[report.verdict], color)
    total = {s: sum(1 for f in report.findings if f.status is s) for s in Status}
    warning = trust_warning(report)
    lines.append(f"verdict: {verdict} ({', '.join(f'{n} {s.value}' for s, n in total.items())}; exit {int(report.exit_code)})"
                 + (f" -- {_safe(warning)}" if warning else ""))
    return "\n".join(lines) + "\n"
