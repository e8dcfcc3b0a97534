"""
The mapped reader: a profile's `bundle` section reads a foreign layout onto the documents of bundle format v1.

A profile that says where a foreign bundle keeps its plan, receipts, claims
and quality index (other names, other nesting, CSV or JSON Lines receipts,
a `SHA256SUMS` manifest) and which shipped gate judges it gets the very
check families of a native bundle, in the fixed order of
`docs/architecture.md`, under the same check ids: `integrity.files` (through
the profile's manifest kind), `gate.pinned` (the gate the pinned profile
names; the bundle cannot bring its own), `schema.documents` (each mapped
document against our schema), `plan.conformance`, `coverage.streams`,
`derivation.claims`, `quality.recorded`, `quality.rescore`,
`integrity.unchanged`.

The `bundle` section (`schemas/profile.schema.json`):

- `gate`: the pinned gate id, or `{file, pointer}` where the profile's
  manifest file names it (as `manifest.json` does for bundle format v1);
- `documents`: per kind (`plan`, `claims`, `quality`, and `manifest`, the
  manifest file validated as our `manifest.json`) a `file` and an
  optional `pointer` to the document inside it; `receipts` gives `sources`,
  files read in order and concatenated, each with `encoding` (`csv` or
  `jsonl`) and `record`: for every field of our receipt, where it comes
  from: `{"column": name}` (CSV), `{"pointer": p}` (JSON Lines), or
  `{"value": constant}`; with `type` (`string`, `integer`, `number`,
  `boolean`; default `string`), optional `unit` and `to` (a number
  converted exactly between units of one dimension of `verifier.model.units`),
  `{"object": {...}}` and `{"list": [...]}` for nested fields, or the
  whole `record` `"as-is"` for JSON Lines already shaped as our receipts (a list
  element whose members are all empty is left out). An empty CSV cell is
  absent: the field is left out of the record (so the schema reports a
  required one missing; absence is not zero), or is null where the field
  says `keep_null`.

A mapped file is parsed only after `integrity.files` matched its bytes
against the manifest, and only if the bytes read for parsing have that same
sha256 (a file swapped after hashing is never parsed). A CSV column no field reads is reported by
`schema.documents` as UNVERIFIED `unmapped-field`: a reader says what it
could not map.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from verifier.model import units
from verifier.formats.bundle import DOCUMENTS, Bundle
from verifier.errors import Unverifiable
from verifier.formats.jsonio import JSONProblem, loads_strict, loads_strict_lines
from verifier.model.findings import Finding
from verifier.engine.pipeline import Check, Context
from verifier.readers.pointers import resolve
from verifier.readers.tree import Tree

__all__ = ["MappedBundle", "mapped_pipeline", "named_as_read"]

#: The document kinds a profile may map, with their schema and whether they are JSON Lines shaped (a list of records).
KINDS = {kind: DOCUMENTS[kind] for kind in ("manifest", "plan", "receipts", "claims", "quality")}


@dataclass
class MappedBundle(Bundle):
    """
    Represents a foreign bundle read through a profile's `bundle` section, shaped like a native `Bundle`.

    `tree` is the root-confined view the profile's integrity check hashes;
    `mapping` the profile's `bundle` section. `kinds` names the foreign file
    of each mapped document. `unmapped` collects `(file, what)` the reader
    could not map (reported by `schema.documents`).
    """

    tree: Tree | None = None
    mapping: dict[str, Any] = field(default_factory=dict)
    unmapped: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def of(cls, tree: Tree, mapping: dict[str, Any]) -> MappedBundle:
        """Return the mapped bundle of `tree` under the profile's `bundle` section `mapping`."""
        kinds = {}
        for kind, spec in mapping["documents"].items():
            _name, schema_name, lines, _required = KINDS[kind]
            kinds[kind] = (_files(spec)[0], schema_name, lines, True)
        return cls(root=tree.root, tree=tree, mapping=mapping, kinds=kinds)

    def raw_document(self, kind: str, vouch: Any = None) -> Any:
        """
        Return the document of `kind` in the shape of bundle format v1, read from its foreign file.

        `vouch` is `Bundle.raw_document`'s and is never used: a foreign file's
        bytes are not the v1 document a reader's typed reading mirrors.

        Raises `Unverifiable` (`blocked-by-integrity`) for a file whose bytes
        were not matched, `JSONProblem` for one that cannot be parsed or mapped.
        """
        if kind in self._cache:
            return self._cache[kind]
        spec = self.mapping["documents"][kind]
        if kind == "manifest":  # the root of trust, read without a prior match (as Bundle reads manifest.json)
            try:
                value = resolve(loads_strict(self.tree.read_bytes(spec["file"])), spec.get("pointer", ""))  # type: ignore[union-attr]
            except KeyError:
                raise JSONProblem("missing-document", f"no document at {spec.get('pointer')!r}") from None
            self._cache[kind] = value
            return value
        for name in _files(spec):
            if name not in self.verified:
                raise Unverifiable(f"{name} did not pass the integrity check, so it is not parsed", code="blocked-by-integrity", path=name)
        if kind == "receipts":
            value: Any = [r for source in spec["sources"] for r in _records(source["file"], self._hashed(source["file"]), source, self.unmapped)]
        else:
            document = loads_strict(self._hashed(spec["file"]))
            try:
                value = resolve(document, spec.get("pointer", ""))
            except KeyError:
                raise JSONProblem("missing-document", f"no document at {spec.get('pointer')!r}") from None
        self._cache[kind] = value
        return value

    def manifest_of(self, ctx: Context, listing: Any) -> dict[str, Any]:
        """
        Return the manifest the evidence model reads (`ctx.run.manifest`), shaped as bundle format v1's, from what `integrity.files` read.

        `files`: each file `listing` (a `verifier.readers.manifests.Listing`, None when the manifest could not be
        read) lists, with its sha256, size and role; `external`: the external artifacts listed with digests
        (`ctx.run.listed_externals`); `gate`: the gate id the mapping names (`_gate_id`). So retained attempts,
        externals and the gate reach the model as natively.
        """
        entries = sorted(listing.entries.items()) if listing is not None else []
        files = [{"path": name, "sha256": e.sha256, "size": e.size, **({"role": listing.roles[name]} if name in listing.roles else {})}
                 for name, e in entries]
        return {"gate": _gate_id(self, ctx.options["profile"]["manifest"].get("file")), "files": files,
                "external": list(ctx.run.listed_externals)}

    def release(self, kind: str) -> None:
        """Keep the mapped document: the records are the model's `raw`, and a second read would add its unmapped fields again."""

    def _hashed(self, name: str) -> bytes:
        """Return the bytes of `name`, read again, only if their sha256 is the one `integrity.files` matched (else `Unverifiable`)."""
        data = self.tree.read_bytes(name)  # type: ignore[union-attr]
        if hashlib.sha256(data).hexdigest() != self.digests.get(name):
            raise Unverifiable(f"{name} changed after the integrity check hashed it, so it is not parsed",
                               code="changed-during-verification", path=name)
        return data

    def record_batches(self, kind: str, vouch: Any = None) -> Iterator[list[tuple[int, Any]]]:
        """Yield one list of `(number from 1, document)`, every record of the mapped document of `kind` (read whole by `raw_document`, which raises its problems), or none when it has none; `vouch` is not offered the records (they are mapped, not lines)."""
        records = list(enumerate(self.raw_document(kind), start=1))
        if records:
            yield records


