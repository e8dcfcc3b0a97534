"""
Profiles: data files that map a foreign evidence bundle onto verify's checks.

A profile (`profiles/<id>.json`, validated by `schemas/profile.schema.json`
and pinned in `inventory.json` like a gate) says where a bundle keeps its
manifest, receipts, claims and gate, and how its fields map onto the
derivations the core already has. The vocabulary is closed: JSON Pointers,
globs, `{dimension}` placeholders and the statistics of the gate vocabulary;
nothing is evaluated. See `docs/profiles.md`.

This module loads and cross-checks profiles (`load_profile`, raising
`ConfigError` for a broken one, exit 2) and detects which profiles a
directory matches (`matches`, `candidates`). Reading receipts into `Record`s
(`read_receipts`), selections and statistics (`derive`) and claim locations
live in `verifier.readers`; their public names are re-exported here. The
checks that turn these into findings are in `verifier.checks.profile`.
"""

from __future__ import annotations

from typing import Any

from jsonschema.exceptions import best_match

from verifier.errors import ConfigError
from verifier.jsonio import JSONProblem
from verifier.readers.locate import locate, stated
from verifier.readers.pointers import PLACEHOLDER as _PLACEHOLDER
from verifier.readers.pointers import dim_text, fmt, resolve, to_decimal
from verifier.readers.records import CLOCKS, PHASES, STANDARD_DIMENSIONS, UNITS, Problem, Record, read_receipts  # noqa: F401
from verifier.readers.records import receipt_dims as _receipt_dims
from verifier.readers.select import Underivable, check_complete, derive_rule, instances, key_values, select
from verifier.readers.tree import Tree
from verifier.validation import schema_validator

__all__ = [
    "PHASES",
    "STANDARD_DIMENSIONS",
    "UNITS",
    "Problem",
    "Record",
    "Tree",
    "Underivable",
    "candidates",
    "check_complete",
    "derive_rule",
    "dim_text",
    "fmt",
    "instances",
    "key_values",
    "load_profile",
    "locate",
    "matches",
    "read_receipts",
    "resolve",
    "select",
    "stated",
    "to_decimal",
]


# ---------------------------------------------------------------- loading


def _refuse(profile_id: str, where: str, message: str) -> ConfigError:
    return ConfigError(f"profile {profile_id}: {where}: {message}")


def load_profile(document: Any, schema: dict[str, Any], *, origin: str = "<profile>") -> dict[str, Any]:
    """
    Return `document` as a usable profile after its schema and cross-references hold.

    Beyond the schema: every claim, identity and gate rule names a receipt set
    the profile defines; every `selection` and `per` key is a dimension of that
    set; every `{placeholder}` in a claim location is one of the claim's `per`
    dimensions (optionally `.index`); every `{name}` in a receipt file-name
    template is a field mapped `from_name`; `value` names a declared value.
    Raises `ConfigError` naming `origin` and the offending place otherwise
    (exit 2: a broken profile is a configuration error, never a finding).
    """
    errors = list(schema_validator(schema).iter_errors(document))
    # When a `$ref`'d part fails, `unevaluatedProperties` also complains about
    # every property that part would have evaluated: report the root cause.
    first = best_match([e for e in errors if e.validator != "unevaluatedProperties"] or errors)
    if first is not None:
        where = "/" + "/".join(str(p) for p in first.absolute_path)
        raise ConfigError(f"{origin}: invalid profile at {where}: {first.message}")
    pid = document["id"]
    receipts = document["receipts"]
    for rid, spec in receipts.items():
        names = set(_PLACEHOLDER.findall(spec.get("name", "")))
        from_name = {v["from_name"] for v in [*spec["fields"].values(), *spec.get("dimensions", {}).values()] if "from_name" in v}
        if from_name - names:
            raise _refuse(pid, f"receipts.{rid}", f"fields taken from the file name {sorted(from_name - names)} are not in its name template {spec.get('name')!r}")
        parallel = set(spec.get("unnest", {}).get("parallel", {}))
        for name, mapping in [*spec["fields"].items(), *spec.get("dimensions", {}).items()]:
            if "element" in mapping and "unnest" not in spec:
                raise _refuse(pid, f"receipts.{rid}.{name}", "`element` needs an `unnest`")
            if "parallel" in mapping and mapping["parallel"] not in parallel:
                raise _refuse(pid, f"receipts.{rid}.{name}", f"parallel array {mapping['parallel']!r} is not declared in `unnest.parallel`")
        if "outcome" in spec["fields"] and "ok_outcomes" not in spec:
            raise _refuse(pid, f"receipts.{rid}", "`outcome` is mapped but `ok_outcomes` does not say which outcomes are successes")
        for dim in spec.get("no_overlap", []):
            if dim not in _receipt_dims(spec):
                raise _refuse(pid, f"receipts.{rid}.no_overlap", f"{dim!r} is not a dimension of this receipt set")
        if "no_overlap" in spec and "start" not in spec["fields"]:
            raise _refuse(pid, f"receipts.{rid}.no_overlap", "needs `start` and `end` clock fields")
    for kind in ("claims", "gate"):
        items = document.get("claims", []) if kind == "claims" else document.get("gate", {}).get("rules", [])
        for index, item in enumerate(items):
            where = f"{kind}[{index}] ({item['id']})"
            _check_derivation(pid, where, item, receipts)
            if kind == "claims":
                allowed = set(item.get("per", []))
                at = item["at"]
                text = " ".join([at["file"], at["pointer"], at.get("then", ""), *at.get("where", {}).values()])
                for name in _PLACEHOLDER.findall(text):
                    base = name.removesuffix(".index")
                    if base not in allowed:
                        raise _refuse(pid, where, f"location placeholder {{{name}}} is not one of its `per` dimensions {sorted(allowed)}")
            elif "below_baseline" in item:
                if "arm" not in _receipt_dims(receipts[item["receipts"]]):
                    raise _refuse(pid, where, "`below_baseline` compares arms, but the receipt set maps no `arm`")
                if "arm" in item.get("per", []) or "arm" in item["selection"]:
                    raise _refuse(pid, where, "`below_baseline` compares arms; `arm` cannot also be in `per` or `selection`")
    for index, identity in enumerate(document.get("identities", [])):
        sets = identity["receipts"] if isinstance(identity["receipts"], list) else [identity["receipts"]]
        for rid in sets:
            if rid not in receipts:
                raise _refuse(pid, f"identities[{index}] ({identity['id']})", f"unknown receipt set {rid!r}")
    return document  # type: ignore[no-any-return]


