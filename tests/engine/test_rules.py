from __future__ import annotations

from pathlib import Path

import pytest

from civlite.engine import Effect, Game, RuleSet, RuleSetError, Suit
from civlite.engine.rules import ALL


def test_default_is_rules_md() -> None:
    r = RuleSet.default()
    assert (r.hand_size, r.rise_draw, r.hand_limit, r.victory_ct, r.meld_ct, r.meld_draw) == (5, 2, 7, 20, 5, 5)
    assert r.ct_supply is None and r.turn_limit == 500 and (r.min_players, r.max_players) == (2, 8)
    basic = {a.suit.letter: (a.name, a.cards) for a in r.abilities if a.tier == "basic"}
    adv = {a.suit.letter: (a.name, a.cards) for a in r.abilities if a.tier == "advanced"}
    assert basic == {"C": ("Contact", 1), "L": ("Vision", 1), "W": ("Greatness", 1), "A": ("Culture", 1),
                     "M": ("Raid", 1), "B": ("Foundations", 1), "D": ("Setback", 1), "X": ("Growth", 1)}
    assert adv == {"C": ("Remake", 2), "L": ("Pass the Torch", 2), "W": ("Golden Age", 3), "A": ("Wisdom", 2),
                   "M": ("Conquest", 3), "B": ("City Builder", 3), "D": ("Wiped Out", 3),
                   "X": ("Population Explosion", 2)}
    assert r.advanced[Suit.MILITARY].effects == (Effect("steal_cards", 4),)
    assert r.advanced[Suit.DISASTER].effects == (Effect("target_discards", ALL),)
    assert r.advanced[Suit.ADVANCE].effects == (Effect("gain_ct", 1), Effect("draw", 3), Effect("discard", 1))
    assert repr(r) == "RuleSet.default()"


def test_toml_round_trip(tmp_path: Path) -> None:
    f = tmp_path / "full.toml"
    f.write_text(RuleSet.default().to_toml())
    again = RuleSet.from_toml(f)
    assert again.to_dict() == {**RuleSet.default().to_dict(), "name": "default"}


def test_designer_variant_without_code(tmp_path: Path) -> None:
    f = tmp_path / "short.toml"
    f.write_text(
        'victory_ct = 15\n[advanced.M]\neffects = ["steal_cards 3"]\n'
        '[basic.W]\nname = "Greatness"\neffects = ["gain_ct 2"]\n'
    )
    r = RuleSet.from_toml(f)
    assert r.name == "short" and r.victory_ct == 15
    assert r.advanced[Suit.MILITARY].effects == (Effect("steal_cards", 3),)
    assert r.basic[Suit.WONDER].effects == (Effect("gain_ct", 2),)
    g = Game.from_position({"active": 0, "phase": "action", "players": [
        {"hand": ["Sphinx"], "ct": 0}, {"hand": [], "ct": 0}], "deck": [], "discard": []}, r)
    g.apply({"do": "basic", "cards": ["Sphinx"]})
    assert g.ct[0] == 2


@pytest.mark.parametrize(("text", "needle"), [
    ("victory = 3", "unknown key 'victory'"),
    ("victory_ct = 'x'", "'victory_ct' must be a whole number"),
    ("hand_limit = -1", "'hand_limit' must be at least 0"),
    ("[advanced.Q]\ncards = 2", "advanced.Q"),
    ("[advanced.M]\neffects = ['steal_everything 3']", "unknown effect 'steal_everything'"),
    ("[advanced.M]\neffects = ['steal_cards many']", "must be a whole number"),
    ("[advanced.M]\ncards = 0", "advanced.M.cards"),
    ("[advanced.M]\ncolour = 'red'", "unknown key 'colour'"),
    ("max_players = 9", "at most 8"),
    ("not toml [", "not valid TOML"),
    ("[meld]\nsuits = ['C', 'Z']", "meld.suits"),
    ("[basic.W]\neffects = ['gain_ct']", "effect 'gain_ct' needs an amount, e.g. 'gain_ct 1'"),
    ("[basic.W]\neffects = [{ op = 'draw' }]", "effect 'draw' needs an amount"),
])
def test_broken_rule_files_name_the_problem(tmp_path: Path, text: str, needle: str) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(RuleSetError, match=needle.replace("(", r"\(").replace(".", r"\.")):
        RuleSet.from_toml(f)


def test_missing_file() -> None:
    with pytest.raises(RuleSetError, match="cannot read"):
        RuleSet.from_toml("/nonexistent/rules.toml")


def test_with_changes_and_dict_round_trip() -> None:
    r = RuleSet.default().with_changes(victory_ct=12, ct_supply=30)
    assert r.victory_ct == 12 and r.ct_supply == 30
    assert RuleSet.from_dict(r.to_dict()) == r
    assert eval(repr(r), {"RuleSet": RuleSet}) == r
    with pytest.raises(RuleSetError, match="unknown rule-set number 'victory'"):
        RuleSet.default().with_changes(victory=3)


