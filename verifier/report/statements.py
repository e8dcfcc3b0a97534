"""
The stated-claims section shared by reporters: one row per number a claim text states (check `claims.stated`).

Pure functions of a `Report`; no I/O. A row holds the verdict, where the
number stands (`source:line:column`), the number as stated, the value it is
bound to and that value as derived, the formula, and the sentence. Rows come
in the order the texts state them; UNVERIFIED rows are the unchecked claims.
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.model.findings import Finding, Report, Status

__all__ = ["CHECK", "StatementRow", "blocked", "counted", "statement_rows", "text_lines"]

#: The check whose findings are stated quantities (`verifier.checks.statements.CHECK`).
CHECK = "claims.stated"


@dataclass(frozen=True, slots=True)
class StatementRow:
    """Represents one stated quantity: status, code, where, stated, bound (value name or `-`), derived (or `-`), formula, sentence, delta (or `-`), and the finding it comes from."""

    status: Status
    code: str
    where: str
    stated: str
    bound: str
    derived: str
    formula: str
    sentence: str
    delta: str = "-"
    finding: Finding | None = None

    @property
    def unit(self) -> str:
        """The unit or noun the number is stated with (`%` of `75.45 %`, `s`, `requests`), `""` when none."""
        return self.stated.partition(" ")[2]

    @property
    def derived_shown(self) -> str:
        """The derived value with the stated number's unit (the derivation is compared in it): `73.4525 %`, `-` when none."""
        return self.derived + (f" {self.unit}" if self.unit and self.derived != "-" else "")

    @property
    def delta_shown(self) -> str:
        """`stated - derived` at the table's precision with the unit (`1.9975 %`), `-` when there is no derived value."""
        return self.delta + (f" {self.unit}" if self.unit and self.delta != "-" else "")


def statement_rows(report: Report) -> list[StatementRow]:
    """Return one row per `claims.stated` finding that names a stated quantity, in report order."""
    rows = []
    for f in report.findings:
        detail = f.observed if isinstance(f.observed, dict) else {}
        if f.check != CHECK or "stated" not in detail:
            continue
        rows.append(StatementRow(
            status=f.status, code=f.code, where=f"{detail.get('source')}:{detail.get('line')}:{detail.get('column')}",
            stated=str(detail.get("stated")), bound=_bound(detail),
            derived=_derived(str(detail["derived"]), str(detail.get("stated"))) if detail.get("derived") is not None else "-",
            formula=str(detail.get("formula") or "-"), sentence=str(detail.get("sentence") or ""),
            delta=_delta(detail), finding=f))
    return rows


def blocked(report: Report) -> list[str]:
    """Return one plain sentence per claim text whose numbers were counted but not judged (`README.md: 25 numbers not judged (blocked by integrity.files...)`)."""
    return [f.message for f in report.findings if f.check == CHECK and f.code == "blocked-by-integrity"]


def _bound(detail: dict) -> str:  # type: ignore[type-arg]
    """Return what a number is bound to: the value's name, or for a relative phrase its formula of the pair (`(1 - candidate/baseline) x 100 of arm_mean_s`)."""
    name = str(detail.get("binding") or "-")
    formula = str(detail.get("formula") or "")
    if " on " in formula and formula.split(" on ", 1)[1].startswith(f"{name}:"):
        return f"{formula.split(' on ', 1)[0]} of {name}"
    return name


def _delta(detail: dict) -> str:  # type: ignore[type-arg]
    """Return `stated - derived` at the claims table's precision (`_common._shown`: two places past the stated number's), `-` when not derived."""
    from verifier.report._common import _places, delta_shown

    if detail.get("delta") is None:
        return "-"
    return delta_shown(str(detail["delta"]), _places(str(detail.get("claimed", ""))))


def _derived(text: str, stated: str) -> str:
    """
    Return a derived number at the claims table's precision: two places past the stated number's (`_common._shown`), so one value reads the same in both tables.

    A stated text that is not a plain number (`~1.2k`) gives `_short`'s 12 significant digits.
    """
    from verifier.report._common import _places, _shown

    places = _places(stated.split(" ", 1)[0].replace(",", ""))
    return _shown(text, places) if places is not None else _short(text)


def _short(text: str) -> str:
    """Return a derived number with at most 12 significant digits, in plain notation (`numtext.number`; the JSON report keeps every digit)."""
    from verifier.model.numtext import number

    return number(text)


def text_lines(report: Report, safe, verbose: bool = False) -> list[str]:  # type: ignore[no-untyped-def]
    """
    Return the text report's "stated claims" section: a count line, then one line per stated quantity.

    `safe` escapes evidence text (the text reporter's `_safe`). Informational
    numbers (identifiers) are counted, not listed; every other number that
    is not PASS is listed with its verdict, place, bound value, derived value
    and sentence, and with `verbose` the PASS ones too.
    """
    rows = statement_rows(report)
    if not rows:
        return [f"stated claims: {safe(line)}" for line in blocked(report)]
    counts = {s: sum(1 for r in rows if r.status is s) for s in Status}
    informational = sum(1 for r in rows if r.code == "informational")
    lines = [f"stated claims: {len(rows)} number(s) ({', '.join(f'{n} {s.value}' for s, n in counts.items() if n)}; "
             f"{informational} identifier(s) not listed{'' if verbose else '; PASS rows with -v'})"]
    lines += [f"  {safe(line)}" for line in blocked(report)]  # never dropped silently
    for r in rows:
        if r.code == "informational" or (r.status is Status.PASS and not verbose):
            continue
        bound = f"{r.bound} = {r.derived_shown} (delta {r.delta_shown})" if r.derived != "-" else r.bound
        lines.append(f"  {r.status.value:<10} {safe(r.where)}  {safe(r.stated)} -> {safe(bound)}  [{safe(r.code)}]  \"{safe(r.sentence)}\"")
    return lines


def counted(report: Report, statuses: list[Status]) -> tuple[str, dict[Status, int]]:
    """
    Return `(words, counts)` of the claims section's count line: `statuses` are the claim rows' (`_common.claim_rows`), to which
    the judged stated numbers of the prose (`statement_rows`, informational ones aside) are added, so a stated-number FAIL is counted.

    `words` is `" and N stated number(s) of the prose"` (`""` when there is none) to follow `M claim(s)`; `counts` maps every
    status, FAIL first, to its count over both.
    """
    stated = [r.status for r in statement_rows(report) if r.code != "informational"]
    every = statuses + stated
    counts = {s: every.count(s) for s in (Status.FAIL, Status.ERROR, Status.UNVERIFIED, Status.PASS)}
    return (f" and {len(stated)} stated number(s) of the prose" if stated else ""), counts
