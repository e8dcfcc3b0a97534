"""
Our own frozen assets: `inventory.json`, `schemas/`, `gates/`.

Before any evidence is read, every file under `schemas/`, `gates/` and `profiles/` must be
pinned by `inventory.json` with a matching sha256, and every pinned file must
exist. The inventory's `scorer_weights` section lists every scorer weight
file a gate admits (name, sha256, the gates pinning it) and must equal what
the pinned gates say, so the admitted weights are readable in one place. Any difference raises `PinMismatch` and the CLI refuses to start (exit
2). The assets are found in the installed wheel (`verifier/_assets/`) or, in a
source checkout, at the project root.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier.errors import ConfigError, PinMismatch
from verifier.profiles.language import load_detection, load_profile
from verifier.schema.validation import DRAFT_2020_12, REQUIRED_FORMATS, filled, schema_validator, unknown_formats  # noqa: F401 - re-exported

if TYPE_CHECKING:
    from verifier.cache.warm import Cache

__all__ = ["Assets", "assets", "load_all", "schema_validator", "unknown_formats", "use_cache"]


def _default_root() -> Path:
    packaged = Path(__file__).resolve().parents[1] / "_assets"
    if (packaged / "inventory.json").is_file():
        return packaged
    source = Path(__file__).resolve().parents[2]
    if (source / "inventory.json").is_file():
        return source
    raise ConfigError(
        f"inventory.json not found in {packaged} or {source}: the installation is incomplete"
    )


def sha256_file(path: Path) -> str:
    """Return the hex sha256 of the file at `path`, streaming (no whole-file read)."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


