"""The tutorial's coach: each phase, each ability once it can be paid, and the meld when it is
near, each said once and only from the player's view."""

from __future__ import annotations

import doctest

import civlite.review.tutorial as tutorial
from civlite.bots import decide, make_bot
from civlite.engine import Game
from civlite.review.tutorial import Coach, missing_for_meld, tutorial_game


def test_the_module_examples_run() -> None:
    assert doctest.testmod(tutorial).failed == 0


def test_a_whole_tutorial_game_tells_every_phase_once() -> None:
    game = tutorial_game()
    coach = Coach(seat=0)
    bots = [make_bot("heuristic", seed=1), make_bot(tutorial.TUTOR_BOT, seed=2)]
    said: list[str] = []
    while not game.over:
        said += [n.key for n in coach.notes(game)]
        game.apply(decide(bots[game.to_move], game))
    assert len(said) == len(set(said))
    assert {"rise", "action", "meld"} <= set(said) and any(k.startswith("ability.") for k in said)
    assert "meld.near" in said or "meld.ready" in said


def test_the_meld_near_is_told_with_the_missing_suit() -> None:
    game = Game.from_position({"active": 0, "phase": "action", "deck": ["Greeks", "Caesar", "Celts"],
                               "players": [{"hand": ["Sumerians", "Gilgamesh", "Stonehenge", "Laws", "Spearmen",
                                                     "Wealth"], "ct": 0}, {"hand": ["Moses"], "ct": 0}]})
    assert missing_for_meld(game.view(0)) == ["Building"]
    notes = {n.key: n.text for n in Coach(seat=0).notes(game)}
    assert "you lack a Building card" in notes["meld.near"]
    assert Coach(seat=1).notes(game) == []  # nothing for a seat that does not decide
