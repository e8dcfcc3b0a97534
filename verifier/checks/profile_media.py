"""
What a profile-read bundle asks of the coverage family: each output media file its receipts name, with the shape it must cover.

A receipt set whose `media` mapping gives the `expected` shape of each output
(frames, fps, sample rate, channels: pointers into the record, or values)
and names a `coverage_gate` (a pinned gate whose `coverage` section is the
policy: containers, codecs, tolerances, work limits) is judged under the
native check id `coverage.streams` by its one body
(`verifier.checks.coverage.judge_media`, given `asked`). Only files the profile's manifest
lists and whose sha256 matched are read (found by the digest the record
states when the set maps `listed_digest`, else by the output's path); any
other output is UNVERIFIED `media-not-verified`. A set whose media mapping gives no expected shape is
reported under the same id for presence only (`present`).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from verifier.checks.profile_base import _f, _profile, _records, _tree
from verifier.errors import ConfigError
from verifier.media.policy import Asked, Expectation, policy_from_gate
from verifier.model.findings import Finding, Status
from verifier.engine.pipeline import Context
from verifier.readers.pointers import resolve

__all__ = ["SHAPE", "asked", "coverage_gates", "expected_of", "judged_sets", "present", "presence_sets"]

#: The check the findings report under: the coverage family's one id.
CHECK = "coverage.streams"

#: The members of an expected output shape (`verifier.media.policy.Expectation.from_plan`).
SHAPE = ("frames", "fps", "sample_rate", "channels")


def judged_sets(profile: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Return the receipt sets (id -> spec) whose `media` mapping gives an `expected` shape and a `coverage_gate`."""
    return {rid: spec for rid, spec in profile.get("receipts", {}).items() if "expected" in spec.get("media", {})}


