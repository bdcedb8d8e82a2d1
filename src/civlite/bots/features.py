"""One observation for every table size: the ``expert`` bot's input, from a seat's view.

The engine's numeric view (:mod:`civlite.engine.numeric`) grows with the number of seats,
so a network trained on it plays one table size. This encoding does not: it holds the
seat's own features, then **seven opponent slots in turn order** (slot 1 is the next seat
to play after the viewer, slot 2 the one after, ...), the slots past the table's last
opponent zero with their ``present`` flag off, then summaries pooled over the opponents
and the table's size as a one-hot. After them come **summaries of the seat's own hand**,
read from the rule set's meld and abilities (R5 to R8): how many cards it lacks for a meld
and of which suits, the cards it could spend and still meld, whether the discard pile holds
the one card it lacks, which abilities or meld reach the victory CT this turn, and which
searching abilities would fetch the one card a meld lacks. They are functions of values the
encoding already holds, but a small network learns them poorly from counts alone. Its
length is :data:`SIZE` at 2 to 8 players.

The hand summaries were added after the first networks were trained; those read the first
:data:`BASE_SIZE` values, which are unchanged, and :func:`complete` adds the summaries to
encodings stored before them.

Everything comes from the :class:`~civlite.engine.View` alone, so it holds exactly what
the seat may know. Counts are divided by :data:`SCALE` (so most values lie in 0..2).

:data:`SPEC` names every slot, in order; the docs' observation page is generated from it
(``civlite.bots.features.spec_table``), so the two cannot drift.
"""

from __future__ import annotations

from typing import Final, NamedTuple

import numpy as np

from ..engine import Game, RuleSet, View
from ..engine.cards import SUIT_OF

#: counts (cards, CT, turns) are multiplied by this
SCALE: Final = 0.1
#: opponent slots (a table has at most 8 seats)
OPPONENTS: Final = 7
PHASES: Final = ("rise", "action", "meld", "fall")
#: pending decision kinds with a slot of their own; the other discards share ``discard``
KINDS: Final = ("action", "meld", "vision", "foundations", "fall_discard", "discard")
SUITS: Final = "CLWAMBDX"


def _spec() -> tuple[tuple[str, int, str], ...]:
    rows: list[tuple[str, int, str]] = [
        ("hand", 8, "own hand, cards of each suit (suits C L W A M B D X)"),
        ("ct", 1, "own Civ Tokens"),
        ("hand_size", 1, "own hand size"),
        ("to_victory", 1, "CT still needed to win (victory CT minus own CT, at least 0)"),
    ]
    for k in range(1, OPPONENTS + 1):
        rows += [
            (f"opp{k}.present", 1, f"1 if the table has an opponent {k} seat(s) after the viewer in turn order, else 0 (and the slot is 0)"),
            (f"opp{k}.ct", 1, "that opponent's CT"),
            (f"opp{k}.hand_size", 1, "that opponent's hand size"),
            (f"opp{k}.to_victory", 1, "CT that opponent still needs"),
            (f"opp{k}.known", 8, "cards of that opponent's hand this seat knows, by suit"),
        ]
    rows += [
        ("opp_max_ct", 1, "the highest opponent CT"),
        ("opp_mean_ct", 1, "the opponents' mean CT"),
        ("opp_max_hand", 1, "the largest opponent hand"),
        ("opp_cards", 1, "cards in all opponents' hands"),
        ("players", 7, "one-hot of the number of seats, 2..8"),
        ("deck", 1, "cards left in the deck"),
        ("discard", 8, "discard pile by suit"),
        ("searching", 8, "the deck by suit while this seat decides a Vision (R5.2), else 0"),
        ("selecting", 8, "cards picked so far in a step-by-step discard, by suit"),
        ("phase", 4, "one-hot: rise, action, meld, fall"),
        ("pending", 6, "one-hot of the pending decision: action, meld, vision, foundations, "
                       "fall_discard, another discard"),
        ("pending_count", 1, "cards the pending decision still asks for"),
        ("resolving", 16, "one-hot of the ability being resolved: basic by suit, then advanced by suit"),
        ("decider", 8, "one-hot of the deciding seat, in turn order from the viewer (0: the viewer)"),
        ("active", 8, "one-hot of the active seat, in turn order from the viewer"),
        ("extra_turn", 1, "1 if an extra turn is owed"),
        ("turn_fraction", 1, "turn / turn limit (at most 1)"),
        ("victory_ct", 1, "the rule set's victory CT"),
        ("finite_supply", 1, "1 if the CT supply is finite"),
        ("supply", 1, "CT left in the supply (0 when unlimited)"),
        ("bias", 1, "always 1"),
        ("meld_lacking", 4, "one-hot of the cards the own hand lacks for a meld (R7.1): 0, 1, 2, 3 or more"),
        ("meld_need", 8, "1 for each suit the own hand lacks for a meld (each 'one of' suit when it "
                         "holds none of them), by suit"),
        ("meld_spare", 8, "own cards of each suit that could be spent with a meld's cards still in hand"),
        ("meld_in_discard", 1, "1 if the own hand lacks one card for a meld and the discard pile holds one "
                               "that fills it, else 0"),
        ("win_meld", 1, "1 if the own hand holds a meld whose CT reach the victory CT (R7.2, R8.1), else 0"),
        ("win_ability", 16, "1 for each ability the own hand can pay whose CT gain reaches the victory CT: "
                            "basic by suit, then advanced by suit"),
        ("win_ability_meld", 16, "1 for each ability the own hand can pay and still hold a meld, whose CT gain "
                                 "with the meld's reaches the victory CT: basic by suit, then advanced by suit"),
        ("fetch_meld", 16, "1 for each ability that searches the deck or the discard pile (Vision, Foundations) "
                           "which the own hand can pay and then lack one card for a meld, that card being "
                           "in the discard pile searched, or for the deck among the cards the seat has not "
                           "seen: basic by suit, then advanced by suit"),
        ("fetch_win", 16, "the same, where that meld's CT (and the ability's) reach the victory CT"),
    ]
    return tuple(rows)


