"""Baseline: MaskablePPO against the heuristic bot, from scratch or from the cloned policy.

One learning seat (drawn per game) against ``--opponent`` in
:class:`civlite.rl.gymnasium.SingleAgentEnv` (2 players, reward +1/-1 at the end), the
observation vector as input, MaskablePPO's ``MlpPolicy`` (two layers of 128) with the legal
mask; ``--init`` continues from a saved model (``bc.py``'s). Learns until ``--seconds`` run
out, then writes the evaluation table to ``--out/<name>.json``.

    nice .venv/bin/python examples/baselines/ppo.py --seconds 300 --seed 0 --out benchmarks/results/baselines
    nice .venv/bin/python examples/baselines/ppo.py --init benchmarks/results/baselines/bc_model.zip --seconds 300 --seed 0
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _common import Budget, TimeLimit, evaluate, flat_env, one_thread, sb3_policy, write


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--init", type=Path, default=None, help="a saved MaskablePPO model to continue (bc.py's)")
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--seconds", type=float, default=300.0, help="training budget")
    ap.add_argument("--eval-games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/baselines"))
    ap.add_argument("--name", default=None, help="the result's name (default: ppo, or ppo_from_bc with --init)")
    a = ap.parse_args(argv)
    one_thread()
    from sb3_contrib import MaskablePPO

    env = flat_env(a.opponent, seed=a.seed)
    if a.init is not None:
        model = MaskablePPO.load(a.init, env=env, seed=a.seed)
    else:
        model = MaskablePPO("MlpPolicy", env, seed=a.seed, verbose=0, n_steps=1024, batch_size=256,
                            policy_kwargs={"net_arch": [128, 128]})
    t0 = time.perf_counter()
    model.learn(total_timesteps=10**9, callback=TimeLimit(Budget(a.seconds)))
    train_s = time.perf_counter() - t0
    print(f"{model.num_timesteps} steps in {train_s:.0f}s; evaluation:", flush=True)
    table = evaluate(sb3_policy(model), a.eval_games)
    name = a.name or ("ppo_from_bc" if a.init is not None else "ppo")
    write(a.out, name, {"method": f"MaskablePPO against {a.opponent}" + (f", from {a.init}" if a.init else
                                                                          ", from scratch"),
                        "variant": "default rules, 2 players", "seed": a.seed, "steps": model.num_timesteps,
                        "train_seconds": round(train_s, 1), "against": table})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
