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

from ..engine import NUM_ACTIONS, Card, Game, View
from ..engine.cards import SUIT_OF
from ..engine.view import KIND_ORDER, seen_codes, view_numbers

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


_KIND_INDEX = {k: i for i, k in enumerate(KINDS)}  # any other kind (an ability's discard): 5
_REPEATS = 256  # counts below this are looked up in a table of repeated codes
#: the encoding's kind index (KINDS, 5 for an ability's discard) of view_numbers's kind numbers
_KIND_OF_NUMBER_LIST = [_KIND_INDEX.get(k, 5) for k in KIND_ORDER]
_KIND_OF_NUMBER = np.array(_KIND_OF_NUMBER_LIST, np.intp)


class _Layout:
    """Where each value of the encoding sits for ``n`` players (see the module's layout).

    The fast encodings (:func:`encode_game`, :func:`encode_batch`) write every value but one
    as *codes*, bytes whose value is the position they count at, and one ``np.bincount``
    turns the codes into the values: a card is one code (its pile's offset plus its suit,
    made by :func:`civlite.engine.view.seen_codes` in one C pass per pile), a flag of a
    one-hot is one code, a count such as a seat's CT is that many copies of its position's
    code (looked up in :attr:`repeat`). Only the turn fraction (not a whole number) is
    written apart."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.size = size = obs_size(n)
        if size > 256:
            raise ValueError(f"{n} players: the encoding has {size} values, more than one byte of codes holds")
        i = 8 + 10 * n  # deck size
        # translate tables, one per pile of seen_codes: hand, discard, known_1..known_{n-1}, searching, selecting
        offsets = [0, i + 1] + [8 + 10 * k + 2 for k in range(1, n)] + [i + 9, i + 17]
        self.tables = [bytes(off + s for s in SUIT_OF) + bytes(256 - len(SUIT_OF)) for off in offsets]
        self.phase = {p: i + 25 + j for j, p in enumerate(PHASES)}
        self.phase_at = i + 25
        self.kind = i + 29
        self.ability = i + 36
        self.to_move = i + 52
        self.active = i + 52 + n
        tail = i + 52 + 2 * n
        self.extra_turn = tail
        self.turn = tail + 1  # the one value that is not a count of codes
        self.supply_known = tail + 3
        self.over = tail + 5
        #: ``repeat[pos][k]`` is ``k`` codes of ``pos`` (k < 256) for the positions of counts:
        #: CT and hand size of each relative seat, deck size, decision count, victory CT, supply
        self.ct = [8 + 10 * k for k in range(n)]
        self.hand_size = [8 + 10 * k + 1 for k in range(n)]
        self.seat_values = [8 + 10 * k + j for k in range(n) for j in (0, 1)]  # view_numbers's first 2n
        self.deck = i
        self.count = i + 35
        self.victory = tail + 2
        self.supply = tail + 4
        self.repeat: dict[int, list[bytes]] = {
            pos: [bytes((pos,)) * k for k in range(_REPEATS)]
            for pos in (*self.ct, *self.hand_size, self.deck, self.count, self.victory, self.supply)}
        #: the tables of view_numbers's first 2n + 1 values (CT and hand size per offset, deck size)
        self.seat_reps = [self.repeat[pos] for pos in (*self.seat_values, self.deck)]
        self.count_rep = self.repeat[self.count]
        self.victory_rep = self.repeat[self.victory]

    def times(self, pos: int, k: int) -> bytes:
        """``k`` codes of ``pos``."""
        return self.repeat[pos][k] if 0 <= k < _REPEATS else bytes((pos,)) * k

    def codes(self, game: Game, seat: int) -> tuple[bytes, float]:
        """The codes of ``seat``'s encoding of ``game``, and its turn fraction (two engine
        calls: :func:`civlite.engine.view.seen_codes`, :func:`civlite.engine.view.view_numbers`)."""
        nums = view_numbers(game, seat)
        d = 2 * self.n
        parts = [seen_codes(game, seat, self.tables)]
        r = game.rules
        try:  # CT, hand sizes, deck size, victory CT: tables of repeated codes
            parts += map(list.__getitem__, self.seat_reps, nums)  # stops after the deck size
            parts.append(self.victory_rep[r.victory_ct])
        except IndexError:  # a count of 256 or more (only with an extreme rule set)
            parts[1:] = [self.times(pos, v) for pos, v in zip([*self.seat_values, self.deck], nums, strict=False)]
            parts.append(self.times(self.victory, r.victory_ct))
        flags = [self.active + nums[d + 7]]
        phase = nums[d + 1]
        if phase >= 0:
            flags.append(self.phase_at + phase)
        if nums[d + 2]:
            flags.append(self.over)
        else:
            flags.append(self.kind + _KIND_OF_NUMBER_LIST[nums[d + 3]])
            flags.append(self.to_move + nums[d + 4])
            parts.append(self.count_rep[nums[d + 5]])
        ability = nums[d + 6]
        if ability >= 0:
            flags.append(self.ability + ability)
        if nums[d + 8]:
            flags.append(self.extra_turn)
        supply = nums[d + 9]
        if supply >= 0:
            flags.append(self.supply_known)
            parts.append(self.times(self.supply, min(supply, int(OBS_HIGH))))
        parts.append(bytes(flags))
        return b"".join(parts), min(1.0, nums[d + 10] / max(1, r.turn_limit))


_LAYOUTS: dict[int, _Layout] = {}


def _layout(n: int) -> _Layout:
    lay = _LAYOUTS.get(n)
    if lay is None:
        lay = _LAYOUTS[n] = _Layout(n)
    return lay


#: with a victory threshold up to this, no value of the encoding can reach OBS_HIGH (CT stays
#: within a few points of the threshold; card counts are at most the cards in play; the
#: supply is clipped where it is encoded), so the fast encodings skip the clipping pass
_NO_CLIP_BELOW = OBS_HIGH / 2


def encode_game(game: Game, seat: int) -> np.ndarray:
    """The same array as ``encode_view(game.view(seat))``, built much faster (for
    environments, which hold the game: bots and clients only have views and use
    :func:`encode_view`). Reads only what :meth:`Game.view` shows ``seat``
    (:func:`civlite.engine.view.seen_codes` and public facts)."""
    lay = _LAYOUTS.get(game.n) or _layout(game.n)
    codes, turn = lay.codes(game, seat)
    out = np.bincount(np.frombuffer(codes, np.uint8), minlength=lay.size).astype(np.float32)
    out[lay.turn] = turn
    if game.rules.victory_ct > _NO_CLIP_BELOW:  # else every value is far below OBS_HIGH
        np.minimum(out, OBS_HIGH, out=out)
    return out


def encode_values(game: Game, seat: int) -> list[float]:
    """:func:`encode_game` as a list of floats."""
    return encode_game(game, seat).tolist()  # type: ignore[no-any-return]


def encode_batch(games: list[Game], seats: list[int], out: np.ndarray) -> None:
    """Write :func:`encode_game` of ``games[i]`` for ``seats[i]`` into row ``i`` of ``out``
    (float32, ``(len(games), obs_size)``, all games with the same number of players).

    Two engine calls per game (:func:`civlite.engine.view.seen_codes` for the cards,
    :func:`civlite.engine.view.view_numbers` for the rest); everything else is numpy over
    the whole batch."""
    if not games:
        return
    n = games[0].n
    lay = _layout(n)
    size = lay.size
    rows = len(games)
    if out.shape != (rows, size) or out.dtype != np.float32 or not out.flags.c_contiguous:
        raise ValueError(f"out must be a C-contiguous float32 array of shape ({rows}, {size}), "
                         f"got {out.dtype} {out.shape}{'' if out.flags.c_contiguous else ' (not contiguous)'}")
    tables = lay.tables
    chunks = [seen_codes(g, seat, tables) for g, seat in zip(games, seats, strict=True)]
    nums = np.array([view_numbers(g, seat) for g, seat in zip(games, seats, strict=True)], np.int64)
    idx = np.frombuffer(b"".join(chunks), np.uint8).astype(np.intp)
    base = np.arange(0, rows * size, size)
    idx += np.repeat(base, [len(c) for c in chunks])
    flat = out.reshape(-1)
    flat[:] = np.bincount(idx, minlength=rows * size)
    d = 2 * n
    out[:, lay.seat_values] = nums[:, :d]
    out[:, lay.deck] = nums[:, d]
    over = nums[:, d + 2] == 1
    live = ~over
    phase = nums[:, d + 1]
    ability = nums[:, d + 6]
    supply = nums[:, d + 9]
    known = supply >= 0
    hot = [base + lay.active + nums[:, d + 7], (base + lay.phase_at + phase)[phase >= 0], base[over] + lay.over,
           (base + lay.kind + _KIND_OF_NUMBER[nums[:, d + 3]])[live], (base + lay.to_move + nums[:, d + 4])[live],
           (base + lay.ability + ability)[ability >= 0], base[nums[:, d + 8] == 1] + lay.extra_turn,
           base[known] + lay.supply_known]
    flat[np.concatenate(hot)] = 1.0
    out[:, lay.count] = nums[:, d + 5]
    out[:, lay.supply] = np.minimum(np.where(known, supply, 0), OBS_HIGH)
    rules = games[0].rules
    if all(g.rules is rules for g in games):
        out[:, lay.victory] = rules.victory_ct
        out[:, lay.turn] = np.minimum(1.0, nums[:, d + 10] / max(1, rules.turn_limit))
        clip = rules.victory_ct > _NO_CLIP_BELOW
    else:
        out[:, lay.victory] = [g.rules.victory_ct for g in games]
        out[:, lay.turn] = np.minimum(1.0, nums[:, d + 10] / [max(1, g.rules.turn_limit) for g in games])
        clip = any(g.rules.victory_ct > _NO_CLIP_BELOW for g in games)
    if clip:
        np.minimum(out, OBS_HIGH, out=out)


def mask_array(legal: list[int]) -> np.ndarray:
    """The int8 action mask over the compact action space for the legal ids (a new array)."""
    m = np.zeros(NUM_ACTIONS, dtype=np.int8)
    m[legal] = 1
    return m


assert NUM_ACTIONS <= 256, "MaskCache keys legal sets as bytes"


class MaskCache:
    """Action masks by legal set, for environments that build one every step: a game meets
    the same few legal sets again and again, so ``mask(legal)`` is mostly a dict look-up
    and one copy (a new array each time: callers may keep or change it)."""

    def __init__(self, limit: int = 1 << 14) -> None:
        self._masks: dict[bytes, np.ndarray] = {}
        self._limit = limit

    def mask(self, legal: list[int]) -> np.ndarray:
        key = bytes(legal)  # compact ids are below 256
        m = self._masks.get(key)
        if m is None:
            if len(self._masks) >= self._limit:
                self._masks.clear()
            m = self._masks[key] = mask_array(legal)
        return m.copy()


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
