"""
Human text reporter: one line per finding, derivations with `verbose`.

PASS findings are summarised per check unless `verbose`; every other status
is always printed. The roster (every check that ran, with counts) and the
verdict close the report.
"""

from __future__ import annotations

from verifier.model import Finding, Report, Status
from verifier.report._common import judged_by, location, trust_lines, visible
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
    for f in report.findings:
        if f.status is Status.PASS and not (verbose or show_pass):
            continue
        status = _paint(f"{f.status.value:<10}", COLORS[f.status], color)
        mark = f" (cached {f.cached})" if f.cached else ""
        lines.append(f"{status} {_safe(f.check)} [{_safe(f.code)}]{mark} {_location(f)}: {_safe(f.message)}")
        if verbose and f.derivation:
            for row in f.derivation.rstrip().splitlines():
                lines.append(f"{'':11}  derivation: {_safe(row)}")
    lines += statement_lines(report, _safe, verbose)
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
                     + " (each such finding line is marked \"(cached ...)\"; PASS lines show with -v; --no-cache to recompute everything)")
    verdict = _paint(report.verdict, VERDICT_COLORS[report.verdict], color)
    total = {s: sum(1 for f in report.findings if f.status is s) for s in Status}
    lines.append(f"verdict: {verdict} ({', '.join(f'{n} {s.value}' for s, n in total.items())}; exit {int(report.exit_code)})")
    return "\n".join(lines) + "\n"
