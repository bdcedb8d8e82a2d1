"""The ``heuristic`` bot: plays like a sensible human, from a seat's view only.

Everything is reasoned on *suit counts* (cards of one suit are interchangeable,
R1.2), in CT-equivalents:

* :meth:`Evaluator.hand_value` values a hand: the meld it works toward (worth
  its CT, discounted by how many suits are still missing) plus the abilities its
  spare cards can pay for (each ability valued from its effect primitives, so a
  designer's rule set is valued too). It is memoised on the count vector.
* An ability is valued *in the current position*: CT gained (a win is worth
  everything), cards drawn or stolen (at the expected marginal value of an unseen
  card for this hand, less when the hand limit will cut them at Fall), denial
  (cards or CT taken from an opponent, weighted by how dangerous that opponent is:
  CT, cards, closeness to victory), minus the value the paid cards had in hand.
* Targets: every legal target is valued, so the most dangerous opponent with the
  most to lose is chosen.
* Discards (Fall, Culture, Wisdom, Setback) remove, one by one, the card whose
  loss lowers the hand value least; searches (Vision, Foundations) take the suit
  with the highest marginal value; a legal meld is always played, keeping the
  most useful spare card.

The same :class:`Evaluator` drives the ISMCTS rollouts on imagined worlds
(:func:`policy_on_game`), where building a :class:`View` per step would cost
more than the step itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import islice
from typing import Any

from ..engine import (
    ADVANCED_BASE,
    BASIC_BASE,
    CARDS,
    DISCARD_BASE,
    MELD_BASE,
    PASS_ID,
    SUIT_OF,
    TAKE_BASE,
    Game,
    RuleSet,
    View,
)
from . import Bot, register

SUIT = SUIT_OF  # suit index of each card id
#: cards per suit in the 112-card deck of R1.1 (a rule set's own deck: ``RuleSet.suit_sizes``)
DECK_SUITS: tuple[int, ...] = tuple(sum(1 for c in CARDS if int(c.suit) == s) for s in range(8))

ALL = -1  # an effect amount meaning "all" (civlite.engine.rules.ALL)

CARD_VALUE = 0.45  # a typical card, in CT
MELD_DECAY = 0.6  # value kept per suit still missing from the meld
USE_DISCOUNT = 0.6  # one ability a turn: each later use of spare cards is worth less
EXTRA_TURN_VALUE = 1.6
WIN_VALUE = 1000.0


def _static_effect_value(op: str, amount: int, n: int) -> float:
    """Average value of one effect primitive, for cards still in hand."""
    denial = 1.0 / max(1, n - 1)
    a = 6 if amount == ALL else amount
    if op == "gain_ct":
        return float(a)
    if op == "draw":
        return a * CARD_VALUE * 0.8
    if op == "discard":
        return -a * CARD_VALUE * 0.3
    if op == "steal_cards":
        return min(a, 5) * CARD_VALUE * (1.0 + denial)
    if op == "steal_ct":
        return a * 0.7 * (1.0 + denial)
    if op == "target_discards":
        return min(a, 6) * CARD_VALUE * 0.7 * denial
    if op == "search_deck":
        return a * CARD_VALUE * 2.0
    if op == "search_discard":
        return a * CARD_VALUE * 1.5
    if op == "look_at_hand":
        return 0.05
    if op == "extra_turn":
        return EXTRA_TURN_VALUE
    return 0.0


def _make_room(memo: dict[Any, Any], cap: int) -> None:
    """Keep a memo under ``cap`` entries by forgetting its older half (dicts keep insertion
    order), so a long run keeps the values it is using instead of starting cold again."""
    if len(memo) >= cap:
        for key in list(islice(memo, cap // 2)):
            del memo[key]


class Evaluator:
    """Hand values and ability values for one rule set and player count (memoised)."""

    def __init__(self, rules: RuleSet, n: int) -> None:
        self.rules = rules
        self.n = n
        self.victory = rules.victory_ct
        self.limit = rules.hand_limit
        self.meld_suits = tuple(int(s) for s in rules.meld_suits)
        self.meld_one_of = tuple(int(s) for s in rules.meld_one_of)
        self.meld_value = rules.meld_ct + 0.25 * rules.meld_draw
        self.basic_val = [0.0] * 8
        self.adv_val = [0.0] * 8
        self.adv_cost = [0] * 8
        self.basic_cost = [1] * 8
        self.basic = rules.basic
        self.advanced = rules.advanced
        for s in range(8):
            b = rules.basic[s]
            if b is not None:
                self.basic_val[s] = max(0.0, sum(_static_effect_value(e.op, e.amount, n) for e in b.effects))
                self.basic_cost[s] = b.cards
            a = rules.advanced[s]
            if a is not None:
                self.adv_val[s] = max(0.0, sum(_static_effect_value(e.op, e.amount, n) for e in a.effects))
                self.adv_cost[s] = a.cards
        # value of k spare cards of a suit, k = 0..max
        self.spare = [self._spare_table(s) for s in range(8)]
        self._hv: dict[tuple[int, ...], float] = {}
        self._mv: dict[tuple[int, ...], list[float]] = {}
        self._loss: dict[tuple[int, ...], list[float]] = {}
        self._fall: dict[tuple[int, ...], float] = {}
        self._weights: dict[tuple[int, ...], list[float]] = {}
        # compact ability id -> (suit, seat offset of the target, cards paid, effects as (op, amount))
        self._ids: dict[int, tuple[int, int, int, tuple[tuple[str, int], ...]]] = {}
        for aid in range(BASIC_BASE, TAKE_BASE):
            adv = aid >= ADVANCED_BASE
            suit, off = divmod(aid - (ADVANCED_BASE if adv else BASIC_BASE), 8)
            ab = (rules.advanced if adv else rules.basic)[suit]
            if ab is not None:
                self._ids[aid] = (suit, off, ab.cards, tuple((e.op, e.amount) for e in ab.effects))

    def _spare_table(self, s: int) -> list[float]:
        kmax = 40
        bv, bc = self.basic_val[s], self.basic_cost[s]
        av, ac = self.adv_val[s], self.adv_cost[s]
        memo: dict[tuple[int, int], float] = {}

        def f(k: int, d: int) -> float:
            if d >= 4 or k <= 0:
                return 0.0
            key = (k, d)
            if key in memo:
                return memo[key]
            g = USE_DISCOUNT ** d
            best = 0.0
            if bv > 0 and k >= bc:
                best = max(best, bv * g + f(k - bc, d + 1))
            if av > 0 and ac and k >= ac:
                best = max(best, av * g + f(k - ac, d + 1))
            memo[key] = best
            return best

        out = []
        for k in range(kmax + 1):
            v = f(k, 0)
            if av > 0 and ac and k < ac:
                v += 0.25 * av * USE_DISCOUNT * k / ac  # progress toward the advanced ability
            out.append(v + 0.02 * k)  # any card keeps a little value
        for k in range(1, kmax + 1):  # keep it monotone
            out[k] = max(out[k], out[k - 1])
        return out

    # -- hand values ------------------------------------------------------------
    def hand_value(self, counts: Sequence[int]) -> float:
        key = tuple(counts)
        v = self._hv.get(key)
        if v is None:
            v = self._hand_value(key)
            _make_room(self._hv, 200_000)
            self._hv[key] = v
        return v

    def _spare_sum(self, counts: Sequence[int]) -> float:
        sp = self.spare
        total = 0.0
        s = 0
        for c in counts:
            if c > 0:
                total += sp[s][c if c < 40 else 40]
            s += 1
        return total

    def _hand_value(self, counts: tuple[int, ...]) -> float:
        plain = self._spare_sum(counts)
        if not self.meld_suits and not self.meld_one_of:
            return plain
        c = list(counts)
        missing = 0
        for s in self.meld_suits:
            if c[s]:
                c[s] -= 1
            else:
                missing += 1
        if self.meld_one_of:
            best = -1
            for s in self.meld_one_of:
                if c[s] and (best < 0 or c[s] > c[best]):
                    best = s
            if best < 0:
                missing += 1
            else:
                c[best] -= 1
        meld = self.meld_value * MELD_DECAY ** missing + self._spare_sum(c)
        return max(meld, plain)

    def marginal(self, counts: Sequence[int]) -> list[float]:
        """Value added by one more card of each suit."""
        key = tuple(counts)
        mv = self._mv.get(key)
        if mv is None:
            base = self.hand_value(key)
            c = list(key)
            mv = []
            for s in range(8):
                c[s] += 1
                mv.append(self.hand_value(c) - base)
                c[s] -= 1
            _make_room(self._mv, 100_000)
            self._mv[key] = mv
        return mv

    def loss(self, counts: Sequence[int]) -> list[float]:
        """Value lost by discarding one card of each suit (inf where there is none)."""
        key = tuple(counts)
        out = self._loss.get(key)
        if out is not None:
            return out
        base = self.hand_value(key)
        c = list(key)
        out = []
        for s in range(8):
            if c[s]:
                c[s] -= 1
                out.append(base - self.hand_value(c))
                c[s] += 1
            else:
                out.append(math.inf)
        _make_room(self._loss, 100_000)
        self._loss[key] = out
        return out

    def discard_plan(self, counts: Sequence[int], k: int, low: int = 0) -> list[int]:
        """The suits of the ``k`` cards to discard (non-decreasing), least needed first."""
        c = list(counts)
        chosen: list[int] = []
        for _ in range(k):
            lo = self.loss(c)
            best = -1
            for s in range(low, 8):
                if c[s] and (best < 0 or lo[s] < lo[best] - 1e-12):
                    best = s
            if best < 0:
                break
            c[best] -= 1
            chosen.append(best)
        chosen.sort()
        return chosen

    def value_at_fall(self, counts: Sequence[int]) -> float:
        """Hand value once the Fall discard has cut the hand to the limit."""
        total = sum(counts)
        if total <= self.limit:
            return self.hand_value(counts)
        key = tuple(counts)
        v = self._fall.get(key)
        if v is None:
            c = list(key)
            for s in self.discard_plan(c, total - self.limit):
                c[s] -= 1
            v = self.hand_value(c)
            _make_room(self._fall, 100_000)
            self._fall[key] = v
        return v

    def expected_card(self, counts: Sequence[int], unseen: Sequence[int]) -> float:
        """Expected hand-value gain of one card drawn from the unseen ones."""
        mv = self.marginal(counts)
        tot = sum(unseen)
        return CARD_VALUE if tot <= 0 else sum(mv[s] * unseen[s] for s in range(8) if unseen[s]) / tot

    # -- danger of opponents ----------------------------------------------------
    def weights(self, me: int, cts: Sequence[int], sizes: Sequence[int]) -> list[float]:
        """How much hurting each seat helps ``me`` (0 for itself)."""
        n = self.n
        w = [0.0] * n
        if n == 2:
            w[1 - me] = 1.0
            return w
        key = (me, *cts, *sizes)
        memo = self._weights.get(key)
        if memo is not None:
            return memo
        danger = [cts[p] + 0.3 * sizes[p] for p in range(n)]
        top = max(danger[p] for p in range(n) if p != me)
        base = 1.0 / (n - 1)
        for p in range(n):
            if p == me:
                continue
            x = base * (1.0 + 1.5 * math.exp(-(top - danger[p]) / 2.0))
            if cts[p] >= self.victory - self.rules.meld_ct - 2:
                x *= 1.5
            w[p] = min(1.2, x)
        _make_room(self._weights, 100_000)
        self._weights[key] = w  # shared: callers only read it
        return w

    # -- choosing ---------------------------------------------------------------
    def choose(self, s: Situation, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        kind = s.kind
        first = legal[0]
        if kind == "action":
            return self._choose_action(s, legal)
        if kind == "meld":
            return self._choose_meld(s, legal)
        if TAKE_BASE <= first < MELD_BASE:
            mv = self.marginal(s.counts)
            return max(legal, key=lambda a: mv[a - TAKE_BASE])
        if DISCARD_BASE <= first < DISCARD_BASE + 8:
            return self._choose_discard(s, legal)
        return first

    def _choose_discard(self, s: Situation, legal: Sequence[int]) -> int:
        low = legal[0] - DISCARD_BASE
        plan = self.discard_plan(s.counts, s.need, low)
        if plan:
            aid = DISCARD_BASE + plan[0]
            if aid in legal:
                return aid
        lo = self.loss(s.counts)
        return min(legal, key=lambda a: lo[a - DISCARD_BASE])

    def _choose_meld(self, s: Situation, legal: Sequence[int]) -> int:
        best, best_v = PASS_ID, -math.inf
        for a in legal:
            if a == PASS_ID:
                continue
            c = list(s.counts)
            for x in self.meld_suits:
                c[x] -= 1
            c[a - MELD_BASE] -= 1
            v = self.hand_value(c)
            if v > best_v:
                best, best_v = a, v
        return best

    def _choose_action(self, s: Situation, legal: Sequence[int]) -> int:
        """The legal ability (or pass) that leaves the best position, in CT.

        Each ability is valued after paying and resolving (before Fall): the hand left,
        CT gained (a win is worth everything), cards coming in at the expected value of
        an unseen card (less when the hand limit will cut them at Fall), denial of the
        target weighted by its danger; less the value of the hand now. The targets of
        one ability (consecutive ids) share the value of the hand it leaves. One loop, no
        call per ability: this runs at every decision of every ISMCTS rollout.
        """
        counts = s.counts
        now = self.value_at_fall(counts)
        w = self.weights(s.seat, s.cts, s.sizes)
        e_card = self.expected_card(counts, s.unseen)
        best, best_v = PASS_ID, 0.0
        c = list(counts)
        held = sum(counts)
        ids = self._ids
        seat, n = s.seat, self.n
        sizes, cts = s.sizes, s.cts
        ct = cts[seat]
        victory, limit = self.victory, self.limit
        group = -1
        after: tuple[int, ...] = ()
        hv = vf = -1.0
        win = WIN_VALUE - now
        for aid in legal:
            meta = ids.get(aid)
            if meta is None:  # pass (or an ability this rule set lacks)
                continue
            suit, off, paid, effects = meta
            if aid - off != group:
                group = aid - off
                c[suit] -= paid
                after = tuple(c)
                c[suit] += paid
                hv = vf = -1.0  # the hand value of ``after`` and its value at Fall, when first needed
            target = (seat + off) % n if off else -1
            hand = held - paid
            gain = 0.0
            cards_in = 0.0  # expected hand-value gain from cards coming in
            n_in = 0
            denial = 0.0
            v = win  # unless the effects run out without winning (the loop's else)
            for op, a in effects:
                # (most frequent first: the branches exclude each other)
                if op == "steal_cards":
                    k = min(a, sizes[target])
                    n_in += k
                    cards_in += k * e_card
                    denial += w[target] * k * CARD_VALUE
                elif op == "look_at_hand":
                    denial += 0.03 * sizes[target] * (1 if target >= 0 else 0)
                elif op == "gain_ct":
                    gain += a
                    if ct + gain >= victory:
                        break
                elif op == "draw":
                    n_in += a
                    cards_in += a * e_card
                elif op == "target_discards":
                    th = sizes[target]
                    k = th if a == ALL else min(a, th)
                    denial += w[target] * k * CARD_VALUE * (1.0 if a == ALL else 0.6)
                elif op == "search_deck":
                    mv = self.marginal(after)
                    avail = [mv[x] for x in range(8) if s.unseen[x] > 0]
                    cards_in += a * (max(avail) if avail else 0.0)
                    n_in += a
                elif op == "discard":
                    k = (hand + n_in) if a == ALL else a
                    cards_in -= k * 0.3 * max(0.0, e_card)
                    n_in -= k
                elif op == "search_discard":
                    mv = self.marginal(after)
                    pile = list(s.discard)
                    pile[suit] += paid
                    avail = [mv[x] for x in range(8) if pile[x] > 0]
                    cards_in += a * (max(avail) if avail else 0.0)
                    n_in += a
                elif op == "steal_ct":
                    k = min(a, cts[target])
                    gain += k
                    if ct + gain >= victory:
                        break
                    denial += w[target] * k
                    if cts[target] >= victory - 6:
                        denial += w[target] * k * 0.5
                elif op == "extra_turn":
                    gain += EXTRA_TURN_VALUE * 0.6
                    cards_in += 2 * e_card
            else:  # no win: the position it leaves
                total = hand + n_in
                if cards_in > 0 and total > limit:
                    fit = max(0, limit - hand)
                    frac = (fit + 0.35 * max(0, n_in - fit)) / max(1, n_in)
                    cards_in *= frac
                if total > limit and hand > limit:
                    if vf < 0.0:
                        vf = self.value_at_fall(after)
                    base = vf
                else:
                    if hv < 0.0:
                        hv = self.hand_value(after)
                    base = hv
                if gain:
                    near = (ct + gain) - (victory - 8)
                    near = 1.0 + near * 0.1 if near > 0.0 else 1.0
                    v = base + cards_in + gain * near + denial - now
                else:  # (0.0 * near adds nothing)
                    v = base + cards_in + denial - now
            if v > best_v + 1e-9:
                best, best_v = aid, v
        return best


class Situation:
    """What the heuristic needs to know, as suit counts (built from a view or a game)."""

    __slots__ = ("counts", "cts", "discard", "kind", "need", "seat", "sizes", "unseen")

    def __init__(self, seat: int, kind: str, counts: list[int], cts: Sequence[int], sizes: Sequence[int],
                 discard: list[int], unseen: list[int], need: int = 0) -> None:
        self.seat = seat
        self.kind = kind
        self.counts = counts
        self.cts = cts
        self.sizes = sizes
        self.discard = discard
        self.unseen = unseen
        self.need = need


def situation_from_view(view: View) -> Situation:
    """The heuristic's picture of a seat's view (hand less the cards already selected)."""
    assert view.seat is not None and view.pending is not None
    n = view.num_players
    counts = [0] * 8
    for card in view.hand:
        counts[SUIT[card.id]] += 1
    for card in view.selecting:
        counts[SUIT[card.id]] -= 1
    cts = [0] * n
    sizes = [0] * n
    cts[view.seat] = view.ct or 0
    sizes[view.seat] = len(view.hand)
    if view.universe is None:  # the 112 cards of R1.1
        unseen = list(DECK_SUITS)
    else:
        unseen = [0] * 8
        for card in view.universe:
            unseen[SUIT[card.id]] += 1
    for card in view.hand:
        unseen[SUIT[card.id]] -= 1
    for p in view.players:
        cts[p.seat] = p.ct
        sizes[p.seat] = p.hand_size
        for card in p.known:
            unseen[SUIT[card.id]] -= 1
    discard = [0] * 8
    for card in view.discard:
        discard[SUIT[card.id]] += 1
    for s in range(8):
        unseen[s] -= discard[s]
    if view.searching is not None:  # the deck's content while searching it
        counts_pile = [0] * 8
        for card in view.searching:
            counts_pile[SUIT[card.id]] += 1
        unseen = counts_pile
    pend = view.pending
    need = pend.count - len(view.selecting)
    return Situation(view.seat, pend.kind, counts, cts, sizes, discard, unseen, need)


def situation_from_game(game: Game, seat: int, kind: str) -> Situation:
    """The heuristic's picture of an (imagined) game, for rollouts: no View is built.

    Unseen suit counts are approximated as the deck's composition less the seat's
    hand and the discard pile (counted only for action decisions, where Foundations
    needs them); a discard in progress is not subtracted.
    """
    counts = [0] * 8
    for c in game.hands[seat]:
        counts[SUIT[c]] += 1
    discard = [0] * 8
    if kind == "action":
        for c in game.discard:
            discard[SUIT[c]] += 1
    deck = game.rules.suit_sizes
    unseen = [deck[s] - counts[s] - discard[s] for s in range(8)]
    sizes = [len(h) for h in game.hands]
    return Situation(seat, kind, counts, game.ct, sizes, discard, unseen, game.pending_count)


def suit_counts(cards: Sequence[int]) -> list[int]:
    counts = [0] * 8
    for c in cards:
        counts[SUIT[c]] += 1
    return counts


_EVALUATORS: dict[tuple[RuleSet, int], Evaluator] = {}


def clear_caches() -> None:
    """Forget every memoised evaluator (and so its caches): the next search starts cold."""
    _EVALUATORS.clear()


def evaluator(rules: RuleSet, n: int) -> Evaluator:
    """The shared, memoised evaluator of a rule set and player count."""
    key = (rules, n)
    ev = _EVALUATORS.get(key)
    if ev is None:
        if len(_EVALUATORS) > 64:
            _EVALUATORS.clear()
        ev = _EVALUATORS[key] = Evaluator(rules, n)
    return ev


def policy_on_game(game: Game, legal: Sequence[int], ev: Evaluator | None = None) -> int:
    """The heuristic's choice on an imagined game (ISMCTS rollouts only)."""
    if len(legal) == 1:
        return legal[0]
    p = game.to_move
    assert p is not None
    ev = ev or evaluator(game.rules, game.n)
    if legal[0] >= DISCARD_BASE:  # mid-discard: the selected cards are still in hand
        return _least_loss(legal, ev.loss(suit_counts(game.hands[p])))
    kind = game.pending_kind
    assert kind is not None
    return ev.choose(situation_from_game(game, p, kind), legal)


