"""How a game ended (R8), as one value: ``game.outcome()``, like python-chess's
``board.outcome()``.

>>> o = Outcome(Termination.VICTORY, winner=1, ct=(12, 21))
>>> o
Outcome(Termination.VICTORY, winner=1, ct=(12, 21))
>>> o.result(), o.returns(), o.rule
('0-1', [-1.0, 1.0], 'R8.1')
>>> Outcome(Termination.TURN_LIMIT, winner=None, ct=(9, 9, 4), drawn=(0, 1)).result()
'½-½-0'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Termination(StrEnum):
    """Why the game ended."""

    VICTORY = "victory"  #: a player reached the rule set's ``victory_ct`` (R8.1)
    TURN_LIMIT = "turn_limit"  #: the turn limit stopped it: a draw (R8.2)

    def __repr__(self) -> str:
        return f"Termination.{self.name}"

    @property
    def rule(self) -> str:
        return "R8.1" if self is Termination.VICTORY else "R8.2"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: the winner (``None`` for a draw), why, and the final CT per seat."""

    termination: Termination
    winner: int | None
    ct: tuple[int, ...]
    #: the seats sharing a draw (the most CT at the turn limit); () when someone won
    drawn: tuple[int, ...] = ()

    @property
    def reason(self) -> str:
        """``"victory"`` or ``"turn_limit"`` (the termination's value)."""
        return self.termination.value

    @property
    def rule(self) -> str:
        return self.termination.rule

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    def returns(self) -> list[float]:
        """+1 for the winner and -1 for the others; 0 for everyone in a draw."""
        if self.winner is None:
            return [0.0] * len(self.ct)
        return [1.0 if p == self.winner else -1.0 for p in range(len(self.ct))]

    def result(self) -> str:
        """Per seat: ``1`` the winner, ``0`` a loser, ``½`` a share of a draw; e.g. ``0-1``."""
        if self.winner is not None:
            return "-".join("1" if p == self.winner else "0" for p in range(len(self.ct)))
        return "-".join("½" if p in self.drawn else "0" for p in range(len(self.ct)))

    def describe(self, names: Sequence[str] | None = None) -> str:
        """``seat 1 wins with 21 CT (R8.1)`` or ``a draw between seat 0 and seat 1 (R8.2)``."""
        def who(s: int) -> str:
            return names[s] if names is not None and 0 <= s < len(names) else f"seat {s}"

        if self.winner is not None:
            return f"{who(self.winner)} wins with {self.ct[self.winner]} CT ({self.rule})"
        seats = [who(s) for s in self.drawn]
        both = ", ".join(seats[:-1]) + " and " + seats[-1] if len(seats) > 1 else "".join(seats)
        return f"turn limit: a draw between {both} ({self.rule})"

    def to_json(self) -> dict[str, Any]:
        return {"termination": self.reason, "winner": self.winner, "ct": list(self.ct),
                "drawn": list(self.drawn), "rule": self.rule, "result": self.result()}

    def __repr__(self) -> str:
        drawn = f", drawn={self.drawn!r}" if self.drawn else ""
        return f"Outcome({self.termination!r}, winner={self.winner!r}, ct={self.ct!r}{drawn})"
