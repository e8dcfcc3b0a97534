"""
The evidence repository's own trust root: `verify.toml` (or `[tool.verify]` in `pyproject.toml`).

An evidence repository may keep its own gates, profiles and schemas beside
the ones this package ships. Its config file at the repository root names
where they are and which inventory pins them (all paths relative to the
repository root; these are the defaults `verify init` writes):

    gates = "verify/gates"
    profiles = "verify/profiles"
    schemas = "verify/schemas"
    inventory = "verify/inventory.json"

The inventory has the shape of the project's own `inventory.json`
(`schemas/inventory.schema.json`): `assets` maps every file under the three
directories (repository-relative path) to its sha256, and `scorer_weights`
lists the weights the repository's gates admit. Loading (`RepositoryTrust`)
applies the same rules as `verifier.trust.assets.Assets`: every file is pinned,
every pin exists, every digest matches, otherwise `PinMismatch` (exit 2).
An id (gate, profile, schema name) that a shipped asset already uses is a
`ConfigError` (exit 2), never a silent override.

Where the files are read from is a `Source`: the working tree, or a git
commit (`verify --trust-ref REF`, `GitCommit`), so a pull request is judged
by the trust root of its base, not by the one it edits; `changed_files`
names the trusted files the working tree changes relative to that commit.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from verifier.engine.derive import CAMPAIGN_STATISTICS, not_derivable
from verifier.errors import ConfigError, PinMismatch, UsageError
from verifier.formats.jsonio import MAX_DEPTH, JSONProblem, check_depth, loads_strict
from verifier.profiles.language import DETECTION, load_profile
from verifier.trust.assets import Assets, schema_validator
from verifier.schema.validation import filled

__all__ = ["CONFIG", "DEFAULTS", "Config", "GitCommit", "RepositoryTrust", "Source", "TrustSet", "WorkTree",
           "changed_files", "find_repository", "is_profile_file", "locate", "pins_for", "profile_origin", "profiles_listed"]

CONFIG = "verify.toml"
#: The keys of the config and their defaults (repository-relative POSIX paths).
DEFAULTS = {"gates": "verify/gates", "profiles": "verify/profiles", "schemas": "verify/schemas",
            "inventory": "verify/inventory.json"}
KINDS = ("gates", "profiles", "schemas")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Source(Protocol):
    """Where trusted files are read from: `read(rel)` -> bytes or None if absent; `files(dir)` -> repo-relative paths."""

    label: str

    def read(self, rel: str) -> bytes | None:
        """Return the bytes of repository-relative `rel`, or None when it is absent."""

    def files(self, directory: str) -> list[str]:
        """Return every regular file under `directory` (repository-relative, sorted); raises `ConfigError` on a symlink."""


class WorkTree:
    """Represents the trusted files as they are on disk under `root` (the working tree)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.label = "the working tree"

    def read(self, rel: str) -> bytes | None:
        """Return the file's bytes, None when absent; raises `ConfigError` for a symlink or a non-file."""
        path = self.root / rel
        if path.is_symlink():
            raise ConfigError(f"{path}: a trusted file must not be a symlink")
        if not path.exists():
            return None
        if not path.is_file():
            raise ConfigError(f"{path}: not a regular file")
        return path.read_bytes()

    def files(self, directory: str) -> list[str]:
        """Return the regular files under `directory` (no `__pycache__`); raises `ConfigError` on a symlink."""
        base = self.root / directory
        if base.is_symlink():
            raise ConfigError(f"{base}: a trusted directory must not be a symlink")
        if not base.is_dir():
            return []
        out = []
        for path in sorted(base.rglob("*")):
            if "__pycache__" in path.parts:
                continue
            if path.is_symlink():
                raise ConfigError(f"{path}: a trusted file must not be a symlink")
            if path.is_file():
                out.append(path.relative_to(self.root).as_posix())
        return out


