"""The game: one mutable state object, advanced only by :meth:`Game.apply`.

A game always waits on exactly one :class:`Decision` (R9) until it is over; every
forced step (drawing, random steals, reshuffles, decisions with one legal choice,
R9.1) resolves by itself inside ``apply``. ``apply`` returns the :class:`Event`
values that happened, each citing its rule.

``Game`` holds the state (its fields: :mod:`.state`) and the flow of a turn. Beside
it: :mod:`.handlers` (one handler per decision kind: legal choices, checks,
resolution, compact ids), :mod:`.resolution` (card movements, abilities, melds,
discards), :mod:`.effects` (the effect primitives and how each resolves),
:mod:`.positions` (loading and writing positions), :mod:`.codec` (compact ids),
:mod:`.view` (what a seat sees), :mod:`.outcome` (how a game ended).

>>> g = Game(players=["ann", "bob"], seed=1)
>>> g.pending
Decision(player=0, kind='action', count=0, ability=None)
>>> [e.describe(names=g.names) for e in g.apply(Pass())]
['R4.2 ann passed']
>>> g.outcome() is None
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from .actions import (
    Action,
    Advanced,
    Basic,
    Discard,
    IllegalActionError,
    Pass,  # noqa: F401  (the doctests use it)
    StaleDecisionError,
    Take,
    action_from_json,
)
from .cards import ALL_CARDS, SUIT_LETTERS, SUIT_OF
from .choices import Choices
from .codec import (
    ADVANCED_BASE,
    BASIC_BASE,
    DISCARD_BASE,
    MELD_BASE,
    NUM_ACTIONS,
    PASS_ID,
    TAKE_BASE,
    describe_id,
    suit_counts,
)
from .decisions import DecisionKind
from .events import Event, new_event
from .handlers import HANDLERS, Handler, choices_for, discard_for_ids
from .positions import Placement, PositionError, position, read_position, state_json
from .resolution import Resolution, _shuffle
from .rules import Ability, RuleSet
from .view import View, view_counts, view_of

if TYPE_CHECKING:
    from .chance import ChanceSource

__all__ = [
    "ADVANCED_BASE", "BASIC_BASE", "DISCARD_BASE", "MELD_BASE", "NUM_ACTIONS", "PASS_ID", "PHASES",
    "TAKE_BASE", "Game", "GameOverError", "PositionError", "describe_id",
]

PHASES = ("rise", "action", "meld", "fall")

_NEW: Final = new_event  # module constants are C statics when compiled
_EVENT: Final = Event
_ACTION: Final = DecisionKind.ACTION
_MELD: Final = DecisionKind.MELD
_FALL: Final = DecisionKind.FALL_DISCARD
_H_ACTION: Final = HANDLERS[_ACTION]
_H_MELD: Final = HANDLERS[_MELD]
_H_FALL: Final = HANDLERS[_FALL]


class GameOverError(IllegalActionError):
    """An action sent to a game that has ended."""


class Game(Resolution):
    """One game of Civ Lite.

    >>> g = Game(players=2, seed=1)
    >>> g.pending
    Decision(player=0, kind='action', count=0, ability=None)
    >>> events = g.apply(Pass())
    """

    __slots__ = ("_h",)  # the other fields are slots of GameState (no __dict__)

    #: the pending decision's handler (:mod:`.handlers`); its ``kind`` is ``_kind``
    _h: Handler

    def __init__(
        self,
        players: int | Sequence[str] = 2,
        seed: int | None = None,
        rules: RuleSet | None = None,
        first: int | str = 0,
        chance: ChanceSource | None = None,
        *,
        _blank: bool = False,
    ) -> None:
        if _blank:  # internal: an unset game that clone() and the loaders fill in
            return
        rules = rules or RuleSet.default()
        if isinstance(players, int):
            n = players
            names = tuple(f"seat {i}" for i in range(n))
        else:
            names = tuple(str(p) for p in players)
            n = len(names)
        if not rules.min_players <= n <= rules.max_players:
            raise ValueError(
                f"{n} players: this rule set plays {rules.min_players} to {rules.max_players} (R2.1)"
            )
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        if first != "random" and not (isinstance(first, int) and not isinstance(first, bool) and 0 <= first < n):
            raise ValueError(f"first seat must be 0..{n - 1} or 'random', got {first!r} (R2.2)")
        self._setup(rules, n, names, seed)
        self.chance = chance  # before the deal, so that it decides the deal too
        self.deck = list(self.universe)  # the rule set's deck (_setup)
        if chance is not None:
            chance.shuffle(self.deck)
        else:
            _shuffle(self.rng, self.deck)
        drawn_first = self.rng.randrange(n)  # always drawn, so a replay with the seat given agrees
        self._first = drawn_first if first == "random" else int(first)
        bonus = rules.per_seat("start_hand_bonus", n)  # per seat in turn order (R2.1)
        for p in range(n):
            self._draw_quiet(p, rules.hand_size + (bonus[(p - self._first) % n] if bonus else 0))
        start_ct = rules.per_seat("start_ct", n)
        if start_ct:
            for p in range(n):
                k = start_ct[(p - self._first) % n]
                if k:
                    self.ct[p] = k
                    if self.supply is not None:
                        self.supply -= k
                    if not self._quiet:
                        self._ev.append(Event("gain_ct", "R2.1", p, amount=k, phase="rise"))
        self._first_rises = rules.per_seat("first_rise_draw", n) or ()
        self.active = self._first
        self._start_turn(count_turn=False)
        self.opening_events = tuple(self._ev)
        self._ev = []

    def _decide(self, kind: DecisionKind, player: int, count: int) -> None:
        self._h = HANDLERS[kind]
        self._kind = kind
        self._dplayer = player
        self._dcount = count

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
        g = Game(_blank=True)
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
        g._rt = self._rt
        g._h = self._h
        g._kind = self._kind
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

    # -- loading and writing positions (:mod:`.positions`) ----------------------------
    @classmethod
    def from_position(
        cls, state: Any, rules: RuleSet | None = None, seed: int | None = 0,
        names: Sequence[str] | None = None,
    ) -> Game:
        """A game set up in a chosen position (the ``state`` of a scenario file).

        The cards the position names are all the cards of that game. Raises
        :class:`PositionError` naming the problem when the position cannot be.
        """
        return Game._placed(read_position(state, rules, seed, names))

    @staticmethod
    def _world(view: View, hands: list[list[int]], knower: list[int], rng: random.Random) -> Game:
        """A game holding what ``view`` shows (:meth:`_fill_world`), for :mod:`.determinize`."""
        g = Game(_blank=True)
        g._fill_world(view, hands, knower, rng)
        return g

    @staticmethod
    def _placed(p: Placement) -> Game:
        """The game of a checked position (:func:`.positions.read_position`), started at its phase."""
        g = Game(_blank=True)
        g._setup(p.rules, len(p.hands), p.names, p.seed)
        g.hands = p.hands
        g.ct = p.ct
        g.supply = p.supply
        g.deck = p.deck
        g.discard = p.discard
        g._dsuits = suit_counts(p.discard)
        g.active = g._first = p.active
        g.turn = p.turn
        g.extra_turn = p.extra_turn
        g.universe = p.universe
        g._start = p.start
        if p.phase == "rise":
            g._start_turn(count_turn=False)
        elif p.phase == "action":
            g._ask_action()
        else:
            g._ask_meld()
        g.opening_events = tuple(g._ev)
        g._ev = []
        return g

    def state_json(self) -> dict[str, Any]:
        """The whole truth in the ``state`` form of a scenario's result (deck top first)."""
        return state_json(self)

    def position(self) -> dict[str, Any]:
        """The position as a ``from_position`` input (knowledge and random state left out)."""
        return position(self)

    # -- public read-only API (the rest: :class:`.state.GameState`) ---------------
    @property
    def is_discard_decision(self) -> bool:
        """Whether the pending decision is a ``*_discard`` (taken in compact steps)."""
        return not self.over and self._h.is_discard

    @property
    def discard_steps_left(self) -> int:
        """Compact discard steps (ids from ``DISCARD_BASE``) still to take in the pending
        discard decision; 0 when the pending decision is not a discard."""
        return self._dcount - len(self._selected) if self.is_discard_decision else 0

    # -- applying decisions -------------------------------------------------------
    def apply(self, action: Action | dict[str, Any] | str, decision: int | None = None) -> list[Event]:
        """Apply the pending player's decision; return the events that happened.

        Raises :class:`IllegalActionError` (a ``ValueError``) naming the rule when
        the action is not legal now; the game is then unchanged. ``decision``, when
        given, is the :attr:`decision_number` the action answers: a late or repeated
        answer raises :class:`StaleDecisionError` and changes nothing.
        """
        if isinstance(action, (dict, str, bytes)):
            action = action_from_json(action)
        if decision is not None and decision != self._decision:
            raise self._stale(decision)
        if self.over:
            raise GameOverError(f"the game is over: no more decisions are taken ({self._end_text()})", "R8.1")
        p = self._dplayer
        if action.player is not None and action.player != p:
            raise IllegalActionError(
                f"seat {action.player} may not decide now: the pending decision is seat {p}'s {self._h.kind}",
                "R9.2",
            )
        self._ev = []
        self._h.apply(self, action)  # checks first: an illegal action changes nothing
        self._decision += 1
        ev, self._ev = self._ev, []
        return ev

    def _stale(self, decision: int) -> StaleDecisionError:
        return StaleDecisionError(
            f"this answers decision {decision}, but the game is at decision {self._decision}: "
            + ("it was already answered" if decision < self._decision else "no such decision yet"),
            "R9.2",
        )

    def _end_text(self) -> str:
        o = self.outcome()
        return "" if o is None else o.describe(self.names)

    # -- legal actions and the compact action space (:mod:`.handlers`, :mod:`.codec`) ---
    def legal_actions(self) -> list[Action]:
        """Every legal concrete action for the pending decision (cards by name).

        Discard decisions can have many combinations; bots and learners usually want
        the compact space instead (:meth:`legal_ids`).
        """
        return [] if self.over else self._h.legal_actions(self)

    def is_legal(self, action: Action) -> bool:
        g = self.clone()
        try:
            g.apply(action)
        except IllegalActionError:
            return False
        return True

    def legal_ids(self) -> list[int]:
        """Legal actions of the compact space (see :data:`NUM_ACTIONS`), ascending."""
        return [] if self.over else self._h.legal_ids(self)

    def legal_mask(self) -> list[bool]:
        mask = [False] * NUM_ACTIONS
        for i in self.legal_ids():
            mask[i] = True
        return mask

    def apply_id(self, aid: int, check: bool = True, decision: int | None = None) -> list[Event]:
        """Apply a compact action; return the events (none for a partial discard step).

        With ``check=False`` the caller vouches that ``aid`` is in :meth:`legal_ids`
        (search and simulation loops that just asked for them). ``decision``: as for
        :meth:`apply`.
        """
        if decision is not None and decision != self._decision:
            raise self._stale(decision)
        if check:
            if self.over:
                raise GameOverError(f"the game is over: no more decisions are taken ({self._end_text()})", "R8.1")
            if aid not in self._h.legal_ids(self):
                raise IllegalActionError(
                    f"compact action {aid} ({describe_id(aid)}) is not legal for seat {self._dplayer}'s "
                    f"{self._h.kind} now", "R9.2"
                )
        ev: list[Event] = []
        self._ev = ev
        self._decision += 1
        self._h.apply_id(self, aid)
        return ev

    def action_for_id(self, aid: int) -> Action:
        """The concrete action a compact action stands for now (discard steps excepted)."""
        if self.over:
            raise GameOverError("the game is over: no action stands for a compact id", "R8.1")
        return self._h.action_for_id(self, aid)

    def discard_for_ids(self, ids: Sequence[int]) -> Discard:
        """The concrete discard that a sequence of compact discard steps stands for."""
        return discard_for_ids(self, ids)

    def id_for_action(self, action: Action) -> int:
        """The compact action an (ability, take, meld or pass) action belongs to, for the
        pending decision."""
        return self._h.id_for_action(self, action)

    # -- the flow of a turn -------------------------------------------------------
    def _start_turn(self, count_turn: bool = True, extra: bool = False) -> None:
        if count_turn:
            self.turn += 1
        self.phase = "rise"
        if not self._quiet:
            self._ev.append(_NEW(_EVENT, ("turn", "R4", self.active, None, None, (), 0, 0, (), (), (),
                                        "rise", self.turn, extra, None)))
        draw = self._rt.rise_draw
        if self._first_rises and not extra:  # a seat's first Rise (rule set's first_rise_draw)
            draw = self._first_rises[0]
            self._first_rises = self._first_rises[1:]
        self._draw(self.active, draw, "R4.1")
        self._ask_action()

    def _ask_action(self) -> None:
        self.phase = "action"
        self._h = _H_ACTION
        self._kind = _ACTION
        self._dplayer = self.active
        self._dcount = 0
        self._ability = None

    def _ask_meld(self) -> None:
        self.phase = "meld"
        self._h = _H_MELD
        self._kind = _MELD
        self._dplayer = self.active
        self._dcount = 0
        self._ability = None

    def _enter_fall(self) -> None:
        self.phase = "fall"
        p = self.active
        excess = len(self.hands[p]) - self._rt.hand_limit
        if excess > 0:
            self._ability = None
            self._h = _H_FALL
            self._kind = _FALL
            self._dplayer = p
            self._dcount = excess
            if excess >= len(self.hands[p]):  # R9.1: only one choice
                self._resolve_discard(list(self.hands[p]))
            return
        self._end_turn()

    def _end_turn(self) -> None:
        if self.turn >= self._rt.turn_limit:
            top = max(self.ct)
            self.drawn = tuple(p for p in range(self.n) if self.ct[p] == top)
            self.over = True
            self.winner = None
            if not self._quiet:
                self._ev.append(Event("draw_game", "R8.2", seats=self.drawn, amount=top, phase=self.phase))
            return
        extra = self.extra_turn
        if extra:
            self.extra_turn = False
        else:
            self.active = (self.active + 1) % self.n
        self._start_turn(extra=extra)

    # -- views (the only way a seat sees the game: :mod:`.view`) -------------------------
    def view(self, seat: int | None) -> View:
        """What ``seat`` may know now; ``None`` for a spectator (public facts only).

        This is the single place where hidden information is filtered.
        """
        return view_of(self, seat)

    def view_counts(self, seat: int) -> tuple[list[int], list[int], list[list[int]], list[int], list[int], Ability | None]:
        """What :meth:`view` shows ``seat`` of the cards, as counts per suit: see
        :func:`civlite.engine.view.view_counts`."""
        return view_counts(self, seat)

    def choices(self, seat: int | None) -> Choices:
        """What ``seat`` may do now, for a user interface (never a card it cannot see):
        see :mod:`civlite.engine.choices`."""
        return choices_for(self, seat)

    # -- records (:class:`.record.GameRecord` ``.of(game)``) --------------------------
    @property
    def actions(self) -> tuple[Action, ...]:
        """The concrete actions applied so far (what a record stores)."""
        return tuple(_concrete(a) for a in self._actions)

    def __repr__(self) -> str:
        try:
            pos = self.position()
        except ValueError:
            return f"<Game {self.n} players, turn {self.turn}, pending {self.pending}>"
        rules = "" if self.rules == RuleSet.default() else f", rules={self.rules!r}"
        return f"Game.from_position({pos!r}{rules}, seed={self.seed!r})"

    def __str__(self) -> str:
        lines = [f"turn {self.turn}, seat {self.active} {self.phase}; pending: {self.pending}"]
        for i, h in enumerate(self.hands):
            lines.append(f"  seat {i}: {self.ct[i]:>2} CT  " + ", ".join(
                f"{SUIT_LETTERS[SUIT_OF[c]]}:{ALL_CARDS[c].name}" for c in sorted(h)))
        lines.append(f"  deck {len(self.deck)}, discard {len(self.discard)}")
        return "\n".join(lines)


def _concrete(a: Action | tuple[Any, ...]) -> Action:
    """An action recorded by ``apply_id`` in raw form, as its concrete value."""
    if not isinstance(a, tuple):
        return a
    kind = a[0]
    if kind is Take:
        return Take(ALL_CARDS[a[1]])
    if kind is Basic or kind is Advanced:
        return kind([ALL_CARDS[c] for c in a[1]], a[2])
    return kind([ALL_CARDS[c] for c in a[1]])  # type: ignore[no-any-return]
