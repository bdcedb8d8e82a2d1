"""Ratings of single decisions: consistent on a position with a clear answer, honest under
another deal consistent with the seat's view, and the marks' thresholds."""

from __future__ import annotations

import random

import pytest

from civlite.engine import Game, GameRecord, Pass, sample_world
from civlite.review import MAX_BUDGET, ReviewError, mark, rate_decision, rate_view
from civlite.review.rating import label, steps_of

MELD_HAND = ["Sumerians", "Gilgamesh", "Stonehenge", "Laws", "Spearmen", "Granaries", "Wealth"]


def winning_meld() -> Game:
    """Seat 0 at 15 CT holds a meld (+5 CT: victory); seat 1 is one CT from winning too."""
    return Game.from_position({
        "active": 0, "phase": "meld",
        "deck": ["Greeks", "Caesar", "Sphinx", "Religion", "Roads", "Tribute", "Flood", "Celts"],
        "players": [{"hand": MELD_HAND, "ct": 15},
                    {"hand": ["Pyramids at Giza", "Moses", "Hittites", "Colossus"], "ct": 19}],
    })


def test_a_meld_that_wins_is_best_and_a_pass_is_a_blunder() -> None:
    game = winning_meld()
    rated = rate_decision(game, Pass(), budget=200, seed=1)
    best = rated.rating.best
    assert best.action.do == "meld" and best.win == 1.0
    assert rated.chosen.do == "pass" and rated.mark == "blunder" and rated.loss >= 0.15
    meld = best.action
    assert rate_decision(game, meld, budget=200, seed=1).mark == "best"


@pytest.mark.parametrize("kind", ["action", "fall_discard", "meld"])
def test_another_deal_consistent_with_the_view_gets_the_same_ratings(record: GameRecord, kind: str) -> None:
    game = record.initial()
    for action in record.actions:
        if game.to_move == 1 and game.pending is not None and game.pending.kind == kind and game.turn > 1:
            break
        game.apply(action)
    else:
        pytest.fail(f"no {kind} decision of seat 1 in the record")
    view = game.view(1)
    other = sample_world(view, random.Random(99))  # what seat 1 cannot see, dealt again
    assert other.view(1) == view
    assert other.hands[0] != game.hands[0] or other.deck != game.deck
    a = rate_decision(game, action, budget=120, seed=5)
    b = rate_decision(other, action, budget=120, seed=5)
    assert [(o.steps, o.win, o.visits) for o in a.rating.options] == [
        (o.steps, o.win, o.visits) for o in b.rating.options]
    assert (a.loss, a.mark) == (b.loss, b.mark)


def test_options_best_first_and_losses_never_negative(record: GameRecord) -> None:
    game = record.initial()
    for action in record.actions[:6]:
        if game.to_move == 0 and game.pending is not None and game.pending.kind == "action":
            rated = rate_decision(game, action, budget=60, seed=2)
            wins = [o.win for o in rated.rating.options]
            assert wins == sorted(wins, reverse=True) and all(0.0 <= w <= 1.0 for w in wins)
            assert rated.loss >= 0.0 and rated.rating.options[rated.chosen_index].steps == steps_of(action, game)
            assert all(o.visits >= 1 for o in rated.rating.options)
        game.apply(action)


@pytest.mark.parametrize(("loss", "expected"), [
    (0.0, "best"), (0.0099, "best"), (0.01, "good"), (0.0499, "good"), (0.05, "inaccuracy"),
    (0.0999, "inaccuracy"), (0.10, "mistake"), (0.1499, "mistake"), (0.15, "blunder"), (1.0, "blunder"),
])
def test_marks_follow_the_thresholds(loss: float, expected: str) -> None:
    assert mark(loss) == expected


@pytest.mark.parametrize("budget", [0, -1, MAX_BUDGET + 1, 2.5, True])
def test_a_budget_out_of_range_is_refused(budget: object) -> None:
    with pytest.raises(ReviewError, match="budget must be"):
        rate_view(winning_meld().view(0), budget)  # type: ignore[arg-type]


def test_a_view_without_a_decision_is_refused() -> None:
    game = winning_meld()
    with pytest.raises(ReviewError, match="no decision"):
        rate_view(game.view(1), 10)
    with pytest.raises(ReviewError, match="spectator"):
        rate_view(game.view(None), 10)


def test_labels_read_as_a_player_would() -> None:
    game = Game.from_position({"active": 0, "phase": "action", "deck": ["Greeks", "Caesar"],
                               "players": [{"hand": ["Sphinx", "Spearmen"], "ct": 0}, {"hand": ["Celts"], "ct": 0}]})
    labels = {label(a, game.rules, "action", names=["ann", "bob"]) for a in game.legal_actions()}
    assert {"pass", "Greatness (Sphinx)", "Raid (Spearmen) on bob"} <= labels
