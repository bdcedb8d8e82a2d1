"""Positions: reading a game set up in a chosen position (the ``state`` of
a scenario file, FEN-like), and writing a game's state back in that form.

``Game.from_position`` (which sets up the game :func:`read_position` checks and
describes), ``Game.state_json`` and ``Game.position`` call these.

>>> from civlite.engine import Game
>>> state = {"active": 1, "phase": "meld", "deck": ["Greeks"], "discard": ["Flood"],
...          "players": [{"hand": ["Caesar"], "ct": 3}, {"hand": ["Sphinx"], "ct": 0}]}
>>> g = Game.from_position(state)
>>> g.pending
Decision(player=1, kind='meld', count=0, ability=None)
>>> g.position() == {**state, "turn": 1, "extra_turn": False}
True
>>> read_position({"players": [{"hand": ["Greeks", "Greeks"]}, {"hand": []}]})
Traceback (most recent call last):
...
civlite.engine.positions.PositionError: state.players[0].hand[1]: card 'Greeks' appears twice (also in state.players[0].hand); names are unique (R1.1)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, NamedTuple

from .cards import ID_OF_NAME, NAMES, Card
from .decisions import DecisionKind
from .rules import RuleSet
from .state import GameState


class PositionError(ValueError):
    """A position (scenario state) that cannot be: the message names the problem."""


#: the keys of a position, as a scenario file names them
KEYS = frozenset({"active", "phase", "players", "deck", "discard", "extra_turn", "turn"})
#: the phases a position may start in (scenario files)
START_PHASES = ("rise", "action", "meld")


def _whole(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


class Placement(NamedTuple):
    """A checked position: what ``Game.from_position`` sets up (card ids; the deck's top
    at the end, as a game holds it)."""

    rules: RuleSet
    names: tuple[str, ...]
    seed: int
    hands: list[list[int]]
    ct: list[int]
    supply: int | None
    deck: list[int]
    discard: list[int]
    active: int
    turn: int
    extra_turn: bool
    universe: tuple[int, ...]
    phase: str
    start: dict[str, Any]


def read_position(
    state: Any, rules: RuleSet | None = None, seed: int | None = 0, names: Sequence[str] | None = None,
) -> Placement:
    """The game ``state`` describes; the cards it names are all the cards of that game.

    Raises :class:`PositionError` naming the problem when the position cannot be."""
    rules = rules or RuleSet.default()
    if not isinstance(state, dict):
        raise PositionError("state must be an object with players, deck, discard, active, phase")
    extra = sorted(set(state) - KEYS)
    if extra:
        raise PositionError(f"state has unknown key {extra[0]!r}; expected {sorted(KEYS)}")
    players = state.get("players")
    if not isinstance(players, list):
        raise PositionError("state.players must be a list with one entry per seat")
    n = len(players)
    if not rules.min_players <= n <= rules.max_players:
        raise PositionError(
            f"state.players has {n} seats; this rule set plays {rules.min_players} to {rules.max_players} (R2.1)"
        )
    seen: dict[str, str] = {}
    in_deck = frozenset(rules.deck)

    def cards_of(value: Any, where: str) -> list[int]:
        if not isinstance(value, list):
            raise PositionError(f"{where} must be a list of card names, got {value!r}")
        out = []
        for i, name in enumerate(value):
            if not isinstance(name, str):
                raise PositionError(f"{where}[{i}] must be a card name, got {name!r}")
            if name not in ID_OF_NAME:
                try:
                    Card(name)
                except ValueError as e:
                    raise PositionError(f"{where}[{i}]: {e}") from None
            if ID_OF_NAME[name] not in in_deck:
                raise PositionError(f"{where}[{i}]: {name!r} is not a card of this rule set's deck ([deck], R10)")
            if name in seen:
                raise PositionError(
                    f"{where}[{i}]: card {name!r} appears twice (also in {seen[name]}); names are unique (R1.1)"
                )
            seen[name] = where
            out.append(ID_OF_NAME[name])
        return out

    hands: list[list[int]] = []
    cts: list[int] = []
    for i, p in enumerate(players):
        if not isinstance(p, dict):
            raise PositionError(f"state.players[{i}] must be an object with 'hand' and 'ct'")
        bad = sorted(set(p) - {"hand", "ct"})
        if bad:
            raise PositionError(f"state.players[{i}] has unknown key {bad[0]!r}; expected hand and ct")
        if "hand" not in p:
            raise PositionError(f"state.players[{i}] has no 'hand'")
        hands.append(cards_of(p["hand"], f"state.players[{i}].hand"))
        ct = p.get("ct", 0)
        if not _whole(ct, 0):
            raise PositionError(f"state.players[{i}].ct must be a whole number >= 0, got {ct!r}")
        if ct >= rules.victory_ct:
            raise PositionError(
                f"state.players[{i}].ct is {ct}: at {rules.victory_ct} CT the game would already be over (R8.1)"
            )
        cts.append(ct)
    deck = cards_of(state.get("deck", []), "state.deck")
    discard = cards_of(state.get("discard", []), "state.discard")
    active = state.get("active", 0)
    if not _whole(active, 0) or active >= n:
        raise PositionError(f"state.active must be a seat 0..{n - 1}, got {active!r}")
    phase = state.get("phase", "action")
    if phase not in START_PHASES:
        raise PositionError(f"state.phase must be 'rise', 'action' or 'meld', got {phase!r}")
    extra_turn = state.get("extra_turn", False)
    if not isinstance(extra_turn, bool):
        raise PositionError(f"state.extra_turn must be true or false, got {extra_turn!r}")
    turn = state.get("turn", 1)
    if not _whole(turn, 1):
        raise PositionError(f"state.turn must be a whole number >= 1, got {turn!r}")
    supply = None
    if rules.ct_supply is not None:
        supply = rules.ct_supply - sum(cts)
        if supply < 0:
            raise PositionError(
                f"the players hold {sum(cts)} CT but the supply has only {rules.ct_supply} in all (R1.3)"
            )
    if seed is None:
        seed = random.SystemRandom().randrange(2**63)
    return Placement(
        rules, tuple(names) if names else tuple(f"seat {i}" for i in range(n)), seed,
        hands=hands, ct=cts, supply=supply, deck=deck[::-1], discard=discard, active=active,
        turn=turn, extra_turn=extra_turn, universe=tuple(sorted(ID_OF_NAME[name] for name in seen)),
        phase=phase, start={"state": state, "seed": seed},
    )


def _table(g: GameState) -> dict[str, Any]:
    return {
        "active": g.active,
        "phase": g.phase,
        "turn": g.turn,
        "extra_turn": g.extra_turn,
        "players": [{"hand": [NAMES[c] for c in sorted(h)], "ct": g.ct[i]} for i, h in enumerate(g.hands)],
        "deck": [NAMES[c] for c in reversed(g.deck)],
        "discard": [NAMES[c] for c in g.discard],
    }


def state_json(g: GameState) -> dict[str, Any]:
    """The whole truth in the ``state`` form of a scenario's result (deck top first)."""
    p = g.pending
    d = _table(g)
    d.update(pending={"player": p.player, "decision": p.kind} if p else None, over=g.over, winner=g.winner)
    return d


def position(g: GameState) -> dict[str, Any]:
    """The position as a :func:`from_position` input (knowledge and random state left out);
    only at an ``action`` or ``meld`` decision, where a position can start."""
    if g.over or g.pending_kind not in (DecisionKind.ACTION, DecisionKind.MELD):
        raise ValueError("a position can be written only at an action or meld decision")
    return _table(g)
