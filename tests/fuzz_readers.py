"""
Byte-level fuzz targets for the readers issue 42 found unreached (claim texts, cache entries, trust roots, text-log grammars, reStructuredText, profile files, media container metadata).

Each target is a function of one `bytes` argument asserting the reader's
contract, so the same function serves two drivers:

- `tests/end_to_end/test_fuzz_readers.py`: a short Hypothesis pass in the suite (seed
  inputs with byte edits, and raw bytes);
- `tools/fuzz_cov.py`: the long coverage-guided pass under atheris
  (libFuzzer), starting from each target's seeds (docs/testing.md).

`TARGETS` maps a target's name to `(function, seeds)`; `CALLS` counts inputs tried per target.
Contracts: a reader returns a value or raises its own documented error
(`ClaimTextError`, `GrammarError`, `ConfigError`, `JSONProblem`,
`MediaUnreadable`); the cache reader returns a value or None (a bad entry is
a miss, docs/cache.md); demuxed media facts are judged, cached and figured;
a claim text that reads is bound against a tiny PASSing bundle with no
ERROR finding and every report format rendering.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
CALLS: Counter[str] = Counter()
_STATE: dict[str, Any] = {}


def _tiny() -> tuple[str, str]:
    """Return `(bundle, asset_root)`: the tiny PASSing bundle of `tests/helpers.py` and its asset root, built once per process."""
    if "tiny" not in _STATE:
        from helpers import make_assets, write_bundle

        tmp = Path(tempfile.mkdtemp(prefix="fuzz-readers-"))
        _STATE["tiny"] = (str(write_bundle(tmp / "b")), str(make_assets(tmp / "assets")))
    return _STATE["tiny"]


def claim_text(data: bytes) -> None:
    """Claim-text reader and binding (`verify --claims-text`): `ClaimTextError`, or a clean report of the tiny bundle."""
    from fuzz_targets import _report_is_clean

    from verifier.readers.claimtext import ClaimTextError, read_claim_text
    from verifier.core import verify_path

    CALLS["claim-text"] += 1
    try:
        text = read_claim_text(data, "pr.md")
    except ClaimTextError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("pr.md: ")
        return
    bundle, assets = _tiny()
    _report_is_clean(verify_path(bundle, asset_root=assets, claims_text=("pr.md", text)))


def cache_entry(data: bytes) -> None:
    """Cache entry reader (`verifier.cache.cachefs.read_entry`): any stored file is a value or a miss (None), never an exception."""
    from verifier.cache.cachefs import entry_path, read_entry

    CALLS["cache-entry"] += 1
    with tempfile.TemporaryDirectory() as tmp:
        for kind, key in (("digest", "k"), ("score", "k")):
            path = entry_path(Path(tmp), kind, key)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            os.chmod(path, 0o600)
            read_entry(Path(tmp), kind, key)


def trust_root(data: bytes) -> None:
    """Trust-root config reader (`verify.toml`, pyproject `[tool.verify]`): a `Config`, None, or one-line `ConfigError`."""
    from verifier.errors import ConfigError
    from verifier.trust.trustroot import WorkTree, read_config

    CALLS["trust-root"] += 1
    name = "pyproject.toml" if data[:1] in (b"[", b"#") and b"tool.verify" in data else "verify.toml"
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / name).write_bytes(data)
        try:
            read_config(WorkTree(Path(tmp)))
        except ConfigError as exc:
            assert "\n" not in str(exc), str(exc)


def _grammar_specs() -> list[dict[str, Any]]:
    """Return every receipt-set and claim-document grammar the shipped profiles declare, plus the bare encodings."""
    if "specs" not in _STATE:
        specs: list[dict[str, Any]] = [{"encoding": e} for e in ("json", "jsonl", "csv", "text", "markdown-table")]

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                if isinstance(node.get("encoding"), str):
                    specs.append({k: v for k, v in node.items() if k in ("encoding", "records", "columns", "lines", "prefix", "fold", "unpivot")})
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)

        for path in sorted((ROOT / "profiles").glob("*.json")):
            walk(json.loads(path.read_text()))
        _STATE["specs"] = [json.loads(s) for s in sorted({json.dumps(s, sort_keys=True) for s in specs})]
    return _STATE["specs"]


def grammars(data: bytes) -> None:
    """Text-log grammars (`verifier.readers.grammars.parse`, JSON Lines, CSV, text logs, Markdown tables): pairs or `GrammarError`; the first byte picks the grammar."""
    from verifier.readers.grammars import GrammarError, parse

    CALLS["grammars"] += 1
    specs = _grammar_specs()
    spec = specs[data[0] % len(specs)] if data else specs[0]
    try:
        pairs = parse(data[1:], spec)
    except GrammarError as exc:
        assert exc.code and "\n" not in str(exc), (exc.code, str(exc))
        return
    assert isinstance(pairs, list)
    for location, _record in pairs:
        assert isinstance(location, str)


def rst(data: bytes) -> None:
    """reStructuredText claim documents (`verifier.readers.rst_doc.rst_document`): a dict or `GrammarError`."""
    from verifier.readers.grammars import GrammarError
    from verifier.readers.rst_doc import rst_document

    CALLS["rst"] += 1
    try:
        document = rst_document(data)
    except GrammarError:
        return
    json.dumps(document, default=str)


def profile_file(data: bytes) -> None:
    """Profile files (strict JSON, then `verifier.profiles.language.load_profile`): a profile, `JSONProblem` or `ConfigError`."""
    from verifier.errors import ConfigError
    from verifier.formats.jsonio import JSONProblem, loads_strict
    from verifier.profiles.language import load_profile
    from verifier.trust.assets import assets

    CALLS["profile-file"] += 1
    try:
        document = loads_strict(data)
        load_profile(document, assets().schema("profile"), origin="fuzz.json")
    except (JSONProblem, ConfigError):
        return


#: The suffixes a media file of a bundle may carry under the containers the product admits
#: (`verifier.media.policy.KNOWN_CONTAINERS`: FFmpeg's `mov,mp4,m4a,3gp,3g2,mj2` and `matroska,webm` demuxers).
MEDIA_SUFFIXES = (".mp4", ".m4a", ".mov", ".3gp", ".mkv", ".webm")


def _media_setting() -> tuple[Any, Any]:
    """Return `(expectation, policy)`: the shipped gate `ref2va-5s-v1`'s coverage section with every admitted container."""
    if "media" not in _STATE:
        import dataclasses

        from verifier.media.policy import KNOWN_CONTAINERS, Expectation, policy_from_gate

        section = json.loads((ROOT / "gates" / "ref2va-5s-v1.json").read_text())["coverage"]
        policy = dataclasses.replace(policy_from_gate(section), containers=KNOWN_CONTAINERS)
        _STATE["media"] = (Expectation.from_plan(section["expected_output"]), policy)
    return _STATE["media"]


