"""Baseline: self-play MaskablePPO through PettingZoo (its SB3 action-mask tutorial, on civlite).

The PettingZoo environment (``civlite.rl.pettingzoo.env``, 2 players) in
:class:`civlite.rl.sb3_masking.SB3ActionMaskWrapper` and ``ActionMasker``: every seat's
moves train one shared policy, as in PettingZoo's tutorial. Learns until ``--seconds`` run
out, then writes the evaluation table to ``--out/selfplay.json``.

    nice .venv/bin/python examples/baselines/selfplay.py --seconds 300 --seed 0 --out benchmarks/results/baselines
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _common import Budget, TimeLimit, evaluate, one_thread, sb3_policy, write


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=300.0, help="training budget")
    ap.add_argument("--eval-games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/baselines"))
    a = ap.parse_args(argv)
    one_thread()
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker

    from civlite.rl.pettingzoo import env as civlite_env
    from civlite.rl.sb3_masking import SB3ActionMaskWrapper, mask_fn

    env = SB3ActionMaskWrapper(civlite_env(players=2))
    env.reset(seed=a.seed)
    masked = ActionMasker(env, mask_fn)
    model = MaskablePPO("MlpPolicy", masked, seed=a.seed, verbose=0, n_steps=1024, batch_size=256,
                        policy_kwargs={"net_arch": [128, 128]})
    t0 = time.perf_counter()
    model.learn(total_timesteps=10**9, callback=TimeLimit(Budget(a.seconds)))
    train_s = time.perf_counter() - t0
    print(f"{model.num_timesteps} steps in {train_s:.0f}s; evaluation:", flush=True)
    table = evaluate(sb3_policy(model), a.eval_games)
    write(a.out, "selfplay", {"method": "self-play MaskablePPO through PettingZoo (SB3 tutorial wrapper)",
                              "variant": "default rules, 2 players", "seed": a.seed, "steps": model.num_timesteps,
                              "train_seconds": round(train_s, 1), "against": table})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
