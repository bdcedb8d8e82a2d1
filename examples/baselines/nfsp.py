"""Baseline: OpenSpiel's NFSP (PyTorch) on the short variant, then the evaluation table there.

Two NFSP agents (one hidden layer of 128, ``learn_every=16``, ``anticipatory_param=0.1``)
learn by self-play on ``python_civlite`` with implicit chance, ``turn_limit`` 12 and
``victory_ct`` 2 (the whole-game information state: 4,345 numbers), until ``--seconds``
run out; the average policy then plays the evaluation table *in that variant* (the
opponents play it too). Writes ``--out/nfsp.json``.

    nice .venv/bin/python examples/baselines/nfsp.py --seconds 300 --seed 0 --out benchmarks/results/baselines
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import Budget, evaluate, load, one_thread, write

SHORT = {"turn_limit": 12, "victory_ct": 2}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=300.0, help="training budget")
    ap.add_argument("--eval-games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/baselines"))
    a = ap.parse_args(argv)
    one_thread()
    import torch
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import nfsp

    np.random.seed(a.seed)
    torch.manual_seed(a.seed)
    game = load({**SHORT, "chance_seed": a.seed})
    env = rl_environment.Environment(game)
    size = env.observation_spec()["info_state"][0]
    agents = [nfsp.NFSP(p, size, env.action_spec()["num_actions"], [128], reservoir_buffer_capacity=100_000,
                        anticipatory_param=0.1, batch_size=128, rl_learning_rate=1e-3, sl_learning_rate=1e-3,
                        min_buffer_size_to_learn=500, learn_every=16, optimizer_str="adam",
                        replay_buffer_capacity=50_000, epsilon_start=0.06, epsilon_end=0.001,
                        epsilon_decay_duration=200_000, update_target_network_every=1000, seed=a.seed * 10 + p)
              for p in range(2)]
    budget = Budget(a.seconds)
    steps = episodes = 0
    t0 = time.perf_counter()
    while not budget.over():
        ts = env.reset()
        while not ts.last():
            p = ts.observations["current_player"]
            ts = env.step([agents[p].step(ts).action])
            steps += 1
        for ag in agents:
            ag.step(ts)
        episodes += 1
    train_s = time.perf_counter() - t0
    print(f"{steps} steps ({episodes} games) in {train_s:.0f}s; evaluation:", flush=True)

    def policy(state: Any, seat: int) -> int:
        obs = {"info_state": [state.information_state_tensor(q) for q in range(2)],
               "legal_actions": [state.legal_actions(q) if q == seat else [] for q in range(2)],
               "current_player": seat}
        ts = rl_environment.TimeStep(observations=obs, rewards=None, discounts=None,
                                     step_type=rl_environment.StepType.MID)
        with agents[seat].temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
            return int(agents[seat].step(ts, is_evaluation=True).action)

    table = evaluate(policy, a.eval_games, SHORT)
    write(a.out, "nfsp", {"method": "NFSP (OpenSpiel, PyTorch), self-play, average policy",
                          "variant": "turn_limit 12, victory_ct 2, 2 players (opponents in the same variant)",
                          "seed": a.seed, "steps": steps, "games": episodes, "info_state_size": size,
                          "train_seconds": round(train_s, 1), "against": table})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
