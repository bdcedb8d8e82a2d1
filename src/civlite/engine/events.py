"""Events: what happened, returned by ``Game.apply`` and replayed by logs and UIs.

Every event cites the rule it applied (``rule``, a number of the documentation's rules
page: R1 to R10 and their sub-rules) and says who may see its private
part: ``secret`` cards are visible only to the seats in ``seen_by``. Use
:meth:`Event.for_seat` (or ``to_json(seat)``) to get the redacted form a seat may
receive; the public form (``for_seat(None)``) never holds a secret card.

Each field has one meaning, whatever the kind:

==========  ===================================================================
``kind``    what happened: ``turn``, ``draw``, ``reshuffle``, ``activate``,
            ``gain_ct``, ``steal_ct``, ``steal_cards``, ``look``, ``take``,
            ``shuffle``, ``discard``, ``meld``, ``pass``, ``extra_turn``,
            ``win``, ``draw_game``
``rule``    the rule it applied (``R5``, ``R7.2`` ...)
``player``  the seat it happened to (who drew, paid, gained, discarded, won)
``target``  the opponent an ability chose (R5.1)
``ability`` the rule set's ability it belongs to; ``None`` for a Rise, a meld, a Fall
``cards``   public cards (ids), seen by every seat
``count``   how many cards moved (or were seen, for ``look``)
``amount``  a number of CT: gained, taken, or held (``win``, ``draw_game``)
``secret``  private cards (ids), seen only by the seats in ``seen_by``
``seen_by`` the seats that see ``secret``
``seats``   the seats sharing a drawn game (``draw_game``)
``phase``   the phase of the turn it happened in: ``rise``, ``action``, ``meld``, ``fall``
``turn``    the turn number (``turn``: the turn that starts)
``extra``   whether the turn that starts is an extra turn (R6.4)
``source``  where a taken card came from: ``deck`` or ``discard`` (``take``)
==========  ===================================================================

>>> e = Event("steal_cards", "R5", player=0, target=1, ability="Raid", count=1, secret=(64,), seen_by=(0, 1))
>>> e.describe()
'R5 Raid: seat 0 took 1 card from seat 1 (Spearmen)'
>>> e.describe(2, names=["ann", "bob", "cy"])
'R5 Raid: ann took 1 card from bob'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple

from .cards import ALL_CARDS, NAMES

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
    seats: tuple[int, ...] = ()  # the seats sharing a drawn game
    phase: str | None = None
    turn: int = 0
    extra: bool = False
    source: str | None = None

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

    def to_json(self, seat: int | None = TRUTH, names: Sequence[str] | None = None) -> dict[str, Any]:
        """JSON form for a reader: a seat, ``None`` (spectator) or :data:`TRUTH` (default).

        Keys with an empty value are left out; ``text`` is :meth:`describe` for that
        reader (seats as ``seat N`` unless ``names`` are given)."""
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
        if e.phase is not None:
            d["phase"] = e.phase
        if e.turn:
            d["turn"] = e.turn
        if e.extra:
            d["extra"] = True
        if e.source is not None:
            d["source"] = e.source
        d["text"] = e.describe(TRUTH if seat == TRUTH else seat, names)
        return d

    def describe(self, seat: int | None = TRUTH, names: Sequence[str] | None = None) -> str:
        """One line of log text, e.g. ``R5 Raid: seat 1 took 1 card from seat 2``.

        ``seat`` is the reader: a seat number, ``None`` for a spectator (public facts
        only), or the default :data:`TRUTH` for the whole truth (logs for the table's
        owner, tests, the demo). ``names``: the players' names, used instead of
        ``seat N`` (``Game.names``).
        """
        e = self if seat == TRUTH else self.for_seat(seat)

        def who(s: int | None) -> str:
            if names is not None and s is not None and 0 <= s < len(names):
                return names[s]
            return f"seat {s}"

        p = who(e.player)
        t = who(e.target)
        secret = ", ".join(ALL_CARDS[c].name for c in e.secret)
        cards = ", ".join(ALL_CARDS[c].name for c in e.cards)
        n = e.count
        plural = "" if n == 1 else "s"
        k = e.kind
        # what the event belongs to: an ability, else the phase's own step (R4)
        cause = e.ability or {"meld": "Meld", "fall": "Fall"}.get(e.phase or "")
        if k == "turn":
            s = f"turn {e.turn}: {p} starts" + (" an extra turn" if e.extra else " a turn")
        elif k == "draw":
            s = (f"{cause}: " if cause else "") + f"{p} drew {n} card{plural}" + (f" ({secret})" if secret else "")
        elif k == "reshuffle":
            s = f"the discard pile ({n} card{plural}) was shuffled into the deck"
        elif k == "activate":
            s = f"{e.ability}: {p} paid {cards}" + (f", targeting {t}" if e.target is not None else "")
        elif k == "gain_ct":
            s = f"{cause or 'gain'}: {p} gained {e.amount} CT"
        elif k == "steal_ct":
            s = f"{e.ability}: {p} took {e.amount} CT from {t}"
        elif k == "steal_cards":
            s = f"{e.ability}: {p} took {n} card{plural} from {t}" + (f" ({secret})" if secret else "")
        elif k == "look":
            s = f"{e.ability}: {p} looked at {t}'s hand" + (f" ({secret})" if secret else "")
        elif k == "take":
            where = "the discard pile" if e.source == "discard" else "the deck"
            what = cards or secret or "a card"
            s = f"{e.ability}: {p} took {what} from {where}"
        elif k == "shuffle":
            s = "the deck was shuffled"
        elif k == "discard":
            s = f"{cause or 'Discard'}: {p} discarded {cards or 'nothing'}"
        elif k == "meld":
            s = f"Meld: {p} melded {cards} and gained {e.amount} CT"
        elif k == "pass":
            s = f"{p} passed"
        elif k == "extra_turn":
            s = f"{e.ability}: {p} will take another turn"
        elif k == "win":
            s = f"{p} holds {e.amount} CT and wins"
        elif k == "draw_game":
            if names is None:
                s = f"turn limit reached: a draw between seats {', '.join(str(c) for c in e.seats)}"
            else:
                s = f"turn limit reached: a draw between {', '.join(who(c) for c in e.seats)}"
        else:
            s = f"{k} {p}"
        return f"{e.rule} {s}"

    def __str__(self) -> str:
        return self.describe(TRUTH)


#: ``new_event(Event, values)`` builds an Event from all its fields in order (kind, rule,
#: player, target, ability, cards, count, amount, secret, seen_by, seats, phase, turn, extra,
#: source) without the keyword-argument ``__new__``: the engine makes events on every step,
#: and this is ``tuple.__new__`` itself, five times faster than ``Event(...)``
new_event: Final[Callable[[type[Event], tuple[Any, ...]], Event]] = tuple.__new__
