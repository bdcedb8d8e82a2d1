"""The numeric view: what :func:`~civlite.engine.view.view_of` shows a seat, as a fixed-size
vector of float32 bytes, for learners that read one every step (``civlite.rl``).

One pass over the game counts into a scratch vector (compiled: a native
``librt.vecs.vec[i64]``, unboxed) and writes the values straight into bytes
(``librt.strings.BytesWriter``: no Python float per value, no numpy call), so a caller makes
one array of it (:func:`numeric_observation` adds the action mask), or of a whole batch at
once (:func:`numeric_batch`). Interpreted, the same functions use plain lists and one
``struct.pack``, which the interpreter runs faster.

The layout, for ``n`` players (:func:`obs_size` values; counts are raw card or token counts,
all values clipped to :data:`OBS_HIGH`); seats are *relative* to the viewer (offset 0 is the
viewer, 1 the next seat in play order, ...), so one policy can play any seat::

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

It reads only what :func:`~civlite.engine.view.view_of` shows the seat (the same filter);
``civlite.rl.encoding.encode_view`` builds the same
vector from a :class:`~civlite.engine.View` (for bots and clients, which hold views), and the
tests hold the two to be equal over thousands of seeded games.

>>> from civlite.engine import Game
>>> g = Game(2, seed=5)
>>> b = numeric_view(g, 0)
>>> len(b) == 4 * obs_size(2)
True
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

from librt.strings import BytesWriter, read_i32_be, read_i32_le, write_f32_le
from librt.vecs import vec
from mypy_extensions import i32, i64, u8

from .cards import SUIT_OF
from .decisions import DecisionKind

if TYPE_CHECKING:
    from .game import Game

__all__ = ["KINDS", "OBS_HIGH", "PHASES", "ObservationStore", "mask_batch", "numeric_batch", "numeric_observation",
           "numeric_view", "obs_size"]

#: every value of the vector is clipped to this
OBS_HIGH: Final = 1000.0
#: the phases of the phase one-hot, in order
PHASES: Final = ("rise", "action", "meld", "fall")
#: the decision kinds of the kind one-hot, in order; any other kind (an ability's own
#: discard, or the target's) is the sixth flag
KINDS: Final = ("action", "meld", "vision", "foundations", "fall_discard")

_ACTION: Final = DecisionKind.ACTION
_MELD: Final = DecisionKind.MELD
_VISION: Final = DecisionKind.VISION
_FOUNDATIONS: Final = DecisionKind.FOUNDATIONS
_FALL: Final = DecisionKind.FALL_DISCARD
#: whether this module runs from its Python source (``CIVLITE_PURE=1``, an edited checkout, a
#: machine without a C compiler): plain lists and ``struct`` are then much faster than
#: librt's vectors and per-value writes, which pay off only once compiled
_PURE: Final = __file__.endswith(".py")


def _int_vector(items: Iterable[int]) -> vec[i64]:
    """A vector of ints: librt's native vector (unboxed reads and writes) when compiled, a
    plain list (the same operations) when interpreted."""
    if _PURE:
        return cast("vec[i64]", list(items))
    return vec[i64](items)


#: suit of each card id
_SUITS: Final = _int_vector(SUIT_OF)
_RISE: Final = PHASES[0]
_ACTION_PHASE: Final = PHASES[1]
_MELD_PHASE: Final = PHASES[2]
_FALL_PHASE: Final = PHASES[3]
_HIGH: Final = 1000


class _RulesCache:
    """The rule set's numbers that every vector reads (``victory_ct``, ``turn_limit``: a
    :class:`~civlite.engine.RuleSet` is a plain Python object, each attribute read a
    dictionary-free but generic lookup), and the slot of the last ability seen, kept for the
    last rule set and ability met (identity: both are immutable); and the float32 bits of the
    last turn fraction written by an :class:`ObservationStore` (it changes once a turn)."""

    def __init__(self) -> None:
        self.rules: object = None
        self.victory_ct = 0
        self.turn_limit = 1
        self.ability: object = None
        self.ability_at = 0
        self.turn = -1
        self.turn_bits: i32 = 0

    def update(self, g: Game) -> None:
        self.rules = g.rules
        self.victory_ct = g.rules.victory_ct
        self.turn_limit = max(1, g.rules.turn_limit)
        self.turn = -1

    def turn_fraction(self, turn: int) -> float:
        """The vector's turn value, ``min(1, turn / turn_limit)`` (the rules of the last game read)."""
        return min(1.0, turn / self.turn_limit)

    def turn_fraction_bits(self, turn: int) -> i32:
        """:meth:`turn_fraction` as float32 bits (see :func:`_f32_bits`)."""
        if turn != self.turn:
            self.turn_bits = _f32_bits(self.turn_fraction(turn))
            self.turn = turn
        return self.turn_bits


