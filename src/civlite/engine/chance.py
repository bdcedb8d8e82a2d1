"""An explicit source of chance, for tools that model it as outcomes (OpenSpiel).

By default a :class:`~civlite.engine.Game` draws every chance outcome from its seeded
``rng``. Setting ``game.chance`` to an object with these three methods hands every
outcome to it instead: which card a draw takes (R3.1, R4.1, R7.2 ...), which card a
random steal takes (R5.5), and the order of a shuffle (R3.1, R5.2). Nothing else in
the engine is random.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class ChanceSource(Protocol):
    def draw(self, pile: Sequence[int]) -> int:
        """Index in ``pile`` (card ids, top of the deck last) of the card drawn next."""
        ...

    def pick(self, hand: Sequence[int]) -> int:
        """Index in ``hand`` (card ids) of the card a random steal takes."""
        ...

    def shuffle(self, pile: list[int]) -> None:
        """Put ``pile`` (card ids) in a random order, in place."""
        ...
