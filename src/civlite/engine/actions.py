"""Actions: the decisions a player sends (R9), as immutable values.

Their JSON form is exactly the action vocabulary of scenario files::

    {"do": "pass"}
    {"do": "basic", "cards": ["Spearmen"], "target": 1}
    {"do": "advanced", "cards": ["Granaries", "Palaces", "Roads"]}
    {"do": "take", "card": "Greeks"}
    {"do": "discard", "cards": ["Caesar", "Moses"]}
    {"do": "meld", "cards": [7 cards]}

Any action may carry ``"player": seat``; it is checked against the pending player.
``repr`` of an action is code that builds it again:

>>> a = Action.from_json({"do": "advanced", "cards": ["Granaries", "Palaces", "Roads"]})
>>> a
Advanced([Card('Granaries'), Card('Palaces'), Card('Roads')], target=None)
>>> a == eval(repr(a)) and a.to_json() == {"do": "advanced", "cards": ["Granaries", "Palaces", "Roads"]}
True
>>> Action.from_json({"do": "jump"})
Traceback (most recent call last):
civlite.engine.actions.ActionFormatError: action 'do' must be one of pass, basic, advanced, take, discard, meld, got 'jump'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .cards import Card, UnknownCardError


class ActionFormatError(ValueError):
    """An action whose JSON shape is wrong (not an illegal move: a malformed one)."""


class IllegalActionError(ValueError):
    """A well-formed action that the rules do not allow now; ``rule`` is the rule it breaks (a
    number of the documentation's rules page, also at the end of the message: ``(R9.2)``)."""

    def __init__(self, message: str, rule: str = "R9.2") -> None:
        super().__init__(f"{message} ({rule})" if rule and f"({rule})" not in message else message)
        self.rule = rule


class StaleDecisionError(IllegalActionError):
    """An answer to a decision that is no longer pending (``decision`` is not the game's
    :attr:`~civlite.engine.Game.decision_number`): late or repeated. Changes nothing."""


class Action:
    """Base of every action; ``Action.from_json`` parses any of them."""

    __slots__ = ()
    do: ClassVar[str] = ""
    player: int | None

    @staticmethod
    def from_json(data: Any) -> Action:
        """Parse the JSON form (a dict or a JSON string); raises :class:`ActionFormatError`."""
        return action_from_json(data)

    def to_json(self) -> dict[str, Any]:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def dumps(self) -> str:
        return json.dumps(self.to_json())


def _cards_tuple(cards: Any) -> tuple[Card, ...]:
    return tuple(sorted(Card(c) if isinstance(c, str) else c for c in cards))


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """Decline an ability (``action``) or a meld (``meld``)."""

    player: int | None = field(default=None, compare=False)
    do: ClassVar[str] = "pass"

    def to_json(self) -> dict[str, Any]:
        return _with_player({"do": "pass"}, self.player)


@dataclass(frozen=True, slots=True, init=False)
class Basic(Action):
    """Pay 1 card of a suit to activate its basic ability (R5)."""

    cards: tuple[Card, ...]
    target: int | None
    player: int | None = field(compare=False)
    do: ClassVar[str] = "basic"

    def __init__(self, cards: Any, target: int | None = None, player: int | None = None) -> None:
        object.__setattr__(self, "cards", _cards_tuple(cards))
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "player", player)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"do": self.do, "cards": [c.name for c in self.cards]}
        if self.target is not None:
            d["target"] = self.target
        return _with_player(d, self.player)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self.cards)!r}, target={self.target!r})"


@dataclass(frozen=True, slots=True, init=False, repr=False)
class Advanced(Basic):
    """Pay exactly CN cards of one suit to activate its advanced ability (R6, R6.1)."""

    do: ClassVar[str] = "advanced"


@dataclass(frozen=True, slots=True)
class Take(Action):
    """Take one card: from the deck (``vision``) or the discard pile (``foundations``)."""

    card: Card
    player: int | None = field(default=None, compare=False)
    do: ClassVar[str] = "take"

    def __post_init__(self) -> None:
        if isinstance(self.card, str):
            object.__setattr__(self, "card", Card(self.card))

    def to_json(self) -> dict[str, Any]:
        return _with_player({"do": "take", "card": self.card.name}, self.player)

    def __repr__(self) -> str:
        return f"Take({self.card!r})"


@dataclass(frozen=True, slots=True, init=False)
class Discard(Action):
    """Discard cards for a ``*_discard`` decision (R5, R6, R4.4)."""

    cards: tuple[Card, ...]
    player: int | None = field(compare=False)
    do: ClassVar[str] = "discard"

    def __init__(self, cards: Any, player: int | None = None) -> None:
        object.__setattr__(self, "cards", _cards_tuple(cards))
        object.__setattr__(self, "player", player)

    def to_json(self) -> dict[str, Any]:
        return _with_player({"do": self.do, "cards": [c.name for c in self.cards]}, self.player)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self.cards)!r})"


@dataclass(frozen=True, slots=True, init=False, repr=False)
class Meld(Discard):
    """Play a meld of 7 cards (R7)."""

    do: ClassVar[str] = "meld"


_KINDS: dict[str, type] = {"pass": Pass, "basic": Basic, "advanced": Advanced,
                           "take": Take, "discard": Discard, "meld": Meld}
_FIELDS: dict[str, set[str]] = {
    "pass": set(), "basic": {"cards", "target"}, "advanced": {"cards", "target"},
    "take": {"card"}, "discard": {"cards"}, "meld": {"cards"},
}


def _with_player(d: dict[str, Any], player: int | None) -> dict[str, Any]:
    if player is not None:
        d["player"] = player
    return d


def _seat(value: Any, key: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ActionFormatError(f"action field {key!r} must be a seat number (0, 1, ...), got {value!r}")
    return value


def action_from_json(data: Any) -> Action:
    """Parse the JSON form (a dict or a JSON string); raises :class:`ActionFormatError`."""
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as e:
            raise ActionFormatError(f"action is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise ActionFormatError(f"an action is a JSON object like {{\"do\": \"pass\"}}, got {data!r}")
    do = data.get("do")
    if do not in _KINDS:
        raise ActionFormatError(
            f"action 'do' must be one of {', '.join(_KINDS)}, got {do!r}"
        )
    allowed = _FIELDS[do] | {"do", "player"}
    extra = sorted(set(data) - allowed)
    if extra:
        raise ActionFormatError(f"'{do}' action has unknown field {extra[0]!r}; it takes {sorted(allowed - {'do'})}")
    player = _seat(data["player"], "player") if data.get("player") is not None else None
    try:
        if do == "pass":
            return Pass(player=player)
        if do == "take":
            if "card" not in data:
                raise ActionFormatError("'take' action needs a 'card' name")
            card = data["card"]
            if not isinstance(card, str):
                raise ActionFormatError(f"'take' action: 'card' must be a card name, got {card!r}")
            return Take(Card(card), player=player)
        cards = data.get("cards")
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise ActionFormatError(f"'{do}' action needs 'cards', a list of card names, got {cards!r}")
        objs = [Card(c) for c in cards]
        if do in ("basic", "advanced"):
            target = data.get("target")
            if target is not None:
                target = _seat(target, "target")
            return (Basic if do == "basic" else Advanced)(objs, target, player)
        return (Discard if do == "discard" else Meld)(objs, player)
    except UnknownCardError as e:
        raise ActionFormatError(str(e)) from None


def action_to_json(action: Action) -> dict[str, Any]:
    return action.to_json()