def _f32_bits(x: float) -> i32:
    """The ``i32`` whose memory holds ``x`` as a little-endian float32 (the layout of every
    vector here, whatever the machine's byte order)."""
    w = BytesWriter()
    write_f32_le(w, x)
    b = w.getvalue()
    return read_i32_le(b, 0) if _LITTLE else read_i32_be(b, 0)


_LITTLE: Final = sys.byteorder == "little"
#: :func:`_f32_bits` of 0.0, 1.0, ..., OBS_HIGH (every whole-number value of the vector)
_F32_BITS: Final = vec[i32](struct.unpack(f"={_HIGH + 1}i", struct.pack(f"<{_HIGH + 1}f", *range(_HIGH + 1))))


_RULES: Final = _RulesCache()


def obs_size(num_players: int) -> int:
    """Length of the vector for ``num_players`` seats."""
    return 8 + 10 * num_players + 1 + 8 * 3 + 4 + 6 + 1 + 16 + 2 * num_players + 6


def _values(g: Game, seat: int, v: vec[i64]) -> None:
    """Add the vector's whole-number values (all but the turn fraction) to ``v`` (all zeros,
    :func:`obs_size` long), unclipped. (Native ``i64`` locals: unboxed arithmetic, compiled.)"""
    n: i64 = g.n
    me: i64 = seat
    suit = _SUITS
    hands = g.hands
    ct = g.ct
    for c in hands[seat]:
        x: i64 = suit[c]
        v[x] = v[x] + 1
    knower = g._knower
    bit: i64 = 1 << me
    for k in range(n):
        s = me + k
        if s >= n:
            s -= n
        b: i64 = 8 + 10 * k
        h = hands[s]
        v[b] = ct[s]
        v[b + 1] = len(h)
        if k:
            b += 2
            for c in h:
                if knower[c] & bit:
                    y: i64 = b + suit[c]
                    v[y] = v[y] + 1
    d: i64 = 8 + 10 * n  # deck size, then discard, searching, selecting by suit
    v[d] = len(g.deck)
    ds = g._dsuits  # the discard pile by suit, kept by the engine
    for i in range(8):
        v[d + 1 + i] = ds[i]
    p = g.phase  # the PHASES slot, by string comparisons (cheaper than a dictionary's hash)
    phase: i64 = (0 if p == _RISE else 1 if p == _ACTION_PHASE else 2 if p == _MELD_PHASE
                  else 3 if p == _FALL_PHASE else -1)
    if phase >= 0:
        v[d + 25 + phase] = 1
    tail: i64 = d + 52 + 2 * n
    if g.over:
        v[tail + 5] = 1
    else:
        dp: i64 = g._dplayer
        kind = g._kind
        # the kind's flag (identity tests: an enum's hash is a Python call)
        v[d + 29 + (0 if kind is _ACTION else 1 if kind is _MELD else 2 if kind is _VISION
                    else 3 if kind is _FOUNDATIONS else 4 if kind is _FALL else 5)] = 1
        v[d + 35] = g._dcount
        rel: i64 = dp - me
        v[d + 52 + (rel + n if rel < 0 else rel)] = 1
        if dp == me:
            if kind is _VISION:
                at: i64 = d + 9
                for c in g.deck:
                    z: i64 = at + suit[c]
                    v[z] = v[z] + 1
            at = d + 17
            for c in g._selected:
                z = at + suit[c]
                v[z] = v[z] + 1
    ab = g._ability
    if ab is not None:
        rc = _RULES
        if ab is not rc.ability:
            rc.ability = ab
            rc.ability_at = int(ab.suit) + (8 if ab.tier == "advanced" else 0)
        v[d + 36 + rc.ability_at] = 1
    act: i64 = g.active - me
    v[d + 52 + n + (act + n if act < 0 else act)] = 1
    if g.extra_turn:
        v[tail] = 1
    rules = _RULES
    if g.rules is not rules.rules:
        rules.update(g)
    v[tail + 2] = rules.victory_ct
    supply = g.supply
    if supply is not None:
        v[tail + 3] = 1
        v[tail + 4] = supply


