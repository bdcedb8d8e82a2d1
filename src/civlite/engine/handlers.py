"""One handler per decision kind (R9): its legal choices, its checks, how it
resolves, and its compact ids.

A game holds the handler of its pending decision (``HANDLERS[kind]``) and sends it
every question about that decision: :meth:`Handler.apply` (check a concrete action,
then resolve it), :meth:`Handler.legal_actions`, :meth:`Handler.legal_ids`,
:meth:`Handler.apply_id`, :meth:`Handler.action_for_id`, :meth:`Handler.id_for_action`
and :meth:`Handler.choices` (what a user interface offers). Nothing else branches
on the kind. A handler checks everything before it changes anything (R9.2).

>>> from civlite.engine import DecisionKind
>>> sorted(HANDLERS) == sorted(DecisionKind)
True
>>> HANDLERS[DecisionKind.MELD].answers
'pass or meld'
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations, product
from typing import Any, Final

from .actions import Action, Advanced, Basic, Discard, IllegalActionError, Meld, Pass, Take
from .cards import ALL_CARDS, MAX_PER_SUIT, SUIT_OF, Card, Suit
from .choices import Choices, DiscardChoice, TakeChoice, ability_choices, meld_choice, sorted_cards
from .codec import (
    ADVANCED_BASE,
    BASIC_BASE,
    DISCARD_BASE,
    MELD_BASE,
    OFFSET_OF_ID,
    PASS_ID,
    SUIT_OF_ID,
    TAKE_BASE,
    ability_id,
    meld_id,
    take_id,
)
from .decisions import DecisionKind
from .events import Event, new_event
from .resolution import Resolution
from .rules import Ability

#: module constants are Final so that the compiled engine reads them as C statics (a plain
#: module global is a dict look-up on every use, in every loop)
_PASS: Final = Pass()
_NEW: Final = new_event
_EVENT: Final = Event
_SUITS: Final[tuple[int, ...]] = SUIT_OF
_DISCARD: Final = Discard
_ADVANCED: Final = Advanced
_BASIC: Final = Basic
_MELD_T: Final = Meld
_TAKE: Final = Take
_FALL_DISCARD: Final = DecisionKind.FALL_DISCARD
#: a hand's cards counted by suit in one int, 7 bits a suit (a suit has at most 32 cards, R10):
#: ``_UNIT[card]`` is 1 in its suit's field. Compiled, a local int is unboxed, where a list of
#: counts boxes every count it stores
_BITS: Final = 7
_FIELD: Final = 127
_UNIT: Final[tuple[int, ...]] = tuple(1 << (_BITS * s) for s in SUIT_OF)
assert MAX_PER_SUIT <= _FIELD, "a suit's count must fit its field"


def _count(packed: int, s: int) -> int:
    """How many cards of suit ``s`` a packed count holds."""
    return (packed >> (_BITS * s)) & _FIELD


def _packed_counts(cards: list[int]) -> int:
    """``cards`` counted by suit, packed (see :data:`_UNIT`)."""
    packed = 0
    for c in cards:
        packed += _UNIT[c]
    return packed


#: a pass is the same event every time for a seat (events are immutable values): one each,
#: made once, for passing the action (R4.2) and the meld (R4.3), for the 8 seats a rule set may have
_PASS_ACTION_EVENTS: Final[tuple[Event, ...]] = tuple(
    _NEW(_EVENT, ("pass", "R4.2", p, None, None, (), 0, 0, (), (), (), "action", 0, False, None)) for p in range(8))
_PASS_MELD_EVENTS: Final[tuple[Event, ...]] = tuple(
    _NEW(_EVENT, ("pass", "R4.3", p, None, None, (), 0, 0, (), (), (), "meld", 0, False, None)) for p in range(8))


class Handler:
    """The questions every decision kind answers; one instance per kind."""

    __slots__ = ("kind",)
    #: what answers it, for error messages
    answers: str = ""
    #: whether it is a ``*_discard`` (taken in compact steps, one card each)
    is_discard: bool = False

    def __init__(self, kind: DecisionKind) -> None:
        self.kind = kind

    def __reduce__(self) -> tuple[Any, tuple[DecisionKind]]:
        # one instance per kind: a pickled game's handler comes back as the registered one
        # (compiled classes cannot be rebuilt without their ``__init__`` arguments)
        return handler_of, (self.kind,)

    def __repr__(self) -> str:
        return f"HANDLERS[{self.kind!r}]"

    # -- concrete actions -----------------------------------------------------------
    def apply(self, g: Resolution, action: Action) -> None:
        """Check ``action`` (raise :class:`IllegalActionError`, changing nothing), record
        it and resolve it."""
        raise NotImplementedError

    def legal_actions(self, g: Resolution) -> list[Action]:
        """Every legal concrete action (cards by name)."""
        raise NotImplementedError

    # -- compact ids (see :mod:`civlite.engine.codec`) ------------------------------
    def legal_ids(self, g: Resolution) -> list[int]:
        """The legal compact ids, ascending."""
        raise NotImplementedError

    def apply_id(self, g: Resolution, aid: int) -> None:
        """Resolve a compact id that :meth:`legal_ids` holds (the caller checked it)."""
        raise NotImplementedError

    def action_for_id(self, g: Resolution, aid: int) -> Action:
        """The concrete action a compact id stands for now."""
        raise IllegalActionError(f"compact action {aid} is not a whole action for a {self.kind} decision", "R9.2")

    def id_for_action(self, g: Resolution, action: Action) -> int:
        """The compact id a concrete action belongs to."""
        raise ValueError(f"a {action.do!r} action has no compact id for a {self.kind} decision")

    # -- user interfaces ------------------------------------------------------------
    def choices(self, g: Resolution, seat: int, base: dict[str, Any]) -> Choices:
        """What the deciding seat may do (``base``: the fields every kind fills)."""
        raise NotImplementedError

    # -- shared checks ----------------------------------------------------------------
    def wrong_kind(self, g: Resolution, action: Action) -> IllegalActionError:
        return IllegalActionError(
            f"'{action.do}' does not answer the pending decision: seat {g.to_move}'s "
            f"{self.kind} takes {self.answers}", "R9"
        )


def cards_held(g: Resolution, cards: Iterable[Card], player: int) -> list[int]:
    """The ids of ``cards``, each held once by ``player`` (R9.2)."""
    hand = g.hands[player]
    ids: list[int] = []
    for c in cards:
        if c.id in ids:
            raise IllegalActionError(f"{c.name} is named twice", "R9.2")
        if c.id not in hand:
            raise IllegalActionError(f"seat {player} does not hold {c.name}", "R9.2")
        ids.append(c.id)
    return ids


def discard_for_ids(g: Resolution, ids: Iterable[int]) -> Discard:
    """The concrete discard that compact discard steps stand for, after the steps the
    pending discard already took."""
    p = g._dplayer
    chosen: list[int] = list(g._selected)
    for aid in ids:
        s = aid - DISCARD_BASE
        if not 0 <= s < 8:
            raise IllegalActionError(f"compact action {aid} is not a discard step", "R9.2")
        cands = [c for c in g.hands[p] if _SUITS[c] == s and c not in chosen]
        if not cands:
            raise IllegalActionError(f"seat {p} has no more {Suit(s).title} cards to discard", "R9.2")
        chosen.append(min(cands))
    return Discard([ALL_CARDS[c] for c in chosen])


_NONE_SKIPPED: Final[list[int]] = []


def _lowest_of_suit(cards: Iterable[int], s: int, skip: list[int] = _NONE_SKIPPED) -> int:
    """The lowest card of suit ``s`` in ``cards`` that is not in ``skip``."""
    low = -1  # a loop, not min() over a generator: compiled, a generator is an object per call
    for c in cards:
        if _SUITS[c] == s and (low < 0 or c < low) and c not in skip:
            low = c
    if low < 0:
        raise ValueError(f"no card of suit {s}")
    return low


class ActionHandler(Handler):
    """``action``: an ability with its paid cards and target, or pass (R4.2, R5, R6)."""

    __slots__ = ()
    answers = "pass, basic or advanced"

    def apply(self, g: Resolution, action: Action) -> None:
        if isinstance(action, Pass):
            g._actions.append(action)
            if not g._quiet:
                g._ev.append(_PASS_ACTION_EVENTS[g._dplayer])
            g._ask_meld()
        elif isinstance(action, Basic):  # Advanced is a Basic too
            ability, cards, target = self.check(g, action)
            g._actions.append(action)
            g._activate(ability, cards, target)
        else:
            raise self.wrong_kind(g, action)

    def check(self, g: Resolution, action: Basic) -> tuple[Ability, list[int], int]:
        """The ability, paid card ids and target seat (-1: none) of a legal ability use."""
        p = g.to_move
        assert p is not None
        tier = "advanced" if isinstance(action, Advanced) else "basic"
        rule = "R6.1" if tier == "advanced" else "R5"
        if not action.cards:
            raise IllegalActionError(f"a {tier} ability is paid with cards; none given", rule)
        ids = cards_held(g, action.cards, p)
        suits = {_SUITS[c] for c in ids}
        if len(suits) != 1:
            raise IllegalActionError(
                f"an ability is paid with cards of one suit; got {', '.join(sorted(Suit(s).title for s in suits))}", rule
            )
        suit = suits.pop()
        ability = (g.rules.advanced if tier == "advanced" else g.rules.basic)[suit]
        if ability is None:
            raise IllegalActionError(f"{Suit(suit).title} has no {tier} ability in this rule set", "R10")
        if len(ids) != ability.cards:
            raise IllegalActionError(
                f"{ability.name} costs exactly {ability.cards} {Suit(suit).title} card"
                f"{'s' if ability.cards != 1 else ''}; {len(ids)} given", rule
            )
        target = action.target
        if ability.targets:
            if target is None:
                if g.n != 2:
                    raise IllegalActionError(f"{ability.name} chooses an opponent: give a 'target' seat", "R5.1")
                target = 1 - p
            if not 0 <= target < g.n:
                raise IllegalActionError(f"target seat {target} does not exist (seats 0..{g.n - 1})", "R5.1")
            if target == p:
                raise IllegalActionError(f"{ability.name} targets an opponent, not seat {p} itself", "R5.1")
        else:
            if target is not None:  # R9.2: rejected whatever seat it names
                raise IllegalActionError(
                    f"{ability.name} does not choose an opponent: remove 'target' (seat {target})", "R9.2"
                )
            target = -1
        return ability, ids, target

    def legal_actions(self, g: Resolution) -> list[Action]:
        p = g._dplayer
        out: list[Action] = [Pass()]
        by_suit: list[list[int]] = [[] for _ in range(8)]
        for c in sorted(g.hands[p]):
            by_suit[_SUITS[c]].append(c)
        for tier, table in ((Basic, g.rules.basic), (Advanced, g.rules.advanced)):
            for s in range(8):
                ab = table[s]
                if ab is None or len(by_suit[s]) < ab.cards:
                    continue
                targets: list[int | None] = [t for t in range(g.n) if t != p] if ab.targets else [None]
                for combo in combinations(by_suit[s], ab.cards):
                    cards = [ALL_CARDS[c] for c in combo]
                    for t in targets:
                        out.append(tier(cards, t))
        return out

    def legal_ids(self, g: Resolution) -> list[int]:
        packed = _packed_counts(g.hands[g._dplayer])
        ids = [PASS_ID]
        for s, cost, opts in g._rt.opts:
            if _count(packed, s) >= cost:
                ids.extend(opts)
        return ids

    def apply_id(self, g: Resolution, aid: int) -> None:
        p = g._dplayer
        if aid == PASS_ID:  # the hot path of simulations
            g._actions.append(_PASS)
            if not g._quiet:
                g._ev.append(_PASS_ACTION_EVENTS[p])
            g._ask_meld()
            return
        advanced = aid >= ADVANCED_BASE
        s = SUIT_OF_ID[aid]
        off = OFFSET_OF_ID[aid]
        ab = (g._rt.advanced if advanced else g._rt.basic)[s]
        assert ab is not None
        cards = sorted([c for c in g.hands[p] if _SUITS[c] == s])[: ab.cards]
        target = (p + off) % g.n if off else -1
        g._actions.append((_ADVANCED if advanced else _BASIC, cards, target if target >= 0 else None))
        g._activate(ab, cards, target)

    def action_for_id(self, g: Resolution, aid: int) -> Action:
        if aid == PASS_ID:
            return Pass()
        if not BASIC_BASE <= aid < TAKE_BASE:
            return super().action_for_id(g, aid)
        advanced = aid >= ADVANCED_BASE
        s = SUIT_OF_ID[aid]
        ab = (g.rules.advanced if advanced else g.rules.basic)[s]
        if ab is None:
            raise IllegalActionError(f"{Suit(s).title} has no such ability in this rule set", "R10")
        p = g._dplayer
        mine = sorted([c for c in g.hands[p] if _SUITS[c] == s])[: ab.cards]
        off = OFFSET_OF_ID[aid]
        target = (p + off) % g.n if off else None
        return (Advanced if advanced else Basic)([ALL_CARDS[c] for c in mine], target)

    def id_for_action(self, g: Resolution, action: Action) -> int:
        if isinstance(action, Pass):
            return PASS_ID
        if not isinstance(action, Basic) or not action.cards:
            return super().id_for_action(g, action)
        advanced = isinstance(action, Advanced)
        s = action.cards[0].suit
        ab = (g.rules.advanced if advanced else g.rules.basic)[s]
        if ab is None or not ab.targets:
            off = 0
        elif action.target is None:
            off = 1  # two players: the other seat
        else:
            off = (action.target - g._dplayer) % g.n
        return ability_id(advanced, s, off)

    def choices(self, g: Resolution, seat: int, base: dict[str, Any]) -> Choices:
        return Choices(abilities=ability_choices(g, seat), **base)


class MeldHandler(Handler):
    """``meld``: 7 cards, one of each major suit and one minor (R7.1), or pass (R4.3)."""

    __slots__ = ()
    answers = "pass or meld"

    def apply(self, g: Resolution, action: Action) -> None:
        if isinstance(action, Pass):
            g._actions.append(action)
            if not g._quiet:
                g._ev.append(_PASS_MELD_EVENTS[g._dplayer])
            g._enter_fall()
        elif isinstance(action, Meld):
            cards = self.check(g, action)
            g._actions.append(action)
            g._meld(cards)
        else:
            raise self.wrong_kind(g, action)

    def check(self, g: Resolution, action: Meld) -> list[int]:
        p = g._dplayer
        ids = cards_held(g, action.cards, p)
        r = g.rules
        need = len(r.meld_suits) + 1
        counts = [0] * 8
        for c in ids:
            counts[_SUITS[c]] = counts[_SUITS[c]] + 1
        ok = (
            len(ids) == need
            and all(counts[s] == 1 for s in r.meld_suits)
            and sum(counts[s] for s in r.meld_one_of) == 1
        )
        if not ok:
            want = ", ".join(Suit(s).title for s in r.meld_suits)
            one = " or ".join(Suit(s).title for s in r.meld_one_of)
            got = ", ".join(f"{counts[s]} {Suit(s).title}" for s in range(8) if counts[s])
            raise IllegalActionError(
                f"a meld is exactly {need} cards: one each of {want}, and one {one}; got {got or 'nothing'}",
                "R7.1",
            )
        return ids

    def legal_actions(self, g: Resolution) -> list[Action]:
        out: list[Action] = [Pass()]
        by_suit: list[list[int]] = [[] for _ in range(8)]
        for c in sorted(g.hands[g._dplayer]):
            by_suit[_SUITS[c]].append(c)
        r = g.rules
        if all(by_suit[s] for s in r.meld_suits):
            extras = [c for s in r.meld_one_of for c in by_suit[s]]
            for majors in product(*(by_suit[s] for s in r.meld_suits)):
                for x in extras:
                    out.append(Meld([ALL_CARDS[c] for c in (*majors, x)]))
        return out

    def legal_ids(self, g: Resolution) -> list[int]:
        packed = _packed_counts(g.hands[g._dplayer])
        rt = g._rt
        for s in rt.meld_suits:
            if not _count(packed, s):
                return [PASS_ID]
        ids = [PASS_ID]  # a loop, not a generator: compiled, a generator is an object per call
        for s in rt.meld_one_of:
            if _count(packed, s):
                ids.append(MELD_BASE + s)
        return ids

    def apply_id(self, g: Resolution, aid: int) -> None:
        if aid == PASS_ID:
            g._actions.append(_PASS)
            if not g._quiet:
                g._ev.append(_PASS_MELD_EVENTS[g._dplayer])
            g._enter_fall()
            return
        hand = g.hands[g._dplayer]
        picks = [_lowest_of_suit(hand, s) for s in g._rt.meld_suits]
        picks.append(_lowest_of_suit(hand, aid - MELD_BASE))
        picks.sort()  # as a Meld holds them
        g._actions.append((_MELD_T, picks))
        g._meld(picks)

    def action_for_id(self, g: Resolution, aid: int) -> Action:
        if aid == PASS_ID:
            return Pass()
        if not MELD_BASE <= aid < DISCARD_BASE:
            return super().action_for_id(g, aid)
        hand = g.hands[g._dplayer]
        picks = []
        for s in (*g.rules.meld_suits, aid - MELD_BASE):
            cands = [c for c in hand if _SUITS[c] == s]
            if not cands:
                raise IllegalActionError(f"no {Suit(s).title} card for a meld", "R7.1")
            picks.append(min(cands))
        return Meld([ALL_CARDS[c] for c in picks])

    def id_for_action(self, g: Resolution, action: Action) -> int:
        if isinstance(action, Pass):
            return PASS_ID
        if not isinstance(action, Meld):
            return super().id_for_action(g, action)
        extra = [c for c in action.cards if c.suit in g.rules.meld_one_of]
        return meld_id(extra[0].suit if extra else 0)

    def choices(self, g: Resolution, seat: int, base: dict[str, Any]) -> Choices:
        return Choices(meld=meld_choice(g, seat), **base)


class TakeHandler(Handler):
    """``vision`` (a card of the deck, R5.2) or ``foundations`` (of the discard pile, R5.3)."""

    __slots__ = ("rule", "source")
    answers = "take"

    def __init__(self, kind: DecisionKind, source: str, rule: str) -> None:
        super().__init__(kind)
        self.source = source  #: ``"deck"`` | ``"discard"``
        self.rule = rule

    def pile(self, g: Resolution) -> list[int]:
        return g.deck if self.source == "deck" else g.discard

    def apply(self, g: Resolution, action: Action) -> None:
        if not isinstance(action, Take):
            raise self.wrong_kind(g, action)
        cid = action.card.id
        if cid not in self.pile(g):
            where = "the deck" if self.source == "deck" else "the discard pile"
            raise IllegalActionError(f"{action.card.name} is not in {where}", self.rule)
        g._actions.append(action)
        g._take(cid)

    def legal_actions(self, g: Resolution) -> list[Action]:
        return [Take(ALL_CARDS[c]) for c in sorted(set(self.pile(g)))]

    def legal_ids(self, g: Resolution) -> list[int]:
        suits = 0  # a bit a suit
        for c in self.pile(g):
            suits |= 1 << _SUITS[c]
        return [TAKE_BASE + s for s in range(8) if suits >> s & 1]

    def apply_id(self, g: Resolution, aid: int) -> None:
        c = _lowest_of_suit(self.pile(g), aid - TAKE_BASE)
        g._actions.append((_TAKE, c))
        g._take(c)

    def action_for_id(self, g: Resolution, aid: int) -> Action:
        if not TAKE_BASE <= aid < MELD_BASE:
            return super().action_for_id(g, aid)
        s = aid - TAKE_BASE
        cands = [c for c in self.pile(g) if _SUITS[c] == s]
        if not cands:
            raise IllegalActionError(f"no {Suit(s).title} card to take", "R9.2")
        return Take(ALL_CARDS[min(cands)])

    def id_for_action(self, g: Resolution, action: Action) -> int:
        if not isinstance(action, Take):
            return super().id_for_action(g, action)
        return take_id(action.card.suit)

    def choices(self, g: Resolution, seat: int, base: dict[str, Any]) -> Choices:
        pile = self.pile(g) if self.source == "deck" else sorted(set(g.discard))
        return Choices(take=TakeChoice(self.source, sorted_cards(pile), g._dcount), **base)


class DiscardHandler(Handler):
    """A ``*_discard``: exactly ``count`` held cards (R4.4, R5, R6). In the compact space a
    k-card discard is k steps, suits in non-decreasing order."""

    __slots__ = ("rule",)
    answers = "discard"
    is_discard = True

    def __init__(self, kind: DecisionKind, rule: str) -> None:
        super().__init__(kind)
        self.rule = rule

    def apply(self, g: Resolution, action: Action) -> None:
        if not isinstance(action, Discard) or isinstance(action, Meld):
            raise self.wrong_kind(g, action)
        ids = cards_held(g, action.cards, g._dplayer)
        if len(ids) != g._dcount:
            raise IllegalActionError(
                f"the {self.kind} decision discards exactly {g._dcount} card"
                f"{'s' if g._dcount != 1 else ''}; {len(ids)} given", self.rule,
            )
        g._actions.append(action)
        g._resolve_discard(ids)

    def legal_actions(self, g: Resolution) -> list[Action]:
        hand = sorted(g.hands[g._dplayer])
        return [Discard([ALL_CARDS[c] for c in combo]) for combo in combinations(hand, g._dcount)]

    def legal_ids(self, g: Resolution) -> list[int]:
        packed = _packed_counts(g.hands[g._dplayer])
        low = 0
        selected = g._selected
        for c in selected:
            packed -= _UNIT[c]
            low = _SUITS[c]
        need = g._dcount - len(selected)
        ids = []
        if need == 1:
            for s in range(low, 8):
                if _count(packed, s):
                    ids.append(DISCARD_BASE + s)
            return ids
        avail = 0
        for s in range(7, low - 1, -1):
            k = _count(packed, s)
            avail += k
            if k and avail >= need:
                ids.append(DISCARD_BASE + s)
        ids.reverse()
        return ids

    def apply_id(self, g: Resolution, aid: int) -> None:
        s = aid - DISCARD_BASE
        chosen = g._selected
        chosen.append(_lowest_of_suit(g.hands[g._dplayer], s, chosen))
        if len(chosen) < g._dcount:
            return
        # in card order, as a Discard action holds them: the steps go by suit, and an extra
        # card of a [deck] (R10) has a higher id than the next suit's named cards
        cards = sorted(chosen)
        g._actions.append((_DISCARD, cards))
        g._resolve_discard(cards)

    def id_for_action(self, g: Resolution, action: Action) -> int:
        raise ValueError("a discard is several compact steps, one per card")

    def choices(self, g: Resolution, seat: int, base: dict[str, Any]) -> Choices:
        reason = f"Fall: hand limit {g.rules.hand_limit}" if self.kind is _FALL_DISCARD else (
            base["ability"] or self.kind.value)
        return Choices(discard=DiscardChoice(g._dcount, sorted_cards(g.hands[seat]), reason), **base)


K = DecisionKind
#: the handler of each decision kind (one each; a test checks that every kind has one)
HANDLERS: dict[DecisionKind, Handler] = {
    K.ACTION: ActionHandler(K.ACTION),
    K.MELD: MeldHandler(K.MELD),
    K.VISION: TakeHandler(K.VISION, "deck", "R5.2"),
    K.FOUNDATIONS: TakeHandler(K.FOUNDATIONS, "discard", "R5.3"),
    K.CULTURE_DISCARD: DiscardHandler(K.CULTURE_DISCARD, "R9"),
    K.WISDOM_DISCARD: DiscardHandler(K.WISDOM_DISCARD, "R9"),
    K.SETBACK_DISCARD: DiscardHandler(K.SETBACK_DISCARD, "R9"),
    K.FALL_DISCARD: DiscardHandler(K.FALL_DISCARD, "R4.4"),
}


def handler_of(kind: DecisionKind) -> Handler:
    """The registered handler of ``kind``."""
    return HANDLERS[kind]


def choices_for(g: Resolution, seat: int | None) -> Choices:
    """The :class:`Choices` of ``seat`` in ``g`` (``Game.choices`` calls this); the
    pending decision's handler fills in its part."""
    if seat is not None and not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < g.n):
        raise ValueError(f"seat must be 0..{g.n - 1} or None (spectator), got {seat!r}")
    pending = g.pending
    if pending is None or seat != pending.player:
        return Choices(seat, g.decision_number, None, None if pending is None else pending.player)
    kind = pending.kind
    base: dict[str, Any] = {"seat": seat, "decision_number": g.decision_number, "kind": kind,
                            "waiting_for": seat, "can_pass": kind.can_pass, "ability": pending.ability}
    return HANDLERS[kind].choices(g, seat, base)
