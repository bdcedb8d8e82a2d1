"""Fixed-shape numeric encoding of one seat's :class:`~civlite.engine.View`.

Shared by the PettingZoo, Gymnasium and OpenSpiel interfaces. The encoding uses
only the view, so it holds exactly what the seat may know (hidden cards never
leak). Seats are encoded *relative* to the viewer (offset 0 is the viewer, 1 the
next seat in play order, ...), so one policy can play any seat.

The layout (``n`` players, float32, :func:`obs_size` values) is the engine's numeric view,
described once in :mod:`civlite.engine.numeric`.

:func:`encode_view` builds it from a view (what bots and clients hold; it lives in
:mod:`civlite.bots.encoding`, below this package, and is re-exported here); the environments,
which hold the game, use the engine's :func:`~civlite.engine.numeric_view` (the same
vector, written as float32 bytes in one compiled pass: :func:`encode_game`,
:func:`encode_batch`). Tests hold the two equal over thousands of seeded games.
"""

from __future__ import annotations

import numpy as np

from ..bots.encoding import encode_view
from ..engine import (
    NUM_ACTIONS,
    Game,
    ObservationStore,
    View,
    mask_batch,
    numeric_batch,
    numeric_observation,
    numeric_view,
    obs_size,
)
from ..engine.numeric import KINDS, OBS_HIGH, PHASES

__all__ = ["KINDS", "OBS_HIGH", "PHASES", "ObservationBuffer", "encode_batch", "encode_game", "encode_values",
           "encode_view", "mask_array", "obs_size", "observe_game", "render_table", "write_masks"]

_F32 = np.dtype("<f4")
_I8 = np.dtype("i1")
_ndarray = np.ndarray


def encode_game(game: Game, seat: int) -> np.ndarray:
    """The same array as ``encode_view(game.view(seat))``, built much faster (for
    environments, which hold the game: bots and clients only have views and use
    :func:`encode_view`): the engine's :func:`~civlite.engine.numeric_view` (float32 bytes
    written in one compiled pass; it reads only what :meth:`Game.view` shows ``seat``) and
    one ``np.frombuffer``. A new, writable array."""
    return np.frombuffer(bytearray(numeric_view(game, seat)), _F32)


def observe_game(game: Game, seat: int, legal: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """``(encode_game(game, seat), mask_array(legal))`` from one engine call
    (:func:`~civlite.engine.numeric_observation`): two new writable arrays, the float32
    observation and the int8 mask, side by side in one new buffer (neither overlaps the
    other; each step's pair is new)."""
    buf = bytearray(numeric_observation(game, seat, legal, NUM_ACTIONS))
    size = len(buf) - NUM_ACTIONS
    return _ndarray((size >> 2,), _F32, buf), _ndarray((NUM_ACTIONS,), _I8, buf, size)


class ObservationBuffer:
    """One preallocated observation: a float32 array and an int8 mask over an
    :class:`~civlite.engine.ObservationStore`, which :meth:`write` overwrites in place (one
    compiled call; no array is made).

    For environments built with ``copy=False``: what they return is these two arrays, the
    same objects every time, read-only (they change with the next observation: copy what
    you keep). ``players``: the game's seats."""

    __slots__ = ("mask", "observation", "players", "store")

    def __init__(self, players: int) -> None:
        self.players = players
        #: the memory under both arrays, written by ``store.write(game, seat, legal)``
        self.store = ObservationStore(players, NUM_ACTIONS)
        self.observation: np.ndarray = np.frombuffer(self.store.values, _F32)  # type: ignore[call-overload]
        self.mask: np.ndarray = np.frombuffer(self.store.mask, _I8)  # type: ignore[call-overload]
        self.observation.flags.writeable = False  # already so over the compiled store's memory
        self.mask.flags.writeable = False

    def write(self, game: Game, seat: int, legal: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Overwrite the arrays with ``observe_game(game, seat, legal)`` and return them."""
        self.store.write(game, seat, legal)
        return self.observation, self.mask

    def __repr__(self) -> str:
        return f"ObservationBuffer({self.players})"


def encode_values(game: Game, seat: int) -> list[float]:
    """:func:`encode_game` as a list of floats."""
    return encode_game(game, seat).tolist()  # type: ignore[no-any-return]


def encode_batch(games: list[Game], seats: list[int], out: np.ndarray) -> None:
    """Write :func:`encode_game` of ``games[i]`` for ``seats[i]`` into row ``i`` of ``out``
    (float32, ``(len(games), obs_size)``, all games with the same number of players): one
    engine call for the batch (:func:`~civlite.engine.numeric_batch`) and one copy."""
    if not games:
        return
    size = obs_size(games[0].n)
    rows = len(games)
    if out.shape != (rows, size) or out.dtype != np.float32 or not out.flags.c_contiguous:
        raise ValueError(f"out must be a C-contiguous float32 array of shape ({rows}, {size}), "
                         f"got {out.dtype} {out.shape}{'' if out.flags.c_contiguous else ' (not contiguous)'}")
    out.reshape(-1)[:] = np.frombuffer(numeric_batch(games, seats), np.float32)


def write_masks(legal: list[list[int]], out: np.ndarray) -> None:
    """Row ``i`` of ``out`` (int8, ``(len(legal), NUM_ACTIONS)``) := the mask of ``legal[i]``."""
    out.reshape(-1)[:] = np.frombuffer(mask_batch(legal, NUM_ACTIONS), np.int8)


def mask_array(legal: list[int]) -> np.ndarray:
    """The int8 action mask over the compact action space for the legal ids (a new array)."""
    m = np.zeros(NUM_ACTIONS, dtype=np.int8)
    m[legal] = 1
    return m


def render_table(view: View, last_events: list[str] | None = None) -> str:
    """A plain-text table of the public facts (spectator view) for ``render_mode='ansi'``."""
    lines = [f"turn {view.turn}: seat {view.active} in {view.phase}"
             + (" (extra turn owed)" if view.extra_turn else "")]
    for p in view.players:
        mark = ">" if view.pending is not None and view.pending.player == p.seat else " "
        lines.append(f" {mark} seat {p.seat}: {p.ct:>2} CT, {p.hand_size:>2} cards")
    counts = [0] * 8
    for c in view.discard:
        counts[c.suit] += 1
    letters = "CLWAMBDX"
    lines.append(f"   deck {view.deck_size}, discard {len(view.discard)} "
                 + " ".join(f"{letters[s]}{counts[s]}" for s in range(8) if counts[s]))
    if view.over:
        lines.append("   game over: " + (f"seat {view.winner} won" if view.winner is not None
                                         else "draw between seats " + ", ".join(map(str, view.drawn))))
    elif view.pending is not None:
        pd = view.pending
        lines.append(f"   pending: seat {pd.player} {pd.kind}" + (f" x{pd.count}" if pd.count else "")
                     + (f" ({pd.ability})" if pd.ability else ""))
    for e in last_events or []:
        lines.append(f"   {e}")
    return "\n".join(lines)
