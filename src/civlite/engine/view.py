"""Views: what one seat (or a spectator) may see. Built only by ``Game.view``
(:func:`view_of`), the single place where hidden information is filtered.

>>> from civlite.engine import Game
>>> g = Game.from_position({"active": 0, "phase": "action", "deck": ["Greeks"],
...     "players": [{"hand": ["Sphinx"], "ct": 2}, {"hand": ["Caesar", "Moses"], "ct": 0}]})
>>> v = g.view(1)
>>> v.hand, v.player(0)
((Card('Moses'), Card('Caesar')), PlayerView(seat=0, hand_size=1, ct=2, known=()))
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from .cards import ALL_CARDS, Card
from .codec import suit_counts
from .decisions import Decision, DecisionKind
from .outcome import Outcome, Termination
from .rules import Ability, RuleSet
from .state import GameState

__all__ = ["Decision", "PlayerView", "View", "suit_counts", "view_counts", "view_of"]

_VISION = DecisionKind.VISION


@dataclass(frozen=True, slots=True)
class PlayerView:
    """Another seat, as the viewer sees it."""

    seat: int
    hand_size: int
    ct: int
    known: tuple[Card, ...] = ()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # by its fields: a compiled (mypyc) frozen dataclass has no pickle state to set
        return PlayerView, tuple(getattr(self, f.name) for f in fields(PlayerView))

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
    universe: tuple[Card, ...] | None = None  # None: the full 112-card deck of R1.1; else the game's cards (a position's, or a rule set's [deck])
    first_rises: tuple[int, ...] = ()  # draws of the first Rises still owed, in turn order
    #: the pending decision's number (``Game.decision_number``): answers carry it back
    decision_number: int = 0

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # by its fields: a compiled (mypyc) frozen dataclass has no pickle state to set
        return View, tuple(getattr(self, f.name) for f in fields(View))

    def player(self, seat: int) -> PlayerView:
        for p in self.players:
            if p.seat == seat:
                return p
        raise KeyError(f"seat {seat} is not another seat of this view")

    @property
    def my_turn(self) -> bool:
        return self.pending is not None and self.pending.player == self.seat

    def outcome(self) -> Outcome | None:
        """How the game ended, as ``Game.outcome()`` says (every part of it is public), or
        ``None`` while it runs: clients and bots that hold only a view read the end here."""
        if not self.over:
            return None
        ct = tuple(self.ct if s == self.seat and self.ct is not None else self.player(s).ct
                   for s in range(self.num_players))
        if self.winner is not None:
            return Outcome(Termination.VICTORY, self.winner, ct)
        return Outcome(Termination.TURN_LIMIT, None, ct, self.drawn)

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


def view_of(g: GameState, seat: int | None) -> View:
    """What ``seat`` may know of ``g`` now; ``None`` for a spectator (public facts only)."""
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < g.n):
        raise ValueError(f"seat must be 0..{g.n - 1} or None (spectator), got {seat!r}")
    knower = g._knower
    others = []
    for s in range(g.n):
        if s == seat:
            continue
        if seat is None:
            known: tuple[Card, ...] = ()
        else:
            bit = 1 << seat
            known = tuple([ALL_CARDS[c] for c in sorted([c for c in g.hands[s] if knower[c] & bit])])
        others.append(PlayerView(s, len(g.hands[s]), g.ct[s], known))
    pending = g.pending
    searching = None
    selecting: tuple[Card, ...] = ()
    if pending is not None and seat == pending.player:
        if pending.kind == DecisionKind.VISION:
            searching = tuple([ALL_CARDS[c] for c in sorted(g.deck)])
        selecting = tuple(ALL_CARDS[c] for c in g._selected)
    full = len(g.universe) == 112 and g.universe[-1] == 111  # ascending ids: exactly the 112 of R1.1
    ability = g.resolving
    return View(
        seat=seat,
        num_players=g.n,
        rules=g.rules,
        hand=g.hand(seat) if seat is not None else (),
        ct=g.ct[seat] if seat is not None else None,
        deck_size=len(g.deck),
        discard=tuple([ALL_CARDS[c] for c in g.discard]),
        players=tuple(others),
        active=g.active,
        phase=g.phase,
        turn=g.turn,
        extra_turn=g.extra_turn,
        pending=pending,
        over=g.over,
        winner=g.winner,
        drawn=g.drawn,
        supply=g.supply,
        resolving=ability.name if ability is not None else None,
        effect_index=g._eff if ability is not None else 0,
        resolving_target=g._target if ability is not None and g._target >= 0 else None,
        searching=searching,
        selecting=selecting,
        decision_number=g.decision_number,
        universe=None if full else tuple(ALL_CARDS[c] for c in g.universe),
        first_rises=g._first_rises,
    )


def view_counts(g: GameState, seat: int) -> tuple[list[int], list[int], list[list[int]], list[int], list[int], Ability | None]:
    """What :func:`view_of` shows ``seat`` of the cards, as counts per suit (R1.2: cards of
    one suit play alike), for fixed-size encodings that run every step (RL).

    Returns ``(hand, discard, known, searching, selecting, resolving)``: suit counts
    (8 each) of the seat's hand and of the discard pile; ``known[k]`` the suit counts of
    the cards the seat knows in the hand of seat ``(seat + k) % n`` (``known[0]`` is all
    zeros); the deck's content while this seat decides a Vision and the cards it has
    picked in a step-by-step discard (zeros otherwise); the ability being resolved.
    The same filter as :func:`view_of` (tests check that they agree)."""
    if not (isinstance(seat, int) and 0 <= seat < g.n):
        raise ValueError(f"seat must be 0..{g.n - 1}, got {seat!r}")
    hands = g.hands
    knower = g._knower
    bit = 1 << seat
    n = g.n
    known = [[0] * 8]
    for k in range(1, n):
        known.append(suit_counts([c for c in hands[(seat + k) % n] if knower[c] & bit]))
    searching = selecting = [0] * 8
    if not g.over and seat == g._dplayer:
        if g._kind == DecisionKind.VISION:
            searching = suit_counts(g.deck)
        selecting = suit_counts(g._selected)
    return (suit_counts(hands[seat]), suit_counts(g.discard), known, searching, selecting, g._ability)
