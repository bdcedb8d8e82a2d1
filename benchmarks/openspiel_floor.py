"""How fast could any Python game go through pyspiel? (the floor of issue 31's 0.3 bar)

``python_civlite`` is a Python game registered with pyspiel: every ``apply_action`` enters
pyspiel's C++ ``State::ApplyAction`` (history bookkeeping) and calls back into Python's
``_apply_action``, and every query is a Python method call through pybind11. This script
prices that path alone with ``python_floor``, a Python pyspiel game that does *no* work: its
methods return prebuilt constants, a counter says when it ends, and its shape is civlite's
(measured here on ``python_civlite``: decisions per game, chance nodes per decision, legal
actions per decision). It runs the loop of ``benchmarks/openspiel_speed.py`` (``is_terminal``,
``is_chance_node``, ``chance_outcomes`` or ``legal_actions``, ``apply_action``) on:

* ``engine``: the raw engine (``legal_ids`` + ``apply_id``), the bar's denominator;
* ``engine_paused``: the raw engine with each action run in a greenlet whose chance source
  pauses it at every draw and steal (and is resumed at once): what any adapter that shows
  the engine's chance as chance nodes, without copying the game, must pay on top of it;
* ``floor_exact``: the no-work game with the chance nodes of ``chance="exact"``;
* ``floor_sampled``: the same with those of ``chance="sampled"``;
* ``floor_no_chance``: the same with no chance nodes at all;
* ``openspiel`` / ``openspiel_sampled``: ``python_civlite`` itself, for scale.

Rounds are interleaved; the medians of each round's ratio to that round's engine loop are
reported. If a floor's ratio is under 0.3, no Python game through pyspiel can reach the bar
with that chance model, whatever its state does. ``bound_exact_us_per_decision`` adds
``floor_exact``'s time and ``engine_paused``'s: the fastest exact-chance ``python_civlite``
this engine allows through pyspiel.

    taskset -c 1 .venv/bin/python benchmarks/openspiel_floor.py --seconds 3 --rounds 5 --out FILE.json
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from typing import Any

import greenlet
import pyspiel
from openspiel_speed import Loop, engine_loop, openspiel_loop, pyspiel_loop, run_rounds, write_summary

import civlite.rl.openspiel  # noqa: F401  (registers python_civlite)
from civlite.engine import Game


def civlite_shape(players: int, games: int, **params: Any) -> dict[str, float]:
    """Decisions per game, chance nodes per decision, and mean list lengths of ``python_civlite``."""
    game = pyspiel.load_game("python_civlite", {"players": players, **params})
    r = random.Random(1)
    decisions = chances = legal_sum = outcome_sum = 0
    for _ in range(games):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                outcome_sum += len(outcomes)
                chances += 1
                s.apply_action(outcomes[int(r.random() * len(outcomes))][0])
            else:
                legal = s.legal_actions()
                legal_sum += len(legal)
                decisions += 1
                s.apply_action(legal[int(r.random() * len(legal))])
    return {"decisions_per_game": decisions / games, "chance_per_decision": chances / decisions,
            "legal_per_decision": legal_sum / decisions,
            "outcomes_per_chance": outcome_sum / chances if chances else 0.0}


_FLOOR_TYPE = pyspiel.GameType(
    short_name="python_floor",
    long_name="a Python game that does no work (benchmarks/openspiel_floor.py)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=False,
    provides_factored_observation_string=False,
    parameter_specification={"decisions": 351, "chance_permille": 789, "legal": 4, "outcomes": 40},
)


class FloorGame(pyspiel.Game):  # type: ignore[misc]
    """A game of ``decisions`` decisions with ``chance_permille``/1000 chance nodes each."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**_FLOOR_TYPE.parameter_specification, **(params or {})}
        self.decisions = int(p["decisions"])
        self.chance_permille = int(p["chance_permille"])
        self.legal = list(range(int(p["legal"])))
        n = int(p["outcomes"])
        self.outcomes = [(i, 1.0 / n) for i in range(n)]
        info = pyspiel.GameInfo(num_distinct_actions=max(len(self.legal), 1), max_chance_outcomes=n,
                                num_players=2, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
                                max_game_length=self.decisions * 4)
        super().__init__(_FLOOR_TYPE, info, p)

    def new_initial_state(self) -> FloorState:
        return FloorState(self)


