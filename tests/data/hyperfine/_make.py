"""
Write `export.json`, a `hyperfine --export-json` file, deterministically.

Shape from hyperfine's documented export (results[]: command, mean, stddev,
median, user, system, min, max, times, exit_codes); statistics computed the
way hyperfine does, in binary floats: mean = sum/n, stddev = sample SD (n-1),
median = mean of the two middle values for even n. Run from this directory:
`python _make.py`.
"""

import json
import math
import random


def result(command: str, base: float, n: int, rng: random.Random) -> dict:
    times = [round(base + rng.uniform(-0.004, 0.006), 9) for _ in range(n)]
    mean = sum(times) / n
    stddev = math.sqrt(sum((t - mean) ** 2 for t in times) / (n - 1))
    s = sorted(times)
    median = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return {"command": command, "mean": mean, "stddev": stddev, "median": median, "user": 0.0011, "system": 0.0009,
            "min": min(times), "max": max(times), "times": times, "exit_codes": [0] * n}


rng = random.Random(7)
doc = {"results": [result("sleep 0.1", 0.1021, 10, rng), result("sleep 0.2", 0.2023, 11, rng)]}
with open("export.json", "w") as out:
    json.dump(doc, out, indent=2)
    out.write("\n")