#: every slot of the encoding in order: (name, width, meaning)
SPEC: Final = _spec()
#: the encoding's length, the same at every table size
SIZE: Final = sum(w for _, w, _ in SPEC)
_OFFSETS: dict[str, int] = {}
_at = 0
for _name, _w, _ in SPEC:
    _OFFSETS[_name] = _at
    _at += _w
del _at
OPP0: Final = _OFFSETS["opp1.present"]
OPP_WIDTH: Final = 12
_POOL = _OFFSETS["opp_max_ct"]
_PLAYERS = _OFFSETS["players"]
_DECK = _OFFSETS["deck"]
_DISCARD = _OFFSETS["discard"]
_SEARCHING = _OFFSETS["searching"]
_SELECTING = _OFFSETS["selecting"]
_PHASE = _OFFSETS["phase"]
_PENDING = _OFFSETS["pending"]
_RESOLVING = _OFFSETS["resolving"]
_DECIDER = _OFFSETS["decider"]
_ACTIVE = _OFFSETS["active"]
_TAIL = _OFFSETS["extra_turn"]
_LACKING = _OFFSETS["meld_lacking"]
_NEED = _OFFSETS["meld_need"]
_SPARE = _OFFSETS["meld_spare"]
_IN_DISCARD = _OFFSETS["meld_in_discard"]
_WIN_MELD = _OFFSETS["win_meld"]
_WIN_ABILITY = _OFFSETS["win_ability"]
_WIN_ABILITY_MELD = _OFFSETS["win_ability_meld"]
_FETCH_MELD = _OFFSETS["fetch_meld"]
_FETCH_WIN = _OFFSETS["fetch_win"]
#: the length of the encoding before the hand summaries (networks trained before them read
#: this many values, its first ones)
BASE_SIZE: Final = _LACKING


def offset(name: str) -> int:
    """Where slot ``name`` (a name of :data:`SPEC`) starts."""
    try:
        return _OFFSETS[name]
    except KeyError:
        raise KeyError(f"no slot {name!r} in the expert encoding") from None


