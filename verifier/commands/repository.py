"""
Evidence repositories: `verify inventory REPO_ROOT`.

An evidence repository keeps one bundle per top-level directory of
`evidence/` and registers each in its evidence inventory
(`evidence-inventory.json` at the repository root, schema
`schemas/evidence-inventory.schema.json`) with its kind and the sha256 of its
`manifest.json`. Order (fixed): (1) the inventory parses strictly and
validates; (2) `inventory.registered`: every directory is registered, nothing
registered is absent, every registered manifest digest matches, nothing else
sits at the top of `evidence/`; (3) `inventory.bundles`: every bundle
directory is verified by the bundle pipeline, and its findings are reported
with repository-relative paths. External artifacts of a bundle stay external
(UNVERIFIED unless supplied), never "missing".
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from verifier import __version__
from verifier.formats.bundle import hash_file
from verifier.core import verify_path
from verifier.errors import UsageError
from verifier.formats.jsonio import JSONProblem, loads_strict
from verifier.model.findings import CheckInfo, Finding, Report, Status
from verifier.trust.assets import assets, schema_validator
from verifier.trust.trustroot import TrustSet

__all__ = ["INVENTORY", "KIND", "verify_repository"]

INVENTORY = "evidence-inventory.json"
KIND = "evidence-repository-v1"
REGISTERED = "inventory.registered"
BUNDLES = "inventory.bundles"
TITLES = {
    REGISTERED: "Every evidence/ directory is registered with its kind and manifest sha256; nothing registered is absent",
    BUNDLES: "Every bundle under evidence/ verifies",
}
#: A bundle's verdict as one finding status of `inventory.bundles`.
VERDICT_STATUS = {"PASS": Status.PASS, "FAIL": Status.FAIL, "INCOMPLETE": Status.UNVERIFIED, "ERROR": Status.ERROR}


def _reg(status: Status, code: str, message: str, **kw: Any) -> Finding:
    return Finding(check=REGISTERED, status=status, code=code, message=message, **kw)


def _load_inventory(path: Path, rel: str) -> tuple[dict[str, Any] | None, list[Finding]]:
    if path.is_symlink() or not path.is_file():
        return None, [_reg(Status.FAIL, "no-inventory", f"{rel} is missing (or not a regular file), so no bundle is registered",
                           path=rel)]
    try:
        document = loads_strict(path.read_bytes())
    except JSONProblem as exc:
        return None, [_reg(Status.FAIL, f"inventory-{exc.code}", f"{rel}: {exc}", path=rel)]
    validator = schema_validator(assets().schema("evidence-inventory"))
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        return None, [
            _reg(Status.FAIL, "inventory-schema", f"{rel}: {e.message}", path=rel,
                 pointer="".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in e.absolute_path))
            for e in errors
        ]
    return document, []


def _manifest_name(bundle: Path, trusted: TrustSet) -> str | None:
    """
    Return the bundle-relative name of the manifest whose digest registers `bundle`.

    `manifest.json` for our bundles and for foreign ones that keep one; for a
    foreign bundle without it, the manifest file of the one shipped profile
    whose `detect` rules match (e.g. `SHA256SUMS.txt`). Falls back to
    `manifest.json` (then reported missing) when none or several match, and
    None when the one matching profile's format keeps no manifest.
    """
    if os.path.lexists(bundle / "manifest.json") or not bundle.is_dir():
        return "manifest.json"
    from verifier.profiles.language import Tree, candidates

    found = candidates({pid: trusted.detection(pid) for pid in trusted.profile_ids()}, Tree(root=bundle))
    if len(found) == 1:
        spec = trusted.profile(found[0])["manifest"]
        return None if spec["kind"] == "none" else str(spec["file"])
    return "manifest.json"


def files_sha256(bundle: Path) -> str:
    """
    Return the sha256 (hex) of `bundle`'s file listing: one line `<sha256 of the file>  <path>\n` per regular
    file, paths POSIX and relative to `bundle`, sorted by their UTF-8 bytes, i.e. the output of
    `find . -type f -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' sha256sum` hashed again.

    It registers a bundle that keeps no digest manifest (docs/ci.md). Raises `OSError` naming the entry when a
    directory cannot be listed or the bundle holds a symlink, a special file or an unsafe name (a listing
    with those would not pin what is verified).
    """
    import hashlib

    from verifier.formats.bundle import unsafe_name, walk

    lines = []
    for entry in walk(bundle):
        if entry.kind != "file":
            raise OSError(f"{bundle.name}/{entry.rel} is a {entry.kind}, not a regular file")
        reason = unsafe_name(entry.rel)
        if reason:
            raise OSError(f"{bundle.name}/{entry.rel!r}: {reason}")
        lines.append((entry.rel.encode("utf-8", "surrogateescape"), hash_file(bundle / entry.rel)[1]))
    listing = b"".join(digest.encode() + b"  " + rel + b"\n" for rel, digest in sorted(lines))
    return hashlib.sha256(listing).hexdigest()


def _suggestion(bundle: Path, trusted: TrustSet) -> dict[str, str] | None:
    """Return the registration to add for an unregistered `bundle` (its manifest's sha256, else its files_sha256)."""
    manifest = _manifest_name(bundle, trusted)
    try:
        if manifest is not None and (bundle / manifest).is_file() and not (bundle / manifest).is_symlink():
            return {"manifest_sha256": hash_file(bundle / manifest)[1]}
        return {"files_sha256": files_sha256(bundle)}
    except OSError:
        return None


def _registered(root: Path, rel: str, entry: dict[str, Any], inventory_rel: str, trusted: TrustSet) -> Finding:
    """Return the `inventory.registered` finding of one registered bundle directory `rel` (`evidence/NAME`)."""
    pointer = f"/bundles/{rel.removeprefix('evidence/').replace('~', '~0').replace('/', '~1')}"
    if "files_sha256" in entry:
        try:
            digest = files_sha256(root / rel)
        except OSError as exc:
            return _reg(Status.FAIL, "unhashable-bundle", f"{rel} is registered by files_sha256 but its files cannot be "
                        f"listed and hashed: {exc}", path=rel, expected=entry["files_sha256"])
        if digest != entry["files_sha256"].lower():
            return _reg(Status.FAIL, "files-digest-changed",
                        f"{rel}: the sha256 of its file listing {digest[:12]}... differs from the {entry['files_sha256'][:12]}... "
                        f"registered in {inventory_rel}; re-register the bundle if the change is intended",
                        path=inventory_rel, pointer=f"{pointer}/files_sha256", expected=entry["files_sha256"], observed=digest)
        return _reg(Status.PASS, "registered", f"{rel} is registered as {entry['kind']} with the sha256 of its file listing "
                    f"{digest[:12]}...", path=inventory_rel, pointer=pointer,
                    observed={"kind": entry["kind"], "files_sha256": digest})
    manifest_name = _manifest_name(root / rel, trusted) or "manifest.json"
    manifest = root / rel / manifest_name
    try:
        if manifest.is_symlink():
            raise OSError(manifest)
        _size, digest = hash_file(manifest)
    except OSError:
        return _reg(Status.FAIL, "no-manifest", f"{rel} is registered but has no readable {manifest_name} "
                    "(symlinks are refused); a bundle without a manifest registers its files_sha256 instead",
                    path=f"{rel}/{manifest_name}", expected=entry["manifest_sha256"])
    if digest != entry["manifest_sha256"].lower():
        return _reg(Status.FAIL, "manifest-digest-changed",
                    f"{rel}/{manifest_name} sha256 {digest[:12]}... differs from the {entry['manifest_sha256'][:12]}... "
                    f"registered in {inventory_rel}; re-register the bundle if the change is intended",
                    path=inventory_rel, pointer=f"{pointer}/manifest_sha256",
                    expected=entry["manifest_sha256"], observed=digest)
    return _reg(Status.PASS, "registered", f"{rel} is registered as {entry['kind']} with the sha256 of its {manifest_name} "
                f"{digest[:12]}...", path=inventory_rel, pointer=pointer, observed={"kind": entry["kind"], "manifest_sha256": digest})


def _registration(root: Path, inventory_rel: str, trusted: TrustSet) -> tuple[list[Finding], list[str]]:
    """Return `(findings, bundle directory names to verify)` for step (2)."""
    evidence = root / "evidence"
    found: list[Finding] = []
    directories: list[str] = []
    for entry in sorted(os.scandir(evidence), key=lambda e: e.name):
        rel = f"evidence/{entry.name}"
        if entry.is_symlink():
            found.append(_reg(Status.FAIL, "symlink", f"{rel} is a symlink; bundles must be real directories", path=rel))
        elif entry.is_dir(follow_symlinks=False):
            directories.append(entry.name)
        else:
            found.append(_reg(Status.FAIL, "unclassified-entry",
                              f"{rel} is not a bundle directory; nothing at the top of evidence/ may be unclassified", path=rel))
    inventory, problems = _load_inventory(root / inventory_rel, inventory_rel)
    found.extend(problems)
    if inventory is None:
        for name in directories:
            found.append(_reg(Status.FAIL, "unregistered-bundle",
                              f"evidence/{name} is not registered (the inventory is unusable)", path=f"evidence/{name}"))
        return found, directories
    registered: dict[str, dict[str, Any]] = inventory["bundles"]
    found.append(_reg(Status.PASS, "inventory-valid", f"{inventory_rel} is strict JSON and valid against "
                      f"evidence-inventory.schema.json ({len(registered)} bundle(s) registered)", path=inventory_rel))
    for name in directories:
        rel = f"evidence/{name}"
        if name not in registered:
            suggestion = _suggestion(root / rel, trusted)
            entry = (", ".join(f'"{k}": "{v}"' for k, v in suggestion.items()) if suggestion
                     else "its manifest_sha256 (or, for a bundle without a manifest, its files_sha256)")
            found.append(_reg(Status.FAIL, "unregistered-bundle",
                              f"{rel} is not registered in {inventory_rel}; add it with its kind and {entry}", path=rel,
                              observed=suggestion))
            continue
        found.append(_registered(root, rel, registered[name], inventory_rel, trusted))
    for name in sorted(set(registered) - set(directories)):
        found.append(_reg(Status.FAIL, "registered-absent",
                          f"evidence/{name} is registered in {inventory_rel} but absent from evidence/",
                          path=inventory_rel, pointer=f"/bundles/{name.replace('~', '~0').replace('/', '~1')}",
                          expected=f"evidence/{name}"))
    return found, directories


def verify_repository(path: str, *, inventory: str = INVENTORY, artifacts: str | None = None,
                      debug: bool = False, progress: Any = None, cache: Any = None, executor: Any = None,
                      trust: TrustSet | None = None) -> Report:
    """
    Verify the evidence repository at `path` and return its `Report`.

    `inventory` is the inventory path relative to the repository root.
    `artifacts`, when given, holds external artifacts as
    `<artifacts>/<bundle directory>/<manifest path>`. Raises `UsageError`
    when `path` is not a directory or has no `evidence/` folder. Side
    effects: reads the repository; never writes (into it: `cache`, a
    `verifier.cache.warm.Cache`, is passed to every bundle's verification).
    `executor`, a Dask scheduler address (`verifier.engine.fanout`), runs each
    bundle's verification as a task there; the report is the same as
    without it. Raises `UsageError` when the executor cannot be used.
    `trust` judges every bundle (default: the shipped assets); the report's
    `trust` section names every gate and profile that judged a bundle.
    """
    trusted = trust if trust is not None else TrustSet(assets())
    root = Path(path)
    if not root.is_dir():
        raise UsageError(f"{path}: not a directory")
    if not (root / "evidence").is_dir() or (root / "evidence").is_symlink():
        raise UsageError(f"{path}: no evidence/ folder; `verify inventory` checks an evidence repository")
    findings, directories = _registration(root, inventory, trusted)
    bundle_findings: list[Finding] = []
    summary: list[Finding] = []
    roster_counts: dict[str, dict[str, int]] = {}
    used: list[tuple[str, str]] = []
    titles: dict[str, str] = {}
    jobs = [(str(root / f"evidence/{name}"),
             str(Path(artifacts) / name) if artifacts and (Path(artifacts) / name).is_dir() else None, debug, cache, trusted)
            for name in directories]
    if executor is not None and jobs:
        from verifier.engine.fanout import absolute, map_on_cluster

        reports = map_on_cluster(executor, _verify_job, [(absolute(j[0]), absolute(j[1]), *j[2:]) for j in jobs])
    else:
        reports = [verify_path(job[0], artifacts=job[1], debug=debug, progress=progress, cache=cache, trust=trusted)
                   for job in jobs]
    for name, report in zip(directories, reports, strict=True):
        rel = f"evidence/{name}"
        for source in (report.trust or {}).get("sources", []):  # type: ignore[union-attr]
            used.append((source["kind"], source["id"]))
        for c in report.roster:
            titles.setdefault(c.check, c.title)
            counts = roster_counts.setdefault(c.check, {})
            for status, n in c.counts.items():
                counts[status] = counts.get(status, 0) + n
        for f in report.findings:
            bundle_findings.append(Finding(
                check=f.check, status=f.status, code=f.code, message=f"{rel}: {f.message}",
                path=f"{rel}/{f.path}" if f.path else rel, pointer=f.pointer,
                expected=f.expected, observed=f.observed, derivation=f.derivation, cached=f.cached))
        summary.append(Finding(check=BUNDLES, status=VERDICT_STATUS[report.verdict], code="bundle-verdict",
                               message=f"{rel}: verdict {report.verdict}" + (f" (gate {report.gate})" if report.gate else ""),
                               path=rel, observed=report.verdict))
    if not directories:
        summary.append(Finding(check=BUNDLES, status=Status.UNVERIFIED, code="no-bundles",
                               message="evidence/ holds no bundle directory, so nothing was verified", path="evidence"))
    all_findings = findings + summary + bundle_findings
    roster = [_roster(REGISTERED, findings), _roster(BUNDLES, summary)]
    roster += [CheckInfo(check=c, title=titles[c], counts=dict(sorted(n.items()))) for c, n in roster_counts.items()]
    return Report(subject=path, kind=KIND, verifier_version=__version__, findings=tuple(all_findings), roster=tuple(roster),
                  trust=trusted.describe(used))


def _verify_job(job: tuple[Any, ...]) -> Report:
    """Verify one bundle on a cluster worker: `(path, artifacts, debug, cache[, trust])` -> its `Report` (no progress lines there)."""
    path, supplied, debug, cache = job[:4]
    return verify_path(path, artifacts=supplied, debug=debug, cache=cache, trust=job[4] if len(job) > 4 else None)


def _roster(check: str, findings: list[Finding]) -> CheckInfo:
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.status.value] = counts.get(f.status.value, 0) + 1
    return CheckInfo(check=check, title=TITLES[check], counts=counts)
