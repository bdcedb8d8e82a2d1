"""Rating one decision from the deciding seat's own view.

:func:`rate_view` takes a :class:`~civlite.engine.View` (and nothing else of the game):
it lists the seat's options (compact actions, so cards of one suit count as one choice,
R1.2; a discard is a set of suits), estimates each option's chance of winning for the seat
by the ``champion`` search over worlds sampled from the view (every option played on the
same worlds), and returns them best first. :func:`rate_decision` adds the option the seat
chose, its loss against the best and its :func:`mark`.

The estimate of an option is the mean result of the search below it, for the seat (1 a win,
0 a loss, ``1/k`` a share of a k-way draw; the network's value where the search stops).
Everything comes from the view and the review's own seed, so another deal consistent with
the view gets the same ratings.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..bots.champion import ChampionBot
from ..bots.features import encode
from ..engine import (
    DISCARD_BASE,
    MINOR_SUITS,
    Action,
    Advanced,
    Basic,
    Discard,
    Game,
    Meld,
    Pass,
    RuleSet,
    Take,
    View,
    sample_world,
)

#: search iterations per decision, by default: a 30-decision 2-player game in about 30 s on
#: 2 cores (benchmarks/review_speed.py)
DEFAULT_BUDGET: Final = 800
#: the largest budget a review accepts (per decision)
MAX_BUDGET: Final = 50_000
#: a discard of many cards can be done in hundreds of ways: the review rates at most this
#: many (the network's likeliest, and always the one chosen)
MAX_DISCARD_OPTIONS: Final = 16

#: loss thresholds in win probability (lichess's 0.1 / 0.2 / 0.3 on its -1..1 scale of
#: winning chances are 0.05 / 0.10 / 0.15 in probability); below ``best`` counts as the best
#: option (level with it within the estimates' noise)
THRESHOLDS: Final = {"best": 0.01, "good": 0.05, "inaccuracy": 0.10, "mistake": 0.15}
MARKS: Final = ("best", "good", "inaccuracy", "mistake", "blunder")


class ReviewError(ValueError):
    """A review that cannot be done (bad record, seat, budget); nothing was changed."""


def check_budget(budget: int) -> int:
    if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= MAX_BUDGET:
        raise ReviewError(f"budget must be a whole number of search iterations from 1 to {MAX_BUDGET:,}, "
                          f"got {budget!r}")
    return budget


def mark(loss: float) -> str:
    """The mark of a decision that lost ``loss`` win probability against the best option."""
    if loss < THRESHOLDS["best"]:
        return "best"
    if loss < THRESHOLDS["good"]:
        return "good"
    if loss < THRESHOLDS["inaccuracy"]:
        return "inaccuracy"
    if loss < THRESHOLDS["mistake"]:
        return "mistake"
    return "blunder"


@dataclass(frozen=True, slots=True)
class Option:
    """One thing the seat could do: its compact steps, the action, and its estimate."""

    steps: tuple[int, ...]
    action: Action
    label: str  #: compact, as a player reads it: ``basic W -> +1``, ``discard A, M``
    win: float
    visits: int

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action.to_json(), "win": round(self.win, 4)}


@dataclass(frozen=True, slots=True)
class Rating:
    """The options of one decision, best first (``options[0]`` is the best)."""

    seat: int
    kind: str
    turn: int
    decision_number: int
    options: tuple[Option, ...]

    @property
    def best(self) -> Option:
        return self.options[0]

    def index_of(self, steps: Sequence[int]) -> int:
        key = tuple(steps)
        for i, o in enumerate(self.options):
            if o.steps == key:
                return i
        raise KeyError(f"no option {key}")


def steps_of(action: Action, game: Game) -> tuple[int, ...]:
    """The compact steps of ``action`` for ``game``'s pending decision."""
    if game.is_discard_decision and isinstance(action, Discard):
        return tuple(sorted(DISCARD_BASE + int(c.suit) for c in action.cards))
    return (game.id_for_action(action),)


def label(action: Action, rules: RuleSet, kind: str, names: Sequence[str] | None = None) -> str:
    """An option as a player reads it: ``Golden Age (Sphinx, Colossus, Pantheon)``,
    ``Raid (Spearmen) on bob``, ``take Greeks``, ``meld``, ``discard Caesar, Moses``, ``pass``."""
    if isinstance(action, Pass):
        return "no meld" if kind == "meld" else "pass"
    if isinstance(action, (Basic, Advanced)):
        suit = int(action.cards[0].suit)
        ability = (rules.advanced if isinstance(action, Advanced) else rules.basic)[suit]
        text = f"{ability.name if ability is not None else action.do} ({', '.join(c.name for c in action.cards)})"
        if action.target is not None:
            who = names[action.target] if names is not None and action.target < len(names) else f"seat {action.target}"
            text += f" on {who}"
        return text
    if isinstance(action, Take):
        return f"take {action.card.name}"
    if isinstance(action, Meld):
        minor = [c.name for c in action.cards if int(c.suit) in MINOR_SUITS]
        return "meld" + (f" with {minor[0]}" if minor else "")
    if isinstance(action, Discard):
        return "discard " + ", ".join(c.name for c in action.cards)
    return str(action.to_json())