def _write(g: Game, seat: int, w: BytesWriter, v: vec[i64]) -> None:
    """Append ``seat``'s vector to ``w``; ``v``: a scratch list of zeros, :func:`obs_size`
    long, left all zeros again (a batch reuses one)."""
    _check_seat(seat, g.n)
    _values(g, seat, v)
    turn_at = len(v) - 5  # the tail's second value (see the layout)
    turn = _RULES.turn_fraction(g.turn)  # _values has updated _RULES for g
    if _PURE:
        _write_interpreted(cast("list[Any]", v), turn_at, turn, w)
        return
    v[turn_at] = -1  # a mark: written apart (the one value that is not a whole number)
    high: i64 = _HIGH
    for i in range(len(v)):
        x = v[i]
        if x == 0:
            write_f32_le(w, 0.0)
        elif x > 0:
            v[i] = 0
            write_f32_le(w, float(x if x < high else high))
        else:
            v[i] = 0
            write_f32_le(w, turn)


#: the largest writer :class:`_Scratch` keeps (bytes written): a batch's is not kept
_KEPT_WRITER: Final = 1 << 13


class _Scratch:
    """One scratch vector per player count, reused by :func:`numeric_view`,
    :func:`numeric_observation` and :func:`numeric_batch`: taken out while in use (its slot
    left empty), so a call that fails half-way leaves no dirty scratch behind (the next call
    makes a new one). Slots by player count in a list: no dictionary on the hot path. Also
    keeps the masks' zero row (``bytes(k)``) of the last width asked for, and one
    :class:`BytesWriter` for single observations, taken out and given back the same way: a
    new writer starts on a 256-byte inline buffer and grows twice, by ``malloc`` and
    ``realloc``, on the way to one 2-player observation (513 bytes), which cost a single
    observation more than its own values; a kept one has grown once and for all."""

    def __init__(self) -> None:
        self.empty = _int_vector([])
        self.slots: list[vec[i64]] = [self.empty] * 17
        self.zeros = b""
        self.writer: BytesWriter | None = BytesWriter()

    def take_writer(self) -> BytesWriter:
        w = self.writer
        if w is None:
            return BytesWriter()
        self.writer = None
        w.truncate(0)
        return w

    def give_writer(self, w: BytesWriter) -> None:
        if len(w) <= _KEPT_WRITER:
            self.writer = w

    def zero_bytes(self, k: int) -> bytes:
        if len(self.zeros) != k:
            self.zeros = bytes(k)
        return self.zeros

    def take(self, n: int) -> vec[i64]:
        if n < len(self.slots):
            v = self.slots[n]
            if len(v):
                self.slots[n] = self.empty
                return v
        return _int_vector([0] * obs_size(n))

    def give(self, n: int, v: vec[i64]) -> None:
        if n < len(self.slots):
            self.slots[n] = v


_SCRATCH: Final = _Scratch()


