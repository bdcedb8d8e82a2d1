"""Events: what happened, returned by ``Game.apply`` and replayed by logs and UIs.

Every event cites the rule it applied (``rule``) and says who may see its private
part: ``secret`` cards are visible only to the seats in ``seen_by``. Use
:meth:`Event.for_seat` (or ``to_json(seat)``) to get the redacted form a seat may
receive; the public form (``for_seat(None)``) never holds a secret card.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .cards import CARDS, NAMES

#: the reader "everything" for :meth:`Event.describe` and :meth:`Event.to_json`
TRUTH = -1


class Event(NamedTuple):
    kind: str
    rule: str
    player: int | None = None
    target: int | None = None
    ability: str | None = None
    cards: tuple[int, ...] = ()  # public cards (ids)
    count: int = 0  # type: ignore[assignment]  # shadows tuple.count on purpose
    amount: int = 0
    secret: tuple[int, ...] = ()  # private cards (ids), seen only by ``seen_by``
    seen_by: tuple[int, ...] = ()
    seats: tuple[int, ...] = ()  # seats concerned (the players of a drawn game)

    def visible_to(self, seat: int | None) -> bool:
        """Whether ``seat`` may see the secret part (``None`` = the whole truth)."""
        return seat is None or seat in self.seen_by

    def for_seat(self, seat: int | None) -> Event:
        """The event as ``seat`` may see it (secret cards removed unless it may see them)."""
        if not self.secret or (seat is not None and seat in self.seen_by):
            return self
        return self._replace(secret=())

    @property
    def public(self) -> Event:
        return self._replace(secret=()) if self.secret else self

    def to_json(self, seat: int | None = TRUTH) -> dict[str, Any]:
        """JSON form for a reader: a seat, ``None`` (spectator) or :data:`TRUTH` (default)."""
        e = self if seat == TRUTH else self.for_seat(seat)
        d: dict[str, Any] = {"kind": e.kind, "rule": e.rule}
        if e.player is not None:
            d["player"] = e.player
        if e.target is not None:
            d["target"] = e.target
        if e.ability is not None:
            d["ability"] = e.ability
        if e.cards:
            d["cards"] = [NAMES[c] for c in e.cards]
        if e.count:
            d["count"] = e.count
        if e.amount:
            d["amount"] = e.amount
        if e.seats:
            d["seats"] = list(e.seats)
        if e.secret:
            d["secret"] = [NAMES[c] for c in e.secret]
            d["seen_by"] = list(e.seen_by)
        d["text"] = e.describe(TRUTH if seat == TRUTH else seat)
        return d

    def describe(self, seat: int | None = TRUTH) -> str:
        """One line of log text, e.g. ``R5 Raid: seat 1 took 1 card from seat 2``.

        ``seat`` is the reader: a seat number, ``None`` for a spectator (public facts
        only), or the default :data:`TRUTH` for the whole truth (logs for the table's
        owner, tests, the demo).
        """
        e = self if seat == TRUTH else self.for_seat(seat)
        p = f"seat {e.player}"
        t = f"seat {e.target}"
        secret = ", ".join(CARDS[c].name for c in e.secret)
        cards = ", ".join(CARDS[c].name for c in e.cards)
        n = e.count
        plural = "" if n == 1 else "s"
        k = e.kind
        if k == "turn":
            s = f"turn {e.amount}: {p} starts" + (" an extra turn" if e.count else " a turn")
        elif k == "draw":
            s = (f"{e.ability}: " if e.ability else "") + f"{p} drew {n} card{plural}" + (f" ({secret})" if secret else "")
        elif k == "reshuffle":
            s = f"the discard pile ({n} card{plural}) was shuffled into the deck"
        elif k == "activate":
            s = f"{e.ability}: {p} paid {cards}" + (f", targeting {t}" if e.target is not None else "")
        elif k == "gain_ct":
            s = f"{e.ability or 'gain'}: {p} gained {e.amount} CT"
        elif k == "steal_ct":
            s = f"{e.ability}: {p} took {e.amount} CT from {t}"
        elif k == "steal_cards":
            s = f"{e.ability}: {p} took {n} card{plural} from {t}" + (f" ({secret})" if secret else "")
        elif k == "look":
            s = f"{e.ability}: {p} looked at {t}'s hand" + (f" ({secret})" if secret else "")
        elif k == "take":
            where = "the deck" if e.amount == 0 else "the discard pile"
            what = cards or secret or "a card"
            s = f"{e.ability}: {p} took {what} from {where}"
        elif k == "shuffle":
            s = "the deck was shuffled"
        elif k == "discard":
            s = f"{e.ability or 'Discard'}: {p} discarded {cards or 'nothing'}"
        elif k == "meld":
            s = f"Meld: {p} melded {cards} and gained {e.amount} CT"
        elif k == "pass":
            s = f"{p} passed"
        elif k == "extra_turn":
            s = f"{e.ability}: {p} will take another turn"
        elif k == "win":
            s = f"{p} holds {e.amount} CT and wins"
        elif k == "draw_game":
            s = f"turn limit reached: a draw between seats {', '.join(str(c) for c in e.seats)}"
        else:
            s = f"{k} {p}"
        return f"{e.rule} {s}"

    def __str__(self) -> str:
        return self.describe(TRUTH)
