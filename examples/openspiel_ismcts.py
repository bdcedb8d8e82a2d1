"""OpenSpiel's own ISMCTSBot playing full games of ``python_civlite``.

Seat 0 is OpenSpiel's ``ISMCTSBot`` (random-rollout evaluator, ``--sims``
simulations a decision); the other seats are uniform random players. Chance nodes
are sampled from ``chance_outcomes()``. Prints each game's result and length.

    .venv/bin/python examples/openspiel_ismcts.py --games 3 --sims 20
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import civlite.rl.openspiel  # noqa: F401  (registers python_civlite)
from civlite.rl.openspiel import game_of


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--sims", type=int, default=20)
    ap.add_argument("--victory-ct", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    game = pyspiel.load_game("python_civlite", {"players": a.players, "victory_ct": a.victory_ct})
    rs = np.random.RandomState(a.seed)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs), uct_c=2.0,
                           max_simulations=a.sims, random_state=rs)
    wins = 0
    for i in range(a.games):
        t = time.perf_counter()
        state = game.new_initial_state()
        decisions = chance = 0
        while not state.is_terminal():
            if state.is_chance_node():
                acts, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rs.choice(acts, p=probs)))
                chance += 1
            elif state.current_player() == 0:
                state.apply_action(int(bot.step(state)))
                decisions += 1
            else:
                state.apply_action(int(rs.choice(state.legal_actions())))
        g = game_of(state)
        assert g is not None
        wins += g.winner == 0
        print(f"game {i}: returns {state.returns()}, {g.turn} turns, CT {g.ct}, {decisions} ISMCTS decisions, "
              f"{chance} chance nodes, {time.perf_counter() - t:.1f}s", flush=True)
    print(f"ISMCTSBot (seat 0) won {wins} of {a.games} against random players")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
