"""
`verify profile draft DIR -o PROFILE.json`: what discovery bound, written as a profile in the one profile language.

Each record set a bound number derives from becomes a receipt set (its
glob, encoding, records pointer or unnested array, a `phase` of
`measured`, the dimensions its selection names and the members it derives
from), each bound number a claim at its file and JSON Pointer with the
statistic, member and selection discovery found. The profile's
`description` says how each claim was found (the claims of the profile
language take no note of their own). A detection rule names the file with
the most bound numbers and two of their pointers. Bindings of a shape the
language cannot say (a dimension read from part of a file name, an object
of objects outside JSON, a statistic of per-group means) are left out and listed in the description; an
object of objects keyed by name in JSON is read with `records.members_of`.
A numeric array at one fixed place of a JSON document (optimum-benchmark's
`/prefill/latency/values`) is the document as one record with that array
unnested.
The result validates against `schemas/profile.schema.json`; `verify
--profile PROFILE.json DIR` then judges with real verdicts, and `verify
pin` pins it once it has been reviewed (`docs/profiles.md`, "Start here").
"""

from __future__ import annotations

import re
from typing import Any

from verifier.model import units
from verifier.discovery import Discovery
from verifier.discovery.classify import label
from verifier.discovery.recordsets import RecordSet
from verifier.discovery.report import rule_words
from verifier.discovery.search import Derivation

__all__ = ["draft_profile"]

_ID = re.compile(r"[^A-Za-z0-9._-]+")
_DRAFTED = ("mean", "median", "percentile", "min", "max", "sd", "population_sd", "sum", "count", "first", "last", "relative_reduction_pct", "speedup",
            "difference", "ratio", "relative_change_pct")  # the pair statistics take `of` too (`derive.derive_rule`)


def _id(text: str) -> str:
    """Return `text` as a profile id (letters, digits, `.`, `_`, `-`; starting with a letter or digit)."""
    out = _ID.sub("_", text).strip("._-") or "x"
    return out if out[0].isalnum() else "x" + out


def _encoding(rel: str) -> dict[str, Any] | None:
    suffix = rel.rsplit(".", 1)[-1].lower()
    if suffix == "json":
        return {"encoding": "json"}
    if suffix in ("csv", "jtl"):  # a `.jtl` sample log is read by discovery only when it is CSV (`sources._csv_log`)
        return {"encoding": "csv"}
    if suffix in ("jsonl", "ndjson"):
        return {"encoding": "jsonl"}
    if suffix in ("txt", "log"):
        return {"encoding": "text", "lines": ["key-value"]}
    return None


def _receipt_set(rs: RecordSet, names: dict[str, str]) -> tuple[dict[str, Any] | None, str]:
    """Return `(receipt set spec without values and dimensions, why not)` for record set `rs`."""
    if rs.kind == "files":
        enc = _encoding(rs.origin)
        if enc is None:
            return None, f"{rs.origin}: not a file kind a receipt set reads"
        spec = {"glob": rs.origin, **enc}
        if enc["encoding"] == "json" and rs.records and rs.records[0].pointer:
            spec["records"] = ""  # each file one array of records (merged across files), not one object per file
        if any(_name_part(d) for d in names):
            return None, f"{rs.origin}: a dimension read from part of a file name"
        parts = rs.origin.split("/")
        template = []
        for i, part in enumerate(parts):  # every varying component is a dimension read from the name
            if i == len(parts) - 1 and part.startswith("*"):
                template.append("{name}" + part[1:])
            elif part == "*":
                template.append("{" + f"path{i}" + "}")
            else:
                template.append(part)
        if any("{" in t for t in template):
            spec["name"] = "/".join(template)
            spec["dimensions"] = {t.strip("{}").split("}")[0]: {"from_name": t.strip("{}").split("}")[0]} for t in template if t.startswith("{")}
        return spec, ""
    enc = _encoding(rs.rel)
    if enc is None:
        return None, f"{rs.rel}: not a file kind a receipt set reads"
    spec = {"glob": rs.rel, **enc}
    if rs.kind == "rows":
        keyed = "#key" in names or "#key" in rs.dims
        if keyed and enc["encoding"] != "json":
            return None, f"{rs.origin}: an object of objects keyed by name outside a JSON file"
        if keyed:  # an object of objects keyed by name: each member one record, its name `/#key` (`records.members_of`)
            spec["records"] = {"members_of": rs.pointer}
        elif enc["encoding"] == "json":
            if any(not isinstance(r.pointer, str) for r in rs.records):
                return None, rs.origin
            spec["records"] = rs.pointer
    elif rs.kind == "values":
        head, _, key = rs.pointer.rpartition("/")
        if "*" not in rs.pointer and enc["encoding"] == "json":  # one array at a fixed place: the document is one record, its elements unnested
            spec["unnest"] = {"array": rs.pointer}
            return spec, ""
        if not head.endswith("/*"):
            return None, f"{rs.origin}: an array not inside an array of objects"
        spec["records"] = head[:-2]
        spec["unnest"] = {"array": "/" + key}
    return spec, ""