def _write_view(g: Game, seat: int, w: BytesWriter) -> None:
    """:func:`_write` with a scratch vector taken out of :data:`_SCRATCH` and given back after."""
    n = g.n
    v = _SCRATCH.take(n)
    _write(g, seat, w, v)
    _SCRATCH.give(n, v)


def _write_interpreted(v: list[Any], turn_at: int, turn: float, w: BytesWriter) -> None:
    """:func:`_write`'s loop done in C calls, for the interpreter: copy, zero, clip, pack."""
    row = v[:]
    v[:] = _zero_list(len(v))
    row[turn_at] = turn
    if max(row) > _HIGH:
        row = [x if x < _HIGH else _HIGH for x in row]
    w.write(_f32_struct(len(row)).pack(*row))


_ZERO_LISTS: Final[dict[int, list[int]]] = {}
_F32_STRUCTS: Final[dict[int, struct.Struct]] = {}


def _zero_list(k: int) -> list[int]:
    z = _ZERO_LISTS.get(k)
    if z is None:
        z = _ZERO_LISTS[k] = [0] * k
    return z


def _f32_struct(k: int) -> struct.Struct:
    st = _F32_STRUCTS.get(k)
    if st is None:
        st = _F32_STRUCTS[k] = struct.Struct(f"<{k}f")
    return st


def numeric_view(g: Game, seat: int) -> bytes:
    """``seat``'s numeric view of ``g``: :func:`obs_size` float32 values, little-endian
    (``np.frombuffer(b, "<f4")``)."""
    w = _SCRATCH.take_writer()
    _write_view(g, seat, w)
    b = w.getvalue()
    _SCRATCH.give_writer(w)
    return b


def numeric_observation(g: Game, seat: int, legal: list[int], width: int) -> bytes:
    """:func:`numeric_view` followed by the action mask of ``legal``: ``width`` bytes, 1 where
    an id is legal (an environment's whole observation, made in one call)."""
    w = _SCRATCH.take_writer()
    _write_view(g, seat, w)
    _write_mask(w, legal, width, _zero_bytes(width))
    b = w.getvalue()
    _SCRATCH.give_writer(w)
    return b


class ObservationStore:
    """One seat's observation kept in place: what :func:`numeric_observation` returns, written
    by :meth:`write` into memory that arrays can view, for environments that hand out the
    same two arrays every step (or copies of them) instead of making new ones.

    ``values`` holds the :func:`obs_size` float32 values and ``mask`` the ``width`` mask
    bytes; both export the buffer protocol, read-only
    (``np.frombuffer(store.values, np.float32)``, ``np.frombuffer(store.mask, np.int8)``).
    Their bytes are :func:`numeric_observation`'s (little-endian float32, on any machine).
    Compiled, they are native vectors (``vec[i32]`` holding those bytes, ``vec[u8]``)
    written value by value: no bytes object, no copy. Interpreted, two ``bytearray``-backed
    memoryviews written from :func:`numeric_observation`'s bytes (faster there).

    >>> from civlite.engine import Game, NUM_ACTIONS
    >>> g = Game(2, seed=5)
    >>> s = ObservationStore(2, NUM_ACTIONS)
    >>> s.write(g, 0, g.legal_ids())
    >>> bytes(s.values) + bytes(s.mask) == numeric_observation(g, 0, g.legal_ids(), NUM_ACTIONS)
    True
    """

    def __init__(self, players: int, width: int) -> None:
        if not (isinstance(players, int) and players >= 1 and isinstance(width, int) and width >= 0):
            raise ValueError(f"an observation store needs players >= 1 and width >= 0, got {players!r}, {width!r}")
        self.players = players
        self.width = width
        size = obs_size(players)
        #: compiled: the float32 bit patterns / mask bytes, written in place
        self._bits = vec[i32]([0] * size)
        self._bytes = vec[u8]([0] * width)
        #: the mask's ids now set, the first ``_marked_n`` of ``_marked`` (cleared by the next write)
        self._marked = _int_vector([0] * width)
        self._marked_n: i64 = 0
        #: this store's scratch vector for :func:`_values` (all zeros between calls)
        self._scratch = _int_vector([0] * size)
        #: interpreted: one buffer under both (read-only) views
        self._raw = bytearray(4 * size + width if _PURE else 0)
        self.values: object = self._bits
        self.mask: object = self._bytes
        if _PURE:
            raw = memoryview(self._raw).toreadonly()
            self.values = raw[:4 * size]
            self.mask = raw[4 * size:]

    def write(self, g: Game, seat: int, legal: list[int]) -> None:
        """Overwrite the store with ``numeric_observation(g, seat, legal, width)``; a refused
        call (another player count, a seat or id out of range) changes nothing."""
        n = g.n
        if n != self.players:
            raise ValueError(f"this store holds observations of {self.players}-player games; the game has {n} players")
        _check_seat(seat, n)
        width = self.width
        if len(legal) > width:
            raise ValueError(f"{len(legal)} action ids for a mask of {width}")
        _check_ids(legal, width)
        if _PURE:
            self._raw[:] = numeric_observation(g, seat, legal, width)
            return
        v = self._scratch
        try:
            _values(g, seat, v)  # updates _RULES for g
        except BaseException:
            self._scratch = _int_vector([0] * len(v))  # the failed call's counts are dropped
            raise
        out = self._bits
        bits = _F32_BITS
        high: i64 = _HIGH
        for i in range(len(v)):
            x = v[i]
            if x == 0:
                out[i] = 0
            else:
                v[i] = 0
                out[i] = bits[x if x < high else high]
        out[len(out) - 5] = _RULES.turn_fraction_bits(g.turn)  # the tail's turn / turn limit
        m = self._bytes
        marked = self._marked
        for j in range(self._marked_n):
            m[marked[j]] = 0
        k: i64 = 0
        for a in legal:
            m[a] = 1
            marked[k] = a
            k += 1
        self._marked_n = k

    def __repr__(self) -> str:
        return f"ObservationStore({self.players}, {self.width})"


