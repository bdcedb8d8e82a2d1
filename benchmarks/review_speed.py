"""Review speed and memory: a 30-decision 2-player game reviewed at the default budget.

    python benchmarks/review_speed.py [--games 3] [--budget 800] [--workers 2] [--json OUT]

The records are 2-player games at the default rules (``heuristic`` against ``expert``, seeded)
in which seat 0 makes 28 to 32 decisions; each is reviewed for seat 0 with
``civlite.review.review_record`` (the same call as ``civlite review``), timed wall-clock.
Memory: the peak of Python allocations (tracemalloc) while rating one decision, and while
reviewing a whole game in one process, at the budget and at ten times it: the search of a
decision is freed before the next, so the whole game's peak stays near one decision's.
Stability: the first game reviewed again with another search seed; the share of its decisions
(those with more than one option) that get the same mark, and the mean difference of losses.
The machine's load average is recorded beside the times (other work shares the cores).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

from civlite.bots import decide, make_bot
from civlite.engine import Game, GameRecord
from civlite.review import DEFAULT_BUDGET, rate_decision, review_record


def records(count: int, low: int = 28, high: int = 32) -> list[GameRecord]:
    out: list[GameRecord] = []
    seed = 0
    while len(out) < count:
        game = Game(players=["ann", "bob"], seed=seed)
        seed += 1
        bots = [make_bot("heuristic", seed=1), make_bot("expert", seed=2)]
        mine = 0
        while not game.over:
            mine += game.to_move == 0
            game.apply(decide(bots[game.to_move], game))  # type: ignore[index]
        if low <= mine <= high:
            out.append(GameRecord.of(game))
    return out


def peak(fn: Any) -> float:
    """Peak MB of Python allocations while ``fn()`` runs."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", type=Path, default=None, help="write the results here")
    args = ap.parse_args(argv)
    recs = records(args.games)
    rows = []
    reviews = []
    for rec in recs:
        load = os.getloadavg()[0]
        t0 = time.perf_counter()
        review = review_record(rec, 0, budget=args.budget, workers=args.workers)
        dt = time.perf_counter() - t0
        reviews.append(review)
        rows.append({"seed": rec.seed, "decisions": len(review.decisions), "seconds": round(dt, 2),
                     "load_before": round(load, 2)})
        print(f"seed {rec.seed}: {len(review.decisions)} decisions in {dt:.1f} s (load {load:.1f})",
              file=sys.stderr)
    again = review_record(recs[0], 0, budget=args.budget, seed=1, workers=args.workers)
    pairs = [(a, b) for a, b in zip(reviews[0].decisions, again.decisions, strict=True) if not a.forced]
    stability = {"decisions": len(pairs),
                 "same_mark": round(sum(a.mark == b.mark for a, b in pairs) / len(pairs), 3),
                 "mean_loss_difference": round(sum(abs(a.loss - b.loss) for a, b in pairs) / len(pairs), 4)}
    # memory: one decision (the first action decision past turn 4) and a whole game in-process
    rec = recs[0]
    game = rec.initial()
    for action in rec.actions:
        if game.to_move == 0 and game.turn > 4 and game.pending is not None and game.pending.kind == "action":
            break
        game.apply(action)
    mem = {}
    for budget in (args.budget, 10 * args.budget):
        mem[f"decision_mb_{budget}"] = round(peak(lambda b=budget: rate_decision(game, action, budget=b)), 2)
    mem[f"game_mb_{args.budget}"] = round(peak(lambda: review_record(rec, 0, budget=args.budget, workers=1)), 2)
    times = [r["seconds"] for r in rows]
    result = {"budget": args.budget, "workers": args.workers, "cpus": os.cpu_count(), "games": rows,
              "median_seconds": statistics.median(times), "max_seconds": max(times), "memory": mem,
              "stability": stability}
    text = json.dumps(result, indent=1)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
