"""
HTML reporter: one self-contained page a reviewer or requester reads (`-f html`, `--report html=PATH`).

The page needs no network: styles are inline, plots are inline SVG drawn by
matplotlib (the `html` extra; without it the page says so instead of the
plots), there is no script, and a Content-Security-Policy of `default-src
'none'` forbids the browser to fetch anything. It shows the verdict, where
the gate and profile came from (`trust`), then what a reviewer must act on
(the FAIL, ERROR and UNVERIFIED findings grouped by check, code and rule,
`_common.groups`: one `<details>` per group with its count and first `FEW`
findings, FAIL and ERROR open), the claims of every reader (claimed, derived,
delta, where, and the sentence a stated claim came from; a grid of each results table the claims were read
from, `grids.grids`, each cell classed `c-STATUS` and marked, its values in its title), the plots, the
PASS findings collapsed, and the roster. Plots: claimed against derived for
every claim with both numbers, and from `Report.figures` (`verifier.checks.figures`)
latency per request in run order, per-server means with arm means, per-frame
quality against the gate's threshold, and stream coverage per media file.
Ticks are plain numbers in the unit a value was mapped in (`MiB`, never
bytes times `1e10`; no axis offset), SI prefixes beyond 1e9 (`_plain`).
Layout: locations wrap only after a `/` (a long path at its folders), digests never; every table scrolls inside its own
`div.scroll` (`overflow-x:auto`), so the page holds at 900 px and wider.
Every string from evidence is HTML-escaped (after control and bidi
characters are made visible); text in plots is drawn as paths, never as markup.
"""

from __future__ import annotations

import contextvars
import html
import io
import os
import posixpath
import re
from typing import Any

from verifier.model.findings import Report, Status
from verifier.report._common import STATUS_ORDER, claim_rows, groups, judged_by, location, message, not_judged, shown_claims, split_path, trust_lines, trust_warning, visible

__all__ = ["NAME", "PLOTS", "render"]