def _files(spec: dict[str, Any]) -> list[str]:
    """Return the foreign files one mapped document is read from (a receipts mapping may have several sources)."""
    return [source["file"] for source in spec["sources"]] if "sources" in spec else [spec["file"]]


def _records(name: str, data: bytes, spec: dict[str, Any], unmapped: list[tuple[str, str]]) -> Iterator[dict[str, Any]]:
    """Yield each receipt of foreign file `name` mapped onto our receipt fields (see the module docstring)."""
    record_spec = spec["record"]
    if record_spec == "as-is":  # JSON Lines already in the shape of our receipts (bundle format v1 read by its own description)
        if spec["encoding"] != "jsonl":
            raise JSONProblem("unmappable-field", f"{name}: records can be read as-is only from JSON Lines")
        yield from loads_strict_lines(data)
        return
    if spec["encoding"] == "csv":
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONProblem("not-utf8", f"not UTF-8 at offset {exc.start}") from None
        reader = csv.DictReader(io.StringIO(text, newline=""))
        used = {column for f in record_spec.values() for column in _columns(f)}
        for column in reader.fieldnames or []:
            if column not in used:
                unmapped.append((name, f"column {column!r}"))
        rows: list[tuple[str, Any]] = [(f"#row={n}", {k: (v if v != "" else None) for k, v in row.items()}) for n, row in enumerate(reader, start=1)]
    else:
        rows = [(f"#line={n}", doc) for n, doc in enumerate(loads_strict_lines(data), start=1)]
    for where, row in rows:
        record = {key: _value(f, row, f"{name}{where} {key}") for key, f in record_spec.items()}
        yield {key: value for key, value in record.items() if value is not None or record_spec[key].get("keep_null")}


def _columns(spec: Any) -> Iterator[str]:
    if isinstance(spec, dict):
        if "column" in spec:
            yield spec["column"]
        for child in (spec.get("object") or {}).values():
            yield from _columns(child)
        for child in spec.get("list") or []:
            yield from _columns(child)