class GitCommit:
    """
    Represents the trusted files as committed at `ref` in the git repository at `root` (read with `git`).

    Raises `UsageError` when `root` is not in a git repository or `ref` names no commit.
    Side effects: runs `git rev-parse`, `git ls-tree` and `git cat-file` (read-only).
    """

    def __init__(self, root: Path, ref: str) -> None:
        self.root = root
        self.ref = ref
        if ref.startswith("-"):
            raise UsageError(f"--trust-ref {ref!r}: not a git ref")
        out = self._git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", what=f"--trust-ref {ref}")
        self.commit = out.decode().strip()
        self.label = f"git {ref} ({self.commit[:12]})"
        self._tree: dict[str, tuple[str, str]] | None = None

    def _git(self, *args: str, what: str) -> bytes:
        try:
            import subprocess  # only with --trust-ref

            done = subprocess.run(["git", "-C", str(self.root), *args], capture_output=True, check=False)
        except OSError as exc:
            raise UsageError(f"{what}: cannot run git: {exc.strerror}") from None
        if done.returncode != 0:
            message = done.stderr.decode(errors="replace").strip().splitlines()
            raise UsageError(f"{what}: {message[-1] if message else 'no such commit'} (in {self.root})")
        return done.stdout

    def _entries(self) -> dict[str, tuple[str, str]]:
        if self._tree is None:
            raw = self._git("ls-tree", "-r", "-z", "--full-tree", self.commit, what=f"--trust-ref {self.ref}")
            tree = {}
            for item in raw.split(b"\0"):
                if not item:
                    continue
                meta, name = item.split(b"\t", 1)
                mode, _kind, obj = meta.decode().split()
                tree[name.decode("utf-8", errors="surrogateescape")] = (mode, obj)
            self._tree = tree
        return self._tree

    def read(self, rel: str) -> bytes | None:
        """Return the committed bytes of `rel`, None when absent; raises `ConfigError` for a committed symlink."""
        entry = self._entries().get(rel)
        if entry is None:
            return None
        if entry[0] == "120000":
            raise ConfigError(f"{rel} at {self.label}: a trusted file must not be a symlink")
        return self._git("cat-file", "blob", entry[1], what=f"{rel} at {self.label}")

    def files(self, directory: str) -> list[str]:
        """Return the committed files under `directory`; raises `ConfigError` on a committed symlink."""
        prefix = directory.rstrip("/") + "/"
        out = []
        for name, (mode, _obj) in sorted(self._entries().items()):
            if name.startswith(prefix) and "__pycache__" not in name.split("/"):
                if mode == "120000":
                    raise ConfigError(f"{name} at {self.label}: a trusted file must not be a symlink")
                out.append(name)
        return out


@dataclass(frozen=True, slots=True)
class Config:
    """Represents a parsed trust-root config: `file` (repo-relative) and the repo-relative `gates`, `profiles`, `schemas`, `inventory`."""

    file: str
    gates: str
    profiles: str
    schemas: str
    inventory: str

    def directory(self, kind: str) -> str:
        """Return the directory configured for `kind` (gates, profiles or schemas)."""
        return str(getattr(self, kind))


