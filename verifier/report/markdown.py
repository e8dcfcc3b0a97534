"""
Markdown reporter: a summary for a pull-request comment or `GITHUB_STEP_SUMMARY`.

Verdict first, then what a reviewer must act on: the FAIL, ERROR and
UNVERIFIED findings grouped by check, code and rule (`_common.groups`), one
collapsible `<details>` per group with its count and first `FEW` findings
(every one with `verbose`; FAIL and ERROR groups open). Then the claims
table (claimed / derived / delta / where, failures first, the PASS rows
collapsed), then the stated claims (every number of the prose: where,
claimed, bound value, derived value and delta with the unit, sentence, as the HTML table; identifiers are left out),
then a grid of each results table the claims were read from (`grids.grids`),
then, with `verbose`, the PASS findings (collapsed), then the roster with
counts per status.

Every value that can come from evidence (messages, paths, claim names and
numbers, the subject, titles) renders as literal text: control and bidi
characters become visible escapes, and the characters that start Markdown or
HTML inline syntax (`& < > \\ ` * _ [ ] | ~ ! $`) become numeric character
references, which CommonMark and GFM never read as syntax (or as a table's
cell delimiter). Values made only of harmless characters are shown as code spans.
"""

from __future__ import annotations

import re

from verifier.model.findings import Report, Status
from verifier.report._common import STATUS_ORDER, claim_rows, groups, judged_by, location, message, not_judged, relative_subject, shown_claims, trust_lines, trust_warning, visible
from verifier.report.statements import blocked, counted, statement_rows

__all__ = ["NAME", "cell", "code", "render"]

NAME = "markdown"

ICONS = {Status.PASS: "✅", Status.FAIL: "❌", Status.UNVERIFIED: "⚠️", Status.ERROR: "💥"}
VERDICT_ICONS = {"PASS": "✅", "FAIL": "❌", "INCOMPLETE": "⚠️", "ERROR": "💥"}


#: Characters that can start inline Markdown/HTML syntax (images, links, tags, entities, emphasis, code, strikethrough,
#: math) or split a table cell; each is written as a numeric character reference.
_REFERENCES = str.maketrans({c: f"&#{ord(c)};" for c in "&<>\\`*_[]|~!$"})
#: What a code span may hold verbatim: no backtick, pipe, backslash or markup.
_PLAIN = re.compile(r"[A-Za-z0-9 ._/:#@+=,()-]+\Z")


def cell(value: object) -> str:
    """Return `value` as literal Markdown text, safe in a table cell and in running text (escapes, no markup)."""
    return visible(str(value)).translate(_REFERENCES)


def code(value: object) -> str:
    """Return `value` as a code span when it holds only plain characters, else as `cell` text."""
    text = visible(str(value))
    return f"`{text}`" if _PLAIN.match(text) else text.translate(_REFERENCES)


#: At most this many characters: GitHub refuses a comment over 65,536, and the step summary shows 1 MiB.
LIMIT = 65_000
#: The line that stands for PASS rows left out to stay under `LIMIT`.
_CUT = "…{n} PASS {what} cut to keep this report under {limit:,} characters (a GitHub comment holds 65,536): `-f json` or `-f html` lists every one."


def render(report: Report, *, verbose: bool = False, color: bool = False) -> str:
    """
    Return the Markdown summary of `report` (`color` is ignored), at most `LIMIT` characters.

    When the whole summary is longer, the PASS tables (claims, stated numbers, PASS findings) are each cut to one line
    saying how many rows were left out and how to get them; if what remains is still too long, it is cut at a line
    with one closing line saying so (what to act on comes first, so it is what stays).
    """
    text = _render(report, verbose, cut=False)
    if len(text) <= LIMIT:
        return text
    text = _render(report, verbose, cut=True)
    if len(text) <= LIMIT:
        return text
    tail = f"\n\n…this report is cut at {LIMIT:,} characters (a GitHub comment holds 65,536): `-f json` or `-f html` has all of it.\n"
    kept = text[:text.rfind("\n", 0, LIMIT - len(tail) - 200)]
    kept += "\n\n</details>" * max(0, kept.count("<details") - kept.count("</details>"))  # close what the cut left open
    return kept + tail