def presence_sets(profile: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Return the receipt sets (id -> spec) whose `media` mapping gives no `expected` shape: their outputs are reported present or absent only."""
    return {rid: spec for rid, spec in profile.get("receipts", {}).items() if "media" in spec and "expected" not in spec["media"]}


def present(ctx: Context) -> Iterator[Finding]:
    """
    For receipt sets with `media` but no `expected` shape (`presence_sets`), report each output file; absent media leave decode and coverage UNVERIFIED.

    UNVERIFIED `media-not-checked` for a present one (coverage needs the
    shape each file must cover: `media.expected`, judged by `asked`);
    UNVERIFIED `media-absent` per output not in the bundle. When such sets
    exist but give no finding (no record was read), one UNVERIFIED
    `no-findings`, worded as `verifier.engine.pipeline.run_pipeline` words a
    check that established nothing (this part was a check of its own).
    """
    tree, sets, found = _tree(ctx), presence_sets(_profile(ctx)), False
    for rid, spec in sets.items():
        for r in _records(ctx, rid):
            found = True
            try:
                output = resolve(r.raw, spec["media"]["pointer"])
            except KeyError:
                output = None
            if isinstance(output, str) and tree.exists(output):
                yield _f(CHECK, Status.UNVERIFIED, "media-not-checked", f"{output}: present, but the profile maps no expected shape for it, so decode and coverage checks are not run", path=output)
            else:
                yield _f(CHECK, Status.UNVERIFIED, "media-absent", f"{r.path} {r.pointer}: output {output} is not in this copy, so decode and coverage checks cannot run",
                         path=r.path, pointer=r.pointer + spec["media"]["pointer"], observed=output)
    if sets and not found:
        yield _f(CHECK, Status.UNVERIFIED, "no-findings", "the check produced no findings, so nothing was established")


def coverage_gates(trusted: Any, profile: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """
    Return the pinned gates (id -> gate) the media mappings of `profile` name as `coverage_gate`, read from `trusted` (`verifier.trust.trustroot.TrustSet`).

    Raises `ConfigError` (exit 2, before any evidence is read) when a named
    gate is unknown or unpinned, or has no `coverage` section.
    """
    out = {}
    for gid in sorted({spec["media"]["coverage_gate"] for spec in judged_sets(profile).values()}):
        try:
            gate = trusted.gate(gid)
        except ConfigError as exc:
            raise ConfigError(f"profile {profile['id']}: invalid profile at /receipts/*/media/coverage_gate: {exc}") from None
        if "coverage" not in gate:
            raise ConfigError(f"profile {profile['id']}: coverage_gate {gid!r} has no coverage section, so it states no media policy")
        out[gid] = gate
    return out


def expected_of(raw: Any, mapping: dict[str, dict[str, Any]]) -> Expectation:
    """
    Return the expected shape of one record's output: each member of `mapping` read at its `pointer` in `raw` or given as its `value`.

    Raises `ValueError` (naming the member) when a member is absent, not a
    whole number (frames, sample rate, channels: at least 1) or not a
    positive rate (fps: a number or a fraction string such as "24/1").
    """
    shape: dict[str, Any] = {}
    for name in SHAPE:
        spot = mapping[name]
        if "value" in spot:
            value = spot["value"]
        else:
            try:
                value = resolve(raw, spot["pointer"])
            except KeyError:
                raise ValueError(f"{name} ({spot['pointer']}) is absent") from None
        try:  # true/false and null are no number: Fraction("True") raises
            number = Fraction(str(value))
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{name} is {value!r}, not a number") from None
        if number <= 0 or (name != "fps" and number.denominator != 1):
            raise ValueError(f"{name} is {value!r}, not a positive {'rate' if name == 'fps' else 'whole number'}")
        shape[name] = str(number) if name == "fps" else int(number)
    return Expectation.from_plan(shape)


def asked(ctx: Context) -> Iterator[Finding | Asked]:
    """
    Yield what the profile's receipts ask of coverage: each output media file against the shape its record expects.

    Per read record of a judged set (`judged_sets`): UNVERIFIED
    `media-absent` when it names no output, UNVERIFIED `expected-unreadable`
    when its expected shape cannot be read (`expected_of`); then per distinct
    shape the set's records expect one `Asked` group (records of identical
    bytes may disagree: such a file is judged against each shape), under the
    policy of the set's `coverage_gate` (loaded by `verifier.core` before the
    run, `ctx.options["coverage_gates"]`, so an unknown gate stops the run).
    """
    gates = ctx.options.get("coverage_gates", {})
    matched, externals = ctx.run.matched, ctx.run.externals_verified
    # a digest listed under several names (identical bytes published twice) names the first one whose bytes were matched
    by_digest = {sha.lower(): next((n for n in names if n in matched or n in externals), names[0])
                 for sha, names in ctx.run.listed_names.items()}
    for rid, spec in judged_sets(_profile(ctx)).items():
        mapping = spec["media"]
        shapes: dict[Expectation, tuple[dict[str, str | None], dict[str, list[str]]]] = {}  # shape -> (file -> arm, file -> records)
        for r in _records(ctx, rid):
            try:
                output = resolve(r.raw, mapping["pointer"])
            except KeyError:
                output = None
            if not isinstance(output, str):
                yield _f(CHECK, Status.UNVERIFIED, "media-absent", f"{r.path} {r.pointer}: names no output at {mapping['pointer']}",
                         path=r.path, pointer=r.pointer + mapping["pointer"], observed=output)
                continue
            output = _listed_as(r.raw, spec, output, by_digest)
            try:
                shape = expected_of(r.raw, mapping["expected"])
            except ValueError as exc:
                yield _f(CHECK, Status.UNVERIFIED, "expected-unreadable", f"{r.path} {r.pointer}: the expected shape of {output} "
                         f"cannot be read: {exc}", path=r.path, pointer=r.pointer)
                continue
            media, named = shapes.setdefault(shape, ({}, {}))
            media.setdefault(output, r.dims.get("arm"))
            named.setdefault(output, []).append(f"{r.path} {r.pointer or ''}".rstrip())
        policy = policy_from_gate(gates[mapping["coverage_gate"]]["coverage"])
        yield from (Asked(policy, shape, *group) for shape, group in shapes.items())


def _listed_as(raw: Any, spec: dict[str, Any], output: str, by_digest: dict[str, str]) -> str:
    """
    Return the manifest name of a record's output: the listed file whose sha256 the record states (`listed_digest`), else `output` as named.

    Producers often publish a file under another path than the one the run
    wrote (vllm-omni's `outputs/X.mp4` is `videos/X.mp4` in its SHA256SUMS):
    the digest the record states names the file the coverage rules read.
    """
    if "listed_digest" not in spec:
        return output
    try:
        digest = resolve(raw, spec["listed_digest"]["pointer"])
    except KeyError:
        return output
    return by_digest.get(digest.lower(), output) if isinstance(digest, str) else output
