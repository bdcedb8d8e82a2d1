"""The chance sources of ``python_civlite``'s actions, and the fibers that pause an action at a chance node."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import greenlet

from ...engine import Event, Game

#: what a fiber sends when a sampled action meets its chance node (resumed with the node's seed)
_SAMPLED_NODE = "sampled chance node"


class _ScriptedChance:
    """The :class:`~civlite.engine.ChanceSource` of an exact-chance action: each outcome comes from the script.

    The deck is unordered: a shuffle does nothing and each draw takes the card the
    script names, wherever it lies in the pile. When the script runs out, the fiber
    running the action pauses, sending the sorted candidates (the state is now a chance
    node over them), and goes on once the outcome is appended.
    """

    __slots__ = ("outcomes", "pos")

    def __init__(self, outcomes: list[int]) -> None:
        self.outcomes = outcomes
        self.pos = 0

    def _next(self, cards: Sequence[int]) -> int:
        pos = self.pos
        if pos == len(self.outcomes):
            parent = greenlet.getcurrent().parent  # the fiber's caller (see _fiber_loop)
            if parent is None:  # a replay outside a fiber has its whole script
                raise RuntimeError("the chance script ran out outside a fiber")
            parent.switch(sorted(cards))  # resumed once apply_chance has appended the outcome
        self.pos = pos + 1
        return cards.index(self.outcomes[pos])

    def draw(self, pile: Sequence[int]) -> int:
        return self._next(pile)

    def pick(self, hand: Sequence[int]) -> int:
        return self._next(hand)

    def shuffle(self, pile: list[int]) -> None:
        pass


class _SampledChance:
    """Sampled chance: the action's first draw, steal or shuffle pauses the fiber at the
    action's one chance node; from then on the i-th draw or steal among n cards takes
    ``hash((key, i)) % n``, the node's key a digest of the history and its outcome
    (``key`` given: a replay, which never pauses). Python's hash of a tuple of ints is
    the same in every process, so a replayed or deserialised state draws alike."""

    __slots__ = ("i", "key")

    def __init__(self, key: int | None = None) -> None:
        self.key = key
        self.i = 0

    def _index(self, n: int) -> int:
        key = self.key
        if key is None:
            key = self.key = self._node()
        i = self.i
        self.i = i + 1
        return hash((key, i)) % n

    def _node(self) -> int:
        parent = greenlet.getcurrent().parent
        if parent is None:
            raise RuntimeError("a sampled chance node met outside a fiber")
        key: int = parent.switch(_SAMPLED_NODE)  # resumed with the node's key
        return key

    def draw(self, pile: Sequence[int]) -> int:
        return self._index(len(pile))

    def pick(self, hand: Sequence[int]) -> int:
        return self._index(len(hand))

    def shuffle(self, pile: list[int]) -> None:
        if self.key is None:  # the deck is unordered: a shuffle is the node, and draws nothing
            self.key = self._node()


def _fiber_loop(job: tuple[Game, int]) -> None:
    """A fiber's life: apply ``(game, action)`` jobs, one at a time, for ever.

    Each job ends by switching to the fiber's parent (the caller of the job's last
    switch) with ``(events, None)`` or ``(None, error)``; a chance source switches to
    it in the middle of one (the candidates, or :data:`_SAMPLED_NODE`). A fiber dropped
    while paused is unwound by greenlet's ``GreenletExit`` (not caught here)."""
    while True:
        game, aid = job
        try:
            out: tuple[list[Event] | None, Exception | None] = (game.apply_id(aid), None)
        except Exception as e:  # the caller raises it
            out = (None, e)
        del game
        parent = greenlet.getcurrent().parent
        assert parent is not None
        job = parent.switch(out)


#: idle fibers, per thread (a greenlet runs in the thread that made it)
_POOL = threading.local()


def _idle_fibers() -> list[greenlet.greenlet]:
    try:
        pool: list[greenlet.greenlet] = _POOL.fibers
    except AttributeError:
        pool = _POOL.fibers = []
    return pool
