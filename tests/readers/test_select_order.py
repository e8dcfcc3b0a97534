"""
Instances and ranks of a rule come out in one order in every run.

`select.instances` and `select.key_values` sort dimension values
numerically; "1" and "1.0" are equal numbers, and sorting them by number
alone left their order to set iteration, which string hashing changes per
process. Each order is checked in child processes with different
`PYTHONHASHSEED`s: they must all print the same.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parents[1]

CHILD = """
import sys
sys.path.insert(0, {root!r})
from verifier.model.evidence import Location, Receipt
from verifier.readers.select import instances, key_values, ranks
values = ["1.0", "1", "01", "2", "1.00", "0.5"]
records = [Receipt(dims={{"batch": v, "arm": "A"}}, quantities={{}}, location=Location("r.json")) for v in values]
rule = {{"per": ["batch"], "selection": {{"arm": "A"}}}}
print([i["batch"] for i in instances(rule, records)], key_values(records, "batch"), ranks(records, rule))
"""


def test_equal_numbers_sort_the_same_under_every_hash_seed():
    outputs = set()
    for seed in range(8):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        done = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT))], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        outputs.add(done.stdout)
    assert len(outputs) == 1, outputs
    assert "['0.5', '01', '1', '1.0', '1.00', '2']" in outputs.pop()
