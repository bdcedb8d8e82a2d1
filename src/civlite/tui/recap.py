"""What just happened, in words for one seat: the log in the second person for the player at
the screen, and the short recap of the turns since that player's last one (the table's
"last turn" strip, and what the outgoing hot-seat player sees before the hand-off).

Nothing here imports Textual. Every event is read through ``Event.for_seat(seat)``: a recap
names only what that seat may know.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..engine import Card, Event

__all__ = ["event_line", "recap", "since_last_turn", "turn_starts"]

#: the engine's third-person verbs that follow a player's name, and their second person
_VERBS = {"starts": "start", "holds": "hold", "wins": "win", "will": "will"}
_YOU_VERB = re.compile(r"\byou (starts|holds)\b")


def event_line(event: Event, seat: int | None, names: Sequence[str] | None = None, *, you: bool = False) -> str:
    """One log line as ``seat`` may read it; ``None`` is a spectator (public facts only).
    ``names``: the players' names, used instead of "seat N". With ``you``, the reading seat is
    "you" and its verbs are in the second person ("you start a turn", "you win").

    (``Event.describe`` redacts the event for that reader.)
    """
    if not you or seat is None or not names or not 0 <= seat < len(names):
        return event.describe(seat, names=names or None)
    mine = list(names)
    mine[seat] = "you"
    line = event.describe(seat, names=mine)
    line = _YOU_VERB.sub(lambda m: "you " + _VERBS[m.group(1)], line)
    if event.kind == "win" and event.player == seat:
        line = line.removesuffix(" and wins") + " and win"
    return line.replace("you's hand", "your hand")


def turn_starts(events: Sequence[Event]) -> list[int]:
    """The index of each ``turn`` event (a turn starts there)."""
    return [i for i, e in enumerate(events) if e.kind == "turn"]


def since_last_turn(events: Sequence[Event], seat: int | None) -> tuple[int, int]:
    """The events ``seat`` has not seen played out on its own turn: from the end of its last
    turn up to the start of its current one (or up to now, while another seat plays). For a
    spectator: the last turn that is over, or the turn so far."""
    starts = turn_starts(events)
    if not starts:
        return 0, len(events)
    if seat is None:
        return (starts[-2], starts[-1]) if len(starts) > 1 else (0, len(events))
    mine = [i for i in starts if events[i].player == seat]
    current_is_mine = events[starts[-1]].player == seat
    hi = starts[-1] if current_is_mine else len(events)
    before = mine[:-1] if current_is_mine else mine
    if not before:
        # a game set up from a position may open in the middle of a turn: the seat's own?
        first = next((e.player for e in events[: starts[0]] if e.player is not None), None)
        return (starts[0] if first == seat else 0), hi
    lo = next((i for i in starts if i > before[-1]), hi)
    return lo, hi


def _names(cards: Sequence[int]) -> str:
    return ", ".join(Card.from_id(c).name for c in cards)


def recap(events: Sequence[Event], seat: int | None, names: Sequence[str], lo: int = 0,
          hi: int | None = None, active: int | None = None) -> list[str]:
    """One line a turn for ``events[lo:hi]``, as ``seat`` may know it, e.g.
    ``"bot: Raid → took your Macedonians · melded +5"``; the seat itself is "you". A turn
    only started (nothing done in it yet) has no line. ``active``: whose turn is under way at
    ``lo`` when no ``turn`` event before it says so (a game set up from a position)."""

    def who(s: int | None) -> str:
        return "you" if s is not None and s == seat else (names[s] if s is not None else "?")

    def whose(s: int | None) -> str:
        return "your" if s is not None and s == seat else f"{who(s)}'s"

    out: list[str] = []
    # the seat whose turn ``lo`` falls in (a recap may start in the middle of a turn)
    actor: int | None = None
    if lo >= len(events) or events[lo].kind != "turn":
        actor = next((e.player for e in reversed(events[:lo]) if e.kind == "turn"), active)
        if actor is None:  # no turn event yet: the first event's player acts (its ability, its pass)
            actor = next((e.player for e in events[lo:hi] if e.player is not None), None)
    acted = False
    # each part of a turn: [what (an ability, a meld, a pass), its effects, whom the ability targets]
    parts: list[tuple[str, list[str], int | None]] = []

    def close() -> None:
        if actor is None or not acted:
            return
        shown = []
        for what, effects, target in parts:
            if effects:
                shown.append(f"{what} → {', '.join(effects)}")
            else:
                shown.append(what + (f" → {who(target)}" if target is not None else ""))
        out.append(f"{'You' if actor == seat else who(actor)}: {' · '.join(shown) or 'passed'}")

    def effect(text: str) -> None:
        if parts:
            parts[-1][1].append(text)
        else:
            parts.append((text, [], None))

    for raw in events[lo:hi]:
        e = raw.for_seat(seat)
        k = e.kind
        if k == "turn":
            close()
            actor, parts, acted = e.player, [], False
            continue
        if actor is None or (k == "draw" and not e.ability):  # a Rise draw is not a move
            continue
        acted = True
        if k == "activate":
            parts.append((e.ability or "?", [], e.target))
        elif k == "steal_cards":
            what = _names(e.secret) if e.secret else f"{e.count} card{'s' if e.count != 1 else ''}"
            effect(f"took your {what}" if e.target == seat else f"took {what} from {who(e.target)}")
        elif k == "steal_ct":
            effect(f"took {e.amount} CT from {who(e.target)}")
        elif k == "look":
            effect(f"saw {whose(e.target)} hand")
        elif k == "take":
            what = _names(e.cards or e.secret) or "a card"
            effect(f"took {what}" + (" from the discard pile" if e.source == "discard" else ""))
        elif k == "gain_ct" and e.ability:
            effect(f"+{e.amount} CT")
        elif k == "draw" and e.ability:
            effect(f"drew {e.count}")
        elif k == "discard" and e.ability:
            by = "" if e.player == actor else f"{who(e.player)} "
            effect(f"{by}discarded {_names(e.cards) or 'nothing'}")
        elif k == "extra_turn":
            effect("another turn")
        elif k == "meld":
            parts.append((f"melded +{e.amount}", [], None))
        elif k == "win":
            parts.append(("win" if e.player == seat else "wins", [], None))
        elif k == "draw_game":
            parts.append(("a draw (turn limit)", [], None))
    close()
    return out