def _value(spec: dict[str, Any], row: Any, where: str) -> Any:
    """Return the value of one mapped field of `row`; raises `JSONProblem` when it cannot be typed."""
    if "value" in spec:
        return spec["value"]
    if "object" in spec:
        return {k: _value(s, row, f"{where}.{k}") for k, s in spec["object"].items()}
    if "list" in spec:
        items = [_value(s, row, f"{where}[{i}]") for i, s in enumerate(spec["list"])]
        return [i for i in items if not (isinstance(i, dict) and all(v is None for v in i.values())) and i is not None]
    if "column" in spec:
        raw = row.get(spec["column"]) if isinstance(row, dict) else None
    else:
        try:
            raw = resolve(row, spec["pointer"])
        except KeyError:
            raw = None
    if raw is None:
        return None
    kind = spec.get("type", "string")
    try:
        if kind == "string":
            return str(raw)
        if kind == "boolean":
            text = str(raw).strip().lower()
            if text not in ("true", "false"):
                raise ValueError(text)
            return text == "true"
        if kind == "integer":
            return int(str(raw).strip())
        number = Decimal(str(raw).strip()) if not isinstance(raw, Decimal) else raw
        if not number.is_finite():
            raise ValueError(raw)
        if "unit" in spec and "to" in spec:
            number = units.convert(number, spec["unit"], spec["to"])
        return number
    except (ValueError, InvalidOperation, units.UnitError, units.UnitMismatch):
        raise JSONProblem("unmappable-field", f"{where}: {raw!r} is not a valid {kind}") from None


def _gate_id(bundle: MappedBundle, manifest: str | None) -> Any:
    """
    Return the gate id the mapping names: a constant, or the value at `{file, pointer}` of the manifest file.

    Only the profile's own manifest file (the root of trust, as `manifest.json`
    is for bundle format v1) or a file whose bytes matched may name it;
    otherwise, or when the pointer does not resolve, None (`gate.pinned` then
    reports that no gate is named).
    """
    gate = bundle.mapping["gate"]
    if isinstance(gate, str):
        return gate
    if gate["file"] != manifest and gate["file"] not in bundle.verified:
        return None
    try:
        return resolve(bundle.tree.json(gate["file"]), gate["pointer"])  # type: ignore[union-attr]
    except (KeyError, OSError, JSONProblem):
        return None


def mapped_pipeline(native: tuple[Check, ...]) -> tuple[Check, ...]:
    """
    Return the native pipeline `native` for a mapped bundle: the same checks, order and ids, as the mapped input titles
    them (`Check.on`); each check's body reads the mapped bundle as it reads a native one (`integrity.files` through the
    profile's manifest kind, `schema.documents` also the columns `MappedBundle.unmapped` names, `gate.pinned` an
    unpinned profile too), and every finding but integrity's (which names foreign files already) names the foreign files.
    """
    return tuple(chk.on("mapped") if chk.id == "integrity.files" else named_as_read(chk.on("mapped")) for chk in native)


def named_as_read(chk: Check) -> Check:
    """
    Return `chk` with its findings naming the foreign files the bundle was read from.

    A native check names a document by its bundle format v1 name
    (`claims.json`); under a mapped bundle a finding whose `path` is the v1
    name of a mapped document gets the foreign file instead, and its message
    says both ("results/summary.json (read as claims.json)"), so a user is
    pointed at a file that exists in the bundle. `manifest.json` (named by
    `gate.pinned` as where the gate id came from) becomes the file the
    mapping's `gate` points into, or no file when the profile names the gate
    as a constant (the message then says "the profile ID").
    """

    def run(ctx: Context) -> Iterator[Finding]:
        bundle = ctx.bundle
        kinds = getattr(bundle, "kinds", {}) if isinstance(bundle, MappedBundle) else {}
        renamed: dict[str, str | None] = {DOCUMENTS[kind][0]: spec[0] for kind, spec in kinds.items()
                                          if kind in DOCUMENTS and kind != "manifest" and spec[0] != DOCUMENTS[kind][0]}
        if kinds:  # the gate is named by the profile (a constant) or by the file its `gate` points into, never by manifest.json
            gate = bundle.mapping.get("gate")
            renamed.setdefault("manifest.json", gate["file"] if isinstance(gate, dict) else None)
        for finding in chk(ctx):
            if not finding.path or finding.path not in renamed or renamed[finding.path] == finding.path:
                yield finding
                continue
            foreign = renamed[finding.path]
            said = f"{foreign} (read as {finding.path})" if foreign else f"the profile {ctx.options['profile']['id']}"
            yield dataclasses.replace(finding, path=foreign, message=finding.message.replace(finding.path, said))

    return Check(chk.id, chk.title, run, chk.requires)
