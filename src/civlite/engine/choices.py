"""Per-seat choices: what one seat may do now, structured for a user interface.

``game.choices(seat)`` answers from the same facts the seat's view holds and never
shows a card the seat cannot see: a seat that is not deciding gets only who is
deciding and the decision's number. Clients take their choices from here instead
of re-deriving the rules.

>>> from civlite.engine import Game
>>> g = Game.from_position({"active": 0, "phase": "action", "deck": ["Greeks"],
...     "players": [{"hand": ["Sphinx", "Spearmen"], "ct": 0}, {"hand": ["Caesar"], "ct": 0}]})
>>> c = g.choices(0)
>>> c.kind, c.decision_number, [a.name for a in c.abilities if a.affordable]
('action', 1, ['Greatness', 'Raid'])
>>> raid = c.ability_choice("basic.M")
>>> raid.targets, raid.preview(raid.payable, 1, names=["ann", "bob"])
((1,), 'pay Spearmen: take 1 card at random from bob')
>>> g.choices(1).kind is None
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .actions import Action, Advanced, Basic, IllegalActionError, Meld
from .cards import ALL_CARDS, SUIT_LETTERS, SUIT_OF, Card, Suit
from .decisions import DecisionKind
from .rules import Ability
from .state import GameState


def _names(cards: Sequence[Card]) -> list[str]:
    return [c.name for c in cards]


def _seat_name(seat: int, names: Sequence[str] | None) -> str:
    return names[seat] if names is not None and 0 <= seat < len(names) else f"seat {seat}"


@dataclass(frozen=True, slots=True)
class AbilityChoice:
    """One ability of the rule set, as the deciding seat may use it now."""

    key: str  #: ``"basic.W"`` / ``"advanced.M"``
    level: str  #: ``"basic"`` | ``"advanced"``
    suit: Suit
    name: str
    text: str  #: plain words from the effect registry: ``gain 3 CT, draw 2``
    cost: int  #: cards needed (CN)
    affordable: bool
    payable: tuple[Card, ...]  #: held cards of the suit (any ``cost`` of them may pay)
    targets: tuple[int, ...]  #: legal target seats; () when the ability chooses no opponent
    needs_target: bool
    ability: Ability

    def action(self, cards: Sequence[Card | str] | None = None, target: int | None = None) -> Action:
        """The action that uses it: ``cards`` (default: the first ``cost`` payable cards)
        and ``target`` (default: the only legal one, when there is one)."""
        chosen = list(self.payable[: self.cost]) if cards is None else list(cards)
        if self.needs_target and target is None and len(self.targets) == 1:
            target = self.targets[0]
        return (Advanced if self.level == "advanced" else Basic)(chosen, target)

    def preview(self, cards: Sequence[Card | str] | None = None, target: int | None = None,
                names: Sequence[str] | None = None) -> str:
        """``pay Stonehenge, Pantheon, Colossus: gain 3 CT, draw 2`` (the target named)."""
        chosen = list(self.payable[: self.cost]) if cards is None else [
            c if isinstance(c, Card) else Card(c) for c in cards]
        if self.needs_target and target is None and len(self.targets) == 1:
            target = self.targets[0]
        who = _seat_name(target, names) if target is not None else "an opponent"
        return f"pay {', '.join(_names(chosen))}: {self.ability.words(who)}"

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "level": self.level, "suit": SUIT_LETTERS[self.suit], "name": self.name,
                "text": self.text, "cost": self.cost, "affordable": self.affordable,
                "payable": _names(self.payable), "targets": list(self.targets),
                "needs_target": self.needs_target}


@dataclass(frozen=True, slots=True)
class MeldSlot:
    """One place of a meld: the suits that fit it and the held cards of those suits."""

    suits: tuple[Suit, ...]
    cards: tuple[Card, ...]

    def to_json(self) -> dict[str, Any]:
        return {"suits": [SUIT_LETTERS[s] for s in self.suits], "cards": _names(self.cards)}


@dataclass(frozen=True, slots=True)
class MeldChoice:
    """Whether a meld is possible and which held cards fit each of its slots (R7.1)."""

    possible: bool
    slots: tuple[MeldSlot, ...]  #: one per major suit, then the minor (``one_of``) slot
    ct: int
    draw: int

    def action(self, cards: Sequence[Card | str] | None = None) -> Meld:
        """The meld of ``cards`` (default: the first card of every slot)."""
        if cards is None:
            if not self.possible:
                raise IllegalActionError("no meld is possible with this hand", "R7.1")
            cards = [slot.cards[0] for slot in self.slots]
        return Meld(list(cards))

    def to_json(self) -> dict[str, Any]:
        return {"possible": self.possible, "slots": [s.to_json() for s in self.slots],
                "ct": self.ct, "draw": self.draw}


@dataclass(frozen=True, slots=True)
class DiscardChoice:
    """A discard: how many cards, from which (the seat's hand), and why."""

    count: int
    from_cards: tuple[Card, ...]
    reason: str  #: ``"Fall: hand limit 7"`` / ``"Culture"`` (the ability asking)

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "from_cards": _names(self.from_cards), "reason": self.reason}


