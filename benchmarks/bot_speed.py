"""Bot speed: ISMCTS iterations/s, heuristic decisions/s, and a 10,000-game sim + report.

    python benchmarks/bot_speed.py [--json] [--sim-games 10000] [--skip-sim] [--iterations 800]

ISMCTS is timed on one core from mid-game positions (heuristic play up to turn 10
with 2 players, turn 16 with 4, at an action decision), for the default spec and
a few variants, each from empty evaluator caches: "cold" over a first set of positions,
then the reported rate over another set (caches warmed by the first, as in play). Heuristic decisions/s is the bot alone (views built beforehand)
and in play (view building and the engine included). The sim uses all cores
(multiprocessing) like ``civlite sim``; its time includes writing the records;
the report time includes reading them back and drawing the charts.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from typing import Any

from civlite.bots import make_bot, play_step
from civlite.bots.heuristic import clear_caches
from civlite.engine import Game, View


def midgame_positions(players: int, count: int, turn: int, seed: int = 0) -> list[Game]:
    out = []
    i = 0
    while len(out) < count:
        g = Game(players=players, seed=seed + i)
        i += 1
        bots = [make_bot("heuristic", seed=p) for p in range(players)]
        while not g.over and not (g.turn >= turn and g.pending is not None and g.pending.kind == "action"):
            play_step(bots[g.to_move], g)  # type: ignore[index]
        if not g.over:
            out.append(g)
    return out


def ismcts_rate(spec: str, players: int, iterations: int, positions: int) -> dict[str, Any]:
    """Iterations/s of ``spec`` over ``positions`` mid-game positions, cold and warm.

    The heuristic evaluator memoises hand values, so a bot that has been playing for a
    while (any game or sim) is faster than a fresh one. Each spec starts from empty
    caches: it first searches ``positions`` *other* mid-game positions (the cold rate),
    then the measured ones (the warm rate: caches as earlier searches left them, never
    from the measured positions themselves).
    """
    turn = 10 if players == 2 else 16
    warmup = midgame_positions(players, positions, turn, seed=10_000)
    pos = midgame_positions(players, positions, turn)
    # early_stop=off: every search runs its whole budget, so the same work is timed whatever the spec
    bot = make_bot(f"{spec}{',' if ':' in spec else ':'}iterations={iterations},early_stop=off", seed=1)
    clear_caches()
    cold = _time_searches(bot, warmup)
    warm = _time_searches(bot, pos)
    return {"spec": spec, "players": players, "positions": len(pos), "iterations": warm["iterations"],
            "seconds": warm["seconds"], "iterations_per_s": warm["iterations_per_s"],
            "cpu_seconds": warm["cpu_seconds"], "iterations_per_cpu_s": warm["iterations_per_cpu_s"],
            "cold_iterations_per_s": cold["iterations_per_s"]}


def _time_searches(bot: Any, positions: list[Game]) -> dict[str, Any]:
    total = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    for g in positions:
        bot.search(g.view(g.to_move), g.legal_ids())
        total += bot.last_iterations
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    return {"iterations": total, "seconds": round(dt, 3), "iterations_per_s": round(total / dt, 1),
            "cpu_seconds": round(cpu, 3), "iterations_per_cpu_s": round(total / cpu, 1)}


def heuristic_rate(games: int = 60) -> dict[str, Any]:
    views: list[tuple[View, list[int]]] = []
    t0 = time.perf_counter()
    c0 = time.process_time()
    steps = 0
    for i in range(games):
        g = Game(players=2 + i % 3, seed=1000 + i)
        bots = [make_bot("heuristic", seed=p) for p in range(g.n)]
        while not g.over:
            if len(views) < 20000:
                views.append((g.view(g.to_move), g.legal_ids()))  # type: ignore[arg-type]
            play_step(bots[g.to_move], g)  # type: ignore[index]
            steps += 1
    in_play = time.perf_counter() - t0
    in_play_cpu = time.process_time() - c0
    bot = make_bot("heuristic", seed=1)
    t0 = time.perf_counter()
    c0 = time.process_time()
    for v, legal in views:
        bot.act(v, legal)
    alone = time.perf_counter() - t0
    alone_cpu = time.process_time() - c0
    return {"decisions_per_s_bot_only": round(len(views) / alone, 1),
            "decisions_per_cpu_s_bot_only": round(len(views) / alone_cpu, 1),
            "steps_per_s_in_play": round(steps / in_play, 1),
            "steps_per_cpu_s_in_play": round(steps / in_play_cpu, 1), "games": games}


def sim_and_report(games: int) -> dict[str, Any]:
    import resource

    from civlite.sim import SimConfig, simulate
    from civlite.sim.report import build_report

    def cpu_all() -> float:
        me = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    with tempfile.TemporaryDirectory() as d:
        cfg = SimConfig(bots=("heuristic",), players=2, games=games, seed=1)
        t0 = time.perf_counter()
        c0 = cpu_all()
        res = simulate(cfg, out=d, progress=False)
        t_sim = time.perf_counter() - t0
        c_sim = cpu_all() - c0
        t0 = time.perf_counter()
        c0 = cpu_all()
        build_report(d)
        t_rep = time.perf_counter() - t0
        c_rep = cpu_all() - c0
    return {"games": res.summary["games"], "workers": os.cpu_count(), "sim_seconds": round(t_sim, 2),
            "report_seconds": round(t_rep, 2), "total_seconds": round(t_sim + t_rep, 2),
            "games_per_s": round(games / t_sim, 1), "sim_cpu_seconds": round(c_sim, 2),
            "report_cpu_seconds": round(c_rep, 2),
            "seat0_win_rate": res.summary["seat_wins"][0] / max(1, games - res.summary["draws"])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--iterations", type=int, default=800, help="ISMCTS iterations per position")
    ap.add_argument("--positions", type=int, default=12, help="mid-game positions per player count")
    ap.add_argument("--sim-games", type=int, default=10000)
    ap.add_argument("--skip-sim", action="store_true")
    args = ap.parse_args()
    out: dict[str, Any] = {"python": platform.python_version(), "cpus": os.cpu_count(),
                           "load_avg_1m": os.getloadavg()[0] if hasattr(os, "getloadavg") else None}
    out["ismcts"] = [ismcts_rate(spec, players, args.iterations, args.positions)
                     for players in (2, 4)
                     for spec in ("ismcts", "ismcts:depth=12", "ismcts:depth=4", "ismcts:depth=0",
                                  "ismcts:rollout=random")]
    out["heuristic"] = heuristic_rate()
    if not args.skip_sim:
        out["sim_10k"] = sim_and_report(args.sim_games)
    if args.json:
        sys.stdout.write(json.dumps(out) + "\n")
        return
    for r in out["ismcts"]:
        print(f"ISMCTS {r['spec']:<24} {r['players']}p: {r['iterations_per_s']:>8.0f} iterations/s "
              f"(cold: {r['cold_iterations_per_s']:.0f})")
    h = out["heuristic"]
    print(f"heuristic: {h['decisions_per_s_bot_only']:.0f} decisions/s (bot only), "
          f"{h['steps_per_s_in_play']:.0f} steps/s in play")
    if "sim_10k" in out:
        s = out["sim_10k"]
        print(f"sim {s['games']} games heuristic vs heuristic: {s['sim_seconds']} s + report {s['report_seconds']} s "
              f"= {s['total_seconds']} s ({s['workers']} workers)")


if __name__ == "__main__":
    main()
