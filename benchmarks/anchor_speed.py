#!/usr/bin/env python3
"""The speed anchor: OpenSpiel's C++ ``crazy_eights`` (from PyPI's ``open_spiel``) driven
from a Python loop, for ratios that survive a shared machine's drift.

usage: anchor_speed.py [--seconds S] [--players N] [--seed S]

Plays whole games, one uniformly random legal action per decision (chance outcomes are
sampled from their probabilities and not counted as decisions), for S seconds on this
process's CPU, and prints one JSON object: {"anchor", "decisions_per_second",
"games_per_second", "decisions_per_game"}. ``engine_speed.py --anchor`` runs it in rounds
interleaved with civlite's own loop and reports the ratio of the medians.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    import pyspiel  # the open_spiel package (the rl extra)

    game = pyspiel.load_game("crazy_eights", {"players": args.players})
    rng = random.Random(args.seed)

    def play() -> int:
        state: Any = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        return decisions

    play()  # warm up
    games = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        decisions += play()
        games += 1
    wall = time.perf_counter() - start
    print(json.dumps({
        "anchor": f"openspiel crazy_eights {game.num_players()}p, python loop",
        "decisions_per_second": round(decisions / wall),
        "games_per_second": round(games / wall, 1),
        "decisions_per_game": round(decisions / max(games, 1), 1),
    }))


if __name__ == "__main__":
    main()