class FloorState(pyspiel.State):  # type: ignore[misc]
    """No work: a decision counter, and a credit that says when a chance node comes."""

    def __init__(self, game: FloorGame) -> None:
        super().__init__(game)
        self.g = game
        self.left = game.decisions
        self.credit = 0  # permille of chance nodes owed; >= 1000: a chance node now

    def current_player(self) -> int:
        if self.left <= 0:
            return -4
        return -1 if self.credit >= 1000 else self.left & 1

    def is_terminal(self) -> bool:
        return self.left <= 0

    def is_chance_node(self) -> bool:
        return self.credit >= 1000

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self.g.outcomes)

    def legal_actions(self, player: int | None = None) -> list[int]:
        return list(self.g.legal)

    def _legal_actions(self, player: int) -> list[int]:
        return list(self.g.legal)

    def _apply_action(self, action: int) -> None:
        if self.credit >= 1000:
            self.credit -= 1000
        else:
            self.left -= 1
            self.credit += self.g.chance_permille

    def _action_to_string(self, player: int, action: int) -> str:
        return str(action)

    def returns(self) -> list[float]:
        return [0.0, 0.0]


pyspiel.register_game(_FLOOR_TYPE, FloorGame)


class _PausingChance:
    """Uniform chance that pauses the running greenlet at every draw and steal (sending the sorted
    candidates, as ``python_civlite`` does) before answering."""

    __slots__ = ("rng",)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def draw(self, pile: list[int]) -> int:
        greenlet.getcurrent().parent.switch(sorted(pile))
        return int(self.rng.random() * len(pile))

    def pick(self, hand: list[int]) -> int:
        greenlet.getcurrent().parent.switch(sorted(hand))
        return int(self.rng.random() * len(hand))

    def shuffle(self, pile: list[int]) -> None:
        pass


def engine_paused_loop(players: int) -> Loop:
    def fiber_body(job: tuple[Game, int]) -> None:
        while True:
            g, aid = job
            job = greenlet.getcurrent().parent.switch((g.apply_id(aid),))

    def run(seconds: float) -> float:
        r = random.Random(1)
        fiber = greenlet.greenlet(fiber_body)
        n = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            g = Game(players, seed=r.getrandbits(62))
            g.chance = _PausingChance(r)
            while not g.over:
                legal = g.legal_ids()
                fiber.parent = greenlet.getcurrent()
                msg = fiber.switch((g, legal[int(r.random() * len(legal))]))
                while type(msg) is not tuple:  # paused at chance: resume
                    fiber.parent = greenlet.getcurrent()
                    msg = fiber.switch()
                n += 1
        return n / (time.perf_counter() - t0)
    return run


def floor_loop(shape: dict[str, float], chance: bool) -> Loop:
    return pyspiel_loop(pyspiel.load_game("python_floor", {
        "decisions": round(shape["decisions_per_game"]),
        "chance_permille": round(1000 * shape["chance_per_decision"]) if chance else 0,
        "legal": max(1, round(shape["legal_per_decision"])),
        "outcomes": max(1, round(shape["outcomes_per_chance"])),
    }))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--shape-games", type=int, default=200, help="games of python_civlite that measure its shape")
    ap.add_argument("--out", default=None, help="write the JSON summary here")
    args = ap.parse_args(argv)
    exact = civlite_shape(args.players, args.shape_games)
    sampled = civlite_shape(args.players, args.shape_games, chance="sampled")
    loops: dict[str, Loop] = {
        "engine": engine_loop(args.players),
        "engine_paused": engine_paused_loop(args.players),
        "floor_exact": floor_loop(exact, chance=True),
        "floor_sampled": floor_loop(sampled, chance=True),
        "floor_no_chance": floor_loop(exact, chance=False),
        "openspiel": openspiel_loop(args.players),
        "openspiel_sampled": openspiel_loop(args.players, chance="sampled"),
    }
    rates, ratios = run_rounds(loops, args.rounds, args.seconds)
    engine_rate = statistics.median(rates["engine"])
    summary = {
        "command": "benchmarks/openspiel_floor.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "players": args.players, "seconds": args.seconds, "rounds": args.rounds,
        "python": platform.python_version(), "pyspiel": getattr(pyspiel, "__version__", "?"),
        "affinity": sorted(os.sched_getaffinity(0)),
        "shape": {"exact": {k: round(v, 3) for k, v in exact.items()},
                  "sampled": {k: round(v, 3) for k, v in sampled.items()}},
        "decisions_per_s": {k: round(statistics.median(v)) for k, v in rates.items()},
        "us_per_decision": {k: round(1e6 / statistics.median(v), 3) for k, v in rates.items()},
        "bar_us_per_decision": round(1e6 / (0.3 * engine_rate), 3),
        "bound_exact_us_per_decision": round(
            1e6 / statistics.median(rates["floor_exact"]) + 1e6 / statistics.median(rates["engine_paused"]), 3),
        "ratio_to_engine": {k: round(statistics.median(v), 3) for k, v in ratios.items()},
        "ratio_per_round": {k: [round(x, 3) for x in v] for k, v in ratios.items()},
    }
    write_summary(summary, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
