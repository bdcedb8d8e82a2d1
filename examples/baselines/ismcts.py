"""Baseline: OpenSpiel's ISMCTSBot (random rollouts) on ``python_civlite``, no training.

OpenSpiel's own ``ISMCTSBot`` (``--sims`` simulations a decision, one random rollout
each, UCT constant 2) searching worlds from ``resample_from_infostate`` of the game with
implicit chance, against each opponent of the evaluation table, until ``--seconds`` run
out or ``--eval-games`` games per opponent are played (fewer games, wider intervals).
Writes ``--out/ismcts.json``.

    nice .venv/bin/python examples/baselines/ismcts.py --sims 20 --eval-games 20 --seconds 900 --seed 0
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import OPPONENTS, Budget, evaluate, load, write


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sims", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=900.0, help="budget for the whole evaluation")
    ap.add_argument("--eval-games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/baselines"))
    a = ap.parse_args(argv)
    from open_spiel.python.algorithms import ismcts, mcts

    game = load()
    rs = np.random.RandomState(a.seed)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs), uct_c=2.0,
                           max_simulations=a.sims, random_state=rs)
    budget = Budget(a.seconds)
    per = max(1, a.eval_games)
    table: dict[str, Any] = {}
    t0 = time.perf_counter()
    for name in OPPONENTS:
        # as many games as the budget's share for this opponent allows, at least 2 (both seats)
        games = per
        probe = time.perf_counter()
        table.update(evaluate(lambda state, seat: int(bot.step(state)), 2, opponents=(name,)))
        spent = time.perf_counter() - probe
        share = budget.left() / (len(OPPONENTS) - list(OPPONENTS).index(name))
        games = max(2, min(per, 2 + int(share / max(spent / 2, 1e-9))))
        if games > 2:
            table.update(evaluate(lambda state, seat: int(bot.step(state)), games, opponents=(name,)))
    write(a.out, "ismcts", {"method": f"OpenSpiel ISMCTSBot, {a.sims} simulations a decision, random rollouts",
                            "variant": "default rules, 2 players", "seed": a.seed, "sims": a.sims,
                            "seconds": round(time.perf_counter() - t0, 1), "against": table})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
