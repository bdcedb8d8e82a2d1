"""Which of OpenSpiel's solvers run on ``python_civlite``, at which sizes: each for a time budget.

Each cell loads one variant, builds one solver and runs its iterations until ``--seconds``
have passed, with numpy's division by zero, invalid results (NaN) and overflow raised (a
reach probability that underflows to 0 is allowed, and ends the cell when it is divided
by), in a child process killed at twice the budget (a solver
whose set-up alone walks the whole tree may never finish it). It reports the iterations
done, the seconds each took, and how the cell ended:

* ``cfr``: tabular CFR (``open_spiel.python.algorithms.cfr``), which walks every history;
* ``outcome``, ``external``: outcome- and external-sampling MCCFR;
* variants: ``exact`` chance at full length and short, the ``sampled`` model (K = 2 outcomes
  a node) by ``turn_limit`` (``victory_ct`` 6, as in ``tests/rl/test_openspiel_cfr.py``).

    nice .venv/bin/python benchmarks/openspiel_limits.py --seconds 30 --out benchmarks/results/openspiel_limits.json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import platform
import sys
import time
from typing import Any

#: (name, parameters of python_civlite)
VARIANTS: dict[str, dict[str, Any]] = {
    "exact, full length": {},
    "exact, turn_limit 3": {"turn_limit": 3},
    "sampled K=2, turn_limit 1": {"chance": "sampled", "chance_outcomes": 2, "turn_limit": 1, "victory_ct": 6},
    "sampled K=2, turn_limit 2": {"chance": "sampled", "chance_outcomes": 2, "turn_limit": 2, "victory_ct": 6},
    "sampled K=2, turn_limit 3": {"chance": "sampled", "chance_outcomes": 2, "turn_limit": 3, "victory_ct": 6},
    "sampled K=2, turn_limit 12": {"chance": "sampled", "chance_outcomes": 2, "turn_limit": 12, "victory_ct": 6},
    "sampled K=4, full length": {"chance": "sampled"},
}

#: the cells run: (solver, variant)
CELLS: list[tuple[str, str]] = [
    ("cfr", "sampled K=2, turn_limit 1"),
    ("cfr", "sampled K=2, turn_limit 2"),
    ("cfr", "exact, turn_limit 3"),
    ("outcome", "exact, full length"),
    ("outcome", "exact, turn_limit 3"),
    ("outcome", "sampled K=2, turn_limit 3"),
    ("outcome", "sampled K=2, turn_limit 12"),
    ("outcome", "sampled K=4, full length"),
    ("external", "exact, turn_limit 3"),
    ("external", "sampled K=2, turn_limit 1"),
    ("external", "sampled K=2, turn_limit 2"),
    ("external", "sampled K=2, turn_limit 3"),
    ("external", "sampled K=2, turn_limit 12"),
]


def _cell(solver: str, params: dict[str, Any], seconds: float, out: Any) -> None:
    import numpy as np
    import pyspiel

    import civlite.rl.openspiel  # noqa: F401  (registers python_civlite)

    game = pyspiel.load_game("python_civlite", {"players": 2, **params})
    t0 = time.perf_counter()
    done = 0
    try:
        with np.errstate(divide="raise", invalid="raise", over="raise"):
            if solver == "cfr":
                from open_spiel.python.algorithms import cfr
                s: Any = cfr.CFRSolver(game)
                step = s.evaluate_and_update_policy
            elif solver == "outcome":
                from open_spiel.python.algorithms import outcome_sampling_mccfr
                s = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
                step = s.iteration
            else:
                from open_spiel.python.algorithms import external_sampling_mccfr
                s = external_sampling_mccfr.ExternalSamplingSolver(game)
                step = s.iteration
            setup = time.perf_counter() - t0
            out.put(("setup", setup))
            while time.perf_counter() - t0 < seconds:
                step()
                done += 1
                out.put(("done", done))
        out.put(("end", f"ran {done} iterations in the budget"))
    except (FloatingPointError, ZeroDivisionError) as e:
        out.put(("error", f"{type(e).__name__} after {done} iterations: {e}"))


def run_cell(solver: str, variant: str, seconds: float) -> dict[str, Any]:
    ctx = mp.get_context("fork")
    q: Any = ctx.Queue()
    p = ctx.Process(target=_cell, args=(solver, VARIANTS[variant], seconds, q))
    t0 = time.perf_counter()
    p.start()
    p.join(2 * seconds)
    killed = p.is_alive()
    if killed:
        p.kill()
        p.join()
    wall = time.perf_counter() - t0
    setup = None
    done = 0
    end = "killed at twice the budget"
    while not q.empty():
        kind, value = q.get()
        if kind == "setup":
            setup = round(value, 2)
        elif kind == "done":
            done = value
        else:
            end = value
    if setup is None and killed:
        end = "the set-up (the whole tree) did not finish in twice the budget"
    return {"solver": solver, "variant": variant, "params": VARIANTS[variant], "setup_s": setup,
            "iterations": done, "s_per_iteration": round((min(wall, 2 * seconds) - (setup or 0)) / done, 3)
            if done else None, "end": end}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    rows = []
    for solver, variant in CELLS:
        row = run_cell(solver, variant, args.seconds)
        print(json.dumps(row), flush=True)
        rows.append(row)
    summary = {"command": "benchmarks/openspiel_limits.py " + " ".join(sys.argv[1:] if argv is None else argv),
               "seconds": args.seconds, "python": platform.python_version(), "players": 2, "cells": rows}
    text = json.dumps(summary, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
