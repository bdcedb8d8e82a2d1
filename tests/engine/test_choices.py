"""Per-seat choices (``game.choices(seat)``) and decision numbers, on literal positions."""

from __future__ import annotations

import json
from typing import Any

import pytest

import civlite
from civlite.engine import (
    Basic,
    Card,
    DecisionKind,
    Discard,
    Game,
    GameRecord,
    IllegalActionError,
    Pass,
    RuleSet,
    StaleDecisionError,
    Take,
)


def pos(hands: list[list[str]], deck: list[str] | None = None, discard: list[str] | None = None,
        phase: str = "action", active: int = 0, **rules: Any) -> Game:
    state = {"active": active, "phase": phase,
             "players": [{"hand": h, "ct": 0} for h in hands],
             "deck": deck or [], "discard": discard or []}
    r = RuleSet.default().with_changes(**rules) if rules else None
    return Game.from_position(state, r, seed=3)


def names(cards: Any) -> list[str]:
    return [c.name for c in cards]


def test_action_choices_affordability_payable_and_targets() -> None:
    g = pos([["Stonehenge", "Sphinx", "Pyramids at Giza", "Spearmen", "Flood"], ["Sumerians"], ["Menes"]],
            deck=["Greeks"])
    c = g.choices(0)
    assert c.kind == DecisionKind.ACTION == "action" and c.can_pass and c.waiting_for == 0
    assert c.decision_number == 1 and c.meld is None and c.discard is None and c.take is None
    assert len(c.abilities) == 16  # every ability of the rule set
    affordable = [a.key for a in c.abilities if a.affordable]
    assert affordable == ["basic.W", "basic.M", "basic.D", "advanced.W"]  # first, in rule-set order
    assert all(not a.affordable for a in c.abilities[4:])
    golden = c.ability_choice("advanced.W")
    assert golden.name == "Golden Age" and golden.cost == 3 and golden.level == "advanced"
    assert sorted(names(golden.payable)) == ["Pyramids at Giza", "Sphinx", "Stonehenge"]
    assert golden.targets == () and not golden.needs_target and golden.text == "gain 3 CT, draw 2"
    raid = c.ability_choice("Raid")
    assert raid.targets == (1, 2) and raid.needs_target and names(raid.payable) == ["Spearmen"]
    assert raid.preview(["Spearmen"], 2, names=["ann", "bob", "cyd"]) == \
        "pay Spearmen: take 1 card at random from cyd"
    conquest = c.ability_choice("advanced.M")
    assert not conquest.affordable and names(conquest.payable) == ["Spearmen"]
    # the actions the choices build are legal, and previews read plainly
    assert golden.preview() == "pay Stonehenge, Sphinx, Pyramids at Giza: gain 3 CT, draw 2"
    g.clone().apply(golden.action())
    g.clone().apply(raid.action(target=1))


def test_two_players_target_is_the_only_opponent() -> None:
    g = pos([["Spearmen"], ["Sumerians"]])
    raid = g.choices(0).ability_choice("basic.M")
    assert raid.targets == (1,)
    assert raid.action() == Basic(["Spearmen"], 1)
    assert raid.preview() == "pay Spearmen: take 1 card at random from seat 1"


def test_meld_choice_slots() -> None:
    hand = ["Sumerians", "Cleopatra", "Stonehenge", "Religion", "Spearmen", "Granaries", "Palaces", "Flood",
            "Tribute"]
    g = pos([hand, []], phase="meld", deck=["Greeks"])
    c = g.choices(0)
    assert c.kind == "meld" and c.can_pass and c.abilities == ()
    assert c.meld is not None and c.meld.possible and c.meld.ct == 5 and c.meld.draw == 5
    assert len(c.meld.slots) == 7
    assert [s.suits for s in c.meld.slots[:6]] == [(s,) for s in civlite.engine.MAJOR_SUITS]
    assert names(c.meld.slots[5].cards) == ["Granaries", "Palaces"]
    assert c.meld.slots[6].suits == civlite.engine.MINOR_SUITS
    assert sorted(names(c.meld.slots[6].cards)) == ["Flood", "Tribute"]
    g.clone().apply(c.meld.action())
    short = pos([[*hand[:5], "Flood"], []], phase="meld")
    m = short.choices(0).meld
    assert m is not None and not m.possible and m.slots[5].cards == ()
    with pytest.raises(IllegalActionError):
        m.action()


