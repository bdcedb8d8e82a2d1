"""How decisions resolve: card movements, abilities and their effects, melds and
discards (R3, R5, R6, R7, R4.4). :class:`Resolution` is a part of
:class:`~civlite.engine.Game` (its base class): ``Game`` holds the state and the flow
of a turn, and calls these when a decision is answered; the effect primitives
(:mod:`.effects`) call them too.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from .cards import SUIT_OF
from .decisions import DecisionKind
from .effects import ALL, PRIMITIVES
from .events import Event, new_event
from .rules import Ability
from .state import GameState

_NEW: Final = new_event  # module constants are C statics when compiled
_EVENT: Final = Event
_FALL: Final = DecisionKind.FALL_DISCARD
_VISION: Final = DecisionKind.VISION
_FOUNDATIONS: Final = DecisionKind.FOUNDATIONS


class Resolution(GameState):
    """Card movements and the resolution of abilities, melds and discards."""

    __slots__ = ()

    # the flow of a turn (``Game``)
    def _ask_meld(self) -> None:
        raise NotImplementedError

    def _enter_fall(self) -> None:
        raise NotImplementedError

    def _end_turn(self) -> None:
        raise NotImplementedError

    # -- card movements -----------------------------------------------------------
    def _refill(self) -> bool:
        """R3.1: shuffle the discard pile into an empty deck. False if both are empty."""
        if not self.discard:
            return False
        self.deck = self.discard
        self.discard = []
        self._dsuits = [0] * 8
        if self.chance is not None:
            self.chance.shuffle(self.deck)
        else:
            _shuffle(self._own_rng(), self.deck)
        if not self._quiet:
            self._ev.append(Event("reshuffle", "R3.1", count=len(self.deck), phase=self.phase))
        return True

    def _to_discard(self, ids: list[int]) -> None:
        """Put ``ids`` on the discard pile (and count them by suit)."""
        self.discard.extend(ids)
        counts = self._dsuits
        for c in ids:
            s = SUIT_OF[c]
            counts[s] = counts[s] + 1

    def _draw(self, p: int, k: int, rule: str, ability: str | None = None) -> None:
        got: list[int] = []
        deck = self.deck
        knower = self._knower
        chance = self.chance
        for _ in range(k):
            if not deck:
                if not self._refill():
                    break
                deck = self.deck
            c = deck.pop() if chance is None else deck.pop(chance.draw(deck))
            knower[c] = 0
            got.append(c)
        self.hands[p].extend(got)
        if not self._quiet:
            self._ev.append(_NEW(_EVENT, ("draw", rule, p, None, ability, (), len(got), 0, tuple(got), (p,), (),
                                        self.phase, 0, False, None)))

    def _own_rng(self) -> random.Random:
        """The random source, copied first if a clone still shares it (copy on write)."""
        if self._rng_shared:
            rng = random.Random.__new__(random.Random)
            rng.setstate(self.rng.getstate())
            self.rng = rng
            self._rng_shared = False
        return self.rng

    def _draw_quiet(self, p: int, k: int) -> None:
        for _ in range(k):
            if not self.deck:
                break
            deck = self.deck
            self.hands[p].append(deck.pop() if self.chance is None else deck.pop(self.chance.draw(deck)))

    def _remove_from_hand(self, p: int, ids: list[int]) -> None:
        hand = self.hands[p]
        for c in ids:
            hand.remove(c)

    def _gain(self, p: int, amount: int, rule: str, ability: str | None) -> None:
        if self.supply is not None:
            amount = min(amount, self.supply)
            self.supply -= amount
        self.ct[p] = self.ct[p] + amount
        if not self._quiet:
            self._ev.append(_NEW(_EVENT, ("gain_ct", rule, p, None, ability, (), 0, amount, (), (), (),
                                        self.phase, 0, False, None)))
        self._check_win(p)

    def _check_win(self, p: int) -> None:
        if self.ct[p] >= self._rt.victory_ct:
            self.over = True
            self.winner = p
            self._ability = None
            if not self._quiet:
                self._ev.append(Event("win", "R8.1", p, amount=self.ct[p], phase=self.phase))

    # -- abilities (each effect resolves by its primitive's resolver, ``RESOLVERS``) -----
    def _activate(self, ability: Ability, cards: list[int], target: int) -> None:
        p = self.active
        self._remove_from_hand(p, cards)
        self._to_discard(cards)  # R3.3: paid before the effect
        if not self._quiet:
            self._ev.append(_NEW(_EVENT, ("activate", ability.rule, p, target if target >= 0 else None, ability.name,
                                        tuple(cards), len(cards), 0, (), (), (), self.phase, 0, False, None)))
        self._ability = ability
        self._eff = 0
        self._target = target
        self._run_effects()

    def _run_effects(self) -> None:
        ability = self._ability
        assert ability is not None
        effects = ability.effects
        while self._eff < len(effects):
            e = effects[self._eff]
            self._eff += 1
            if _RUN[e.code](self, ability, e.amount):
                return  # waiting on a decision
            if self.over:
                return
        self._ability = None
        self._ask_meld()

    def _ask_discard(self, who: int, amount: int, kind: DecisionKind) -> bool:
        """A discard an effect asks of ``who``; taken at once when there is no choice."""
        hand = self.hands[who]
        k = len(hand) if amount == ALL else amount
        self._decide(kind, who, k)
        if k >= len(hand):  # R9.1 / R5.4: the whole hand, no choice
            if hand:
                self._discard_cards(who, list(hand))
            return False
        return True

    def _ask_search(self, kind: DecisionKind, amount: int | None = None) -> bool:
        """Vision / Foundations: ask for a card, or take it when there is one choice (R9.1)."""
        if amount is not None:
            self._dcount = amount
        while self._dcount > 0:
            if kind == _VISION:
                if not self.deck:
                    self._refill()  # R5.2
                pile = self.deck
            else:
                pile = self.discard
            if not pile:
                self._dcount = 0
                break
            self._decide(kind, self.active, self._dcount)
            if len(pile) > 1:
                return True
            self._take_one(pile[0])
        if kind == _VISION:
            if self.chance is not None:
                self.chance.shuffle(self.deck)
            else:
                _shuffle(self._own_rng(), self.deck)
            if not self._quiet:
                self._ev.append(_NEW(_EVENT, ("shuffle", "R5.2", self.active, None,
                                            self._ability.name if self._ability else None, (), 0, 0, (), (), (),
                                            self.phase, 0, False, None)))
        return False

    def _take_one(self, cid: int) -> None:
        p = self.active
        ab = self._ability
        assert ab is not None
        if self._kind == _VISION:
            self.deck.remove(cid)
            self._knower[cid] = 0
            if not self._quiet:
                self._ev.append(_NEW(_EVENT, ("take", ab.rule, p, None, ab.name, (), 1, 0, (cid,), (p,), (),
                                            self.phase, 0, False, "deck")))
        else:
            self.discard.remove(cid)
            self._dsuits[SUIT_OF[cid]] -= 1
            self._knower[cid] = (1 << self.n) - 1  # the discard pile is public (R3.2)
            if not self._quiet:
                self._ev.append(_NEW(_EVENT, ("take", ab.rule, p, None, ab.name, (cid,), 1, 0, (), (), (),
                                            self.phase, 0, False, "discard")))
        self.hands[p].append(cid)
        self._dcount -= 1

    def _take(self, cid: int) -> None:
        kind = self._kind
        self._take_one(cid)
        if self._ask_search(kind):
            return
        self._run_effects()

    def _discard_cards(self, who: int, ids: list[int]) -> None:
        self._remove_from_hand(who, ids)
        self._to_discard(ids)
        if self._kind == _FALL:
            rule, name = "R4.4", None
        else:
            assert self._ability is not None
            rule, name = self._ability.rule, self._ability.name
        if not self._quiet:
            self._ev.append(_NEW(_EVENT, ("discard", rule, who, None, name, tuple(ids), len(ids), 0, (), (), (),
                                        self.phase, 0, False, None)))

    def _resolve_discard(self, ids: list[int]) -> None:
        self._selected = []
        if ids:
            self._discard_cards(self._dplayer, ids)
        if self._kind == _FALL:
            self._end_turn()
        else:
            self._run_effects()

    def _meld(self, ids: list[int]) -> None:
        p = self.active
        r = self.rules
        # R7.2: the 7 cards go to the discard pile, then the CT, then the draw; a meld
        # that wins (R8.1) has left the hand and draws nothing
        self._remove_from_hand(p, ids)
        self._to_discard(ids)
        if not self._quiet:
            self._ev.append(Event("meld", "R7.2", p, cards=tuple(ids), count=len(ids), amount=r.meld_ct, phase=self.phase))
        self._gain(p, r.meld_ct, "R7.2", None)
        if self.over:
            return
        self._draw(p, r.meld_draw, "R7.2")
        self._enter_fall()


def _shuffle(rng: random.Random, pile: list[int]) -> None:
    """Exactly ``rng.shuffle(pile)`` (the same permutation and random state after, so
    records replay), without a Python call per card: reshuffles are a hot path."""
    getrandbits = rng.getrandbits
    for i in range(len(pile) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        pile[i], pile[j] = pile[j], pile[i]


# -- the effect primitives' resolvers: (game, ability, amount) -> True when the game now
# waits on a decision. They run inside ``Game.apply`` for the active player (``g.active``) and the target the
# ability chose (``g._target``), and use the game's own card movements.

def _gain_ct(g: Resolution, ab: Ability, amount: int) -> bool:
    g._gain(g.active, amount, ab.rule, ab.name)
    return False


def _draw(g: Resolution, ab: Ability, amount: int) -> bool:
    g._draw(g.active, amount, ab.rule, ab.name)
    return False


def _discard(g: Resolution, ab: Ability, amount: int) -> bool:
    return g._ask_discard(g.active, amount, DecisionKind.for_discard("discard", ab.tier))


def _target_discards(g: Resolution, ab: Ability, amount: int) -> bool:
    return g._ask_discard(g._target, amount, DecisionKind.for_discard("target_discards", ab.tier))


def _steal_cards(g: Resolution, ab: Ability, amount: int) -> bool:
    p, t = g.active, g._target
    th = g.hands[t]
    k = min(amount, len(th))
    got = []
    rng = g._own_rng()
    knower = g._knower
    mask = 1 << t
    chance = g.chance
    for _ in range(k):
        i = int(rng.random() * len(th)) if chance is None else chance.pick(th)
        th[i], th[-1] = th[-1], th[i]
        c = th.pop()
        knower[c] = mask  # the victim knows where it went (R5.5)
        got.append(c)
    if k and g.n > 2:
        # the others saw only that cards left: none of them can still be sure of any
        # card of that hand
        keep = mask | (1 << p)
        for c in th:
            knower[c] &= keep
    g.hands[p].extend(got)
    if not g._quiet:
        g._ev.append(_NEW(_EVENT, ("steal_cards", ab.rule, p, t, ab.name, (), k, 0, tuple(got), (p, t), (),
                                 g.phase, 0, False, None)))
    return False


def _steal_ct(g: Resolution, ab: Ability, amount: int) -> bool:
    p, t = g.active, g._target
    k = min(amount, g.ct[t])
    g.ct[t] = g.ct[t] - k
    g.ct[p] = g.ct[p] + k  # R6.3: from the opponent, not the supply
    if not g._quiet:
        g._ev.append(_NEW(_EVENT, ("steal_ct", ab.rule, p, t, ab.name, (), 0, k, (), (), (), g.phase, 0, False, None)))
    g._check_win(p)
    return False


def _look_at_hand(g: Resolution, ab: Ability, amount: int) -> bool:
    p, t = g.active, g._target
    bit = 1 << p
    knower = g._knower
    for c in g.hands[t]:
        knower[c] |= bit
    if not g._quiet:
        g._ev.append(_NEW(_EVENT, ("look", ab.rule, p, t, ab.name, (), len(g.hands[t]), 0, tuple(g.hands[t]), (p,), (),
                                 g.phase, 0, False, None)))
    return False


def _extra_turn(g: Resolution, ab: Ability, amount: int) -> bool:
    g.extra_turn = True
    if not g._quiet:
        g._ev.append(_NEW(_EVENT, ("extra_turn", "R6.4", g.active, None, ab.name, (), 0, 0, (), (), (), g.phase, 0, False,
                                 None)))
    return False


def _search_deck(g: Resolution, ab: Ability, amount: int) -> bool:
    return g._ask_search(_VISION, amount)


def _search_discard(g: Resolution, ab: Ability, amount: int) -> bool:
    return g._ask_search(_FOUNDATIONS, amount)


#: resolves one effect in a game: (game, ability, amount) -> True when it now waits on a decision
Resolver = Callable[[Resolution, Ability, int], bool]

#: each effect primitive's resolver, by name (one for every primitive of :mod:`.effects`)
RESOLVERS: dict[str, Resolver] = {
    "gain_ct": _gain_ct,
    "draw": _draw,
    "discard": _discard,
    "steal_cards": _steal_cards,
    "steal_ct": _steal_ct,
    "target_discards": _target_discards,
    "search_deck": _search_deck,
    "search_discard": _search_discard,
    "look_at_hand": _look_at_hand,
    "extra_turn": _extra_turn,
}
#: the resolvers in the registry's order: an effect's ``code`` indexes it (the hot path)
_RUN: Final[tuple[Resolver, ...]] = tuple(RESOLVERS[name] for name in PRIMITIVES)
