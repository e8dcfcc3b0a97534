"""Record and compare the JSON reports of the example and the corpus, to prove a refactor changes nothing.

Two sub-commands:

``record OUT [--commit REV | --worktree DIR] [--corpus DIR] [--extra DIR ...]``
    Runs ``python -m verifier check -f json --no-cache BUNDLE`` on
    ``examples/ref2va-5s`` of the checkout under test, on every folder of the
    corpus (default ``../shared/corpus`` next to this repository) and on each
    ``--extra`` folder, with ``PYTHONPATH`` set to the checkout so its code is
    imported, also by subprocesses.  Writes ``OUT/<name>.json`` (stdout, the
    report, byte for byte) and ``OUT/<name>.exit`` (the exit code) per bundle,
    plus ``OUT/COMMIT`` (the ``git rev-parse HEAD`` of the checkout, with
    ``+dirty`` when its tree has uncommitted changes).  ``--commit REV`` checks
    REV out into a temporary detached ``git worktree`` (removed afterwards);
    ``--worktree DIR`` (default: this repository) runs DIR as it is.  The
    example runs with the checkout as working directory and a relative path,
    the corpus with absolute paths, so two checkouts give comparable reports.

``diff A B [--rename OLD=NEW ...] [--renames FILE]``
    Compares two recorded directories.  Prints ``IDENTICAL`` and exits 0 when
    every bundle's report and exit code are byte-identical (after renaming the
    check ids of A that ``--rename`` / ``--renames`` list, one ``OLD NEW`` or
    ``OLD=NEW`` pair a line); otherwise prints, per differing bundle, the
    verdict and exit code of each side and a unified diff of the reports
    (check ids renamed first), and exits 1.  A bundle recorded on one side
    only is a difference.  Exit 2 on bad arguments (one line naming what).

Example::

    python tools/compare_reports.py record /tmp/reports-cc17077 --commit cc17077
    python tools/compare_reports.py record /tmp/reports-mine
    python tools/compare_reports.py diff /tmp/reports-cc17077 /tmp/reports-mine
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = "examples/ref2va-5s"
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"


def _python() -> str:
    """The interpreter to run the verifier with: /work/venv's when present, else this one."""
    venv = Path("/work/venv/bin/python")
    return str(venv) if venv.exists() else sys.executable


def bundles(checkout: Path, corpus: Path, extra: list[Path]) -> list[tuple[str, str]]:
    """The (name, path argument) pairs to run: the example (relative), corpus folders and extras (absolute).

    Raises SystemExit(2) when the corpus or an extra folder does not exist."""
    found = [("example-" + Path(EXAMPLE).name, EXAMPLE)]
    if not corpus.is_dir():
        raise SystemExit(f"compare_reports: corpus {corpus} is not a directory")
    for folder in sorted(corpus.iterdir()):
        if folder.is_dir():
            found.append((folder.name, str(folder.resolve())))
    for folder in extra:
        if not folder.exists():
            raise SystemExit(f"compare_reports: extra {folder} does not exist")
        found.append(("extra-" + folder.resolve().name, str(folder.resolve())))
    return found


def _head(checkout: Path) -> str:
    """``git rev-parse HEAD`` of CHECKOUT, with ``+dirty`` when its tracked files differ from HEAD."""
    head = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, check=True).stdout.strip()
    return head + ("+dirty" if dirty else "")


def record(out: Path, checkout: Path, corpus: Path, extra: list[Path]) -> int:
    """Run every bundle with CHECKOUT's code and write OUT/<name>.json and .exit; returns 0."""
    out.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_ACTIONS")}
    env["PYTHONPATH"] = str(checkout)
    (out / "COMMIT").write_text(_head(checkout) + "\n")
    for name, arg in bundles(checkout, corpus, extra):
        run = subprocess.run([_python(), "-m", "verifier", "check", "-f", "json", "--no-cache", arg],
                             cwd=checkout, env=env, capture_output=True)
        (out / f"{name}.json").write_bytes(run.stdout)
        (out / f"{name}.exit").write_text(f"{run.returncode}\n")
        print(f"{name}: exit {run.returncode}", file=sys.stderr)
    return 0


def record_commit(out: Path, rev: str, corpus: Path, extra: list[Path]) -> int:
    """Check REV out into a temporary detached worktree, record it, remove the worktree."""
    with tempfile.TemporaryDirectory(prefix="compare-reports-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), rev],
                       check=True, capture_output=True)
        try:
            return record(out, tree, corpus, extra)
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)],
                           capture_output=True)