def _check_derivation(pid: str, where: str, item: dict[str, Any], receipts: dict[str, Any]) -> None:
    rid = item["receipts"]
    if rid not in receipts:
        raise _refuse(pid, where, f"unknown receipt set {rid!r}; defined: {sorted(receipts)}")
    dims = _receipt_dims(receipts[rid])
    # A rule that is evaluated on a subset it never declared is the fault this
    # prevents: every selection and per key must be a dimension we can read.
    for key in [*item["selection"], *item.get("per", [])]:
        if key not in dims:
            raise _refuse(pid, where, f"{key!r} is not a dimension of receipt set {rid!r} (dimensions: {sorted(dims)})")
    if "value" in item and item["value"] not in receipts[rid].get("values", {}):
        raise _refuse(pid, where, f"value {item['value']!r} is not declared in receipts.{rid}.values")
    if item["statistic"] in ("relative_reduction_pct", "speedup") and "arm" not in dims:
        raise _refuse(pid, where, f"{item['statistic']} compares arms, but receipt set {rid!r} maps no `arm`")
    if item["statistic"] == "mean_of_server_means" and "server" not in dims:
        raise _refuse(pid, where, f"mean_of_server_means needs a `server` field in receipt set {rid!r}")

# ---------------------------------------------------------------- detection


def matches(profile: dict[str, Any], tree: Tree) -> bool:
    """Return whether `tree` satisfies every detection rule of `profile` (files exist, pointers resolve)."""
    detect = profile["detect"]
    for rel in detect.get("files", []):
        if not tree.exists(rel):
            return False
    globbed = tree.glob(detect["glob"]) if "glob" in detect else []
    if "glob" in detect and not globbed:
        return False
    for item in detect.get("pointers", []):
        targets = [item["file"]] if "file" in item else globbed
        if not any(_resolves(tree, rel, item["pointer"]) for rel in targets):
            return False
    return True


def _resolves(tree: Tree, rel: str, pointer: str) -> bool:
    try:
        resolve(tree.json(rel), pointer)
    except (KeyError, OSError, JSONProblem):
        return False
    return True


def candidates(profiles: dict[str, dict[str, Any]], tree: Tree) -> list[str]:
    """Return the ids of the profiles whose detection rules `tree` matches, sorted."""
    return sorted(pid for pid, p in profiles.items() if matches(p, tree))
