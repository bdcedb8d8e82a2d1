"""The game: one mutable state object, advanced only by :meth:`Game.apply`.

A game always waits on exactly one :class:`Decision` (R9) until it is over; every
forced step (drawing, random steals, reshuffles, decisions with one legal choice,
R9.1) resolves by itself inside ``apply``. ``apply`` returns the :class:`Event`
values that happened, each citing its rule.

Internals, for the hot paths: cards are ids 0..111 (``cards.CARDS[id]``); a hand is
a list of ids in no meaningful order; the deck is a list with its *top at the end*;
the discard pile is a list with its top at the end. ``_knower[card]`` is a bit mask
of the seats that know where that card is while it sits in a hand (Contact, Raid,
Conquest, Foundations); the owner always knows its own cards.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from functools import partial
from itertools import combinations, product
from typing import TYPE_CHECKING, Any

from .actions import (
    Action,
    Advanced,
    Basic,
    Discard,
    IllegalActionError,
    Meld,
    Pass,
    StaleDecisionError,
    Take,
    action_from_json,
)
from .cards import CARDS, ID_OF_NAME, NAMES, SUIT_LETTERS, SUIT_OF, Card, Suit
from .choices import Choices, choices_for
from .decisions import DecisionKind
from .events import Event
from .rules import ALL, Ability, RuleSet

if TYPE_CHECKING:
    from .chance import ChanceSource
    from .record import GameRecord
from .view import Decision, PlayerView, View

PHASES = ("rise", "action", "meld", "fall")

# -- the compact action space (R1.2: cards of one suit are interchangeable) ----------
#: 0: pass; 1..64 basic (suit*8 + target offset); 65..128 advanced; 129..136 take a
#: card of a suit; 137..144 meld with an extra card of a suit; 145..152 discard one
#: card of a suit (a k-card discard is k steps, suits in non-decreasing order).
PASS_ID = 0
BASIC_BASE = 1
ADVANCED_BASE = 65
TAKE_BASE = 129
MELD_BASE = 137
DISCARD_BASE = 145
NUM_ACTIONS = 153

_DECIDE_ACTION = DecisionKind.ACTION
_DECIDE_MELD = DecisionKind.MELD
_DECIDE_FALL = DecisionKind.FALL_DISCARD
_DECIDE_VISION = DecisionKind.VISION
_DECIDE_FOUNDATIONS = DecisionKind.FOUNDATIONS


class GameOverError(IllegalActionError):
    """An action sent to a game that has ended."""


class PositionError(ValueError):
    """A position (scenario state) that cannot be: the message names the problem."""


class Game:
    """One game of Civ Lite.

    >>> g = Game(players=2, seed=1)
    >>> g.pending
    Decision(player=0, kind='action', count=0, ability=None)
    >>> events = g.apply(Pass())
    """

    __slots__ = (
        "_ability",
        "_actions",
        "_dcount",
        "_decision",
        "_dkind",
        "_dplayer",
        "_eff",
        "_ev",
        "_first",
        "_first_rises",
        "_knower",
        "_opts",
        "_rng_shared",
        "_selected",
        "_start",
        "_target",
        "active",
        "chance",
        "ct",
        "deck",
        "discard",
        "drawn",
        "extra_turn",
        "hands",
        "n",
        "names",
        "opening_events",
        "over",
        "phase",
        "rng",
        "rules",
        "seed",
        "supply",
        "turn",
        "universe",
        "winner",
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
    _opts: tuple[tuple[int, int, tuple[int, ...]], ...]  # (suit, cost, compact ids) per ability
    _dkind: DecisionKind
    _decision: int
    _dplayer: int
    _dcount: int
    _ability: Ability | None
    _eff: int
    _target: int
    _selected: list[int]
    _ev: list[Event]
    _actions: list[Action | tuple[Any, ...]]  # compact steps are kept raw until asked for
    _start: dict[str, Any] | None
    _first: int
    #: the draws of the first Rises still owed (rule set's ``first_rise_draw``), in turn order
    _first_rises: tuple[int, ...]

    def __init__(
        self,
        players: int | Sequence[str] = 2,
        seed: int | None = None,
        rules: RuleSet | None = None,
        first: int | str = 0,
        chance: ChanceSource | None = None,
    ) -> None:
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
        self.universe = tuple(range(len(CARDS)))
        self.deck = list(self.universe)
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
                    self._ev.append(Event("gain_ct", "R2.1", p, amount=k))
        self._first_rises = rules.per_seat("first_rise_draw", n) or ()
        self.active = self._first
        self._start_turn(count_turn=False)
        self.opening_events = tuple(self._ev)
        self._ev = []

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
        self.supply = rules.ct_supply
        self.active = 0
        self.phase = "rise"
        self.turn = 1
        self.extra_turn = False
        self.over = False
        self.winner = None
        self.drawn = ()
        self.opening_events = ()
        self._knower = [0] * len(CARDS)
        self._opts = _ability_options(rules, n)
        self._dkind = _DECIDE_ACTION
        self._dplayer = 0
        self._dcount = 0
        self._decision = 1
        self._ability = None
        self._eff = 0
        self._target = -1
        self._selected = []
        self._ev = []
        self._actions = []
        self._start = None
        self._first = 0
        self._first_rises = ()

    # -- positions (scenarios, FEN-like) ------------------------------------------
    @classmethod
    def from_position(
        cls, state: Any, rules: RuleSet | None = None, seed: int | None = 0,
        names: Sequence[str] | None = None,
    ) -> Game:
        """A game set up in a chosen position (the ``state`` of SCENARIOS.md).

        The cards the position names are all the cards of that game. Raises
        :class:`PositionError` naming the problem when the position cannot be.
        """
        rules = rules or RuleSet.default()
        if not isinstance(state, dict):
            raise PositionError("state must be an object with players, deck, discard, active, phase")
        known_keys = {"active", "phase", "players", "deck", "discard", "extra_turn", "turn"}
        extra = sorted(set(state) - known_keys)
        if extra:
            raise PositionError(f"state has unknown key {extra[0]!r}; expected {sorted(known_keys)}")
        players = state.get("players")
        if not isinstance(players, list):
            raise PositionError("state.players must be a list with one entry per seat")
        n = len(players)
        if not rules.min_players <= n <= rules.max_players:
            raise PositionError(
                f"state.players has {n} seats; this rule set plays {rules.min_players} to {rules.max_players} (R2.1)"
            )
        seen: dict[str, str] = {}

        def cards_of(value: Any, where: str) -> list[int]:
            if not isinstance(value, list):
                raise PositionError(f"{where} must be a list of card names, got {value!r}")
            out = []
            for i, name in enumerate(value):
                if not isinstance(name, str):
                    raise PositionError(f"{where}[{i}] must be a card name, got {name!r}")
                if name not in ID_OF_NAME:
                    try:
                        Card(name)
                    except ValueError as e:
                        raise PositionError(f"{where}[{i}]: {e}") from None
                if name in seen:
                    raise PositionError(
                        f"{where}[{i}]: card {name!r} appears twice (also in {seen[name]}); names are unique (R1.1)"
                    )
                seen[name] = where
                out.append(ID_OF_NAME[name])
            return out

        hands: list[list[int]] = []
        cts: list[int] = []
        for i, p in enumerate(players):
            if not isinstance(p, dict):
                raise PositionError(f"state.players[{i}] must be an object with 'hand' and 'ct'")
            bad = sorted(set(p) - {"hand", "ct"})
            if bad:
                raise PositionError(f"state.players[{i}] has unknown key {bad[0]!r}; expected hand and ct")
            if "hand" not in p:
                raise PositionError(f"state.players[{i}] has no 'hand'")
            hands.append(cards_of(p["hand"], f"state.players[{i}].hand"))
            ct = p.get("ct", 0)
            if not isinstance(ct, int) or isinstance(ct, bool) or ct < 0:
                raise PositionError(f"state.players[{i}].ct must be a whole number >= 0, got {ct!r}")
            if ct >= rules.victory_ct:
                raise PositionError(
                    f"state.players[{i}].ct is {ct}: at {rules.victory_ct} CT the game would already be over (R8.1)"
                )
            cts.append(ct)
        deck = cards_of(state.get("deck", []), "state.deck")
        discard = cards_of(state.get("discard", []), "state.discard")
        active = state.get("active", 0)
        if not isinstance(active, int) or isinstance(active, bool) or not 0 <= active < n:
            raise PositionError(f"state.active must be a seat 0..{n - 1}, got {active!r}")
        phase = state.get("phase", "action")
        if phase not in ("rise", "action", "meld"):
            raise PositionError(f"state.phase must be 'rise', 'action' or 'meld', got {phase!r}")
        extra_turn = state.get("extra_turn", False)
        if not isinstance(extra_turn, bool):
            raise PositionError(f"state.extra_turn must be true or false, got {extra_turn!r}")
        turn = state.get("turn", 1)
        if not isinstance(turn, int) or isinstance(turn, bool) or turn < 1:
            raise PositionError(f"state.turn must be a whole number >= 1, got {turn!r}")
        supply = None
        if rules.ct_supply is not None:
            supply = rules.ct_supply - sum(cts)
            if supply < 0:
                raise PositionError(
                    f"the players hold {sum(cts)} CT but the supply has only {rules.ct_supply} in all (R1.3)"
                )

        g = cls.__new__(cls)
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        g._setup(rules, n, tuple(names) if names else tuple(f"seat {i}" for i in range(n)), seed)
        g.hands = hands
        g.ct = cts
        g.supply = supply
        g.deck = deck[::-1]
        g.discard = discard
        g.active = active
        g._first = active
        g.turn = turn
        g.extra_turn = extra_turn
        g.universe = tuple(sorted(ID_OF_NAME[name] for name in seen))
        g._start = {"state": state, "seed": seed}
        if phase == "rise":
            g._start_turn(count_turn=False)
        elif phase == "action":
            g._ask_action()
        else:
            g._ask_meld()
        g.opening_events = tuple(g._ev)
        g._ev = []
        return g

    # -- public read-only API -----------------------------------------------------
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
        ab = self._ability.name if self._ability is not None and self._dkind not in (_DECIDE_ACTION, _DECIDE_MELD, _DECIDE_FALL) else None
        return Decision(self._dplayer, self._dkind, self._dcount, ab)

    @property
    def to_move(self) -> int | None:
        return None if self.over else self._dplayer

    @property
    def pending_kind(self) -> str | None:
        """``pending.kind`` without building the :class:`Decision` (for search loops)."""
        return None if self.over else self._dkind

    @property
    def pending_count(self) -> int:
        """``pending.count`` without building the :class:`Decision` (0 once the game is over)."""
        return 0 if self.over else self._dcount

    @property
    def discard_steps_left(self) -> int:
        """Compact discard steps (ids from ``DISCARD_BASE``) still to take in the pending
        discard decision; 0 when the pending decision is not a discard."""
        return self._dcount - len(self._selected) if self.is_discard_decision else 0

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The whole truth about a hand (not for bots or clients: use :meth:`view`)."""
        return tuple([CARDS[c] for c in sorted(self.hands[seat])])  # ids sort in C

    def returns(self) -> list[float]:
        """+1 for the winner and -1 for the others; 0 for all in a draw or an unfinished game."""
        if not self.over or self.winner is None:
            return [0.0] * self.n
        return [1.0 if p == self.winner else -1.0 for p in range(self.n)]

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
            raise GameOverError(f"the game is over: no more decisions are taken ({_end_text(self)})", "R8.1")
        p = self._dplayer
        if action.player is not None and action.player != p:
            raise IllegalActionError(
                f"seat {action.player} may not decide now: the pending decision is seat {p}'s {self._dkind}",
                "R9.2",
            )
        kind = self._dkind
        self._ev = []
        if kind == _DECIDE_ACTION:
            if isinstance(action, Pass):
                self._actions.append(action)
                self._ev.append(_E(("pass", "R4.2", p, None, None, (), 0, 0, (), (), ())))
                self._ask_meld()
            elif isinstance(action, Basic):  # Advanced is a Basic too
                ability, cards, target = self._check_ability(action)
                self._actions.append(action)
                self._activate(ability, cards, target)
            else:
                raise self._wrong_kind(action, "pass, basic or advanced")
        elif kind == _DECIDE_MELD:
            if isinstance(action, Pass):
                self._actions.append(action)
                self._ev.append(_E(("pass", "R4.3", p, None, None, (), 0, 0, (), (), ())))
                self._enter_fall()
            elif isinstance(action, Meld):
                cards = self._check_meld(action)
                self._actions.append(action)
                self._meld(cards)
            else:
                raise self._wrong_kind(action, "pass or meld")
        elif kind == _DECIDE_VISION or kind == _DECIDE_FOUNDATIONS:
            if not isinstance(action, Take):
                raise self._wrong_kind(action, "take")
            pile = self.deck if kind == _DECIDE_VISION else self.discard
            cid = action.card.id
            if cid not in pile:
                where = "the deck" if kind == _DECIDE_VISION else "the discard pile"
                raise IllegalActionError(f"{action.card.name} is not in {where}", "R5.2" if kind == _DECIDE_VISION else "R5.3")
            self._actions.append(action)
            self._take(cid)
        else:  # a discard decision
            if not isinstance(action, Discard) or isinstance(action, Meld):
                raise self._wrong_kind(action, "discard")
            cards = self._check_discard(action)
            self._actions.append(action)
            self._resolve_discard(cards)
        self._decision += 1
        ev, self._ev = self._ev, []
        return ev

    @property
    def decision_number(self) -> int:
        """The number of the pending decision: 1 for the first, one more after every
        applied action or compact step (decisions that take themselves, R9.1, are not
        counted). A client sends it back with its answer (``apply(..., decision=n)``)."""
        return self._decision

    def _stale(self, decision: int) -> StaleDecisionError:
        return StaleDecisionError(
            f"this answers decision {decision}, but the game is at decision {self._decision}: "
            + ("it was already answered" if decision < self._decision else "no such decision yet"),
            "R9.2",
        )

    def _wrong_kind(self, action: Action, expected: str) -> IllegalActionError:
        return IllegalActionError(
            f"'{action.do}' does not answer the pending decision: seat {self._dplayer}'s "
            f"{self._dkind} takes {expected}", "R9"
        )

    def _check_cards_held(self, cards: Iterable[Card], player: int) -> list[int]:
        hand = self.hands[player]
        ids: list[int] = []
        for c in cards:
            if c.id in ids:
                raise IllegalActionError(f"{c.name} is named twice", "R9.2")
            if c.id not in hand:
                raise IllegalActionError(f"seat {player} does not hold {c.name}", "R9.2")
            ids.append(c.id)
        return ids

    def _check_ability(self, action: Basic) -> tuple[Ability, list[int], int]:
        p = self._dplayer
        tier = "advanced" if isinstance(action, Advanced) else "basic"
        rule = "R6.1" if tier == "advanced" else "R5"
        if not action.cards:
            raise IllegalActionError(f"a {tier} ability is paid with cards; none given", rule)
        ids = self._check_cards_held(action.cards, p)
        suits = {SUIT_OF[c] for c in ids}
        if len(suits) != 1:
            raise IllegalActionError(
                f"an ability is paid with cards of one suit; got {', '.join(sorted(Suit(s).title for s in suits))}", rule
            )
        suit = suits.pop()
        ability = (self.rules.advanced if tier == "advanced" else self.rules.basic)[suit]
        if ability is None:
            raise IllegalActionError(f"{Suit(suit).title} has no {tier} ability in this rule set", "R10")
        if len(ids) != ability.cards:
            raise IllegalActionError(
                f"{ability.name} costs exactly {ability.cards} {Suit(suit).title} card"
                f"{'s' if ability.cards != 1 else ''}; {len(ids)} given", rule
            )
        target = action.target
        if ability.targets:
            if target is None:
                if self.n != 2:
                    raise IllegalActionError(
                        f"{ability.name} chooses an opponent: give a 'target' seat", "R5.1"
                    )
                target = 1 - p
            if not 0 <= target < self.n:
                raise IllegalActionError(f"target seat {target} does not exist (seats 0..{self.n - 1})", "R5.1")
            if target == p:
                raise IllegalActionError(f"{ability.name} targets an opponent, not seat {p} itself", "R5.1")
        else:
            if target is not None:  # R9.2: rejected whatever seat it names
                raise IllegalActionError(
                    f"{ability.name} does not choose an opponent: remove 'target' (seat {target})", "R9.2"
                )
            target = -1
        return ability, ids, target

    def _check_meld(self, action: Meld) -> list[int]:
        p = self._dplayer
        ids = self._check_cards_held(action.cards, p)
        r = self.rules
        need = len(r.meld_suits) + 1
        counts = [0] * 8
        for c in ids:
            counts[SUIT_OF[c]] += 1
        ok = (
            len(ids) == need
            and all(counts[s] == 1 for s in r.meld_suits)
            and sum(counts[s] for s in r.meld_one_of) == 1
        )
        if not ok:
            want = ", ".join(Suit(s).title for s in r.meld_suits)
            one = " or ".join(Suit(s).title for s in r.meld_one_of)
            got = ", ".join(f"{counts[s]} {Suit(s).title}" for s in range(8) if counts[s])
            raise IllegalActionError(
                f"a meld is exactly {need} cards: one each of {want}, and one {one}; got {got or 'nothing'}",
                "R7.1",
            )
        return ids

    def _check_discard(self, action: Discard) -> list[int]:
        p = self._dplayer
        ids = self._check_cards_held(action.cards, p)
        if len(ids) != self._dcount:
            raise IllegalActionError(
                f"the {self._dkind} decision discards exactly {self._dcount} card"
                f"{'s' if self._dcount != 1 else ''}; {len(ids)} given",
                "R4.4" if self._dkind == _DECIDE_FALL else "R9",
            )
        return ids

    # -- the flow of a turn -------------------------------------------------------
    def _start_turn(self, count_turn: bool = True, extra: bool = False) -> None:
        if count_turn:
            self.turn += 1
        self._ev.append(_E(("turn", "R4", self.active, None, None, (), 1 if extra else 0, self.turn, (), (), ())))
        self.phase = "rise"
        draw = self.rules.rise_draw
        if self._first_rises and not extra:  # a seat's first Rise (rule set's first_rise_draw)
            draw = self._first_rises[0]
            self._first_rises = self._first_rises[1:]
        self._draw(self.active, draw, "R4.1")
        self._ask_action()

    def _ask_action(self) -> None:
        self.phase = "action"
        self._dkind = _DECIDE_ACTION
        self._dplayer = self.active
        self._dcount = 0
        self._ability = None

    def _ask_meld(self) -> None:
        self.phase = "meld"
        self._dkind = _DECIDE_MELD
        self._dplayer = self.active
        self._dcount = 0
        self._ability = None

    def _enter_fall(self) -> None:
        self.phase = "fall"
        p = self.active
        excess = len(self.hands[p]) - self.rules.hand_limit
        if excess > 0:
            self._ability = None
            self._dkind = _DECIDE_FALL
            self._dplayer = p
            self._dcount = excess
            if excess >= len(self.hands[p]):  # R9.1: only one choice
                self._resolve_discard(list(self.hands[p]))
            return
        self._end_turn()

    def _end_turn(self) -> None:
        if self.turn >= self.rules.turn_limit:
            top = max(self.ct)
            self.drawn = tuple(p for p in range(self.n) if self.ct[p] == top)
            self.over = True
            self.winner = None
            self._ev.append(Event("draw_game", "R8.2", seats=self.drawn, amount=top))
            return
        extra = self.extra_turn
        if extra:
            self.extra_turn = False
        else:
            self.active = (self.active + 1) % self.n
        self._start_turn(extra=extra)

    # -- card movements -----------------------------------------------------------
    def _refill(self) -> bool:
        """R3.1: shuffle the discard pile into an empty deck. False if both are empty."""
        if not self.discard:
            return False
        self.deck = self.discard
        self.discard = []
        if self.chance is not None:
            self.chance.shuffle(self.deck)
        else:
            _shuffle(self._own_rng(), self.deck)
        self._ev.append(Event("reshuffle", "R3.1", count=len(self.deck)))
        return True

    def _draw(self, p: int, k: int, rule: str, ability: str | None = None) -> None:
        got: list[int] = []
        deck = self.deck
        knower = self._knower
        for _ in range(k):
            if not deck:
                if not self._refill():
                    break
                deck = self.deck
            c = deck.pop() if self.chance is None else deck.pop(self.chance.draw(deck))
            knower[c] = 0
            got.append(c)
        self.hands[p].extend(got)
        self._ev.append(_E(("draw", rule, p, None, ability, (), len(got), 0, tuple(got), (p,), ())))

    def _own_rng(self) -> random.Random:
        """The random source, copied first if a clone still shares it (copy on write)."""
        if self._rng_shared:
            rng = random.Random.__new__(random.Random)
            rng.setstate(self.rng.getstate())
            self.rng = rng
            self._rng_shared = False
        return self.rng

    def _draw_quiet(self, p: int, k: int) -> None:
        for _ in range(k):
            if not self.deck:
                break
            deck = self.deck
            self.hands[p].append(deck.pop() if self.chance is None else deck.pop(self.chance.draw(deck)))

    def _remove_from_hand(self, p: int, ids: list[int]) -> None:
        hand = self.hands[p]
        for c in ids:
            hand.remove(c)

    def _gain(self, p: int, amount: int, rule: str, ability: str | None) -> None:
        if self.supply is not None:
            amount = min(amount, self.supply)
            self.supply -= amount
        self.ct[p] += amount
        self._ev.append(_E(("gain_ct", rule, p, None, ability, (), 0, amount, (), (), ())))
        self._check_win(p)

    def _check_win(self, p: int) -> None:
        if self.ct[p] >= self.rules.victory_ct:
            self.over = True
            self.winner = p
            self._ability = None
            self._ev.append(Event("win", "R8.1", p, amount=self.ct[p]))

    # -- abilities ----------------------------------------------------------------
    def _activate(self, ability: Ability, cards: list[int], target: int) -> None:
        p = self.active
        self._remove_from_hand(p, cards)
        self.discard.extend(cards)  # R3.3: paid before the effect
        self._ev.append(_E(("activate", ability.rule, p, target if target >= 0 else None, ability.name,
                            tuple(cards), len(cards), 0, (), (), ())))
        self._ability = ability
        self._eff = 0
        self._target = target
        self._run_effects()

    def _run_effects(self) -> None:
        ability = self._ability
        assert ability is not None
        effects = ability.effects
        while self._eff < len(effects):
            e = effects[self._eff]
            self._eff += 1
            if self._effect(ability, e.op, e.amount):
                return  # waiting on a decision
            if self.over:
                return
        self._ability = None
        self._ask_meld()

    def _effect(self, ability: Ability, op: str, amount: int) -> bool:
        """Apply one effect primitive; True when it now waits on a decision."""
        p = self.active
        t = self._target
        rule = ability.rule
        name = ability.name
        if op == "gain_ct":
            self._gain(p, amount, rule, name)
        elif op == "draw":
            self._draw(p, amount, rule, name)
        elif op == "steal_cards":
            th = self.hands[t]
            k = min(amount, len(th))
            got = []
            rng = self._own_rng()
            knower = self._knower
            mask = 1 << t
            chance = self.chance
            for _ in range(k):
                i = int(rng.random() * len(th)) if chance is None else chance.pick(th)
                th[i], th[-1] = th[-1], th[i]
                c = th.pop()
                knower[c] = mask  # the victim knows where it went (R5.5)
                got.append(c)
            if k and self.n > 2:
                # the others saw only that cards left: none of them can still be
                # sure of any card of that hand
                keep = mask | (1 << p)
                for c in th:
                    knower[c] &= keep
            self.hands[p].extend(got)
            self._ev.append(Event("steal_cards", rule, p, t, name, count=k, secret=tuple(got), seen_by=(p, t)))
        elif op == "steal_ct":
            k = min(amount, self.ct[t])
            self.ct[t] -= k
            self.ct[p] += k
            self._ev.append(Event("steal_ct", rule, p, t, name, amount=k))
            self._check_win(p)
        elif op == "look_at_hand":
            bit = 1 << p
            knower = self._knower
            for c in self.hands[t]:
                knower[c] |= bit
            self._ev.append(Event("look", rule, p, t, name, count=len(self.hands[t]),
                            secret=tuple(self.hands[t]), seen_by=(p,)))
        elif op == "extra_turn":
            self.extra_turn = True
            self._ev.append(Event("extra_turn", "R6.4", p, ability=name))
        elif op == "discard" or op == "target_discards":
            who = p if op == "discard" else t
            return self._ask_discard(who, amount, DecisionKind.for_discard(op, ability.tier))
        elif op == "search_deck":
            self._dcount = amount
            return self._ask_search(_DECIDE_VISION)
        elif op == "search_discard":
            self._dcount = amount
            return self._ask_search(_DECIDE_FOUNDATIONS)
        else:  # pragma: no cover - RuleSet validates ops
            raise AssertionError(op)
        return False

    def _ask_discard(self, who: int, amount: int, kind: DecisionKind) -> bool:
        hand = self.hands[who]
        k = len(hand) if amount == ALL else amount
        self._dkind = kind
        self._dplayer = who
        self._dcount = k
        if k >= len(hand):  # R9.1 / R5.4: the whole hand, no choice
            if hand:
                self._discard_cards(who, list(hand))
            return False
        return True

    def _ask_search(self, kind: DecisionKind) -> bool:
        """Vision / Foundations: ask for a card, or take it when there is one choice (R9.1)."""
        while self._dcount > 0:
            if kind == _DECIDE_VISION:
                if not self.deck:
                    self._refill()  # R5.2
                pile = self.deck
            else:
                pile = self.discard
            if not pile:
                self._dcount = 0
                break
            if len(pile) > 1:
                self._dkind = kind
                self._dplayer = self.active
                return True
            self._dkind = kind
            self._take_one(pile[0])
        if kind == _DECIDE_VISION:
            if self.chance is not None:
                self.chance.shuffle(self.deck)
            else:
                _shuffle(self._own_rng(), self.deck)
            self._ev.append(Event("shuffle", "R5.2", self.active, ability=self._ability.name if self._ability else None))
        return False

    def _take_one(self, cid: int) -> None:
        p = self.active
        assert self._ability is not None
        name = self._ability.name
        if self._dkind == _DECIDE_VISION:
            self.deck.remove(cid)
            self._knower[cid] = 0
            self._ev.append(Event("take", self._ability.rule, p, ability=name, count=1, secret=(cid,), seen_by=(p,)))
        else:
            self.discard.remove(cid)
            self._knower[cid] = (1 << self.n) - 1  # the discard pile is public (R3.2)
            self._ev.append(Event("take", self._ability.rule, p, ability=name, cards=(cid,), count=1, amount=1))
        self.hands[p].append(cid)
        self._dcount -= 1

    def _take(self, cid: int) -> None:
        kind = self._dkind
        self._take_one(cid)
        if self._ask_search(kind):
            return
        self._run_effects()

    def _discard_cards(self, who: int, ids: list[int]) -> None:
        self._remove_from_hand(who, ids)
        self.discard.extend(ids)
        kind = self._dkind
        if kind == _DECIDE_FALL:
            rule, name = "R4.4", "Fall"
        else:
            assert self._ability is not None
            rule, name = self._ability.rule, self._ability.name
        self._ev.append(_E(("discard", rule, who, None, name, tuple(ids), len(ids), 0, (), (), ())))

    def _resolve_discard(self, ids: list[int]) -> None:
        self._selected = []
        if ids:
            self._discard_cards(self._dplayer, ids)
        if self._dkind == _DECIDE_FALL:
            self._end_turn()
        else:
            self._run_effects()

    def _meld(self, ids: list[int]) -> None:
        p = self.active
        r = self.rules
        # R7.2: the 7 cards go to the discard pile, then the CT, then the draw; a meld
        # that wins (R8.1) has left the hand and draws nothing
        self._remove_from_hand(p, ids)
        self.discard.extend(ids)
        self._ev.append(Event("meld", "R7.2", p, cards=tuple(ids), count=len(ids), amount=r.meld_ct))
        self._gain(p, r.meld_ct, "R7.2", "Meld")
        if self.over:
            return
        self._draw(p, r.meld_draw, "R7.2", "Meld")
        self._enter_fall()

    # -- legal actions (concrete) -------------------------------------------------
    def legal_actions(self) -> list[Action]:
        """Every legal concrete action for the pending decision (cards by name).

        Discard decisions can have many combinations; bots and learners usually want
        the compact space instead (:meth:`legal_ids`).
        """
        if self.over:
            return []
        p = self._dplayer
        hand = sorted(self.hands[p])
        kind = self._dkind
        out: list[Action] = []
        if kind == _DECIDE_ACTION:
            out.append(Pass())
            by_suit: list[list[int]] = [[] for _ in range(8)]
            for c in hand:
                by_suit[SUIT_OF[c]].append(c)
            for tier, table in ((Basic, self.rules.basic), (Advanced, self.rules.advanced)):
                for s in range(8):
                    ab = table[s]
                    if ab is None or len(by_suit[s]) < ab.cards:
                        continue
                    targets: list[int | None] = [t for t in range(self.n) if t != p] if ab.targets else [None]
                    for combo in combinations(by_suit[s], ab.cards):
                        cards = [CARDS[c] for c in combo]
                        for t in targets:
                            out.append(tier(cards, t))
        elif kind == _DECIDE_MELD:
            out.append(Pass())
            by_suit = [[] for _ in range(8)]
            for c in hand:
                by_suit[SUIT_OF[c]].append(c)
            r = self.rules
            if all(by_suit[s] for s in r.meld_suits):
                extras = [c for s in r.meld_one_of for c in by_suit[s]]
                for majors in product(*(by_suit[s] for s in r.meld_suits)):
                    for x in extras:
                        out.append(Meld([CARDS[c] for c in (*majors, x)]))
        elif kind == _DECIDE_VISION:
            out = [Take(CARDS[c]) for c in sorted(self.deck)]
        elif kind == _DECIDE_FOUNDATIONS:
            out = [Take(CARDS[c]) for c in sorted(set(self.discard))]
        else:
            out = [Discard([CARDS[c] for c in combo]) for combo in combinations(hand, self._dcount)]
        return out

    def is_legal(self, action: Action) -> bool:
        g = self.clone()
        try:
            g.apply(action)
        except IllegalActionError:
            return False
        return True

    # -- the compact action space -------------------------------------------------
    def legal_ids(self) -> list[int]:
        """Legal actions of the compact space (see :data:`NUM_ACTIONS`), ascending."""
        if self.over:
            return []
        kind = self._dkind
        p = self._dplayer
        counts = [0, 0, 0, 0, 0, 0, 0, 0]
        if kind == _DECIDE_ACTION:
            for c in self.hands[p]:
                counts[SUIT_OF[c]] += 1
            ids = [PASS_ID]
            for s, cost, opts in self._opts:
                if counts[s] >= cost:
                    ids.extend(opts)
            return ids
        if kind == _DECIDE_MELD:
            for c in self.hands[p]:
                counts[SUIT_OF[c]] += 1
            r = self.rules
            for s in r.meld_suits:
                if not counts[s]:
                    return [PASS_ID]
            return [PASS_ID, *(MELD_BASE + s for s in r.meld_one_of if counts[s])]
        if kind == _DECIDE_VISION or kind == _DECIDE_FOUNDATIONS:
            for c in self.deck if kind == _DECIDE_VISION else self.discard:
                counts[SUIT_OF[c]] = 1
            return [TAKE_BASE + s for s in range(8) if counts[s]]
        # a discard decision, one card at a time, suits in non-decreasing order
        for c in self.hands[p]:
            counts[SUIT_OF[c]] += 1
        low = 0
        for c in self._selected:
            counts[SUIT_OF[c]] -= 1
            low = SUIT_OF[c]
        need = self._dcount - len(self._selected)
        if need == 1:
            return [DISCARD_BASE + s for s in range(low, 8) if counts[s]]
        ids = []
        avail = 0
        for s in range(7, low - 1, -1):
            avail += counts[s]
            if counts[s] and avail >= need:
                ids.append(DISCARD_BASE + s)
        ids.reverse()
        return ids

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
                raise GameOverError(f"the game is over: no more decisions are taken ({_end_text(self)})", "R8.1")
            if aid not in self.legal_ids():
                raise IllegalActionError(
                    f"compact action {aid} ({describe_id(aid)}) is not legal for seat {self._dplayer}'s "
                    f"{self._dkind} now", "R9.2"
                )
        kind = self._dkind
        p = self._dplayer
        ev: list[Event] = []
        self._ev = ev
        self._decision += 1
        rec = self._actions
        if aid == PASS_ID:
            rec.append(_PASS)
            if kind == _DECIDE_ACTION:
                self._ev.append(_E(("pass", "R4.2", p, None, None, (), 0, 0, (), (), ())))
                self._ask_meld()
            else:
                self._ev.append(_E(("pass", "R4.3", p, None, None, (), 0, 0, (), (), ())))
                self._enter_fall()
        elif aid < TAKE_BASE:
            advanced = aid >= ADVANCED_BASE
            s, off = divmod(aid - (ADVANCED_BASE if advanced else BASIC_BASE), 8)
            ab = (self.rules.advanced if advanced else self.rules.basic)[s]
            assert ab is not None
            cards = sorted(c for c in self.hands[p] if SUIT_OF[c] == s)[: ab.cards]
            target = (p + off) % self.n if off else -1
            rec.append((Advanced if advanced else Basic, cards, target if target >= 0 else None))
            self._activate(ab, cards, target)
        elif aid < MELD_BASE:
            s = aid - TAKE_BASE
            pile = self.deck if kind == _DECIDE_VISION else self.discard
            c = min(c for c in pile if SUIT_OF[c] == s)
            rec.append((Take, c))
            self._take(c)
        elif aid < DISCARD_BASE:
            hand = self.hands[p]
            picks = [min(c for c in hand if SUIT_OF[c] == s) for s in (*self.rules.meld_suits, aid - MELD_BASE)]
            rec.append((Meld, picks))
            self._meld(picks)
        else:
            s = aid - DISCARD_BASE
            chosen = self._selected
            chosen.append(min(c for c in self.hands[p] if SUIT_OF[c] == s and c not in chosen))
            if len(chosen) < self._dcount:
                return []
            cards = list(chosen)
            rec.append((Discard, cards))
            self._resolve_discard(cards)
        return ev

    def action_for_id(self, aid: int) -> Action:
        """The concrete action a compact action stands for now (discard steps excepted)."""
        p = self._dplayer
        if aid == PASS_ID:
            return Pass()
        if BASIC_BASE <= aid < TAKE_BASE:
            advanced = aid >= ADVANCED_BASE
            s, off = divmod(aid - (ADVANCED_BASE if advanced else BASIC_BASE), 8)
            table = self.rules.advanced if advanced else self.rules.basic
            ab = table[s]
            if ab is None:
                raise IllegalActionError(f"{Suit(s).title} has no such ability in this rule set", "R10")
            mine = sorted(c for c in self.hands[p] if SUIT_OF[c] == s)[: ab.cards]
            target = (p + off) % self.n if off else None
            return (Advanced if advanced else Basic)([CARDS[c] for c in mine], target)
        if TAKE_BASE <= aid < MELD_BASE:
            s = aid - TAKE_BASE
            pile = self.deck if self._dkind == _DECIDE_VISION else self.discard
            cands = [c for c in pile if SUIT_OF[c] == s]
            if not cands:
                raise IllegalActionError(f"no {Suit(s).title} card to take", "R9.2")
            return Take(CARDS[min(cands)])
        if MELD_BASE <= aid < DISCARD_BASE:
            hand = self.hands[p]
            picks = []
            for s in (*self.rules.meld_suits, aid - MELD_BASE):
                cands = [c for c in hand if SUIT_OF[c] == s]
                if not cands:
                    raise IllegalActionError(f"no {Suit(s).title} card for a meld", "R7.1")
                picks.append(min(cands))
            return Meld([CARDS[c] for c in picks])
        raise IllegalActionError(f"compact action {aid} is not a whole action here", "R9.2")

    @property
    def is_discard_decision(self) -> bool:
        """Whether the pending decision is a ``*_discard`` (taken in compact steps)."""
        return not self.over and self._dkind not in (
            _DECIDE_ACTION, _DECIDE_MELD, _DECIDE_VISION, _DECIDE_FOUNDATIONS
        )

    def discard_for_ids(self, ids: Sequence[int]) -> Discard:
        """The concrete discard that a sequence of compact discard steps stands for."""
        p = self._dplayer
        chosen: list[int] = list(self._selected)
        for aid in ids:
            s = aid - DISCARD_BASE
            if not 0 <= s < 8:
                raise IllegalActionError(f"compact action {aid} is not a discard step", "R9.2")
            cands = [c for c in self.hands[p] if SUIT_OF[c] == s and c not in chosen]
            if not cands:
                raise IllegalActionError(f"seat {p} has no more {Suit(s).title} cards to discard", "R9.2")
            chosen.append(min(cands))
        return Discard([CARDS[c] for c in chosen])

    def id_for_action(self, action: Action) -> int:
        """The compact action an (ability, take, meld or pass) action belongs to."""
        if isinstance(action, Pass):
            return PASS_ID
        if isinstance(action, Basic):
            s = action.cards[0].suit
            ab = (self.rules.advanced if isinstance(action, Advanced) else self.rules.basic)[s]
            if ab is None or not ab.targets:
                off = 0
            elif action.target is None:
                off = 1  # two players: the other seat
            else:
                off = (action.target - self._dplayer) % self.n
            return (ADVANCED_BASE if isinstance(action, Advanced) else BASIC_BASE) + s * 8 + off
        if isinstance(action, Take):
            return TAKE_BASE + action.card.suit
        if isinstance(action, Meld):
            extra = [c for c in action.cards if c.suit in self.rules.meld_one_of]
            return MELD_BASE + (extra[0].suit if extra else 0)
        raise ValueError("a discard is several compact steps, one per card")

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
        """A copy for search: draws its chance from ``rng`` (the caller's) and keeps no action log."""
        return self._copy(rng, [], None)

    def _copy(self, rng: random.Random, actions: list[Action | tuple[Any, ...]],
              start: dict[str, Any] | None) -> Game:
        g = Game.__new__(Game)
        g.rules = self.rules
        g.n = self.n
        g.names = self.names
        g.hands = [h[:] for h in self.hands]
        g.ct = self.ct[:]
        g.deck = self.deck[:]
        g.discard = self.discard[:]
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
        g._dkind = self._dkind
        g._dplayer = self._dplayer
        g._dcount = self._dcount
        g._decision = self._decision
        g._ability = self._ability
        g._eff = self._eff
        g._target = self._target
        g._selected = self._selected[:]
        g._ev = []
        g._actions = actions
        g._start = start
        g._first = self._first
        g._first_rises = self._first_rises
        return g

    # -- views (the only way a seat sees the game) --------------------------------
    def view(self, seat: int | None) -> View:
        """What ``seat`` may know now; ``None`` for a spectator (public facts only).

        This is the single place where hidden information is filtered.
        """
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self.n):
            raise ValueError(f"seat must be 0..{self.n - 1} or None (spectator), got {seat!r}")
        knower = self._knower
        others = []
        for s in range(self.n):
            if s == seat:
                continue
            if seat is None:
                known: tuple[Card, ...] = ()
            else:
                bit = 1 << seat
                known = tuple([CARDS[c] for c in sorted([c for c in self.hands[s] if knower[c] & bit])])
            others.append(PlayerView(s, len(self.hands[s]), self.ct[s], known))
        pending = self.pending
        searching = None
        selecting: tuple[Card, ...] = ()
        if pending is not None and seat == pending.player:
            if pending.kind == _DECIDE_VISION:
                searching = tuple([CARDS[c] for c in sorted(self.deck)])
            selecting = tuple(CARDS[c] for c in self._selected)
        full = len(self.universe) == len(CARDS)
        return View(
            seat=seat,
            num_players=self.n,
            rules=self.rules,
            hand=self.hand(seat) if seat is not None else (),
            ct=self.ct[seat] if seat is not None else None,
            deck_size=len(self.deck),
            discard=tuple([CARDS[c] for c in self.discard]),
            players=tuple(others),
            active=self.active,
            phase=self.phase,
            turn=self.turn,
            extra_turn=self.extra_turn,
            pending=pending,
            over=self.over,
            winner=self.winner,
            drawn=self.drawn,
            supply=self.supply,
            resolving=self._ability.name if self._ability is not None else None,
            effect_index=self._eff if self._ability is not None else 0,
            resolving_target=self._target if self._ability is not None and self._target >= 0 else None,
            searching=searching,
            selecting=selecting,
            decision_number=self._decision,
            universe=None if full else tuple(CARDS[c] for c in self.universe),
            first_rises=self._first_rises,
        )

    def view_counts(self, seat: int) -> tuple[list[int], list[int], list[list[int]], list[int], list[int], Ability | None]:
        """What :meth:`view` shows ``seat`` of the cards, as counts per suit (R1.2: cards of
        one suit play alike), for fixed-size encodings that run every step (RL).

        Returns ``(hand, discard, known, searching, selecting, resolving)``: suit counts
        (8 each) of the seat's hand and of the discard pile; ``known[k]`` the suit counts of
        the cards the seat knows in the hand of seat ``(seat + k) % n`` (``known[0]`` is all
        zeros); the deck's content while this seat decides a Vision and the cards it has
        picked in a step-by-step discard (zeros otherwise); the ability being resolved.
        The same filter as :meth:`view` (tests check that they agree)."""
        if not (isinstance(seat, int) and 0 <= seat < self.n):
            raise ValueError(f"seat must be 0..{self.n - 1}, got {seat!r}")
        hands = self.hands
        knower = self._knower
        bit = 1 << seat
        n = self.n
        known = [[0] * 8]
        for k in range(1, n):
            known.append(_suit_counts([c for c in hands[(seat + k) % n] if knower[c] & bit]))
        searching = selecting = [0] * 8
        if not self.over and seat == self._dplayer:
            if self._dkind == _DECIDE_VISION:
                searching = _suit_counts(self.deck)
            selecting = _suit_counts(self._selected)
        return (_suit_counts(hands[seat]), _suit_counts(self.discard), known, searching, selecting,
                self._ability)

    def choices(self, seat: int | None) -> Choices:
        """What ``seat`` may do now, for a user interface (never a card it cannot see):
        see :mod:`civlite.engine.choices`."""
        return choices_for(self, seat)

    # -- whole truth, records -----------------------------------------------------
    def state_json(self) -> dict[str, Any]:
        """The whole truth in the ``state`` form of SCENARIOS.md (deck top first)."""
        p = self.pending
        return {
            "active": self.active,
            "phase": self.phase,
            "turn": self.turn,
            "extra_turn": self.extra_turn,
            "players": [{"hand": [NAMES[c] for c in sorted(h)], "ct": self.ct[i]}
                        for i, h in enumerate(self.hands)],
            "deck": [NAMES[c] for c in reversed(self.deck)],
            "discard": [NAMES[c] for c in self.discard],
            "pending": {"player": p.player, "decision": p.kind} if p else None,
            "over": self.over,
            "winner": self.winner,
        }

    def position(self) -> dict[str, Any]:
        """The position as a ``from_position`` input (knowledge and random state left out)."""
        phase = self.phase if self._dkind in (_DECIDE_ACTION, _DECIDE_MELD) else None
        if phase is None:
            raise ValueError("a position can be written only at an action or meld decision")
        return {
            "active": self.active, "phase": phase, "turn": self.turn,
            "extra_turn": self.extra_turn,
            "players": [{"hand": [NAMES[c] for c in sorted(h)], "ct": self.ct[i]}
                        for i, h in enumerate(self.hands)],
            "deck": [NAMES[c] for c in reversed(self.deck)],
            "discard": [NAMES[c] for c in self.discard],
        }

    def record(self) -> GameRecord:
        """Rule set, seed, players and the actions so far: replays to this game."""
        from .record import GameRecord

        return GameRecord(
            rules=self.rules, seed=self.seed, players=self.names, first=self._first,
            start=self._start, actions=self.actions,
            winner=self.winner, over=self.over, turns=self.turn,
        )

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
                f"{SUIT_LETTERS[SUIT_OF[c]]}:{NAMES[c]}" for c in sorted(h)))
        lines.append(f"  deck {len(self.deck)}, discard {len(self.discard)}")
        return "\n".join(lines)


