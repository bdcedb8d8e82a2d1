"""The kinds of decision a game waits on (R9), as one enum.

Values are the strings the rules (R9) and scenario files spell, so ``kind == "action"``
and JSON keep working. No kind is built from an ability's name: what an ability asks
depends on its effect primitive (and tier), so a designer's ability may be named
anything, "Fall" and "Meld" included.

>>> DecisionKind.ACTION == "action"
True
>>> DecisionKind.for_discard("target_discards", "basic")
'setback_discard'
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple


class DecisionKind(StrEnum):
    ACTION = "action"  #: the active player: an ability with its cards and target, or pass
    MELD = "meld"  #: the active player: 7 cards, or pass
    VISION = "vision"  #: the active player takes a card of the deck (``search_deck``)
    FOUNDATIONS = "foundations"  #: the active player takes a card of the discard pile (``search_discard``)
    CULTURE_DISCARD = "culture_discard"  #: a basic ability's own discard (``discard`` in a basic ability)
    WISDOM_DISCARD = "wisdom_discard"  #: an advanced ability's own discard (``discard`` in an advanced one)
    SETBACK_DISCARD = "setback_discard"  #: the target discards (``target_discards``): the target decides
    FALL_DISCARD = "fall_discard"  #: the active player discards down to the hand limit (R4.4)

    def __repr__(self) -> str:
        return repr(self.value)

    @property
    def is_discard(self) -> bool:
        return self in _DISCARDS

    @property
    def can_pass(self) -> bool:
        return self is DecisionKind.ACTION or self is DecisionKind.MELD

    @classmethod
    def for_discard(cls, op: str, tier: str) -> DecisionKind:
        """The discard decision an effect primitive asks: by the primitive and tier, never a name."""
        if op == "target_discards":
            return cls.SETBACK_DISCARD
        return cls.CULTURE_DISCARD if tier == "basic" else cls.WISDOM_DISCARD


_DISCARDS = frozenset({DecisionKind.CULTURE_DISCARD, DecisionKind.WISDOM_DISCARD,
                       DecisionKind.SETBACK_DISCARD, DecisionKind.FALL_DISCARD})


class Decision(NamedTuple):
    """The pending decision (R9): who decides, what kind, how many cards to choose."""

    player: int
    kind: DecisionKind
    count: int = 0  # type: ignore[assignment]  # shadows tuple.count on purpose
    ability: str | None = None

    @property
    def decision(self) -> str:
        """The decision's name as a scenario's result spells the key (same as ``kind``)."""
        return self.kind

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"player": self.player, "decision": self.kind}
        if self.count:
            d["count"] = self.count
        if self.ability:
            d["ability"] = self.ability
        return d
