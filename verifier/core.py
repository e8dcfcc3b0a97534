"""
The core: choose the reader for a path, run its pipeline, return a `Report`.

Readers:
- a directory with our `manifest.json` (`"format": "verify-bundle"`), or
  one that holds our documents without a manifest, is a bundle
  (format v1, `BUNDLE_PIPELINE`; the bundle checks report what is missing);
- a directory without a manifest whose files a receipt-directory reader
  recognises (`detect_directory`: frozen HTTP matrix output, telemetry
  receipt) is given to that reader;
- any other directory is a foreign bundle, read through the one shipped
  profile whose detection rules it matches (`--profile NAME` chooses it
  explicitly); several matches is a usage error listing them (exit 2); a
  `manifest.json` no profile claims is read natively; a directory no profile
  claims that holds receipt files is read file by file through their readers
  (`_verify_receipt_folder`), any other is read by discovery (`verifier.discovery`:
  never PASS). See `verifier.profiles.language` and `docs/profiles.md`;
- a file is read as strict JSON and given to the adapter whose detection
  matches what it records about its producer (`verifier.adapters.ADAPTERS`);
  no match is a usage error (exit 2).

Order of `BUNDLE_PIPELINE` (a security property, see `docs/architecture.md`):
(1) integrity before anything is parsed; (2) the gate the bundle names;
(3) schemas of the hashed documents; (4) plan conformance; (5) media
coverage per output file, before anything is scored; (6) derivation of
claims, then (6b) the numbers the prose states bound to the evidence;
(7) recorded quality against thresholds; (8) quality re-computed from the
media with the gate's pinned scorers; (9) the files read after (1) still
have the bytes it matched.

`verify_media` runs the coverage family on standalone media files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from verifier import __version__
from verifier.formats.bundle import DOCUMENTS, Bundle
from verifier.checks import coverage, derivation, gate, integrity, plan, quality, receipts, rescore, schema, statements
from verifier.errors import UsageError
from verifier.model.evidence import PARTS
from verifier.profiles.folders import not_one_bundle
from verifier.formats.jsonio import JSONProblem, loads_strict, unparsed_files
from verifier.model.findings import CheckInfo, Finding, Report, Status
from verifier.engine.pipeline import Context, run_pipeline
from verifier.engine.roster import in_families
from verifier.trust.assets import assets
from verifier.trust.trustroot import TrustSet, is_profile_file, profile_origin, profiles_listed

__all__ = ["BUNDLE_PIPELINE", "check_device", "receipt_pipeline", "score_media", "verify_media", "verify_path"]


def check_device(device: str) -> None:
    """Raise `UsageError` unless `device` is "cpu", or "cuda" with torch installed and a GPU present."""
    if device == "cpu":
        return
    if device != "cuda":
        raise UsageError(f"--device {device!r}: use cpu or cuda")
    try:
        import torch
    except ImportError:
        raise UsageError("--device cuda needs torch (install the `scoring` extra)") from None
    if not torch.cuda.is_available():
        raise UsageError("--device cuda was given but no CUDA device is available")

BUNDLE_PIPELINE = in_families((
    integrity.files,  # (1) nothing is parsed before it is hashed
    gate.pinned,  # (2) the gate comes from our pinned gates/, never the bundle
    schema.documents,  # (3) hashed documents validate against pinned schemas
    plan.conformance,  # (4) receipts are exactly what the plan called for
    receipts.consistency,  # (4) receipts agree with their status, the plan's outputs, timeouts and freeze time
    receipts.attempts,  # (4) retained attempts are declared, valid and never mixed in
    coverage.streams,  # (5) each output file covers the planned timeline, judged alone, before any scoring
    derivation.claims,  # (6) claims re-derive from receipts
    statements.stated,  # (6b) every number the prose (headline, README, PR body) states is bound to the evidence
    quality.recorded,  # (7) recorded scores against the gate's thresholds, scorer identity against the gate's pin
    rescore.rescore,  # (8) scores re-computed from media that passed coverage, with digest-pinned scorers
    integrity.unchanged,  # (9) files re-read by (5)-(8) still have the bytes (1) matched
), "bundle-v1", frozenset(PARTS))  # every family of the roster has a member: no stand-in is added


def receipt_pipeline(reader: Any) -> tuple[Any, ...]:
    """
    Return the checks of receipt reader `reader` (`verifier/adapters/`) in roster order: `schema.documents` over what it
    gives as data (its version: `VERSION`, `VERSIONS`, or a receipt directory's `FILES`, `MATCH` and `SCHEMAS`),
    `derivation.claims` when it states its numbers (`stated`), its producer's rule pack (`checks.packs.PACKS` by its
    `KIND`: the producer's own checks and `gate.rules`) and the stand-ins (`HELD`, `NOTES`).
    """
    from verifier.checks.packs import PACKS

    native = (schema.documents,) + ((derivation.claims,) if hasattr(reader, "stated") else ())
    return in_families((*native, *PACKS.get(reader.KIND, ())), reader.KIND, reader.HELD, reader.NOTES, road="receipt")


def _is_native(target: Path) -> bool:
    """
    Return whether directory `target` is read as a bundle of ours.

    True when it holds our `manifest.json` (or one too broken to tell, which the native pipeline
    reports), or no manifest but one of our documents (so "manifest missing" is a FAIL finding).
    An empty directory is not one: discovery reports nothing to check, exit 3 (`docs/exit-codes.md`).
    """
    manifest = target / "manifest.json"
    if manifest.is_symlink():
        return True  # never followed; the native integrity check reports it
    if not os.path.lexists(manifest):
        names = {entry.name for entry in os.scandir(target)}
        return bool(names & {name for name, *_ in DOCUMENTS.values()})  # an empty one is no bundle: discovery says there is nothing to check
    if not manifest.is_file():
        return True
    try:
        document = loads_strict(manifest.read_bytes())
    except (OSError, JSONProblem):
        return True
    return not isinstance(document, dict) or document.get("format") == "verify-bundle"


STRICT_CHECK = "json.strict"
STRICT_TITLE = "The file is strict JSON: UTF-8, no duplicate keys, finite binary64 numbers, no lone surrogates, bounded nesting"


def _json_like(name: str, data: bytes) -> bool:
    """
    Return whether `data` (file `name`) is meant as JSON evidence: a `.json`/`.jsonl` name, or text Python's lenient parser reads.

    Such a file that breaks a strictness rule (NaN, a duplicate key, an
    exponent beyond binary64, a lone surrogate, deep nesting) is evidence
    that FAILs, not a usage error (H-10).
    """
    if name.lower().endswith((".json", ".jsonl")):
        return True
    try:
        json.loads(data, parse_float=str, parse_int=str, parse_constant=str)
    except (ValueError, RecursionError):
        return False
    return True


def _strictness_finding(name: str, exc: JSONProblem) -> Finding:
    return Finding(check=STRICT_CHECK, status=Status.FAIL, code=exc.code, path=name,
                   message=f"{name}: {exc}; nothing in it is read")


def _strictness_report(path: str, name: str, exc: JSONProblem) -> Report:
    """Return the FAIL report of a single JSON file that is not strict JSON (`exc` says why)."""
    return Report(subject=path, kind="json-file", verifier_version=__version__, findings=(_strictness_finding(name, exc),),
                  roster=(CheckInfo(check=STRICT_CHECK, title=STRICT_TITLE, counts={"FAIL": 1}),))


def _verify_receipt_folder(path: str, target: Path, trusted: Any, debug: bool) -> Report | None:
    """
    Return one report over the receipt files at the top of directory `target`, or None if it holds none.

    Each JSON file a single-file reader recognises (`verifier.adapters.detect`)
    runs through that reader; the findings are concatenated in file order and
    the roster sums counts per check. Every other file is UNVERIFIED
    `not-a-receipt` (nothing reads it), so a folder is never PASS on what was
    skipped. Its figures are each file's receipt series (`figures.receipt_sets`),
    the set named "FILE: SET", at most `figures.MAX_SERIES` in all. Side
    effects: reads the files; never writes.
    """
    from verifier.adapters import detect
    from verifier.checks.figures import MAX_SERIES, receipt_sets

    readers: list[tuple[str, Any, Any]] = []
    others: list[str] = []
    broken: list[Finding] = []
    for entry in sorted(os.scandir(target), key=lambda e: e.name):
        if entry.is_dir(follow_symlinks=False):
            others.append(entry.name + "/")
            continue
        adapter = document = None
        if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False):
            try:
                document = loads_strict(Path(entry.path).read_bytes())
                adapter = detect(document)
            except JSONProblem as exc:
                broken.append(_strictness_finding(entry.name, exc))
                continue
            except OSError:
                adapter = None
        if adapter is None:
            others.append(entry.name)
        else:
            readers.append((entry.name, adapter, document))
    if not readers and not broken:
        return None
    findings: list[Finding] = []
    counts: dict[str, dict[str, int]] = {}
    titles: dict[str, str] = {}
    kinds = sorted({adapter.KIND for _, adapter, _ in readers})
    sets: list[dict[str, Any]] = []  # each file's receipt series, named by its file: each file is its own run
    for name, adapter, document in readers:
        ctx = Context(subject=target / name, assets=trusted, options={"reader": adapter, "document": document, "name": name})
        found, roster = run_pipeline(receipt_pipeline(adapter), ctx, debug=debug)
        findings.extend(found)
        sets += [{**s, "set": f"{name}: {s['set']}"} for s in receipt_sets(ctx.run.evidence).get("receipt_sets", ())]
        for info in roster:
            titles[info.check] = info.title
            for status, n in info.counts.items():
                counts.setdefault(info.check, {}).setdefault(status, 0)
                counts[info.check][status] += n
    skipped = [Finding(check="receipts.folder", status=Status.UNVERIFIED, code="not-a-receipt", path=name,
                       message=f"{name} is not a receipt any reader recognises, so nothing in it is checked")
               for name in others]
    findings.extend(skipped)
    findings.extend(broken)
    roster = [CheckInfo(check=c, title=titles[c], counts=counts[c]) for c in titles]
    roster.append(CheckInfo(check="receipts.folder", title="Every file of a receipt folder is read by a reader",
                            counts={"UNVERIFIED": len(skipped)} if skipped else {}))
    if broken:
        roster.append(CheckInfo(check=STRICT_CHECK, title=STRICT_TITLE, counts={"FAIL": len(broken)}))
    return Report(subject=path, kind="receipt-folder:" + "+".join(kinds), verifier_version=__version__,
                  findings=tuple(findings), roster=tuple(roster), trust=trusted.describe([]),
                  figures={"receipt_sets": sets[:MAX_SERIES]} if sets else {})


def _verify_profile(path: str, target: Path, trusted: TrustSet, profile_id: str | None, debug: bool,
                    options: dict[str, Any] | None = None) -> Report | None:
    """
    Run the profile pipeline on directory or single file `target`; choose the profile by detection when not given.

    Returns None when detection finds no profile for a directory that has a
    `manifest.json` (the caller then reads it as a native bundle, whose
    integrity check reports the manifest's problems); runs discovery when none matches a directory
    without one. Raises `UsageError` when several profiles match, or none matches a single file.
    A profile with a `bundle` section reads the layout onto bundle format v1 (`verifier.readers.mapped`)
    and runs the native check families under their own ids, with the run `options` (artifacts, weights, device).
    """
    from verifier.checks.profile import pipeline_for
    from verifier.profiles.language import Tree, candidates
    from verifier.readers.mapped import MappedBundle, mapped_pipeline

    tree = Tree(root=target) if target.is_dir() else Tree(root=target.parent, only=frozenset({target.name}))
    shipped: dict[str, dict[str, Any]] = {}
    if profile_id is None:
        shipped = {pid: trusted.detection(pid) for pid in trusted.profile_ids()}
        found = candidates(shipped, tree)
        found = [pid for pid in found if profile_origin(trusted, pid) == "repository"] or found  # the repository's own profile first
        if not found and tree.root.is_dir() and os.path.lexists(tree.root / "manifest.json") and target.is_dir():
            return None  # a manifest no profile claims: the native pipeline reports what is wrong with it
        if not found and target.is_dir():
            folder = _verify_receipt_folder(path, target, trusted, debug)
            if folder is not None:
                _no_claims_text(path, (options or {}).get("claims_text"))
                return folder
        if len(found) != 1:
            what = "no shipped profile matches it" if not found else f"several profiles match it: {', '.join(found)}"
            broken = unparsed_files(target) if not found and target.is_dir() else []
            what += f" (not strict JSON, so no profile could read it: {'; '.join(broken)})" if broken else ""
            if not found and target.is_dir():  # discovery: what the directory states, bound to derivations where it can (never PASS)
                from verifier.discovery.report import run_discovery

                return run_discovery(path, target, f"{what} ({profiles_listed(trusted, shipped)})", trusted.describe([]), _no_claims_text, options, shipped)
            raise UsageError(
                f"{path}: not a native bundle (no manifest.json with format verify-bundle) and {what}; "
                f"choose one with --profile NAME ({profiles_listed(trusted, shipped)})"
            )
        profile_id = found[0]
    profile = trusted.profile(profile_id)  # the run's own copy (validated once per process); its `non_finite` set before the run reads a file:
    tree.non_finite = profile.get("non_finite") == "text"
    if "bundle" in profile:
        ctx = Context(subject=target, assets=trusted, bundle=MappedBundle.of(tree, profile["bundle"]),
                      options={**(options or {}), "profile": profile})
        findings, roster = run_pipeline(mapped_pipeline(BUNDLE_PIPELINE), ctx, debug=debug)
        judges = [("profile", profile_id)] + ([("gate", ctx.gate_id)] if ctx.gate_id else [])
        return Report(subject=path, kind=f"profile:{profile_id}", verifier_version=__version__, findings=tuple(findings),
                      roster=tuple(roster), gate=ctx.gate_id, gate_sha256=trusted.gate_sha256(ctx.gate_id) if ctx.gate_id else None,
                      trust=trusted.describe(judges))
    from verifier.checks.profile_media import coverage_gates

    # --artifacts: listed files published elsewhere (integrity.compare); --claims-text: bound by claims.stated (checks/statements.py)
    run = {k: v for k, v in (options or {}).items() if k in ("artifacts", "claims_text") and v is not None}
    ctx = Context(subject=target, assets=trusted, bundle=tree, options={**run, "profile": profile, "coverage_gates": coverage_gates(trusted, profile)})
    findings, roster = run_pipeline(pipeline_for(profile, claims_text="claims_text" in run), ctx, debug=debug)
    return Report(subject=path, kind=f"profile:{profile_id}", verifier_version=__version__, findings=tuple(findings),
                  roster=tuple(roster), gate=f"profile:{profile_id}", gate_sha256=trusted.profile_sha256(profile_id),
                  trust=trusted.describe([("profile", profile_id)]), figures=_figures(ctx, findings))


def _figures(ctx: Context, findings: Any = ()) -> dict[str, Any]:
    """Return the plot data of a run: the checks' recorded figures, the receipts in run order, a profile's or a receipt reader's receipt sets, results tables' row labels."""
    from verifier.checks.figures import RequestRows, receipt_sets, table_labels

    out = {**ctx.run.figures, **receipt_sets(ctx.run.evidence, ctx.options.get("profile")), **table_labels(ctx.subject, findings)}
    if ctx.run.campaign is not None:
        out["requests"] = RequestRows(ctx.run.campaign)  # built only if drawn (HTML)
    return out


def _no_claims_text(path: str, claims_text: Any) -> None:
    """Raise `UsageError` when a `--claims-text` was given for an input no bundle reader reads (nothing it states could be bound)."""
    if claims_text is not None:
        raise UsageError(f"{path}: --claims-text needs a bundle directory (bundle format v1, or a profile with a `bundle` "
                         "section); this reader derives no values the text's numbers could be bound to")


def verify_path(path: str, *, artifacts: str | None = None, gate_id: str | None = None,
                debug: bool = False, asset_root: str | None = None, profile: str | None = None,
                progress: Any = None, weights_dir: str | None = None, device: str = "cpu",
                parallel: bool = False, claims_text: tuple[str, str] | None = None, cache: Any = None,
                executor: Any = None, trust: TrustSet | None = None) -> Report:
    """
    Verify the bundle directory or receipt file at `path` and return its `Report`.

    `claims_text` is `(name, text)` of a pull-request body or other claim text whose every number
    `claims.stated` binds (`verifier.readers.claimtext.read_claim_text`); only bundle-v1 directories take one.
    `artifacts` is a directory holding external artifacts by their manifest
    path; `gate_id` (optional) must equal the gate the bundle names;
    `progress` (a `verifier.engine.progress.Progress` or None) shows hashing progress.
    `weights_dir` is searched first for scorer weights (then the torch hub
    cache; nothing is downloaded), `device` is where LPIPS runs (`--device cuda`
    needs torch and a CUDA device, else `UsageError`); `parallel` changes nothing
    (kept for earlier callers; `verifier.scoring.batch_scoring` decodes each file once). `cache` (a
    `verifier.cache.warm.Cache` or None) lets integrity reuse file digests and
    re-scoring reuse scores from earlier runs (`docs/cache.md`). `executor`,
    a Dask scheduler address (`verifier.engine.fanout`), re-scores the comparisons
    as tasks there (the report is the same as without it).
    `profile` reads `path` (a directory, or a single file) through that pinned profile instead of
    detecting the format; a value naming a file (`./mine.json`) loads it unpinned (marked in `trust`). `trust` is what judges (`verifier.trust.trustroot.locate`:
    shipped assets plus an evidence repository's trust root); default: the
    shipped assets only (under `asset_root` when given).
    Raises `UsageError` for a missing or unreadable path, an unrecognised file, a foreign
    directory matching several profiles, or one that is not one bundle (`folders.not_one_bundle`);
    a foreign directory matching none goes to discovery (`verifier.discovery`);
    `ConfigError`/`PinMismatch` when our own assets (schemas, gates, profiles) fail their pins or
    their schema; `TypeError` when `claims_text` is not a `(name, text)` pair of strings. Reads the bundle; never writes.
    """
    if claims_text is not None and not (isinstance(claims_text, tuple) and len(claims_text) == 2 and all(isinstance(x, str) for x in claims_text)):
        raise TypeError(f"claims_text must be a (name, text) pair of strings, not {type(claims_text).__name__}")
    trusted = trust if trust is not None else TrustSet(assets(asset_root))
    run_options = {"artifacts": artifacts, "gate": gate_id, "progress": progress, "weights_dir": weights_dir,
                   "device": device, "parallel": parallel, "claims_text": claims_text}
    if gate_id is not None and not trusted.has_gate(gate_id):
        raise UsageError(f"--gate {gate_id}: no such gate (pinned: {', '.join(trusted.gate_ids())})")
    if profile is not None and is_profile_file(profile):
        profile = trusted.add_unpinned_profile(Path(profile))
    target = Path(path)
    if not os.path.lexists(target):
        raise UsageError(f"{path}: no such file or directory")
    if target.is_dir() and not os.access(target, os.R_OK | os.X_OK):
        raise UsageError(f"{path}: directory is not readable")
    if profile is not None:
        if not (target.is_dir() or target.is_file()):
            raise UsageError(f"{path}: not a regular file or directory")
        return _verify_profile(path, target, trusted, profile, debug, run_options)
    if target.is_dir() and not os.path.lexists(target / "manifest.json"):
        from verifier.adapters import detect_directory  # the readers of foreign formats load only when needed

        reader = detect_directory(target)
        if reader is not None:
            _no_claims_text(path, claims_text)
            ctx = Context(subject=target, assets=trusted, options={"reader": reader, "directory": target, "name": target.name})
            findings, roster = run_pipeline(receipt_pipeline(reader), ctx, debug=debug)
            return Report(subject=path, kind=reader.KIND, verifier_version=__version__, findings=tuple(findings),
                          roster=tuple(roster), producer=ctx.run.producer, trust=trusted.describe([]),
                          figures=_figures(ctx, findings))
    if target.is_dir() and not _is_native(target):
        if not os.path.lexists(target / "manifest.json") and (why := not_one_bundle(target, trusted)):  # before detection reads it all
            raise UsageError(f"{path}: not one bundle. {why}")
        report = _verify_profile(path, target, trusted, None, debug, run_options)
        if report is not None:
            return report
    if not (target.is_dir() and _is_native(target)):
        _no_claims_text(path, claims_text)
    if target.is_dir():
        check_device(device)
        if executor is not None:  # tasks run in the workers' folders: every path leaves resolved
            from verifier.engine.fanout import absolute, reachable

            reachable(executor)
            target, artifacts, weights_dir = Path(absolute(path) or path), absolute(artifacts), absolute(weights_dir)
        ctx = Context(subject=target, assets=trusted, bundle=Bundle(root=target),
                      options={"artifacts": artifacts, "gate": gate_id, "progress": progress,
                               "weights_dir": weights_dir, "device": device, "parallel": parallel,
                               "claims_text": claims_text, "cache": cache, "executor": executor})
        findings, roster = run_pipeline(BUNDLE_PIPELINE, ctx, debug=debug)
        return Report(subject=path, kind="bundle-v1", verifier_version=__version__, findings=tuple(findings),
                      roster=tuple(roster), gate=ctx.gate_id,
                      gate_sha256=trusted.gate_sha256(ctx.gate_id) if ctx.gate_id else None,
                      trust=trusted.describe([("gate", ctx.gate_id)] if ctx.gate_id else []), figures=_figures(ctx, findings))
    if not target.is_file():
        raise UsageError(f"{path}: not a regular file or directory")
    from verifier.adapters import ADAPTERS, detect
    from verifier.profiles.language import Tree, candidates

    try:
        data = target.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        document: Any = loads_strict(data)
    except JSONProblem as exc:
        report = _unreadable_receipt(path, target, data, exc)
        if report is not None:
            return report
        if exc.code in ("invalid-json", "not-utf8") or not _json_like(target.name, data):
            # Not JSON at all (JSON Lines, text, binary) and no known producer: nothing here verify can read.
            raise UsageError(f"{path}: not a bundle directory, and not a receipt verify can read: {exc}") from None
        return _strictness_report(path, target.name, exc)
    adapter = detect(document)
    if adapter is None:
        single = Tree(root=target.parent, only=frozenset({target.name}))
        found = candidates({pid: trusted.detection(pid) for pid in trusted.profile_ids()}, single)
        if len(found) == 1:
            return _verify_profile(path, target, trusted, found[0], debug)
        raise UsageError(
            f"{path}: a file, not a bundle directory, and not a receipt of a known producer "
            f"(known: {', '.join(a.KIND for a in ADAPTERS)}), and matched by "
            f"{'no shipped profile' if not found else 'several profiles: ' + ', '.join(found)} "
            f"(shipped: {', '.join(trusted.profile_ids())}); pass a bundle directory or --profile NAME"
        )
    ctx = Context(subject=target, assets=trusted, options={"reader": adapter, "document": document, "name": target.name})
    findings, roster = run_pipeline(receipt_pipeline(adapter), ctx, debug=debug)
    return Report(subject=path, kind=adapter.KIND, verifier_version=__version__, findings=tuple(findings), roster=tuple(roster),
                  producer=ctx.run.producer, trust=trusted.describe([]), figures=_figures(ctx, findings))


def _unreadable_receipt(path: str, target: Path, data: bytes, problem: JSONProblem) -> Report | None:
    """
    Return a FAIL report for a receipt of a known producer that is not strict JSON, else None.

    Only bytes that are JSON once `NaN`/`Infinity`, duplicate keys and bytes
    that are not UTF-8 (each read as U+FFFD) are tolerated are read this way,
    and only to recognise the producer (`verifier.adapters.detect`); nothing
    else in them is used. A known receipt carrying NaN or a stray byte is
    evidence that breaks a rule (FAIL with the problem's code, as inside a
    receipt folder), not a usage error; anything unrecognised stays exit 2.
    """
    from verifier.adapters import detect

    try:
        loose = json.loads(data.decode("utf-8-sig", errors="replace"))  # a BOM still names its producer
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    adapter = detect(loose)
    if adapter is None:
        return None
    finding = Finding(check="json.strict", status=Status.FAIL, code=problem.code,
                      message=f"a {adapter.KIND} receipt that is not strict JSON: {problem}; nothing in it is read",
                      path=target.name)
    info = CheckInfo(check="json.strict", title="The receipt is strict JSON (no NaN/Infinity, no duplicate keys, UTF-8)",
                     counts={"FAIL": 1})
    return Report(subject=path, kind=adapter.KIND, verifier_version=__version__, findings=(finding,), roster=(info,))


def verify_media(paths: list[str], *, gate_id: str | None = None, frames: int | None = None, fps: str | None = None,
                 sample_rate: int | None = None, channels: int | None = None,
                 containers: tuple[str, ...] = (), video_codecs: tuple[str, ...] = (), audio_codecs: tuple[str, ...] = (),
                 decode: bool = False, debug: bool = False, asset_root: str | None = None) -> Report:
    """
    Run the coverage family on standalone media files and return one `Report` (kind `media`).

    Expectations: from the gate `gate_id`'s `coverage.expected_output` when
    given, each overridden by `frames`, `fps` (e.g. "24", "30000/1001"),
    `sample_rate` (Hz) and `channels`; without a gate `frames` and `fps` are
    required, and `sample_rate`/`channels` go together (neither: the files
    must carry no audio). Tolerances and limits: the gate's, else
    `coverage.DEFAULT_POLICY` (the numbers of `ref2va-5s-v1`). `containers`,
    `video_codecs` and `audio_codecs`, when given, replace the allowlists
    (an audio codec must be one whose tolerances `coverage.KNOWN_AUDIO_RULES`
    states). `decode` adds a full decode per file ([X3], check
    `coverage.decode`). Raises `UsageError` for missing files or incomplete
    or inconsistent expectations, `ConfigError` for an unknown gate.
    Side effects: demuxes (and with `decode`, decodes) each file; never writes.
    """
    from fractions import Fraction

    from verifier.engine.pipeline import Check

    trusted = assets(asset_root)
    if not paths:
        raise UsageError("give at least one media FILE")
    for p in paths:
        if not os.path.lexists(p):
            raise UsageError(f"{p}: no such file")
    policy = coverage.DEFAULT_POLICY
    base: dict[str, Any] = {}
    if gate_id is not None:
        section = trusted.gate(gate_id).get("coverage")
        if section is None:
            raise UsageError(f"gate {gate_id} has no coverage section")
        policy = coverage.policy_from_gate(section)
        base = dict(section.get("expected_output", {}))
    for key, value in (("frames", frames), ("fps", fps), ("sample_rate", sample_rate), ("channels", channels)):
        if value is not None:
            base[key] = value
    if "frames" not in base or "fps" not in base:
        raise UsageError("give --frames and --fps (or a --gate whose coverage section states the expected output)")
    if ("sample_rate" in base) != ("channels" in base):
        raise UsageError("give --sample-rate and --channels together (neither: the files must carry no audio)")
    try:
        rate = Fraction(str(base["fps"]))
    except (ValueError, ZeroDivisionError):
        raise UsageError(f"--fps {base['fps']!r} is not a rate like 24 or 30000/1001") from None
    if rate <= 0 or int(base["frames"]) < 1:
        raise UsageError("--frames and --fps must be positive")
    exp = coverage.Expectation(frames=int(base["frames"]), fps=rate, sample_rate=base.get("sample_rate"),
                               channels=base.get("channels"))
    if containers or video_codecs or audio_codecs:
        unknown = [c for c in audio_codecs if c not in coverage.KNOWN_AUDIO_RULES]
        if unknown:
            raise UsageError(f"no tolerances are stated for audio codec(s) {', '.join(unknown)}; "
                             f"known: {', '.join(coverage.KNOWN_AUDIO_RULES)}")
        import dataclasses

        policy = dataclasses.replace(
            policy,
            containers=tuple(containers) or policy.containers,
            video_codecs=tuple(video_codecs) or policy.video_codecs,
            audio_codecs={c: coverage.KNOWN_AUDIO_RULES[c] for c in audio_codecs} or policy.audio_codecs,
        )

    def media(ctx: Context) -> Any:
        for p in paths:
            findings, _facts = coverage.check_file(Path(p), p, exp, policy)
            yield from findings

    def decoded(ctx: Context) -> Any:
        for p in paths:
            yield from coverage.decode_errors(Path(p), p, policy)

    pipeline = [Check(coverage.CHECK, coverage.streams.title, media)]
    if decode:
        pipeline.append(Check(coverage.DECODE_CHECK, "Each media file decodes without a decoder error (full decode)", decoded))
    ctx = Context(subject=Path(paths[0]), assets=trusted, gate_id=gate_id, options={"expectation": exp.to_json()})
    findings, roster = run_pipeline(pipeline, ctx, debug=debug)
    return Report(subject=" ".join(paths), kind="media", verifier_version=__version__, findings=tuple(findings),
                  roster=tuple(roster), gate=gate_id, gate_sha256=trusted.gate_sha256(gate_id) if gate_id else None)


def score_media(reference: str, candidate: str, *, gate_id: str, weights_dir: str | None = None, device: str = "cpu",
                parallel: bool = False, debug: bool = False, asset_root: str | None = None) -> Report:
    """
    Score REFERENCE against CANDIDATE with every scorer of gate `gate_id` and return one `Report` (kind `score`).

    Runs coverage on both files first (check `coverage.streams`, expectations
    from the gate's `coverage.expected_output`); a file that fails coverage
    blocks scoring. Then check `quality.score`: per metric of the gate's
    `quality.rescore` (else every scorer it pins) one finding with the mean
    (per-frame values in `derivation`) and the scorer identity, PASS or FAIL
    against the gate's threshold; a metric that cannot be computed (torch
    not installed, weights absent) is UNVERIFIED, so the verdict is
    INCOMPLETE (exit 3). Raises `UsageError` for missing files, a bad
    device, or a gate without quality or coverage sections; `ConfigError`
    for an unknown gate. Side effects: decodes both files, reads weights.
    """
    from verifier.scoring import rescore as scoring
    from verifier.checks.rescore import judge_threshold
    from verifier.model.findings import Finding, Status
    from verifier.engine.pipeline import Check
    from verifier.scorers.weights import WeightsProblem

    trusted = assets(asset_root)
    for p in (reference, candidate):
        if not os.path.lexists(p):
            raise UsageError(f"{p}: no such file")
    check_device(device)
    gate_doc = trusted.gate(gate_id)
    quality_section, section = gate_doc.get("quality"), gate_doc.get("coverage")
    if not quality_section or not quality_section.get("scorers"):
        raise UsageError(f"gate {gate_id} pins no scorers (quality.scorers), so there is nothing to score with")
    if section is None or "expected_output" not in section:
        raise UsageError(f"gate {gate_id} states no coverage.expected_output; coverage must run before scoring")
    policy = coverage.policy_from_gate(section)
    exp = coverage.Expectation.from_plan(section["expected_output"])
    metrics = list(quality_section.get("rescore") or quality_section["scorers"])
    names = {"reference": reference, "candidate": candidate}
    facts: dict[str, Any] = {}

    def covered(ctx: Context) -> Any:
        for side, path in names.items():
            findings, fact = coverage.check_file(Path(path), path, exp, policy)
            facts[side] = fact
            yield from findings

    def scored(ctx: Context) -> Any:
        scorers = scoring.Scorers(quality_section, weights_dir=weights_dir, device=device)
        ready = []
        for metric in metrics:
            try:
                identity = scorers.ready(metric)
            except WeightsProblem as problem:
                yield Finding(check="quality.score", status=Status(problem.status), code=problem.code,
                              message=f"{metric}: not computed: {problem}", expected=scorers.pin(metric))
                continue
            ready.append((metric, identity))
        if not ready:
            return
        progress = scoring.Progress()
        try:
            results = scoring.score_pair(Path(reference), Path(candidate), facts["reference"], facts["candidate"], policy,
                                         [m for m, _ in ready], scorers, progress=progress, label="scoring", parallel=parallel)
        finally:
            progress.done()
        for metric, identity in ready:
            result = results[metric]
            if isinstance(result, scoring.ScoreRefused):
                yield Finding(check="quality.score", status=Status.FAIL, code=result.code,
                              message=f"{metric}: cannot be computed: {result}", observed=result.code)
                continue
            rule = quality_section.get("thresholds", {}).get(metric)
            ok, bound = judge_threshold(result.value, rule)
            weights = "; ".join(f"{w['name']} sha256 {w['sha256']}" for w in identity.get("weights", []))
            who = f"{identity['id']}" + (f" [{weights}; state {identity.get('state_sha256')}]" if weights else "")
            frames = (f"per frame ({len(result.per_frame)}): " + ", ".join(f"{v:.6f}" for v in result.per_frame)
                      if result.per_frame else None)
            yield Finding(check="quality.score", status=Status.PASS if ok else Status.FAIL,
                          code="threshold-met" if ok else "threshold-missed",
                          message=f"{metric} = {result.value:.6f} ({'meets' if ok else 'does not meet'} {bound}); scorer {who}; "
                                  + ", ".join(f"{k} {v}" for k, v in sorted(identity.get("versions", {}).items())),
                          expected=rule, observed={"value": result.value, "identity": identity}, derivation=frames)

    pipeline = [Check(coverage.CHECK, coverage.streams.title, covered),
                Check("quality.score", "Every scorer of the gate, with its pins, on the pair; each metric against the "
                                       "gate's threshold", scored, requires=(coverage.CHECK,))]
    ctx = Context(subject=Path(reference), assets=trusted, gate_id=gate_id)
    findings, roster = run_pipeline(pipeline, ctx, debug=debug)
    return Report(subject=f"{reference} {candidate}", kind="score", verifier_version=__version__, findings=tuple(findings),
                  roster=tuple(roster), gate=gate_id, gate_sha256=trusted.gate_sha256(gate_id))
