"""How much the network's discards are worth: ``expert`` against ``heuristic`` with its own
discards, and with ``heuristic``'s discard rule in their place, on the same deals.

``champion:discards=heuristic`` takes the discards inside its search tree by the hand-written
rule (no network call there); this measures what that rule costs a player that uses it for
its own discards. 2 players unless ``--players``; seats rotated; 95% Wilson intervals.

    python benchmarks/discard_rule.py --games 2000 --out benchmarks/results/discard_rule.json
"""

from __future__ import annotations

import argparse
import json
import platform
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from network_gate import score_of
from statsmodels.stats.proportion import proportion_confint

from civlite.bots import Bot, make_bot
from civlite.bots.expert import ExpertBot
from civlite.bots.heuristic import HeuristicBot
from civlite.engine import DISCARD_BASE, Game, View


class ExpertWithHeuristicDiscards(ExpertBot):
    """``expert``, its discards taken by ``heuristic`` (from the same view)."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.rule = HeuristicBot(seed)

    def act(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) > 1 and legal[0] >= DISCARD_BASE:
            return self.rule.act(view, legal)
        return super().act(view, legal)


def match(make: Callable[[int], Bot], players: int, games: int, seed: int) -> dict[str, Any]:
    score = 0.0
    for i in range(games):
        g = Game(players, seed=seed + i)
        me = i % players
        bot, other = make(i), make_bot("heuristic", seed=i + 1)
        while not g.over:
            s = g.to_move
            assert s is not None
            g.apply_id((bot if s == me else other).act(g.view(s), g.legal_ids()))
        score += score_of(g, me)
    lo, hi = proportion_confint(round(score), games, method="wilson")
    return {"games": games, "score": round(score / games, 4), "wilson95": [round(lo, 4), round(hi, 4)]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seed", type=int, default=555_000)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    res = {"command": f"benchmarks/discard_rule.py --games {a.games} --players {a.players} --seed {a.seed}",
           "python": platform.python_version(), "opponent": "heuristic", "players": a.players,
           "expert": match(lambda i: make_bot("expert", seed=i), a.players, a.games, a.seed),
           "expert_with_heuristic_discards": match(lambda i: ExpertWithHeuristicDiscards(seed=i), a.players,
                                                   a.games, a.seed)}
    text = json.dumps(res, indent=1)
    print(text)
    if a.out:
        a.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