def _name_part(dim: str) -> bool:
    """Return whether `dim` is a `name<j>` dimension (a `-`/`_` part of a file name, which `_receipt_set` cannot write)."""
    return dim.startswith("name") and dim != "name"


def _minimal(rs: RecordSet, selection: tuple[tuple[str, str], ...], over: str | None) -> list[tuple[str, str]]:
    """Return the fewest of `selection`'s dimensions (text ones first, a `name<j>` part of a file name last) that select the same records of `rs`."""
    wanted = [(k, v) for k, v in selection if k != "#at"]
    target = {id(r) for r in rs.records if all(r.dims.get(k) == v for k, v in selection)}
    order = sorted(wanted, key=lambda kv: (_name_part(kv[0]), kv[1].isdigit(), len(kv[1])))  # a part of a file name last: no receipt set reads it
    kept: list[tuple[str, str]] = []
    for k, v in order:
        now = {id(r) for r in rs.records if all(r.dims.get(a) == b for a, b in kept)}
        if now == target:
            break
        if {id(r) for r in rs.records if all(r.dims.get(a) == b for a, b in [*kept, (k, v)])} != now:
            kept.append((k, v))
    if over is not None:
        kept.append((over, ""))
    return kept


def _unit(d: Derivation, stated_unit: str | None) -> str:
    for u in (d.unit, stated_unit):
        if u and units.known(u):
            return u
    return "1"


