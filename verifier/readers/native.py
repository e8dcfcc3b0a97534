"""
The bundle format v1 reader onto the evidence model (`verifier.evidence`).

`evidence_of(ctx)` turns the documents of a native bundle (or of a mapped
profile, `verifier.readers.mapped`, which presents the same documents) into
one `Evidence`, cached in `ctx.data["evidence"]`. Only documents that passed
integrity and their schema are read (`Bundle.document`); a document that
cannot be used, a unit the registry does not know, or a receipt of an
unknown kind becomes an `Unmapped` entry instead of being dropped.
Side effects: none beyond what `Bundle.document` reads (already-hashed bytes).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from verifier import units
from verifier.errors import Unverifiable
from verifier.readers.manifests import V1_MANIFEST
from verifier.evidence import (
    Evidence,
    External,
    FileEntry,
    Location,
    Media,
    Plan,
    ProcessReceipt,
    QualityComparison,
    Quantity,
    Receipt,
    StatedClaim,
    Unmapped,
)

__all__ = ["V1_PROFILE", "evidence_of", "from_documents"]

#: Bundle format v1 said in the profile language (`schemas/profile.schema.json`, `docs/profiles.md`): its manifest
#: kind (`V1_MANIFEST`), where the manifest names the gate, and its documents, receipts read as-is from JSON Lines.
#: Not shipped (no detection): `tests/test_v1_description.py` reads the example bundle through it with the mapped
#: reader and requires the very findings of this native reader. What it cannot say yet: external artifacts with
#: digests (`--artifacts`) and retained attempts (manifest `role`), which only the native reader checks.
V1_PROFILE: dict[str, Any] = {
    "id": "bundle-v1",
    "version": 1,
    "description": "verify's own bundle format v1 (docs/bundle-format.md), described in the profile language",
    "detect": {"files": ["manifest.json", "plan.json", "receipts.jsonl", "claims.json"], "pointers": [{"file": "manifest.json", "pointer": "/format"}]},
    "manifest": {**V1_MANIFEST, "external": [{"pointer": "/external", "reason": "kept outside the bundle (manifest.json /external)"}]},
    "bundle": {
        "gate": {"file": "manifest.json", "pointer": "/gate"},
        "documents": {
            "manifest": {"file": "manifest.json"},
            "plan": {"file": "plan.json"},
            "claims": {"file": "claims.json"},
            "quality": {"file": "quality-index.json"},
            "receipts": {"sources": [{"file": "receipts.jsonl", "encoding": "jsonl", "record": "as-is"}]},
        },
    },
}


def _quantity(value: Any, unit: str | None, where: Location, unmapped: list[Unmapped]) -> Quantity | None:
    if value is None or isinstance(value, bool):
        return None
    symbol = unit or "1"
    if not units.known(symbol):
        unmapped.append(Unmapped(f"unit {symbol!r}", where, "not in the unit registry (verifier/units.py)"))
        return None
    return Quantity(Decimal(value), symbol, written=str(value))


def from_documents(documents: dict[str, Any], *, manifest: dict[str, Any] | None, names: dict[str, str],
                   reader: str = "bundle-v1", gate: str | None = None, unmapped: list[Unmapped] | None = None) -> Evidence:
    """
    Return the `Evidence` of parsed bundle v1 `documents` (kind -> document; absent kinds are simply missing).

    `names` maps each kind to the file it was read from (for locations);
    `manifest` is the parsed manifest (its `files` and `external`), or None.
    Pure: reads nothing. Receipts of kind `request` become `Receipt`s (with
    `elapsed` in s), of kind `worker` `ProcessReceipt`s; every other kind is
    `Unmapped`.
    """
    unmapped = list(unmapped or [])
    mname = names.get("manifest", "manifest.json")
    files = tuple(FileEntry(e["path"], e.get("size"), (e.get("sha256") or "").lower() or None, (mname,))
                  for e in (manifest or {}).get("files", []))
    externals = tuple(External(e["path"], e.get("sha256"), e.get("size"), Location(mname, f"/external/{i}"), e.get("reason", ""))
                      for i, e in enumerate((manifest or {}).get("external", [])))
    plan = None
    doc = documents.get("plan")
    if isinstance(doc, dict):
        plan = Plan(
            arms={a["id"]: a.get("role", "") for a in doc.get("arms", [])},
            servers={s["id"]: s["arm"] for s in doc.get("servers", [])},
            order=tuple(doc.get("arm_order", [])),
            per_server={"warmup": doc.get("warmups_per_server", 0), "measured": doc.get("measured_per_server", 0)},
            requests=tuple((r["id"], r["server"], r["phase"]) for r in doc.get("requests", [])),
            expected_output=dict(doc.get("expected_output", {})),
            concurrency=doc.get("concurrency"),
            arrival=doc.get("arrival"),
            location=Location(names.get("plan", "plan.json")),
        )
    receipts, processes, media = [], [], []
    rname = names.get("receipts", "receipts.jsonl")
    expected = dict(plan.expected_output) if plan else {}
    for index, r in enumerate(documents.get("receipts") or []):
        where = Location(rname, f"/{index}")  # the JSON Pointer of the record in the JSON Lines list, as reports give it
        if r.get("kind") == "request":
            outputs = tuple(o["path"] for o in r.get("outputs") or [])
            receipts.append(Receipt(
                dims={k: str(r[k]) for k in ("request_id", "arm", "server", "phase") if r.get(k) is not None},
                quantities={"elapsed": _quantity(r.get("elapsed_s"), "s", where, unmapped)},
                location=where, ok=r.get("outcome") == "ok", outputs=outputs))
            media.extend(Media(path, "output", expected) for path in outputs)
        elif r.get("kind") == "worker":
            processes.append(ProcessReceipt(r.get("worker_id", ""), r.get("exit_code"), r.get("signal"),
                                            r.get("stdout"), r.get("stderr"), where,
                                            {k: str(r[k]) for k in ("server", "arm") if r.get(k) is not None}))
        else:
            unmapped.append(Unmapped(f"receipt of kind {r.get('kind')!r}", where, "neither a request nor a worker receipt"))
    claims = []
    doc = documents.get("claims")
    cname = names.get("claims", "claims.json")
    for i, c in enumerate((doc or {}).get("claims", [])):
        where = Location(cname, f"/claims/{i}/value")
        claims.append(StatedClaim(c["id"], _quantity(c.get("value"), c.get("unit"), where, unmapped), (doc or {}).get("headline", ""), where))
    quality = []
    doc = documents.get("quality")
    qname = names.get("quality", "quality-index.json")
    for i, comp in enumerate((doc or {}).get("comparisons", [])):
        for metric, score in (comp.get("scores") or {}).items():
            quality.append(QualityComparison(metric, None if score is None else Decimal(str(score)), comp["reference"], comp["candidate"],
                                             (doc or {}).get("scorers", {}).get(metric, {}), Location(qname, f"/comparisons/{i}/scores/{metric}")))
    return Evidence(reader=reader, files=files, externals=externals, plan=plan, receipts=tuple(receipts),
                    processes=tuple(processes), claims=tuple(claims), quality=tuple(quality), media=tuple(media),
                    unmapped=tuple(unmapped), gate=gate)


def evidence_of(ctx: Any) -> Evidence:
    """
    Return (and cache in `ctx.data["evidence"]`) the `Evidence` of the run's bundle, native or mapped.

    A document that did not pass integrity or its schema is left out and
    recorded as `Unmapped` with the reason `Bundle.document` gives.
    """
    if "evidence" in ctx.data:
        return ctx.data["evidence"]  # type: ignore[no-any-return]
    bundle = ctx.bundle
    documents: dict[str, Any] = {}
    unmapped: list[Unmapped] = []
    names = {kind: spec[0] for kind, spec in bundle.kinds.items()}
    for kind in ("plan", "receipts", "claims", "quality"):
        if kind not in bundle.kinds or not bundle.has(kind):
            continue
        try:
            documents[kind] = bundle.document(kind)
        except Unverifiable as exc:
            unmapped.append(Unmapped(f"document {names[kind]}", Location(names[kind]), str(exc)))
    profile = ctx.options.get("profile")
    reader = f"profile:{profile['id']}" if profile else "bundle-v1"
    evidence = from_documents(documents, manifest=ctx.data.get("manifest"), names=names, reader=reader,
                              gate=ctx.gate_id, unmapped=unmapped)
    ctx.data["evidence"] = evidence
    return evidence
