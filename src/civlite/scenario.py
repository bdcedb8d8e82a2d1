"""``civlite scenario FILE``: play a scenario file (the format of docs/scenarios.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .engine import (
    ActionFormatError,
    Card,
    Game,
    IllegalActionError,
    PositionError,
    RuleSet,
    RuleSetError,
    action_from_json,
)

#: the rule-set names a scenario may override
SCENARIO_RULES = ("hand_size", "rise_draw", "hand_limit", "victory_ct", "meld_ct",
                  "meld_draw", "ct_supply", "turn_limit")


class ScenarioError(ValueError):
    """The file is not a valid scenario (exit status 2)."""


def load(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(f"cannot read {str(p)!r}: {getattr(e, 'strerror', None) or e}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ScenarioError(f"{p.name}: not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{p.name}: a scenario is a JSON object with 'state' and 'actions'")
    return data


def prepare(data: dict[str, Any]) -> tuple[Game, list[Any]]:
    """Validate a scenario and set its game up; raises :class:`ScenarioError`."""
    overrides = data.get("rules", {}) or {}
    if not isinstance(overrides, dict):
        raise ScenarioError("'rules' must be an object of rule-set numbers")
    bad = sorted(set(overrides) - set(SCENARIO_RULES) - {"deck"})
    if bad:
        raise ScenarioError(f"rules: unknown name {bad[0]!r}; a scenario may set {', '.join(SCENARIO_RULES)} "
                            "(and deck, civlite's own: a rule set's [deck], R10)")
    try:
        # deck: civlite's own key, so that a position may name a deck's extra cards
        rules = RuleSet.from_dict(overrides, where="rules") if overrides else RuleSet.default()
    except RuleSetError as e:
        msg = str(e)
        raise ScenarioError(msg if msg.startswith("rules") else f"rules: {msg}") from None
    seed = data.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ScenarioError(f"'seed' must be a whole number, got {seed!r}")
    if "state" not in data:
        raise ScenarioError("the scenario has no 'state'")
    try:
        game = Game.from_position(data["state"], rules, seed)
    except PositionError as e:
        raise ScenarioError(str(e)) from None
    raw = data.get("actions", [])
    if not isinstance(raw, list):
        raise ScenarioError("'actions' must be a list of actions")
    actions = []
    in_deck = frozenset(rules.deck)
    for i, a in enumerate(raw):
        try:
            action = action_from_json(a)
        except ActionFormatError as e:
            raise ScenarioError(f"actions[{i}]: {e}") from None
        # a name the game's deck does not hold is an unknown card wherever the file names it,
        # in the position or in the script (exit 2), not an action the rules refuse (exit 0)
        for where, name in _named_cards(a) if isinstance(a, dict) else []:
            if Card(name).id not in in_deck:
                raise ScenarioError(f"actions[{i}].{where}: {name!r} is not a card of this rule set's deck "
                                    "([deck], R10)")
        actions.append(action)
    return game, actions


def _named_cards(action: dict[str, Any]) -> list[tuple[str, str]]:
    """The card names an action (already read as valid) holds, each with where the file has it
    (``card``, ``cards[0]``)."""
    if isinstance(action.get("card"), str):
        return [("card", action["card"])]
    cards = action.get("cards")
    return [(f"cards[{j}]", c) for j, c in enumerate(cards)] if isinstance(cards, list) else []


def run(data: dict[str, Any]) -> dict[str, Any]:
    """Play a scenario; return the result object of a scenario."""
    game, actions = prepare(data)
    error = None
    applied = 0
    for i, action in enumerate(actions):
        try:
            game.apply(action)
        except IllegalActionError as e:
            error = {"index": i, "message": str(e)}
            break
        applied += 1
    return {
        "name": data.get("name"),
        "applied": applied,
        "error": error,
        "state": game.state_json(),
        "views": [game.view(s).to_json() for s in range(game.num_players)],
    }