def test_discard_choices_count_and_cards() -> None:
    g = pos([["Flood"], ["Sumerians", "Menes", "Sphinx"], []])
    g.apply(Basic(["Flood"], 1))
    assert g.pending is not None and g.pending.kind == "setback_discard"
    c = g.choices(1)  # the target decides (R9)
    assert c.kind == "setback_discard" and not c.can_pass and c.discard is not None
    assert c.discard.count == 2 and sorted(names(c.discard.from_cards)) == ["Menes", "Sphinx", "Sumerians"]
    assert c.discard.reason == "Setback"
    assert g.choices(0).kind is None and g.choices(0).waiting_for == 1
    fall = pos([["Sumerians", "Egyptians", "Babylonians", "Minoans", "Hittites", "Menes", "Sphinx",
                 "Spearmen", "Flood"], []], phase="meld")
    fall.apply(Pass())
    d = fall.choices(0).discard
    assert d is not None and d.count == 2 and len(d.from_cards) == 9 and d.reason == "Fall: hand limit 7"


def test_vision_candidates_only_for_the_searching_seat() -> None:
    g = pos([["Menes"], ["Sumerians"], ["Sphinx"]], deck=["Greeks", "Romans", "Flood"], discard=["Tribute"])
    g.apply(Basic(["Menes"]))
    c = g.choices(0)
    assert c.kind == "vision" and c.take is not None and c.take.source == "deck"
    assert sorted(names(c.take.candidates)) == ["Flood", "Greeks", "Romans"]
    for other in (1, 2, None):
        o = g.choices(other)
        assert o.kind is None and o.take is None and o.waiting_for == 0
        text = json.dumps(o.to_json())
        assert "Greeks" not in text and "Romans" not in text and "Flood" not in text


def test_foundations_candidates_are_the_discard_pile() -> None:
    g = pos([["Granaries"], ["Sumerians"]], deck=["Greeks"], discard=["Tribute", "Flood"])
    g.apply(Basic(["Granaries"]))
    t = g.choices(0).take
    assert t is not None and t.source == "discard"
    assert sorted(names(t.candidates)) == ["Flood", "Granaries", "Tribute"]  # the paid card too (R5.3)


def test_nothing_hidden_in_another_seats_choices() -> None:
    g = pos([["Spearmen", "Sphinx"], ["Sumerians", "Menes"]], deck=["Greeks"])
    for seat in (1, None):
        c = g.choices(seat)
        assert c.abilities == () and c.meld is None and c.discard is None and c.take is None
        text = json.dumps(c.to_json())
        assert "Spearmen" not in text and "Sphinx" not in text


def test_decision_numbers_and_stale_answers() -> None:
    g = pos([["Sphinx"], ["Sumerians"]], deck=["Greeks", "Romans", "Celts"])
    assert g.decision_number == 1 and g.view(0).decision_number == 1
    assert g.view(1).to_json()["decision_number"] == 1
    g.apply(Basic(["Sphinx"]), decision=1)
    assert g.decision_number == 2 and g.choices(0).decision_number == 2
    before = g.state_json()
    with pytest.raises(StaleDecisionError, match="answers decision 1, but the game is at decision 2") as e:
        g.apply(Pass(), decision=1)
    assert isinstance(e.value, IllegalActionError) and e.value.rule == "R9.2"
    with pytest.raises(StaleDecisionError):
        g.apply_id(0, decision=7)
    assert g.state_json() == before and g.decision_number == 2
    g.apply_id(0, decision=2)
    assert g.decision_number == 3
    with pytest.raises(IllegalActionError):  # an illegal answer does not count either
        g.apply(Take(Card("Greeks")), decision=3)
    assert g.decision_number == 3
    assert g.clone().decision_number == 3
    assert GameRecord.of(g).replay().decision_number == 3


def test_choices_json_and_errors() -> None:
    g = Game(players=3, seed=5)
    seat = g.to_move
    d = g.choices(seat).to_json()
    json.dumps(d)
    assert d["kind"] == "action" and d["waiting_for"] == seat and len(d["abilities"]) == 16
    assert all(isinstance(c, str) for a in d["abilities"] for c in a["payable"])
    with pytest.raises(ValueError, match="seat must be"):
        g.choices(3)


@pytest.mark.parametrize("name", ["Fall", "Meld", "Action"])
def test_a_designers_ability_named_like_a_phase_works(name: str) -> None:
    rules = RuleSet.from_dict({"basic": {"X": {"name": name, "effects": ["draw 1", "discard 2"]}}})
    state = {"active": 0, "phase": "action", "players": [
        {"hand": ["Tribute", "Sphinx", "Spearmen"], "ct": 0}, {"hand": ["Sumerians"], "ct": 0}],
        "deck": ["Greeks"], "discard": []}
    g = Game.from_position(state, rules)
    g.apply(Basic(["Tribute"]))
    assert g.pending is not None and g.pending.kind == DecisionKind.CULTURE_DISCARD
    assert g.pending.ability == name and g.phase == "action"
    c = g.choices(0)
    assert c.discard is not None and c.discard.reason == name and c.discard.count == 2
    g.apply(Discard(["Sphinx", "Spearmen"]))
    assert g.pending is not None and g.pending.kind == "meld"
    g.apply(Pass())
    assert g.turn == 2 and g.active == 1
