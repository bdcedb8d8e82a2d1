"""Compare training recipes of ``examples/rollout_distil.py`` on one round's positions.

Each recipe (a JSON object of the script's training options, e.g. ``{"target": "move",
"bonus": 0.05}``) trains a candidate from the run's network on the round-0 shards of
``--dir``; every candidate and the network then play one seat against ``heuristic`` on the
same ``--games`` deals (``--seed``; seats rotated). One JSON line a recipe, appended to
``--out``.

    python benchmarks/distil_recipes.py --dir artifacts/rd3b --players 3 --games 6000 \\
        --seed 9400000 '{"tau": 0.05}' '{"target": "move", "bonus": 0.05}' --out FILE.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import rollout_distil as rd  # type: ignore[import-not-found]  # noqa: E402

from civlite.bots.expert import ExpertNet  # noqa: E402

DEFAULTS = {"bonus": 0.02, "lr": 3e-4, "epochs": 8, "minibatch": 256, "vf": 1.0, "target": "weighted",
            "tau": 0.05, "train": "all"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("recipes", nargs="+", help="JSON objects of training options")
    ap.add_argument("--dir", type=Path, required=True)
    ap.add_argument("--players", type=int, required=True)
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=9_100_000)
    ap.add_argument("--train-seed", type=int, default=7)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    shards = sorted(a.dir.glob("r000_s*.npz"))
    if not shards:
        ap.error(f"no round-0 shards in {a.dir}")
    net = ExpertNet.load(a.dir / "best.npz")
    base = rd.match(net, "heuristic", a.players, a.games, a.seed)
    for text in a.recipes:
        recipe = json.loads(text)
        unknown = set(recipe) - set(DEFAULTS)
        if unknown:
            ap.error(f"unknown training options {sorted(unknown)} in {text}")
        t0 = time.time()
        cand, stats = rd.train(net, shards, argparse.Namespace(**{**DEFAULTS, **recipe}), a.train_seed)
        score = rd.match(cand, "heuristic", a.players, a.games, a.seed)
        line = {"players": a.players, "recipe": {**DEFAULTS, **recipe}, "positions": stats["samples"],
                "judged": stats["judged"], "games": a.games, "seed": a.seed, "candidate": round(score, 4),
                "network": round(base, 4), "agreement_before": stats["agreement_before"],
                "agreement_after": stats["agreement_after"], "seconds": round(time.time() - t0)}
        with a.out.open("a") as f:
            f.write(json.dumps(line) + "\n")
        print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
