#!/usr/bin/env python3
"""A/B speed of two engine source trees: decisions per CPU second and clone() cost.

usage: engine_ab.py TREE_A TREE_B [--rounds R] [--seconds S]

Each round runs A, then B, each in a fresh process pinned to core 0 under ``nice``,
playing random 2- and 4-player games (one uniformly random legal compact action per
decision) for S seconds of *CPU time* (``time.process_time``), then timing 20,000
``clone()`` calls of a mid-game position. CPU time, not wall time, so that other
jobs on a shared machine change both sides alike; the medians of the per-round B/A
ratios are printed (one JSON object). A tree is a folder holding ``src/civlite``
(e.g. ``git archive main src | tar -x -C /tmp/a``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from typing import Any

CODE = r"""
import json, random, time
from civlite.engine import Game

def play(n, seed, rng):
    g = Game(players=n, seed=seed)
    d = 0
    legal_ids, apply_id, rand = g.legal_ids, g.apply_id, rng.random
    while not g.over:
        ids = legal_ids()
        apply_id(ids[int(rand() * len(ids))], False)
        d += 1
    return d

rng = random.Random(5)
play(2, 0, rng)
d = s = 0
t = time.process_time()
while time.process_time() - t < SECONDS:
    d += play(2 + 2 * (s % 2), 1000 + s, rng)
    s += 1
dps = d / (time.process_time() - t)
g = Game(players=4, seed=3)
r = random.Random(2)
for _ in range(200):
    ids = g.legal_ids()
    g.apply_id(ids[int(r.random() * len(ids))])
t = time.process_time()
for _ in range(20000):
    g.clone()
print(json.dumps({"dps": dps, "clone_us": (time.process_time() - t) / 20000 * 1e6}))
"""


def run(tree: str, seconds: float) -> dict[str, float]:
    out = subprocess.run(
        ["nice", "-n", "10", "taskset", "-c", "0", sys.executable, "-c", CODE.replace("SECONDS", str(seconds))],
        capture_output=True, text=True, env={"PYTHONPATH": f"{tree}/src", "PATH": "/usr/bin:/bin"}, check=True)
    result: dict[str, float] = json.loads(out.stdout)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=1.5)
    args = ap.parse_args()
    ra, rb = [], []
    for _ in range(args.rounds):
        ra.append(run(args.a, args.seconds))
        rb.append(run(args.b, args.seconds))
    out: dict[str, Any] = {
        "A": args.a, "B": args.b, "rounds": args.rounds, "cpu_seconds_per_run": args.seconds,
        "A_decisions_per_cpu_second": [round(x["dps"]) for x in ra],
        "B_decisions_per_cpu_second": [round(x["dps"]) for x in rb],
        "median_decisions_ratio_B_over_A": round(statistics.median(b["dps"] / a["dps"] for a, b in zip(ra, rb, strict=True)), 3),
        "A_clone_us": [round(x["clone_us"], 2) for x in ra],
        "B_clone_us": [round(x["clone_us"], 2) for x in rb],
        "median_clone_ratio_B_over_A": round(
            statistics.median(b["clone_us"] / a["clone_us"] for a, b in zip(ra, rb, strict=True)), 3),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
