"""
Render a `Report` in every format and prove each output is accepted by its own format's parser.

Used by the hostile-input tests: whatever string or number evidence puts
into the model, every reporter must still emit UTF-8 that parses as its
format. JSON against `schemas/report.schema.json`, SARIF against the vendored
official SARIF 2.1.0 schema (`tests/data`, sha256-checked), JUnit by expat
(`xml.etree`) and junitparser, Markdown by markdown-it-py (CommonMark + GFM
tables: every table row keeps its cell count, and no evidence becomes HTML),
GitHub workflow commands by the runner's command grammar, text by its line
shape (one verdict line, no control characters), CSV by Python's csv reader
(one six-cell row per finding, no formula cell), TAP by the TAP 13 grammar
(version line, plan, numbered test lines, each YAML block by PyYAML).
"""

from __future__ import annotations

import hashlib
import json
import re
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

import jsonschema
from junitparser import JUnitXml
from markdown_it import MarkdownIt

from verifier.model.findings import Report, Status
from verifier.report import REPORTERS, render
from verifier.report._common import claim_rows, groups, shown_claims, trust_lines, visible

ROOT = Path(__file__).resolve().parent.parent
SARIF_SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
SARIF_SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"

#: The GitHub runner's workflow command: `::name key=value,key=value::message`, properties escaped (no raw `:` `,`).
GITHUB_LINE = re.compile(r"::(error|warning|notice|debug)(?: [a-z]+=[^,:\r\n]*(?:,[a-z]+=[^,:\r\n]*)*)?::[^\r\n]*\Z")
#: Our own HTML in the Markdown summary (the collapsible groups, claims and roster); any other HTML token came from
#: evidence and is a defect. A summary's text is escaped evidence, so it holds no `<` or `>`.
OUR_HTML = re.compile(r'(<details( open="open")?><summary>[^<>\n]*</summary>\n|</details>\n)\Z')
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


