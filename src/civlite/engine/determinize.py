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

from .cards import CARDS
from .game import Game
from .view import View


def unseen_cards(view: View) -> list[int]:
    """Ids of the cards whose place the viewer does not know."""
    universe = [c.id for c in view.universe] if view.universe is not None else list(range(len(CARDS)))
    seen = {c.id for c in view.hand}
    seen.update(c.id for c in view.discard)
    for p in view.players:
        seen.update(c.id for c in p.known)
    if view.searching is not None:
        seen.update(c.id for c in view.searching)
    return [c for c in universe if c not in seen]


def sample_world(view: View, rng: random.Random) -> Game:
    """A full game state that agrees with everything ``view`` holds."""
    if view.seat is None:
        raise ValueError("a spectator view has no hand to search from")
    if view.over:
        raise ValueError("the game is over")
    seat = view.seat
    n = view.num_players
    pool = unseen_cards(view)
    rng.shuffle(pool)
    hands: list[list[int]] = [[] for _ in range(n)]
    hands[seat] = [c.id for c in view.hand]
    cts = [0] * n
    cts[seat] = view.ct or 0
    knower = [0] * len(CARDS)
    bit = 1 << seat
    i = 0
    for p in view.players:
        known = [c.id for c in p.known]
        for c in known:
            knower[c] = bit
        unknown = p.hand_size - len(known)
        hands[p.seat] = known + pool[i:i + unknown]
        i += unknown
        cts[p.seat] = p.ct
    if view.searching is not None:
        deck = [c.id for c in view.searching]
        rng.shuffle(deck)
    else:
        deck = pool[i:]
        i = len(pool)
    if i != len(pool) or len(deck) != view.deck_size:
        raise ValueError(
            f"inconsistent view: {len(pool)} unseen cards for {i} hidden hand slots and a deck of {view.deck_size}"
        )
    g = Game.__new__(Game)
    # the sampled world draws its own chance events from the searcher's random source
    g._setup(view.rules, n, tuple(f"seat {s}" for s in range(n)), 0, rng)
    g.hands = hands
    g.ct = cts
    g.deck = deck
    g.discard = [c.id for c in view.discard]
    g.supply = view.supply
    g.active = view.active
    g.phase = view.phase
    g.turn = view.turn
    g.extra_turn = view.extra_turn
    g.universe = (
        tuple(c.id for c in view.universe) if view.universe is not None else tuple(range(len(CARDS)))
    )
    g._knower = knower
    pending = view.pending
    assert pending is not None
    g._dkind = pending.kind
    g._dplayer = pending.player
    g._dcount = pending.count
    if view.resolving is not None:
        g._ability = next(a for a in view.rules.abilities if a.name == view.resolving)
        g._eff = view.effect_index
        g._target = view.resolving_target if view.resolving_target is not None else -1
    g._selected = [c.id for c in view.selecting]
    return g
