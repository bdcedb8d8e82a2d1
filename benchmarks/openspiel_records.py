"""How many information-state records a turn needs: uniformly random whole games of ``python_civlite``.

The whole-game information state has room for ``EVENTS_PER_TURN`` records a turn (events
and notes). This plays ``--games`` uniformly random games per player count (2 to 8, the
default rules, ``chance="implicit"``) and reports the most records one seat had in one
turn, and the most per turn over a whole game.

    nice .venv/bin/python benchmarks/openspiel_records.py --games 60 --out benchmarks/results/openspiel_records.json
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys

import pyspiel

import civlite.rl.openspiel  # noqa: F401  (registers python_civlite)
from civlite.rl.spec import EVENT_KINDS, EVENTS_PER_TURN

_TURN = EVENT_KINDS.index("turn") + 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=60, help="games per player count")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    per_count = {}
    for players in range(2, 9):
        game = pyspiel.load_game("python_civlite", {"players": players, "chance": "implicit"})
        worst_turn = 0
        worst_rate = 0.0
        notes = 0
        for _ in range(args.games):
            s = game.new_initial_state()
            while not s.is_terminal():
                s.apply_action(rng.choice(s.legal_actions()))
            core = s.core
            notes += len(core.notes)
            for p in range(players):
                records = core.seat_records(p)
                count: collections.Counter[int] = collections.Counter()
                turn = 0
                for r in records:
                    turn += r[0] == _TURN
                    count[turn] += 1
                worst_turn = max(worst_turn, max(count.values()))
                worst_rate = max(worst_rate, len(records) / max(core.game.turn, 1))
        per_count[players] = {"games": args.games, "most_records_in_one_turn": worst_turn,
                              "most_records_per_turn_over_a_game": round(worst_rate, 2),
                              "notes_per_game": round(notes / args.games, 1)}
        print(players, per_count[players], flush=True)
    summary = {"command": "benchmarks/openspiel_records.py " + " ".join(sys.argv[1:] if argv is None else argv),
               "room_per_turn": EVENTS_PER_TURN, "per_player_count": per_count,
               "most_records_in_one_turn": max(v["most_records_in_one_turn"] for v in per_count.values())}
    text = json.dumps(summary, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
