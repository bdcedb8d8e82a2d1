"""The seeded record of the review tests, and how it was played."""

from __future__ import annotations

from pathlib import Path

from civlite.bots import decide, make_bot
from civlite.engine import Game, RuleSet

DATA = Path(__file__).with_name("data")
#: the seeded record of the golden tests: 2 players, victory at 10 CT, 13 decisions each
RECORD = DATA / "seeded-record.json"


def seeded_game(seed: int = 0, victory_ct: int = 10) -> Game:
    """A short finished game between ``heuristic`` (seat 0) and ``heuristic:mistakes=0.5`` (seat 1)."""
    game = Game(players=["ann", "bob"], seed=seed, rules=RuleSet.default().with_changes(victory_ct=victory_ct))
    bots = [make_bot("heuristic", seed=1), make_bot("heuristic:mistakes=0.5", seed=2)]
    while not game.over:
        game.apply(decide(bots[game.to_move], game))
    return game
