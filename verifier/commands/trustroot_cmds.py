"""
The maintainer actions on an evidence repository's trust root: `verify init`, `verify pin`, `verify gate new`.

These are the only commands besides `verify manifest --write` that write,
and they write only the trust root (`verify.toml`, its inventory, a new gate
file) and, for `init`, an empty `evidence-inventory.json` when none exists.
They never write into a bundle. See `verifier.trust.trustroot` for the format.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from verifier.errors import ConfigError, UsageError
from verifier.formats.jsonio import JSONProblem, loads_strict
from verifier.trust.assets import Assets
from verifier.trust.trustroot import (
    CONFIG,
    DEFAULTS,
    Config,
    RepositoryTrust,
    Source,
    TrustSet,
    WorkTree,
    find_repository,
    pins_for,
    read_config,
    scorer_weights_of,
)

__all__ = ["init", "new_gate", "pin"]

CONFIG_TEXT = """\
# This evidence repository's trust root (read by `verify`, see its docs/trust-root.md).
# Gates, profiles and schemas here judge the bundles beside the ones verify ships; every file
# under these directories is pinned by sha256 in `inventory`. After a deliberate edit: `verify pin`.
# In pull requests, `verify --trust-ref BASE` (the GitHub Action's default) judges by BASE's versions.
gates = "{gates}"
profiles = "{profiles}"
schemas = "{schemas}"
inventory = "{inventory}"
"""


def _repository(root: str) -> tuple[Path, Config]:
    path = Path(root)
    if not path.is_dir():
        raise UsageError(f"{root}: not a directory")
    found = find_repository(path)
    if found is None:
        raise UsageError(f"{root}: no verify.toml (or pyproject.toml [tool.verify]) here or above; run `verify init` first")
    config = read_config(WorkTree(found))
    if config is None:  # pragma: no cover - find_repository found one
        raise UsageError(f"{found}: no trust-root config")
    return found, config


def init(root: str) -> list[str]:
    """
    Write a trust root into the repository at `root`: `verify.toml`, an empty pin inventory, the three directories.

    Also writes an empty `evidence-inventory.json` when there is none. Returns
    the paths written (relative to `root`). Raises `UsageError` when `root` is
    not a directory or already has a trust-root config.
    Side effects: writes files and directories under `root`.
    """
    base = Path(root)
    if not base.is_dir():
        raise UsageError(f"{root}: not a directory")
    if read_config(WorkTree(base)) is not None or (base / CONFIG).exists():
        raise UsageError(f"{root}: already has a trust root (verify.toml or pyproject.toml [tool.verify]); edit it instead")
    written = []
    for key in ("gates", "profiles", "schemas"):
        (base / DEFAULTS[key]).mkdir(parents=True, exist_ok=True)
        written.append(DEFAULTS[key] + "/")
    inventory = base / DEFAULTS["inventory"]
    inventory.parent.mkdir(parents=True, exist_ok=True)
    inventory.write_text(json.dumps({"inventory_version": 1, "assets": {}, "scorer_weights": []}, indent=2) + "\n")
    written.append(DEFAULTS["inventory"])
    (base / CONFIG).write_text(CONFIG_TEXT.format(**DEFAULTS))
    written.append(CONFIG)
    evidence_inventory = base / "evidence-inventory.json"
    if not evidence_inventory.exists():
        evidence_inventory.write_text(json.dumps({"format": "verify-evidence-inventory", "format_version": 1,
                                                  "bundles": {}}, indent=2) + "\n")
        written.append("evidence-inventory.json")
    return written


class _Overlay:
    """A `Source` that answers `replaced` paths from memory and everything else from `inner`."""

    def __init__(self, inner: Source, replaced: dict[str, bytes]) -> None:
        self.inner = inner
        self.replaced = replaced
        self.label = inner.label

    def read(self, rel: str) -> bytes | None:
        return self.replaced[rel] if rel in self.replaced else self.inner.read(rel)

    def files(self, directory: str) -> list[str]:
        return self.inner.files(directory)


def pin(root: str, shipped: Assets) -> tuple[Path, dict[str, str]]:
    """
    Re-pin the trust root of the repository at or above `root`: every gate, profile and schema file, and the admitted weights.

    The new inventory is checked (gates and schemas valid, profiles load,
    no id collides with a shipped one) before it is written, so a broken
    trust root is never pinned. Returns `(inventory path, pins)`. Raises
    `UsageError` without a config, `ConfigError` for an invalid asset.
    Side effects: writes the inventory file only.
    """
    found, config = _repository(root)
    source = WorkTree(found)
    pins = pins_for(config, source)
    gates: dict[str, Any] = {}
    for rel in pins:
        if rel.startswith(config.gates + "/") and rel.endswith(".json"):
            try:
                gates[Path(rel).stem] = loads_strict(source.read(rel) or b"")
            except JSONProblem as exc:
                raise ConfigError(f"{rel}: {exc}; nothing was pinned") from None
    path = found / config.inventory
    current: dict[str, Any] = {"inventory_version": 1}
    if path.is_file():
        try:
            previous = loads_strict(path.read_bytes())
            if isinstance(previous, dict):
                current = previous
        except JSONProblem:
            pass
    current["inventory_version"] = 1
    current["assets"] = pins
    current["scorer_weights"] = scorer_weights_of(gates)
    text = json.dumps(current, indent=2) + "\n"
    try:
        RepositoryTrust(found, config, _Overlay(source, {config.inventory: text.encode()}), shipped)
    except ConfigError as exc:
        raise ConfigError(f"{exc.diagnostics()}; nothing was pinned") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path, pins


def new_gate(root: str, gate_id: str, bundle: str, trusted: TrustSet, like: str | None = None) -> Path:
    """
    Write `<gates dir>/<gate_id>.json`: the gate the bundle names (or `like`), with the plan facts of `bundle`'s `plan.json`.

    Taken from the plan: `plan.arm_order`, `servers_per_arm` (every arm must
    have the same count), `warmups_per_server`, `measured_per_server`,
    `coverage.expected_output` (frames, fps, sample_rate, channels) and, when
    the bundle has a quality index, `quality.comparisons`. Thresholds,
    claims and scorers are the template's: review them, then `verify pin`.
    Raises `UsageError` for an existing or shipped id, an unreadable plan,
    or an unknown template. Side effects: writes the gate file only (never
    into the bundle).
    """
    found, config = _repository(root)
    if not gate_id or "/" in gate_id or gate_id.startswith(".") or not gate_id.replace("-", "").replace(".", "").replace("_", "").isalnum():
        raise UsageError(f"gate id {gate_id!r}: use letters, digits, '-', '_' and '.'")
    target = found / config.gates / f"{gate_id}.json"
    if target.exists() or trusted.has_gate(gate_id):
        raise UsageError(f"gate {gate_id!r} already exists ({'shipped or pinned' if trusted.has_gate(gate_id) else target})")
    folder = Path(bundle)
    try:
        plan = loads_strict((folder / "plan.json").read_bytes())
    except OSError as exc:
        raise UsageError(f"{bundle}/plan.json: cannot read: {exc.strerror}") from None
    except JSONProblem as exc:
        raise UsageError(f"{bundle}/plan.json: {exc}") from None
    if not isinstance(plan, dict):
        raise UsageError(f"{bundle}/plan.json: not a plan object")
    template_id = like
    if template_id is None:
        try:
            manifest = loads_strict((folder / "manifest.json").read_bytes())
            template_id = manifest.get("gate") if isinstance(manifest, dict) else None
        except (OSError, JSONProblem):
            template_id = None
    if not template_id or not trusted.has_gate(template_id):
        raise UsageError(f"no template gate: {bundle} names {template_id!r}, which is not pinned; give --like GATE "
                         f"(pinned: {', '.join(trusted.gate_ids())})")
    gate = json.loads(json.dumps(trusted.gate(template_id)))
    per_arm: dict[str, int] = {}
    for server in plan.get("servers", []):
        if isinstance(server, dict) and isinstance(server.get("arm"), str):
            per_arm[server["arm"]] = per_arm.get(server["arm"], 0) + 1
    if len(set(per_arm.values())) > 1:
        raise UsageError(f"{bundle}/plan.json: arms have different server counts {per_arm}; a gate states one servers_per_arm")
    facts = {"arm_order": plan.get("arm_order"), "servers_per_arm": next(iter(per_arm.values()), None),
             "warmups_per_server": plan.get("warmups_per_server"), "measured_per_server": plan.get("measured_per_server")}
    gate.setdefault("plan", {}).update({k: v for k, v in facts.items() if v is not None})
    expected = plan.get("expected_output")
    if isinstance(expected, dict) and isinstance(gate.get("coverage"), dict):
        gate["coverage"]["expected_output"] = {k: expected[k] for k in ("frames", "fps", "sample_rate", "channels") if k in expected}
    index = folder / "quality-index.json"
    if index.is_file() and isinstance(gate.get("quality"), dict):
        try:
            comparisons = loads_strict(index.read_bytes()).get("comparisons")
            if isinstance(comparisons, list):
                gate["quality"]["comparisons"] = len(comparisons)
        except (OSError, JSONProblem, AttributeError):
            pass
    description = (f"Gate for {plan.get('campaign', bundle)}, started by `verify gate new` from the plan of {folder.name} "
                   f"and the gate {template_id}: review every threshold and claim, then `verify pin`.")
    gate = {"id": gate_id, "version": 1, "description": description,
            **{k: v for k, v in gate.items() if k not in ("id", "version", "description")}}
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(gate, indent=2) + "\n")
    return target
