"""The compact action space: small, stable integers for bots and learners (R1.2).

Cards of one suit are interchangeable in play (R1.2), so a compact action names a
suit, not a card. This module is the only place that encodes or decodes an id;
the engine, the bots and the RL code all go through it.

====================  =====================================================
id                    meaning
====================  =====================================================
0                     pass (``action`` or ``meld``)
1 .. 64               basic ability: ``1 + suit*8 + offset``
65 .. 128             advanced ability: ``65 + suit*8 + offset``
129 .. 136            take a card of a suit (``vision``, ``foundations``)
137 .. 144            meld with the extra card of a suit
145 .. 152            discard one card of a suit
====================  =====================================================

``offset`` is 0 for an ability that chooses no opponent, else the target seat is
``(player + offset) % players``. A k-card discard is k steps, suits in
non-decreasing order, so that every choice of suits has exactly one path.

>>> decode(ability_id(advanced=True, suit=Suit.MILITARY, offset=1))
Compact(op='advanced', suit=Suit.MILITARY, offset=1)
>>> describe_id(discard_id(Suit.BOON))
'discard X'
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

from .cards import SUIT_LETTERS, SUIT_OF, Suit

PASS_ID: Final = 0
BASIC_BASE: Final = 1
ADVANCED_BASE: Final = 65
TAKE_BASE: Final = 129
MELD_BASE: Final = 137
DISCARD_BASE: Final = 145
NUM_ACTIONS: Final = 153

Op = Literal["pass", "basic", "advanced", "take", "meld", "discard"]


class Compact(NamedTuple):
    """A decoded compact action: what it does, the suit it names, the target offset."""

    op: Op
    suit: Suit | None = None
    offset: int = 0


def ability_id(advanced: bool, suit: int, offset: int = 0) -> int:
    """The id of an ability of ``suit``, aimed ``offset`` seats on (0: no target)."""
    return (ADVANCED_BASE if advanced else BASIC_BASE) + suit * 8 + offset


def take_id(suit: int) -> int:
    return TAKE_BASE + suit


def meld_id(extra_suit: int) -> int:
    """The meld whose extra (``one_of``) card is of ``extra_suit``."""
    return MELD_BASE + extra_suit


def discard_id(suit: int) -> int:
    return DISCARD_BASE + suit


def target_offset(player: int, target: int | None, players: int) -> int:
    """The offset of ``target`` seen from ``player`` (0 for no target)."""
    return 0 if target is None else (target - player) % players


def target_of(player: int, offset: int, players: int) -> int | None:
    """The target seat an offset names, seen from ``player`` (``None`` for 0)."""
    return (player + offset) % players if offset else None


def _decode(aid: int) -> Compact | None:
    if aid == PASS_ID:
        return Compact("pass")
    if BASIC_BASE <= aid < TAKE_BASE:
        advanced = aid >= ADVANCED_BASE
        s, off = divmod(aid - (ADVANCED_BASE if advanced else BASIC_BASE), 8)
        return Compact("advanced" if advanced else "basic", Suit(s), off)
    for op, base in (("take", TAKE_BASE), ("meld", MELD_BASE), ("discard", DISCARD_BASE)):
        if base <= aid < base + 8:
            return Compact(op, Suit(aid - base))  # type: ignore[arg-type]
    return None


#: ``DECODED[aid]`` for every id (a table: decoding on hot paths is one index)
DECODED: Final[tuple[Compact, ...]] = tuple(_decode(i) for i in range(NUM_ACTIONS))  # type: ignore[misc]
#: ``SUIT_OF_ID[aid]``: the suit an id names as a plain int (-1 for pass)
SUIT_OF_ID: Final[tuple[int, ...]] = tuple(-1 if d.suit is None else int(d.suit) for d in DECODED)
#: ``OFFSET_OF_ID[aid]``: the target offset of an ability id (0 otherwise)
OFFSET_OF_ID: Final[tuple[int, ...]] = tuple(d.offset for d in DECODED)


def decode(aid: int) -> Compact:
    """What a compact id stands for; ``ValueError`` for an id outside the space."""
    if not isinstance(aid, int) or not 0 <= aid < NUM_ACTIONS:
        raise ValueError(f"compact action ids are 0..{NUM_ACTIONS - 1}, got {aid!r}")
    return DECODED[aid]


def is_take(aid: int) -> bool:
    return TAKE_BASE <= aid < MELD_BASE


def is_meld(aid: int) -> bool:
    return MELD_BASE <= aid < DISCARD_BASE


def is_discard(aid: int) -> bool:
    return DISCARD_BASE <= aid < NUM_ACTIONS


def is_ability(aid: int) -> bool:
    return BASIC_BASE <= aid < TAKE_BASE


def describe_id(aid: int) -> str:
    """Readable name of a compact action: ``basic M -> +1``."""
    if not isinstance(aid, int) or not 0 <= aid < NUM_ACTIONS:
        return f"<no action {aid}>"
    d = DECODED[aid]
    if d.op == "pass":
        return "pass"
    letter = SUIT_LETTERS[d.suit]  # type: ignore[index]
    if d.op in ("basic", "advanced"):
        return f"{d.op} {letter}" + (f" -> +{d.offset}" if d.offset else "")
    if d.op == "meld":
        return f"meld with {letter}"
    return f"{d.op} {letter}"


_SUIT_BYTES: Final = bytes(SUIT_OF) + bytes(256 - len(SUIT_OF))


def suit_counts(cards: list[int]) -> list[int]:
    """Counts per suit of card ids (a hot path of RL encodings: a loop for a hand, one C
    pass per suit for a pile)."""
    if len(cards) < 16:
        out = [0] * 8
        for c in cards:
            out[SUIT_OF[c]] = out[SUIT_OF[c]] + 1
        return out
    b = bytes(cards).translate(_SUIT_BYTES)
    return [b.count(0), b.count(1), b.count(2), b.count(3), b.count(4), b.count(5), b.count(6), b.count(7)]
