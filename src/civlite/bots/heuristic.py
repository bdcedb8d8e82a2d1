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

The values live in :mod:`.evaluator` (:class:`Evaluator`), the picture of a decision
in suit counts in :mod:`.situation`. The same evaluator drives the ISMCTS rollouts on
imagined worlds (:func:`policy_on_game`), where building a :class:`View` per step
would cost more than the step itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import DISCARD_BASE, Game, RuleSet, View
from . import Bot, register
from .evaluator import (
    ALL,
    CARD_VALUE,
    EXTRA_TURN_VALUE,
    KNOWN_EFFECTS,
    MELD_DECAY,
    USE_DISCOUNT,
    WIN_VALUE,
    Evaluator,
    UnknownEffectError,
    _make_room,
    effect_value,
)
from .situation import DECK_SUITS, SUIT, Situation, situation_from_game, situation_from_view, suit_counts

__all__ = [
    "ALL", "CARD_VALUE", "DECK_SUITS", "EXTRA_TURN_VALUE", "KNOWN_EFFECTS", "MELD_DECAY", "SUIT", "USE_DISCOUNT",
    "WIN_VALUE", "Evaluator", "HeuristicBot", "Situation", "UnknownEffectError", "_make_room", "clear_caches",
    "discard_on_game", "effect_value", "evaluator", "policy_on_game", "situation_from_game", "situation_from_view",
    "suit_counts",
]


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
