"""Hints: the best option now, from the deciding seat's view, with a one-line reason.

>>> from civlite.engine import Game
>>> g = Game.from_position({"active": 0, "phase": "action", "deck": ["Greeks", "Caesar", "Celts"],
...     "players": [{"hand": ["Sphinx", "Colossus", "Pantheon"], "ct": 14}, {"hand": ["Moses"], "ct": 0}]})
>>> h = hint(g.view(0), budget=60)
>>> h.option.label
'Golden Age (Sphinx, Colossus, Pantheon)'
>>> h.reason.split(";")[0]
'Golden Age: gain 3 CT, draw 2, you reach 17 of 20'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..engine import Action, Advanced, Basic, Discard, Meld, Pass, Take, View
from .rating import Option, Rating, rate_view

#: search iterations of a hint (about a second on one core)
HINT_BUDGET: Final = 600


@dataclass(frozen=True, slots=True)
class Hint:
    """The best option of a decision and why, with the estimates it rests on."""

    rating: Rating
    reason: str

    @property
    def option(self) -> Option:
        return self.rating.best

    @property
    def action(self) -> Action:
        return self.rating.best.action

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action.to_json(), "label": self.option.label, "win": round(self.option.win, 4),
                "reason": self.reason, "decision": self.rating.decision_number}


def _who(seat: int, names: Sequence[str] | None) -> str:
    return names[seat] if names is not None and 0 <= seat < len(names) else f"seat {seat}"


def what_it_does(action: Action, view: View, names: Sequence[str] | None = None) -> str:
    """What ``action`` does for ``view.seat``, in a few words: ``Golden Age: gain 3 CT, draw 2,
    you reach 17 of 20``."""
    rules = view.rules
    ct = view.ct or 0
    goal = rules.victory_ct
    if isinstance(action, (Basic, Advanced)):
        ability = (rules.advanced if isinstance(action, Advanced) else rules.basic)[int(action.cards[0].suit)]
        if ability is None:
            return action.do
        who = _who(action.target, names) if action.target is not None else "an opponent"
        gain = sum(e.amount for e in ability.effects if e.op in ("gain_ct", "steal_ct"))
        text = f"{ability.name}: {ability.words(who)}"
        if gain:
            text += ", you win" if ct + gain >= goal else f", you reach {ct + gain} of {goal}"
        return text
    if isinstance(action, Meld):
        after = ct + rules.meld_ct
        return (f"meld: +{rules.meld_ct} CT, " + ("you win" if after >= goal else
                f"you reach {after} of {goal}, and draw {rules.meld_draw}"))
    if isinstance(action, Take):
        return f"take {action.card.name}"
    if isinstance(action, Discard):
        return "discard " + ", ".join(c.name for c in action.cards)
    if isinstance(action, Pass):
        return "no meld now" if view.pending is not None and view.pending.kind == "meld" else \
            "pass: keep your cards for later"
    return str(action.to_json())


def reason(rating: Rating, view: View, names: Sequence[str] | None = None) -> str:
    """One line: what the best option does, and its estimate against the next best."""
    best = rating.best
    text = what_it_does(best.action, view, names)
    if len(rating.options) == 1:
        return f"{text}; the only option"
    nxt = rating.options[1]
    return f"{text}; wins {best.win:.0%} against {nxt.win:.0%} for the next best ({nxt.label})"


def hint(view: View, budget: int = HINT_BUDGET, seed: int = 0, names: Sequence[str] | None = None) -> Hint:
    """The best option of the decision ``view.seat`` faces, found by the review's search from
    that view alone, with a one-line reason."""
    rating = rate_view(view, budget, seed)
    return Hint(rating=rating, reason=reason(rating, view, names))