@cache
def sarif_validator() -> jsonschema.Draft4Validator:
    """Return a validator for the vendored official SARIF 2.1.0 schema (its sha256 checked first)."""
    data = SARIF_SCHEMA.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SARIF_SCHEMA_SHA256
    return jsonschema.Draft4Validator(json.loads(data), format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


@cache
def report_validator() -> jsonschema.Draft202012Validator:
    """Return a validator for our `schemas/report.schema.json`."""
    schema = json.loads((ROOT / "schemas" / "report.schema.json").read_text())
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def _json(text: str) -> None:
    errors = list(report_validator().iter_errors(json.loads(text)))
    assert not errors, errors[0].message


def _sarif(text: str) -> None:
    errors = list(sarif_validator().iter_errors(json.loads(text)))
    assert not errors, errors[0].message


def _junit(text: str, report: Report) -> None:
    ET.fromstring(text.encode("utf-8"))  # expat: well-formed XML 1.0, no forbidden characters even as references
    suite = next(iter(JUnitXml.fromstring(text)))
    assert suite.tests == len({c.check for c in report.roster} | {f.check for f in report.findings})


def _github(text: str, report: Report) -> None:
    lines = text.split("\n")
    assert lines[-1] == ""
    for line in lines[:-1]:
        assert GITHUB_LINE.match(line), line[:200]
    passed = sum(1 for f in report.findings if f.status is Status.PASS)
    assert len(lines) - 1 == len(groups(report)) + bool(claim_rows(report)) + passed + len(trust_lines(report)) + 1  # groups, claims, PASS, trust, verdict


def _markdown(text: str, report: Report, verbose: bool) -> None:
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    html = [t.content for t in tokens if t.type in ("html_block", "html_inline")]
    html += [c.content for t in tokens if t.children for c in t.children if c.type == "html_inline"]
    assert all(OUR_HTML.match(h) for h in html), html
    rows = 0
    cells: list[int] = []
    for t in tokens:
        if t.type == "tr_open":
            cells.append(0)
        elif t.type in ("th_open", "td_open"):
            cells[-1] += 1
        elif t.type == "tbody_open":
            pass
    widths = {2, 5, 6, 7, 1 + len(Status) + 1}  # a group's where/message, findings, claims, stated claims, the roster
    assert all(n in widths for n in cells), cells
    rows = sum(1 for t in tokens if t.type == "tr_open") - sum(1 for t in tokens if t.type == "thead_open")
    shown = [f for g in groups(report) for f in (g.findings if verbose else g.first())]
    shown += [f for f in report.findings if verbose and f.status is Status.PASS]
    from verifier.report.statements import statement_rows

    stated = [r for r in statement_rows(report) if r.code != "informational"]  # the "Stated claims" table (docs/claims.md)
    claims = claim_rows(report)  # every PASS row, and the non-PASS ones as listed (UNVERIFIED capped at FEW per code unless verbose)
    listed = shown_claims(claims, verbose)[0] + [r for r in claims if r.status is Status.PASS]
    every = len(listed) + len(stated) + len(shown) + len(report.roster)
    if "cut to keep this report under" in text or "this report is cut at" in text:  # over 65,000 characters (markdown.LIMIT): PASS rows cut, said so
        assert rows < every and len(text) <= 65_000, (rows, every, len(text))
    else:
        assert rows == every, (rows, len(shown))


def _html(text: str) -> None:
    """The HTML page: no element that runs or fetches anything, no event handler, only in-page or data: references."""
    from html.parser import HTMLParser

    seen: list[tuple[str, list[tuple[str, str | None]]]] = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            seen.append((tag, attrs))

    Collect().feed(text)
    tags = {tag for tag, _ in seen}
    assert not tags & {"script", "iframe", "object", "embed", "link", "img", "base", "form", "frame"}, tags
    for tag, attrs in seen:
        for name, value in attrs:
            assert not name.startswith("on"), (tag, name)
            if name in ("href", "src", "xlink:href"):  # in-page, data:, or an href relative to the report's folder (no scheme, no host, never absolute)
                v = value or ""
                assert v and not v.startswith(("//", "/")), (tag, name, value)
                assert name == "href" or v.startswith(("#", "data:")), (tag, name, value)
                assert ":" not in v.split("#")[0] or v.startswith("data:"), (tag, name, value)


def _csv(text: str, report: Report) -> None:
    """RFC 4180 by Python's csv reader: CRLF records, a header and one six-cell row per finding, no control character, no formula cell."""
    import csv
    import io

    assert text.endswith("\r\n") and "\n" not in text.replace("\r\n", "")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[0] == ["check", "status", "code", "file", "pointer", "message"] and len(rows) == len(report.findings) + 1
    for row in rows:
        assert len(row) == 6 and not any(CONTROL.search(c) or c.startswith(("=", "+", "-", "@", "\t", "\r")) for c in row), row


#: A TAP 13 test line as `verifier.report.tap` writes it: `ok`/`not ok`, its number, `- ` and a description with no raw `#`, then the one directive.
TAP_TEST = re.compile(r"(ok|not ok) (\d+) - ((?:[^#\\\n]|\\[#\\])+)( # TODO unverified)?\Z")


def _tap(text: str, report: Report) -> dict[str, tuple[str, bool, dict | None]]:
    """
    TAP version 13: the version line, the plan `1..N` with N the roster's checks, N test lines numbered 1..N, each YAML block
    (`  ---` .. `  ...`) a mapping PyYAML reads, `#` diagnostic lines, no control character. Return check -> (test word, TODO, block).
    """
    import yaml

    assert not CONTROL.search(text), repr(CONTROL.search(text))
    lines = text.split("\n")
    assert lines[0] == "TAP version 13" and lines[-1] == "", lines[:2]
    checks = {visible(c.check) for c in report.roster} | {visible(f.check) for f in report.findings}  # as written: control characters escaped
    assert lines[1] == f"1..{len(checks)}", lines[1]
    tests: dict[str, tuple[str, bool, dict | None]] = {}
    i, last = 2, None
    while i < len(lines) - 1:
        line = lines[i]
        if line == "  ---":
            assert last is not None and tests[last][2] is None, (i, line)
            end = lines.index("  ...", i)
            block = yaml.safe_load("\n".join(part[2:] for part in lines[i + 1:end]))
            assert isinstance(block, dict), block
            tests[last] = (*tests[last][:2], block)
            i = end + 1
            continue
        if line.startswith("# "):
            i += 1
            continue
        m = TAP_TEST.match(line)
        assert m and int(m.group(2)) == len(tests) + 1, line
        last = m.group(3).replace("\\#", "#").replace("\\\\", "\\")
        assert last not in tests and (m.group(1) == "not ok" or not m.group(4)), line
        tests[last] = (m.group(1), bool(m.group(4)), None)
        i += 1
    assert set(tests) == checks and lines[-2].startswith(f"# verdict: {report.verdict} (exit "), (set(tests) ^ checks, lines[-2])
    return tests


def _text(text: str, report: Report) -> None:
    assert not CONTROL.search(text), repr(CONTROL.search(text))
    assert text.endswith("\n") and text.rstrip("\n").split("\n")[-1].startswith(f"verdict: {report.verdict} ")


#: Each registered format's well-formedness check, `(text, report, verbose) -> None` (raises AssertionError): a format
#: of `verifier.report.REPORTERS` needs one here (`assert_all_formats_parse` names the one missing).
PARSERS = {
    "json": lambda text, report, verbose: _json(text),
    "sarif": lambda text, report, verbose: _sarif(text),
    "junit": lambda text, report, verbose: _junit(text, report),
    "github": lambda text, report, verbose: _github(text, report),
    "markdown": _markdown,
    "text": lambda text, report, verbose: _text(text, report),
    "html": lambda text, report, verbose: _html(text),
    "csv": lambda text, report, verbose: _csv(text, report),
    "tap": lambda text, report, verbose: _tap(text, report),
}


def assert_all_formats_parse(report: Report) -> dict[str, str]:
    """Render `report` in every format of `REPORTERS` (plain and verbose), check each parses (`PARSERS`), return the plain renders."""
    unchecked = sorted(set(REPORTERS) - set(PARSERS))
    assert not unchecked, f"format(s) {unchecked} of verifier.report.REPORTERS have no well-formedness check in tests/report_formats.py PARSERS"
    stale = sorted(set(PARSERS) - set(REPORTERS))
    assert not stale, f"tests/report_formats.py PARSERS checks {stale}, which verifier.report.REPORTERS no longer registers"
    out = {}
    for fmt in REPORTERS:
        for verbose in (False, True):
            text = render(report, fmt, verbose=verbose, color=False)
            text.encode("utf-8")  # strict: no lone surrogate reaches any output
            PARSERS[fmt](text, report, verbose)
            if not verbose:
                out[fmt] = text
    return out