def load_renames(pairs: list[str], files: list[Path]) -> dict[str, str]:
    """OLD -> NEW check ids from ``OLD=NEW`` arguments and files of ``OLD NEW`` / ``OLD=NEW`` lines.

    Blank lines and lines starting with ``#`` are skipped; raises SystemExit(2) on a malformed pair."""
    lines = list(pairs)
    for file in files:
        lines += [x for x in file.read_text().splitlines() if x.strip() and not x.lstrip().startswith("#")]
    renames = {}
    for line in lines:
        parts = line.replace("=", " ").split()
        if len(parts) != 2:
            raise SystemExit(f"compare_reports: rename {line!r} is not OLD=NEW")
        renames[parts[0]] = parts[1]
    return renames


def _renamed(text: str, renames: dict[str, str]) -> str:
    """TEXT (a JSON report) re-dumped, every string value equal to an OLD id of RENAMES (the findings'
    ``check`` and the roster's ids) replaced by its NEW id; TEXT as it is when it is not JSON."""
    if not text.strip():
        return text
    try:
        report = json.loads(text)
    except ValueError:
        return text

    def walk(node):
        if isinstance(node, dict):
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        if isinstance(node, str) and node in renames:
            return renames[node]
        return node
    return json.dumps(walk(report), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _summary(text: str) -> str:
    """The verdict and counts of a report TEXT, or why it is not a report."""
    try:
        report = json.loads(text)
        return f"{report.get('verdict')} {report.get('counts')}"
    except ValueError:
        return f"not JSON ({len(text)} bytes)"


def diff(a: Path, b: Path, renames: dict[str, str]) -> int:
    """Print IDENTICAL (return 0) or each differing bundle with a unified diff (return 1)."""
    for side in (a, b):
        if not side.is_dir():
            raise SystemExit(f"compare_reports: {side} is not a recorded directory")
    names = sorted({p.stem for p in a.glob("*.json")} | {p.stem for p in b.glob("*.json")})
    differing = 0
    for name in names:
        left, right = a / f"{name}.json", b / f"{name}.json"
        if not left.exists() or not right.exists():
            print(f"== {name}: recorded only in {a if left.exists() else b}")
            differing += 1
            continue
        exit_a = (a / f"{name}.exit").read_text().strip() if (a / f"{name}.exit").exists() else "?"
        exit_b = (b / f"{name}.exit").read_text().strip() if (b / f"{name}.exit").exists() else "?"
        text_a = left.read_text(encoding="utf-8", errors="replace")
        text_b = right.read_text(encoding="utf-8", errors="replace")
        if renames:
            # both sides re-dumped the same way, A's listed check ids renamed
            text_a, text_b = _renamed(text_a, renames), _renamed(text_b, {})
        if text_a == text_b and exit_a == exit_b:
            continue
        differing += 1
        print(f"== {name}: exit {exit_a} -> {exit_b}; {_summary(text_a)} -> {_summary(text_b)}")
        sys.stdout.writelines(difflib.unified_diff(text_a.splitlines(True), text_b.splitlines(True),
                                                   str(left), str(right), n=2))
    if differing:
        print(f"DIFFERENT: {differing} of {len(names)} bundles")
        return 1
    print(f"IDENTICAL ({len(names)} bundles)")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse ARGV and run ``record`` or ``diff``; the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run every bundle and store its JSON report")
    rec.add_argument("out", type=Path)
    which = rec.add_mutually_exclusive_group()
    which.add_argument("--commit", help="git revision to check out into a temporary worktree")
    which.add_argument("--worktree", type=Path, default=REPO, help="checkout to run as it is (default: this one)")
    rec.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    rec.add_argument("--extra", type=Path, action="append", default=[])
    dif = sub.add_parser("diff", help="compare two recorded directories")
    dif.add_argument("a", type=Path)
    dif.add_argument("b", type=Path)
    dif.add_argument("--rename", action="append", default=[], metavar="OLD=NEW")
    dif.add_argument("--renames", type=Path, action="append", default=[], metavar="FILE")
    args = parser.parse_args(argv)
    try:
        if args.command == "record":
            if args.commit:
                return record_commit(args.out, args.commit, args.corpus, args.extra)
            return record(args.out, args.worktree.resolve(), args.corpus, args.extra)
        return diff(args.a, args.b, load_renames(args.rename, args.renames))
    except SystemExit as stop:
        if isinstance(stop.code, str):
            print(stop.code, file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    sys.exit(main())
