"""
The coverage family for a profile: each output media file its receipts name, judged by the native coverage rules.

A receipt set whose `media` mapping gives the `expected` shape of each output
(frames, fps, sample rate, channels: pointers into the record, or values)
and names a `coverage_gate` (a pinned gate whose `coverage` section is the
policy: containers, codecs, tolerances, work limits) is judged under the
native check id `coverage.streams` by the one coverage loop
(`verifier.checks.coverage.judge_media`). Only files the profile's manifest
lists and whose sha256 matched are read (found by the digest the record
states when the set maps `listed_digest`, else by the output's path); any
other output is UNVERIFIED `media-not-verified`. A profile whose media mapping gives no expected shape
keeps `coverage.media` (presence only).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

from verifier.checks.profile_base import _f, _profile, _records, _tree
from verifier.errors import ConfigError
from verifier.media.policy import Expectation, policy_from_gate
from verifier.model import Finding, Status
from verifier.pipeline import Context
from verifier.readers.pointers import resolve

__all__ = ["SHAPE", "coverage_gates", "expected_of", "judged_media", "judged_sets", "named_by"]

#: The members of an expected output shape (`verifier.media.policy.Expectation.from_plan`).
SHAPE = ("frames", "fps", "sample_rate", "channels")


def judged_sets(profile: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Return the receipt sets (id -> spec) whose `media` mapping gives an `expected` shape and a `coverage_gate`."""
    return {rid: spec for rid, spec in profile.get("receipts", {}).items() if "expected" in spec.get("media", {})}


def coverage_gates(trusted: Any, profile: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """
    Return the pinned gates (id -> gate) the media mappings of `profile` name as `coverage_gate`, read from `trusted` (`verifier.trustroot.TrustSet`).

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


def judged_media(ctx: Context) -> Iterator[Any]:
    """
    What `coverage.streams` judges for a profile: each output media file its receipts name, against the shape its record expects.

    Per read record of a judged set (`judged_sets`): UNVERIFIED
    `media-absent` when it names no output, UNVERIFIED `expected-unreadable`
    when its expected shape cannot be read (`expected_of`); then per distinct
    shape its records expect (records of identical bytes may disagree)
    `(media: file -> arm, expected: file -> shape, policy, where, named: file
    -> the records naming it)` for `verifier.checks.coverage.judge_media`. The gates
    named by `coverage_gate` are loaded by `verifier.core` before the run
    (`ctx.options["coverage_gates"]`), so an unknown gate stops the run.
    """
    profile = _profile(ctx)
    tree = _tree(ctx)
    gates = ctx.options.get("coverage_gates", {})
    matched = ctx.data.get("matched", {})

    externals = ctx.data.get("externals_verified", {})  # listed files supplied by --artifacts whose bytes matched
    # a digest listed under several names (identical bytes published twice) names the first one whose bytes were matched
    by_digest = {sha.lower(): next((n for n in names if n in matched or n in externals), names[0])
                 for sha, names in ctx.data.get("listed_names", {}).items()}

    def where(name: str) -> Path | None:
        on_disk = matched.get(name)
        if on_disk is not None and tree.exists(on_disk[0]):
            return tree.root / on_disk[0]
        return Path(externals[name]) if name in externals else None

    for rid, spec in judged_sets(profile).items():
        mapping = spec["media"]
        shapes: dict[Expectation, tuple[dict[str, str | None], dict[str, Expectation], dict[str, list[str]]]] = {}  # shape -> (file -> arm, file -> shape, file -> records)
        for r in _records(ctx, rid):
            try:
                output = resolve(r.raw, mapping["pointer"])
            except KeyError:
                output = None
            if not isinstance(output, str):
                yield _f("coverage.streams", Status.UNVERIFIED, "media-absent", f"{r.path} {r.pointer}: names no output at {mapping['pointer']}",
                         path=r.path, pointer=r.pointer + mapping["pointer"], observed=output)
                continue
            output = _listed_as(r.raw, spec, output, by_digest)
            try:
                shape = expected_of(r.raw, mapping["expected"])
            except ValueError as exc:
                yield _f("coverage.streams", Status.UNVERIFIED, "expected-unreadable", f"{r.path} {r.pointer}: the expected shape of {output} "
                         f"cannot be read: {exc}", path=r.path, pointer=r.pointer)
                continue
            shapes.setdefault(shape, ({}, {}, {}))
            shapes[shape][0].setdefault(output, r.dims.get("arm"))
            shapes[shape][1][output] = shape
            shapes[shape][2].setdefault(output, []).append(f"{r.path} {r.pointer or ''}".rstrip())
        policy = policy_from_gate(gates[mapping["coverage_gate"]]["coverage"])
        for media, expected, named in shapes.values():  # a file two records expect differently is judged against each shape
            yield media, expected, policy, where, named


def named_by(finding: Finding, named: dict[str, list[str]]) -> Finding:
    """Return `finding` with the records that name its file (and expect the shape it was judged against) added to its message."""
    records = named.get(finding.path or "")
    if not records:
        return finding
    shown = ", ".join(records[:3]) + (f" and {len(records) - 3} more" if len(records) > 3 else "")
    return dataclasses.replace(finding, message=f"{finding.message} (named by {shown})")


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