def _check_seat(seat: int, n: int) -> None:
    if not (isinstance(seat, int) and 0 <= seat < n):
        raise ValueError(f"seat must be 0..{n - 1}, got {seat!r}")


def _check_ids(legal: list[int], width: int) -> None:
    for a in legal:
        if not 0 <= a < width:
            raise ValueError(f"action id {a} is outside 0..{width - 1}")


def _write_mask(w: BytesWriter, legal: list[int], width: int, zeros: bytes) -> None:
    """Append the ``width``-byte mask of ``legal`` (``zeros``: ``width`` zero bytes)."""
    _check_ids(legal, width)
    base = len(w)
    w.write(zeros)
    for a in legal:
        w[base + a] = 1


def _zero_bytes(k: int) -> bytes:
    """``bytes(k)`` (the masks' zero rows; the last width asked for is kept)."""
    return _SCRATCH.zero_bytes(k)


def numeric_batch(games: Sequence[Game], seats: Sequence[int]) -> bytes:
    """The numeric views of ``games[i]`` for ``seats[i]``, one after the other (all games
    with the same number of players: one ``(len(games), obs_size)`` array)."""
    if len(games) != len(seats):
        raise ValueError(f"{len(games)} games but {len(seats)} seats")
    w = BytesWriter()
    if not games:
        return w.getvalue()
    n = games[0].n
    v = _SCRATCH.take(n)  # one scratch vector for the batch: _write leaves it zeroed
    for i in range(len(games)):
        g = games[i]
        if g.n != n:
            raise ValueError(f"game {i} has {g.n} players, game 0 has {n}: a batch has one size")
        _write(g, seats[i], w, v)
    _SCRATCH.give(n, v)
    return w.getvalue()


def mask_batch(legal: Sequence[list[int]], width: int) -> bytes:
    """Action masks, one row of ``width`` bytes per list of legal ids (1 where legal)."""
    w = BytesWriter()
    zeros = _zero_bytes(width)
    for ids in legal:
        _write_mask(w, ids, width, zeros)
    return w.getvalue()