def _render(report: Report, verbose: bool, cut: bool) -> str:
    """Return the Markdown summary; with `cut`, each PASS table is one `_CUT` line."""
    counts = {s: sum(1 for f in report.findings if f.status is s) for s in Status}
    judge = judged_by(report)
    gate = f" · {judge[0]} {code(judge[1])} (sha256 {code(report.gate_sha256[:12])}…)" if judge and report.gate_sha256 else ""
    lines = [
        f"### {VERDICT_ICONS[report.verdict]} verify: {report.verdict} — {code(relative_subject(report.subject))}",
        "",
        f"**Verdict: {report.verdict}** (exit {int(report.exit_code)}) · {cell(report.kind)}{gate} · "
        + ", ".join(f"{n} {s.value}" for s, n in counts.items())
        + (f" · ⚠️ **{cell(trust_warning(report))}**" if trust_warning(report) else ""),
        "",
    ]
    trust = trust_lines(report)
    if trust:
        lines += [f"- trust: {cell(line)}" for line in trust] + [""]
    act = groups(report)
    if act:
        lines += ["#### To act on (FAIL, then ERROR, then UNVERIFIED)", ""]
        for g in act:
            shown = g.findings if verbose else g.first()
            more = "" if len(shown) == g.count else f", first {len(shown)} shown"
            opened = ' open="open"' if g.status.value in ("FAIL", "ERROR") else ""
            lines += [f"<details{opened}><summary>{ICONS[g.status]} {g.status.value} "
                      f"{code(g.check)} [{code(g.code)}]{' ' + code(g.rule) if g.rule else ''}: {g.counted}{more}</summary>", "",
                      "| Location | Message |", "|---|---|"]
            lines += [f"| {code(location(f))} | {cell(message(f))} |" for f in shown]
            if len(shown) < g.count:
                lines += ["", f"…and {g.count - len(shown)} more (`-v`, or the JSON and SARIF reports, list every one)."]
            lines += ["", "</details>", ""]
    rows = claim_rows(report)
    skipped = not_judged(report)
    if skipped and not rows:
        lines += ["#### Claims", "", cell(skipped), ""]
    if rows:
        header = ["| Status | Claim | Claimed | Derived | Delta | Tolerance | Where |", "|---|---|---:|---:|---:|---:|---|"]
        row = (lambda r: f"| {ICONS[r.status]} {r.status.value} | {code(r.claim)} | {cell(r.claimed)} | {cell(r.derived)} | {cell(r.delta)} | {cell(r.tolerance)} "
                         f"| {code(r.where)} |")
        bad = [r for r in rows if r.status is not Status.PASS]
        good = [r for r in rows if r.status is Status.PASS]
        words, every = counted(report, [r.status for r in rows])  # the stated numbers of the prose too
        lines += ["#### Claims", "", f"{len(rows)} claim(s){cell(words)}: " + ", ".join(f"{n} {s.value}" for s, n in every.items() if n), ""]
        if skipped:
            lines += [cell(skipped), ""]
        shown, notes = shown_claims(rows, verbose)
        if bad:
            lines += header + [row(r) for r in shown] + [""] + [cell(n) for n in notes] + ([""] if notes else [])
        if good and cut:
            lines += [_CUT.format(n=len(good), what="claim row(s)", limit=LIMIT), ""]
        elif good:
            lines += [f"<details><summary>{len(good)} PASS claim(s)</summary>", ""] + header + [row(r) for r in good] + ["", "</details>", ""]
    stated = [r for r in statement_rows(report) if r.code != "informational"]
    if stated:
        head = ["| Status | Where | Claimed | Bound to | Derived | Delta | Sentence |", "|---|---|---:|---|---:|---:|---|"]  # the HTML table's shape
        line = (lambda r: f"| {ICONS[r.status]} {r.status.value} | {code(r.where)} | {cell(r.stated)} | {code(r.bound)} | {cell(r.derived_shown)} "
                          f"| {cell(r.delta_shown)} | {cell(r.sentence)} |")
        ordered = sorted(stated, key=lambda r: STATUS_ORDER[r.status])  # FAIL rows first; PASS rows collapsed
        bad = [r for r in ordered if r.status is not Status.PASS]
        good = [r for r in ordered if r.status is Status.PASS]
        lines += ["#### Stated claims", ""] + ((head + [line(r) for r in bad] + [""]) if bad else [])
    if blocked(report):  # a claim text integrity blocked: its numbers counted, never dropped silently
        lines += ([] if stated else ["#### Stated claims", ""]) + [f"- {cell(b)}" for b in blocked(report)] + [""]
    if stated and good and cut:
        lines += [_CUT.format(n=len(good), what="stated number(s)", limit=LIMIT), ""]
    elif stated and good:
        lines += [f"<details><summary>{len(good)} PASS stated number(s)</summary>", ""] + head + [line(r) for r in good] + ["", "</details>", ""]
    lines += _grids(report)
    passed = [f for f in report.findings if f.status is Status.PASS]
    if verbose and passed and cut:
        lines += [_CUT.format(n=len(passed), what="finding(s)", limit=LIMIT), ""]
    elif verbose and passed:
        lines += [f"<details><summary>{len(passed)} PASS finding(s)</summary>", "",
                  "| Status | Check | Code | Location | Message |", "|---|---|---|---|---|"]
        lines += [f"| {ICONS[f.status]} {f.status.value} | {code(f.check)} | {code(f.code)} | {code(location(f))} | {cell(message(f))} |"
                  for f in passed]
        lines += ["", "</details>", ""]
    lines += ["<details><summary>Checks run</summary>", "", "| Check | " + " | ".join(s.value for s in Status) + " | Title |",
              "|---|" + "---:|" * len(Status) + "---|"]
    lines += [f"| {code(c.check)} | " + " | ".join(str(c.counts.get(s.value, 0)) for s in Status) + f" | {cell(c.title)} |"
              for c in report.roster]
    lines += ["", "</details>", ""]
    return "\n".join(lines)


