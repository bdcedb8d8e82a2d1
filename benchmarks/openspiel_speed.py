"""Decisions per second through pyspiel against the raw engine, measured interleaved.

Each round runs every loop for ``--seconds``, in turn (uniformly random legal actions,
2 players unless ``--players``); the medians over ``--rounds`` are reported:

* ``engine``: ``legal_ids()`` + ``apply_id`` on :class:`civlite.engine.Game` (events built),
  the baseline, as in ``benchmarks/rl_speed.py``;
* ``openspiel``: ``python_civlite`` through pyspiel's API: ``is_terminal()``,
  ``is_chance_node()``, ``legal_actions()`` or ``chance_outcomes()``, ``apply_action()``
  (every dealt and drawn card a chance node, sampled uniformly); decisions counted;
* ``openspiel_sampled``: the same with ``chance="sampled"`` (the CFR model);
* ``openspiel_implicit``: the same with ``chance="implicit"`` (no chance nodes: the engine
  draws inside each action; SAMPLED_STOCHASTIC).

    taskset -c 0 .venv/bin/python benchmarks/openspiel_speed.py --seconds 3 --rounds 5 --out FILE.json
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import pyspiel

import civlite.rl.openspiel  # noqa: F401  (registers python_civlite)
from civlite.engine import COMPILED, Game

Loop = Callable[[float], float]


def engine_loop(players: int) -> Loop:
    def run(seconds: float) -> float:
        r = random.Random(1)
        n = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            g = Game(players, seed=r.getrandbits(62))
            while not g.over:
                legal = g.legal_ids()
                g.apply_id(legal[int(r.random() * len(legal))], check=False)
                n += 1
        return n / (time.perf_counter() - t0)
    return run


def openspiel_loop(players: int, **params: Any) -> Loop:
    return pyspiel_loop(pyspiel.load_game("python_civlite", {"players": players, **params}))


def pyspiel_loop(game: Any) -> Loop:
    """Uniformly random play of a loaded pyspiel game, chance sampled uniformly; decisions counted."""

    def run(seconds: float) -> float:
        r = random.Random(1)
        n = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            s = game.new_initial_state()
            while not s.is_terminal():
                if s.is_chance_node():
                    outcomes = s.chance_outcomes()
                    s.apply_action(outcomes[int(r.random() * len(outcomes))][0])
                else:
                    legal = s.legal_actions()
                    s.apply_action(legal[int(r.random() * len(legal))])
                    n += 1
        return n / (time.perf_counter() - t0)
    return run


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--out", default=None, help="write the JSON summary here")
    args = ap.parse_args(argv)
    loops = {"engine": engine_loop(args.players), "openspiel": openspiel_loop(args.players),
             "openspiel_sampled": openspiel_loop(args.players, chance="sampled"),
             "openspiel_implicit": openspiel_loop(args.players, chance="implicit")}
    rates, ratios = run_rounds(loops, args.rounds, args.seconds)
    summary = {
        "command": "benchmarks/openspiel_speed.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "players": args.players, "seconds": args.seconds, "rounds": args.rounds,
        "python": platform.python_version(), "engine_compiled": COMPILED,
        "decisions_per_s": {k: round(statistics.median(v)) for k, v in rates.items()},
        "ratio_to_engine": {k: round(statistics.median(v), 3) for k, v in ratios.items()},
        "ratio_per_round": {k: [round(x, 3) for x in v] for k, v in ratios.items()},
    }
    write_summary(summary, args.out)
    return 0


def run_rounds(loops: dict[str, Loop], rounds: int, seconds: float) -> tuple[dict[str, list[float]],
                                                                            dict[str, list[float]]]:
    """Every loop for ``seconds``, in turn, ``rounds`` times: the rates, and each round's ratio to
    that round's ``engine`` loop (the loops of one round saw the same load)."""
    rates: dict[str, list[float]] = {k: [] for k in loops}
    ratios: dict[str, list[float]] = {k: [] for k in loops if k != "engine"}
    for i in range(rounds):
        for name, loop in loops.items():
            rates[name].append(loop(seconds))
        for name in ratios:
            ratios[name].append(rates[name][-1] / rates["engine"][-1])
        print(f"round {i + 1}: " + ", ".join(f"{k} {v[-1]:,.0f}" for k, v in rates.items()), flush=True)
    return rates, ratios


def write_summary(summary: dict[str, Any], out: str | None) -> None:
    """Print the JSON summary, and write it to ``out`` if given."""
    text = json.dumps(summary, indent=1)
    print(text)
    if out:
        with open(out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
