"""
List and re-test the survivors of a cosmic-ray session (docs/testing.md, "Mutation testing").

Usage: `python tools/cosmic-ray/survivors.py SESSION.sqlite [--retest CONFIG.toml]` from the repository root.

Prints the session's tally (mutants killed, survived, skipped by the operator
filter) and each survivor as `line operator occurrence: source line`. With
`--retest`, each survivor is applied again with `cosmic-ray apply` to the
module of a throwaway copy of HEAD (the tests as committed now, so tests
written against the survivors count) and the config's test command is run;
a failing run is `killed now`. The module is restored after each.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    """Print the tally and the survivors; with `--retest`, re-run each survivor against the committed tests."""
    parser = argparse.ArgumentParser()
    parser.add_argument("session")
    parser.add_argument("--retest", metavar="CONFIG")
    args = parser.parse_args()
    db = sqlite3.connect(args.session)
    rows = db.execute("select r.worker_outcome, r.test_outcome, count(*) from work_results r group by 1, 2").fetchall()
    pending = db.execute("select count(*) from work_items where job_id not in (select job_id from work_results)").fetchone()[0]
    survivors = db.execute("select m.module_path, m.start_pos_row, m.operator_name, m.occurrence from work_results r "
                           "join mutation_specs m on m.job_id = r.job_id where r.test_outcome = 'SURVIVED' "
                           "order by m.start_pos_row, m.operator_name").fetchall()
    print(f"{args.session}: {rows}, pending {pending}")
    copy = None
    if args.retest:
        config = tomllib.loads(Path(args.retest).read_text())["cosmic-ray"]
        copy = Path(tempfile.mkdtemp(prefix="cr-retest-"))
        (copy / "repo").mkdir()
        subprocess.run(f"git -C {shlex.quote(str(ROOT))} archive HEAD | tar -x -C {shlex.quote(str(copy / 'repo'))}", shell=True, check=True)
        os.symlink((ROOT.parent / "shared").resolve(), copy / "shared")
    killed = 0
    for module, row, operator, occurrence in survivors:
        source = (ROOT / module).read_text().splitlines()[row - 1].strip()
        verdict = ""
        if copy is not None:
            repo = copy / "repo"
            env = {**os.environ, "PYTHONPATH": str(repo), "PYTHONDONTWRITEBYTECODE": "1",
                   "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
            subprocess.run(["cosmic-ray", "apply", module, operator, str(occurrence)], cwd=repo, env=env, check=True, capture_output=True)
            done = subprocess.run(config["test-command"], shell=True, cwd=repo, env=env, capture_output=True, timeout=config.get("timeout", 120))
            shutil.copy(ROOT / module, repo / module)
            verdict = "  -> killed now" if done.returncode != 0 else "  -> survives"
            killed += done.returncode != 0
        print(f"  {module}:{row} {operator} #{occurrence}: {source[:100]}{verdict}")
    if copy is not None:
        print(f"re-tested {len(survivors)} survivor(s): {killed} killed now, {len(survivors) - killed} survive")
        shutil.rmtree(copy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
