"""benchmarks/best_response.py: the hands-seeing best response that bounds honest play
against a known bot must never act on the deck's order (tiny budgets: the numbers come
from running the benchmark)."""

from __future__ import annotations

import random

import pytest

from civlite.bots import make_bot
from civlite.engine import DISCARD_BASE, Game, sample_world
from conftest import ROOT, load_script

BR = load_script(ROOT / "benchmarks" / "best_response.py")


def _decisions(count: int, *, discard: bool = False) -> list[tuple[Game, int]]:
    """2-player positions (one a game, from seed 8100 on) where the seat to move has a real
    choice: mid-game among moves, or (``discard``, from seed 8300 on) among discards."""
    hard = make_bot("hard", seed=0)
    out: list[tuple[Game, int]] = []
    for i in range(200 if discard else count):
        g = Game(2, seed=(8300 if discard else 8100) + i)
        stop = 0 if discard else random.Random(i).randrange(6, 40)
        steps = 0
        while not g.over:
            legal = g.legal_ids()
            seat = g.to_move
            assert seat is not None
            if steps >= stop and len(legal) > 1 and (legal[0] >= DISCARD_BASE) == discard:
                out.append((g, seat))
                break
            g.apply_id(legal[0] if len(legal) == 1 else hard.act(g.view(seat), legal))
            steps += 1
        if len(out) == count:
            break
    return out


def test_the_search_decides_the_same_whatever_the_decks_order() -> None:
    positions = _decisions(6)
    assert len(positions) >= 4
    for k, (game, seat) in enumerate(positions):
        other = game.clone()
        random.Random(k).shuffle(other.deck)  # the same cards in another order
        assert other.deck != game.deck and sorted(other.deck) == sorted(game.deck)
        legal = game.legal_ids()
        moves, worlds = [], []
        for truth in (game, other):
            bot = _Spy(seed=k, iterations=12)
            bot.truth = truth
            moves.append(bot.act(truth.view(seat), legal))
            worlds.append(bot.decks)
        assert moves[0] == moves[1] and moves[0] in legal
        # every iteration's world holds the same deck, in an order of the search's own
        assert worlds[0] == worlds[1] and len(worlds[0]) == 12
        assert all(d != tuple(game.deck) for d in worlds[0])


class _Spy(BR.HandsBestResponse):  # type: ignore[name-defined,misc]
    """Records the deck of every world the search plays."""

    def __init__(self, **kw: object) -> None:
        super().__init__(**kw)
        self.decks: list[tuple[int, ...]] = []

    def _iterate(self, root: object, world: Game, me: int, legal: object) -> None:
        self.decks.append(tuple(world.deck))
        super()._iterate(root, world, me, legal)


def test_the_search_counts_every_iteration_at_its_root() -> None:
    game, seat = _decisions(1)[0]
    bot = BR.HandsBestResponse(seed=1, iterations=20)
    legal = game.legal_ids()
    root = bot._decision(game.view(seat), legal)
    assert sum(root.prior.values()) == pytest.approx(1.0)
    bot.truth = game
    for _ in range(20):
        bot._iterate(root, bot._world(game.view(seat)), seat, legal)
    assert root.visits == 20 == sum(ch.visits for ch in root.children.values())
    assert 0.0 <= root.wins <= 20.0
    assert set(root.children) <= set(legal)


def test_a_game_against_hard_ends_with_a_score() -> None:
    luck = load_script(ROOT / "benchmarks" / "luck_ceiling.py")
    score = luck.play(8200, BR.HandsBestResponse(seed=3, iterations=4), 2, 1, opponent="hard")
    assert score in (0.0, 0.5, 1.0)


@pytest.mark.parametrize("opponent", ["ismcts:iterations=10", "expert:sample=1"])
def test_the_opponent_must_be_fast_and_deterministic(opponent: str) -> None:
    with pytest.raises(ValueError, match="fast deterministic"):
        BR.HandsBestResponse(opponent=opponent)


def test_the_view_search_decides_the_same_whatever_the_hidden_deal() -> None:
    """The honest counterpart decides from the view alone: deal the cards the seat cannot
    see another way (its hand, the known cards and the view unchanged) and the same seed
    makes the same move."""
    checked = 0
    for k, (game, seat) in enumerate(_decisions(5)):
        view = game.view(seat)
        other = sample_world(view, random.Random(k))
        assert other.view(seat) == view
        assert [sorted(h) for h in other.hands] != [sorted(h) for h in game.hands] or other.deck != game.deck
        legal = game.legal_ids()
        moves = [BR.ViewBestResponse(seed=k, iterations=12).act(w.view(seat), legal) for w in (game, other)]
        assert moves[0] == moves[1] and moves[0] in legal
        checked += 1
    assert checked >= 4


def test_the_view_search_keys_a_decision_by_the_seats_view_only() -> None:
    """Two worlds that differ only in what the seat cannot see share a decision node."""
    game, seat = _decisions(1)[0]
    view = game.view(seat)
    worlds = [sample_world(view, random.Random(s)) for s in range(4)]
    assert len({tuple(tuple(h) for h in w.hands) for w in worlds}) > 1
    bot = BR.ViewBestResponse(seed=0, iterations=1)
    legal = game.legal_ids()
    assert len({bot._key(w, seat, legal) for w in worlds}) == 1
    hands = BR.HandsBestResponse(seed=0, iterations=1)
    assert len({hands._key(w, seat, legal) for w in worlds}) > 1


def test_its_discards_are_searched_only_when_asked() -> None:
    positions = _decisions(3, discard=True)
    assert len(positions) == 3
    for k, (game, seat) in enumerate(positions):
        legal = game.legal_ids()
        searched = _Spy(seed=k, iterations=10, search_discards=True)
        left = _Spy(seed=k, iterations=10)
        for bot in (searched, left):
            bot.truth = game
            assert bot.act(game.view(seat), legal) in legal
        assert len(searched.decks) == 10  # a search at the discard, from worlds of its own
        assert all(d != tuple(game.deck) for d in searched.decks)
        assert left.decks == []  # the network's discard, no search
        assert left.act(game.view(seat), legal) == make_bot("hard", seed=0).act(game.view(seat), legal)


def test_a_searched_discard_is_a_decision_node_of_the_tree() -> None:
    game, seat = _decisions(1)[0]
    legal = game.legal_ids()
    found = {}
    for flag in (False, True):
        bot = BR.HandsBestResponse(seed=2, iterations=1, search_discards=flag)
        bot.truth = game
        discards = 0
        # play whole worlds through _advance: with the flag, the searcher's own discards stop it
        for i in range(30):
            world = bot._world(game.view(seat))
            world.apply_id(legal[i % len(legal)], check=False)
            while (nxt := bot._advance(world, seat)) is not None:
                if nxt[0] >= DISCARD_BASE:
                    discards += 1
                world.apply_id(nxt[0], check=False)
        found[flag] = discards
    assert found[False] == 0 and found[True] > 0
