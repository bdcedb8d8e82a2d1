"""Who plays each seat: humans and bots, their names, and ``--seats`` parsing."""

from __future__ import annotations

import difflib
import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass

from ..bots import LEVELS

_NUMPY = importlib.util.find_spec("numpy") is not None
#: the bots that play a learned network (numpy)
_LEARNED = ("expert", "champion", "policy")


def _bot_levels() -> tuple[str, ...]:
    """The named levels (``civlite.bots.LEVELS``) first, then every registered bot by name that
    is not a level's own name; the learned ones only where numpy is installed."""
    from .. import bots

    bots._load_builtin()
    levels = tuple(k for k, v in LEVELS.items() if _NUMPY or v.split(":")[0] not in _LEARNED)
    rest = tuple(b for b in sorted(bots.BOTS, key=lambda b: (b in _LEARNED, b))
                 if b not in LEVELS and (_NUMPY or b not in _LEARNED))
    return levels + rest


#: what the set-up screen offers for a bot seat
BOT_LEVELS: tuple[str, ...] = _bot_levels()
HUMAN = "human"
#: a seat name written into records for bot seats: ``bot:heuristic``
BOT_PREFIX = "bot:"
#: the names the set-up screen offers human seats, one per seat: distinct player names, so
#: that at a hot-seat table nobody is called "you" in another player's log
DEFAULT_NAMES: tuple[str, ...] = ("Ann", "Bob", "Cyd", "Dee", "Eve", "Fay", "Gus", "Hal")


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """Who plays a seat: ``kind`` is ``"human"`` or a bot spec (``"random"``, ``"ismcts:seconds=1"``)."""

    kind: str = HUMAN
    name: str = ""

    @property
    def is_human(self) -> bool:
        return self.kind == HUMAN

    def record_name(self, seat: int) -> str:
        """The name stored in the game record, from which :meth:`from_record_name` rebuilds the spec."""
        if self.is_human:
            name = self.name.strip() or f"seat {seat}"
            return name[len(BOT_PREFIX):] if name.startswith(BOT_PREFIX) else name
        return BOT_PREFIX + self.kind

    @classmethod
    def from_record_name(cls, name: str) -> SeatSpec:
        if name.startswith(BOT_PREFIX):
            return cls(kind=name[len(BOT_PREFIX):] or "random", name="")
        return cls(kind=HUMAN, name=name)

    def label(self, seat: int) -> str:
        if self.is_human:
            return self.name.strip() or f"seat {seat}"
        return f"bot {self.kind}"


def seat_names(seats: Sequence[SeatSpec]) -> list[str]:
    """Each seat's name for the table and the log; two seats of one name get their seat added."""
    labels = [s.label(i) for i, s in enumerate(seats)]
    return [f"{x} ({i})" if labels.count(x) > 1 else x for i, x in enumerate(labels)]


class SeatError(ValueError):
    """A ``--seats`` entry that is neither a human nor a bot the bots package knows."""


def bot_error(spec: str) -> str | None:
    """Why ``spec`` is not a bot (the bots package's own check, with a "did you mean"), or ``None``."""
    from .. import bots

    try:
        bots.make_bot(spec, seed=0)
    except ValueError as e:
        name = bots.parse_spec(spec)[0] if ":" in spec else spec.strip().lower()
        close = difflib.get_close_matches(name, sorted(bots.BOTS), n=1, cutoff=0.6)
        if name not in bots.BOTS and close:
            return f"unknown bot {name!r}: did you mean {close[0]!r}?"
        return str(e)
    return None


def _is_bot_name(word: str) -> bool:
    from .. import bots

    key = word.strip().lower()
    return bot_error(word) is None and (key in bots.BOTS or key in bots.LEVELS)


def name_error(seats: Sequence[SeatSpec]) -> str | None:
    """Why the players' names do not tell the seats apart (two humans of one name, in any
    case), or ``None``. Bots need no name: two of one kind get their seat added."""
    seen: dict[str, int] = {}
    for i, s in enumerate(seats):
        if not s.is_human:
            continue
        key = s.label(i).casefold()
        if key in seen:
            return (f"seats {seen[key]} and {i} are both called {s.label(i)!r}: "
                    "give each player a name of their own")
        seen[key] = i
    return None


def parse_seats(text: str) -> list[SeatSpec]:
    """``"human,random,heuristic"`` or ``"Ann,Bob,ismcts:seconds=1"``; raises :class:`SeatError`.

    Each entry is ``human``, ``human:NAME``, a bot spec (checked by the bots package, so a
    misspelt option is an error) or a human's name. A name that is a near miss of a bot's
    name (``heuristc``) is an error with a "did you mean", not a human: write ``human:NAME``
    for a player really called so.
    """
    from .. import bots

    out = []
    for i, part in enumerate(p.strip() for p in text.split(",")):
        if not part:
            raise SeatError(f"--seats: entry {i + 1} is empty (seats are separated by single commas)")
        low = part.lower()
        if low == HUMAN:
            out.append(SeatSpec(HUMAN))
            continue
        if low.startswith(HUMAN + ":"):
            out.append(SeatSpec(HUMAN, part[len(HUMAN) + 1:].strip()))
            continue
        prefixed = low.startswith(BOT_PREFIX)
        spec = part[len(BOT_PREFIX):] if prefixed else part
        if prefixed or ":" in spec or "=" in spec or _is_bot_name(spec):
            why = bot_error(spec)
            if why is not None:
                raise SeatError(f"--seats: seat {len(out)}: {why}")
            out.append(SeatSpec(spec.strip().lower() if ":" not in spec else spec.strip()))
            continue
        close = difflib.get_close_matches(low, sorted(set(bots.BOTS) | set(bots.LEVELS)), n=1, cutoff=0.75)
        if close:
            raise SeatError(f"--seats: seat {len(out)}: {part!r} is not a bot: did you mean {close[0]!r}? "
                            f"(for a player called {part!r}, write human:{part})")
        out.append(SeatSpec(HUMAN, part))
    why = name_error(out)
    if why is not None:
        raise SeatError(f"--seats: {why}")
    return out
