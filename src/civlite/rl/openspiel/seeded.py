"""One seed, one deal: :class:`SeededChance`, a chance sampler that plays ``Game(players, seed=seed)``'s chance."""

from __future__ import annotations

import random
from typing import Any

import pyspiel

from ...engine import SUIT_OF, Game
from .game import CivLiteGame, CivLiteState


class SeededChance:
    """A chance sampler giving the outcomes ``Game(players, seed=seed)`` gives: one seed, one deal.

    ``outcome = sampler(state)`` at a chance node of ``python_civlite`` with exact chance
    (a state played from ``new_initial_state()`` with this sampler deciding every chance
    node). It keeps a shadow :class:`~civlite.engine.Game` seeded with ``seed``, applies
    the state's player actions to it, and answers each chance node with the card the
    shadow dealt, drew or stole there. See the module's notes for searches (``exact``).
    """

    def __init__(self, seed: int) -> None:
        self.seed = int(seed)
        self.exact = True
        self._shadow: Game | None = None
        self._seen: list[tuple[int, int]] = []
        self._outcomes: list[int] = []
        self._used = 0
        self._fallback = random.Random(self.seed)

    def _restart(self, game: CivLiteGame) -> None:
        g = Game(game.n, seed=self.seed, rules=game.rules)
        hs = game.rules.hand_size
        hands = g.hands
        # the deal in python_civlite's order: each seat's hand, then seat 0's first Rise
        self._outcomes = [c for p in range(game.n) for c in hands[p][:hs]] + hands[0][hs:]
        self._shadow = g
        self._seen = []
        self._used = 0
        self.exact = True

    def __call__(self, state: CivLiteState) -> int:
        if not state.is_chance_node():
            raise ValueError("SeededChance: the state is not a chance node")
        if state.core.cfg.sampled:
            raise ValueError("SeededChance plays exact chance nodes; this game has chance='sampled'")
        hist = [(int(h.player), int(h.action)) for h in state.full_history()]
        if self._shadow is None or hist[:len(self._seen)] != self._seen:
            self._restart(state.get_game())
        shadow = self._shadow
        assert shadow is not None
        for player, action in hist[len(self._seen):]:
            if player == pyspiel.PlayerId.CHANCE:
                self._used += 1
            elif not shadow.is_over:
                try:
                    events = shadow.apply_id(action)
                except ValueError:  # the games went apart (see ``exact``): chance from now on
                    self.exact = False
                    shadow.over = True
                    continue
                for e in events:
                    if e.kind in ("draw", "steal_cards"):
                        self._outcomes += e.secret
        self._seen = hist
        cands = [c for c, _ in state.chance_outcomes()]
        if self._used < len(self._outcomes):
            card = self._outcomes[self._used]
            if card in cands:
                return card
            self.exact = False
            same = [c for c in cands if SUIT_OF[c] == SUIT_OF[card]]
            if same:
                return same[0]
        else:
            self.exact = False
        return self._fallback.choice(cands)


def game_of(state: Any) -> Game | None:
    """The civlite Game at the state's last decision (``None`` while dealing), of any ``python_civlite`` state."""
    g: Game | None = state.core.view_game()
    return g
