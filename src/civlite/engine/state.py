"""A game's state: every field of :class:`~civlite.engine.Game`, set up, restored and
copied here (``Game`` adds the flow of a turn; :mod:`.resolution` the card movements).

Internals, for the hot paths: cards are ids 0..111 (``cards.CARDS[id]``); a hand is
a list of ids in no meaningful order; the deck is a list with its *top at the end*;
the discard pile is a list with its top at the end. ``_knower[card]`` is a bit mask
of the seats that know where that card is while it sits in a hand (Contact, Raid,
Conquest, Foundations); the owner always knows its own cards.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .actions import Action
from .cards import CARDS
from .codec import ability_id
from .decisions import DecisionKind
from .events import Event
from .handlers import HANDLERS, Handler
from .rules import Ability, RuleSet
from .view import suit_counts

if TYPE_CHECKING:
    from .chance import ChanceSource
    from .game import Game
    from .view import View


class GameState:
    """The fields of a game (see :class:`~civlite.engine.Game` for the API)."""

    __slots__ = (
        "_ability", "_actions", "_dcount", "_decision", "_dplayer", "_dsuits", "_eff", "_ev", "_first",
        "_first_rises", "_h", "_knower", "_opts", "_quiet", "_rng_shared", "_selected", "_start", "_target",
        "active", "chance", "ct", "deck", "discard", "drawn", "extra_turn", "hands", "n", "names",
        "opening_events", "over", "phase", "rng", "rules", "seed", "supply", "turn", "universe", "winner",
    )

    rules: RuleSet
    n: int
    names: tuple[str, ...]
    hands: list[list[int]]
    ct: list[int]
    deck: list[int]
    discard: list[int]
    supply: int | None
    active: int
    phase: str
    turn: int
    extra_turn: bool
    over: bool
    winner: int | None
    drawn: tuple[int, ...]
    #: the events of the set-up (the first turn's start and its Rise, R4.1), which happen
    #: inside ``Game(...)``: ``apply`` never returns them, so logs and replays show them first
    opening_events: tuple[Event, ...]
    rng: random.Random
    seed: int
    universe: tuple[int, ...]
    _rng_shared: bool
    #: an optional source of every chance outcome (draws, random steals, shuffles), for
    #: tools that model chance explicitly (OpenSpiel's chance nodes); ``None``: ``rng``
    chance: ChanceSource | None
    _knower: list[int]
    #: the discard pile's cards by suit (8 counts), kept with every move to or from the pile
    #: (:func:`.view.suit_counts` makes it from a list): the numeric view reads it
    _dsuits: list[int]
    _opts: tuple[tuple[int, int, tuple[int, ...]], ...]  # (suit, cost, compact ids) per ability
    _h: Handler  # the pending decision's handler; its ``kind`` is the pending kind
    _decision: int
    _dplayer: int
    _dcount: int
    _ability: Ability | None
    _eff: int
    _target: int
    _selected: list[int]
    _ev: list[Event]
    #: no events are built (``Game.quiet``): search copies, learning, fast simulations
    _quiet: bool
    _actions: list[Action | tuple[Any, ...]]  # compact steps are kept raw until asked for
    _start: dict[str, Any] | None
    _first: int
    #: the draws of the first Rises still owed (rule set's ``first_rise_draw``), in turn order
    _first_rises: tuple[int, ...]

    def _setup(
        self, rules: RuleSet, n: int, names: tuple[str, ...], seed: int, rng: random.Random | None = None
    ) -> None:
        self.rules = rules
        self.n = n
        self.names = names
        self.seed = seed
        self.rng = rng if rng is not None else random.Random(seed)
        self._rng_shared = False
        self.chance = None
        self.hands = [[] for _ in range(n)]
        self.ct = [0] * n
        self.deck = []
        self.discard = []
        self._dsuits = [0] * 8
        self.supply = rules.ct_supply
        self.active = 0
        self.phase = "rise"
        self.turn = 1
        self.extra_turn = False
        self.over = False
        self.winner = None
        self.drawn = ()
        self.opening_events = ()
        self.universe = tuple(range(len(CARDS)))
        self._knower = [0] * len(CARDS)
        self._opts = _ability_options(rules, n)
        self._decide(DecisionKind.ACTION, 0, 0)
        self._decision = 1
        self._ability = None
        self._eff = 0
        self._target = -1
        self._selected = []
        self._ev = []
        self._quiet = False
        self._actions = []
        self._start = None
        self._first = 0
        self._first_rises = ()

    def _decide(self, kind: DecisionKind, player: int, count: int) -> None:
        """Make ``kind`` the pending decision, of ``player``, for ``count`` cards."""
        self._h = HANDLERS[kind]
        self._dplayer = player
        self._dcount = count

    def _new(self) -> Game:
        """An unset game to fill in. ``Game`` makes it: compiled (mypyc) classes have no
        bare ``__new__``."""
        raise NotImplementedError

    def _fill_world(self, view: View, hands: list[list[int]], knower: list[int], rng: random.Random) -> None:
        """Hold what ``view`` shows, with ``hands`` (the known cards so far) and ``knower``;
        the sampler of :mod:`.determinize` deals the hidden cards into it (``Game._world``)."""
        g = self
        n = view.num_players
        g._setup(view.rules, n, tuple(f"seat {s}" for s in range(n)), 0, rng)
        g.hands = hands
        g.ct = [(view.ct or 0) if s == view.seat else view.player(s).ct for s in range(n)]
        g.discard = [c.id for c in view.discard]
        g._dsuits = suit_counts(g.discard)
        g.supply = view.supply
        g.active = view.active
        g.phase = view.phase
        g.turn = view.turn
        g.extra_turn = view.extra_turn
        if view.universe is not None:
            g.universe = tuple(c.id for c in view.universe)
        g._knower = knower
        g._first_rises = view.first_rises
        pending = view.pending
        assert pending is not None
        g._decide(pending.kind, pending.player, pending.count)
        g._decision = view.decision_number
        if view.resolving is not None:
            g._ability = next(a for a in view.rules.abilities if a.name == view.resolving)
            g._eff = view.effect_index
            g._target = view.resolving_target if view.resolving_target is not None else -1
        g._selected = [c.id for c in view.selecting]

    # -- cloning ------------------------------------------------------------------
    def clone(self) -> Game:
        """An independent copy (hand-written; the random source is copied too)."""
        # the random source is shared copy-on-write: whichever game draws from it
        # first takes its own copy of the state (``_own_rng``), so both games go on
        # exactly as the original would have
        g = self._copy(self.rng, self._actions[:], self._start)
        g._rng_shared = self._rng_shared = True
        return g

    def clone_fast(self, rng: random.Random) -> Game:
        """A copy for search: draws its chance from ``rng`` (the caller's), keeps no action log
        and is ``quiet`` (builds no events)."""
        g = self._copy(rng, [], None)
        g._quiet = True
        return g

    def _copy(self, rng: random.Random, actions: list[Action | tuple[Any, ...]],
              start: dict[str, Any] | None) -> Game:
        g = self._new()
        g.rules = self.rules
        g.n = self.n
        g.names = self.names
        g.hands = [h[:] for h in self.hands]
        g.ct = self.ct[:]
        g.deck = self.deck[:]
        g.discard = self.discard[:]
        g._dsuits = self._dsuits[:]
        g.supply = self.supply
        g.active = self.active
        g.phase = self.phase
        g.turn = self.turn
        g.extra_turn = self.extra_turn
        g.over = self.over
        g.winner = self.winner
        g.drawn = self.drawn
        g.opening_events = self.opening_events
        g.rng = rng
        g._rng_shared = False
        g.chance = self.chance
        g.seed = self.seed
        g.universe = self.universe
        g._knower = self._knower[:]
        g._opts = self._opts
        g._h = self._h
        g._dplayer = self._dplayer
        g._dcount = self._dcount
        g._decision = self._decision
        g._ability = self._ability
        g._eff = self._eff
        g._target = self._target
        g._selected = self._selected[:]
        g._ev = []
        g._quiet = self._quiet
        g._actions = actions
        g._start = start
        g._first = self._first
        g._first_rises = self._first_rises
        return g


def _ability_options(rules: RuleSet, n: int) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
    """(suit, cost, compact ids) of every ability, ascending by id, for ``n`` players."""
    opts: tuple[tuple[int, int, tuple[int, ...]], ...] | None = rules.cache.get(("options", n))
    if opts is None:
        out = []
        for adv, table in ((False, rules.basic), (True, rules.advanced)):
            for s in range(8):
                ab = table[s]
                if ab is None:
                    continue
                ids = tuple(ability_id(adv, s, off) for off in range(1, n)) if ab.targets else (ability_id(adv, s),)
                out.append((s, ab.cards, ids))
        opts = tuple(out)
        rules.cache[("options", n)] = opts
    return opts
