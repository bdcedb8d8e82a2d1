#!/usr/bin/env python3
"""Engine speed: full games, one uniformly random legal (compact) action per decision.

usage: engine_speed.py [--seconds S] [--players 2,4] [--json] [--anchor [--rounds R]] [--quiet]

Prints {"decisions_per_second", "games_per_second", "decisions_per_game",
"clone_microseconds", "per_players": {...}}. With --anchor, also runs
benchmarks/anchor_speed.py (OpenSpiel's C++ crazy_eights from Python) in R rounds
interleaved with ours, on this process's CPU set, and adds the ratio of the medians. Run it pinned to one core: `taskset -c 0 python benchmarks/engine_speed.py`.
``compiled`` says whether the engine ran compiled (mypyc, as ``pip install`` builds it) or
from its Python source (``CIVLITE_PURE=1`` compares the two).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

from civlite.engine import COMPILED, SOURCE_REASON, Game

QUIET = False  # --quiet: games that build no events (Game.quiet: search, learning)


def play(n: int, seed: int, rng: random.Random) -> int:
    g = Game(players=n, seed=seed)
    g.quiet = QUIET
    decisions = 0
    legal_ids = g.legal_ids
    apply_id = g.apply_id
    rand = rng.random
    while not g.over:
        ids = legal_ids()
        apply_id(ids[int(rand() * len(ids))], False)
        decisions += 1
    return decisions


def measure(players: list[int], seconds: float, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    per: dict[str, dict[str, float]] = {}
    total_d = total_g = 0
    total_t = 0.0
    for n in players:
        play(n, 0, rng)  # warm up
        games = decisions = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds / len(players):
            decisions += play(n, seed + games, rng)
            games += 1
        wall = time.perf_counter() - start
        per[f"{n}p"] = {
            "decisions_per_second": round(decisions / wall),
            "games_per_second": round(games / wall, 1),
            "decisions_per_game": round(decisions / max(games, 1), 1),
        }
        total_d += decisions
        total_g += games
        total_t += wall
    # clone cost at a mid-game position
    g = Game(players=4, seed=seed)
    for _ in range(200):
        if g.over:
            break
        ids = g.legal_ids()
        g.apply_id(ids[int(rng.random() * len(ids))])
    reps = 20000
    t = time.perf_counter()
    for _ in range(reps):
        g.clone()
    clone_us = (time.perf_counter() - t) / reps * 1e6
    return {
        "decisions_per_second": round(total_d / total_t),
        "games_per_second": round(total_g / total_t, 1),
        "decisions_per_game": round(total_d / max(total_g, 1), 1),
        "clone_microseconds": round(clone_us, 2),
        "per_players": per,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--players", default="2,4")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--anchor", action="store_true", help="also run benchmarks/anchor_speed.py, interleaved")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds with --anchor (medians reported)")
    ap.add_argument("--quiet", action="store_true", help="quiet games: no events built (Game.quiet)")
    args = ap.parse_args()
    global QUIET
    QUIET = args.quiet
    players = [int(p) for p in args.players.split(",")]
    if not args.anchor:
        result = measure(players, args.seconds, args.seed)
    else:
        # interleave rounds of ours and the anchor so both see the same machine load
        tool = Path(__file__).resolve().parent / "anchor_speed.py"
        rounds = []
        anchors = []
        for r in range(args.rounds):
            rounds.append(measure(players, args.seconds / args.rounds, args.seed + r))
            out = subprocess.run([sys.executable, str(tool), "--seconds", str(args.seconds / args.rounds)],
                                 capture_output=True, text=True, check=False)
            if out.returncode != 0:
                raise SystemExit(f"anchor-speed failed: {out.stderr.strip()[-300:]}")
            anchors.append(json.loads(out.stdout))
        result = rounds[-1]
        for key in ("decisions_per_second", "games_per_second", "decisions_per_game", "clone_microseconds"):
            vals = sorted(float(x[key]) for x in rounds)  # type: ignore[arg-type]
            result[key] = vals[len(vals) // 2]
        anchor = dict(anchors[-1])
        anchor["decisions_per_second"] = sorted(a["decisions_per_second"] for a in anchors)[len(anchors) // 2]
        result["anchor"] = anchor
        result["ratio_to_anchor"] = round(
            float(result["decisions_per_second"]) / float(anchor["decisions_per_second"]), 3  # type: ignore[arg-type]
        )
        result["rounds"] = args.rounds
    result["quiet"] = QUIET
    result["compiled"] = COMPILED  # mypyc (pip install) or the Python source (CIVLITE_PURE=1, ...)
    if not COMPILED:
        result["source_reason"] = SOURCE_REASON
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k}: {v}")


if __name__ == "__main__":
    main()
