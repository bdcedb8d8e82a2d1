"""Views: what one seat (or a spectator) may see. Built only by ``Game.view``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from .cards import Card
from .decisions import DecisionKind
from .rules import RuleSet


class Decision(NamedTuple):
    """The pending decision (R9): who decides, what kind, how many cards to choose."""

    player: int
    kind: DecisionKind
    count: int = 0  # type: ignore[assignment]  # shadows tuple.count on purpose
    ability: str | None = None

    @property
    def decision(self) -> str:
        """The decision's name as SCENARIOS.md spells the key (same as ``kind``)."""
        return self.kind

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"player": self.player, "decision": self.kind}
        if self.count:
            d["count"] = self.count
        if self.ability:
            d["ability"] = self.ability
        return d


@dataclass(frozen=True, slots=True)
class PlayerView:
    """Another seat, as the viewer sees it."""

    seat: int
    hand_size: int
    ct: int
    known: tuple[Card, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "hand_size": self.hand_size, "ct": self.ct,
                "known": [c.name for c in self.known]}


@dataclass(frozen=True, slots=True)
class View:
    """Everything ``seat`` may know now; ``seat is None`` is a spectator (public facts only).

    ``players`` lists the other seats in seat order (all seats for a spectator).
    ``searching`` is the deck's content while this seat decides a Vision (R5.2),
    ``selecting`` the cards this seat has picked so far in a step-by-step discard.
    """

    seat: int | None
    num_players: int
    rules: RuleSet
    hand: tuple[Card, ...]
    ct: int | None
    deck_size: int
    discard: tuple[Card, ...]
    players: tuple[PlayerView, ...]
    active: int
    phase: str
    turn: int
    extra_turn: bool
    pending: Decision | None
    over: bool
    winner: int | None
    drawn: tuple[int, ...]
    supply: int | None
    resolving: str | None = None  # ability being resolved
    effect_index: int = 0
    resolving_target: int | None = None
    searching: tuple[Card, ...] | None = None
    selecting: tuple[Card, ...] = ()
    universe: tuple[Card, ...] | None = None  # None: the full 112-card deck
    first_rises: tuple[int, ...] = ()  # draws of the first Rises still owed, in turn order
    #: the pending decision's number (``Game.decision_number``): answers carry it back
    decision_number: int = 0

    def player(self, seat: int) -> PlayerView:
        for p in self.players:
            if p.seat == seat:
                return p
        raise KeyError(f"seat {seat} is not another seat of this view")

    @property
    def my_turn(self) -> bool:
        return self.pending is not None and self.pending.player == self.seat

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "seat": self.seat,
            "hand": [c.name for c in self.hand],
            "ct": self.ct,
            "deck_size": self.deck_size,
            "discard": [c.name for c in self.discard],
            "players": [p.to_json() for p in self.players],
            "active": self.active,
            "phase": self.phase,
            "turn": self.turn,
            "extra_turn": self.extra_turn,
            "pending": self.pending.to_json() if self.pending else None,
            "over": self.over,
            "winner": self.winner,
            "rules": self.rules.name,
            "decision_number": self.decision_number,
        }
        if self.drawn:
            d["drawn"] = list(self.drawn)
        if self.supply is not None:
            d["supply"] = self.supply
        if self.resolving:
            d["resolving"] = {"ability": self.resolving, "effect": self.effect_index,
                              "target": self.resolving_target}
        if self.searching is not None:
            d["searching"] = [c.name for c in self.searching]
        if self.selecting:
            d["selecting"] = [c.name for c in self.selecting]
        return d
