"""Fixed-shape numeric encoding of one seat's :class:`~civlite.engine.View`.

Shared by the PettingZoo, Gymnasium and OpenSpiel interfaces. The encoding uses
only the view, so it holds exactly what the seat may know (hidden cards never
leak). Seats are encoded *relative* to the viewer (offset 0 is the viewer, 1 the
next seat in play order, ...), so one policy can play any seat.

Layout (``n`` players, all float32, counts are raw card/token counts)::

    hand by suit                          8
    per seat offset 0..n-1: ct, hand size, known cards by suit (0s for self)   10*n
    deck size                             1
    discard pile by suit                  8
    deck content by suit while searching  8   (Vision, R5.2)
    cards selected so far (discard steps) 8
    phase one-hot (rise, action, meld, fall)             4
    decision kind one-hot (action, meld, vision, foundations, fall_discard, ability discard)  6
    decision count                        1
    ability being resolved one-hot (basic suit 0..7, advanced suit 8..15)      16
    deciding seat, relative one-hot       n
    active seat, relative one-hot         n
    extra turn owed, turn / turn limit, victory CT, supply known, supply, game over      6
"""

from __future__ import annotations

import numpy as np

from ..engine import NUM_ACTIONS, Ability, Card, Game, View
from ..engine.cards import SUIT_OF

PHASES = ("rise", "action", "meld", "fall")
KINDS = ("action", "meld", "vision", "foundations", "fall_discard")  # index 5: an ability's discard
OBS_HIGH = 1000.0


def obs_size(num_players: int) -> int:
    """Length of the encoding for ``num_players`` seats."""
    return 8 + 10 * num_players + 1 + 8 * 3 + 4 + 6 + 1 + 16 + 2 * num_players + 6


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


_PHASE_HOT = {p: [1.0 if q == p else 0.0 for q in PHASES] for p in PHASES}
_NO_PHASE = [0.0] * 4
_KIND_HOT = {k: [1.0 if q == k else 0.0 for q in KINDS] + [0.0] for k in KINDS}
_ABILITY_KIND = [0.0] * 5 + [1.0]
_NO_DECISION = [0.0] * 7
_ZEROS16 = [0.0] * 16


def _ability_hot(ab: Ability | None) -> list[float]:
    if ab is None:
        return _ZEROS16
    out = [0.0] * 16
    out[(8 if ab.tier == "advanced" else 0) + int(ab.suit)] = 1.0
    return out


def encode_values(game: Game, seat: int) -> list[float]:
    """:func:`encode_view` of ``game.view(seat)`` as a list, from :meth:`Game.view_counts`
    (the engine's per-suit view: no :class:`View` built, about 4x faster)."""
    hand, discard, known, searching, selecting, ability = game.view_counts(seat)
    n = game.n
    ct = game.ct
    hands = game.hands
    vals: list[float] = list(hand)
    for k in range(n):
        s = (seat + k) % n
        vals.append(ct[s])
        vals.append(len(hands[s]))
        vals += known[k]
    vals.append(len(game.deck))
    vals += discard
    vals += searching
    vals += selecting
    vals += _PHASE_HOT.get(game.phase, _NO_PHASE)
    rel = [0.0] * (2 * n)
    over = game.is_over
    if over:
        vals += _NO_DECISION
    else:
        kind = game.pending_kind
        assert kind is not None
        vals += _KIND_HOT[kind] if kind in _KIND_HOT else _ABILITY_KIND
        vals.append(game.pending_count)
        rel[(game.to_move - seat) % n] = 1.0  # type: ignore[operator]
    vals += _ability_hot(ability)
    rel[n + (game.active - seat) % n] = 1.0
    vals += rel
    r = game.rules
    supply = game.supply
    vals += (1.0 if game.extra_turn else 0.0, min(1.0, game.turn / max(1, r.turn_limit)), r.victory_ct,
             0.0 if supply is None else 1.0, min(supply or 0, OBS_HIGH), 1.0 if over else 0.0)
    return vals


#: with a victory threshold up to this, no value of the encoding can reach OBS_HIGH (CT stays
#: within a few points of the threshold; card counts are at most the cards in play; the
#: supply is clipped where it is encoded), so encode_game skips the clipping pass
_NO_CLIP_BELOW = OBS_HIGH / 2


def encode_game(game: Game, seat: int) -> np.ndarray:
    """The same array as ``encode_view(game.view(seat))``, built faster (for environments,
    which hold the game: bots and clients only have views and use :func:`encode_view`)."""
    out = np.array(encode_values(game, seat), dtype=np.float32)
    if game.rules.victory_ct > _NO_CLIP_BELOW:  # else every count is far below OBS_HIGH
        np.minimum(out, OBS_HIGH, out=out)
    return out


def mask_array(legal: list[int]) -> np.ndarray:
    """The int8 action mask over the compact action space for the legal ids."""
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