def media_metadata(data: bytes) -> None:
    """
    Media container metadata (`verifier.media.demux.probe`, then `coverage.judge`): `MediaFacts` or a one-line `MediaUnreadable`.

    The bytes are written as a bundle's media file, its suffix picked by the
    first byte among `MEDIA_SUFFIXES` (FFmpeg probes the content: the suffix
    only names the file), and probed as `coverage.check_file` does; the
    facts must judge to PASS/FAIL findings naming the file, survive the
    warm cache's JSON round trip (`to_json`, `from_json`) judging alike, and
    give a coverage figure row.
    """
    from verifier.checks import figures
    from verifier.checks.coverage import MediaFacts, MediaUnreadable, judge, probe
    from verifier.model.findings import Status

    CALLS["media-metadata"] += 1
    exp, policy = _media_setting()
    name = "media/out" + (MEDIA_SUFFIXES[data[0] % len(MEDIA_SUFFIXES)] if data else ".mp4")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / Path(name).name
        path.write_bytes(data)
        try:
            facts = probe(path, name, exp, policy)
        except MediaUnreadable as exc:
            assert exc.code in ("media-unreadable", "work-limit") and str(exc) and "\n" not in str(exc), (exc.code, str(exc))
            return
    findings = judge(facts, exp, policy)
    assert findings and all(f.status in (Status.PASS, Status.FAIL) and f.path == name for f in findings), findings
    stored = json.loads(json.dumps(facts.to_json()))
    assert judge(MediaFacts.from_json(stored, name), exp, policy) == findings
    json.dumps(figures.coverage_entry(name, None, facts, exp.duration))


