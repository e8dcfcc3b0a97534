"""
Helpers shared by reporters: locations, claim rows, status ordering.

Pure functions of a `Report`; no I/O.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from typing import Any
from decimal import MAX_EMAX, MIN_EMIN, ROUND_HALF_EVEN, Context, Decimal, InvalidOperation

from verifier.model.findings import Finding, Report, Status
from verifier.model.numtext import PLAIN_RANGE, TOLERANCE_DIGITS, compared_places, number, plain

__all__ = ["ACT_ON", "BIDI_CONTROLS", "FEW", "STATUS_ORDER", "ClaimRow", "Group", "claim_rows", "delta_shown", "groups", "location", "message", "not_judged", "number", "shown_claims",
           "relative_subject", "repo_path", "split_path", "titles", "json_text", "trust_lines", "trust_warning", "visible", "visible_json"]

#: Worst first, matching the verdict precedence FAIL > ERROR > UNVERIFIED > PASS.
STATUS_ORDER = {Status.FAIL: 0, Status.ERROR: 1, Status.UNVERIFIED: 2, Status.PASS: 3}

#: Checks whose findings are claims (re-derived numbers), shown in the claims table.
CLAIM_CHECKS = ("derivation.claims",)
#: What a reviewer must act on, in the order every format lists it (then the claims, then PASS detail).
ACT_ON = (Status.FAIL, Status.ERROR, Status.UNVERIFIED)
#: How many instances of a group every format shows before "and N more".
FEW = 5


#: Bidirectional-text controls (ALM, LRM, RLM, the embeddings and overrides U+202A-U+202E, the isolates
#: U+2066-U+2069): they reorder what a reader sees (Trojan Source), so human formats print them escaped.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def visible(text: str, keep: str = "") -> str:
    """
    Return `text` with control characters (C0, DEL, C1) and bidi controls written as escapes.

    `\\n`, `\\x1b`, `\\u202e`: evidence cannot forge lines, colour a terminal or
    reorder what a reader sees. U+2028/U+2029 (line and paragraph
    separators, line breaks to some viewers), lone surrogates (a file name that is not
    UTF-8) and the noncharacters U+FFFE/U+FFFF are escaped too (`\\udc80`), so
    the result always encodes as UTF-8 and is a legal XML 1.0 character
    sequence once C0 controls are gone. Characters in `keep` pass through (the caller
    escapes them its own way).
    """
    if _PLAIN_TEXT.match(text):  # the common case, decided at C speed
        return text
    out = []
    for c in text:
        code = ord(c)
        if c in keep:
            out.append(c)
        elif code < 32 or 127 <= code < 160:
            out.append(repr(c)[1:-1])
        elif c in BIDI_CONTROLS or 0xD800 <= code <= 0xDFFF or code in (0x2028, 0x2029, 0xFFFE, 0xFFFF):
            out.append(f"\\u{code:04x}")
        else:
            out.append(c)
    return "".join(out)


#: Text with nothing `visible` rewrites: no C0/DEL/C1 control, bidi control, surrogate or U+FFFE/U+FFFF.
_PLAIN_TEXT = re.compile("[^\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]*\\Z")
#: A lone surrogate: it cannot be encoded as UTF-8 (file names read with `surrogateescape`), so no output may hold one.
_SURROGATE = re.compile("[\ud800-\udfff]")


def visible_json(value: Any) -> Any:
    """
    Return JSON-like `value` with every string and key passed through `visible` (newlines kept: JSON escapes them, and derivations span lines).

    The JSON and SARIF reporters write what the text report shows: a bidi
    control or a C1 control from the bundle, which `json.dumps` would write
    raw, becomes its visible escape (`\\u202e`), so no consumer of the
    report displays it raw.
    """
    if isinstance(value, str):
        return visible(value, "\n")
    if isinstance(value, dict):
        return {visible_json(k): visible_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [visible_json(v) for v in value]
    return value


def json_text(text: str) -> str:
    """
    Return JSON text `text` (as `json.dumps(..., ensure_ascii=False)` writes it) with lone surrogates made printable.

    A surrogate can only stand inside a JSON string; it becomes the six
    characters `\\udc80` written as an escaped backslash, so the output is
    UTF-8 and parses to the same visible escape the human formats print.
    """
    return _SURROGATE.sub(lambda m: f"\\\\u{ord(m.group()):04x}", text)


def location(f: Finding) -> str:
    """
    Return `path#pointer`, `path`, or `-` for a finding.

    A pointer is a JSON Pointer (`/a/0`) or a fragment that already carries its `#` (`#line=3`, `#row=2`,
    `verifier.model.evidence.Location`); either gives one `#`. An integrity finding on a listed file keeps the
    file in `path` and the manifest's entry in `pointer`, with the manifest named in `expected["listed_in"]`
    (`verifier.checks.integrity.compare`): its location is `manifest.json#/files/24`, never the data file's
    name before a pointer into another file; an entry of a files map keyed by path reads
    `manifest.json: files["kernel/harness/compare.py"]`, not `manifest.json#/files/kernel~1harness~1compare.py`.
    """
    listed_in = f.expected.get("listed_in") if isinstance(f.expected, dict) else None
    if isinstance(listed_in, str) and f.pointer:
        token = f.pointer[len("/files/"):] if f.pointer.startswith("/files/") else ""
        if token and "/" not in token and not token.isdigit():  # a files map keyed by path: `files["kernel/harness/compare.py"]`, not `~1`
            return f"{listed_in}: files[{json.dumps(token.replace('~1', '/').replace('~0', '~'), ensure_ascii=False)}]"
        return f"{listed_in}{'' if f.pointer.startswith('#') else '#'}{f.pointer}"
    stated = _stated_where(f)
    if stated:
        return stated
    if f.path and f.pointer:
        return f"{f.path}{'' if f.pointer.startswith('#') else '#'}{f.pointer}"
    return f.path or "-"


def _stated_where(f: Finding) -> str | None:
    """Return `source:line:column` of a stated number (`claims.stated`, whose message starts with it), else None."""
    detail = f.observed if isinstance(f.observed, dict) else {}
    if not (detail.get("source") and detail.get("line") is not None and detail.get("column") is not None):
        return None
    where = f"{detail['source']}:{detail['line']}:{detail['column']}"
    return where if f.message.startswith(where + ": ") else None


def message(f: Finding) -> str:
    """Return the finding's message without a leading `location(f): ` it repeats (a stated number's `README.md:3:23: `)."""
    where = location(f)
    return f.message[len(where) + 2:] if where != "-" and f.message.startswith(where + ": ") else f.message


def split_path(report: Report, f: Finding) -> tuple[str | None, str] | None:
    """
    Return `(base, relative)` locating the finding's file, or None when it names no file.

    `base` is the report's `subject` (a bundle or receipt directory) and
    `relative` the finding's path inside it; a single-file reader's finding
    that names the subject file itself gives `(None, subject)`.
    """
    if not f.path:
        return None
    directory_kind = report.kind == "bundle-v1" or report.kind.startswith("evidence-repository")
    if not directory_kind and posixpath.basename(report.subject.rstrip("/")) == f.path:
        return None, report.subject
    return report.subject, f.path


def relative_subject(path: str) -> str:
    """
    Return a report's subject as the machine formats record it: `path` as given, or its last component when it is absolute.

    `/a/b/` -> `b`, `evidence/b/` -> `evidence/b`, `/` -> `/`: SARIF and JUnit record no absolute path
    (a CI log or code-scanning upload would otherwise carry the runner's home directory).
    """
    path = path.rstrip("/") or ("/" if path.startswith("/") else ".")
    return (path.rsplit("/", 1)[-1] or ".") if path.startswith("/") else path


def repo_path(report: Report, f: Finding) -> str | None:
    """
    Return the finding's file as a path relative to where `verify` ran, or None.

    Bundle findings carry bundle-relative paths; they are joined to the
    report's `subject` (the bundle path as given). A single-file reader's
    findings point at the subject itself.
    """
    where = split_path(report, f)
    if where is None:
        return None
    base, rel = where
    return rel if base is None else posixpath.normpath(posixpath.join(base, rel))


def titles(report: Report) -> dict[str, str]:
    """Return `{check id: title}` from the report's roster."""
    return {c.check: c.title for c in report.roster}


def _places(text: str) -> int | None:
    """Return the number of decimal places `text` states, or None when it is not a decimal number."""
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    exponent = value.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def _shown(text: str, places: int | None, extra: int = 2) -> str:
    """Return `_rounded(text, places, extra)` in plain notation for ordinary magnitudes (`numtext.number`: `0E-8` -> `0`, `5E+2` -> `500`)."""
    out = _rounded(text, places, extra)
    if "E" not in out.upper():
        return out
    try:
        ordinary = PLAIN_RANGE[0] <= Decimal(out).adjusted() < PLAIN_RANGE[1]
    except InvalidOperation:
        return out
    return number(out) if ordinary else out  # a value beyond binary64 keeps every digit it was stated with


def _rounded(text: str, places: int | None, extra: int = 2) -> str:
    """
    Return a derived number for display: `extra` (two, or more from `numtext.compared_places`) more decimal places than the claim
    states, so rounding and the comparison with the tolerance stay visible.

    Full-precision values stay in the JSON and SARIF reports; non-numbers pass through.
    """
    if places is None:
        return text
    try:
        value = Decimal(text)
    except InvalidOperation:
        return text
    if not value.is_finite():
        return text
    digits = places + extra
    # The shown form has adjusted + 1 + digits digits; when that is not shorter than the text, the text is shown as
    # stated (also 1e30 or a 1000-digit value). Otherwise a context that wide quantizes exactly, whatever the exponent.
    width = value.adjusted() + 1 + digits
    if width >= len(text):
        return text
    context = Context(prec=max(28, width + 1), Emax=MAX_EMAX, Emin=MIN_EMIN, rounding=ROUND_HALF_EVEN)
    try:
        shown = value.quantize(Decimal(1).scaleb(-digits, context), context=context)
    except InvalidOperation:
        return text
    return text if len(text) <= len(str(shown)) else str(shown)


def delta_shown(delta: str, places: int | None, extra: int = 2) -> str:
    """
    Return a claim's delta for a table: at the derived value's precision (`_shown`: `0.050`; `extra` as there), but never in
    exponent form and never past 12 significant digits (then `numtext.plain`: `-7E-17` -> `-0.00000000000000007`), as `delta_text` writes it.
    """
    out = _shown(delta, places, extra)
    try:
        value = Decimal(out)
    except InvalidOperation:
        return out
    if value.is_finite() and "E" in out.upper():
        return plain(value)
    if value.is_finite() and len(value.as_tuple().digits) > 12:
        return plain(Decimal(delta))  # rounded once, from the exact delta (not again from `out`: ...90955 -> ...096)
    return out


@dataclass(frozen=True, slots=True)
class ClaimRow:
    """
    Represents one row of the claims table: claim name, status, claimed, derived, delta and where (strings, `-` if none).

    `where` is the stated number's place (`path#pointer`); `finding` the finding the row comes from; `tolerance` the bound the
    delta was held to (`numtext.tolerance_text`'s digits, with the claim's unit), `-` when the finding records none.
    """

    claim: str
    status: Status
    claimed: str
    derived: str
    delta: str
    where: str = "-"
    finding: Finding | None = None
    tolerance: str = "-"


def _difference(claimed: str, derived: str) -> str:
    """Return `claimed - derived` as text when both are numbers (a unit after a space is ignored when both name it), else `-`."""
    a, _, unit_a = claimed.partition(" ")
    b, _, unit_b = derived.partition(" ")
    if unit_a != unit_b:
        return "-"
    try:
        return str(Decimal(a) - Decimal(b))
    except (InvalidOperation, ValueError):
        return "-"


#: The tolerance a claim's message names (`numtext.tolerance_text`): `(tolerance 0.00005)`, `(delta 0.05 %, tolerance 0.05 %)`.
_TOLERANCE = re.compile(r"\btolerance (-?[0-9][0-9.]*(?:[eE][-+]?[0-9]+)?)")
#: The stated number and its unit in a compared profile claim's message (`verifier.checks.profile_claims`): `: stated 18812 MiB, derived `.
_STATED_UNIT = re.compile(r": stated (\S+)(?: ([^,]+))?, derived ")
#: The same of a native claim (`verifier.checks.derivation`): `NAME = 396.30 s re-derives`, `NAME claims 380.00 s, the receipts give`.
_NATIVE_UNIT = re.compile(r"\S+ (?:=|claims) (\S+) ([^\s(,]+)(?: re-derives|, the receipts give)")
#: The same of an underived one (`verifier.checks.profile_unreached`): `states 105278.0 MiB, but `.
_UNREACHED_UNIT = re.compile(r" states (\S+)(?: ([^,]+))?, but ")


def _profile_read(report: Report) -> bool:
    """
    Return whether `report` was judged by a profile's own checks, whose claim findings `_profile_claim` reads.

    That is a profile-read report (`kind` `profile:ID`) judged by no native gate: its gate is `profile:ID` or none. A profile
    with a `bundle` section runs the native checks under the bundle's own gate, and its claim findings are native.
    """
    gate = str(report.gate or "")
    return str(report.kind).startswith("profile:") and (not gate or gate.startswith("profile:"))


def _profile_claim(f: Finding) -> tuple[str, str, str]:
    """
    Return `(claim, claimed, derived)` of a `derivation.claims` finding (`verifier.checks.profile_claims`).

    Its message starts `LABEL: `; a compared claim (`derived`, `claim-mismatch`)
    keeps the stated number in `expected` and the derivation in `observed`, a
    `unit-mismatch` the other way round (each with its unit), and every other
    code the stated number in `observed` and no derived value.
    """
    name = f.message.split(": ", 1)[0]
    scalar = (lambda v: None if v is None or isinstance(v, dict | list) else str(v))
    if f.code in ("derived", "claim-mismatch"):
        claimed, derived = scalar(f.expected) or "-", scalar(f.observed) or "-"
        said = _STATED_UNIT.search(f.message)  # `stated 32.1 %, derived 32.0499 % (tolerance ...)`: the unit both are in
        if said and said.group(1) == claimed and said.group(2) not in (None, "1") and " " not in claimed + derived and derived != "-":
            return name, f"{claimed} {said.group(2)}", f"{derived} {said.group(2)}"
        return name, claimed, derived
    if f.code == "unit-mismatch":
        return name, scalar(f.observed) or "-", scalar(f.expected) or "-"
    claimed = scalar(f.observed) or "-"
    said = _UNREACHED_UNIT.search(f.message)  # `states 105278.0 MiB, but its receipt file ...`
    return name, (f"{claimed} {said.group(2)}" if said and said.group(1) == claimed and said.group(2) not in (None, "1") else claimed), "-"


def claim_rows(report: Report) -> list[ClaimRow]:
    """
    Return the claims table rows, failures first (then ERROR, UNVERIFIED, PASS), stable within a status.

    A row comes from every finding of a claim check (`CLAIM_CHECKS`, native
    and profile-read bundles alike) and from any finding whose `observed`
    records `claimed` and `derived`; a PASS with no claimed number (nothing
    stated: a receipt reader's derived-only or "nothing stated" PASS) is none. Derived values and deltas are shown two
    decimal places past the claim (`_shown`), in plain notation.
    """
    rows = []
    profile_read = _profile_read(report)
    for f in report.findings:
        detail = f.observed if isinstance(f.observed, dict) else {}
        if f.check not in CLAIM_CHECKS and not ("claimed" in detail and "derived" in detail) or f.check == "claims.stated":
            continue  # stated numbers of the prose have their own section (verifier.report.statements)
        if f.check == "derivation.claims" and profile_read:
            name, claimed, derived = _profile_claim(f)
            delta = _difference(claimed, derived)
        else:
            head = f.message.split(" = ", 1)[0] if " = " in f.message else ""
            name = str(detail.get("claim") or (f.expected if f.code == "claim-missing" and isinstance(f.expected, str) else None)
                       or (head if head and " " not in head else None) or location(f))
            claimed = str(detail.get("claimed", f.observed if not isinstance(f.observed, dict | list) and f.observed is not None else "-"))
            derived = str(detail.get("derived", f.expected if not isinstance(f.expected, dict | list) and f.expected is not None
                                     and f.code != "claim-missing" else "-"))
            delta = str(detail["delta"]) if "delta" in detail else _difference(claimed, derived)  # a finding without comparison detail (a count)
            said = _NATIVE_UNIT.match(f.message)  # `server_mean_s.A1 = 396.30 s re-derives`: the unit the claim states
            if said and said.group(1) == claimed and derived != "-" and " " not in claimed + derived:
                claimed, derived = f"{claimed} {said.group(2)}", f"{derived} {said.group(2)}"
        places = _places(claimed.partition(" ")[0])
        unit = claimed.partition(" ")[2]
        said_tolerance = _TOLERANCE.search(f.message)
        tolerance = str(detail.get("tolerance") or (said_tolerance.group(1) if said_tolerance else "-"))
        wide = compared_places(delta, tolerance if tolerance != "-" else None, places)
        extra = 2 if wide is None or places is None else wide - places
        shown = _shown(derived.partition(" ")[0], places, extra) + (" " + derived.partition(" ")[2] if derived.partition(" ")[2] else "")
        if _not_judged(f, claimed, derived):
            continue  # no number on either side: counted once by `not_judged`, never a row "receipts.jsonl: claimed -, derived -"
        if f.status is Status.PASS and claimed == "-":
            continue  # a PASS stating no number ("no unsupported claims", a derived number nothing states): no claim; it stays in the findings
        difference = delta_shown(delta, places, extra) + (f" {unit}" if unit and delta != "-" else "")
        tolerance = "-" if tolerance == "-" else plain(tolerance, TOLERANCE_DIGITS) + (f" {unit}" if unit and unit != "1" else "")
        if f.code == "unit-mismatch":  # a stated tokens/s against a derived Samples/s: their difference is no quantity
            difference = "- (unit-mismatch)"
        rows.append(ClaimRow(name, f.status, claimed, shown, difference, location(f), f, tolerance))
    return sorted(rows, key=lambda r: STATUS_ORDER[r.status])


def _not_judged(f: Finding, claimed: str, derived: str) -> bool:
    """Return whether a claim-check finding is about no claim at all: UNVERIFIED with neither a claimed nor a derived number (a blocked document)."""
    return f.status is Status.UNVERIFIED and claimed == "-" and derived == "-" and f.code != "claim-missing"


def not_judged(report: Report) -> str | None:
    """
    Return the one sentence on claim findings that judged no claim (`claims not judged: 1 blocked by integrity`), or None.

    They are the claim-check findings `claim_rows` leaves out (UNVERIFIED,
    with no claimed and no derived number), counted by code; a `blocked-by`
    one (`verifier.engine.pipeline`, or a receipt reader's row worded as it) by the
    checks it names (`1 blocked by telemetry.process`). Plain text.
    """
    counts: dict[str, int] = {}
    profile_read = _profile_read(report)
    for f in report.findings:
        if f.check in CLAIM_CHECKS and f.status is Status.UNVERIFIED and f.code != "claim-missing":
            if f.check == "derivation.claims" and profile_read:
                _name, claimed, derived = _profile_claim(f)
            else:
                detail = f.observed if isinstance(f.observed, dict) else {}
                claimed = str(detail.get("claimed", f.observed if not isinstance(f.observed, dict | list) and f.observed is not None else "-"))
                derived = str(detail.get("derived", f.expected if not isinstance(f.expected, dict | list) and f.expected is not None else "-"))
            if _not_judged(f, claimed, derived):
                why = f.code.replace("-", " ")
                if f.code == "blocked-by" and isinstance(f.observed, list):  # the pipeline's words: the checks that did not pass
                    why += " " + ", ".join(str(c) for c in f.observed)
                counts[why] = counts.get(why, 0) + 1
    if not counts:
        return None
    return "claims not judged: " + ", ".join(f"{n} {why}" for why, n in counts.items())


def shown_claims(rows: list[ClaimRow], every: bool = False) -> tuple[list[ClaimRow], list[str]]:
    """
    Return `(rows to list, notes)` of the non-PASS claim rows: every FAIL and ERROR row, and of the UNVERIFIED ones the first `FEW` per code.

    `notes` holds one plain sentence per capped code (`...and 526 more UNVERIFIED [needs-external] claim(s)`);
    with `every`, every row and no note.
    """
    bad = [r for r in rows if r.status is not Status.PASS]
    if every:
        return bad, []
    out, seen = [], {}
    for r in bad:
        code = r.finding.code if r.finding is not None else ""
        if r.status is Status.UNVERIFIED:
            seen[code] = seen.get(code, 0) + 1
            if seen[code] > FEW:
                continue
        out.append(r)
    notes = [f"...and {n - FEW} more UNVERIFIED [{code}] claim(s) (-v, or the JSON report, lists every one)" for code, n in seen.items() if n > FEW]
    return out, notes


@dataclass(frozen=True, slots=True)
class Group:
    """
    Represents the findings of one status, check, code and rule: what a reviewer reads once instead of N times.

    `rule` is the rule or set a message names first (`stated-range-F1 (over ...)`,
    `receipts.performance: ...`), `""` when it names none; `findings` in report order.
    """

    status: Status
    check: str
    code: str
    rule: str
    findings: tuple[Finding, ...]

    @property
    def count(self) -> int:
        """The number of findings in the group."""
        return len(self.findings)

    @property
    def title(self) -> str:
        """`check [code] rule` as plain text (not escaped)."""
        return f"{self.check} [{self.code}]" + (f" {self.rule}" if self.rule else "")

    @property
    def instances(self) -> int:
        """The instances the group's findings judge as failing: a rule's one finding over 2 platforms (`(2 judged, 2 not met)`) counts 2."""
        return sum(int(m.group(1)) if (m := _NOT_MET.search(f.message)) else 1 for f in self.findings)

    @property
    def counted(self) -> str:
        """`N finding(s)`, and `covering M instances not met` when one finding states several (plain text)."""
        return f"{self.count} finding(s)" + (f", covering {self.instances} instances not met" if self.instances > self.count else "")

    def first(self, n: int = FEW) -> tuple[Finding, ...]:
        """Return the first `n` findings of the group."""
        return self.findings[:n]


#: The tally a rule's finding ends with when it judged several instances (`verifier.checks.profile_gate`): `(2 judged, 2 not met)`.
_NOT_MET = re.compile(r"\(\d+ judged, (\d+) not met[;)]")
#: A rule or set id a message starts with: an identifier followed by ` (over ` or `: ` (no spaces, brackets or slashes).
_RULE = re.compile(r"([A-Za-z][\w.-]*)(?: \(over |: )")


def rule_of(f: Finding) -> str:
    """Return the rule a finding's message names first (see `Group.rule`), or `""`."""
    m = _RULE.match(f.message)
    return m.group(1) if m else ""


def groups(report: Report, statuses: tuple[Status, ...] = ACT_ON) -> list[Group]:
    """
    Return the report's findings of `statuses` grouped by status, check, code and rule: worst status first, then by first appearance.

    The one grouping every reporter uses to lead with what a reviewer must act
    on (FAIL, then ERROR, then UNVERIFIED, `ACT_ON`).
    """
    found: dict[tuple[Status, str, str, str], list[Finding]] = {}
    for f in report.findings:
        if f.status in statuses:
            found.setdefault((f.status, f.check, f.code, rule_of(f)), []).append(f)
    ordered = sorted(found.items(), key=lambda item: STATUS_ORDER[item[0][0]])  # stable: first appearance within a status
    return [Group(status, check, code, rule, tuple(fs)) for (status, check, code, rule), fs in ordered]


def judged_by(report: Report) -> tuple[str, str] | None:
    """
    Return (label, id) naming what judged `report` in a header, or None when nothing did.

    A gate is labelled `gate` (`("gate", "ref2va-5s-v1")`). A profile that
    brings no gate of its own is judged by its pinned profile (the report's
    gate id is then `profile:NAME`), labelled `rules of` so a header never
    calls a profile a gate: `("rules of", "profile:hyperfine")`. Plain
    strings, not escaped.
    """
    if not report.gate:
        return None
    gate = str(report.gate)
    return ("rules of", gate) if gate.startswith("profile:") else ("gate", gate)


def trust_warning(report: Report) -> str | None:
    """
    Return the short verdict-line warning when a plain run's trust root differs from the default branch's, else None.

    `report.trust["default"]` (`verifier.trust.trustbase.differs`) names the ref;
    the warning names the `--trust-ref` to use. Plain text, not escaped.
    """
    trust = report.trust if isinstance(report.trust, dict) else {}
    default = trust.get("default") if isinstance(trust.get("default"), dict) else None
    if not default:
        return None
    return f"judged by this checkout's trust root, which differs from {default.get('ref')}'s: re-run with --trust-ref {default.get('ref')}"


def trust_lines(report: Report) -> list[str]:
    """
    Return plain sentences (not escaped) on where each gate and profile that judged `report` came from.

    One line per source (`gate ID: shipped gates/ID.json sha256 0123456789ab...`;
    `repository PATH at REF (commit)`; an unpinned profile is flagged in
    capitals), and one line listing the trusted files changed since the
    trust ref. Empty when the report has no `trust` section.
    """
    trust = report.trust if isinstance(report.trust, dict) else None
    if not trust:
        return []
    lines = []
    default = trust.get("default") if isinstance(trust.get("default"), dict) else None
    if default:  # first: a plain run on a pull-request checkout is judged by what the pull request may have changed
        lines.append(f"TRUST ROOT DIFFERS from {default.get('ref')} ({str(default.get('commit'))[:12]}): "
                     + ", ".join(str(c) for c in default.get("changed") or []) + " changed in this checkout, whose versions "
                     f"judged this report; judge by {default.get('ref')}'s with --trust-ref {default.get('ref')}")
    ref = trust.get("ref") if isinstance(trust.get("ref"), dict) else None
    for source in trust.get("sources") or []:
        if not isinstance(source, dict):
            continue
        where = f"{source.get('origin')} {source.get('path')}"
        if source.get("origin") == "repository" and ref:
            where += f" at {ref.get('ref')} ({str(ref.get('commit'))[:12]})"
        line = f"{source.get('kind')} {source.get('id')}: {where} sha256 {str(source.get('sha256'))[:12]}..."
        if source.get("origin") == "unpinned":
            line += " -- judged by an UNPINNED profile (a local file, pinned by nothing)"
        lines.append(line)
    changed = trust.get("changed") or []
    if ref and changed:
        lines.append(f"trusted files changed since {ref.get('ref')} (judged by {ref.get('ref')}'s versions, not these): "
                     + ", ".join(str(c) for c in changed))
    elif ref:
        lines.append(f"trust root read from {ref.get('ref')} ({str(ref.get('commit'))[:12]}); no trusted file changed since")
    return lines
