"""The parts of a rule-set file that are more than a number (R10): per-seat values
(compensation for the order of play), suit lists (the meld's suits) and the ``[deck]``
table, read from a file's form and written back to it. Each error names its key.
"""

from __future__ import annotations

from typing import Any

from .abilities import RuleSetError
from .cards import ID_OF_NAME, IDS_OF_SUIT, MAX_PER_SUIT, NAMES, SUIT_CARD_IDS, SUIT_LETTERS, SUIT_OF, SUITS, Suit

#: a per-seat key's value: ``(players, values)`` pairs; ``players`` 0 is "any player count"
SeatValues = tuple[tuple[int, tuple[int, ...]], ...]


def parse_seat_values(value: Any, where: str) -> SeatValues:
    """``[0, 1]`` (any player count) or ``{2 = [0, 1], 4 = [0, 0, 1, 1], default = [0]}``."""
    def values(v: Any, w: str) -> tuple[int, ...]:
        if isinstance(v, int) and not isinstance(v, bool):
            return (v,)
        if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            raise RuleSetError(f"{w}: must be a list of whole numbers, one per seat in turn order, got {v!r}")
        return tuple(v)

    if isinstance(value, dict):
        out: list[tuple[int, tuple[int, ...]]] = []
        for k, v in value.items():
            if k == "default":
                n = 0
            else:
                try:
                    n = int(k)
                except ValueError:
                    raise RuleSetError(f"{where}: keys are player counts or 'default', got {k!r}") from None
            out.append((n, values(v, f"{where}.{k}")))
        return tuple(sorted(out))
    v = values(value, where)
    return ((0, v),) if v else ()


def parse_suit(key: str, where: str) -> Suit:
    try:
        return Suit.parse(key)
    except ValueError as e:
        raise RuleSetError(f"{where}: {e}") from None


def parse_deck(value: Any, where: str) -> tuple[int, ...]:
    """``{D = 12, X = 0, B = ["Granaries", "Roads"]}``: per suit a count (the suit's first
    cards in the card list, then its extras) or the names of its cards; a suit not given
    keeps its 16 or 8 cards."""
    if not isinstance(value, dict):
        raise RuleSetError(f"{where}: must be a table keyed by suit, e.g. [deck] with D = 12")
    ids = dict(zip(SUITS, IDS_OF_SUIT, strict=True))  # the named cards, as by default
    given: dict[Suit, str] = {}
    for key, spec in value.items():
        w = f"{where}.{key}"
        suit = parse_suit(key, w)
        if suit in given:
            raise RuleSetError(f"{w}: suit {suit.letter} is also given as {given[suit]!r}")
        given[suit] = key
        pool = SUIT_CARD_IDS[suit]
        if isinstance(spec, int) and not isinstance(spec, bool):
            if not 0 <= spec <= MAX_PER_SUIT:
                raise RuleSetError(f"{w}: a suit holds 0 to {MAX_PER_SUIT} cards, got {spec}")
            ids[suit] = pool[:spec]
        elif isinstance(spec, list):
            if len(spec) > MAX_PER_SUIT:
                raise RuleSetError(f"{w}: a suit holds at most {MAX_PER_SUIT} cards, got {len(spec)} names")
            chosen: list[int] = []
            for i, name in enumerate(spec):
                cid = ID_OF_NAME.get(name) if isinstance(name, str) else None
                if cid is None or SUIT_OF[cid] != suit:
                    raise RuleSetError(
                        f"{w}[{i}]: {name!r} is not a {suit.title} card; they are "
                        f"{', '.join(NAMES[c] for c in IDS_OF_SUIT[suit])} (then {suit.title} "
                        f"{len(IDS_OF_SUIT[suit]) + 1} to {suit.title} {MAX_PER_SUIT})")
                if cid in chosen:
                    raise RuleSetError(f"{w}[{i}]: {name!r} is named twice")
                chosen.append(cid)
            ids[suit] = tuple(sorted(chosen))
        else:
            raise RuleSetError(f"{w}: a count of cards (D = 12) or a list of their names, got {spec!r}")
    return tuple(sorted(c for s in SUITS for c in ids[s]))


def deck_table(deck: tuple[int, ...]) -> dict[str, int | list[str]]:
    """The ``[deck]`` table of a deck: the suits that differ from the default, each as a
    count when it holds its suit's first cards, else as names."""
    out: dict[str, int | list[str]] = {}
    for s in SUITS:
        mine = tuple(c for c in deck if SUIT_OF[c] == s)
        if mine == IDS_OF_SUIT[s]:
            continue
        pool = SUIT_CARD_IDS[s]
        out[SUIT_LETTERS[s]] = len(mine) if mine == pool[:len(mine)] else [NAMES[c] for c in mine]
    return out


def parse_suits(value: Any, where: str) -> tuple[Suit, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RuleSetError(f"{where}: must be a list of suit letters like ['C', 'L']")
    try:
        return tuple(Suit.parse(v) for v in value)
    except ValueError as e:
        raise RuleSetError(f"{where}: {e}") from None