def encode(view: View) -> np.ndarray:
    """The encoding of a seat's ``view`` (float32, :data:`SIZE` values)."""
    seat = view.seat
    if seat is None:
        raise ValueError("the expert encoding needs a seat's view, not a spectator's")
    n = view.num_players
    s = SCALE
    x = [0.0] * SIZE
    suit_of = SUIT_OF
    hand = [0] * 8
    for c in view.hand:
        hand[suit_of[c.id]] += 1
    for k in range(8):
        x[k] = hand[k] * s
    victory = view.rules.victory_ct
    own_ct = view.ct or 0
    x[8] = own_ct * s
    x[9] = len(view.hand) * s
    x[10] = max(0, victory - own_ct) * s
    max_ct = 0
    sum_ct = 0
    max_hand = 0
    cards = 0
    seen = hand[:]
    for p in view.players:
        k = (p.seat - seat) % n  # 1..n-1
        j = OPP0 + OPP_WIDTH * (k - 1)
        x[j] = 1.0
        x[j + 1] = p.ct * s
        x[j + 2] = p.hand_size * s
        x[j + 3] = max(0, victory - p.ct) * s
        for c in p.known:
            x[j + 4 + suit_of[c.id]] += s
            seen[suit_of[c.id]] += 1
        if p.ct > max_ct:
            max_ct = p.ct
        sum_ct += p.ct
        if p.hand_size > max_hand:
            max_hand = p.hand_size
        cards += p.hand_size
    x[_POOL] = max_ct * s
    x[_POOL + 1] = sum_ct * s / max(1, n - 1)
    x[_POOL + 2] = max_hand * s
    x[_POOL + 3] = cards * s
    if 2 <= n <= 8:
        x[_PLAYERS + n - 2] = 1.0
    x[_DECK] = view.deck_size * s
    pile = [0] * 8
    for c in view.discard:
        pile[suit_of[c.id]] += 1
    for k in range(8):
        x[_DISCARD + k] = pile[k] * s
    if view.searching is not None:
        for c in view.searching:
            x[_SEARCHING + suit_of[c.id]] += s
    for c in view.selecting:
        x[_SELECTING + suit_of[c.id]] += s
    phase = view.phase
    if phase in PHASES:
        x[_PHASE + PHASES.index(phase)] = 1.0
    pend = view.pending
    if pend is not None:
        kind = pend.kind
        x[_PENDING + (KINDS.index(kind) if kind in KINDS else 5)] = 1.0
        x[_PENDING + 6] = pend.count * s
        x[_DECIDER + (pend.player - seat) % n] = 1.0
    if view.resolving is not None:
        for ab in view.rules.abilities:
            if ab.name == view.resolving:
                x[_RESOLVING + (8 if ab.tier == "advanced" else 0) + int(ab.suit)] = 1.0
                break
    x[_ACTIVE + (view.active - seat) % n] = 1.0
    r = view.rules
    x[_TAIL] = 1.0 if view.extra_turn else 0.0
    x[_TAIL + 1] = min(1.0, view.turn / max(1, r.turn_limit))
    x[_TAIL + 2] = victory * s
    x[_TAIL + 3] = 1.0 if view.supply is not None else 0.0
    x[_TAIL + 4] = (view.supply or 0) * s
    x[_TAIL + 5] = 1.0
    meld = _meld_of(r)
    unseen = [meld.sizes[k] - seen[k] - pile[k] for k in range(8)]
    _meld_block(hand, pile, unseen, max(0, victory - own_ct), meld, x)
    return np.array(x, dtype=np.float32)


class _Meld(NamedTuple):
    """What the summaries read of a rule set, as plain ints."""

    suits: tuple[int, ...]  # a meld takes one card of each
    one_of: tuple[int, ...]  # and one card of one of these
    ct: int  # CT a meld gains
    #: (slot, suit, cards paid, CT gained, what it searches: 0 nothing, 1 the deck, 2 the
    #: discard pile) of every ability; slot 0-7 basic, 8-15 advanced by suit
    abilities: tuple[tuple[int, int, int, int, int], ...]
    sizes: tuple[int, ...]  # the deck's cards of each suit


def _meld_of(rules: RuleSet) -> _Meld:
    """The rule set's meld and abilities as :class:`_Meld` (kept in ``rules.cache``)."""
    meld: _Meld | None = rules.cache.get("expert_meld")
    if meld is None:
        abilities = tuple(
            ((8 if ab.tier == "advanced" else 0) + int(ab.suit), int(ab.suit), ab.cards,
             sum(e.amount for e in ab.effects if e.op in ("gain_ct", "steal_ct")),
             2 if any(e.op == "search_discard" for e in ab.effects)
             else 1 if any(e.op == "search_deck" for e in ab.effects) else 0)
            for ab in rules.abilities)
        meld = _Meld(tuple(int(k) for k in rules.meld_suits), tuple(int(k) for k in rules.meld_one_of),
                     rules.meld_ct, abilities, tuple(rules.suit_sizes))
        rules.cache["expert_meld"] = meld
    return meld


def _lacking(hand: list[int], meld: _Meld) -> tuple[int, list[int], int]:
    """(cards the hand lacks for a meld, 1 for each suit lacking, the hand's 'one of' cards)."""
    need = [0] * 8
    lacking = 0
    for k in meld.suits:
        if not hand[k]:
            need[k] = 1
            lacking += 1
    held = 0
    for k in meld.one_of:
        held += hand[k]
    if meld.one_of and not held:
        for k in meld.one_of:
            need[k] = 1
        lacking += 1
    return lacking, need, held