def _grids(report: Report) -> list[str]:
    """
    Return the "Results tables" section (`grids.grids`): per results table of the bundle, a table of its rows by columns.

    Each judged cell reads `ICON stated → derived`, or `ICON stated` when the derived value reads the same
    (several values of one cell joined by `;`); a grid with a FAIL
    or ERROR is open, the others collapsed; what the bounds left out is said under the grid.
    """
    from verifier.report.grids import grids

    found, left = grids(report)
    if not found:
        return []
    lines = ["#### Results tables", "", "As the bundle states them: one cell per judged value with its status, `stated → derived` for FAIL and ERROR "
             "(one number when both read the same; `-`: nothing derived); blank: no claim was read from that cell.", ""]
    for g in found:
        opened = ' open="open"' if "FAIL" in g.counts or "ERROR" in g.counts else ""
        worst = next(s for s in (Status.FAIL, Status.ERROR, Status.UNVERIFIED, Status.PASS) if s.value in g.counts)
        lines += [f"<details{opened}><summary>{ICONS[worst]} {code(g.title)}: {cell(g.counted)}</summary>", "",
                  "| Row | " + " | ".join(cell(g.heading(j)) for j in range(len(g.columns))) + " |",
                  "|---|" + "---:|" * len(g.columns)]
        for label, cells in g.rows:
            lines.append(f"| {cell(label)} | " + " | ".join(
                "" if c is None else f"{ICONS[c.status]} " + cell("; ".join(a if a == b or c.status not in (Status.FAIL, Status.ERROR) else f"{a} → {b}"
                                                                   for a, b in c.values(u)))
                for c, u in zip(cells, g.units, strict=True)) + " |")
        more = [f"{n} more {what} not drawn" for n, what in ((g.more_rows, "row(s)"), (g.more_columns, "column(s)")) if n]
        lines += ([""] + [f"…{cell('; '.join(more))} (the claims table lists every claim)."] if more else []) + ["", "</details>", ""]
    if left:
        lines += [f"…and {left} more results table(s) not drawn (the claims table lists every claim).", ""]
    return lines
