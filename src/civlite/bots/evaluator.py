"""The heuristic's values, in CT-equivalents, for one rule set and player count: a hand
(the meld it works toward and the abilities its spare cards pay for), each ability in the
current position, the danger of each opponent, and the choices they lead to.

Abilities are valued from their effect primitives (:data:`KNOWN_EFFECTS`), so a designer's
rule set is valued too. A primitive the heuristic has no value for is refused when the
evaluator is made (:class:`UnknownEffectError`), never valued as 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import islice
from typing import Any

from ..engine import (
    ADVANCED_BASE,
    BASIC_BASE,
    DISCARD_BASE,
    MELD_BASE,
    PASS_ID,
    TAKE_BASE,
    RuleSet,
)
from .situation import Situation

ALL = -1  # an effect amount meaning "all" (civlite.engine.rules.ALL)

CARD_VALUE = 0.45  # a typical card, in CT
MELD_DECAY = 0.6  # value kept per suit still missing from the meld
USE_DISCOUNT = 0.6  # one ability a turn: each later use of spare cards is worth less
EXTRA_TURN_VALUE = 1.6
WIN_VALUE = 1000.0

#: the effect primitives the heuristic values (``civlite.engine.PRIMITIVES`` names them all)
KNOWN_EFFECTS = frozenset({"gain_ct", "draw", "discard", "steal_cards", "steal_ct", "target_discards",
                           "search_deck", "search_discard", "look_at_hand", "extra_turn"})


class UnknownEffectError(NotImplementedError):
    """A rule set uses an effect primitive the heuristic has no value for."""

    def __init__(self, op: str, ability: str | None = None) -> None:
        where = f" (in {ability})" if ability else ""
        super().__init__(f"the heuristic bot has no value for the effect primitive {op!r}{where}; "
                         "add it to civlite.bots.evaluator (effect_value, KNOWN_EFFECTS and the action "
                         "chooser) before a bot plays this rule set")
        self.op = op


def effect_value(op: str, amount: int, n: int) -> float:
    """Average value of one effect primitive, for cards still in hand; raises
    :class:`UnknownEffectError` for a primitive the heuristic has no value for."""
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
    raise UnknownEffectError(op)


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
        for ability in rules.abilities:  # no silent 0 for a primitive the heuristic does not know
            for e in ability.effects:
                if e.op not in KNOWN_EFFECTS:
                    raise UnknownEffectError(e.op, ability.name)
        for s in range(8):
            b = rules.basic[s]
            if b is not None:
                self.basic_val[s] = max(0.0, sum(effect_value(e.op, e.amount, n) for e in b.effects))
                self.basic_cost[s] = b.cards
            a = rules.advanced[s]
            if a is not None:
                self.adv_val[s] = max(0.0, sum(effect_value(e.op, e.amount, n) for e in a.effects))
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
                else:  # (refused when the evaluator was made: never a silent 0)
                    raise UnknownEffectError(op)
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
