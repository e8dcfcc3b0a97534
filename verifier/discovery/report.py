"""
Discovery's findings: one `discovery.claims` finding per stated number, one `discovery.read` finding per skipped file.

A bound number is PASS `bound` (its derivation in words, and the rule
`verify profile draft` would write); ambiguous, near-miss and unexplained
numbers are UNVERIFIED with what was found (the candidates, the named
derivation and its value). One more UNVERIFIED finding, `no-profile`,
gives the counts and says no profile judged the directory, so discovery's
best verdict is INCOMPLETE (exit 3), never PASS. A directory where
discovery finds no record set or no stated number gets that one finding
alone (`nothing-to-bind`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from verifier import __version__
from verifier.discovery import Discovery
from verifier.discovery.classify import Verdict, label
from verifier.discovery.search import Derivation
from verifier.model.findings import CheckInfo, Finding, Report, Status

__all__ = ["CHECK", "discovery_report", "nothing_to_bind", "rule_words", "run_discovery"]

CHECK = "discovery.claims"
READ = "discovery.read"
_STATUS = {"bound": Status.PASS, "ambiguous": Status.UNVERIFIED, "near-miss": Status.UNVERIFIED, "unexplained": Status.UNVERIFIED}


def rule_words(d: Derivation) -> str:
    """Return a derivation as a profile rule in words: statistic, member, set, selection (and the two sides of a comparison)."""
    sel = ", ".join(f"{k}={v}" for k, v in d.selection if k != "#at")
    where = f" where {sel}" if sel else ""
    if d.baseline is not None:
        return f"{d.statistic} of {d.member!r} between {d.over}={d.baseline} (baseline) and {d.over}={d.candidate} (candidate){where} in set {d.sid}"
    return f"{label(d)} of {d.member or 'records'!r} over {d.n} value(s){where} in set {d.sid}"


def _finding(st: Any, v: Verdict) -> Finding:
    inner = re.search(r"#numbers/(\d+)$", st.pointer)
    shown = f"stated {st.text}" + (f" (number {inner[1]} inside the text there: `\"number\": {inner[1]}` in a profile's `at`)" if inner else "")
    st = replace(st, pointer=st.pointer[:inner.start()]) if inner else st  # the location in the form a profile's `at.pointer` takes
    if v.kind == "bound":
        d = v.derivations[0]
        return Finding(check=CHECK, status=Status.PASS, code="bound", message=f"{shown} = {rule_words(d)}", path=st.rel, pointer=st.pointer,
                       expected=str(st.value), observed=str(d.value), derivation=d.text)
    if v.kind == "ambiguous":
        listed = "; ".join(f"{rule_words(d)} = {d.value.normalize():f}" for d in v.derivations[:5])
        n = len(v.derivations)
        fit = "one derivation fits" if n == 1 else f"{n} derivations fit"
        why = v.why or ("a number this short binds only when its context names that derivation" if n == 1 else "the context does not tell which")
        message = f"{shown}: {fit}, not bound: {why}: {listed}"
        return Finding(check=CHECK, status=Status.UNVERIFIED, code="ambiguous", message=message, path=st.rel, pointer=st.pointer,
                       expected=str(st.value), observed=[str(d.value) for d in v.derivations])
    if v.kind == "near-miss":
        if v.derivations:
            other = "; ".join(f"{rule_words(d)} = {d.value.normalize():f}" for d in v.derivations[:3])
            named = "; ".join(f"{rule_words(d)} = {d.value.normalize():f}" for d in v.named[:3])
            message = f"{shown}: equals {other}, but its label names {named}"
            observed = str(v.derivations[0].value)
        else:
            d = v.named[0]
            message = f"{shown}: its context names {rule_words(d)}, which is {d.value.normalize():f} (beyond the stated precision)"
            observed = str(d.value)
        return Finding(check=CHECK, status=Status.UNVERIFIED, code="near-miss", message=message, path=st.rel, pointer=st.pointer,
                       expected=str(st.value), observed=observed, derivation=(v.named or v.derivations)[0].text)
    return Finding(check=CHECK, status=Status.UNVERIFIED, code="unexplained", message=f"{shown}: no derivation of the engine reproduces it",
                   path=st.rel, pointer=st.pointer, expected=str(st.value))


def nothing_to_bind(disc: Discovery) -> str:
    """
    Return why nothing could be bound in `disc` (no record set or no stated number), in words for one line.

    An empty directory says so; otherwise the files read and the skipped ones by reason
    (`Skip.kind`: "1 binary, 2 of kinds discovery does not read").
    """
    if not disc.listed:
        return "the directory is empty (no file, no link): nothing to check, so nothing could be bound"
    missing = "no record sets (arrays of objects, table rows, one object per file)" if not disc.sets else "no stated numbers"
    tally: dict[str, int] = {}
    for s in disc.skips:
        tally[s.kind] = tally.get(s.kind, 0) + s.count
    skipped = ", ".join(f"{n} {_SKIP_WORDS.get(kind, kind or 'other')}" for kind, n in sorted(tally.items(), key=lambda kv: (-kv[1], kv[0])))
    return (f"discovery read {len(disc.sources)} file(s)" + (f" (skipped: {skipped})" if skipped else "")
            + f" and found {missing}, so nothing could be bound")


#: How `nothing_to_bind` names each `Skip.kind`.
_SKIP_WORDS = {"binary": "binary", "large": "over the size bound", "deep": "too deep", "link": "symbolic link(s), not followed",
               "unreadable": "unreadable", "unparsable": "not parsable", "other-kind": "of kinds discovery does not read",
               "budget": "over the file budget"}


def discovery_report(path: str, disc: Discovery, why: str, trust: dict[str, Any] | None = None) -> Report:
    """
    Return the `Report` of a discovery run on `path` (kind `discovery`).

    `why` says why discovery ran (no shipped profile matched, and which exist).
    The verdict is never PASS (see the module docstring).
    """
    counts = disc.counts()
    if not disc.sets or not disc.stated:
        f = Finding(check=CHECK, status=Status.UNVERIFIED, code="nothing-to-bind", message=f"{path}: {why}; {nothing_to_bind(disc)}")
        return Report(subject=path, kind="discovery", verifier_version=__version__, findings=(f,),
                      roster=(CheckInfo(check=CHECK, title="Stated numbers bound to derivations by discovery", counts={"UNVERIFIED": 1}),), trust=trust)
    findings = [Finding(check=READ, status=Status.UNVERIFIED, code="skipped", message=f"{s.rel}: skipped: {s.reason}", path=s.rel)
                for s in disc.skips]
    summary = (f"{path}: {why}; discovery read {len(disc.sources)} file(s), found {len(disc.sets)} record set(s) and {len(disc.stated)} stated "
               f"number(s): {counts['bound']} bound, {counts['ambiguous']} ambiguous, {counts['near-miss']} near-miss, {counts['unexplained']} unexplained"
               + (f" ({disc.dropped} more over the bound)" if disc.dropped else "")
               + (f"; {disc.identifiers} more written inside a date, version, id or the like, not counted as stated" if disc.identifiers else "")
               + "; nobody pinned these rules, so nothing is judged: write them as a profile with `verify profile draft DIR -o PROFILE.json`")
    findings.append(Finding(check=CHECK, status=Status.UNVERIFIED, code="no-profile", message=summary, expected=None, observed=counts))
    findings.extend(_finding(st, v) for st, v in zip(disc.stated, disc.verdicts))
    tally: dict[str, dict[str, int]] = {READ: {}, CHECK: {}}
    for f in findings:
        tally[f.check][f.status.value] = tally[f.check].get(f.status.value, 0) + 1
    roster = (CheckInfo(check=READ, title="Files read by discovery (binary, huge, deep and linked files skipped)", counts=tally[READ]),
              CheckInfo(check=CHECK, title="Stated numbers bound to derivations by discovery", counts=tally[CHECK]))
    return Report(subject=path, kind="discovery", verifier_version=__version__, findings=tuple(findings), roster=roster, trust=trust)


def run_discovery(path: str, target: Any, why: str, trust: dict[str, Any] | None = None, refuse: Any = None, options: Any = None,
                  profiles: dict[str, dict[str, Any]] | None = None) -> Report:
    """
    Run discovery on directory `target` (given as `path`) and return its `Report` (`verifier.core` calls this when no profile matches).

    `profiles` are the profiles detection tried: one whose detection pointers resolve in files read without a
    suffix is named in the summary (`verifier.discovery.sources.look_alike`).
    `refuse(path, claims_text)` (the core's `_no_claims_text`) raises `UsageError` when the run `options` carry a
    `--claims-text`: discovery derives nothing a pull-request body could be bound to.
    """
    from pathlib import Path

    from verifier.discovery import discover
    from verifier.discovery.sources import look_alike

    if refuse is not None:
        refuse(path, (options or {}).get("claims_text"))

    disc = discover(Path(target), progress=(options or {}).get("progress"))
    for pid, rels in look_alike(disc.sources, profiles or {}).items():  # its glob names a suffix these files lack (`BENCHMARK_OUT=auto-vec-data`)
        shown = ", ".join(rels[:3]) + (f" and {len(rels) - 3} more" if len(rels) > 3 else "")
        suffix = str(profiles[pid]["detect"]["glob"]).rsplit("*", 1)[-1] if profiles else ""
        why += (f"; {len(rels)} file(s) without a suffix look like {pid} output ({shown}): name them *{suffix} "
                f"so that `verify DIR` (or `verify --profile {pid} DIR`) reads them")
    return discovery_report(path, disc, why, trust)
