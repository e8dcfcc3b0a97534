"""What the profile checks (`verifier.checks.profile`) share: the finding helper and the run's evidence model (its receipts by set)."""

from __future__ import annotations

import re
from typing import Any

from verifier.formats.bundle import unsafe_reason
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context
from verifier.model.evidence import Evidence, Location, Receipt, Site
from verifier.readers.select import ReceiptSet, Underivable, is_join
from verifier.readers.tree import Tree

__all__ = ["_BRACKETED", "_PLACEHOLDER_RE", "_all_records", "_derivations", "_f", "_one_site", "_profile", "_records", "_tree", "evidence", "examined", "exists",
           "files_matching", "joined"]

_PLACEHOLDER_RE = re.compile(r"\{([A-Za-z0-9_.-]+)\}")
_BRACKETED = re.compile(r" \[[^]]*\]")  # the derivation detail, kept out of the one-line message


def _f(check_id: str, status: Status, code: str, message: str, **kw: Any) -> Finding:
    return Finding(check=check_id, status=status, code=code, message=message, **kw)


def _profile(ctx: Context) -> dict[str, Any]:
    return ctx.options["profile"]  # type: ignore[no-any-return]


def _tree(ctx: Context) -> Tree:
    return ctx.bundle  # type: ignore[no-any-return]


def evidence(ctx: Context) -> Evidence:
    """
    Return the evidence model of this run (`ctx.run.evidence`), built by `schema.documents` (`verifier.checks.profile_receipts.read`) from the receipt sets it read.

    Before that check ran (or when it did not), it is a model holding no receipts.
    """
    found = ctx.run.evidence
    return found if isinstance(found, Evidence) else _EMPTY


_EMPTY = Evidence(reader="profile")  # the model before `schema.documents` built one: no receipts


def _records(ctx: Context, rid: str) -> list[Receipt]:
    """
    Return the receipts of set `rid` that were read (no stand-ins for unread files): what per-record checks look at.

    Built once per model and set (`ctx.run.read_receipt_sets`), then
    returned as the same list, as `_all_records` does: callers must not change it.
    """
    model = evidence(ctx)
    cached = ctx.run.read_receipt_sets
    if cached is None or cached[0] is not model:
        cached = ctx.run.read_receipt_sets = (model, {})
    found = cached[1].get(rid)
    if found is None:
        found = cached[1][rid] = [r for r in _all_records(ctx, rid) if r.unread is None]
    return found  # type: ignore[no-any-return]


def _all_records(ctx: Context, rid: str) -> list[Receipt]:
    """
    Return the receipts of set `rid` in the model, with the stand-ins for unread files: what derivations (claims, gate) run over.

    The lists are built once per model (`ctx.run.receipt_sets`) and then
    returned as the same objects: `verifier.readers.select.ReceiptSet`s, which carry the index `select` builds.
    """
    model = evidence(ctx)
    cached = ctx.run.receipt_sets
    if cached is None or cached[0] is not model:
        sets: dict[str, list[Receipt]] = {}
        for r in model.receipts:
            sets.setdefault(r.receipt_set, ReceiptSet()).append(r)
        cached = ctx.run.receipt_sets = (model, sets)
    return cached[1].get(rid, [])  # type: ignore[no-any-return]


def exists(ctx: Context, rel: str) -> bool:
    """Return whether the directory the model was read from holds file `rel` under a safe name (`Evidence.files`), as `Tree.exists` answers."""
    model = evidence(ctx)
    cached = ctx.run.file_paths
    if cached is None or cached[0] is not model:
        cached = ctx.run.file_paths = (model, frozenset(f.path for f in model.files))
    return unsafe_reason(rel) is None and rel in cached[1]  # a name the reader would refuse to open is no file to read


def files_matching(ctx: Context, pattern: str) -> list[str]:
    """Return the model's files (`Evidence.files`) matching `pattern` (`*` within one path component, `**` across them), sorted, as `Tree.glob` does."""
    from verifier.readers.tree import glob_regex

    regex = glob_regex(pattern)
    return sorted(f.path for f in evidence(ctx).files if regex.fullmatch(f.path))


def _derivations(ctx: Context) -> dict[Any, Any]:
    """Return this run's memo of derivations (`derive_rule`'s `memo`): claims and gate rules that derive the same value over the same receipts derive it once."""
    return ctx.run.derivations


def _one_site(ctx: Context, rule: str, role: str) -> Site:
    """Return the one `Site` of `rule` with `role` the reader found (a rule without instances has one), or a `missing` one when the reader recorded none."""
    found = evidence(ctx).sites_of(rule, role)
    return found[0] if found else Site(rule, role, (), Location(""), problem="missing", detail="the reader recorded no such place")


def examined(ctx: Context) -> set[tuple[str, str]]:
    """Return the `(file, JSON Pointer)` places of stated values some check compared (claims, the recorded gate outcome, manifest entries)."""
    return ctx.run.examined


def joined(ctx: Context, rule: dict[str, Any], key: dict[str, str]) -> dict[str, Any]:
    """
    Return `rule` with every join in its `selection` replaced by the list of values it names for instance `key`.

    A join (`{"receipts", "pointer", "split", "on"}`) reads, from the one
    record of receipt set `receipts` whose dimensions equal `key` on every
    `on` dimension, the value at `pointer`, split at `split` (e.g. the GPUs a
    job ran on, "0,1,2,3", selecting telemetry rows). When that record states
    no such value and the join says `"absent": "all"`, the key is dropped (no
    restriction). Raises `Underivable` (UNVERIFIED) when no single record
    matches or the value is absent without `absent`.
    """
    if not any(is_join(value) for value in rule["selection"].values()):
        return rule  # no join: the rule as it is (callers never change it)
    from verifier.readers.pointers import dim_text, resolve

    selection = dict(rule["selection"])
    for dim, value in rule["selection"].items():
        if not is_join(value):  # a value, a list or an exclusion: tested as written
            continue
        want = {d: key[d] for d in value.get("on", []) if d in key}
        hits = {id(r.raw): r for r in _records(ctx, value["receipts"]) if all(r.dims.get(d) == v for d, v in want.items())}
        if len(hits) != 1:
            raise Underivable(f"selection {dim} joins receipts.{value['receipts']} on {want}, which {len(hits)} records match", "join-unresolved", fail=False)
        (record,) = hits.values()
        try:
            found = resolve(record.raw, value["pointer"])
        except KeyError:
            found = None
        text = None if isinstance(found, dict | list) else dim_text(found)  # a joined value selects by a scalar; an object or array states none
        if text is None:
            if value.get("absent") == "all":
                del selection[dim]
                continue
            raise Underivable(f"{record.path} states no {value['pointer']} to select {dim} by", "join-unresolved", fail=False)
        selection[dim] = [part.strip() for part in text.split(value.get("split", ","))] if "split" in value else [text]
    return {**rule, "selection": selection}


def never_stated(rule: dict[str, Any], records: list[Receipt]) -> bool:
    """
    Return whether the value `rule` runs over is stated by none of the receipts read from `records` (at least one read).

    An optional value the run never sets (Google Benchmark's `bytes_per_second`
    without `SetBytesProcessed`) is then no claim of this evidence: its
    unstated instances give no `claim-unstated` group. False for a rule over
    no named value (a count), or when no receipt was read.
    """
    value = rule.get("value")
    read = [r for r in records if r.unread is None]
    return value is not None and bool(read) and not any(value in r.quantities for r in read)