def _meld_block(hand: list[int], pile: list[int], unseen: list[int], need_ct: int, meld: _Meld,
                x: list[float]) -> None:
    """Write the meld and victory summaries of a hand into ``x``: ``hand``, ``pile`` and
    ``unseen`` are cards by suit (in the hand, in the discard pile, and those the seat has
    not seen, in the deck or in hidden hands); ``need_ct`` the CT still needed to win."""
    suits, one_of = meld.suits, meld.one_of
    lacking, need, held = _lacking(hand, meld)
    x[_LACKING + min(lacking, 3)] = 1.0
    for k in range(8):
        if need[k]:
            x[_NEED + k] = 1.0
        c = hand[k]
        if c:
            if k in suits or (k in one_of and c == held):  # the meld takes one of this suit
                c -= 1
            x[_SPARE + k] = c * SCALE
    if lacking == 1:
        for k in range(8):
            if need[k] and pile[k]:
                x[_IN_DISCARD] = 1.0
                break
    melds = lacking == 0
    wins = need_ct > 0
    if wins and melds and meld.ct >= need_ct:
        x[_WIN_MELD] = 1.0
    for slot, k, cost, gain, searches in meld.abilities:
        c = hand[k]
        if c < cost:
            continue
        if wins and gain >= need_ct:
            x[_WIN_ABILITY + slot] = 1.0
        if wins and melds and gain + meld.ct >= need_ct:
            left = c - cost
            if (left >= 1 if k in suits else held - cost >= 1 if k in one_of else True):
                x[_WIN_ABILITY_MELD + slot] = 1.0
        if searches:
            hand[k] -= cost
            after, short, _ = _lacking(hand, meld)
            hand[k] += cost
            if after == 1:
                source = pile if searches == 2 else unseen
                if any(short[j] and source[j] for j in range(8)):
                    x[_FETCH_MELD + slot] = 1.0
                    if wins and gain + meld.ct >= need_ct:
                        x[_FETCH_WIN + slot] = 1.0


def complete(x: np.ndarray, rules: RuleSet | None = None) -> np.ndarray:
    """Encodings stored before the hand summaries (rows of :data:`BASE_SIZE` values, made
    under ``rules``, the standard set by default) with the summaries added: rows of
    :data:`SIZE` values, as :func:`encode` writes them now. Rows of :data:`SIZE` values are
    returned as they are."""
    if x.ndim != 2 or x.shape[1] not in (BASE_SIZE, SIZE):
        raise ValueError(f"expected rows of {BASE_SIZE} or {SIZE} expert encoding values, got shape {x.shape}")
    if x.shape[1] == SIZE:
        return x
    meld = _meld_of(rules if rules is not None else RuleSet())
    needs = np.rint(x[:, 10] / SCALE).astype(int).tolist()
    known = sum(x[:, OPP0 + OPP_WIDTH * k + 4:OPP0 + OPP_WIDTH * k + 12] for k in range(OPPONENTS))
    unseens = (np.array(meld.sizes) - np.rint((x[:, :8] + known) / SCALE).astype(int)
               - np.rint(x[:, _DISCARD:_DISCARD + 8] / SCALE).astype(int)).tolist()
    out = np.zeros((x.shape[0], SIZE), np.float32)
    out[:, :BASE_SIZE] = x
    hands = np.rint(x[:, :8] / SCALE).astype(int).tolist()
    piles = np.rint(x[:, _DISCARD:_DISCARD + 8] / SCALE).astype(int).tolist()
    row = [0.0] * SIZE
    for i, (hand, pile, unseen, need_ct) in enumerate(zip(hands, piles, unseens, needs, strict=True)):
        block = row[:]
        _meld_block(hand, pile, unseen, need_ct, meld, block)
        out[i, BASE_SIZE:] = block[BASE_SIZE:]
    return out


def encode_table(world: Game, seat: int) -> np.ndarray:
    """:func:`encode` of ``seat``'s view in ``world``, with every opponent slot's ``known``
    cards set to that opponent's whole hand (read from that opponent's own view).

    For a search's *sampled* worlds only: a world dealt from the seat's view
    (:func:`civlite.engine.sample_world`) holds hands the seat guessed, so scoring it with
    the hands in view uses nothing the seat does not know. A value network trained on this
    encoding (``champion``'s ``value=``) judges a dealt world, not the seat's information.
    """
    x = encode(world.view(seat))
    n = world.n
    s = SCALE
    suit_of = SUIT_OF
    for k in range(1, n):
        j = OPP0 + OPP_WIDTH * (k - 1) + 4
        x[j:j + 8] = 0.0
        for c in world.view((seat + k) % n).hand:
            x[j + suit_of[c.id]] += s
    return x


def spec_table() -> str:
    """:data:`SPEC` as a Markdown table (offset, width, name, meaning): the docs' page."""
    lines = ["| offset | width | slot | meaning |", "|---:|---:|---|---|"]
    for name, w, meaning in SPEC:
        lines.append(f"| {_OFFSETS[name]} | {w} | `{name}` | {meaning} |")
    lines.append(f"\n{SIZE} values in all, float32, at every table size (2 to 8 seats).")
    return "\n".join(lines)