def discard_on_game(game: Game, legal: Sequence[int], ev: Evaluator, limit: int = 0) -> int:
    """Take the steps of the pending discard decision (``legal``: the first step's ids) as
    :func:`policy_on_game` would, one step at a time, at most ``limit`` of them (0: all);
    return the number taken. The chosen cards stay in hand until the last step, so one
    loss table serves every step."""
    p = game.to_move
    assert p is not None
    lo = ev.loss(suit_counts(game.hands[p]))
    steps = game.discard_steps_left
    if limit:
        steps = min(steps, limit)
    for i in range(steps):
        game.apply_id(_least_loss(game.legal_ids() if i else legal, lo), check=False)
    return steps


def _least_loss(legal: Sequence[int], lo: Sequence[float]) -> int:
    """The discard step (first of equals) that loses the least hand value."""
    best = legal[0]
    for a in legal:
        if lo[a - DISCARD_BASE] < lo[best - DISCARD_BASE]:
            best = a
    return best


class HeuristicBot(Bot):
    """Works toward a meld, values abilities by effect, hits the most dangerous opponent."""

    name = "heuristic"

    def __init__(self, seed: int | None = None, mistakes: float = 0.0) -> None:
        super().__init__(seed)
        if not 0.0 <= mistakes <= 1.0:
            raise ValueError(f"mistakes must be a probability from 0 to 1, got {mistakes:g}")
        #: the chance of a uniformly random legal move instead of the heuristic's (a weaker
        #: player: the ``easy`` level)
        self.mistakes = float(mistakes)

    @property
    def spec(self) -> str:
        return self.name + (f":mistakes={self.mistakes:g}" if self.mistakes else "")

    def act(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if self.mistakes and self.rng.random() < self.mistakes:
            return legal[int(self.rng.random() * len(legal))]
        ev = evaluator(view.rules, view.num_players)
        return ev.choose(situation_from_view(view), legal)


register("heuristic", HeuristicBot)
