"""The effect primitives abilities are composed of (R10), in one registry.

Each :class:`Primitive` says whether it takes an amount, whether it chooses an
opponent, how it reads in plain words, and how the engine resolves it. Rule-set
validation, the engine and every text (previews, rule-set docs) read this one
table: adding a primitive touches only :data:`PRIMITIVES` (and its test).

>>> PRIMITIVES["steal_cards"].words(4, "bob")
'take 4 cards at random from bob'
>>> PRIMITIVES["gain_ct"].words(1)
'gain 1 CT'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .game import Game
    from .rules import Ability

#: amount meaning "all of them" (``target_discards all``)
ALL = -1

#: resolves one effect in a game: (game, ability, amount) -> True when it now waits on a decision
Resolver = Callable[["Game", "Ability", int], bool]


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
    resolve: Resolver = field(repr=False, compare=False, default=None)  # type: ignore[assignment]

    def words(self, amount: int = 1, target: str = "an opponent") -> str:
        """The effect in plain words: ``draw 3``, ``take 1 CT from seat 1``."""
        if amount == ALL and self.all_text is not None:
            return self.all_text.format(t=target)
        return self.text.format(n=amount, s="" if amount == 1 else "s", t=target)


PRIMITIVES: dict[str, Primitive] = {
    p.name: p
    for p in (
        Primitive("gain_ct", True, False, "gain {n} CT", None, "gain N CT from the supply"),
        Primitive("draw", True, False, "draw {n}", None, "draw N cards"),
        Primitive("discard", True, False, "discard {n}", "discard your hand",
                  "discard N cards of your choice from your hand"),
        Primitive("steal_cards", True, True, "take {n} card{s} at random from {t}", None,
                  "take N cards at random from the opponent's hand"),
        Primitive("steal_ct", True, True, "take {n} CT from {t}", None, "take N CT from the opponent"),
        Primitive("target_discards", True, True, "{t} discards {n}", "{t} discards its whole hand",
                  "the opponent discards N cards of its choice ('all': its hand)"),
        Primitive("search_deck", True, False, "take {n} card{s} of your choice from the deck", None,
                  "take N cards of your choice from the deck, then shuffle it"),
        Primitive("search_discard", True, False, "take {n} card{s} of your choice from the discard pile", None,
                  "take N cards of your choice from the discard pile"),
        Primitive("look_at_hand", False, True, "see {t}'s hand", None, "look at the opponent's hand"),
        Primitive("extra_turn", False, False, "take another turn after this one", None,
                  "take another whole turn after this one"),
    )
}

#: the registry in its older form: primitive -> (takes an amount, chooses an opponent, what it does)
EFFECT_OPS: dict[str, tuple[bool, bool, str]] = {
    p.name: (p.takes_amount, p.targets, p.help) for p in PRIMITIVES.values()
}
