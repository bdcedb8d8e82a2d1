"""Gate a candidate ``expert`` network against the shipped one, on fresh deals.

* head to head: one candidate seat against the best network in every other seat, at the
  table sizes of ``--head-to-head`` (2 and 4 by default; 2 players ``--games``, others
  ``--games4``), each deal played from every seat;
* against ``heuristic``: the candidate and the best network each in one seat against
  ``heuristic`` in the others, at 2, 3, 4 and 6 players (``--games`` each, the same deals for
  both), the strength measures of the bots page.

Scores count a win as 1 and a drawn game as a share; 95% Wilson intervals.

    python benchmarks/network_gate.py artifacts/finetune/expert_ft.npz --out FILE.json
"""

from __future__ import annotations

import argparse
import json
import platform
from pathlib import Path
from typing import Any

from statsmodels.stats.proportion import proportion_confint

from civlite.bots import Bot, make_bot
from civlite.bots.expert import WEIGHTS, ExpertBot, ExpertNet
from civlite.engine import Game

ROOT = Path(__file__).resolve().parents[1]


def shown(path: Path) -> str:
    """``path`` as the recorded command names it: relative to the repository when inside it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def score_of(g: Game, seat: int) -> float:
    if g.winner is not None:
        return 1.0 if g.winner == seat else 0.0
    drawn = g.drawn or tuple(range(g.n))
    return 1.0 / len(drawn) if seat in drawn else 0.0


def match(a: ExpertNet, other: ExpertNet | str, players: int, games: int, seed: int) -> dict[str, Any]:
    """One ``a`` seat against ``players - 1`` of ``other``, seats rotated over each deal."""

    def bot(x: ExpertNet | str, s: int) -> Bot:
        return ExpertBot(seed=s, net=x) if isinstance(x, ExpertNet) else make_bot(x, seed=s)

    total = 0.0
    for i in range(games):
        me, deal = i % players, seed + i // players
        bots = [bot(a if s == me else other, deal * 8 + s) for s in range(players)]
        g = Game(players, seed=deal)
        while not g.over:
            s = g.to_move
            assert s is not None
            g.apply_id(bots[s].act(g.view(s), g.legal_ids()))
        total += score_of(g, me)
    lo, hi = proportion_confint(round(total), games, method="wilson")
    return {"players": players, "games": games, "score": round(total / games, 4),
            "wilson95": [round(lo, 4), round(hi, 4)], "fair_share": round(1 / players, 4)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("candidate", type=Path)
    ap.add_argument("--best", type=Path, default=WEIGHTS)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--games4", type=int, default=400)
    ap.add_argument("--sizes", default="2,3,4,6")
    ap.add_argument("--head-to-head", default="2,4", help="table sizes of the head-to-head games")
    ap.add_argument("--seed", type=int, default=880_000)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    cand, best = ExpertNet.load(a.candidate), ExpertNet.load(a.best)
    res: dict[str, Any] = {
        "command": f"benchmarks/network_gate.py {a.candidate} --games {a.games} --games4 {a.games4} "
                   f"--sizes {a.sizes} --head-to-head {a.head_to_head} --seed {a.seed} --best {shown(a.best)}",
        "python": platform.python_version(),
        "candidate_meta": cand.meta,
        "head_to_head": [match(cand, best, n, a.games if n == 2 else a.games4,
                               a.seed + (0 if n == 2 else 10**5 * (n - 3)))
                         for n in (int(x) for x in a.head_to_head.split(","))],
        "vs_heuristic": {},
    }
    for n in (int(x) for x in a.sizes.split(",")):
        res["vs_heuristic"][str(n)] = {"candidate": match(cand, "heuristic", n, a.games, a.seed + n * 10**6),
                                       "best": match(best, "heuristic", n, a.games, a.seed + n * 10**6)}
        print(n, res["vs_heuristic"][str(n)], flush=True)
    text = json.dumps(res, indent=1)
    print(text)
    if a.out:
        a.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