NAME = "html"
#: The plot ids a bundle report with the matching data shows (the browser test checks each is present).
PLOTS = ("latency", "server-means", "frame-scores", "coverage")
#: The plot a report with claims that have a claimed and a derived number shows, whatever the reader.
CLAIM_PLOT = "claims"
#: The plot of a profile-read bundle's receipts: the values of each receipt set and quantity, in record order.
RECEIPTS_PLOT = "receipt-sets"

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1600px;color:#1b1f24;padding:0 16px}
h1{font-size:20px;margin:0 0 4px}h3{font-size:14px;margin:14px 0 4px}h2{font-size:16px;margin:28px 0 8px;border-bottom:1px solid #d0d7de}
.verdict{display:inline-block;padding:6px 14px;border-radius:6px;font-weight:700;font-size:18px;color:#fff}
.PASS{background:#1a7f37}.FAIL{background:#cf222e}.INCOMPLETE,.UNVERIFIED{background:#9a6700}.ERROR{background:#8250df}
table{border-collapse:collapse;width:100%;margin:0}td,th{border:1px solid #d0d7de;padding:3px 6px;text-align:left;
vertical-align:top}th{background:#f6f8fa}td.num{font-family:ui-monospace,monospace;white-space:nowrap}
div.scroll{overflow-x:auto;max-width:100%;margin:6px 0}div.scroll.tall{overflow:auto;max-height:70vh}
td.name{overflow-wrap:normal;min-width:10em}td.msg{overflow-wrap:anywhere;min-width:16em}
.loc{white-space:nowrap}.loc code{white-space:normal}.loc code span{white-space:nowrap}.digest,#head code{white-space:nowrap}details{margin:4px 0}summary{cursor:pointer}details.group>summary{font-weight:600;background:#f6f8fa;border:1px solid #d0d7de;padding:3px 6px}
.st{font-weight:700;color:#fff;border-radius:4px;padding:0 5px;font-size:12px}
figure{margin:12px 0}figcaption{color:#57606a;font-size:13px}figure svg{max-width:100%;height:auto}
code,.mono{font-family:ui-monospace,monospace;font-size:12.5px}p.note{color:#57606a}
table.grid{width:auto}table.grid td,table.grid th{font-family:ui-monospace,monospace;font-size:12px;white-space:nowrap;text-align:right}
table.grid th.row{text-align:left;font-weight:400;white-space:normal;overflow-wrap:anywhere;min-width:8em;max-width:16em;position:sticky;left:0;z-index:1;background:#f6f8fa}td.c-PASS{background:#dafbe1}td.c-FAIL{background:#ffebe9;color:#a40e26;font-weight:700}
td.c-UNVERIFIED{background:#fff8c5}td.c-none{background:repeating-linear-gradient(45deg,#fff,#fff 4px,#f3f4f6 4px,#f3f4f6 8px)}td.c-ERROR{background:#fbefff}
"""
ARM_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def _e(value: object) -> str:
    """Return `value` as escaped HTML text (control and bidi characters shown as escapes first)."""
    return html.escape(visible(str(value)), quote=True)


def _label(value: object) -> str:
    """Return plot-safe text: visible escapes, and `$` escaped so matplotlib never parses evidence as mathtext."""
    return visible(str(value)).replace("$", r"\$")


def _name(value: object) -> str:
    """Return a claim name escaped, with a break opportunity (`<wbr>`) after each `.`, `/`, `_`, `-`, `:`, `,`, `=` and before `[`, so it wraps at its separators, never inside a word."""
    import re

    return re.sub(r"([./_:,=-]|(?=\[))", r"\1<wbr>", _e(value))


#: Splits a location after each `/`, keeping the slash with the part before it.
_SLASH = __import__("re").compile(r"(?<=/)")


def _loc(value: object) -> str:
    """
    Return a location escaped, with a break opportunity (`<wbr>`) after each `/`: a long path wraps at its folders, `README.md:11:14` never.

    A folder name longer than 32 characters also breaks after its
    `_` and `-` (`gh_macos-latest_x86-reference-cpu-deepsparse_v1.8.0-default_config/`), so the column stays narrow
    and the message beside it keeps its width.
    """
    parts = []
    for part in _SLASH.split(str(value)):
        parts += _WORDS.split(part) if len(part) > 32 else [part]
    return "<wbr>".join(f"<span>{_e(part)}</span>" for part in parts if part)


#: The folder the page being rendered is written to (`render`'s `at`), which `_href` makes links relative to.
_AT: contextvars.ContextVar[str | None] = contextvars.ContextVar("verify_html_at", default=None)
#: Splits a long folder name after each `_` and `-`.
_WORDS = re.compile(r"(?<=[_-])")


def _status(status: str) -> str:
    return f'<span class="st {_e(status)}">{_e(status)}</span>'


def _table(head: str, rows: str, ident: str = "", tall: bool = False) -> str:
    """
    Return a table in its own scroller (`div.scroll`), so a wide table never widens the page.

    A `tall` table (the claims) scrolls in a box at most 70 % of the viewport high, so its horizontal
    scrollbar is on the first screen of the table, not under hundreds of rows.
    """
    return f'<div class="scroll{" tall" if tall else ""}"><table{f" id={chr(34)}{ident}{chr(34)}" if ident else ""}>{head}{rows}</table></div>'


def _href(report: Report, f: Any) -> str | None:
    """
    Return a relative link to the file a finding's location names first (the manifest for a listed entry), or None.

    The path is the bundle path as given joined with the file (`_common.split_path`), made relative to the folder
    the report file is written in (`render`'s `at`; the working folder when the page goes to stdout) with
    `os.path.relpath`, never absolute, and percent-encoded with only `/` kept, so it never reads as a scheme
    (`javascript:`) or a host (`//host`). No `#L` line anchor (a browser shows a local file without one).
    """
    from urllib.parse import quote

    from verifier.model.findings import Finding

    listed_in = f.expected.get("listed_in") if isinstance(f.expected, dict) else None
    target = Finding(check=f.check, status=f.status, code=f.code, message="", path=listed_in if isinstance(listed_in, str) else f.path)
    where = split_path(report, target)
    if where is None:
        return None
    base, rel = where
    path = rel if base is None else posixpath.normpath(posixpath.join(base, rel))
    try:  # from the report file's folder (`render(at=)`), else the working folder: never an absolute path
        path = os.path.relpath(os.path.abspath(path), _AT.get() or os.getcwd()).replace(os.sep, "/")
    except ValueError:  # another drive (Windows): no relative path leads there, so no link
        return None
    try:  # a file name read as bytes that are not UTF-8 (`surrogateescape`) links to those very bytes
        encoded = quote(path, safe="/", errors="surrogateescape")
    except UnicodeEncodeError:
        encoded = quote(visible(path), safe="/")
    return ("" if path.startswith("../") else "./") + encoded


def _digest(value: object) -> str:
    """Return a sha256 as `<code>` of its first 12 characters and `…`, the whole digest in its title (a 64-character one wrapped onto its own line)."""
    text = str(value or "")
    if len(text) <= 16:
        return f"<code class=digest>{_e(text)}</code>"
    return f'<code class=digest title="{_e(text)}">{_e(text[:12])}…</code>'


def _where(report: Report, f: Any, text: str) -> str:
    """Return the where cell's content: the location, a link to its file when it names one (`_href`)."""
    href = _href(report, f) if f is not None else None
    inner = f"<code>{_loc(text)}</code>"
    return f'<a href="{html.escape(href, quote=True)}">{inner}</a>' if href else inner


def _finding_rows(report: Report, findings: Any) -> str:
    return "".join(f"<tr><td>{_status(f.status.value)}</td><td class=loc>{_where(report, f, location(f))}</td>"
                   f"<td class=msg>{_e(message(f))}</td></tr>" for f in findings)


def _groups(report: Report, verbose: bool) -> str:
    """Return the "to act on" section: one `<details class=group>` per group of FAIL, ERROR, UNVERIFIED findings (`_common.groups`)."""
    act = groups(report)
    if not act:
        return '<h2 id="act">To act on</h2><p class="note">Nothing: no FAIL, ERROR or UNVERIFIED finding.</p>'
    parts = ['<h2 id="act">To act on (FAIL, then ERROR, then UNVERIFIED)</h2>']
    ids: set[str] = set()
    for g in act:
        shown = g.findings if verbose else g.first()
        more = f", first {len(shown)} shown" if len(shown) < g.count else ""
        parts.append(f'<details class="group g-{g.status.value}" id="{_anchor(g, ids)}"{" open" if g.status.value in ("FAIL", "ERROR") else ""}><summary>'
                     f"{_status(g.status.value)} <code>{_e(g.check)}</code> [<code>{_e(g.code)}</code>]"
                     + (f" <code>{_e(g.rule)}</code>" if g.rule else "") + f": {_e(g.counted)}{more}</summary>"
                     + _table("<tr><th>status</th><th>where</th><th>message</th></tr>", _finding_rows(report, shown))
                     + (f'<p class="note">…and {g.count - len(shown)} more (<code>-v</code>, or the JSON and SARIF reports, '
                        "list every one).</p>" if len(shown) < g.count else "") + "</details>")
    return "".join(parts)


def _anchor(g: Any, taken: set[str]) -> str:
    """Return a page-unique anchor id for a group (`FAIL-gate.rules-rule-not-met-stated-range-F1`), to link to it as `#ID`."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", "-".join(p for p in (g.status.value, g.check, g.code, g.rule) if p)).strip("-")
    ident, n = base, 1
    while ident in taken:
        n += 1
        ident = f"{base}-{n}"
    taken.add(ident)
    return ident


def _claim_points(report: Report) -> list[tuple[float, float, str]]:
    """
    Return `(claimed, derived, status)` of every claim whose claimed and derived values are both numbers in (1e-100, 1e100).

    The claims table's rows and every stated number of the prose bound to a derived value (`claims.stated`:
    a README's failing 75.45 % against 73.45 is drawn, in red).
    """
    from decimal import Decimal, InvalidOperation

    pairs = [(r.claimed, r.derived, r.status) for r in claim_rows(report)]
    pairs += [(str(f.observed["claimed"]), str(f.observed["derived"]), f.status) for f in report.findings
              if f.check == "claims.stated" and isinstance(f.observed, dict) and "claimed" in f.observed and "derived" in f.observed]
    points = []
    for claimed, derived, status in pairs:
        try:
            a, b = Decimal(claimed.partition(" ")[0]), Decimal(derived.partition(" ")[0])
        except (InvalidOperation, ValueError):
            continue
        if a.is_finite() and b.is_finite() and all(Decimal("1e-100") < v < Decimal("1e100") for v in (a, b)):  # a log axis can draw them
            points.append((float(a), float(b), status.value))
    return points


def _claims_plot(figure_cls: Any, points: list[tuple[float, float, str]], table: dict[str, int] | None = None) -> str:
    """
    Return the claimed-against-derived plot: one point per claim, log-log, the line derived = claimed, coloured by status.

    `table` holds the claims table's count per status: a legend entry says `PASS (237 drawn of 240)` when fewer are drawn.
    """
    colors = {"PASS": "#1a7f37", "FAIL": "#cf222e", "UNVERIFIED": "#9a6700", "ERROR": "#8250df"}
    fig = figure_cls(figsize=(7, 4.2))
    ax = fig.add_subplot()
    low = min(min(p[0], p[1]) for p in points)
    high = max(max(p[0], p[1]) for p in points)
    ax.plot([low, high], [low, high], color="#999999", linewidth=1, linestyle="--", label="derived = claimed")
    for status in ("PASS", "UNVERIFIED", "ERROR", "FAIL"):
        mine = [p for p in points if p[2] == status]
        if mine:
            ax.plot([p[0] for p in mine], [p[1] for p in mine], marker="o" if status == "PASS" else "X", linestyle="none",
                    markersize=5 if status == "PASS" else 9, color=colors[status],
                    label=f"{status} ({len(mine)}" + (f" drawn of {table[status]})" if table and table.get(status, 0) != len(mine) else ")"))
    if high / low > 100:
        ax.set_xscale("log")
        ax.set_yscale("log")
        _log_ticks(ax)
    else:  # close values (1000000 and 1000001) keep their digits: no offset above the axis
        _plain(ax, [low, high], ax.xaxis)
        _plain(ax, [low, high])
    ax.set_xlabel("claimed (as stated)")
    ax.set_ylabel("derived from the receipts")
    ax.legend(fontsize=8, loc="upper left")
    return _svg(fig)


def _receipt_sets(figure_cls: Any, series: list[dict[str, Any]]) -> str:
    """Return one small panel per receipt set and quantity: its values in record order (base unit), three panels a row."""
    cols = min(3, len(series))
    rows = (len(series) + cols - 1) // cols
    fig = figure_cls(figsize=(10, 2.4 * rows))
    for i, s in enumerate(series):
        ax = fig.add_subplot(rows, cols, i + 1)
        values, shown_unit = _readable(s["values"], str(s["unit"]))  # 1.2e13 ns drawn as 12000 s, not `12 T`
        ax.plot(range(1, len(values) + 1), values, marker="o", markersize=3, linestyle="none", color=ARM_COLORS[i % len(ARM_COLORS)])
        unit = "" if shown_unit in ("1", "") else f" ({_label(shown_unit)})"  # a dimensionless count or ratio names no unit
        ax.set_title(f"{_label(s['set'])}: {_label(s['quantity'])}{unit}", fontsize=9)
        _plain(ax, values)
        _record_axis(ax, len(values))
        ax.tick_params(labelsize=7)
        ax.set_xlabel("record", fontsize=7)
    fig.tight_layout()
    return _svg(fig)


#: Time units a plot may convert between, as powers of ten of a second, smallest first (`_readable`).
_TIME_UNITS = (("ns", -9), ("µs", -6), ("ms", -3), ("s", 0))


def _readable(values: list[float], unit: str) -> tuple[list[float], str]:
    """
    Return `(values, unit)` for a plot's axis: a time (`ns`, `us`, `µs`, `ms`, `s`) in the largest unit its biggest magnitude
    reaches 1 in (`[1e13] ns` -> `[10000.0] s`, `[2.5e6] ns` -> `[2.5] ms`), so no axis reads `10 T` of nanoseconds; any other unit as it is.
    """
    powers = dict(_TIME_UNITS) | {"us": -6}
    if unit not in powers or not values:
        return values, unit
    largest = max(abs(v) for v in values)
    name, power = next(((n, e) for n, e in reversed(_TIME_UNITS) if largest >= 10.0 ** (e - powers[unit])), _TIME_UNITS[0])
    step = power - powers[unit]  # divide by 10**step (an exact integer power, so 1.5e13 ns is 15000.0 s, not 15000.000000000002)
    return ([v / 10 ** step for v in values] if step >= 0 else [v * 10 ** -step for v in values]), name


def _record_axis(ax: Any, count: int) -> None:
    """Give a record-order x axis whole-number ticks; a single record sits at 1 between 0 and 2 (not on an axis from 0.96 to 1.04)."""
    from matplotlib.ticker import MaxNLocator

    if count == 1:
        ax.set_xlim(0.0, 2.0)
        ax.set_xticks([1.0])
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def _log_ticks(ax: Any) -> None:
    """Write both log axes' ticks as plain numbers (`numtext.plain`: `100`, `0.01`), not as powers of ten."""
    from matplotlib.ticker import FuncFormatter

    from verifier.model.numtext import plain

    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FuncFormatter(lambda v, _pos: plain(v, 6)))


def _plain(ax: Any, values: list[float], axis: Any = None) -> None:
    """
    Write the ticks of `axis` (default: y) as plain numbers in the plotted unit: no offset (`+1e6`), no `1e10` multiplier above it.

    Magnitudes beyond what plain digits read well (>= 1e9 or < 1e-4) take SI prefixes instead (`EngFormatter`: `1.2 G`).
    """
    from matplotlib.ticker import EngFormatter, ScalarFormatter

    axis = ax.yaxis if axis is None else axis
    largest = max((abs(v) for v in values), default=0.0)
    if largest >= 1e9 or 0 < largest < 1e-4:
        axis.set_major_formatter(EngFormatter(sep=" "))
        return
    plain = ScalarFormatter(useOffset=False)
    plain.set_scientific(False)
    axis.set_major_formatter(plain)


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
        for j, e in enumerate(items):  # each line labelled by its comparison (issue 41: 14 unlabelled lines say nothing)
            ax.plot(range(1, len(e["scores"]) + 1), e["scores"], linewidth=0.8, alpha=0.8, linestyle=("-", "--", ":")[j // 10 % 3],
                    label=_label(e.get("comparison") or f"comparison {j + 1}"))
        threshold = items[0].get("threshold") or {}
        for bound in ("min", "max"):
            if isinstance(threshold.get(bound), int | float):
                ax.axhline(threshold[bound], color="#cf222e", linestyle="--", linewidth=1.2,
                           label=f"gate {bound} {threshold[bound]}")
        ax.set_title(f"{_label(metric)} per frame, {len(items)} re-scored comparison(s)", fontsize=10)
        ax.set_xlabel("frame")
        ax.set_ylabel(_label(metric))
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), ncols=1 + len(items) // 16, title="comparison", title_fontsize=7)
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
    from verifier.report.statements import statement_rows

    figures = report.figures or {}
    points = _claim_points(report)
    if not figures and not points:
        return []
    from matplotlib.figure import Figure

    out = []
    if points:
        table = [r.status for r in claim_rows(report)] + [r.status for r in statement_rows(report) if r.code != "informational"]
        out.append((CLAIM_PLOT, f"Claimed against derived, one point per claim or stated number with a number on both sides "
                                f"({len(points)} of the {len(table)} claims and stated numbers of the tables; the legend gives both counts). "
                                "A FAIL is drawn as a red cross even where its difference is too small to leave the dashed line at this "
                                "scale: the table gives the delta.",
                    _claims_plot(Figure, points, {s: sum(t.value == s for t in table) for s in ("PASS", "UNVERIFIED", "ERROR", "FAIL")})))
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
    series = figures.get("receipt_sets") or []
    if series:
        out.append((RECEIPTS_PLOT, f"Receipt values per receipt set and quantity, in record order, in each quantity's base unit "
                                   f"({len(series)} series).", _receipt_sets(Figure, series)))
    coverage = _coverage(Figure, figures.get("coverage") or [])
    if coverage:
        out.append(("coverage", "Coverage per media file: the expected span [0, frames/fps] and each stream's first and "
                                "last timestamp.", coverage))
    return out


def _claims(report: Report, verbose: bool = False) -> str:
    """Return the claims table (claims.json and receipt claims) and the stated-claims table (numbers of the prose)."""
    from verifier.report.statements import blocked, counted, statement_rows

    parts = []
    rows = claim_rows(report)
    skipped = not_judged(report)
    if skipped and not rows:
        parts.append(f'<p class="note" id="claims-not-judged">{_e(skipped)}</p>')
    if rows:
        head = "<tr><th>status</th><th>where</th><th>claim</th><th>claimed</th><th>derived</th><th>delta</th><th>tolerance</th></tr>"
        row = (lambda r: f"<tr><td>{_status(r.status.value)}</td><td class=loc>{_where(report, r.finding, r.where)}</td><td class=name>{_name(r.claim)}</td>"
                         f"<td class=num>{_e(r.claimed)}</td><td class=num>{_e(r.derived)}</td><td class=num>{_e(r.delta)}</td>"
                         f"<td class=num>{_e(r.tolerance)}</td></tr>")
        bad = [r for r in rows if r.status is not Status.PASS]
        good = [r for r in rows if r.status is Status.PASS]
        words, every = counted(report, [r.status for r in rows])  # the stated numbers of the prose too: their FAIL is counted here
        counts = ", ".join(f"{n} {s.value}" for s, n in every.items() if n)
        parts.append(f'<p id="claims-count">{len(rows)} claim(s){_e(words)}: {counts}</p>')
        if skipped:
            parts.append(f'<p class="note" id="claims-not-judged">{_e(skipped)}</p>')
        shown, notes = shown_claims(rows, verbose)
        parts.append(_table(head, "".join(row(r) for r in shown), "claims", tall=True) if bad else "")
        parts += [f'<p class="note">{_e(n)}</p>' for n in notes]
        if good:
            parts.append(f"<details><summary>{len(good)} PASS claim(s)</summary>"
                         + _table(head, "".join(row(r) for r in good), "" if bad else "claims", tall=True) + "</details>")
    stated = statement_rows(report)
    parts += [f'<p class="note stated-blocked">{_e(b)}</p>' for b in blocked(report)]  # counted, not judged: never dropped silently
    if stated:
        head = "<tr><th>status</th><th>where</th><th>claimed</th><th>bound to</th><th>derived</th><th>delta</th><th>sentence</th></tr>"
        line = (lambda r, d: f"<tr><td>{_status(r.status.value)}</td><td class=loc>{_where(report, r.finding, r.where)}</td><td class=num>{_e(r.stated)}</td>"
                             f"<td>{_e(r.bound)}</td><td class=num>{_e(r.derived_shown)}</td><td class=num>{_e(d)}</td>"
                             f"<td class=msg>{_e(r.sentence)}</td></tr>")
        paired = sorted(((r, r.delta_shown) for r in stated), key=lambda p: STATUS_ORDER[p[0].status])  # FAIL rows first, stable
        bad_rows = [p for p in paired if p[0].status is not Status.PASS]
        good_rows = [p for p in paired if p[0].status is Status.PASS]
        parts.append("<h3>Stated in the prose</h3>" + (_table(head, "".join(line(r, d) for r, d in bad_rows), "stated-claims", tall=True)
                                                         if bad_rows else ""))
        if good_rows:  # PASS detail collapsed (issue 41: what to act on first)
            parts.append(f"<details><summary>{len(good_rows)} PASS stated number(s)</summary>"
                         + _table(head, "".join(line(r, d) for r, d in good_rows), "" if bad_rows else "stated-claims", tall=True)
                         + "</details>")
    parts.append(_grids(report))
    return "".join(parts) or '<p class="note">No claim findings in this report.</p>'


#: The mark a grid cell carries besides its colour, so a status reads without colour too.
MARKS = {Status.PASS: "✓", Status.FAIL: "✗", Status.UNVERIFIED: "?", Status.ERROR: "!"}


def _grid_cell(cell: Any, unit: str | None) -> str:
    """Return one `<td>` of a results grid: classed and marked by status, the stated value(s) shown (with the derived one for FAIL and ERROR), every value in its title."""
    if cell is None:
        return '<td class="c-none" title="no claim was read from this cell"></td>'
    loud = cell.status in (Status.FAIL, Status.ERROR)
    shown = " · ".join(stated + (f" → {derived}" if loud and stated != derived else "") for stated, derived in cell.values(unit))
    return f'<td class="c-{cell.status.value}" title="{_e(cell.detail())}">{MARKS[cell.status]} {_e(shown)}</td>'


def _grids(report: Report) -> str:
    """Return the results-table grids (`grids.grids`): one table per results table of the bundle, rows by columns, one cell per judged value."""
    from verifier.report.grids import grids

    found, left = grids(report)
    if not found:
        return ""
    parts = ['<h3 id="grids">Results tables, as the bundle states them (cell colour and mark: status; hover a cell for stated, derived, delta and tolerance; hatched: no claim was read from that cell)</h3>']
    for g in found:
        head = "<tr><th>row</th>" + "".join(f"<th>{_e(g.heading(j))}</th>" for j in range(len(g.columns))) + "</tr>"
        body = "".join(f'<tr><th class="row">{_e(label)}</th>' + "".join(_grid_cell(c, u) for c, u in zip(cells, g.units, strict=True)) + "</tr>"
                       for label, cells in g.rows)
        more = [f"{n} more {what} not drawn" for n, what in ((g.more_rows, "row(s)"), (g.more_columns, "column(s)")) if n]
        parts.append(f'<p class="grid-title"><code>{_e(g.title)}</code>: {_e(g.counted)}</p>'
                     + _table(head, body, tall=True).replace("<table>", '<table class="grid">', 1)
                     + (f'<p class="note">…{_e("; ".join(more))} (the claims table lists every claim).</p>' if more else ""))
    if left:
        parts.append(f'<p class="note">…and {left} more results table(s) not drawn (the claims table lists every claim).</p>')
    return "".join(parts)


def render(report: Report, *, verbose: bool = False, color: bool = False, at: str | None = None) -> str:
    """
    Return the HTML page for `report` (a string; the CLI writes it). `color` is ignored; `verbose` also lists PASS findings;
    `at` is the folder the page is written to, which its links to bundle files are relative to (None: the working folder).

    Without matplotlib the page carries a note naming the `html` extra in place of the plots.
    """
    token = _AT.set(at)
    try:
        return _page(report, verbose)
    finally:
        _AT.reset(token)


def _page(report: Report, verbose: bool) -> str:
    """Return the page `render` returns, its links relative to `_AT`."""
    counts = {s: sum(1 for f in report.findings if f.status is s) for s in Status}
    judge = judged_by(report)
    parts = [
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>",
        "<meta http-equiv=Content-Security-Policy content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">",
        f"<title>verify: {_e(report.verdict)}: {_e(report.subject)}</title><style>{CSS}</style></head><body>",
        f"<h1>verify {_e(report.verifier_version)}: <span class=mono>{_e(report.subject)}</span></h1>",
        f'<p id=head><span class="verdict {_e(report.verdict)}" id="verdict">{_e(report.verdict)}</span> '
        f"exit {int(report.exit_code)}; {', '.join(f'{n} {s.value}' for s, n in counts.items())}; "
        f"reader {_e(report.kind)}"
        + (f"; {judge[0]} <code>{_e(judge[1])}</code> sha256 {_digest(report.gate_sha256)}" if judge else "")
        + "</p>",
    ]
    warning = trust_warning(report)
    if warning:
        parts.append(f'<p class="trust-differs" id="trust-differs"><span class="st UNVERIFIED">TRUST ROOT DIFFERS</span> {_e(warning)}</p>')
    lines = trust_lines(report)
    if lines:
        parts.append("<h2>Trust</h2><ul>" + "".join(f"<li>{_e(line)}</li>" for line in lines) + "</ul>")
    parts.append(_groups(report, verbose))
    parts.append("<h2>Claims</h2>" + _claims(report, verbose))
    try:
        plots = _plots(report)
    except ImportError:
        plots = []
        parts.append('<h2>Plots</h2><p class="note" id="no-plots">Plots need matplotlib: install the `html` extra.</p>')
    if plots:
        parts.append("<h2>Plots</h2>")
        for ident, caption, svg in plots:
            parts.append(f'<figure class=plot id="plot-{ident}">{svg}<figcaption>{_e(caption)}</figcaption></figure>')
    passed = [f for f in report.findings if f.status is Status.PASS]
    parts.append(f"<h2>PASS findings</h2><details{' open' if verbose else ''}><summary>{len(passed)} PASS finding(s)</summary>"
                 + (_table("<tr><th>status</th><th>check</th><th>code</th><th>where</th><th>message</th></tr>", "".join(
                     f"<tr><td>{_status(f.status.value)}</td><td>{_e(f.check)}</td><td>{_e(f.code or '-')}</td>"
                     f"<td class=loc><code>{_loc(location(f))}</code></td><td class=msg>{_e(message(f))}</td></tr>" for f in passed))
                    if passed else '<p class="note">None.</p>') + "</details>")
    parts.append("<h2>Roster (every check that ran)</h2>" + _table("<tr><th>check</th><th>counts</th><th>title</th></tr>", "".join(
        f"<tr><td class=loc>{_e(c.check)}</td><td class=num>{_e(', '.join(f'{n} {s}' for s, n in sorted(c.counts.items())))}</td>"
        f"<td>{_e(c.title)}</td></tr>" for c in report.roster)))
    parts.append("</body></html>\n")
    return "\n".join(parts)