class Assets:
    """
    Represents the verified set of our frozen assets under `root`.

    Construction checks every pin (see module docstring) and raises
    `PinMismatch` or `ConfigError`. `gate(id)` and `schema(name)` return parsed
    documents; `gate_sha256(id)` the pinned digest. With a warm re-verify
    `cache` (`verifier.cache.warm`, docs/cache.md), a check that passed in an
    earlier run is not repeated while the identity (device, inode, size,
    mtime, ctime) of `inventory.json` and of every file under the pinned
    directories is unchanged, with the same verifier code and installed
    packages; any change to any of them runs the whole check again. A gate's
    validity against the gate schema is remembered by both files' sha256.
    """

    PINNED_DIRS = ("schemas", "gates", "profiles")

    def __init__(self, root: Path, cache: Cache | None = None) -> None:
        self.root = root
        self.cache = cache
        inventory_path = root / "inventory.json"
        try:
            self.inventory = json.loads(inventory_path.read_bytes())
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{inventory_path}: cannot read the inventory: {exc}") from None
        pins = self.inventory.get("assets") if isinstance(self.inventory, dict) else None
        if not isinstance(pins, dict):
            raise ConfigError(f"{inventory_path}: no 'assets' object of path -> sha256")
        self.pins: dict[str, str] = pins
        on_disk = {
            p.relative_to(root).as_posix()
            for d in self.PINNED_DIRS
            if (root / d).is_dir()
            for p in (root / d).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
        pinned_here = {k for k in pins if k.split("/", 1)[0] in self.PINNED_DIRS}
        for rel in sorted(on_disk - pinned_here):
            raise PinMismatch(f"{root / rel}: not pinned in {inventory_path}; refusing to start")
        for rel in sorted(pinned_here - on_disk):
            raise PinMismatch(f"{root / rel}: pinned in {inventory_path} but absent; refusing to start")
        key = self._identities_key(["inventory.json", *sorted(pinned_here)])
        if key is not None and cache is not None and cache.result(key) is not None:
            return  # checked by an earlier run, and not one of these files changed since (see the class docstring)
        self._check_pins(pinned_here)
        if key is not None and cache is not None and key == self._identities_key(["inventory.json", *sorted(pinned_here)]):
            cache.store_result(key, "verified")  # unchanged while it was checked

    def _identities_key(self, rels: list[str]) -> str | None:
        """Return the cache key of the asset check over files `rels` (their identities), or None without a cache or when one is racy."""
        if self.cache is None:
            return None
        from verifier.cache.warm import file_identity, result_key

        now = time.time_ns()
        identities = []
        for rel in rels:
            try:
                identity = file_identity(os.stat(self.root / rel), now)
            except OSError:
                return None
            if identity is None:
                return None  # changed in the last moments: check it, remember nothing
            identities.append([rel, *identity])
        return result_key("assets-verified", str(self.root.resolve()), identities)

    def _check_pins(self, pinned_here: set[str]) -> None:
        """Hash every pinned file against its pin, compile every schema, compare the admitted scorer weights; raise on any difference."""
        root, pins, inventory_path = self.root, self.pins, self.root / "inventory.json"
        for rel in sorted(pinned_here):
            try:
                got = sha256_file(root / rel)
            except OSError as exc:
                raise ConfigError(f"{root / rel}: cannot read this pinned asset: {exc.strerror or exc}") from None
            if got != pins[rel]:
                raise PinMismatch(
                    f"{root / rel}: sha256 {got} differs from the pin {pins[rel]} in "
                    f"{inventory_path}; a frozen asset was edited, refusing to start"
                )
        for rel in sorted(k for k in pinned_here if k.startswith("schemas/") and k.endswith(".json")):
            # every shipped schema is compiled once at start-up: a typo in a `format` name stops here, like a pin mismatch
            try:
                schema_validator(self._load(rel))
            except ConfigError as exc:
                raise ConfigError(f"{root / rel}: {exc}") from None
        admitted = scorer_weights(root)
        if self.inventory.get("scorer_weights", []) != admitted:
            raise PinMismatch(
                f"{inventory_path}: scorer_weights {self.inventory.get('scorer_weights', [])} differs from the weights "
                f"the gates admit {admitted}; re-pin with `python -m verifier.trust`, refusing to start"
            )

    def _load(self, rel: str) -> Any:
        try:
            return json.loads((self.root / rel).read_bytes())
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{self.root / rel}: {exc}") from None

    def schema(self, name: str) -> dict[str, Any]:
        """
        Return the parsed schema `schemas/<name>.schema.json`, its `x-verify-enum` lists filled (`validation.filled`).

        Raises `ConfigError` naming the file if it is absent or names no list of `stats.SCHEMA_ENUMS`.
        """
        rel = f"schemas/{name}.schema.json"
        if rel not in self.pins:
            raise ConfigError(f"{self.root / rel}: no such schema")
        try:
            return filled(self._load(rel))  # type: ignore[no-any-return]
        except ConfigError as exc:
            raise ConfigError(f"{self.root / rel}: {exc}") from None

    def gate_ids(self) -> list[str]:
        """Return the ids of all shipped gates (file stem of `gates/*.json`)."""
        return sorted(Path(k).stem for k in self.pins if k.startswith("gates/") and k.endswith(".json"))

    def has_gate(self, gate_id: str) -> bool:
        """Return whether a gate with this id is shipped and pinned."""
        return f"gates/{gate_id}.json" in self.pins

    def gate(self, gate_id: str) -> dict[str, Any]:
        """Return the parsed gate `gates/<gate_id>.json`, validated against `gate.schema.json`.

        Raises `ConfigError` for an unknown id, an unreadable or invalid file,
        or a claim rule naming a statistic of the vocabulary a native campaign
        cannot derive (`derive.CAMPAIGN_STATISTICS`)."""
        rel = f"gates/{gate_id}.json"
        if rel not in self.pins:
            raise ConfigError(f"unknown gate {gate_id!r}; shipped gates: {', '.join(self.gate_ids())}")
        try:
            data = (self.root / rel).read_bytes()
            document = json.loads(data)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{self.root / rel}: {exc}") from None
        except RecursionError:
            raise ConfigError(f"{self.root / rel}: nested too deeply to be a gate") from None
        schema = self.schema("gate")
        from verifier.schema.validation import known_valid, note_valid

        if known_valid(self.cache, schema, hashlib.sha256(data).hexdigest()) is None:
            errors = sorted(schema_validator(schema).iter_errors(document), key=str)
            if errors:
                raise ConfigError(f"{self.root / rel}: invalid gate: {errors[0].message}")
            note_valid(self.cache, schema, hashlib.sha256(data).hexdigest())
        from verifier.engine.derive import CAMPAIGN_STATISTICS, not_derivable

        if refused := not_derivable(document.get("claims", []), CAMPAIGN_STATISTICS, "a native bundle's receipts"):
            raise ConfigError(f"{self.root / rel}: invalid gate at /claims/{refused[0]}/statistic: {refused[1]}")
        return document  # type: ignore[no-any-return]

    def gate_sha256(self, gate_id: str) -> str:
        """Return the pinned sha256 of a gate file."""
        return self.pins[f"gates/{gate_id}.json"]

    def profile_ids(self) -> list[str]:
        """Return the ids of all shipped profiles (file stem of `profiles/*.json`)."""
        return sorted(Path(k).stem for k in self.pins if k.startswith("profiles/") and k.endswith(".json"))

    def profile(self, profile_id: str) -> dict[str, Any]:
        """
        Return the shipped profile `profiles/<profile_id>.json`, validated (see `verifier.profiles.language.load_profile`).

        A copy the caller may change. Raises `ConfigError` for an unknown id
        or a profile that fails its schema or cross-references (its pin was
        already checked at construction).
        """
        rel = self._profile_rel(profile_id)
        # validated once per process (`verify inventory` asks again per bundle); callers get their own copy (`_copy_json`)
        memo = self.__dict__.setdefault("_validated_profiles", {})
        if rel not in memo:
            memo[rel] = load_profile(self._read_profile(rel, profile_id), self.schema("profile"), origin=str(self.root / rel))
        return _copy_json(memo[rel])  # type: ignore[no-any-return]

    def detection(self, profile_id: str) -> dict[str, Any]:
        """
        Return what detection reads of shipped profile `profile_id` (`verifier.profiles.language.load_detection`), which the caller must not change.

        Read once per process; the rest of the profile is validated only when
        `profile` is asked for it. Raises `ConfigError` for an unknown id or
        detection members that fail the profile schema.
        """
        rel = self._profile_rel(profile_id)
        memo = self.__dict__.setdefault("_detections", {})
        if rel not in memo:
            memo[rel] = load_detection(self._read_profile(rel, profile_id), self.schema("profile"), origin=str(self.root / rel))
        return memo[rel]  # type: ignore[no-any-return]

    def _profile_rel(self, profile_id: str) -> str:
        rel = f"profiles/{profile_id}.json"
        if rel not in self.pins:
            raise ConfigError(f"unknown profile {profile_id!r}; shipped profiles: {', '.join(self.profile_ids()) or 'none'}")
        return rel

    def _read_profile(self, rel: str, profile_id: str) -> dict[str, Any]:
        from verifier.formats.jsonio import JSONProblem, loads_strict

        try:
            document = loads_strict((self.root / rel).read_bytes())
        except (OSError, JSONProblem) as exc:
            raise ConfigError(f"{self.root / rel}: {exc}") from None
        if not isinstance(document, dict) or document.get("id") != profile_id:
            raise ConfigError(f"{self.root / rel}: its `id` must be {profile_id!r} (the file name)")
        return document

    def profile_sha256(self, profile_id: str) -> str:
        """Return the pinned sha256 of a profile file."""
        return self.pins[f"profiles/{profile_id}.json"]


def _copy_json(node: Any) -> Any:
    """Return a copy of a JSON-like document (dicts and lists copied, scalars shared: they are immutable); a few times faster than `copy.deepcopy`."""
    if isinstance(node, dict):
        return {k: _copy_json(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_copy_json(v) for v in node]
    return node


_ASSETS: dict[str | None, Assets] = {}
_RUN_CACHE: list[Cache] = []


def use_cache(cache: Cache | None) -> None:
    """Let `assets()` check with the warm re-verify `cache` (None: without one); the CLI sets it around its call."""
    _RUN_CACHE[:] = [cache] if cache is not None else []


def assets(root: str | None = None) -> Assets:
    """
    Return the verified `Assets` under `root` (default: the installed ones), checked once per process and root.

    The first check uses the warm re-verify cache set by `use_cache`, if
    any; the result does not depend on it. Raises `PinMismatch`/`ConfigError`.
    `assets.cache_clear()` forgets the checked roots.
    """
    if root not in _ASSETS:
        _ASSETS[root] = Assets(Path(root) if root else _default_root(), cache=_RUN_CACHE[0] if _RUN_CACHE else None)
    return _ASSETS[root]


assets.cache_clear = _ASSETS.clear  # type: ignore[attr-defined]


def scorer_weights(root: Path) -> list[dict[str, Any]]:
    """
    Return every scorer weight file the gates under `root/gates` admit: `{name, sha256, gates}`, sorted.

    Read from each gate's `quality.scorers.*.weights`; a gate that cannot be
    read, is not JSON or is not shaped as a gate there contributes nothing
    here (its pin check or its schema, when the gate is loaded, reports it).
    """
    found: dict[tuple[str, str], set[str]] = {}
    for path in sorted((root / "gates").glob("*.json")):
        try:
            gate = json.loads(path.read_bytes())
        except (OSError, ValueError, RecursionError):
            continue
        quality = gate.get("quality") if isinstance(gate, dict) else None
        scorers = quality.get("scorers") if isinstance(quality, dict) else None
        for pin in scorers.values() if isinstance(scorers, dict) else ():
            weights = pin.get("weights") if isinstance(pin, dict) else None
            for w in weights if isinstance(weights, list) else ():
                if isinstance(w, dict) and isinstance(w.get("name"), str) and isinstance(w.get("sha256"), str):
                    found.setdefault((w["name"], w["sha256"]), set()).add(path.stem)
    return [{"name": n, "sha256": h, "gates": sorted(g)} for (n, h), g in sorted(found.items())]


def write_inventory(root: Path) -> dict[str, str]:
    """
    Re-pin every file under `root/schemas`, `root/gates` and `root/profiles` into `root/inventory.json`.

    A maintainer action (`python -m verifier.trust ROOT`), run after a
    deliberate change to a frozen asset; keeps other inventory sections.
    Side effects: writes `inventory.json`. Returns the new pins. Raises
    `ConfigError` naming the file when the current inventory is not a JSON
    object, or a file cannot be read or written.
    """
    path = root / "inventory.json"
    try:
        current = json.loads(path.read_bytes()) if path.exists() else {"inventory_version": 1}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot read the inventory: {exc}") from None
    if not isinstance(current, dict):
        raise ConfigError(f"{path}: the inventory is not a JSON object, so its other sections cannot be kept")
    pins = {}
    for d in Assets.PINNED_DIRS:
        for p in sorted((root / d).rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                try:
                    pins[p.relative_to(root).as_posix()] = sha256_file(p)
                except OSError as exc:
                    raise ConfigError(f"{p}: cannot read it to pin it: {exc.strerror or exc}") from None
    current["assets"] = dict(sorted(pins.items()))
    current["scorer_weights"] = scorer_weights(root)
    try:
        path.write_text(json.dumps(current, indent=2) + "\n")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write the inventory: {exc.strerror or exc}") from None
    return pins


def load_all(root: Path) -> Assets:
    """
    Return `Assets(root)` after loading every pinned gate and profile, each validated as a run would (`gate`, `profile`).

    The schema files name their statistic lists (`x-verify-enum`, filled when
    read: `verifier.schema.validation.filled`), which a validator reading them as
    they are (check-jsonschema) does not know: it cannot refuse an unknown
    statistic, and reads an `if` naming a list as matching every value.
    Raises `ConfigError` naming the first file that fails its pin or its schema.
    """
    loaded = Assets(root)
    for gate_id in loaded.gate_ids():
        loaded.gate(gate_id)
    for profile_id in loaded.profile_ids():
        loaded.profile(profile_id)
    return loaded


def main(argv: list[str]) -> int:
    """
    Run `python -m verifier.trust [--check] [ROOT]`: re-pin (default) or only check the pins.

    Both load every gate and profile against the schemas (`load_all`).
    `--check` writes nothing and returns 2 with a one-line message when a pin
    does not hold or an asset is invalid (used by pre-commit); re-pinning
    prints the new pins, or returns 2 naming the invalid asset and leaves
    `inventory.json` as it was.
    Side effects: without `--check`, writes `ROOT/inventory.json`. A ROOT with
    none of `schemas/`, `gates/`, `profiles/` is refused (exit 2, nothing
    written): pinning an empty set there would be a silent mistake.
    """
    check_only = "--check" in argv
    args = [a for a in argv if a != "--check"]
    root = Path(args[0] if args else ".")
    if not any((root / sub).is_dir() for sub in ("schemas", "gates", "profiles")):
        print(f"verify: error: {root}: no schemas/, gates/ or profiles/ here, so there is nothing to pin "
              "(run it at the root of this project or of a copy of its assets)", file=sys.stderr)
        return 2
    if check_only:
        try:
            load_all(root)
        except ConfigError as exc:
            print(f"verify: error: {exc}", file=sys.stderr)
            return 2
        print(f"verify: {root / 'inventory.json'}: every schema, gate and profile matches its pin and its schema")
        return 0
    path = root / "inventory.json"
    try:
        before = path.read_bytes() if path.is_file() else None
        pins = write_inventory(root)
    except (ConfigError, OSError) as exc:
        print(f"verify: error: {exc}; inventory.json was left as it was", file=sys.stderr)
        return 2
    try:
        load_all(root)
    except ConfigError as exc:
        try:
            if before is None:
                path.unlink()
            else:
                path.write_bytes(before)
        except OSError as undo:
            print(f"verify: error: {exc}; and {path} could not be restored: {undo}", file=sys.stderr)
            return 2
        print(f"verify: error: {exc}; inventory.json was left as it was", file=sys.stderr)
        return 2
    for key, value in pins.items():
        print(value, key)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
