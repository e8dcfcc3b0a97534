"""
HTML reporter: one self-contained page a reviewer or requester reads (`-f html`, `--report html=PATH`).

The page needs no network: styles are inline, plots are inline SVG drawn by
matplotlib (the `html` extra; without it the page says so instead of the
plots), there is no script, and a Content-Security-Policy of `default-src
'none'` forbids the browser to fetch anything. It shows the verdict, where
the gate and profile came from (`trust`), the claims (claimed, derived,
delta, and the sentence a stated claim came from), the findings that are not
PASS, the roster, and the plots of `Report.figures` (`verifier.figures`):
latency per request in run order, per-server means with arm means, per-frame
quality against the gate's threshold, and stream coverage per media file.
Every string from evidence is HTML-escaped (after control and bidi
characters are made visible); text in plots is drawn as paths, never as markup.
"""

from __future__ import annotations

import html
import io
from typing import Any

from verifier.model import Report, Status
from verifier.report._common import STATUS_ORDER, claim_rows, judged_by, location, trust_lines, visible

__all__ = ["NAME", "PLOTS", "render"]

NAME = "html"
#: The plot ids a bundle report with the matching data shows (the browser test checks each is present).
PLOTS = ("latency", "server-means", "frame-scores", "coverage")

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#1b1f24;padding:0 16px}
h1{font-size:20px;margin:0 0 4px}h3{font-size:14px;margin:14px 0 4px}h2{font-size:16px;margin:28px 0 8px;border-bottom:1px solid #d0d7de}
.verdict{display:inline-block;padding:6px 14px;border-radius:6px;font-weight:700;font-size:18px;color:#fff}
.PASS{background:#1a7f37}.FAIL{background:#cf222e}.INCOMPLETE,.UNVERIFIED{background:#9a6700}.ERROR{background:#8250df}
table{border-collapse:collapse;width:100%;margin:6px 0}td,th{border:1px solid #d0d7de;padding:3px 6px;text-align:left;
vertical-align:top}th{background:#f6f8fa}td.num{font-family:ui-monospace,monospace;white-space:nowrap}
.st{font-weight:700;color:#fff;border-radius:4px;padding:0 5px;font-size:12px}
figure{margin:12px 0}figcaption{color:#57606a;font-size:13px}figure svg{max-width:100%;height:auto}
code,.mono{font-family:ui-monospace,monospace;font-size:12.5px;word-break:break-all}p.note{color:#57606a}
"""
ARM_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def _e(value: object) -> str:
    """Return `value` as escaped HTML text (control and bidi characters shown as escapes first)."""
    return html.escape(visible(str(value)), quote=True)


def _label(value: object) -> str:
    """Return plot-safe text: visible escapes, and `$` escaped so matplotlib never parses evidence as mathtext."""
    return visible(str(value)).replace("$", r"\$")


def _status(status: str) -> str:
    return f'<span class="st {_e(status)}">{_e(status)}</span>'


def _svg(fig: Any) -> str:
    """Return the figure as an inline `<svg>` element (no XML prolog, deterministic ids, no date)."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "verify-report", "svg.fonttype": "path"}):
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buf.getvalue()
    return text[text.index("<svg"):]


def _arm_colors(rows: list[dict[str, Any]]) -> dict[str, str]:
    arms: list[str] = []
    for r in rows:
        if r["arm"] not in arms:
            arms.append(r["arm"])
    return {arm: ARM_COLORS[i % len(ARM_COLORS)] for i, arm in enumerate(arms)}


def _latency(figure_cls: Any, rows: list[dict[str, Any]]) -> str:
    colors = _arm_colors(rows)
    fig = figure_cls(figsize=(10, 3.6))
    ax = fig.add_subplot()
    blocks: list[tuple[str, int, int]] = []
    for r in rows:
        if blocks and blocks[-1][0] == r["server"]:
            blocks[-1] = (r["server"], blocks[-1][1], r["order"])
        else:
            blocks.append((r["server"], r["order"], r["order"]))
    for i, (server, first, last) in enumerate(blocks):
        if i % 2:
            ax.axvspan(first - 0.5, last + 0.5, color="#f0f0f0", zorder=0)
        ax.text((first + last) / 2, 1.0, _label(server), transform=ax.get_xaxis_transform(), ha="center", va="bottom",
                fontsize=8)
    seen = set()
    for r in rows:
        if r["elapsed_s"] is None:
            ax.plot(r["order"], 0, marker="x", color="#cf222e", linestyle="none")
            continue
        warm = r["phase"] == "warmup"
        key = (r["arm"], warm)
        ax.plot(r["order"], r["elapsed_s"], marker="o", linestyle="none", markersize=6,
                markerfacecolor="none" if warm else colors[r["arm"]], markeredgecolor=colors[r["arm"]],
                label=None if key in seen else f"{_label(r['label'])} {_label(r['arm'])}{' (warmup)' if warm else ''}")
        seen.add(key)
    ax.set_xlabel("request, in run order (server blocks labelled on top; hollow = warmup, x = no latency)")
    ax.set_ylabel("latency (s)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc="best")
    return _svg(fig)


def _server_means(figure_cls: Any, rows: list[dict[str, Any]]) -> str | None:
    colors = _arm_colors(rows)
    servers: dict[str, tuple[str, list[float]]] = {}
    for r in rows:
        if r["phase"] == "measured" and r["elapsed_s"] is not None:
            servers.setdefault(r["server"], (r["arm"], []))[1].append(r["elapsed_s"])
    if not servers:
        return None
    names = list(servers)
    means = [sum(v) / len(v) for _a, v in servers.values()]
    fig = figure_cls(figsize=(10, 3.2))
    ax = fig.add_subplot()
    ax.bar(range(len(names)), means, color=[colors[servers[n][0]] for n in names])
    ax.set_xticks(range(len(names)), [_label(n) for n in names])
    for arm in dict.fromkeys(a for a, _v in servers.values()):
        idx = [i for i, n in enumerate(names) if servers[n][0] == arm]
        arm_mean = sum(means[i] for i in idx) / len(idx)
        ax.hlines(arm_mean, min(idx) - 0.45, max(idx) + 0.45, colors="black", linestyles="dashed")
        ax.text(max(idx) + 0.47, arm_mean, f"{_label(arm)} mean {arm_mean:.2f} s", va="center", fontsize=8)
    ax.set_ylabel("mean measured latency (s)")
    ax.set_xlabel("server (bars in run order; dashed: arm mean = mean of its server means)")
    return _svg(fig)


def _frame_scores(figure_cls: Any, entries: list[dict[str, Any]]) -> str | None:
    metrics: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        if len(e.get("scores") or []) > 1:
            metrics.setdefault(e["metric"], []).append(e)
    if not metrics:
        return None
    fig = figure_cls(figsize=(10, 3.0 * len(metrics)))
    for i, (metric, items) in enumerate(sorted(metrics.items())):
        ax = fig.add_subplot(len(metrics), 1, i + 1)
        for e in items:
            ax.plot(range(1, len(e["scores"]) + 1), e["scores"], linewidth=0.8, alpha=0.7)
        threshold = items[0].get("threshold") or {}
        for bound in ("min", "max"):
            if isinstance(threshold.get(bound), int | float):
                ax.axhline(threshold[bound], color="#cf222e", linestyle="--", linewidth=1.2,
                           label=f"gate {bound} {threshold[bound]}")
        ax.set_title(f"{_label(metric)} per frame, {len(items)} re-scored comparison(s)", fontsize=10)
        ax.set_xlabel("frame")
        ax.set_ylabel(_label(metric))
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    return _svg(fig)


def _coverage(figure_cls: Any, entries: list[dict[str, Any]]) -> str | None:
    if not entries:
        return None
    fig = figure_cls(figsize=(10, 0.9 + 0.32 * len(entries)))
    ax = fig.add_subplot()
    styles = {"video": ("#1f77b4", 0.18), "audio": ("#2ca02c", -0.18)}
    labels = []
    for row, e in enumerate(entries):
        y = len(entries) - 1 - row
        start, end = e["expected"]
        ax.barh(y, end - start, left=start, height=0.8, color="#e6e6e6", edgecolor="#999999",
                label="expected span" if row == 0 else None)
        for s in e["streams"]:
            color, dy = styles.get(s["stream"], ("#555555", 0.0))
            if s["start"] is None:
                continue
            stop = s["end"] if s["end"] is not None else s["start"]
            ax.plot([s["start"], stop], [y + dy, y + dy], color=color, linewidth=3, solid_capstyle="butt",
                    label=f"{s['stream']} first..last timestamp" if row == 0 else None)
            ax.plot([s["start"], stop], [y + dy, y + dy], linestyle="none", marker="|", color="black", markersize=7)
        labels.append(_label(e["file"]) + (f" ({_label(e['arm'])})" if e.get("arm") else ""))
    ax.set_yticks(range(len(entries)), list(reversed(labels)), fontsize=7)
    ax.set_xlabel("seconds")
    ax.legend(fontsize=8, loc="lower right", ncols=3)
    return _svg(fig)


def _plots(report: Report) -> list[tuple[str, str, str]]:
    """Return `(id, caption, svg)` for each plot the report's figures support."""
    figures = report.figures or {}
    if not figures:
        return []
    from matplotlib.figure import Figure

    out = []
    rows = figures.get("requests") or []
    if rows:
        out.append(("latency", "Latency per request in run order, by server and arm (hollow markers: warmups).",
                    _latency(Figure, rows)))
        means = _server_means(Figure, rows)
        if means:
            out.append(("server-means", "Per-server mean of measured requests, with each arm's mean of server means.", means))
    frames = _frame_scores(Figure, figures.get("frames") or [])
    if frames:
        out.append(("frame-scores", "Per-frame scores of every re-scored comparison against the gate's threshold.", frames))
    coverage = _coverage(Figure, figures.get("coverage") or [])
    if coverage:
        out.append(("coverage", "Coverage per media file: the expected span [0, frames/fps] and each stream's first and "
                                "last timestamp.", coverage))
    return out


def _claims(report: Report) -> str:
    """Return the claims table (claims.json and receipt claims) and the stated-claims table (numbers of the prose)."""
    from verifier.report.statements import CHECK as STATED
    from verifier.report.statements import statement_rows

    parts = []
    rows = claim_rows(report)
    if rows:
        parts.append("<table id=\"claims\"><tr><th>claim</th><th>status</th><th>claimed</th><th>derived</th><th>delta</th></tr>"
                     + "".join(f"<tr><td>{_e(r.claim)}</td><td>{_status(r.status.value)}</td><td class=num>{_e(r.claimed)}</td>"
                               f"<td class=num>{_e(r.derived)}</td><td class=num>{_e(r.delta)}</td></tr>" for r in rows)
                     + "</table>")
    stated = statement_rows(report)
    if stated:
        from verifier.report._common import _places, _shown  # the claims table's rounding: two places past the claim

        deltas = [_shown(str(f.observed.get("delta", "-")), _places(str(f.observed.get("claimed", "")))) for f in report.findings
                  if f.check == STATED and isinstance(f.observed, dict) and "stated" in f.observed]
        parts.append("<h3>Stated in the prose</h3><table id=\"stated-claims\"><tr><th>status</th><th>where</th><th>claimed</th>"
                     "<th>bound to</th><th>derived</th><th>delta</th><th>sentence</th></tr>"
                     + "".join(f"<tr><td>{_status(r.status.value)}</td><td class=mono>{_e(r.where)}</td><td class=num>{_e(r.stated)}</td>"
                               f"<td>{_e(r.bound)}</td><td class=num>{_e(r.derived)}</td><td class=num>{_e(d)}</td>"
                               f"<td>{_e(r.sentence)}</td></tr>" for r, d in zip(stated, deltas, strict=False))
                     + "</table>")
    return "".join(parts) or '<p class="note">No claim findings in this report.</p>'


def render(report: Report, *, verbose: bool = False, color: bool = False) -> str:
    """
    Return the HTML page for `report` (a string; the CLI writes it). `color` is ignored; `verbose` also lists PASS findings.

    Without matplotlib the page carries a note naming the `html` extra in place of the plots.
    """
    counts = {s: sum(1 for f in report.findings if f.status is s) for s in Status}
    judge = judged_by(report)
    parts = [
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>",
        "<meta http-equiv=Content-Security-Policy content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">",
        f"<title>verify: {_e(report.verdict)}: {_e(report.subject)}</title><style>{CSS}</style></head><body>",
        f"<h1>verify {_e(report.verifier_version)}: <span class=mono>{_e(report.subject)}</span></h1>",
        f'<p><span class="verdict {_e(report.verdict)}" id="verdict">{_e(report.verdict)}</span> '
        f"exit {int(report.exit_code)}; {', '.join(f'{n} {s.value}' for s, n in counts.items())}; "
        f"reader {_e(report.kind)}"
        + (f"; {judge[0]} <code>{_e(judge[1])}</code> sha256 <code>{_e(report.gate_sha256)}</code>" if judge else "")
        + "</p>",
    ]
    lines = trust_lines(report)
    if lines:
        parts.append("<h2>Trust</h2><ul>" + "".join(f"<li>{_e(line)}</li>" for line in lines) + "</ul>")
    parts.append("<h2>Claims</h2>" + _claims(report))
    shown = sorted((f for f in report.findings if verbose or f.status is not Status.PASS),
                   key=lambda f: STATUS_ORDER.get(f.status, 9))
    parts.append("<h2>Findings" + ("" if verbose else " (not PASS)") + "</h2>")
    if shown:
        parts.append("<table><tr><th>status</th><th>check</th><th>code</th><th>where</th><th>message</th></tr>" + "".join(
            f"<tr><td>{_status(f.status.value)}</td><td>{_e(f.check)}</td><td>{_e(f.code or '-')}</td>"
            f"<td class=mono>{_e(location(f))}</td><td>{_e(f.message)}</td></tr>" for f in shown) + "</table>")
    else:
        parts.append('<p class="note">None.</p>')
    try:
        plots = _plots(report)
    except ImportError:
        plots = []
        parts.append('<h2>Plots</h2><p class="note" id="no-plots">Plots need matplotlib: install the `html` extra.</p>')
    if plots:
        parts.append("<h2>Plots</h2>")
        for ident, caption, svg in plots:
            parts.append(f'<figure class=plot id="plot-{ident}">{svg}<figcaption>{_e(caption)}</figcaption></figure>')
    parts.append("<h2>Roster (every check that ran)</h2><table><tr><th>check</th><th>counts</th><th>title</th></tr>" + "".join(
        f"<tr><td>{_e(c.check)}</td><td class=num>{_e(', '.join(f'{n} {s}' for s, n in sorted(c.counts.items())))}</td>"
        f"<td>{_e(c.title)}</td></tr>" for c in report.roster) + "</table>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
