"""Abilities as data (R5, R6, R10): each is a list of effect primitives
(:mod:`.effects`), written in a rule-set file as short strings (``"steal_cards 3"``,
``"gain_ct 2"``, ``"target_discards all"``); and the default ability tables.

>>> Effect.parse("steal_cards 3", "advanced.M").words("bob")
'take 3 cards at random from bob'
>>> [a.name for a in DEFAULT_ABILITIES if a.suit == Suit.WONDER]
['Greatness', 'Golden Age']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .cards import Suit
from .effects import ALL, EFFECT_OPS, PRIMITIVES

__all__ = ["DEFAULT_ABILITIES", "Ability", "Effect", "RuleSetError", "Tier"]

Tier = Literal["basic", "advanced"]


_CODE: dict[str, int] = {name: i for i, name in enumerate(PRIMITIVES)}


class RuleSetError(ValueError):
    """A rule-set file or value that is not valid; the message names the key."""


@dataclass(frozen=True, slots=True)
class Effect:
    """One primitive step of an ability: ``Effect("steal_cards", 4)``."""

    op: str
    amount: int = 1
    #: the primitive's place in the registry, looked up once: the engine resolves an effect
    #: by it (``resolution.RESOLVERS``, in the registry's order)
    code: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        code = _CODE.get(self.op)
        if code is None:
            raise RuleSetError(f"unknown effect {self.op!r}; the primitives are: {', '.join(PRIMITIVES)}")
        object.__setattr__(self, "code", code)

    def __str__(self) -> str:
        if not PRIMITIVES[self.op].takes_amount:
            return self.op
        return f"{self.op} {'all' if self.amount == ALL else self.amount}"

    @property
    def targets(self) -> bool:
        return PRIMITIVES[self.op].targets

    def words(self, target: str = "an opponent") -> str:
        """The effect in plain words: ``take 4 cards at random from seat 1``."""
        return PRIMITIVES[self.op].words(self.amount, target)

    @classmethod
    def parse(cls, text: Any, where: str) -> Effect:
        if isinstance(text, dict):
            unknown = set(text) - {"op", "amount"}
            if unknown:
                raise RuleSetError(f"{where}: unknown key(s) {sorted(unknown)} in an effect table")
            op, amount = text.get("op"), text.get("amount")
        elif isinstance(text, str):
            parts = text.split()
            if not parts or len(parts) > 2:
                raise RuleSetError(f"{where}: effect {text!r} is not 'op' or 'op amount'")
            op = parts[0]
            amount = parts[1] if len(parts) == 2 else None
        else:
            raise RuleSetError(f"{where}: an effect is a string like 'draw 3', got {text!r}")
        if op not in PRIMITIVES:
            raise RuleSetError(
                f"{where}: unknown effect {op!r}; the primitives are: {', '.join(PRIMITIVES)}"
            )
        prim = PRIMITIVES[op]
        if amount is None:
            if prim.takes_amount:
                raise RuleSetError(f"{where}: effect {op!r} needs an amount, e.g. '{op} 1'")
            amount = 1
        if amount == "all":
            if prim.all_text is None:
                raise RuleSetError(f"{where}: only discard effects take 'all', not {op!r}")
            amount = ALL
        elif isinstance(amount, str):
            try:
                amount = int(amount)
            except ValueError:
                raise RuleSetError(f"{where}: amount of {op!r} must be a whole number, got {amount!r}") from None
        if not isinstance(amount, int) or isinstance(amount, bool) or (amount < 1 and amount != ALL):
            raise RuleSetError(f"{where}: amount of {op!r} must be a whole number >= 1, got {amount!r}")
        if not prim.takes_amount and amount != 1:
            raise RuleSetError(f"{where}: effect {op!r} takes no amount")
        return cls(op, amount)


@dataclass(frozen=True, slots=True)
class Ability:
    """A basic or advanced ability of one suit: pay ``cards`` cards of ``suit``, apply ``effects``."""

    name: str
    suit: Suit
    tier: Tier
    cards: int
    effects: tuple[Effect, ...]
    rule: str = ""
    #: whether the acting player chooses an opponent (R5.1); derived from the effects
    targets: bool = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "targets", any(e.targets for e in self.effects))

    @property
    def key(self) -> str:
        """Lower-case identifier: ``"pass_the_torch"`` (never a decision's name)."""
        return "_".join(self.name.lower().replace("-", " ").split())

    @property
    def text(self) -> str:
        """What it does, in the rule-set documentation's words (``words()`` is shorter)."""
        return ", ".join(EFFECT_OPS[e.op][2].replace("N", "all" if e.amount == ALL else str(e.amount)) for e in self.effects)

    def words(self, target: str = "an opponent") -> str:
        """What it does, naming the opponent: ``take 1 card at random from bob``."""
        return ", ".join(e.words(target) for e in self.effects)

    def __str__(self) -> str:
        return self.name


def _ab(name: str, suit: Suit, tier: Tier, cards: int, *effects: str) -> Ability:
    rule = "R5" if tier == "basic" else "R6"
    return Ability(name, suit, tier, cards, tuple(Effect.parse(e, name) for e in effects), rule)


S = Suit
DEFAULT_ABILITIES: tuple[Ability, ...] = (
    _ab("Contact", S.CIVILIZATION, "basic", 1, "look_at_hand"),
    _ab("Vision", S.LEADER, "basic", 1, "search_deck 1"),
    _ab("Greatness", S.WONDER, "basic", 1, "gain_ct 1"),
    _ab("Culture", S.ADVANCE, "basic", 1, "draw 5", "discard 3"),
    _ab("Raid", S.MILITARY, "basic", 1, "steal_cards 1"),
    _ab("Foundations", S.BUILDING, "basic", 1, "search_discard 1"),
    _ab("Setback", S.DISASTER, "basic", 1, "target_discards 2"),
    _ab("Growth", S.BOON, "basic", 1, "draw 3"),
    _ab("Remake", S.CIVILIZATION, "advanced", 2, "steal_ct 1"),
    _ab("Pass the Torch", S.LEADER, "advanced", 2, "gain_ct 2"),
    _ab("Golden Age", S.WONDER, "advanced", 3, "gain_ct 3", "draw 2"),
    _ab("Wisdom", S.ADVANCE, "advanced", 2, "gain_ct 1", "draw 3", "discard 1"),
    _ab("Conquest", S.MILITARY, "advanced", 3, "steal_cards 4"),
    _ab("City Builder", S.BUILDING, "advanced", 3, "gain_ct 2", "extra_turn"),
    _ab("Wiped Out", S.DISASTER, "advanced", 3, "target_discards all"),
    _ab("Population Explosion", S.BOON, "advanced", 2, "draw 5"),
)
