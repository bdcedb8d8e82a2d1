"""Baseline: behaviour cloning from ``civlite dataset`` (strong self-play), then the evaluation table.

Makes a data set with ``civlite dataset`` (``--games`` games of ``hard`` against itself,
one worker) unless ``--data`` names one, and fits the actor of a MaskablePPO ``MlpPolicy``
(two layers of ``--hidden``) to the recorded actions by masked cross-entropy, until
``--seconds`` run out or ``--epochs`` are done. Saves the model (``--model``, an SB3 zip
that ``ppo.py --init`` continues from) and writes ``--out/bc.json``.

    nice .venv/bin/python examples/baselines/bc.py --games 200 --seconds 120 --seed 0 --out benchmarks/results/baselines
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from _common import Budget, evaluate, flat_env, one_thread, sb3_policy, write


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=None, help="a civlite dataset folder (default: make one)")
    ap.add_argument("--games", type=int, default=200, help="games of the data set to make")
    ap.add_argument("--seconds", type=float, default=120.0, help="training budget")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--eval-games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/baselines"))
    ap.add_argument("--model", type=Path, default=None, help="where to save the model (default: OUT/bc_model.zip)")
    a = ap.parse_args(argv)
    one_thread()
    import torch
    from sb3_contrib import MaskablePPO

    from civlite.rl.dataset import load

    t0 = time.perf_counter()
    data_dir = a.data
    if data_dir is None:
        data_dir = a.out / f"bc_dataset_{a.games}_{a.seed}"
        if not (data_dir / "decisions.parquet").exists():
            civlite = Path(sys.executable).parent / "civlite"
            subprocess.run([str(civlite), "dataset", "--games", str(a.games), "--out", str(data_dir), "--seed",
                            str(a.seed + 1), "--workers", "1", "--force"], check=True)
    data = load(data_dir)
    keep = data["legal_mask"].sum(1) > 1  # a forced move teaches nothing
    x = torch.as_tensor(data["observation"][keep])
    act = torch.as_tensor(data["action"][keep].astype(np.int64))
    mask = torch.as_tensor(data["legal_mask"][keep])
    print(f"{len(act)} decisions from {data_dir} ({time.perf_counter() - t0:.0f}s)", flush=True)

    torch.manual_seed(a.seed)
    model = MaskablePPO("MlpPolicy", flat_env(seed=a.seed), seed=a.seed, verbose=0,
                        policy_kwargs={"net_arch": [a.hidden, a.hidden]})
    pol = model.policy
    opt = torch.optim.Adam([*pol.mlp_extractor.policy_net.parameters(), *pol.action_net.parameters()], lr=1e-3)
    budget = Budget(a.seconds)
    n = len(act)
    split = int(n * 0.9)  # the last tenth held out
    epochs = 0
    acc_held = 0.0
    while epochs < a.epochs and not budget.over():
        perm = torch.randperm(split)
        for k in range(0, split, 512):
            idx = perm[k:k + 512]
            lat, _ = pol.mlp_extractor(x[idx])
            logits = pol.action_net(lat).masked_fill(~mask[idx], -1e9)
            loss = torch.nn.functional.cross_entropy(logits, act[idx])
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
        epochs += 1
        with torch.no_grad():
            lat, _ = pol.mlp_extractor(x[split:])
            logits = pol.action_net(lat).masked_fill(~mask[split:], -1e9)
            acc_held = float((logits.argmax(-1) == act[split:]).float().mean())
        print(f"epoch {epochs}: held-out agreement with the teacher {acc_held:.1%}", flush=True)
    model_path = a.model or a.out / "bc_model.zip"
    model_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(model_path)
    train_s = time.perf_counter() - t0
    print("evaluation:", flush=True)
    table = evaluate(sb3_policy(model), a.eval_games)
    write(a.out, "bc", {"method": "behaviour cloning (MaskablePPO MlpPolicy actor, masked cross-entropy)",
                        "variant": "default rules, 2 players", "seed": a.seed, "data_games": a.games,
                        "decisions": n, "epochs": epochs, "held_out_agreement": round(acc_held, 3),
                        "train_seconds": round(train_s, 1), "model": str(model_path), "against": table})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
