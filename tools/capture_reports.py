"""Record the JSON report of every input a set of tests verifies, and compare two recordings, to prove a reader's refactor changes nothing.

The corpus (`tools/compare_reports.py`) holds no receipt of most readers; their inputs are the tests' own (a seed
mutated in a temporary folder). Two parts:

``CAPTURE_REPORTS=DIR CAPTURE_KIND=TEXT PYTHONPATH=$PWD:tools python -m pytest -p capture_reports TESTS...``
    A pytest plugin wrapping ``verifier.core.verify_path``: every report whose ``kind`` contains TEXT is written as
    ``DIR/KEY.json`` (the JSON reporter's text, the subject path as ``<SUBJECT>``), KEY a sha256 of the input's bytes
    (a directory: its files' names and bytes) and of the call's keyword arguments that are plain values or tuples of
    them (a temporary path in a tuple by its file name: `claims_text`).

``python tools/capture_reports.py diff A B [--rename OLD=NEW ...]``
    Compares two recordings. In A every check id OLD is renamed NEW, also inside messages; when several old checks
    became one, the roster counts are summed per id and a ``blocked-by`` finding repeating the one before it or naming
    only its own check (every check it names merged into it) is dropped (one per check now); ``counts``, ``to_act_on`` and ``roster`` follow the findings and are
    left out. A key on one side only is paired by content (a call whose arguments differ run to run). Prints
    ``IDENTICAL (N reports)`` and exits 0, or each difference and exits 1.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any


def pytest_configure(config: Any) -> None:
    """Wrap `verifier.core.verify_path` before any test module imports it."""
    import verifier.core as core
    from verifier.report import json_report

    out, kind, verify = Path(os.environ["CAPTURE_REPORTS"]), os.environ.get("CAPTURE_KIND", ""), core.verify_path

    def recorded(path: str, *args: Any, **kw: Any) -> Any:
        report = verify(path, *args, **kw)
        if kind in (report.kind or ""):
            p = Path(path)
            try:
                data = p.read_bytes() if p.is_file() else b"".join(f.name.encode() + f.read_bytes() for f in sorted(p.iterdir()) if f.is_file())
            except OSError:  # an input the test made unreadable (mode 000): keyed by its name, not its bytes
                data = b"unreadable:" + p.name.encode()
            plain = sorted((k, v) for k, v in kw.items() if isinstance(v, (str, int, float, bool, type(None))) and "/tmp" not in str(v))
            plain += sorted((k, tuple(Path(x).name if "/tmp" in str(x) else x for x in v)) for k, v in kw.items()
                            if isinstance(v, tuple) and all(isinstance(x, (str, int, float, bool, type(None))) for x in v))  # --claims-text's (name, text)
            out.mkdir(parents=True, exist_ok=True)
            (out / f"{hashlib.sha256(data + repr(plain).encode()).hexdigest()[:16]}.json").write_text(
                json_report.render(report).replace(str(path), "<SUBJECT>").replace(str(p.parent), "<DIR>"))
        return report

    core.verify_path = recorded


def _renamed(value: Any, renames: dict[str, str]) -> Any:
    if isinstance(value, str):
        for old, new in renames.items():
            value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [_renamed(v, renames) for v in value]
    if isinstance(value, dict):
        return {_renamed(k, renames): _renamed(v, renames) for k, v in value.items()}
    return value


def normal(report: dict[str, Any], renames: dict[str, str]) -> dict[str, Any]:
    """Return `report` renamed, its merged checks' repeated `blocked-by` findings dropped, without the parts that follow the findings."""
    report = _renamed(report, renames)
    kept: list[dict[str, Any]] = []
    for f in report["findings"]:
        if not (f["code"] == "blocked-by" and (set(f["observed"] or ()) == {f["check"]} or (kept and kept[-1] == f))):
            kept.append(f)
    return {**{k: v for k, v in report.items() if k not in ("counts", "to_act_on", "roster")}, "findings": kept}


def diff(a: Path, b: Path, renames: dict[str, str]) -> int:
    """Print IDENTICAL (N reports) and return 0, or print each difference and return 1."""
    left = {p.name: normal(json.loads(p.read_text()), renames) for p in sorted(a.glob("*.json"))}
    right = {p.name: normal(json.loads(p.read_text()), {}) for p in sorted(b.glob("*.json"))}
    bad = [name for name in left.keys() & right.keys() if left[name] != right[name]]
    spare = [right[n] for n in sorted(right.keys() - left.keys())]
    for name in sorted(left.keys() - right.keys()):
        if left[name] in spare:
            spare.remove(left[name])
        else:
            bad.append(name)
    for name in sorted(bad):
        print(f"{name}: differs or has no counterpart in {b}")
        if name in right:
            print("\n".join(f"  - {json.dumps(f)}" for f in left[name]["findings"] if f not in right[name]["findings"]))
            print("\n".join(f"  + {json.dumps(f)}" for f in right[name]["findings"] if f not in left[name]["findings"]))
    if spare:
        print(f"{len(spare)} report(s) of {b} have no counterpart in {a}")
    if bad or spare:
        return 1
    print(f"IDENTICAL ({len(left)} reports)")
    return 0


def main(argv: list[str] | None = None) -> int:
    """`diff A B [--rename OLD=NEW ...]`; exit 2 on bad arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    dif = sub.add_parser("diff", help="compare two recordings")
    dif.add_argument("a", type=Path)
    dif.add_argument("b", type=Path)
    dif.add_argument("--rename", action="append", default=[], metavar="OLD=NEW")
    args = parser.parse_args(argv)
    if not all("=" in r for r in args.rename) or not (args.a.is_dir() and args.b.is_dir()):
        print("capture_reports: give two recorded folders and renames as OLD=NEW", file=sys.stderr)
        return 2
    return diff(args.a, args.b, dict(r.split("=", 1) for r in args.rename))


if __name__ == "__main__":
    sys.exit(main())
