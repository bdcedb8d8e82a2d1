"""Every world ISMCTS samples agrees with what the searching seat knows (property test)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from civlite.bots import make_bot, play_step
from civlite.engine import CARDS, Game, View, sample_world


def _position(players: int, seed: int, steps: int) -> Game:
    g = Game(players=players, seed=seed)
    rng = random.Random(seed)
    bots = [make_bot("heuristic", seed=p) for p in range(players)]
    for _ in range(steps):
        if g.over:
            break
        if rng.random() < 0.6:
            play_step(bots[g.to_move], g)  # type: ignore[index]
        else:
            ids = g.legal_ids()
            g.apply_id(ids[int(rng.random() * len(ids))])
    return g


def _check_world(world: Game, view: View) -> None:
    seat = view.seat
    assert seat is not None
    # the world, seen from the seat, is exactly the seat's view
    assert world.view(seat) == view
    # what the seat knows holds in the world
    assert Counter(world.hands[seat]) == Counter(c.id for c in view.hand)
    assert world.discard == [c.id for c in view.discard]
    assert len(world.deck) == view.deck_size
    for p in view.players:
        assert len(world.hands[p.seat]) == p.hand_size
        assert world.ct[p.seat] == p.ct
        assert set(c.id for c in p.known) <= set(world.hands[p.seat])
    # a world holds every card exactly once
    every = [c for h in world.hands for c in h] + world.deck + world.discard
    assert sorted(every) == list(range(len(CARDS)))


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 10_000), steps=st.integers(0, 160))
def test_every_sampled_world_agrees_with_the_view(players: int, seed: int, steps: int, monkeypatch_worlds: Any) -> None:
    g = _position(players, seed, steps)
    if g.over:
        return
    seat = g.to_move
    assert seat is not None
    view = g.view(seat)
    worlds = monkeypatch_worlds
    worlds.clear()
    bot = make_bot("ismcts:iterations=6,depth=4", seed=seed)
    bot.search(view, g.legal_ids())  # type: ignore[attr-defined]
    assert len(worlds) == 6
    for v, w in worlds:
        assert v is view
        _check_world(w, view)


def test_sampled_worlds_differ_in_hidden_cards() -> None:
    g = _position(3, 7, 30)
    seat = g.to_move
    assert seat is not None
    view = g.view(seat)
    rng = random.Random(1)
    hands = {tuple(sorted(sample_world(view, rng).hands[(seat + 1) % 3])) for _ in range(20)}
    assert len(hands) > 1
