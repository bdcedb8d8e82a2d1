"""Property tests over thousands of seeded random games of 2 to 8 players.

Invariants checked after every decision: no card created or lost, CT never negative,
exactly one pending decision until the end, no hand over the limit after a Fall,
every view equal to an independent knowledge model built only from the events that
seat was shown (so a view never holds a card its seat cannot know), a record that
replays to the identical state, and illegal actions that change nothing.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from civlite.engine import CARDS, Event, Game, GameRecord, IllegalActionError, RuleSet
from civlite.engine.actions import Discard, Pass, Take
from civlite.engine.cards import SUIT_OF

GAMES = 10_000
CHUNKS = 40


class KnowledgeModel:
    """What each seat can know of the other hands, from its redacted events only."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.known = [[set[int]() for _ in range(n)] for _ in range(n)]

    def see(self, events: list[Event]) -> None:
        for v in range(self.n):
            for e in (ev.for_seat(v) for ev in events):
                self._apply(v, e)

    def _apply(self, v: int, e: Event) -> None:
        k = self.known[v]
        p, t = e.player, e.target
        if e.kind == "look" and p == v:
            assert t is not None
            k[t] = set(e.secret)
        elif e.kind == "steal_cards":
            assert p is not None and t is not None
            if v == t:
                k[p] |= set(e.secret)
            elif v == p:
                k[t] -= set(e.secret)
            elif e.count:
                k[t] = set()
        elif e.kind == "take" and e.cards and p is not None and p != v:
            k[p] |= set(e.cards)
        elif e.kind in ("discard", "activate", "meld") and p is not None and p != v:
            k[p] -= set(e.cards)


def total_cards(g: Game) -> Counter[int]:
    c = Counter(g.deck) + Counter(g.discard)
    for h in g.hands:
        c.update(h)
    return c


def check_views(g: Game, model: KnowledgeModel) -> None:
    truth = [set(h) for h in g.hands]
    spectator = g.view(None)
    assert spectator.hand == () and all(p.known == () for p in spectator.players)
    for v in range(g.n):
        view = g.view(v)
        assert {c.id for c in view.hand} == truth[v]
        assert view.deck_size == len(g.deck)
        assert [c.id for c in view.discard] == g.discard
        for pv in view.players:
            known = {c.id for c in pv.known}
            assert known <= truth[pv.seat], "a view claims a card that is not there"
            assert known == model.known[v][pv.seat] & truth[pv.seat], (
                f"seat {v} view of seat {pv.seat}: {sorted(known)} but events showed "
                f"{sorted(model.known[v][pv.seat] & truth[pv.seat])}"
            )
            assert pv.hand_size == len(g.hands[pv.seat])
        if view.searching is not None:
            assert g.pending is not None and g.pending.player == v and g.pending.kind == "vision"


def illegal_attempt(g: Game, rng: random.Random) -> list[Event]:
    """An illegal action is rejected and changes nothing."""
    before = (g.state_json(), list(g._knower), list(g._dsuits), len(g.actions))
    pending = g.pending
    assert pending is not None
    wrong_player = (pending.player + 1) % g.n
    candidates = [Pass(player=wrong_player), Take(CARDS[rng.randrange(112)])]
    if pending.kind not in ("action", "meld"):
        candidates.append(Pass())
    if pending.kind.endswith("_discard"):
        candidates.append(Discard([]))
    for bad in candidates:
        try:
            events = g.apply(bad)
        except IllegalActionError:
            pass
        else:  # legal by chance (a Take of a card that is in the pile): fine, stop here
            return events
        assert (g.state_json(), list(g._knower), list(g._dsuits), len(g.actions)) == before
    return []


def play_one(index: int, deep: bool) -> None:
    rng = random.Random(index)
    n = 2 + index % 7
    rules = RuleSet.default()
    if index % 10 == 9:  # a few variants, too
        rules = rules.with_changes(ct_supply=40, victory_ct=12, turn_limit=60)
    g = Game(players=n, seed=index, rules=rules, first="random" if index % 2 else 0)
    cards = total_cards(g)
    assert sum(cards.values()) == 112 and max(cards.values()) == 1
    model = KnowledgeModel(n)
    size = len(g.universe)
    steps = 0
    while not g.over:
        pending = g.pending
        assert pending is not None and 0 <= pending.player < n
        if deep and steps % 7 == 0:
            model.see(illegal_attempt(g, rng))
            if g.over:
                break
        ids = g.legal_ids()
        assert ids, f"no legal action for {g.pending}"
        prev_turn, prev_active = g.turn, g.active
        aid = ids[int(rng.random() * len(ids))]
        events = g.apply_id(aid)
        model.see(events)
        steps += 1
        assert sum(map(len, g.hands)) + len(g.deck) + len(g.discard) == size
        assert g._dsuits == [sum(1 for c in g.discard if SUIT_OF[c] == s) for s in range(8)], \
            "the discard pile's suit counts drifted from the pile"
        assert min(g.ct) >= 0
        if rules.ct_supply is not None:
            assert g.supply is not None and g.supply + sum(g.ct) == rules.ct_supply
        if g.turn != prev_turn and not g.over and g.active != prev_active:
            assert len(g.hands[prev_active]) <= rules.hand_limit, "hand over the limit after Fall (R4.4)"
        if (deep or steps % 40 == 0) and not g.over:
            assert total_cards(g) == cards
            check_views(g, model)
    assert g.pending is None and g.legal_ids() == []
    assert total_cards(g) == cards
    if g.winner is not None:
        assert g.ct[g.winner] >= rules.victory_ct
    else:
        assert g.turn >= rules.turn_limit and g.drawn
    record = GameRecord.from_json(GameRecord.of(g).dumps())
    again = record.replay()
    assert again.state_json() == g.state_json()
    assert again._knower == g._knower
    assert again._dsuits == g._dsuits
    clone = g.clone()
    assert clone._dsuits == g._dsuits and clone._dsuits is not g._dsuits


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_games(chunk: int) -> None:
    per = GAMES // CHUNKS
    for i in range(chunk * per, (chunk + 1) * per):
        play_one(i, deep=(i % 50 == 0))
