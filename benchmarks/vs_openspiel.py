"""civlite's ``ismcts`` bot against OpenSpiel's ``ISMCTSBot`` on ``python_civlite``.

Both bots get the same wall-clock time per decision (``--seconds``); the civlite
bot is ``make_bot("ismcts:seconds=S")``, OpenSpiel's is its Python
``open_spiel.python.algorithms.ismcts.ISMCTSBot`` with the standard random-rollout
evaluator, run for as many simulations as fit in S (at least two: the first only expands the root). Seats rotate:
game i puts the civlite bot at seat ``i % players``, OpenSpiel's bots elsewhere.
The truth is the OpenSpiel state (chance sampled from ``chance_outcomes``); the
civlite bot sees only its seat's :class:`View` of it.

Reports each side's simulations per second (summed over its searches) and the
civlite bot's score (win 1, draw 1/2, loss 0) with a 95% Wilson interval.

    .venv/bin/python benchmarks/vs_openspiel.py --games 200 --seconds 0.05 --jobs 2
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import sys
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import civlite.rl.openspiel  # noqa: F401  (registers python_civlite)
from civlite.bots import make_bot
from civlite.rl.openspiel import game_of


class TimedISMCTSBot(ismcts.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's ISMCTSBot with a time budget instead of a simulation count."""

    def __init__(self, game: Any, seconds: float, seed: int, uct_c: float = 2.0) -> None:
        rs = np.random.RandomState(seed)
        super().__init__(game, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs), uct_c,
                         max_simulations=1, random_state=rs)
        self.seconds = seconds
        self.simulations = 0
        self.search_time = 0.0

    def run_search(self, state: Any) -> Any:
        # the loop of ISMCTSBot.run_search, bounded by time (at least one simulation)
        self.reset()
        legal_actions = state.legal_actions()
        if len(legal_actions) == 1:
            return [(legal_actions[0], 1.0)]
        start = time.perf_counter()
        self._root_node = self.create_new_node(state)
        root_key = self.get_state_key(state)
        done = 0
        while done < 2 or time.perf_counter() - start < self.seconds:  # the first only expands the root
            sampled = self.sample_root_state(state)
            assert root_key == self.get_state_key(sampled)
            self.run_simulation(sampled)
            done += 1
        self.simulations += done
        self.search_time += time.perf_counter() - start
        return self.get_final_policy(state, self._root_node)


def play_one(args: tuple[int, int, float, int, int]) -> dict[str, Any]:
    index, players, seconds, victory_ct, seed = args
    sys.setrecursionlimit(100_000)
    game = pyspiel.load_game("python_civlite", {"players": players, "victory_ct": victory_ct})
    civ_seat = index % players
    civ = make_bot(f"ismcts:seconds={seconds}", seed=seed * 1000 + index)
    osb = {s: TimedISMCTSBot(game, seconds, seed=seed * 1000 + index * 10 + s) for s in range(players) if s != civ_seat}
    rs = np.random.RandomState(seed * 7919 + index)
    state = game.new_initial_state()
    civ_iters = 0
    civ_time = 0.0
    while not state.is_terminal():
        if state.is_chance_node():
            acts, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rs.choice(acts, p=probs)))
            continue
        seat = state.current_player()
        if seat == civ_seat:
            g = game_of(state)
            assert g is not None
            legal = g.legal_ids()
            t = time.perf_counter()
            aid = civ.act(g.view(seat), legal)
            if len(legal) > 1:
                civ_time += time.perf_counter() - t
                civ_iters += int(getattr(civ, "last_iterations", 0))
            state.apply_action(aid)
        else:
            state.apply_action(int(osb[seat].step(state)))
    ret = state.returns()
    return {
        "civ_seat": civ_seat, "civ_return": ret[civ_seat], "civ_iters": civ_iters, "civ_time": civ_time,
        "os_sims": sum(b.simulations for b in osb.values()), "os_time": sum(b.search_time for b in osb.values()),
        "turns": game_of(state).turn,  # type: ignore[union-attr]
    }


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = score / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return centre - half, centre + half


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=0.05, help="time per decision for each bot")
    ap.add_argument("--victory-ct", type=int, default=0, help="0: the default rules' 20 CT")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="games played in parallel processes")
    a = ap.parse_args(argv)
    try:
        make_bot("ismcts:seconds=0.01", seed=0)
    except ValueError as e:
        print(f"civlite's ismcts bot is not available: {e}", file=sys.stderr)
        return 2
    tasks = [(i, a.players, a.seconds, a.victory_ct, a.seed) for i in range(a.games)]
    t0 = time.perf_counter()
    results: list[dict[str, Any]] = []
    with mp.Pool(a.jobs) if a.jobs > 1 else _Serial() as pool:
        for r in pool.imap_unordered(play_one, tasks):
            results.append(r)
            if len(results) % 10 == 0 or len(results) == a.games:
                print(f"  {len(results)}/{a.games} games, {time.perf_counter() - t0:.0f}s", file=sys.stderr, flush=True)
    wins = sum(r["civ_return"] > 0 for r in results)
    draws = sum(r["civ_return"] == 0 for r in results)
    losses = len(results) - wins - draws
    score = wins + 0.5 * draws
    lo, hi = wilson(score, len(results))
    civ_sps = sum(r["civ_iters"] for r in results) / max(1e-9, sum(r["civ_time"] for r in results))
    os_sps = sum(r["os_sims"] for r in results) / max(1e-9, sum(r["os_time"] for r in results))
    print(f"civlite ismcts vs OpenSpiel ISMCTSBot: {a.games} games, {a.players} players, "
          f"{a.seconds}s per decision, victory {a.victory_ct or 'default'}, seats rotated")
    print(f"  civlite ismcts: {civ_sps:,.0f} simulations/s;  OpenSpiel ISMCTSBot: {os_sps:,.1f} simulations/s "
          f"(ratio {civ_sps / max(os_sps, 1e-9):,.0f}x)")
    print(f"  civlite wins {wins}, draws {draws}, losses {losses}: score {score / len(results):.1%} "
          f"(95% CI {lo:.1%} .. {hi:.1%}); fair share {1 / a.players:.1%}")
    print(f"  mean game length {sum(r['turns'] for r in results) / len(results):.0f} turns; "
          f"wall time {time.perf_counter() - t0:.0f}s")
    return 0


class _Serial:
    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def imap_unordered(self, fn: Any, items: list[Any]) -> Any:
        return map(fn, items)


if __name__ == "__main__":
    raise SystemExit(main())
