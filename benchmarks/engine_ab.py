#!/usr/bin/env python3
"""A/B speed of two engine source trees: decisions per CPU second and clone() cost.

usage: engine_ab.py TREE_A TREE_B [--rounds R] [--seconds S] [--expert]

Each round runs A, then B, each in a fresh process pinned to core 0 under ``nice``,
playing random 2- and 4-player games (one uniformly random legal compact action per
decision) for S seconds of *CPU time* (``time.process_time``), then timing 20,000
``clone()`` calls of a mid-game position. CPU time, not wall time, so that other
jobs on a shared machine change both sides alike; the medians of the per-round B/A
ratios are printed (one JSON object). A tree is a folder holding ``src/civlite``
(e.g. ``git archive main src | tar -x -C /tmp/a``, then its compiled modules built in
place). With ``--expert`` each run also times 4,000 ``expert`` (``hard``) decisions from
their views at 2 to 8 players (CPU time, the median) and plays 2-player games of ``expert``
against itself for S CPU seconds (the CPU time per decision, view and engine included):
what the networks' observation encoding costs in each tree.
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
result = {"dps": dps, "clone_us": (time.process_time() - t) / 20000 * 1e6}
if EXPERT:
    import statistics
    from civlite.bots import make_bot
    bot = make_bot("expert", seed=0)
    times = []
    g, k = Game(4, seed=1), 0
    while len(times) < 4000:
        if g.over:
            k += 1
            g = Game(2 + k % 7, seed=k)
        seat = g.to_move
        view, ids = g.view(seat), g.legal_ids()
        t = time.process_time_ns()
        a = bot.act(view, ids)
        times.append(time.process_time_ns() - t)
        g.apply_id(a)
    result["expert_us"] = statistics.median(times) / 1000
    d = s = 0
    t = time.process_time()
    while time.process_time() - t < SECONDS:
        g = Game(2, seed=500 + s)
        s += 1
        while not g.over:
            seat = g.to_move
            g.apply_id(bot.act(g.view(seat), g.legal_ids()))
            d += 1
    result["expert_play_us"] = (time.process_time() - t) / d * 1e6
print(json.dumps(result))
"""


def run(tree: str, seconds: float, expert: bool = False) -> dict[str, float]:
    code = CODE.replace("SECONDS", str(seconds)).replace("EXPERT", str(expert))
    out = subprocess.run(
        ["nice", "-n", "10", "taskset", "-c", "0", sys.executable, "-c", code],
        capture_output=True, text=True, env={"PYTHONPATH": f"{tree}/src", "PATH": "/usr/bin:/bin"}, check=True)
    result: dict[str, float] = json.loads(out.stdout)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=1.5)
    ap.add_argument("--expert", action="store_true", help="also time expert's decisions (needs numpy)")
    args = ap.parse_args()
    ra, rb = [], []
    for _ in range(args.rounds):
        ra.append(run(args.a, args.seconds, args.expert))
        rb.append(run(args.b, args.seconds, args.expert))
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
    for key in ("expert_us", "expert_play_us") if args.expert else ():
        out[f"A_{key}"] = [round(x[key], 1) for x in ra]
        out[f"B_{key}"] = [round(x[key], 1) for x in rb]
        out[f"median_{key}_ratio_B_over_A"] = round(
            statistics.median(b[key] / a[key] for a, b in zip(ra, rb, strict=True)), 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
