"""The bots issue's bars for ``expert`` and ``champion``, measured in one run.

* strength (seats alternated through the simulator, 95% Wilson intervals):
  ``expert`` against ``heuristic`` at 2 players, one ``expert`` against three (4 players),
  two (3 players) and five (6 players) ``heuristic``; ``champion`` against ``expert``;
* speed: the median time of one ``expert`` decision (one core, from the view), the
  simulator's games/s for ``expert`` self-play on ``--workers``, ``champion``'s iterations/s.

    .venv/bin/python benchmarks/expert_bars.py --games 1000 --champion-games 100 \\
        --out benchmarks/results/expert_bars.json
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path
from typing import Any

from statsmodels.stats.proportion import proportion_confint

from civlite.bots import make_bot
from civlite.bots.champion import ChampionBot
from civlite.engine import Game
from civlite.sim.simulator import SimConfig, simulate


def share(bots: tuple[str, ...], players: int, games: int, seed: int, workers: int) -> dict[str, Any]:
    r = simulate(SimConfig(bots=bots, players=players, games=games, seed=seed), workers=workers)
    first = bots[0]
    wins = 0.0
    for line in r.lines:
        st = line["stats"]
        seats = [i for i, b in enumerate(line["bots"]) if b == first]
        if st["winner"] is not None:
            wins += 1.0 if st["winner"] in seats else 0.0
        elif st["drawn"]:
            wins += sum(1 for s in seats if s in st["drawn"]) / len(st["drawn"])
    lo, hi = proportion_confint(round(wins), games, method="wilson")
    return {"lineup": list(SimConfig(bots=bots, players=players).lineup), "games": games,
            "score": round(wins / games, 4), "wilson95": [round(lo, 4), round(hi, 4)],
            "fair_share": round(1 / players, 4), "ratio_to_fair": round(wins / games * players, 3),
            "seconds": round(r.seconds, 1)}


def decision_time(samples: int) -> dict[str, float]:
    bot = make_bot("expert", seed=0)
    times = []
    g = Game(4, seed=1)
    k = 0
    while len(times) < samples:
        if g.over:
            k += 1
            g = Game(2 + k % 7, seed=k)
        seat = g.to_move
        assert seat is not None
        view, legal = g.view(seat), g.legal_ids()
        t = time.perf_counter()
        a = bot.act(view, legal)
        times.append(time.perf_counter() - t)
        g.apply_id(a)
    times.sort()
    return {"median_us": round(statistics.median(times) * 1e6, 1), "p90_us": round(times[len(times) * 9 // 10] * 1e6, 1)}


def champion_rate(decisions: int) -> dict[str, float]:
    bot = make_bot("champion:seconds=0.2", seed=0)
    assert isinstance(bot, ChampionBot)
    rates = []
    g = Game(2, seed=5)
    while len(rates) < decisions and not g.over:
        seat = g.to_move
        assert seat is not None
        legal = g.legal_ids()
        if len(legal) > 1 and legal[0] < 145:
            t = time.perf_counter()
            bot.search(g.view(seat), legal)
            rates.append(bot.last_iterations / (time.perf_counter() - t))
        g.apply_id(legal[0] if len(legal) == 1 else make_bot("expert").act(g.view(seat), legal))
    return {"median_iterations_per_s": round(statistics.median(rates)), "decisions": len(rates)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--champion-games", type=int, default=400)
    ap.add_argument("--champion-seconds", type=float, default=0.2)
    ap.add_argument("--sim-games", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--strength-only", action="store_true", help="only the matches against heuristic")
    a = ap.parse_args()
    res: dict[str, Any] = {"machine": platform.machine(), "python": platform.python_version(),
                           "command": "benchmarks/expert_bars.py " + " ".join(
                               f"--{k.replace('_', '-')} {v}" for k, v in vars(a).items() if k != "out" and v is not None)}
    if not a.strength_only:
        res["expert_decision"] = decision_time(20_000)
        res["champion_speed"] = champion_rate(30)
        t = time.perf_counter()
        simulate(SimConfig(bots=("expert", "expert"), players=2, games=a.sim_games, seed=a.seed), workers=a.workers)
        res["sim_expert_selfplay"] = {"games": a.sim_games, "workers": a.workers,
                                      "games_per_s": round(a.sim_games / (time.perf_counter() - t), 1)}
    res["expert_vs_heuristic_2p"] = share(("expert", "heuristic"), 2, a.games, a.seed, a.workers)
    res["expert_vs_3_heuristic_4p"] = share(("expert", "heuristic"), 4, a.games, a.seed, a.workers)
    res["expert_vs_2_heuristic_3p"] = share(("expert", "heuristic"), 3, a.games, a.seed, a.workers)
    res["expert_vs_5_heuristic_6p"] = share(("expert", "heuristic"), 6, a.games, a.seed, a.workers)
    if a.champion_games and not a.strength_only:
        res["champion_vs_expert_2p"] = share((f"champion:seconds={a.champion_seconds:g}", "expert"), 2,
                                             a.champion_games, a.seed, a.workers)
    text = json.dumps(res, indent=1)
    print(text)
    if a.out:
        a.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