def draft_profile(disc: Discovery, profile_id: str) -> tuple[dict[str, Any], list[str]]:
    """
    Return `(profile, notes)`: the bound numbers of `disc` as a profile with id `profile_id`, and what was left out and
    why, one note per bound number, `"<file> <pointer> -- <reason>"` (`verifier.discovery.drafting.grouped` groups them).

    Raises `ValueError` when discovery bound nothing a profile can say (no claim to write).
    """
    by_sid = {rs.sid: rs for rs in disc.sets}
    receipts: dict[str, dict[str, Any]] = {}
    claims: list[dict[str, Any]] = []
    found: list[str] = []
    left: list[str] = []
    counts: dict[str, int] = {}
    for st, v in zip(disc.stated, disc.verdicts):
        if v.kind != "bound":
            continue
        d = v.derivations[0]
        rs = by_sid[d.sid]
        if d.statistic not in _DRAFTED:
            left.append(f"{st.rel} {st.pointer} -- {d.statistic} has no rule in the profile language")
            continue
        if d.groups is not None:
            left.append(f"{st.rel} {st.pointer}: a {d.statistic} of per-{d.groups} means has no claim rule in the profile language (a claim derives one statistic of the selected receipts)")
            continue
        chosen = [r for r in rs.records if all(r.dims.get(k) == v for k, v in d.selection)]
        if d.member and d.over is None and any(d.member not in r.values for r in chosen):
            left.append(f"{st.rel} {st.pointer} -- some records of its selection lack {d.member!r} (a profile would count them as missing)")
            continue
        dims = {k: _id(k) for k, _ in _minimal(rs, d.selection, d.over)}
        if d.over:
            dims[d.over] = "arm"
        gaps = [raw for raw in dims if raw != d.over and not raw.startswith(("path", "name")) and any(raw not in r.dims for r in rs.records)]
        if gaps:
            left.append(f"{st.rel} {st.pointer} -- dimension {gaps[0]!r} is absent from some records of its set (a profile requires it in all)")
            continue
        base, why = _receipt_set(rs, dims)
        if base is None:
            left.append(f"{st.rel} {st.pointer} -- {why}")
            continue
        rid = _id(f"set-{d.sid}")
        spec = receipts.setdefault(rid, {**base, "fields": {"phase": {"value": "measured"}}})
        fields, values, dimensions = spec["fields"], spec.setdefault("values", {}), spec.setdefault("dimensions", {})
        for raw, name in dims.items():
            if name == "arm":
                fields["arm"] = {"pointer": "/" + raw.replace("~", "~0").replace("/", "~1")}
            elif raw.startswith(("path", "name")) and rs.kind == "files":
                dimensions[name] = {"from_name": name}
            else:  # a flattened `a/b` is the member b of object a
                dimensions[name] = {"pointer": "/" + raw.replace("~", "~0")}
        if rs.kind == "values":
            fields.setdefault("latency", {"element": True, "unit": _unit(d, st.unit)})
            value = "latency"
        elif d.member:
            unit = _unit(d, st.unit)
            value = _id(d.member if values.get(_id(d.member), {}).get("unit", unit) == unit else f"{d.member}-{unit}")
            holder = next(r for r in rs.records if d.member in r.values)
            values.setdefault(value, {"pointer": holder.where[d.member][len(holder.pointer):].split("#", 1)[-1] if rs.kind != "lines" else
                                      holder.where[d.member].split("/", 1)[-1].join(("/", "")), "unit": unit, "optional": True})
        else:
            value = ""
        if not values:
            spec.pop("values")
        if not dimensions:
            spec.pop("dimensions")
        selection: dict[str, Any] = {"phase": "measured"}
        selection.update({dims[k]: val for k, val in d.selection if k in dims and k != d.over})
        stem = _id(f"{st.rel}{st.pointer}")[:80]
        counts[stem] = counts.get(stem, 0) + 1
        claim: dict[str, Any] = {"id": stem if counts[stem] == 1 else f"{stem}-{counts[stem]}", "receipts": rid,
                                 "statistic": d.statistic, "selection": selection, "at": {"file": st.rel, "pointer": st.pointer.split("#", 1)[0]}}
        if "#numbers/" in st.pointer:
            claim["at"]["number"] = int(st.pointer.rsplit("/", 1)[-1])
        if value and value != "latency" and d.statistic != "count":
            claim["value"] = value
        if d.statistic == "percentile":
            claim["q"], claim["method"] = d.q, d.method
        if d.over:
            claim["baseline"], claim["candidate"] = d.baseline, d.candidate
            claim["of"] = {"statistic": "mean", **({"value": value} if value and value != "latency" else {})}
        if d.statistic != "count":
            claim["unit"] = st.unit if st.unit and units.known(st.unit) else _unit(d, st.unit)
        claims.append(claim)
        found.append(f"{claim['id']}: {label(d)} found by discovery ({rule_words(d)}; stated {st.text}, derived {d.value.normalize():f})")
    if not claims:
        raise ValueError("discovery bound no number a profile can state" + (f" ({len(left)} left out: {left[0]})" if left else ""))
    files: dict[str, list[str]] = {}
    for c in claims:
        files.setdefault(c["at"]["file"], []).append(c["at"]["pointer"])
    main = max(files, key=lambda f: (f.endswith(".json"), len(files[f])))
    detect = {"files": [main], "pointers": [{"file": main, "pointer": p} for p in files[main][:2]]}
    description = ("Drafted by `verify profile draft` from discovery; review every claim before `verify pin`. How each claim was found: "
                   + "; ".join(found) + (". Left out: " + "; ".join(left) if left else "."))
    profile = {"id": profile_id, "version": 1, "description": description, "detect": detect,
               "manifest": {"kind": "none", "reason": "drafted by discovery: the directory's manifest, if any, is not mapped yet"},
               "receipts": receipts, "claims": claims}
    return profile, left
