"""The effect primitives abilities are composed of (R10), in one registry.

Each :class:`Primitive` says whether it takes an amount, whether it chooses an
opponent, how it reads in plain words, and how the engine resolves it (its
resolver, below the table's helpers). Rule-set validation, the engine and every
text (previews, rule-set docs) read this one table: adding a primitive touches
only this module (and its test).

>>> PRIMITIVES["steal_cards"].words(4, "bob")
'take 4 cards at random from bob'
>>> PRIMITIVES["gain_ct"].words(1)
'gain 1 CT'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from .resolution import Resolution
    from .rules import Ability

from .decisions import DecisionKind
from .events import Event

#: amount meaning "all of them" (``target_discards all``)
ALL: Final = -1
_VISION: Final = DecisionKind.VISION
_FOUNDATIONS: Final = DecisionKind.FOUNDATIONS

#: resolves one effect in a game: (game, ability, amount) -> True when it now waits on a decision
Resolver = Callable[["Resolution", "Ability", int], bool]


@dataclass(frozen=True, slots=True)
class Primitive:
    """One effect primitive: ``name amount`` in a rule-set file."""

    name: str
    takes_amount: bool
    targets: bool
    #: plain words, with ``{n}`` (the amount), ``{s}`` (plural ending), ``{t}`` (the opponent)
    text: str
    #: the words for the amount ``all`` (``None``: ``all`` is not allowed)
    all_text: str | None
    #: what it does, for rule-set documentation
    help: str
    #: applies it in a game (see the resolvers above the table)
    resolve: Resolver = field(repr=False, compare=False)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # one per name: a pickled primitive comes back as the registered one (a compiled
        # frozen dataclass has no pickle state to set)
        return primitive_of, (self.name,)

    def words(self, amount: int = 1, target: str = "an opponent") -> str:
        """The effect in plain words: ``draw 3``, ``take 1 CT from seat 1``."""
        if amount == ALL and self.all_text is not None:
            return self.all_text.format(t=target)
        return self.text.format(n=amount, s="" if amount == 1 else "s", t=target)


# -- resolvers: (game, ability, amount) -> True when the game now waits on a decision ------
# They run inside ``Game.apply`` for the active player (``g.active``) and the target the
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
        g._ev.append(Event("steal_cards", ab.rule, p, t, ab.name, count=k, secret=tuple(got), seen_by=(p, t),
                           phase=g.phase))
    return False


def _steal_ct(g: Resolution, ab: Ability, amount: int) -> bool:
    p, t = g.active, g._target
    k = min(amount, g.ct[t])
    g.ct[t] = g.ct[t] - k
    g.ct[p] = g.ct[p] + k  # R6.3: from the opponent, not the supply
    if not g._quiet:
        g._ev.append(Event("steal_ct", ab.rule, p, t, ab.name, amount=k, phase=g.phase))
    g._check_win(p)
    return False


def _look_at_hand(g: Resolution, ab: Ability, amount: int) -> bool:
    p, t = g.active, g._target
    bit = 1 << p
    knower = g._knower
    for c in g.hands[t]:
        knower[c] |= bit
    if not g._quiet:
        g._ev.append(Event("look", ab.rule, p, t, ab.name, count=len(g.hands[t]), secret=tuple(g.hands[t]),
                           seen_by=(p,), phase=g.phase))
    return False


def _extra_turn(g: Resolution, ab: Ability, amount: int) -> bool:
    g.extra_turn = True
    if not g._quiet:
        g._ev.append(Event("extra_turn", "R6.4", g.active, ability=ab.name, phase=g.phase))
    return False


def _search_deck(g: Resolution, ab: Ability, amount: int) -> bool:
    return g._ask_search(_VISION, amount)


def _search_discard(g: Resolution, ab: Ability, amount: int) -> bool:
    return g._ask_search(_FOUNDATIONS, amount)


PRIMITIVES: dict[str, Primitive] = {
    p.name: p
    for p in (
        Primitive("gain_ct", True, False, "gain {n} CT", None, "gain N CT from the supply", _gain_ct),
        Primitive("draw", True, False, "draw {n}", None, "draw N cards", _draw),
        Primitive("discard", True, False, "discard {n}", "discard your hand",
                  "discard N cards of your choice from your hand", _discard),
        Primitive("steal_cards", True, True, "take {n} card{s} at random from {t}", None,
                  "take N cards at random from the opponent's hand", _steal_cards),
        Primitive("steal_ct", True, True, "take {n} CT from {t}", None, "take N CT from the opponent", _steal_ct),
        Primitive("target_discards", True, True, "{t} discards {n}", "{t} discards its whole hand",
                  "the opponent discards N cards of its choice ('all': its hand)", _target_discards),
        Primitive("search_deck", True, False, "take {n} card{s} of your choice from the deck", None,
                  "take N cards of your choice from the deck, then shuffle it", _search_deck),
        Primitive("search_discard", True, False, "take {n} card{s} of your choice from the discard pile", None,
                  "take N cards of your choice from the discard pile", _search_discard),
        Primitive("look_at_hand", False, True, "see {t}'s hand", None, "look at the opponent's hand", _look_at_hand),
        Primitive("extra_turn", False, False, "take another turn after this one", None,
                  "take another whole turn after this one", _extra_turn),
    )
}

#: the registry in its older form: primitive -> (takes an amount, chooses an opponent, what it does)
EFFECT_OPS: dict[str, tuple[bool, bool, str]] = {
    p.name: (p.takes_amount, p.targets, p.help) for p in PRIMITIVES.values()
}


def primitive_of(name: str) -> Primitive:
    """The registered primitive called ``name``."""
    return PRIMITIVES[name]