_PASS = Pass()


_SUIT_BYTES = bytes(SUIT_OF) + bytes(256 - len(SUIT_OF))


def _suit_counts(cards: list[int]) -> list[int]:
    """Counts per suit of card ids (a hot path of RL encodings: a loop for a hand, one C
    pass per suit for a pile)."""
    if len(cards) < 16:
        out = [0] * 8
        for c in cards:
            out[SUIT_OF[c]] += 1
        return out
    b = bytes(cards).translate(_SUIT_BYTES)
    return [b.count(0), b.count(1), b.count(2), b.count(3), b.count(4), b.count(5), b.count(6), b.count(7)]


def _shuffle(rng: random.Random, pile: list[int]) -> None:
    """Exactly ``rng.shuffle(pile)`` (the same permutation and random state after, so
    records replay), without a Python call per card: reshuffles are a hot path."""
    getrandbits = rng.getrandbits
    for i in range(len(pile) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        pile[i], pile[j] = pile[j], pile[i]


#: builds an Event from all its fields in order (kind, rule, player, target, ability,
#: cards, count, amount, secret, seen_by, seats) without the keyword-argument
#: ``__new__``: events are made on every step, and this is three times faster
_E = partial(tuple.__new__, Event)


def _concrete(a: Action | tuple[Any, ...]) -> Action:
    """An action recorded by ``apply_id`` in raw form, as its concrete value."""
    if not isinstance(a, tuple):
        return a
    kind = a[0]
    if kind is Take:
        return Take(CARDS[a[1]])
    if kind is Basic or kind is Advanced:
        return kind([CARDS[c] for c in a[1]], a[2])
    return kind([CARDS[c] for c in a[1]])  # type: ignore[no-any-return]


def _ability_options(rules: RuleSet, n: int) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
    """(suit, cost, compact ids) of every ability, ascending by id, for ``n`` players."""
    opts: tuple[tuple[int, int, tuple[int, ...]], ...] | None = rules.cache.get(("options", n))
    if opts is None:
        out = []
        for base, table in ((BASIC_BASE, rules.basic), (ADVANCED_BASE, rules.advanced)):
            for s in range(8):
                ab = table[s]
                if ab is None:
                    continue
                ids = tuple(base + s * 8 + off for off in range(1, n)) if ab.targets else (base + s * 8,)
                out.append((s, ab.cards, ids))
        opts = tuple(out)
        rules.cache[("options", n)] = opts
    return opts


def describe_id(aid: int) -> str:
    """Readable name of a compact action: ``basic Raid -> +1``."""
    if aid == PASS_ID:
        return "pass"
    if BASIC_BASE <= aid < TAKE_BASE:
        adv = aid >= ADVANCED_BASE
        s, off = divmod(aid - (ADVANCED_BASE if adv else BASIC_BASE), 8)
        return f"{'advanced' if adv else 'basic'} {SUIT_LETTERS[s]}" + (f" -> +{off}" if off else "")
    if TAKE_BASE <= aid < MELD_BASE:
        return f"take {SUIT_LETTERS[aid - TAKE_BASE]}"
    if MELD_BASE <= aid < DISCARD_BASE:
        return f"meld with {SUIT_LETTERS[aid - MELD_BASE]}"
    if DISCARD_BASE <= aid < NUM_ACTIONS:
        return f"discard {SUIT_LETTERS[aid - DISCARD_BASE]}"
    return f"<no action {aid}>"


def _end_text(g: Game) -> str:
    if g.winner is not None:
        return f"seat {g.winner} won"
    return "a draw between seats " + ", ".join(str(s) for s in g.drawn)
