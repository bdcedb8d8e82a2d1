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
