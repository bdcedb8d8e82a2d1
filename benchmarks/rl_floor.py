"""How fast could the PettingZoo loop go? (the floor of issue 15's bar)

Runs the AEC loop of ``benchmarks/rl_speed.py`` (its ``pettingzoo_loop``: ``agent_iter``, ``last()``, a uniformly
random legal action, ``step``) on ``raw_env()`` and ``env()``, with and without
``copy=False``, interleaved with the raw engine's loop and with

* ``no_env`` (no environment at all): what an AEC step does, called straight on the game:
  ``legal_ids``, the observation written into a preallocated ``ObservationBuffer`` (the
  ``copy=False`` observation), the agent's ``mask.nonzero()`` pick, ``apply_id``: the floor
  of any environment API over this engine and observation.

Ratios are medians of each round's ratio to the engine loop run in that round. (Earlier
versions also replaced the environment's ``observe`` to price the observation; the
environment's calls now run compiled in ``civlite.rl.aec.AECCore``, which does not go
through the instance's ``observe``.)

    taskset -c 1 python benchmarks/rl_floor.py --seconds 3 --rounds 3 --out benchmarks/results/rl_floor.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time

from rl_speed import engine_loop, pettingzoo_loop

from civlite.engine import COMPILED, Game
from civlite.rl.encoding import ObservationBuffer


def no_env(players: int, seconds: float) -> float:
    """The AEC step's work with no environment (see the module's description)."""
    r = random.Random(2)
    buf = ObservationBuffer(players)
    mask = buf.mask
    n = 0
    t0 = time.perf_counter()
    end = t0 + seconds
    while time.perf_counter() < end:
        g = Game(players, seed=r.getrandbits(62))
        g.quiet = True
        while not g.over:
            legal_ids = g.legal_ids()
            seat = g.to_move
            assert seat is not None
            buf.write(g, seat, legal_ids)
            legal = mask.nonzero()[0]
            g.apply_id(int(legal[int(r.random() * len(legal))]), False)
            n += 1
    return n / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--out", default="")
    ap.add_argument("--note", default="")
    a = ap.parse_args(argv)
    eng = engine_loop(a.players)
    kinds = [(w, c) for w in (False, True) for c in (True, False)]
    names = {k: f"{'wrapped' if k[0] else 'raw'}{'' if k[1] else '_nocopy'}" for k in kinds}
    runs: dict[str, list[float]] = {k: [] for k in ["engine", *names.values(), "no_env"]}
    for rnd in range(a.rounds):
        runs["engine"].append(eng(a.seconds)["decisions_per_s"])
        for k in kinds:
            runs[names[k]].append(pettingzoo_loop(a.players, k[0], k[1])(a.seconds)["decisions_per_s"])
        runs["no_env"].append(no_env(a.players, a.seconds))
        print(f"round {rnd + 1}: " + ", ".join(f"{k} {v[-1]:,.0f}" for k, v in runs.items()), flush=True)
    med = {k: statistics.median(v) for k, v in runs.items()}
    paired = {k: statistics.median(x / e for x, e in zip(v, runs["engine"], strict=True)) for k, v in runs.items()}
    for k, v in med.items():
        print(f"  {k:<18} {v:>10,.0f} decisions/s  ({paired[k]:.2f} x engine)")
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump({"players": a.players, "seconds": a.seconds, "rounds": a.rounds, "compiled_engine": COMPILED,
                       "medians": med, "ratios_to_engine": {k: v / med["engine"] for k, v in med.items()},
                       "paired_ratios_to_engine": paired,
                       "runs": runs, "conditions": {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                                    "affinity": sorted(os.sched_getaffinity(0)), "nice": os.nice(0),
                                                    "load_avg_1m": round(os.getloadavg()[0], 2), "note": a.note}},
                      f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
