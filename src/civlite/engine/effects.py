"""The effect primitives abilities are composed of (R10), in one registry.

Each :class:`Primitive` says whether it takes an amount, whether it chooses an
opponent and how it reads in plain words. Rule-set validation and every text
(previews, rule-set docs) read this one table; how each primitive changes a game is
its resolver in :mod:`.resolution` (``RESOLVERS``, in the same order). Adding a
primitive touches this table, that one, and their test.

>>> PRIMITIVES["steal_cards"].words(4, "bob")
'take 4 cards at random from bob'
>>> PRIMITIVES["gain_ct"].words(1)
'gain 1 CT'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

#: amount meaning "all of them" (``target_discards all``)
ALL: Final = -1


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

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # one per name: a pickled primitive comes back as the registered one (a compiled
        # frozen dataclass has no pickle state to set)
        return primitive_of, (self.name,)

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


def primitive_of(name: str) -> Primitive:
    """The registered primitive called ``name``."""
    return PRIMITIVES[name]

