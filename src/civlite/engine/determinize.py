"""Worlds consistent with a view: the sampling step of information-set search.

``sample_world(view, rng)`` deals the cards the viewer cannot see (the *unseen*
cards: the game's cards minus its own hand, the discard pile and every card it
knows to be in an opponent's hand, and the deck's content while it searches it)
at random into the opponents' unknown hand slots and the deck. Everything the
viewer knows holds in every sampled world; nothing it cannot know is used, since
the input is only a :class:`View`.
"""

from __future__ import annotations

import random

from .game import Game
from .rules import STANDARD_DECK
from .view import View


def _universe(view: View) -> list[int]:
    """The ids of the game's cards, ascending (the 112 of R1.1 when the view names none)."""
    return list(STANDARD_DECK) if view.universe is None else [c.id for c in view.universe]


def unseen_cards(view: View) -> list[int]:
    """Ids of the cards whose place the viewer does not know."""
    universe = _universe(view)
    seen = {c.id for c in view.hand}
    seen.update(c.id for c in view.discard)
    for p in view.players:
        seen.update(c.id for c in p.known)
    if view.searching is not None:
        seen.update(c.id for c in view.searching)
    return [c for c in universe if c not in seen]


class _Prepared:
    """The parts of a world that every sample from one view shares (computed once)."""

    __slots__ = ("base", "deck_known", "knower", "pool", "slots")

    def __init__(self, view: View) -> None:
        if view.seat is None:
            raise ValueError("a spectator view has no hand to search from")
        if view.over or view.pending is None:
            raise ValueError("the game is over")
        seat = view.seat
        n = view.num_players
        self.pool = unseen_cards(view)
        hands: list[list[int]] = [[] for _ in range(n)]
        hands[seat] = [c.id for c in view.hand]
        knower = [0] * (_universe(view)[-1] + 1)  # a slot for every card of the game
        bit = 1 << seat
        slots: list[tuple[int, int]] = []  # (seat, unknown cards) in view order
        for p in view.players:
            known = [c.id for c in p.known]
            for c in known:
                knower[c] = bit
            hands[p.seat] = known
            slots.append((p.seat, p.hand_size - len(known)))
        hidden = sum(k for _, k in slots)
        self.deck_known = [c.id for c in view.searching] if view.searching is not None else None
        deck_from_pool = len(self.pool) - hidden
        if deck_from_pool < 0 or (self.deck_known is None and deck_from_pool != view.deck_size) or (
            self.deck_known is not None and (deck_from_pool != 0 or len(self.deck_known) != view.deck_size)
        ):
            raise ValueError(
                f"inconsistent view: {len(self.pool)} unseen cards for {hidden} hidden hand slots "
                f"and a deck of {view.deck_size}"
            )
        self.knower = knower
        self.slots = slots
        # a template game: everything but the hidden cards
        g = Game._world(view, hands, knower, random.Random(0))
        self.base = g

    def sample(self, rng: random.Random) -> Game:
        pool = self.pool[:]
        key = rng.random
        pool.sort(key=lambda _: key())  # a uniformly random order (faster than shuffle)
        g = self.base.clone_fast(rng)  # the world draws its chance events from the searcher's rng
        hands = g.hands
        i = 0
        for seat, k in self.slots:
            if k:
                hands[seat].extend(pool[i:i + k])
                i += k
        if self.deck_known is not None:
            deck = self.deck_known[:]
            deck.sort(key=lambda _: key())
            g.deck = deck
        else:
            g.deck = pool[i:]
        return g


_last: tuple[View, _Prepared] | None = None


def sample_world(view: View, rng: random.Random) -> Game:
    """A full game state that agrees with everything ``view`` holds.

    Repeated calls with the same view (an ISMCTS search) reuse the work that does
    not depend on the deal.
    """
    global _last
    if _last is not None and _last[0] is view:
        prepared = _last[1]
    else:
        prepared = _Prepared(view)
        _last = (view, prepared)
    return prepared.sample(rng)