def _safe_rel(value: Any, key: str, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: `{key}` must be a non-empty string (a path relative to the repository root)")
    norm = posixpath.normpath(value)
    if value.startswith("/") or "\\" in value or norm == "." or norm.split("/")[0] == "..":
        raise ConfigError(f"{where}: `{key}` = {value!r} must be a relative path inside the repository")
    return norm


def read_config(source: Source) -> Config | None:
    """
    Return the trust-root config of `source`, or None when it has none.

    `verify.toml` wins over `[tool.verify]` in `pyproject.toml`; having both is
    a `ConfigError`, and so are unknown keys, paths leaving the repository,
    two kinds sharing a directory, and TOML that does not parse.
    """
    found: list[tuple[str, dict[str, Any]]] = []
    for name in (CONFIG, "pyproject.toml"):
        data = source.read(name)
        if data is None:
            continue
        try:
            document = tomllib.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
            if name == "pyproject.toml":
                continue  # not ours to judge unless it has [tool.verify]; a broken one cannot say so
            why = f"nested deeper than {MAX_DEPTH} levels" if isinstance(exc, RecursionError) else f"not valid TOML: {exc}"
            raise ConfigError(f"{name} ({source.label}): {why}") from None
        try:
            check_depth(document)  # tomllib recurses per level: past the cap, no reader of the config may recurse on it
        except JSONProblem:
            if name == "pyproject.toml" and "verify" not in (document.get("tool") or {}):
                continue
            raise ConfigError(f"{name} ({source.label}): nested deeper than {MAX_DEPTH} levels") from None
        if name == "pyproject.toml":
            tool = document.get("tool", {})
            if not isinstance(tool, dict) or "verify" not in tool:
                continue
            table = tool["verify"]
            name = "pyproject.toml [tool.verify]"
        else:
            table = document
        if not isinstance(table, dict):
            raise ConfigError(f"{name} ({source.label}): must be a table of {', '.join(DEFAULTS)}")
        found.append((name, table))
    if not found:
        return None
    if len(found) > 1:
        raise ConfigError(f"both verify.toml and pyproject.toml [tool.verify] exist ({source.label}); keep one")
    name, table = found[0]
    unknown = sorted(set(table) - set(DEFAULTS))
    if unknown:
        raise ConfigError(f"{name} ({source.label}): unknown key(s) {', '.join(unknown)}; known: {', '.join(DEFAULTS)}")
    values = {key: _safe_rel(table.get(key, default), key, f"{name} ({source.label})") for key, default in DEFAULTS.items()}
    dirs = [values[k] for k in KINDS]
    for i, a in enumerate(dirs):
        for j, b in enumerate(dirs):
            if i != j and (a == b or a.startswith(b + "/")):  # by position: two equal one-character names are one object
                raise ConfigError(f"{name} ({source.label}): the gates, profiles and schemas directories must be distinct")
    if any(values["inventory"].startswith(d + "/") for d in dirs):
        raise ConfigError(f"{name} ({source.label}): the inventory must not sit inside a pinned directory")
    return Config(file=name.split(" ")[0], **values)


def is_profile_file(value: str) -> bool:
    """Return whether a `--profile` value names a file (`./mine.json`, `a/b.json`) rather than a pinned profile id."""
    return value.endswith(".json") or "/" in value or os.sep in value


def find_repository(start: Path) -> Path | None:
    """
    Return the repository root above `start` that holds a trust-root config, or None.

    Walks up from `start` (a bundle, file or directory) and stops at the first
    directory holding `verify.toml` or a `pyproject.toml` with `[tool.verify]`,
    or at the first directory with a `.git` entry (the repository's top).
    """
    here = start.resolve()
    if not here.is_dir():
        here = here.parent
    for directory in [here, *here.parents]:
        if (directory / CONFIG).is_file():
            return directory
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            try:
                if "verify" in tomllib.loads(pyproject.read_text()).get("tool", {}):
                    return directory
            except (UnicodeDecodeError, tomllib.TOMLDecodeError, OSError, RecursionError):
                pass  # as `read_config` does: a pyproject.toml that does not parse is not a trust root
        if os.path.lexists(directory / ".git"):
            return None
    return None


def git_top(start: Path) -> Path:
    """Return the top of the git working tree holding `start`; raises `UsageError` when there is none."""
    here = start.resolve()
    if not here.is_dir():
        here = here.parent
    import subprocess  # only with --trust-ref

    done = subprocess.run(["git", "-C", str(here), "rev-parse", "--show-toplevel"], capture_output=True, check=False)
    if done.returncode != 0:
        raise UsageError(f"--trust-ref: {start} is not inside a git repository")
    return Path(done.stdout.decode().strip())


def pins_for(config: Config, source: Source) -> dict[str, str]:
    """Return `{repo-relative path: sha256}` of every file under the config's gates, profiles and schemas directories."""
    pins = {}
    for kind in KINDS:
        for rel in source.files(config.directory(kind)):
            data = source.read(rel)
            if data is not None:
                pins[rel] = _sha(data)
    return dict(sorted(pins.items()))


def scorer_weights_of(gates: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the weight files `gates` (id -> document) admit: `{name, sha256, gates}`, sorted (as `verifier.trust.assets.scorer_weights`)."""
    found: dict[tuple[str, str], set[str]] = {}
    for gid, gate in gates.items():
        scorers = (gate.get("quality") or {}).get("scorers", {}) if isinstance(gate, dict) else {}
        for pin in scorers.values() if isinstance(scorers, dict) else ():
            for w in pin.get("weights", []) if isinstance(pin, dict) else ():
                if isinstance(w, dict) and isinstance(w.get("name"), str) and isinstance(w.get("sha256"), str):
                    found.setdefault((w["name"], w["sha256"]), set()).add(gid)
    return [{"name": n, "sha256": h, "gates": sorted(g)} for (n, h), g in sorted(found.items())]


class RepositoryTrust:
    """
    Represents a repository's verified trust root: its gates, profiles and schemas, pinned by its inventory.

    Construction reads everything from `source`, checks every pin (raises
    `PinMismatch`), validates gates against the shipped `gate` schema, schemas
    as Draft 2020-12 and profiles through `verifier.profiles.language.load_profile`, and
    refuses an id a shipped asset already has (`ConfigError`). `where` is the
    repository root as the user gave it (for messages).
    """

    def __init__(self, root: Path, config: Config, source: Source, shipped: Assets) -> None:
        self.root = root
        self.config = config
        self.source = source
        where = f"{config.inventory} ({source.label})"
        raw = source.read(config.inventory)
        if raw is None:
            raise PinMismatch(f"{root / config.inventory}: the inventory named by {config.file} is absent ({source.label}); "
                              "run `verify pin`")
        try:
            inventory = loads_strict(raw)
        except JSONProblem as exc:
            raise ConfigError(f"{where}: {exc}") from None
        errors = sorted(schema_validator(shipped.schema("inventory")).iter_errors(inventory), key=str)
        if errors:
            raise ConfigError(f"{where}: {errors[0].message}")
        self.pins: dict[str, str] = dict(inventory["assets"])
        on_disk = pins_for(config, source)
        for rel in sorted(set(on_disk) - set(self.pins)):
            raise PinMismatch(f"{rel}: not pinned in {where}; run `verify pin` after a deliberate edit, refusing to start")
        for rel in sorted(set(self.pins) - set(on_disk)):
            raise PinMismatch(f"{rel}: pinned in {where} but absent; refusing to start")
        for rel in sorted(on_disk):
            if on_disk[rel] != self.pins[rel]:
                raise PinMismatch(f"{rel}: sha256 {on_disk[rel]} differs from the pin {self.pins[rel]} in {where}; "
                                  "the trust root differs from its pins (re-pin with `verify pin` after a deliberate edit), "
                                  "refusing to start")
        self.documents: dict[tuple[str, str], tuple[str, Any]] = {}
        gate_validator = schema_validator(shipped.schema("gate"))
        suffix = {"gates": ".json", "profiles": ".json", "schemas": ".schema.json"}
        for kind in KINDS:
            directory = config.directory(kind)
            for rel in sorted(on_disk):
                if not rel.startswith(directory + "/"):
                    continue
                name = rel[len(directory) + 1:]
                if "/" in name or not name.endswith(suffix[kind]):
                    raise ConfigError(f"{rel}: {directory}/ holds only <id>{suffix[kind]} files")
                ident = name[: -len(suffix[kind])]
                shipped_ids = {"gates": shipped.gate_ids(), "profiles": shipped.profile_ids(),
                               "schemas": [k[len("schemas/"):-len(".schema.json")] for k in shipped.pins
                                           if k.startswith("schemas/") and k.endswith(".schema.json")]}[kind]
                if ident in shipped_ids:
                    raise ConfigError(f"{rel}: {kind[:-1]} id {ident!r} is already shipped by verify; "
                                      "a repository cannot override a shipped one, choose another id")
                data = source.read(rel) or b""
                try:
                    document = loads_strict(data)  # strict first: no duplicate keys, NaN or bad UTF-8
                except JSONProblem as exc:
                    raise ConfigError(f"{rel} ({source.label}): {exc}") from None
                if kind != "profiles":
                    document = json.loads(data)  # gates and schemas as the shipped ones are read: floats, not Decimals
                if kind == "gates":
                    problems = sorted(gate_validator.iter_errors(document), key=str)
                    if problems:
                        raise ConfigError(f"{rel} ({source.label}): invalid gate: {problems[0].message}")
                    if refused := not_derivable(document.get("claims", []), CAMPAIGN_STATISTICS, "a native bundle's receipts"):
                        raise ConfigError(f"{rel} ({source.label}): invalid gate at /claims/{refused[0]}/statistic: {refused[1]}")
                    if document.get("id") != ident:
                        raise ConfigError(f"{rel}: its `id` must be {ident!r} (the file name)")
                elif kind == "schemas":
                    try:
                        document = filled(document)  # its `x-verify-enum` lists, as a shipped schema's
                        schema_validator(document)
                    except ConfigError as exc:
                        raise ConfigError(f"{rel} ({source.label}): {exc}") from None
                self.documents[(kind, ident)] = (rel, document)
        gates = {i: d for (k, i), (_r, d) in self.documents.items() if k == "gates"}
        admitted = scorer_weights_of(gates)
        if inventory.get("scorer_weights", []) != admitted:
            raise PinMismatch(f"{where}: scorer_weights differs from the weights the repository's gates admit "
                              f"{admitted}; re-pin with `verify pin`, refusing to start")
        for (kind, ident), (rel, document) in list(self.documents.items()):
            if kind == "profiles":
                if not isinstance(document, dict) or document.get("id") != ident:
                    raise ConfigError(f"{rel}: its `id` must be {ident!r} (the file name)")
                self.documents[(kind, ident)] = (rel, load_profile(document, shipped.schema("profile"), origin=rel))

    def ids(self, kind: str) -> list[str]:
        """Return the ids of this repository's assets of `kind` (gates, profiles, schemas), sorted."""
        return sorted(i for k, i in self.documents if k == kind)


class TrustSet:
    """
    Represents what judges evidence: the shipped `Assets` plus, optionally, a repository's `RepositoryTrust`.

    It offers the interface of `verifier.trust.assets.Assets` (`gate`, `has_gate`,
    `gate_ids`, `gate_sha256`, `profile`, `profile_ids`, `profile_sha256`,
    `schema`) over both, and `origin(kind, id)` says where one came from.
    `unpinned` holds profiles given as files (`--profile ./file.json`), judged
    but marked as unpinned in every report.
    """

    def __init__(self, shipped: Assets, repository: RepositoryTrust | None = None, *, ref: dict[str, str] | None = None,
                 changed: tuple[str, ...] = ()) -> None:
        self.shipped = shipped
        self.repository = repository
        self.ref = ref
        self.changed = changed
        #: `{ref, commit, changed}`: a plain run's trust root differs from the default branch's (`trustbase.differs`; set by the CLI)
        self.default: dict[str, Any] | None = None
        self.unpinned: dict[str, tuple[str, str, dict[str, Any]]] = {}

    def _repo(self, kind: str, ident: str) -> tuple[str, Any] | None:
        return self.repository.documents.get((kind, ident)) if self.repository else None

    def schema(self, name: str) -> dict[str, Any]:
        """Return the schema `name` (shipped first, then the repository's); raises `ConfigError` if absent."""
        hit = self._repo("schemas", name)
        return hit[1] if hit else self.shipped.schema(name)  # type: ignore[no-any-return]

    def gate_ids(self) -> list[str]:
        """Return every gate id: shipped and the repository's."""
        return sorted([*self.shipped.gate_ids(), *(self.repository.ids("gates") if self.repository else [])])

    def has_gate(self, gate_id: str) -> bool:
        """Return whether a pinned gate has this id."""
        return self.shipped.has_gate(gate_id) or self._repo("gates", gate_id) is not None

    def gate(self, gate_id: str) -> dict[str, Any]:
        """Return the parsed, validated gate; raises `ConfigError` for an unknown id."""
        hit = self._repo("gates", gate_id)
        return hit[1] if hit else self.shipped.gate(gate_id)  # type: ignore[no-any-return]

    def gate_sha256(self, gate_id: str) -> str:
        """Return the pinned sha256 of the gate file."""
        hit = self._repo("gates", gate_id)
        return self.repository.pins[hit[0]] if hit and self.repository else self.shipped.gate_sha256(gate_id)

    def profile_ids(self) -> list[str]:
        """Return every pinned profile id: shipped and the repository's (not unpinned ones)."""
        return sorted([*self.shipped.profile_ids(), *(self.repository.ids("profiles") if self.repository else [])])

    def profile(self, profile_id: str) -> dict[str, Any]:
        """Return the validated profile; raises `ConfigError` for an unknown id."""
        if profile_id in self.unpinned:
            return self.unpinned[profile_id][2]
        hit = self._repo("profiles", profile_id)
        return hit[1] if hit else self.shipped.profile(profile_id)  # type: ignore[no-any-return]

    def detection(self, profile_id: str) -> dict[str, Any]:
        """Return what detection reads of the profile (`verifier.trust.assets.Assets.detection`; a repository's or an unpinned one is validated whole already)."""
        if profile_id in self.unpinned or self._repo("profiles", profile_id):
            return {k: v for k, v in self.profile(profile_id).items() if k in DETECTION}
        return self.shipped.detection(profile_id)

    def profile_sha256(self, profile_id: str) -> str:
        """Return the sha256 of the profile file (pinned, or as read for an unpinned one)."""
        if profile_id in self.unpinned:
            return self.unpinned[profile_id][1]
        hit = self._repo("profiles", profile_id)
        return self.repository.pins[hit[0]] if hit and self.repository else self.shipped.profile_sha256(profile_id)

    def add_unpinned_profile(self, path: Path, *, label: str | None = None, own_id: bool = True) -> str:
        """
        Load the profile file at `path` (a draft, for local exploration), register it as unpinned; return its id.

        `label` names the file in errors (default `--profile PATH`). With
        `own_id` (`verify --profile`) its `id` must be a string no pinned
        profile has. Without it (`verify profile explain`, where authoring
        often starts from a copy of a shipped profile) a missing `id` is the
        file's stem and a pinned profile's id is allowed: the draft is
        registered under it in `unpinned`, which `profile`,
        `profile_sha256` and `origin` consult first, so `gate.pinned`
        reports `profile-unpinned` and never the shipped file's pin.
        Raises `UsageError` when it cannot be read, and `ConfigError` when it
        is not strict JSON, is invalid, or (with `own_id`) has no id of its own.
        """
        label = label or f"--profile {path}"
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise UsageError(f"{label}: cannot read the profile: {exc.strerror}") from None
        try:
            document = loads_strict(data)
        except JSONProblem as exc:
            raise ConfigError(f"{label}: not strict JSON: {exc}") from None
        pid = document.get("id") if isinstance(document, dict) else None
        if not own_id:
            pid = path.stem if pid is None else str(pid)
        elif not isinstance(pid, str):
            raise ConfigError(f"{label}: it has no `id` (a string); give it its own")
        elif pid in self.profile_ids():
            raise ConfigError(f"{label}: its `id` {pid!r} is a pinned profile's id; give it its own")
        self.unpinned[pid] = (str(path), _sha(data), load_profile(document, self.shipped.schema("profile"), origin=str(path)))
        return pid

    def origin(self, kind: str, ident: str) -> dict[str, Any]:
        """
        Return where gate or profile `ident` came from: `{kind, id, origin, path, sha256}` (+ `ref`, `commit`).

        `origin` is `shipped` (this package), `repository` (the repository's
        trust root, read from `ref` when given) or `unpinned` (a profile file
        given on the command line).
        """
        plural = kind + "s"
        if kind == "profile" and ident in self.unpinned:
            path, sha, _doc = self.unpinned[ident]
            return {"kind": kind, "id": ident, "origin": "unpinned", "path": path, "sha256": sha}
        hit = self._repo(plural, ident)
        if hit and self.repository:
            out: dict[str, Any] = {"kind": kind, "id": ident, "origin": "repository", "path": hit[0],
                                   "sha256": self.repository.pins[hit[0]]}
            if self.ref:
                out.update(self.ref)
            return out
        sha = self.shipped.gate_sha256(ident) if kind == "gate" else self.shipped.profile_sha256(ident)
        return {"kind": kind, "id": ident, "origin": "shipped", "path": f"{plural}/{ident}.json", "sha256": sha}

    def describe(self, used: list[tuple[str, str]]) -> dict[str, Any]:
        """Return the report's `trust` section for the (kind, id) pairs that judged it."""
        seen: list[dict[str, Any]] = []
        for kind, ident in used:
            entry = self.origin(kind, ident)
            if entry not in seen:
                seen.append(entry)
        out: dict[str, Any] = {"config": self.repository.config.file if self.repository else None,
                               "ref": dict(self.ref) if self.ref else None, "sources": seen, "changed": list(self.changed)}
        return {**out, "default": dict(self.default)} if self.default else out


def _trusted_files(config: Config | None, source: Source) -> dict[str, bytes]:
    """Return `{rel: bytes}` of the config file, the inventory and every file under the pinned directories."""
    names = [config.file] if config is not None else [CONFIG]
    rels = [*names, *([config.inventory, *pins_for(config, source)] if config is not None else [])]
    out = {}
    for rel in rels:
        data = source.read(rel)
        if data is not None:
            out[rel] = data
    return out


def changed_files(root: Path, base: Source, base_config: Config | None) -> tuple[str, ...]:
    """
    Return the trusted files (config, inventory, gates, profiles, schemas) whose working-tree bytes differ from `base`.

    Both sides' configs name what is trusted, so a file added under a new
    directory the working tree's config names is listed too. A working tree
    whose config does not parse lists the config file itself.
    """
    work = WorkTree(root)
    try:
        work_config = read_config(work)
    except ConfigError:
        return (CONFIG,)
    ours = _trusted_files(base_config, base)
    theirs = _trusted_files(work_config, work)
    for rel in list(ours):  # the working tree's version of a base-trusted file, wherever the new config points
        if rel not in theirs:
            try:
                data = work.read(rel)
            except ConfigError:
                data = b"<symlink>"
            if data is not None:
                theirs[rel] = data
    if base_config is not None:
        for rel in work.files(base_config.gates) + work.files(base_config.profiles) + work.files(base_config.schemas):
            theirs.setdefault(rel, work.read(rel) or b"")
    return tuple(sorted(rel for rel in set(ours) | set(theirs) if ours.get(rel) != theirs.get(rel)))


def locate(start: str | Path, *, ref: str | None = None, shipped: Assets) -> TrustSet:
    """
    Return the `TrustSet` for evidence at `start`: the shipped assets plus the repository's trust root, if any.

    Without `ref` the trust root is the working tree's (found by
    `find_repository`); with `ref` it is read from that git commit of the
    repository holding `start` (none there: shipped assets only), and
    `changed` lists the trusted files the working tree edits. Raises
    `UsageError` (no git repository, unknown ref), `ConfigError`/`PinMismatch`
    (a broken or unpinned trust root). Side effects: reads files; runs git with `ref`.
    """
    path = Path(start)
    if ref is None:
        root = find_repository(path)
        if root is None:
            return TrustSet(shipped)
        source: Source = WorkTree(root)
        config = read_config(source)
        if config is None:
            return TrustSet(shipped)
        return TrustSet(shipped, RepositoryTrust(root, config, source, shipped))
    root = git_top(path)
    commit = GitCommit(root, ref)
    config = read_config(commit)
    changed = changed_files(root, commit, config)
    repository = RepositoryTrust(root, config, commit, shipped) if config else None
    return TrustSet(shipped, repository, ref={"ref": ref, "commit": commit.commit}, changed=changed)


def profile_origin(trusted: Any, profile_id: str) -> str:
    """Return where profile `profile_id` comes from: `repository`, `shipped` or `unpinned` (`TrustSet.origin`; `shipped` for bare `Assets`)."""
    origin = getattr(trusted, "origin", None)
    return str(origin("profile", profile_id)["origin"]) if origin is not None else "shipped"


def profiles_listed(trusted: Any, ids: Any) -> str:
    """Return the profile ids `ids` as "repository profiles: a, b; shipped profiles: c, d" (a group only when it has ids; shipped always)."""
    groups: dict[str, list[str]] = {"repository": [], "shipped": []}
    for pid in sorted(ids):
        groups.setdefault(profile_origin(trusted, pid), []).append(pid)
    return "; ".join(f"{kind} profiles: {', '.join(pids) or 'none'}" for kind, pids in groups.items() if pids or kind == "shipped")
