"""The numeric encoding of a seat's :class:`~civlite.engine.View`, built from the view alone.

Bots hold only their view, so the learned bots encode it here; the research interfaces
(:mod:`civlite.rl.encoding`, which re-exports :func:`encode_view`) hold the game and
write the same vector with the engine's compiled :func:`~civlite.engine.numeric_view`.
The layout, slot by slot, is the engine's numeric view (:mod:`civlite.engine.numeric`).
"""

from __future__ import annotations

import numpy as np

from ..engine import Card, View, obs_size
from ..engine.cards import SUIT_OF
from ..engine.numeric import KINDS, OBS_HIGH, PHASES

__all__ = ["encode_view"]


def _by_suit(out: np.ndarray, at: int, cards: tuple[Card, ...]) -> None:
    for c in cards:
        out[at + SUIT_OF[c.id]] += 1.0


def encode_view(view: View, out: np.ndarray | None = None) -> np.ndarray:
    """The encoding of ``view`` (a seat's view, not a spectator's); fills ``out`` if given."""
    if view.seat is None:
        raise ValueError("encode_view needs a seat's view, not a spectator's")
    n = view.num_players
    seat = view.seat
    if out is None:
        out = np.zeros(obs_size(n), dtype=np.float32)
    else:
        out.fill(0.0)
    i = 0
    _by_suit(out, i, view.hand)
    i += 8
    out[i] = float(view.ct or 0)
    out[i + 1] = float(len(view.hand))
    for p in view.players:
        j = i + 10 * ((p.seat - seat) % n)
        out[j] = float(p.ct)
        out[j + 1] = float(p.hand_size)
        _by_suit(out, j + 2, p.known)
    i += 10 * n
    out[i] = float(view.deck_size)
    i += 1
    _by_suit(out, i, view.discard)
    i += 8
    if view.searching is not None:
        _by_suit(out, i, view.searching)
    i += 8
    _by_suit(out, i, view.selecting)
    i += 8
    if view.phase in PHASES:
        out[i + PHASES.index(view.phase)] = 1.0
    i += 4
    pend = view.pending
    if pend is not None:
        out[i + (KINDS.index(pend.kind) if pend.kind in KINDS else 5)] = 1.0
        out[i + 6] = float(pend.count)
    i += 7
    if view.resolving is not None:
        for ab in view.rules.abilities:
            if ab.name == view.resolving:
                out[i + (8 if ab.tier == "advanced" else 0) + int(ab.suit)] = 1.0
                break
    i += 16
    if pend is not None:
        out[i + (pend.player - seat) % n] = 1.0
    i += n
    out[i + (view.active - seat) % n] = 1.0
    i += n
    r = view.rules
    out[i] = 1.0 if view.extra_turn else 0.0
    out[i + 1] = min(1.0, view.turn / max(1, r.turn_limit))
    out[i + 2] = float(r.victory_ct)
    out[i + 3] = 1.0 if view.supply is not None else 0.0
    out[i + 4] = float(min(view.supply or 0, OBS_HIGH))
    out[i + 5] = 1.0 if view.over else 0.0
    i += 6
    assert i == out.shape[0], (i, out.shape)
    np.minimum(out, OBS_HIGH, out=out)
    return out