def test_new_ability_from_primitives() -> None:
    r = RuleSet.from_dict({"basic": {"X": {"name": "Windfall", "effects": ["gain_ct 1", "draw 1", "extra_turn"]}}})
    ab = r.basic[Suit.BOON]
    assert ab is not None and ab.name == "Windfall" and not ab.targets
    assert "take another whole turn" in ab.text


def test_primitives_without_an_amount_need_none() -> None:
    r = RuleSet.from_dict({"basic": {"C": {"effects": ["look_at_hand"]}},
                           "advanced": {"B": {"effects": [{"op": "gain_ct", "amount": 2}, {"op": "extra_turn"}]}}})
    assert r.basic[Suit.CIVILIZATION].effects == (Effect("look_at_hand", 1),)
    assert r.advanced[Suit.BUILDING].effects == (Effect("gain_ct", 2), Effect("extra_turn", 1))


@pytest.mark.parametrize(("changes", "needles"), [
    ({"ct_supply": 10}, ["victory_ct 20 cannot be reached", "only 10 CT (ct_supply)"]),
    ({"meld_ct": 0, "basic": {"W": False, "L": False}, "advanced": {"W": False, "L": False, "A": False, "B": False}},
     ["victory_ct 20 cannot be reached", "no meld (meld_ct 0) or ability (gain_ct)"]),
    ({"advanced": {"W": {"cards": 20}}}, ["advanced.W (Golden Age) costs 20 cards", "only 16 Wonder cards"]),
    ({"basic": {"D": {"cards": 9}}}, ["basic.D (Setback) costs 9 cards", "only 8 Disaster cards"]),
    ({"advanced": {"W": {"cards": 12}}}, ["costs 12 cards but a hand holds at most 9", "never be used"]),
    ({"advanced": {"W": {"cards": 8}}}, ["costs 8 cards, more than hand_limit 7", "just drawn above the limit"]),
    ({"hand_size": 200}, ["hand_size 200: the deal is larger than the deck", "2 to 8 players: 400 to 1600 cards",
                          "the deck holds 112"]),
])
def test_design_warnings_name_what_cannot_work(changes: dict[str, object], needles: list[str]) -> None:
    warnings = RuleSet.from_dict(changes).design_warnings()
    assert len(warnings) == 1, warnings
    for needle in needles:
        assert needle in warnings[0]


def test_design_warnings_per_player_count() -> None:
    assert RuleSet.default().design_warnings() == ()
    assert RuleSet.default().with_changes(ct_supply=20, hand_size=10).design_warnings() == ()
    big = RuleSet.default().with_changes(hand_size=30)  # 4 x 30 = 120 > 112 cards
    assert big.design_warnings(3) == ()
    (w,) = big.design_warnings(4)
    assert "4 players: 120 cards" in w
    (w,) = big.design_warnings()
    assert "4 to 8 players: 120 to 240 cards" in w
    # a larger first hand or first Rise raises what a hand can hold at its first Action phase
    assert RuleSet.from_dict({"advanced": {"W": {"cards": 10}}, "first_rise_draw": [3]}).design_warnings(2) == (
        "advanced.W (Golden Age) costs 10 cards, more than hand_limit 7: only a hand that has just drawn above "
        "the limit can pay for it",)


def test_builtin_rule_sets_by_name(tmp_path: Path) -> None:
    """The rule sets that come with civlite load by name; a file of that name wins over the name."""
    from civlite.engine import BUILTIN_RULES

    assert BUILTIN_RULES == ("default", "balanced")
    assert RuleSet.named("default") is RuleSet.default() and RuleSet.load("default") is RuleSet.default()
    b = RuleSet.named("balanced")
    assert b.name == "balanced" and RuleSet.load("balanced") == b
    # the designer's game but for the per-seat compensation, seat 0 first in turn order
    assert b.with_changes(name="default", start_hand_bonus=[], first_rise_draw=[]) == RuleSet.default()
    assert [b.per_seat("start_hand_bonus", n) for n in (2, 3, 4, 6)] == [
        (-1, 0), (-1, 0, 0), (-1, 0, 0, 0), (-1, 0, 0, 0, 0, 0)]
    assert [b.per_seat("first_rise_draw", n) for n in (2, 3, 4, 5, 6)] == [
        (2, 3), (2, 3, 3), (2, 2, 3, 4), (2, 2, 3, 3, 4), (2, 2, 3, 3, 4, 4)]
    g = Game(4, seed=3, rules=b)
    assert [len(h) for h in g.hands] == [4 + 2, 5, 5, 5]  # seat 0 dealt one fewer, then its first Rise of 2
    with pytest.raises(RuleSetError, match=r"no rule set named 'fair'.*default, balanced"):
        RuleSet.named("fair")
    (tmp_path / "balanced").write_text('name = "mine"\nvictory_ct = 9\n')
    assert RuleSet.load(tmp_path / "balanced").name == "mine"
