"""A ladder: bots rated on one Elo scale from round-robin 2-player games.

Every pair of bots plays ``--games`` games through the simulator
(:func:`civlite.sim.simulator.simulate`: seats alternate, deals seeded per game, the
same deals for every pair); a Bradley–Terry model is fitted to all the results at
once (a draw counts half a win to each side; one virtual draw per pair keeps a pair
that never lost finite) and its strengths are printed as Elo ratings
(400·log10), ``random`` anchored at 0. The ± column is one standard error from the
fit's curvature (the Fisher information) of each rating's difference from
``--se-anchor``'s (default ``heuristic``).

    nice -n 10 .venv/bin/python benchmarks/ladder.py --games 40 \\
        --out benchmarks/results/ladder

writes ``ladder.json`` (every pair's score, the ratings) and ``ladder.md`` (the
table the README shows) in ``--out``; ``--resume`` replays nothing a previous run
of the same pair, seed and number of games already finished.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DEFAULT_BOTS = ("random", "heuristic", "policy", "ismcts:iterations=25", "ismcts:iterations=100",
                "ismcts:iterations=400")


def fit_bradley_terry(names: Sequence[str], results: dict[tuple[str, str], tuple[float, int]],
                      prior_draws: float = 1.0, anchor: str | None = None,
                      iters: int = 10_000) -> tuple[dict[str, float], dict[str, float]]:
    """Elo ratings and standard errors from pairwise results.

    ``results[(a, b)] = (score of a, games)`` (a win 1, a draw 1/2). Maximum likelihood
    of P(a beats b) = 1 / (1 + 10^((R_b - R_a)/400)) with ``prior_draws`` virtual draws
    added to every pair that met; ``anchor`` (default the first name) is rated 0."""
    idx = {n: i for i, n in enumerate(names)}
    k = len(names)
    wins = [[0.0] * k for _ in range(k)]  # wins[i][j]: i's score against j
    games = [[0.0] * k for _ in range(k)]
    for (a, b), (score, n) in results.items():
        i, j = idx[a], idx[b]
        wins[i][j] += score + prior_draws / 2
        wins[j][i] += n - score + prior_draws / 2
        games[i][j] += n + prior_draws
        games[j][i] += n + prior_draws
    # minorisation-maximisation (Hunter 2004) on strengths p_i
    p = [1.0] * k
    for _ in range(iters):
        delta = 0.0
        for i in range(k):
            w = sum(wins[i])
            d = sum(games[i][j] / (p[i] + p[j]) for j in range(k) if j != i and games[i][j])
            if d > 0 and w > 0:
                new = w / d
                delta = max(delta, abs(math.log(new / p[i])))
                p[i] = new
        g = math.exp(sum(math.log(x) for x in p) / k)
        p = [x / g for x in p]
        if delta < 1e-10:
            break
    a0 = idx[anchor if anchor is not None else names[0]]
    scale = 400.0 / math.log(10.0)
    theta = [math.log(x) for x in p]
    elo = {n: scale * (theta[idx[n]] - theta[a0]) for n in names}
    # Fisher information in natural-log units, anchor removed
    free = [i for i in range(k) if i != a0]
    info = [[0.0] * len(free) for _ in free]
    for u, i in enumerate(free):
        for j in range(k):
            if j == i or not games[i][j]:
                continue
            q = p[i] / (p[i] + p[j])
            h = games[i][j] * q * (1 - q)
            info[u][u] += h
            if j != a0:
                info[u][free.index(j)] -= h
    cov = _inverse(info)
    se = {names[a0]: 0.0}
    for u, i in enumerate(free):
        se[names[i]] = scale * math.sqrt(max(cov[u][u], 0.0)) if cov else float("nan")
    return elo, se


def _inverse(m: list[list[float]]) -> list[list[float]]:
    """Gauss–Jordan inverse of a small symmetric positive matrix ([] if singular)."""
    n = len(m)
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(m)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(a[r][c]))
        if abs(a[piv][c]) < 1e-12:
            return []
        a[c], a[piv] = a[piv], a[c]
        f = a[c][c]
        a[c] = [x / f for x in a[c]]
        for r in range(n):
            if r != c and a[r][c]:
                g = a[r][c]
                a[r] = [x - g * y for x, y in zip(a[r], a[c], strict=True)]
    return [row[n:] for row in a]


def table(names: Sequence[str], elo: dict[str, float], se: dict[str, float],
          results: dict[tuple[str, str], tuple[float, int]], se_ref: str = "") -> str:
    """The ladder as a Markdown table, best first."""
    score = dict.fromkeys(names, 0.0)
    played = dict.fromkeys(names, 0)
    for (a, b), (s, n) in results.items():
        score[a] += s
        score[b] += n - s
        played[a] += n
        played[b] += n
    pm = f"± vs `{se_ref}`" if se_ref else "±"
    lines = [f"| rank | bot | Elo | {pm} | games | score |", "|---:|---|---:|---:|---:|---:|"]
    for r, n in enumerate(sorted(names, key=lambda x: -elo[x]), 1):
        lines.append(f"| {r} | `{n}` | {elo[n]:.0f} | {se[n]:.0f} | {played[n]} | "
                     f"{score[n] / max(1, played[n]):.1%} |")
    return "\n".join(lines)


def play_pair(a: str, b: str, games: int, seed: int, out: Path | None, workers: int, resume: bool
              ) -> tuple[float, int, float]:
    """``games`` games of ``a`` against ``b`` (seats alternated); ``(a's score, games, seconds)``."""
    from civlite.sim.simulator import SimConfig, simulate

    cfg = SimConfig(bots=(a, b), players=2, games=games, seed=seed)
    res = simulate(cfg, out=out, workers=workers, resume=resume and out is not None)
    s = 0.0
    for ln in res.lines:
        st = ln["stats"]
        bots = ln["bots"]
        if st["winner"] is None:
            s += 0.5
        elif bots[st["winner"]] == a:
            s += 1.0
    return s, len(res.lines), res.seconds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bots", default=";".join(DEFAULT_BOTS), help="bot specs separated by ';'")
    ap.add_argument("--games", type=int, default=40, help="games per pair (even: seats alternate)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default="", help="directory for ladder.json, ladder.md and each pair's run")
    ap.add_argument("--se-anchor", default="heuristic", help="the ± column: standard error of the difference from this bot")
    ap.add_argument("--resume", action="store_true", help="keep the games each pair's run directory already has")
    a = ap.parse_args(argv)
    names = [s.strip() for s in a.bots.split(";") if s.strip()]
    out = Path(a.out) if a.out else None
    results: dict[tuple[str, str], tuple[float, int]] = {}
    pairs: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for x, y in itertools.combinations(names, 2):
        sub = out / "pairs" / f"{x}--{y}".replace(":", "_").replace("=", "") if out else None
        s, n, sec = play_pair(x, y, a.games, a.seed, sub, a.workers, a.resume)
        results[(x, y)] = (s, n)
        pairs.append({"a": x, "b": y, "games": n, "score_a": s, "seconds": round(sec, 1)})
        print(f"{x:>24} vs {y:<24} {s:5.1f}/{n}  ({sec:.0f}s)", flush=True)
    elo, _ = fit_bradley_terry(names, results, anchor="random" if "random" in names else None)
    # the ± are of each rating's difference from --se-anchor's (random, which never wins,
    # is the zero of the scale but a poor reference for the uncertainty of the others)
    ref = a.se_anchor if a.se_anchor in names else names[0]
    _, se = fit_bradley_terry(names, results, anchor=ref)
    md = table(names, elo, se, results, ref)
    print(md)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        doc = {"bots": names, "games_per_pair": a.games, "seed": a.seed, "players": 2,
               "model": "Bradley-Terry, Elo = 400 log10 strength, one virtual draw per pair, random = 0",
               "se_of_difference_from": ref,
               "elo": elo, "se": se, "pairs": pairs, "seconds": round(time.perf_counter() - t0, 1),
               "python": platform.python_version()}
        (out / "ladder.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        (out / "ladder.md").write_text(md + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