def _discard_options(world: Game, seat: int, bot: ChampionBot, include: tuple[int, ...] | None,
                     limit: int) -> list[tuple[int, ...]]:
    """The discards (as non-decreasing suit steps) to rate: every one if there are at most
    ``limit``, else the network's likeliest ``limit`` (a beam over the steps) and ``include``."""
    need = world.discard_steps_left
    beam: list[tuple[float, tuple[int, ...], Game]] = [(0.0, (), world)]
    for _ in range(need):
        grown: list[tuple[float, tuple[int, ...], Game]] = []
        for score, steps, g in beam:
            legal = g.legal_ids()
            logits = bot.net_for(g.n).logits(encode(g.view(seat)))
            top = max(float(logits[a]) for a in legal)
            norm = top + math.log(sum(math.exp(float(logits[a]) - top) for a in legal))
            for a in legal:
                nxt = g.clone_fast(random.Random(0))
                nxt.apply_id(a, check=False)
                grown.append((score + float(logits[a]) - norm, (*steps, a), nxt))
        grown.sort(key=lambda t: (-t[0], t[1]))
        beam = grown[:limit]
    out = [steps for _, steps, _ in beam]
    if include is not None and include not in out:
        out.append(include)
    return out


def rate_view(view: View, budget: int = DEFAULT_BUDGET, seed: int = 0,
              include: Sequence[int] | None = None) -> Rating:
    """Rate every option of the decision ``view.seat`` faces in ``view``.

    ``budget``: search iterations for the whole decision (shared by the options, at least one
    each); ``seed``: the search's random source; ``include``: an option (compact steps) that
    must be among a long discard's rated options (the one chosen).
    """
    check_budget(budget)
    if view.seat is None:
        raise ReviewError("a spectator's view has no decision to rate")
    if view.over or view.pending is None or view.pending.player != view.seat:
        raise ReviewError(f"seat {view.seat} has no decision to make in this view")
    seat = view.seat
    bot = ChampionBot(seed=seed, iterations=1)
    world = sample_world(view, random.Random(seed))  # the seat's options: its own cards only
    if world.is_discard_decision:
        options = _discard_options(world, seat, bot, tuple(include) if include is not None else None,
                                   MAX_DISCARD_OPTIONS)
    else:
        options = [(a,) for a in world.legal_ids()]
    actions: list[Action] = [
        world.discard_for_ids(steps) if world.is_discard_decision else world.action_for_id(steps[0])
        for steps in options
    ]
    keep = [options.index(tuple(include))] if include is not None and tuple(include) in options else []
    values = bot.option_values(view, options, budget, keep=keep)
    rated = [Option(steps=s, action=a, label=label(a, view.rules, view.pending.kind), win=min(1.0, max(0.0, v)), visits=n)
             for s, a, (v, n) in zip(options, actions, values, strict=True)]
    rated.sort(key=lambda o: (-o.win, o.steps))
    return Rating(seat=seat, kind=view.pending.kind, turn=view.turn, decision_number=view.decision_number,
                  options=tuple(rated))


@dataclass(frozen=True, slots=True)
class RatedDecision:
    """A decision of the reviewed seat: its rating, what was chosen, the loss and the mark."""

    index: int  #: the decision's number in the game (0: the first action of the record)
    rating: Rating
    chosen: Action
    chosen_index: int  #: the chosen option's place in ``rating.options``

    @property
    def chosen_win(self) -> float:
        return self.rating.options[self.chosen_index].win

    @property
    def loss(self) -> float:
        return max(0.0, self.rating.best.win - self.chosen_win)

    @property
    def forced(self) -> bool:
        """Whether the seat had one option only (nothing to rate: marked best)."""
        return len(self.rating.options) == 1

    @property
    def mark(self) -> str:
        return mark(self.loss)

    def to_json(self) -> dict[str, Any]:
        return {
            "decision": self.index,
            "turn": self.rating.turn,
            "kind": self.rating.kind,
            "options": [o.to_json() for o in self.rating.options],
            "chosen": self.chosen.to_json(),
            "loss": round(self.loss, 4),
            "mark": self.mark,
        }


def rate_decision(game: Game, chosen: Action, budget: int = DEFAULT_BUDGET, seed: int = 0,
                  index: int | None = None) -> RatedDecision:
    """Rate ``game``'s pending decision from the deciding seat's view, and the ``chosen``
    action against the best option."""
    seat = game.to_move
    if seat is None:
        raise ReviewError("the game is over: there is no decision to rate")
    steps = steps_of(chosen, game)
    rating = rate_view(game.view(seat), budget, seed, include=steps)
    return RatedDecision(index=game.decision_number if index is None else index, rating=rating,
                         chosen=chosen, chosen_index=rating.index_of(steps))