def _media_seeds() -> list[bytes]:
    """Return the media seeds: a real clip of the example bundle, read in place, and three clips of `tests/media/make_clips.py` (Matroska, WebM, audio only)."""
    if "media-seeds" not in _STATE:
        import importlib.util

        spec = importlib.util.spec_from_file_location("make_clips", ROOT / "tests" / "media" / "make_clips.py")
        make_clips = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(make_clips)
        with tempfile.TemporaryDirectory() as tmp:
            clips = make_clips.make_all(Path(tmp), ["h17_webm", "absurd_start", "no_video"])
            made = [clips[n].read_bytes() for n in ("h17_webm", "absurd_start", "no_video")]
        _STATE["media-seeds"] = [(ROOT / "examples" / "ref2va-5s" / "media" / "A1-w2.mp4").read_bytes(), *made]
    return _STATE["media-seeds"]


_RST = b"""Results
=======

The candidate took 108.12 s (baseline 407.27 s), 3.8x faster.

.. list-table:: runs
   :header-rows: 1

   * - arm
     - mean_s
   * - baseline
     - 407.27
   * - candidate
     - 108.12

- nested

  - 1.5 ms
"""


def _seeds() -> dict[str, list[bytes]]:
    """Return the seed inputs of each target: real files of the project where there are some, small hand-written ones otherwise."""
    profiles = sorted((ROOT / "profiles").glob("*.json"))
    grammar_seeds = [b"\x00" + (ROOT / "tests" / "fixtures" / "vllm" / "abcd-bucket-peak.json").read_bytes()[:800],
                     b"\x01" + b'{"a": 1}\n{"a": 2}\n', b"\x02" + b"arm,mean_s\nbaseline,407.27\ncandidate,108.12\n",
                     b"\x03" + b"Scenario : Offline\nSamples per second : 1234.5\nResult is : VALID\n",
                     b"\x04" + b":::MLLOG {\"key\": \"result_validity\", \"value\": \"VALID\"}\n",
                     b"\x05" + b"| arm | mean_s |\n|---|---|\n| baseline | 407.27 |\n"]
    return {
        "claim-text": [b"The candidate mean is 108.12 s, down from 407.27 s (3.8x faster).\n",
                       b"# Results\n\n| arm | mean |\n|---|---|\n| baseline | 10.0 s |\n\nSee `run 7` at https://x.org/1.\n",
                       b"candidate mean 9.0e1 s; 95 % CI [1, 2]\n"],
        "cache-entry": [json.dumps({"kind": "digest", "key": "k", "value": [12, "ab" * 32]}).encode(),
                        json.dumps({"kind": "score", "key": "k", "value": {"ssim": 0.97}}).encode(), b"[" * 70 + b"]" * 70],
        "trust-root": [b'gates = "gates"\nprofiles = "profiles"\nschemas = "schemas"\ninventory = "inventory.json"\n',
                       b'[tool.verify]\ngates = "ci/gates"\n', (ROOT / "pyproject.toml").read_bytes()[:1500]],
        "grammars": grammar_seeds,
        "rst": [_RST],
        "profile-file": [p.read_bytes() for p in profiles[:3]],
    }


TARGETS: dict[str, tuple[Callable[[bytes], None], Callable[[], list[bytes]]]] = {
    "claim-text": (claim_text, lambda: _seeds()["claim-text"]),
    "cache-entry": (cache_entry, lambda: _seeds()["cache-entry"]),
    "trust-root": (trust_root, lambda: _seeds()["trust-root"]),
    "grammars": (grammars, lambda: _seeds()["grammars"]),
    "rst": (rst, lambda: _seeds()["rst"]),
    "profile-file": (profile_file, lambda: _seeds()["profile-file"]),
    "media-metadata": (media_metadata, _media_seeds),
}
