"""A game's state: every field of :class:`~civlite.engine.Game`, set up here, and what
can be read from the fields alone (``Game`` adds the flow of a turn, the handler of the
pending decision, copies and the public API; :mod:`.resolution` the card movements).

Internals, for the hot paths: cards are ids (``cards.ALL_CARDS[id]``; 0..111 in the default deck); a hand is
a list of ids in no meaningful order; the deck is a list with its *top at the end*;
the discard pile is a list with its top at the end. ``_knower[card]`` is a bit mask
of the seats that know where that card is while it sits in a hand (Contact, Raid,
Conquest, Foundations); the owner always knows its own cards.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Final

from .actions import Action
from .cards import ALL_CARDS, Card
from .codec import ability_id
from .decisions import Decision, DecisionKind
from .events import Event
from .outcome import Outcome, Termination
from .rules import Ability, RuleSet

if TYPE_CHECKING:
    from .chance import ChanceSource

_ACTION: Final = DecisionKind.ACTION
_MELD: Final = DecisionKind.MELD
_FALL: Final = DecisionKind.FALL_DISCARD


class GameState:
    """The fields of a game (see :class:`~civlite.engine.Game` for the API)."""

    __slots__ = (
        "_ability", "_actions", "_dcount", "_decision", "_dplayer", "_dsuits", "_eff", "_ev", "_first",
        "_first_rises", "_kind", "_knower", "_quiet", "_rng_shared", "_rt", "_selected", "_start", "_target",
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
    #: (:func:`.codec.suit_counts` makes it from a list): the numeric view reads it
    _dsuits: list[int]
    #: the rule set's numbers the turn reads, for this table size (shared by copies)
    _rt: RuleTable
    _kind: DecisionKind  # the pending decision's kind (``Game`` holds its handler)
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
        self.universe = rules.deck
        self._knower = [0] * rules.deck_span
        self._rt = rule_table(rules, n)
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
        """Make ``kind`` the pending decision, of ``player``, for ``count`` cards (``Game``:
        it also holds the kind's handler)."""
        raise NotImplementedError

    # -- what the fields say (the public read-only API of ``Game``) --------------
    @property
    def num_players(self) -> int:
        return self.n

    @property
    def is_over(self) -> bool:
        return self.over

    @property
    def pending(self) -> Decision | None:
        """The one decision the game waits on, or ``None`` once it is over."""
        if self.over:
            return None
        ab = self._ability.name if self._ability is not None and self._kind not in (_ACTION, _MELD, _FALL) else None
        return Decision(self._dplayer, self._kind, self._dcount, ab)

    @property
    def to_move(self) -> int | None:
        return None if self.over else self._dplayer

    @property
    def pending_kind(self) -> DecisionKind | None:
        """``pending.kind`` without building the :class:`Decision` (for search loops)."""
        return None if self.over else self._kind

    @property
    def pending_count(self) -> int:
        """``pending.count`` without building the :class:`Decision` (0 once the game is over)."""
        return 0 if self.over else self._dcount

    @property
    def quiet(self) -> bool:
        """Whether :meth:`apply` and :meth:`apply_id` build no events and return ``[]``: for
        search, learning and simulations that read the state, not the log (about 1.4 times
        as many decisions per second). The state, views, choices and records are the same
        either way. Copies keep the setting; :meth:`clone_fast` (search) makes quiet ones.

        >>> from civlite.engine import Game, Pass
        >>> g = Game(2, seed=3)
        >>> g.quiet = True
        >>> g.apply(Pass())
        []
        """
        return self._quiet

    @quiet.setter
    def quiet(self, value: bool) -> None:
        self._quiet = bool(value)

    @property
    def decision_number(self) -> int:
        """The number of the pending decision: 1 for the first, one more after every
        applied action or compact step (decisions that take themselves, R9.1, are not
        counted). A client sends it back with its answer (``apply(..., decision=n)``)."""
        return self._decision

    @property
    def resolving(self) -> Ability | None:
        """The ability being resolved (its effects wait on the pending decision), if any."""
        return self._ability

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The whole truth about a hand (not for bots or clients: use :meth:`view`)."""
        return tuple([ALL_CARDS[c] for c in sorted(self.hands[seat])])  # ids sort in C

    def knows(self, seat: int, card: Card | int) -> bool:
        """Whether ``seat`` knows where ``card`` is (its own hand, the public discard pile,
        or a card of another hand it has seen: R3.2, R5, R5.5)."""
        cid = card if isinstance(card, int) else card.id
        for s, h in enumerate(self.hands):
            if cid in h:
                return s == seat or bool(self._knower[cid] >> seat & 1)
        return cid in self.discard

    def outcome(self) -> Outcome | None:
        """How the game ended (winner or draw, why, the final CT), or ``None`` while it runs."""
        if not self.over:
            return None
        if self.winner is not None:
            return Outcome(Termination.VICTORY, self.winner, tuple(self.ct))
        return Outcome(Termination.TURN_LIMIT, None, tuple(self.ct), self.drawn)

    def returns(self) -> list[float]:
        """+1 for the winner and -1 for the others; 0 for all in a draw or an unfinished game."""
        o = self.outcome()
        return [0.0] * self.n if o is None else o.returns()


class RuleTable:
    """What a turn reads of a rule set, for one table size, as plain ints and tuples: the
    compiled engine reads these fields natively, where a :class:`RuleSet` field is a
    Python attribute look-up. Made once per rule set and size (:func:`rule_table`)."""

    __slots__ = ("advanced", "basic", "hand_limit", "meld_one_of", "meld_suits", "n", "opts", "rise_draw", "rules",
                 "turn_limit", "victory_ct")

    rules: RuleSet
    n: int

    #: (suit, cost, compact ids) of every ability, ascending by id
    opts: tuple[tuple[int, int, tuple[int, ...]], ...]
    basic: tuple[Ability | None, ...]
    advanced: tuple[Ability | None, ...]
    rise_draw: int
    hand_limit: int
    victory_ct: int
    turn_limit: int
    meld_suits: tuple[int, ...]
    meld_one_of: tuple[int, ...]

    def __init__(self, rules: RuleSet, n: int) -> None:
        self.rules = rules
        self.n = n
        out = []
        for adv, table in ((False, rules.basic), (True, rules.advanced)):
            for s in range(8):
                ab = table[s]
                if ab is None:
                    continue
                ids = tuple(ability_id(adv, s, off) for off in range(1, n)) if ab.targets else (ability_id(adv, s),)
                out.append((s, ab.cards, ids))
        self.opts = tuple(out)
        self.basic = tuple(rules.basic)
        self.advanced = tuple(rules.advanced)
        self.rise_draw = rules.rise_draw
        self.hand_limit = rules.hand_limit
        self.victory_ct = rules.victory_ct
        self.turn_limit = rules.turn_limit
        self.meld_suits = tuple(int(x) for x in rules.meld_suits)
        self.meld_one_of = tuple(int(x) for x in rules.meld_one_of)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the rule set and size it is made from."""
        return rule_table, (self.rules, self.n)


def rule_table(rules: RuleSet, n: int) -> RuleTable:
    """The :class:`RuleTable` of ``rules`` for ``n`` players (kept in ``rules.cache``)."""
    table: RuleTable | None = rules.cache.get(("table", n))
    if table is None:
        table = RuleTable(rules, n)
        rules.cache[("table", n)] = table
    return table
