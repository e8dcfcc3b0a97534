"""
Re-pin `inventory.json`: set every asset's sha256 to the digest of the file as it is now, and pin
every shipped `gates/`, `profiles/` and `schemas/` JSON file not yet listed (a profile just added).

Run after editing a shipped gate, profile or schema on purpose (`python tools/repin.py`);
it prints each digest it changed. The inventory is the trust root's pin list
(`docs/trust-root.md`), so a re-pin belongs in the same commit as the edit, for review.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    """Rewrite inventory.json's `assets` digests; return 0, 1 when an asset file is missing, 2 when inventory.json is unreadable."""
    path = ROOT / "inventory.json"
    try:
        inventory = json.loads(path.read_text(encoding="utf-8"))
        assets = inventory["assets"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"{path}: not a readable inventory ({exc.__class__.__name__}: {exc}); resolve it by hand first", file=sys.stderr)
        return 2
    missing = 0
    for name, digest in sorted(assets.items()):
        asset = ROOT / name
        if not asset.is_file():
            print(f"missing: {name}", file=sys.stderr)
            missing += 1
            continue
        now = hashlib.sha256(asset.read_bytes()).hexdigest()
        if now != digest:
            inventory["assets"][name] = now
            print(f"re-pinned {name}: {digest[:12]} -> {now[:12]}")
    for folder in ("gates", "profiles", "schemas"):
        for asset in sorted((ROOT / folder).rglob("*.json")):
            name = asset.relative_to(ROOT).as_posix()
            if name not in assets:
                assets[name] = hashlib.sha256(asset.read_bytes()).hexdigest()
                print(f"pinned new {name}: {assets[name][:12]}")
    inventory["assets"] = dict(sorted(assets.items()))
    path.write_text(json.dumps(inventory, indent=2) + "\n", encoding="utf-8")
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
