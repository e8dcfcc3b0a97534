#!/usr/bin/env bash
# Run one cosmic-ray session (docs/testing.md, "Mutation testing") on a throwaway copy of HEAD:
#   tools/cosmic-ray/run.sh MODULE [WORKDIR]      e.g. tools/cosmic-ray/run.sh units
# cosmic-ray writes each mutant into the file on disk, so it never runs in the checkout itself.
# The copy sits next to a link to ../shared (the tests read the seeds and corpus there).
# Prints cr-report's summary; the session database stays in WORKDIR/MODULE.sqlite.
set -euo pipefail
module=$1
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=${2:-/tmp/cosmic-ray-$module}
venv=${VENV:-$repo/.venv}
[ -x "$venv/bin/cosmic-ray" ] || venv=/work/venv
rm -rf "$work"; mkdir -p "$work/repo"
git -C "$repo" archive HEAD | tar -x -C "$work/repo"
ln -s "$(cd "$repo/.." && pwd)/shared" "$work/shared"
cd "$work/repo"
export PATH="$venv/bin:$PATH" PYTHONPATH="$work/repo" PYTHONDONTWRITEBYTECODE=1
cfg="tools/cosmic-ray/$module.toml"
cosmic-ray init "$cfg" "$work/$module.sqlite"
cr-filter-operators "$work/$module.sqlite" "$cfg"
nice -n 5 cosmic-ray exec "$cfg" "$work/$module.sqlite"
cr-report "$work/$module.sqlite" --show-pending