@dataclass(frozen=True, slots=True)
class TakeChoice:
    """A take: from the deck (Vision, seen only by the searching seat) or the discard pile."""

    source: str  #: ``"deck"`` | ``"discard"``
    candidates: tuple[Card, ...]
    count: int = 1  #: cards still to take in this decision

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "candidates": _names(self.candidates), "count": self.count}


@dataclass(frozen=True, slots=True)
class Choices:
    """What ``seat`` may do now; everything empty unless it is the seat deciding."""

    seat: int | None
    decision_number: int
    kind: DecisionKind | None  #: the pending kind if THIS seat decides, else None
    waiting_for: int | None  #: the seat deciding now (None once the game is over)
    can_pass: bool = False
    abilities: tuple[AbilityChoice, ...] = ()  #: every ability of the rule set, affordable ones first
    meld: MeldChoice | None = None
    discard: DiscardChoice | None = None
    take: TakeChoice | None = None
    #: the ability being resolved that asks this decision (a discard or a take), if any
    ability: str | None = None

    def ability_choice(self, key: str) -> AbilityChoice:
        """The ability with this key (``"basic.W"``), or its name (``"Greatness"``)."""
        for a in self.abilities:
            if a.key == key or a.name == key:
                return a
        raise KeyError(f"no ability {key!r} among the choices (kind {self.kind})")

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat, "decision_number": self.decision_number,
            "kind": None if self.kind is None else self.kind.value,
            "waiting_for": self.waiting_for, "can_pass": self.can_pass,
            "abilities": [a.to_json() for a in self.abilities],
            "meld": None if self.meld is None else self.meld.to_json(),
            "discard": None if self.discard is None else self.discard.to_json(),
            "take": None if self.take is None else self.take.to_json(),
            "ability": self.ability,
        }


def sorted_cards(ids: Sequence[int]) -> tuple[Card, ...]:
    """Card ids as cards, in id order."""
    return tuple(ALL_CARDS[c] for c in sorted(ids))


def ability_choices(g: GameState, p: int) -> tuple[AbilityChoice, ...]:
    """Every ability of the rule set as seat ``p`` may use it now (affordable ones first)."""
    hand = g.hands[p]
    by_suit: list[list[int]] = [[] for _ in range(8)]
    for c in hand:
        by_suit[SUIT_OF[c]].append(c)
    opponents = tuple(t for t in range(g.n) if t != p)
    out = []
    for ab in g.rules.abilities:
        held = sorted_cards(by_suit[ab.suit])
        out.append(AbilityChoice(
            key=f"{ab.tier}.{SUIT_LETTERS[ab.suit]}", level=ab.tier, suit=ab.suit, name=ab.name,
            text=ab.words(), cost=ab.cards, affordable=len(held) >= ab.cards, payable=held,
            targets=opponents if ab.targets else (), needs_target=ab.targets, ability=ab,
        ))
    return tuple(sorted(out, key=lambda a: not a.affordable))  # stable: rule-set order otherwise


def meld_choice(g: GameState, p: int) -> MeldChoice:
    """Whether seat ``p`` can meld, and the held cards that fit each slot (R7.1)."""
    r = g.rules
    hand = g.hands[p]
    slots = [MeldSlot((s,), sorted_cards([c for c in hand if SUIT_OF[c] == s])) for s in r.meld_suits]
    if r.meld_one_of:
        slots.append(MeldSlot(tuple(r.meld_one_of), sorted_cards([c for c in hand if SUIT_OF[c] in r.meld_one_of])))
    return MeldChoice(all(s.cards for s in slots), tuple(slots), r.meld_ct, r.meld_draw)
