"""How much of a game skill can win: a *peeking* search against ``heuristic``.

Civ Lite has much luck in it (the deal, every Rise draw, every random steal), so a win rate
against ``heuristic`` may lie above what any player can reach. This benchmark bounds it from above: ``champion``'s search
run on the *true* game instead of worlds sampled from its view, against ``heuristic``: it
sees every hand and, since the engine draws from the top of a deck shuffled once, the deck's
order too (every future draw until the discard pile is reshuffled); only those reshuffles and
random steals stay random for it. With ``--deck hidden`` each of its worlds shuffles the
deck instead: it sees every hand but not what the deck will give. No honest bot can
know more, so an honest bot's score against ``heuristic`` is, in practice, below the
peeking bot's at a like budget. The honest ``champion`` at the same budget plays the same
seeded deals alongside, as the control.

``--search ismcts`` peeks with ``ismcts``'s search instead (heuristic rollouts, no network:
the strongest kind of search civlite has, not held down by the network's value head), with
the honest ``ismcts`` at the same budget as the control.

The peeking bots live here only: civlite's bots see their view alone (the honesty tests).

    .venv/bin/python benchmarks/luck_ceiling.py --games 300 --iterations 200 \\
        --out benchmarks/results/luck_ceiling_2p.json
    .venv/bin/python benchmarks/luck_ceiling.py --players 4 --games 200 --iterations 200 \\
        --out benchmarks/results/luck_ceiling_4p.json
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from statsmodels.stats.proportion import proportion_confint

from civlite.bots import Bot, make_bot
from civlite.bots.champion import ChampionBot, _Node, most_visited
from civlite.bots.expert import priors
from civlite.bots.features import encode
from civlite.bots.ismcts import ISMCTSBot
from civlite.engine import Game, View


def true_world(truth: Game, rng: random.Random, deck_seen: bool) -> Game:
    """A copy of the true game for one iteration, its deck shuffled unless ``deck_seen``."""
    g = truth.clone_fast(random.Random(rng.random()))
    if not deck_seen:
        g.rng.shuffle(g.deck)
    return g


class PeekingChampion(ChampionBot):
    """``champion``'s search over the true game (``truth``, set before each decision)."""

    truth: Game | None = None
    deck_seen: bool = True

    def search(self, view: View, legal: Sequence[int]) -> int:
        assert view.seat is not None and self.truth is not None
        root = _Node(view.seat)
        logits, _ = self.net.forward(encode(view))
        root.prior = dict(zip(legal, priors(logits, legal), strict=True))
        gc.disable()
        try:
            for _ in range(self.iterations or 800):
                # the real hands; the search's own source decides what is still random
                self._iterate(root, true_world(self.truth, self.rng, self.deck_seen))
        finally:
            gc.enable()
        return most_visited(root, legal)


class PeekingISMCTS(ISMCTSBot):
    """``ismcts`` (heuristic rollouts) whose every iteration plays the true game
    (``truth``, set before each decision) instead of a world dealt from its view."""

    truth: Game | None = None
    deck_seen: bool = True

    def _world(self, view: View) -> Game:
        assert self.truth is not None
        return true_world(self.truth, self.rng, self.deck_seen)


Peeking = PeekingChampion | PeekingISMCTS


def play(seed: int, bot: Bot, players: int, me: int, opponent: str = "heuristic") -> float:
    """One game of ``bot`` in seat ``me`` against ``opponent`` in every other seat; ``bot``'s
    score (a draw shared among the drawn seats)."""
    g = Game(players, seed=seed)
    other = make_bot(opponent, seed=seed + 1)
    while not g.over:
        seat = g.to_move
        assert seat is not None
        legal = g.legal_ids()
        if seat == me:
            if hasattr(bot, "truth"):  # a peeking search: the true game, before each decision
                bot.truth = g
            a = bot.act(g.view(seat), legal)
        else:
            a = other.act(g.view(seat), legal)
        g.apply_id(a)
    if g.winner is not None:
        return 1.0 if g.winner == me else 0.0
    drawn = g.drawn or tuple(range(players))
    return 1.0 / len(drawn) if me in drawn else 0.0


def summary(scores: list[float]) -> dict[str, Any]:
    k = round(sum(scores))
    lo, hi = proportion_confint(k, len(scores), method="wilson")
    return {"games": len(scores), "score": round(sum(scores) / len(scores), 4),
            "wilson95": [round(lo, 4), round(hi, 4)]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7000)
    ap.add_argument("--search", choices=("champion", "ismcts"), default="champion",
                    help="the search that peeks: champion's (network-guided) or ismcts's (heuristic rollouts)")
    ap.add_argument("--no-control", action="store_true",
                    help="the peeking bot alone (no honest search, no expert on the same deals)")
    ap.add_argument("--deck", choices=("seen", "hidden"), default="seen",
                    help="seen: the peeking search knows the deck's order (the true game's); hidden: "
                         "each of its worlds shuffles the deck (it sees the hands alone)")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    peek: Peeking
    if a.search == "champion":
        peek = PeekingChampion(seed=a.seed, iterations=a.iterations)
    else:
        peek = PeekingISMCTS(seed=a.seed, iterations=a.iterations)
    peek.deck_seen = a.deck == "seen"
    honest = make_bot(f"{a.search}:iterations={a.iterations}", seed=a.seed)
    expert = make_bot("expert", seed=a.seed)
    scores: dict[str, list[float]] = {f"peeking_{a.search}": []}
    if not a.no_control:
        scores.update({a.search: [], "expert": []})
    t0 = time.perf_counter()
    for i in range(a.games):  # interleaved: the three play the same deal, seats rotated
        seed, me = a.seed + i, i % a.players
        scores[f"peeking_{a.search}"].append(play(seed, peek, a.players, me))
        if not a.no_control:
            scores[a.search].append(play(seed, honest, a.players, me))
            scores["expert"].append(play(seed, expert, a.players, me))
        if (i + 1) % 25 == 0:
            print(f"{i + 1} games: " + ", ".join(f"{k} {sum(v) / len(v):.3f}" for k, v in scores.items()),
                  flush=True)
    res = {"machine": platform.machine(), "python": platform.python_version(),
           "command": f"benchmarks/luck_ceiling.py --games {a.games} --players {a.players} "
                      f"--iterations {a.iterations} --seed {a.seed} --search {a.search}"
                      + (" --no-control" if a.no_control else "") + (" --deck hidden" if a.deck == "hidden" else ""),
           "deck": a.deck,
           "opponent": "heuristic", "players": a.players, "fair_share": round(1 / a.players, 4), "seconds": round(time.perf_counter() - t0),
           **{k: summary(v) for k, v in scores.items()}}
    text = json.dumps(res, indent=1)
    print(text)
    if a.out:
        a.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
