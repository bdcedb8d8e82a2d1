"""Compensation for the order of play: start_ct, start_hand_bonus, first_rise_draw (R2.1, R4.1, R10)."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

import pytest

from civlite.engine import Basic, Game, Pass, RuleSet, RuleSetError, Suit
from civlite.engine.determinize import sample_world


def test_per_seat_repeats_the_last_value_and_takes_per_count_tables() -> None:
    r = RuleSet.from_dict({"start_ct": [0, 1], "first_rise_draw": {"2": [1, 2], "4": [2, 2, 2, 3]},
                           "start_hand_bonus": {"default": [1, 0], "3": [0, 0, 1]}})
    assert r.per_seat("start_ct", 2) == (0, 1)
    assert r.per_seat("start_ct", 4) == (0, 1, 1, 1)
    assert r.per_seat("first_rise_draw", 2) == (1, 2)
    assert r.per_seat("first_rise_draw", 4) == (2, 2, 2, 3)
    assert r.per_seat("first_rise_draw", 3) is None  # not given for 3 players: no change
    assert r.per_seat("start_hand_bonus", 3) == (0, 0, 1)
    assert r.per_seat("start_hand_bonus", 5) == (1, 0, 0, 0, 0)
    assert RuleSet.default().per_seat("start_ct", 2) is None


def test_compensation_survives_toml_and_dict(tmp_path: Path) -> None:
    r = RuleSet.from_dict({"name": "comp", "start_ct": [0, 1], "first_rise_draw": {"2": [1, 2], "default": [2]}})
    assert RuleSet.from_dict(tomllib.loads(r.to_toml())) == r
    assert RuleSet.from_dict(r.to_dict()) == r
    f = tmp_path / "v.toml"
    f.write_text('start_ct = { 2 = [0, 1], 4 = [0, 0, 1, 1] }\nstart_hand_bonus = [0, 1]\n')
    loaded = RuleSet.from_toml(f)
    assert loaded.per_seat("start_ct", 4) == (0, 0, 1, 1)
    assert loaded.per_seat("start_hand_bonus", 3) == (0, 1, 1)
    assert RuleSet.default().with_changes(start_ct=[0, 2]).per_seat("start_ct", 2) == (0, 2)
    # the default writes empty lists, read back as "no compensation"
    assert RuleSet.from_dict(tomllib.loads(RuleSet.default().to_toml())) == RuleSet.default()


@pytest.mark.parametrize(("data", "needle"), [
    ({"start_ct": "x"}, "list of whole numbers"),
    ({"start_ct": [0, -1]}, ">= 0"),
    ({"start_ct": [20]}, "would win at once"),
    ({"start_ct": {"9": [1]}}, "2..8"),
    ({"start_ct": {"two": [1]}}, "player counts or 'default'"),
    ({"start_ct": {"2": [0, 1, 1]}}, "1 to 2 values"),
    ({"start_ct": [3, 3], "ct_supply": 5}, "more than ct_supply"),
    ({"start_hand_bonus": [-6]}, ">= -5"),
    ({"first_rise_draw": [True]}, "list of whole numbers"),
])
def test_bad_compensation_names_the_key(data: dict[str, object], needle: str) -> None:
    with pytest.raises(RuleSetError, match=next(iter(data))) as e:
        RuleSet.from_dict(data)
    assert needle in str(e.value)


@pytest.mark.parametrize("first", [0, 1, 3])
def test_set_up_follows_turn_order(first: int) -> None:
    rules = RuleSet.from_dict({"start_ct": [0, 1, 2], "start_hand_bonus": [-1, 0, 1], "ct_supply": 50})
    g = Game(4, seed=5, rules=rules, first=first)
    order = [(first + i) % 4 for i in range(4)]
    assert [g.ct[s] for s in order] == [0, 1, 2, 2]
    assert g.supply == 50 - 5
    # the first player has drawn its Rise (2) on top of the deal
    assert [len(g.hands[s]) for s in order] == [4 + 2, 5, 6, 6]
    gains = [(e.player, e.amount, e.rule) for e in g.opening_events if e.kind == "gain_ct"]
    assert sorted(gains) == sorted([(order[1], 1, "R2.1"), (order[2], 2, "R2.1"), (order[3], 2, "R2.1")])


def test_first_rise_draws_once_per_seat_in_turn_order() -> None:
    rules = RuleSet.from_dict({"first_rise_draw": [0, 3, 4]})
    g = Game(3, seed=2, rules=rules, first=2)
    rises = [(e.player, e.count) for e in g.opening_events if e.kind == "draw"]
    while len(rises) < 6:
        for e in g.apply(Pass() if g.pending_kind in ("action", "meld") else g.legal_actions()[0]):
            if e.kind == "draw" and e.rule == "R4.1":
                rises.append((e.player, e.count))
    # seat 2 plays first (0 cards), then seats 0 and 1; from the second round on, rise_draw
    assert rises == [(2, 0), (0, 3), (1, 4), (2, 2), (0, 2), (1, 2)]


def test_an_extra_turn_does_not_use_up_a_first_rise() -> None:
    # Greatness grants an extra turn in this rule set: the first player takes one at once
    rules = RuleSet.from_dict({"first_rise_draw": [2, 4], "basic": {"W": {"effects": ["extra_turn"]}}})
    g = next(g for g in (Game(2, seed=s, rules=rules) for s in range(500))
             if any(c.suit == Suit.WONDER for c in g.hand(0)))
    wonder = next(c for c in g.hand(0) if c.suit == Suit.WONDER)
    events = g.apply(Basic([wonder]))
    while g.active == 0 and not g.over:
        events += g.apply(Pass() if g.pending_kind in ("action", "meld") else g.legal_actions()[0])
    rises = [(e.player, e.count) for e in events if e.kind == "draw" and e.rule == "R4.1"]
    assert rises == [(0, 2), (1, 4)]  # the extra turn's Rise is a normal one; seat 1 keeps its 4


def test_copies_and_determinized_games_keep_the_owed_first_rises() -> None:
    rules = RuleSet.from_dict({"first_rise_draw": [1, 5]})
    g = Game(2, seed=9, rules=rules)
    assert g.clone()._first_rises == (5,)
    view = g.view(0)
    assert view.first_rises == (5,)
    sample = sample_world(view, random.Random(1))
    assert sample._first_rises == (5,)


def test_default_deal_is_unchanged() -> None:
    a, b = Game(2, seed=11), Game(2, seed=11, rules=RuleSet.from_dict({"start_ct": [0]}))
    assert a.hands == b.hands and a.ct == b.ct == [0, 0]


def test_a_removed_ability_stays_removed_through_dict_and_toml() -> None:
    # (a rule set travels to simulation workers as a dict: a removed ability must not come back)
    r = RuleSet.from_dict({"basic": {"M": False}, "advanced": {"X": "none"}})
    assert r.basic[Suit.MILITARY] is None and r.advanced[Suit.BOON] is None
    assert RuleSet.from_dict(r.to_dict()) == r
    assert RuleSet.from_dict(tomllib.loads(r.to_toml())) == r
