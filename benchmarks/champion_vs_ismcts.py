"""``champion`` (its leaf value from the network alone, or mixed with heuristic rollouts)
against ``ismcts``, at equal thinking time, measured as iterations so that a loaded machine
cannot tilt it.

1. **Rates**: each spec searches the same 2-player positions ``--rate-iterations`` times;
   its median iterations per second of CPU time is its rate (the machine's other load does
   not count; whether the engine ran compiled is recorded).
2. **Matches**: each challenger, at ``rate × --seconds`` iterations a move, plays ``ismcts`` at
   its own ``rate × --seconds``, 2 players; every deal is played twice, seats swapped. Each
   game is appended to ``OUT.games.jsonl`` as it ends, so a stopped run resumes
   (``--resume`` keeps the games there and the rates in ``OUT``).

    nice -n 19 .venv/bin/python benchmarks/champion_vs_ismcts.py --games 400 \\
        --challengers "champion;champion:rollout=8" --out benchmarks/results/champion_vs_ismcts.json
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from pathlib import Path
from typing import Any

from statsmodels.stats.proportion import proportion_confint

from civlite.bots import make_bot
from civlite.engine import COMPILED, DISCARD_BASE, Game


def positions(count: int, seed: int) -> list[Game]:
    """2-player positions with a real choice, from ``heuristic`` self-play."""
    out: list[Game] = []
    rng = random.Random(seed)
    while len(out) < count:
        g = Game(2, seed=rng.randrange(2**31))
        bot = make_bot("heuristic", seed=1)
        k = 0
        while not g.over:
            s = g.to_move
            assert s is not None
            legal = g.legal_ids()
            if len(legal) > 2 and legal[0] < DISCARD_BASE and k % 7 == 3 and len(out) < count:
                out.append(g.clone())
            g.apply_id(bot.act(g.view(s), legal))
            k += 1
    return out


def rates(specs: list[str], count: int, iterations: int, seed: int) -> dict[str, float]:
    """Each spec's median iterations per second of this process's CPU time (so that other
    processes on the machine do not count), over the same positions."""
    per: dict[str, list[float]] = {s: [] for s in specs}
    for g in positions(count, seed):
        s = g.to_move
        assert s is not None
        view, legal = g.view(s), g.legal_ids()
        for spec in specs:
            bot = make_bot(with_iterations(spec, iterations) + ("" if "ismcts" not in spec else ",early_stop=0"),
                           seed=1)
            t = time.process_time()
            bot.act(view, legal)
            per[spec].append(bot.last_iterations / (time.process_time() - t))  # type: ignore[attr-defined]
    return {k: round(statistics.median(v), 1) for k, v in per.items()}


def with_iterations(spec: str, iterations: int) -> str:
    # (ismcts's early stop, on by default, plays the same move as the full budget, sooner)
    return f"{spec}{',' if ':' in spec else ':'}iterations={iterations}"


def play(a: str, b: str, deal: int, a_seat: int) -> float:
    """The score of ``a`` in seat ``a_seat`` against ``b`` on deal ``deal``."""
    g = Game(2, seed=deal)
    bots = [make_bot(a if s == a_seat else b, seed=deal * 2 + s) for s in range(2)]
    while not g.over:
        s = g.to_move
        assert s is not None
        g.apply_id(bots[s].act(g.view(s), g.legal_ids()))
    if g.winner is not None:
        return 1.0 if g.winner == a_seat else 0.0
    drawn = g.drawn or (0, 1)
    return 1.0 / len(drawn) if a_seat in drawn else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--challengers", default="champion;champion:rollout=8")
    ap.add_argument("--reference", default="ismcts")
    ap.add_argument("--seconds", type=float, default=0.5, help="the thinking time matched, a move")
    ap.add_argument("--games", type=int, default=400, help="games a challenger (even: each deal twice)")
    ap.add_argument("--rate-positions", type=int, default=12)
    ap.add_argument("--rate-iterations", type=int, default=600)
    ap.add_argument("--seed", type=int, default=31_000)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--resume", action="store_true")
    a = ap.parse_args()
    challengers = [s.strip() for s in a.challengers.split(";") if s.strip()]
    games_path = a.out.with_suffix(".games.jsonl")
    res: dict[str, Any] = {}
    if a.resume and a.out.exists():
        res = json.loads(a.out.read_text())
    if "rates" not in res or set(res["rates"]) != {a.reference, *challengers}:
        res = {"machine": platform.machine(), "python": platform.python_version(),
               "seconds": a.seconds, "reference": a.reference,
               "engine_compiled": COMPILED,
               "rates": rates([a.reference, *challengers], a.rate_positions, a.rate_iterations, a.seed)}
        games_path.write_text("")
    r = res["rates"]
    budgets = {s: max(1, round(r[s] * a.seconds)) for s in [a.reference, *challengers]}
    res["iterations"] = budgets
    a.out.write_text(json.dumps(res, indent=1) + "\n")
    done: dict[str, dict[int, float]] = {c: {} for c in challengers}
    if games_path.exists():
        for line in games_path.read_text().splitlines():
            rec = json.loads(line)
            if rec["challenger"] in done:
                done[rec["challenger"]][rec["game"]] = rec["score"]
    ref = with_iterations(a.reference, budgets[a.reference])
    for i in range(a.games):  # the challengers take turns, game by game
        for c in challengers:
            if i in done[c]:
                continue
            spec = with_iterations(c, budgets[c])
            score = play(spec, ref, a.seed + i // 2, i % 2)
            done[c][i] = score
            with games_path.open("a") as f:
                f.write(json.dumps({"challenger": c, "game": i, "score": score}) + "\n")
        if (i + 1) % 10 == 0 or i + 1 == a.games:
            res["matches"] = {}
            for c in challengers:
                s = list(done[c].values())
                lo, hi = proportion_confint(round(sum(s)), len(s), method="wilson")
                res["matches"][c] = {"vs": ref, "as": with_iterations(c, budgets[c]), "games": len(s),
                                     "score": round(sum(s) / len(s), 4), "wilson95": [round(lo, 4), round(hi, 4)]}
            a.out.write_text(json.dumps(res, indent=1) + "\n")
            print(json.dumps(res["matches"]), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
