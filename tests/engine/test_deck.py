"""The deck as data (R10 ``[deck]``): a rule set chooses how many cards each suit has.

Two designs are played end to end here: a smaller deck (8 cards in each major suit, no
Boons: 56 cards) and a larger one (12 Disasters, 12 Boons, 20 Military: 124 cards, with
extra cards named after their suit, ``Disaster 9``).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from civlite.engine import (
    ALL_CARDS,
    CARDS,
    Card,
    DecisionKind,
    Game,
    GameRecord,
    PositionError,
    RuleSet,
    RuleSetError,
    Suit,
)
from civlite.engine.cards import MAJOR_SUITS, MAX_PER_SUIT, SUIT_OF, SUITS, extra_name

SMALL = {**{s.letter: 8 for s in MAJOR_SUITS}, "X": 0}
LARGE = {"D": 12, "X": 12, "M": 20}


def small() -> RuleSet:
    return RuleSet.from_dict({"name": "small-deck", "deck": SMALL})


def large() -> RuleSet:
    return RuleSet.from_dict({"name": "large-deck", "deck": LARGE})


def test_default_deck_is_the_112_cards() -> None:
    r = RuleSet.default()
    assert r.standard_deck and r.deck == tuple(range(112)) and len(r.deck) == 112
    assert r.suit_sizes == (16, 16, 16, 16, 16, 16, 8, 8) and r.deck_span == 112
    assert "deck" not in r.to_dict() and "[deck]" not in r.to_toml()  # the default's files stay as they were


def test_counts_per_suit() -> None:
    s, b = small(), large()
    assert s.suit_sizes == (8, 8, 8, 8, 8, 8, 8, 0) and len(s.deck) == 56 and not s.standard_deck
    assert b.suit_sizes == (16, 16, 16, 16, 20, 16, 12, 12) and len(b.deck) == 124
    names = {ALL_CARDS[c].name for c in b.deck}
    assert {"Military 17", "Military 20", "Disaster 9", "Disaster 12", "Boon 12"} <= names
    assert "Military 21" not in names and "Boon 13" not in names
    # a count keeps the suit's first cards in the card list (R1.1)
    assert [ALL_CARDS[c].name for c in s.deck if SUIT_OF[c] == Suit.MILITARY] == [
        c.name for c in CARDS if c.suit == Suit.MILITARY][:8]


def test_names_choose_the_cards() -> None:
    r = RuleSet.from_dict({"deck": {"X": ["Tribute", "Wealth"], "D": ["Flood", "Disaster 9"]}})
    assert r.suit_sizes[Suit.BOON] == 2 and r.suit_sizes[Suit.DISASTER] == 2
    assert {ALL_CARDS[c].name for c in r.deck if SUIT_OF[c] in (Suit.BOON, Suit.DISASTER)} == {
        "Tribute", "Wealth", "Flood", "Disaster 9"}
    # written back as names, since they are not the suit's first cards
    assert r.to_dict()["deck"] == {"D": ["Flood", "Disaster 9"], "X": ["Tribute", "Wealth"]}


@pytest.mark.parametrize("deck", [SMALL, LARGE, {"X": ["Tribute", "Wealth"], "D": ["Flood", "Disaster 9"]}])
def test_round_trips_through_toml_and_dict(tmp_path: Path, deck: dict[str, object]) -> None:
    r = RuleSet.from_dict({"name": "variant", "deck": deck})
    f = tmp_path / "variant.toml"
    f.write_text(r.to_toml())
    assert "[deck]" in f.read_text()
    again = RuleSet.from_toml(f)
    assert again.deck == r.deck and again == r
    assert RuleSet.from_dict(r.to_dict()) == r


def test_extra_names_never_match_a_real_card() -> None:
    names = [c.name for c in ALL_CARDS]
    assert len(names) == len(set(names)) == 8 * MAX_PER_SUIT
    real = {c.name for c in CARDS}
    extras = ALL_CARDS[112:]
    assert all(c.name not in real for c in extras)
    assert all(c.id >= 112 for c in extras) and [c.id for c in CARDS] == list(range(112))
    for suit in SUITS:
        mine = [c for c in ALL_CARDS if c.suit == suit]
        assert len(mine) == MAX_PER_SUIT
        assert mine[-1].name == extra_name(suit, MAX_PER_SUIT)
    assert Card("Disaster 9").suit == Suit.DISASTER and Card("Disaster 9") is ALL_CARDS[Card("Disaster 9").id]


@pytest.mark.parametrize(("deck", "needle"), [
    ({"Q": 3}, "deck.Q"),
    ({"D": 33}, "deck.D: a suit holds 0 to 32 cards, got 33"),
    ({"D": -1}, "deck.D: a suit holds 0 to 32 cards, got -1"),
    ({"D": True}, "deck.D: a count of cards"),
    ({"D": "many"}, "deck.D: a count of cards"),
    ({"D": ["Greeks"]}, "deck.D[0]: 'Greeks' is not a Disaster card"),
    ({"D": ["Flood", "Flood"]}, "deck.D[1]: 'Flood' is named twice"),
    ({"D": ["Disaster 33"]}, "deck.D[0]: 'Disaster 33' is not a Disaster card"),
    ({"D": 3, "Disaster": 4}, "suit D is also given"),
    ({s.letter: 0 for s in SUITS}, "deck: 0 cards cannot deal the hands"),
    ({**{s.letter: 0 for s in SUITS}, "C": 9}, "deck: 9 cards cannot deal the hands: 2 players (min_players) of "
                                               "hand_size 5 need 10"),
])
def test_broken_decks_name_the_problem(deck: dict[str, object], needle: str) -> None:
    with pytest.raises(RuleSetError) as e:
        RuleSet.from_dict({"deck": deck})
    assert needle in str(e.value)


def test_broken_deck_in_a_file_names_the_file(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text("deck = 12\n")
    with pytest.raises(RuleSetError, match=r"bad\.toml: deck: must be a table keyed by suit"):
        RuleSet.from_toml(f)


def test_design_checks_use_the_deck() -> None:
    (w,) = RuleSet.from_dict({"deck": {"W": 2}}).design_warnings()
    assert "advanced.W (Golden Age) costs 3 cards but the deck holds only 2 Wonder" in w
    assert large().design_warnings() == ()
    # no Military: no meld can be made (it needs one card of each major suit), nor Raid or Conquest paid
    w = RuleSet.from_dict({"deck": {"M": 0}}).design_warnings()
    assert w[0].startswith("no meld can ever be made: the deck holds no Military cards")
    assert [x.split(" costs")[0] for x in w[1:]] == ["basic.M (Raid)", "advanced.M (Conquest)"]
    (w,) = RuleSet.from_dict({"deck": {"D": 0, "X": 0}}).design_warnings()[:1]
    assert "the deck holds no Disaster or Boon cards" in w
    # no Boons: both Boon abilities are named as unusable, nothing else
    assert [w.split(" costs")[0] for w in small().design_warnings()] == ["basic.X (Growth)",
                                                                         "advanced.X (Population Explosion)"]


def _play(rules: RuleSet, n: int, seed: int) -> Game:
    rng = random.Random(seed)
    g = Game(n, seed=seed, rules=rules)
    deck = Counter(rules.deck)
    allowed = set(rules.deck)
    while not g.over:
        total = Counter(g.deck) + Counter(g.discard)
        for h in g.hands:
            total.update(h)
        assert total == deck  # no card created or lost, none from outside the deck
        seat = g.pending.player if g.pending else 0
        v = g.view(seat)
        assert v.universe is not None and [c.id for c in v.universe] == list(rules.deck)
        assert {c.id for c in v.hand} <= allowed and {c.id for c in v.discard} <= allowed
        g.apply_id(rng.choice(g.legal_ids()))
    return g


@pytest.mark.parametrize("make", [small, large])
@pytest.mark.parametrize("n", [2, 4, 8])
def test_random_games_keep_the_deck(make: type[RuleSet], n: int) -> None:
    rules = make()
    for seed in range(6):
        g = _play(rules, n, seed)
        again = GameRecord.from_json(GameRecord.of(g).to_json()).replay()
        assert again.rules == rules and again.hands == g.hands and again.ct == g.ct


def test_a_suit_with_no_cards_is_never_dealt() -> None:
    rules = small()
    for seed in range(20):
        g = Game(3, seed=seed, rules=rules)
        assert all(SUIT_OF[c] != Suit.BOON for h in g.hands for c in h)
        assert all(SUIT_OF[c] != Suit.BOON for c in g.deck)


def test_positions_refuse_cards_outside_the_deck() -> None:
    state = {"active": 0, "phase": "action", "deck": [], "discard": [],
             "players": [{"hand": ["Tribute"], "ct": 0}, {"hand": [], "ct": 0}]}
    Game.from_position(state, RuleSet.default())
    with pytest.raises(PositionError, match="'Tribute' is not a card of this rule set's deck"):
        Game.from_position(state, small())
    extra = {**state, "players": [{"hand": ["Military 20"], "ct": 0}, {"hand": [], "ct": 0}]}
    with pytest.raises(PositionError, match="Military 20"):
        Game.from_position(extra, RuleSet.default())
    g = Game.from_position(extra, large())
    assert g.hand(0) == (Card("Military 20"),)


def test_full_suits_in_one_hand_keep_compact_and_concrete_actions_equal() -> None:
    """Every suit at its most (MAX_PER_SUIT cards) and hands of 40: the engine counts a hand
    by suit in a packed field per suit, which must hold a whole suit."""
    full = RuleSet.from_dict({"name": "full-suits", "deck": {s.letter: MAX_PER_SUIT for s in SUITS},
                              "hand_size": 40, "hand_limit": 100})
    rng = random.Random(3)
    for seed in range(3):
        g = Game(players=2, seed=seed, rules=full)
        for _ in range(12):
            if g.over:
                break
            ids = g.legal_ids()
            if g.pending_kind is DecisionKind.ACTION:  # a meld's concrete choices multiply past millions here
                concrete = g.legal_actions()
                assert {g.id_for_action(a) for a in concrete} == set(ids)
            g.apply_id(rng.choice(ids))
    hand = [c for c in full.deck if SUIT_OF[c] == Suit.MILITARY]  # a whole suit in one hand
    state = {"players": [{"hand": [ALL_CARDS[c].name for c in hand], "ct": 0}, {"hand": [], "ct": 0}],
             "deck": [ALL_CARDS[c].name for c in full.deck if SUIT_OF[c] != Suit.MILITARY],
             "discard": [], "active": 0, "phase": "action", "turn": 1}
    g = Game.from_position(state, full, seed=0)
    assert len(g.hands[0]) == MAX_PER_SUIT
    assert {g.id_for_action(a) for a in g.legal_actions()} == set(g.legal_ids())
