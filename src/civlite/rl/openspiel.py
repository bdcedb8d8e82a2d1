"""OpenSpiel games ``python_civlite`` and ``python_civlite_2p``: ``import civlite.rl.openspiel`` registers them.

>>> import pyspiel, civlite.rl.openspiel
>>> game = pyspiel.load_game("python_civlite", {"players": 3})

Parameters: ``players`` (2..8; ``python_civlite_2p`` has exactly 2 and no such
parameter), ``rules`` (path of a rule-set TOML file, ``""`` for the default rules),
``victory_ct`` and ``turn_limit`` (``0``: the rule set's own; a convenience for short
games), ``history`` (``-1``: the whole game, see below), ``chance`` (``"exact"`` or
``"sampled"``), ``chance_outcomes`` and ``chance_seed`` (the sampled model).

**Exact chance** (the default). Every random event of the rules is a chance node whose
outcomes are card ids (``max_chance_outcomes`` = 112, or one more than the largest id of
a rule set's ``[deck]``), each uniformly likely:

* the deal: one chance node per dealt card (the hands, then the first player's
  Rise draw);
* each card drawn from the deck (R4.1, abilities, melds): the deck is kept
  *unordered* and each draw picks its card by chance among the deck's cards. This
  is exactly a uniform shuffle (R3.1, R5.2) revealed one card at a time, so a
  reshuffle costs no chance node of its own and a Vision's re-shuffle changes
  nothing;
* each card taken at random by Raid or Conquest: a chance node over the
  victim's hand (R5.5).

**Sampled chance** (``chance="sampled"``), for CFR-family methods: the deal is one
chance node, and so is each player action that meets chance (every draw, steal and
shuffle it causes, to the next decision), each with ``chance_outcomes`` (K, default
4) outcomes ``0 .. K-1`` of probability 1/K. Outcome k resolves that node's chance
with a random source seeded by ``chance_seed``, the node's history and k, so the
game is a well-defined tree: an abstraction of the real game whose every chance
event has K equally likely results. The probability of a history is K to the power
minus its number of chance nodes (about one per turn), so reach probabilities stay
far from underflow in short games (``victory_ct``, ``turn_limit``).

How: the state holds a :class:`civlite.engine.Game`, and a player's action is applied to
it *in place*, in a greenlet (a "fiber", kept in a pool per thread), with a ``chance``
(the engine's public :class:`civlite.engine.ChanceSource` hook) that takes each outcome
from the action's *script* of chance outcomes. When the script runs out, the source
pauses the fiber inside the engine: the state is a chance node over the candidates (the
pile or the victim's hand, or with sampled chance K outcomes) and its outcome resumes the
action there. So every action runs once, whatever chance it meets, and a decision is
never copied. The game before a paused action (for the views and strings of a chance
node, and for its copies) is rebuilt when asked: a state keeps a snapshot at an earlier
decision (at most :data:`SNAPSHOT_EVERY` actions back), shared by its copies and never
changed, and the actions since with their chance outcomes, and replays them on a copy of
the snapshot (which then becomes the snapshot). A copy of a paused state (``clone()``,
pickling) has no fiber: its next outcome replays the action on the game before it, with
the script so far, in a fiber of its own. An action the engine refuses (an illegal one)
changes nothing.

**Information states** are at suit level, since cards of one suit are identical in
play (R1.2) and the actions name suits: histories that differ only in which card of
a suit was dealt or drawn share an information state. The tensor is the observation
tensor (:func:`civlite.rl.encoding.encode_game`), then the seat's dealt hand (counts
per suit, 8), then one record of :data:`EVENT_RECORD` numbers per event the seat has
seen, redacted for it (kind, acting and target seat relative to the viewer, ability,
count, amount — for a turn's start: whether it is an extra turn and its number —
public cards by suit, the cards it may see by suit; its own actions are among these
events, and since a k-card discard is k steps in suit order, the events fix them),
oldest first, then the count of events that no longer fit. By default (``history``
-1) the records hold the whole game: :data:`EVENTS_PER_TURN` per turn up to the turn
limit, plus one (at most 10 were seen in 3,000 uniformly random games of 2-8 players;
the rules bound a turn's events at 15). With the default rules and 2 players the tensor
has ``information_state_tensor_size()`` = 176,136 numbers (see
:func:`info_tensor_size`); a short variant (``turn_limit``) has a small one. A positive
``history`` keeps the last ``history`` events instead. The string is the seat, the
turn, the phase and a digest of exactly the tensor's content, so string and tensor
partition histories alike (perfect recall: equal strings, equal tensors, and the
other way round).

The observation is the seat's :class:`View` (JSON string without the decision's
number; tensor :func:`civlite.rl.encoding.encode_view`).

**Sampled worlds** (``resample_from_infostate(p, sampler)``) are built from what seat p
knows only: the present is :func:`civlite.engine.sample_world` of p's view (the cards p
cannot see dealt at random into the other hands and the deck), and the past is the
events *as p saw them*. In the world every other seat's information state is its view
of the sampled present, with no dealt hand (zeros: p never saw it) and the history as
p saw it (their secret cards left out); from the world on, events are the world's own.
So nothing of the truth beyond p's information state is in the world, for any seat: it
is a function of p's information state and the sampler alone. OpenSpiel's own
``ISMCTSBot`` can search it.

The 2-player game is zero-sum (returns +1/-1, or 0/0 for a draw at the turn limit:
they always sum to 0); with more players it is general-sum (+1 for the winner and -1
for each other seat, 0 for all in a draw). A registered game type cannot depend on
the parameters, so ``python_civlite`` (2..8 players) is registered general-sum (a
loaded 2-player game still reports ZERO_SUM) and ``python_civlite_2p`` is registered
ZERO_SUM.

One seed, one deal: :class:`SeededChance` ``(seed)`` is a chance sampler
(``sampler(state) -> outcome``) that plays the exact chance nodes as
``Game(players, seed=seed)`` does (the deal, each draw and each random steal, for
the same player actions), so that ``python_civlite`` with it, ``Game(2, seed=5)``,
the PettingZoo and Gymnasium ``reset(seed=5)`` and ``civlite demo --seed 5`` deal the
same hands. A Vision or Foundations search takes a card of the chosen suit, which
may be another card of that suit here than in the engine's ordered deck (R1.2:
they play alike); from then on the sampler gives a card of the engine's suit when
the engine's own card is not possible (``sampler.exact`` turns False).
"""

from __future__ import annotations

import bisect
import hashlib
import json
import operator
import random
import struct
import threading
from collections.abc import Sequence
from typing import Any

import greenlet
import numpy as np
import pyspiel

from ..engine import ALL_CARDS, NUM_ACTIONS, SUIT_OF, Event, Game, RuleSet, describe_id, sample_world
from .encoding import encode_game, obs_size
from .spec import EVENT_KINDS, EVENT_RECORD, EVENTS_PER_TURN

__all__ = ["EVENTS_PER_TURN", "EVENT_RECORD", "GAME_TYPE", "GAME_TYPE_2P", "CivLiteGame", "CivLiteGame2P",
           "CivLiteState", "SeededChance", "game_of", "info_tensor_size"]

_DEFAULT_RULES = RuleSet.default()
#: the parameters and their defaults (``python_civlite_2p`` has all but ``players``)
DEFAULTS: dict[str, Any] = {"players": 2, "rules": "", "victory_ct": 0, "turn_limit": 0, "history": -1,
                            "chance": "exact", "chance_outcomes": 4, "chance_seed": 0}
_DEFAULTS_2P = {k: v for k, v in DEFAULTS.items() if k != "players"}


def _game_type(short_name: str, utility: Any, min_players: int, max_players: int,
               params: dict[str, Any]) -> Any:
    return pyspiel.GameType(
        short_name=short_name,
        long_name="Civ Lite: Ancients (civlite)" + (", 2 players" if max_players == 2 else ""),
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=params,
    )


#: the registered type of ``python_civlite`` (2..8 players: general-sum)
GAME_TYPE = _game_type("python_civlite", pyspiel.GameType.Utility.GENERAL_SUM, _DEFAULT_RULES.min_players,
                       _DEFAULT_RULES.max_players, DEFAULTS)
#: the type of a 2-player game, registered as ``python_civlite_2p``: zero-sum (+1/-1, or 0/0 for a draw)
GAME_TYPE_2P = _game_type("python_civlite_2p", pyspiel.GameType.Utility.ZERO_SUM, 2, 2, _DEFAULTS_2P)
#: the type a loaded ``python_civlite`` game of 2 players reports
_LOADED_2P = _game_type("python_civlite", pyspiel.GameType.Utility.ZERO_SUM, _DEFAULT_RULES.min_players,
                        _DEFAULT_RULES.max_players, DEFAULTS)

_KIND_NUM = {k: i + 1 for i, k in enumerate(EVENT_KINDS)}
_RECORD = struct.Struct(f"<{EVENT_RECORD}f")
#: the random source of the copies: never drawn from (every chance outcome goes through ``chance``)
_UNUSED_RNG = random.Random(0)


def info_tensor_size(players: int, rules: RuleSet, history: int = -1) -> int:
    """The length of ``information_state_tensor`` (``history`` -1: the whole game)."""
    return obs_size(players) + 8 + _capacity(rules, history) * EVENT_RECORD + 1


def _capacity(rules: RuleSet, history: int) -> int:
    return rules.turn_limit * EVENTS_PER_TURN + 1 if history < 0 else history


#: what a fiber sends when a sampled action meets its chance node (resumed with the node's seed)
_SAMPLED_NODE = "sampled chance node"


class _ScriptedChance:
    """The :class:`~civlite.engine.ChanceSource` of an exact-chance action: each outcome comes from the script.

    The deck is unordered: a shuffle does nothing and each draw takes the card the
    script names, wherever it lies in the pile. When the script runs out, the fiber
    running the action pauses, sending the sorted candidates (the state is now a chance
    node over them), and goes on once the outcome is appended.
    """

    __slots__ = ("outcomes", "pos")

    def __init__(self, outcomes: list[int]) -> None:
        self.outcomes = outcomes
        self.pos = 0

    def _next(self, cards: Sequence[int]) -> int:
        pos = self.pos
        if pos == len(self.outcomes):
            parent = greenlet.getcurrent().parent  # the fiber's caller (see _fiber_loop)
            if parent is None:  # a replay outside a fiber has its whole script
                raise RuntimeError("the chance script ran out outside a fiber")
            parent.switch(sorted(cards))  # resumed once apply_chance has appended the outcome
        self.pos = pos + 1
        return cards.index(self.outcomes[pos])

    def draw(self, pile: Sequence[int]) -> int:
        return self._next(pile)

    def pick(self, hand: Sequence[int]) -> int:
        return self._next(hand)

    def shuffle(self, pile: list[int]) -> None:
        pass


class _SampledChance:
    """Sampled chance: the action's first draw, steal or shuffle pauses the fiber at the
    action's one chance node; from then on the i-th draw or steal among n cards takes
    ``hash((key, i)) % n``, the node's key a digest of the history and its outcome
    (``key`` given: a replay, which never pauses). Python's hash of a tuple of ints is
    the same in every process, so a replayed or deserialised state draws alike."""

    __slots__ = ("i", "key")

    def __init__(self, key: int | None = None) -> None:
        self.key = key
        self.i = 0

    def _index(self, n: int) -> int:
        key = self.key
        if key is None:
            key = self.key = self._node()
        i = self.i
        self.i = i + 1
        return hash((key, i)) % n

    def _node(self) -> int:
        parent = greenlet.getcurrent().parent
        if parent is None:
            raise RuntimeError("a sampled chance node met outside a fiber")
        key: int = parent.switch(_SAMPLED_NODE)  # resumed with the node's key
        return key

    def draw(self, pile: Sequence[int]) -> int:
        return self._index(len(pile))

    def pick(self, hand: Sequence[int]) -> int:
        return self._index(len(hand))

    def shuffle(self, pile: list[int]) -> None:
        if self.key is None:  # the deck is unordered: a shuffle is the node, and draws nothing
            self.key = self._node()


def _fiber_loop(job: tuple[Game, int]) -> None:
    """A fiber's life: apply ``(game, action)`` jobs, one at a time, for ever.

    Each job ends by switching to the fiber's parent (the caller of the job's last
    switch) with ``(events, None)`` or ``(None, error)``; a chance source switches to
    it in the middle of one (the candidates, or :data:`_SAMPLED_NODE`). A fiber dropped
    while paused is unwound by greenlet's ``GreenletExit`` (not caught here)."""
    while True:
        game, aid = job
        try:
            out: tuple[list[Event] | None, Exception | None] = (game.apply_id(aid), None)
        except Exception as e:  # the caller raises it
            out = (None, e)
        del game
        parent = greenlet.getcurrent().parent
        assert parent is not None
        job = parent.switch(out)


#: idle fibers, per thread (a greenlet runs in the thread that made it)
_POOL = threading.local()


def _idle_fibers() -> list[greenlet.greenlet]:
    try:
        pool: list[greenlet.greenlet] = _POOL.fibers
    except AttributeError:
        pool = _POOL.fibers = []
    return pool


class _Config:
    """What every state of one game shares."""

    __slots__ = ("capacity", "n", "outcome_tables", "rules", "sampled", "seed")

    def __init__(self, rules: RuleSet, n: int, capacity: int, sampled: int, seed: int) -> None:
        self.outcome_tables: dict[int, list[tuple[int, float]]] = {}  # chance_outcomes' pairs, per count
        self.rules = rules
        self.n = n
        self.capacity = capacity
        self.sampled = sampled  # K outcomes per chance node; 0: exact chance
        self.seed = seed


#: the persistent list of actions since a snapshot: ``(earlier, action, chance record, length)`` or None
_Tail = tuple[Any, int, Any, int] | None
#: a new snapshot every so many actions, so that rebuilding the game before a paused action
#: replays fewer than this many (a copy each time: about 1 us in 64 actions)
SNAPSHOT_EVERY = 64


class _Core:
    """Everything a state holds; copied by hand (never ``deepcopy`` a Game).

    ``game`` is the live game: at a decision node, that decision's; at a chance node with
    a ``fiber``, the game the paused action is changing; at one without (a copy), the
    game before the action, which the next outcome replays it on. ``root`` (a snapshot
    never changed, shared by copies) and ``tail`` (the actions since, with their chance)
    rebuild the game before a paused action when it is asked for (:meth:`view_game`)."""

    __slots__ = ("candidates", "cfg", "chains", "dealt", "events", "fiber", "game", "hands0", "path", "pending",
                 "pre", "records", "root", "script", "tail")

    def __init__(self, cfg: _Config) -> None:
        self.cfg = cfg
        n = cfg.n
        self.dealt: list[int] = []  # the deal so far, in chance order (exact chance)
        self.hands0: list[list[int]] = [[] for _ in range(n)]  # each seat's dealt hand, as this world knows it
        self.game: Game | None = None
        self.pending: int | None = None  # the player action waiting on chance
        self.script: list[int] = []  # its chance outcomes so far
        self.fiber: greenlet.greenlet | None = None  # the pending action, paused (None in a copy)
        self.pre: Game | None = None  # the game before the paused action, once rebuilt
        self.root: Game | None = None  # a snapshot at a decision (never changed)
        self.tail: _Tail = None  # the actions since ``root``
        self.candidates: list[int] = list(range(cfg.sampled)) if cfg.sampled else list(cfg.rules.deck)
        self.events: list[Event] = []  # every event since the deal (this world's truth; redacted when read)
        self.records: list[list[tuple[float, ...]]] = [[] for _ in range(n)]  # per seat, filled when asked
        self.chains: list[tuple[int, bytes]] = [(0, b"")] * n  # per seat: records digested, digest
        self.path = cfg.seed  # a digest of the history (the key of a sampled chance node)

    def copy(self) -> _Core:
        c = _Core.__new__(_Core)
        c.cfg = self.cfg
        c.dealt = self.dealt[:]
        c.hands0 = self.hands0  # never changed in place once dealt
        g = self.view_game()
        c.game = g.clone_fast(_UNUSED_RNG) if g is not None else None
        if c.game is not None:
            c.game.quiet = False
        c.pending = self.pending
        c.script = self.script[:]
        c.fiber = None  # a paused fiber is not copied: the copy replays (see apply_chance)
        c.pre = None
        c.root = self.root
        c.tail = self.tail
        c.candidates = self.candidates[:]
        c.events = self.events[:]
        c.records = [r[:] for r in self.records]
        c.chains = self.chains[:]
        c.path = self.path
        return c

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:  # pickled without its paused fiber (the copy replays)
        state = {k: getattr(self, k) for k in self.__slots__ if k not in ("fiber", "pre", "root", "tail")}
        state["game"] = self.view_game()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            setattr(self, k, v)
        self.fiber = self.pre = self.root = None
        self.tail = None

    def __copy__(self) -> _Core:
        return self.copy()

    # -- dynamics -----------------------------------------------------------------
    @property
    def deal_size(self) -> int:
        r = self.cfg.rules
        return min(len(r.deck), r.hand_size * self.cfg.n + r.rise_draw)

    def view_game(self) -> Game | None:
        """The game at the last decision: before the pending action, if there is one."""
        if self.fiber is None:
            return self.game
        pre = self.pre
        if pre is None:
            pre = self.pre = self._rebuild()
        return pre

    def _rebuild(self) -> Game:
        """The game before the paused action: the snapshot, with the actions since replayed
        on a copy (quiet, with their recorded chance); it becomes the new snapshot."""
        assert self.root is not None
        g = self.root.clone_fast(_UNUSED_RNG)
        steps = []
        t = self.tail
        while t is not None:
            t, aid, rec, _ = t
            steps.append((aid, rec))
        sampled = self.cfg.sampled
        for aid, rec in reversed(steps):
            if sampled:
                g.chance = _SampledChance(rec)
            else:
                g.chance = _ScriptedChance(list(rec))
            g.apply_id(aid, check=False)
        g.chance = None
        self.root = g.clone_fast(_UNUSED_RNG)
        self.tail = None
        g.quiet = False
        return g

    def apply_chance(self, outcome: int) -> None:
        cands = self.candidates  # sorted
        i = bisect.bisect_left(cands, outcome)
        if i == len(cands) or cands[i] != outcome:
            raise ValueError(f"chance outcome {outcome} is not possible here")
        self.path = hash((self.path, -1 - outcome))
        if self.game is None:
            if self.cfg.sampled:
                rng = random.Random(self.path)
                self.dealt = rng.sample(self.cfg.rules.deck, self.deal_size)  # as range(112) for the default
            else:
                self.dealt.append(outcome)
                cands.pop(i)
            if len(self.dealt) == self.deal_size:
                self._start()
            return
        assert self.pending is not None
        self.script.append(outcome)
        fiber = self.fiber
        if fiber is not None:
            try:
                fiber.parent = greenlet.getcurrent()
                msg = fiber.switch(self.path)  # the sampled source's key (ignored by the scripted one)
            except (greenlet.error, ValueError):  # another thread's fiber: replay here
                self.game = self.view_game()
                self.fiber = self.pre = None
            else:
                self._after(fiber, msg)
                return
        # a copy (or a foreign fiber's state): replay the action on the game before it, in a fiber
        g = self.game
        assert g is not None
        self._arm(g, self.path)
        self._run(g, self.pending)

    def apply_player(self, aid: int) -> None:
        g = self.game
        assert g is not None and self.pending is None
        path = self.path
        self.path = hash((path, aid))
        self.pending = aid
        self.script = []
        self._arm(g, None)
        try:
            self._run(g, aid)
        except Exception:  # refused before any change (an illegal action): the state is as it was
            self.path = path
            raise

    def _start(self) -> None:
        r = self.cfg.rules
        hs = r.hand_size
        n = self.cfg.n
        hands = [self.dealt[i * hs:(i + 1) * hs] for i in range(n)]
        hands[0] = hands[0] + self.dealt[hs * n:]
        deck = sorted(set(r.deck) - set(self.dealt))
        state = {
            "players": [{"hand": [ALL_CARDS[c].name for c in h], "ct": 0} for h in hands],
            "deck": [ALL_CARDS[c].name for c in deck],
            "discard": [], "active": 0, "phase": "action", "turn": 1,
        }
        g = Game.from_position(state, r, seed=0)
        g.rng = _UNUSED_RNG
        self.game = g
        self.hands0 = hands
        self.candidates = []

    def _arm(self, g: Game, key: int | None) -> None:
        """Ready ``g``, the game at the pending action's decision, to run it: a new snapshot if
        there is none (a state made by hand, unpickled or resampled) or the tail is long, and
        the chance source (sampled: ``key``, the node's, or None to pause at it; exact: the script)."""
        tail = self.tail
        if self.root is None or (tail is not None and tail[3] >= SNAPSHOT_EVERY):
            self.root = g.clone_fast(_UNUSED_RNG)
            self.tail = None
        g.chance = _SampledChance(key) if self.cfg.sampled else _ScriptedChance(self.script)

    def _run(self, g: Game, aid: int) -> None:
        """Apply ``aid`` to ``g`` in place, in a fiber that its chance source may pause."""
        pool = _idle_fibers()
        fiber = pool.pop() if pool else greenlet.greenlet(_fiber_loop)
        fiber.parent = greenlet.getcurrent()
        self._after(fiber, fiber.switch((g, aid)))

    def _after(self, fiber: greenlet.greenlet, msg: Any) -> None:
        """After the fiber switched back: a chance node to wait on, or the action done (or refused)."""
        if type(msg) is not tuple:  # paused at a chance node (``pre``, if built, is still the game before)
            self.fiber = fiber
            self.candidates = msg if msg is not _SAMPLED_NODE else list(range(self.cfg.sampled))
            return
        _idle_fibers().append(fiber)
        events, error = msg
        g = self.game
        assert g is not None
        g.chance = None
        aid = self.pending
        assert aid is not None
        self.pending = None
        self.fiber = self.pre = None
        if error is not None:
            self.script = []
            raise error
        if self.cfg.sampled:
            rec: Any = self.path if self.script else None
        else:
            rec = tuple(self.script)
        tail = self.tail
        self.tail = (tail, aid, rec, tail[3] + 1 if tail is not None else 1)
        self.script = []
        self.candidates = []
        if events:
            self.events += events

    # -- what a seat sees -----------------------------------------------------------
    def dealt_hand(self, seat: int) -> list[int]:
        """The cards dealt to ``seat`` (with the first Rise's for seat 0), as far as this world knows."""
        if self.game is not None:
            return self.hands0[seat]
        hs = self.cfg.rules.hand_size
        n = self.cfg.n
        mine = [c for i, c in enumerate(self.dealt) if i < hs * n and i // hs == seat]
        if seat == 0:
            mine += self.dealt[hs * n:]
        return mine

    def view_json(self, seat: int) -> dict[str, Any]:
        g = self.view_game()
        if g is None:
            mine = [ALL_CARDS[c].name for c in self.dealt_hand(seat)] if not self.cfg.sampled else []
            return {"seat": seat, "dealing": len(self.dealt), "hand": sorted(mine)}
        d = g.view(seat).to_json()
        d.pop("decision_number", None)  # the tensor has no such count: nor has the string
        if self.pending is not None and g.to_move == seat:
            d["acting"] = self.pending  # its own action, waiting on chance
        return d

    def seat_records(self, seat: int, ability_num: dict[str, int]) -> list[tuple[float, ...]]:
        """The seat's event records, oldest first (each event encoded once per seat, when first asked)."""
        records = self.records[seat]
        if len(records) < len(self.events):
            n = self.cfg.n
            for e in self.events[len(records):]:
                records.append(_record(e.for_seat(seat), seat, n, ability_num))
        return records

    def kept(self, seat: int, ability_num: dict[str, int]) -> tuple[list[tuple[float, ...]], int]:
        """The records the tensor keeps and the count of those that no longer fit."""
        records = self.seat_records(seat, ability_num)
        cap = self.cfg.capacity
        if len(records) <= cap:
            return records, 0
        return records[len(records) - cap:] if cap else [], len(records) - cap

    def history_digest(self, seat: int, ability_num: dict[str, int]) -> str:
        """A digest of the records the tensor keeps (and the dropped count), kept up to date by chaining."""
        kept, dropped = self.kept(seat, ability_num)
        if dropped:  # a window: digest it whole
            h = hashlib.blake2b(digest_size=16)
            for r in kept:
                h.update(_RECORD.pack(*r))
            return f"{dropped}+{h.hexdigest()}"
        done, digest = self.chains[seat]
        if done < len(kept):
            for r in kept[done:]:
                digest = hashlib.blake2b(digest + _RECORD.pack(*r), digest_size=16).digest()
            self.chains[seat] = (len(kept), digest)
        return f"{len(kept)}:{digest.hex()}"


def _record(e: Event, seat: int, n: int, ability_num: dict[str, int]) -> tuple[float, ...]:
    row = [0.0] * EVENT_RECORD
    row[0] = _KIND_NUM.get(e.kind, len(EVENT_KINDS) + 1)
    row[1] = 0.0 if e.player is None else (e.player - seat) % n + 1
    row[2] = 0.0 if e.target is None else (e.target - seat) % n + 1
    row[3] = ability_num.get(e.ability, 0) if e.ability else 0
    if e.kind == "turn":  # whether it is an extra turn, and its number
        row[4] = float(e.extra)
        row[5] = e.turn
    else:  # cards moved (or seen), and CT
        row[4] = e.count
        row[5] = e.amount
    for card in e.cards:
        row[6 + SUIT_OF[card]] += 1.0
    for card in e.secret:
        row[14 + SUIT_OF[card]] += 1.0
    return tuple(row)


def _ability_nums(rules: RuleSet) -> dict[str, int]:
    return {a.name: (8 if a.tier == "advanced" else 0) + int(a.suit) + 1 for a in rules.abilities}


def _rules_from_params(params: dict[str, Any]) -> RuleSet:
    path = str(params.get("rules", "") or "")
    rules = RuleSet.from_toml(path) if path else RuleSet.default()
    changes = {k: int(params.get(k, 0) or 0) for k in ("victory_ct", "turn_limit")}
    for k, v in changes.items():
        if v < 0:
            raise ValueError(f"{k} must be 0 (the rule set's own) or more, got {v}")
    changes = {k: v for k, v in changes.items() if v}
    return rules.with_changes(**changes) if changes else rules


class CivLiteGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game; parameters as in the module's notes (:data:`DEFAULTS`)."""

    _defaults: dict[str, Any] = DEFAULTS

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        full = dict(self._defaults)
        unknown = set(params or {}) - set(full)
        if unknown:
            raise ValueError(f"unknown parameters {sorted(unknown)}; known: {sorted(full)}")
        full.update(params or {})
        n = int(full.get("players", 2))
        self.history = int(full["history"])
        if self.history < -1:
            raise ValueError(f"history must be -1 (the whole game) or 0 or more events, got {self.history}")
        mode = str(full["chance"])
        if mode not in ("exact", "sampled"):
            raise ValueError(f"chance must be 'exact' or 'sampled', got {mode!r}")
        k = int(full["chance_outcomes"])
        if mode == "sampled" and not 1 <= k <= 1000:
            raise ValueError(f"chance_outcomes must be 1 to 1000, got {k}")
        self.rules = _rules_from_params(full)
        if not self.rules.min_players <= n <= self.rules.max_players:
            raise ValueError(f"{n} players: this rule set plays {self.rules.min_players} to {self.rules.max_players}")
        self.n = n
        self.cfg = _Config(self.rules, n, _capacity(self.rules, self.history), k if mode == "sampled" else 0,
                           int(full["chance_seed"]))
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=k if mode == "sampled" else self.rules.deck_span,
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if n == 2 else None,
            max_game_length=self.rules.turn_limit * 64,
        )
        super().__init__(self._type(n), info, full)

    def _type(self, n: int) -> Any:
        return _LOADED_2P if n == 2 else GAME_TYPE

    def new_initial_state(self) -> CivLiteState:
        return CivLiteState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> CivLiteObserver:
        return CivLiteObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self, params
        )


class CivLiteGame2P(CivLiteGame):
    """``python_civlite_2p``: the 2-player game, registered ZERO_SUM (no ``players`` parameter)."""

    _defaults = _DEFAULTS_2P

    def _type(self, n: int) -> Any:
        return GAME_TYPE_2P


class CivLiteState(pyspiel.State):  # type: ignore[misc]
    """One state; :func:`game_of` gives the civlite Game at its last decision (None while dealing)."""

    def __init__(self, game: CivLiteGame, core: _Core | None = None) -> None:
        super().__init__(game)
        self.core = core if core is not None else _Core(game.cfg)

    # -- OpenSpiel API ------------------------------------------------------------
    def current_player(self) -> int:
        c = self.core
        g = c.game
        if g is None or c.pending is not None:
            return -1  # pyspiel.PlayerId.CHANCE
        seat = g.to_move
        if seat is None:
            return -4  # pyspiel.PlayerId.TERMINAL
        return seat

    def _legal_actions(self, player: int) -> list[int]:
        g = self.core.game
        if g is None or g.over or g.to_move != player or self.core.pending is not None:
            return []
        return g.legal_ids()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        core = self.core
        cands = core.candidates
        n = len(cands)
        p = 1.0 / n
        # the (outcome, 1/n) pairs come from a table per n, picked in one C call
        tables = core.cfg.outcome_tables
        table = tables.get(n)
        if table is None:
            table = tables[n] = [(c, p) for c in range(core.cfg.sampled or core.cfg.rules.deck_span)]
        if n == 1:
            return [table[cands[0]]]
        return list(operator.itemgetter(*cands)(table))

    # The queries below answer as pyspiel.State's own would (legal actions: the chance
    # outcomes at a chance node, none at the end or for a seat not to move), from Python:
    # pyspiel's wrapper reaches the same answer through five calls back into this class
    # (current_player three times), 17 us against 3 us a call. C++ callers still go
    # through the wrapper, which asks current_player and _legal_actions.
    def legal_actions(self, player: int | None = None) -> list[int]:
        c = self.core
        g = c.game
        if g is None or c.pending is not None:
            return list(c.candidates)  # pyspiel: the chance outcomes, whoever asks
        if player is not None and player != g.to_move:
            return list(pyspiel.State.legal_actions(self, player))  # rare: pyspiel's own answer (or error)
        if g.over:
            return []
        return g.legal_ids()

    def is_chance_node(self) -> bool:
        c = self.core
        return c.game is None or c.pending is not None

    def is_player_node(self) -> bool:
        c = self.core
        g = c.game
        return g is not None and c.pending is None and not g.over

    def _apply_action(self, action: int) -> None:
        c = self.core
        if c.game is None or c.pending is not None:
            c.apply_chance(int(action))
        else:
            c.apply_player(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.core.cfg.sampled:
                return f"chance: outcome {action}"
            return f"chance: {ALL_CARDS[action].name}"
        return describe_id(action)

    def is_terminal(self) -> bool:
        c = self.core
        g = c.game
        return g is not None and c.pending is None and g.over

    def returns(self) -> list[float]:
        c = self.core
        g = c.game
        if g is None or c.pending is not None:
            return [0.0] * c.cfg.n
        return g.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CivLiteState:
        """A world drawn from what ``player_id`` knows only (see the module's notes).

        Its present is :func:`~civlite.engine.sample_world` of the seat's view; its past is
        the events as the seat saw them; the other seats' dealt hands are unknown to it."""
        c = self.core
        if c.game is None or c.pending is not None:
            raise ValueError("resample_from_infostate is supported at decision nodes only")
        if not 0 <= player_id < c.cfg.n:
            raise ValueError(f"no seat {player_id} in a game of {c.cfg.n}")
        if c.game.over:
            raise ValueError("the game is over: there is nothing to sample")
        rng = random.Random(int(probability_sampler() * 2**62))
        world = sample_world(c.game.view(player_id), rng)
        world.rng = _UNUSED_RNG
        world.quiet = False
        core = _Core.__new__(_Core)
        core.cfg = c.cfg
        core.dealt = []
        core.hands0 = [c.hands0[s] if s == player_id else [] for s in range(c.cfg.n)]
        core.game = world
        core.pending = None
        core.script = []
        core.fiber = None
        core.pre = core.root = None
        core.tail = None
        core.candidates = []
        core.events = [e.for_seat(player_id) for e in c.events]
        core.records = [c.records[s][:] if s == player_id else [] for s in range(c.cfg.n)]
        core.chains = [c.chains[s] if s == player_id else (0, b"") for s in range(c.cfg.n)]
        core.path = rng.getrandbits(62)  # the world's sampled chance owes nothing to the truth's history
        return CivLiteState(self.get_game(), core)

    def __str__(self) -> str:
        c = self.core
        g = c.view_game()
        if g is None:
            return f"dealing: {len(c.dealt)} of {c.deal_size} cards dealt"
        s = str(g)
        if c.pending is not None:
            s += f"\n  pending chance after {describe_id(c.pending)} ({len(c.script)} outcomes so far)"
        return s


class CivLiteObserver:
    """Observer for strings and tensors (the PyObserver interface).

    Without perfect recall: the observation tensor (the seat's view encoding). With it
    (the information state): the view encoding, then the dealt hand by suit (8), then
    the event records (:data:`EVENT_RECORD` numbers each; the whole game by default),
    then the count of events that no longer fit."""

    def __init__(self, iig_obs_type: Any, game: CivLiteGame, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        n = game.n
        self.n = n
        self.rules = game.rules
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        size = obs_size(n)
        self.capacity = game.cfg.capacity if self.perfect_recall else 0
        total = size + (8 + self.capacity * EVENT_RECORD + 1 if self.perfect_recall else 0)
        self.tensor = np.zeros(total, np.float32)
        self.dict = {"observation": self.tensor[:size]}
        if self.perfect_recall:
            self.dict["dealt_hand"] = self.tensor[size:size + 8]
            self.dict["events"] = self.tensor[size + 8:total - 1].reshape(self.capacity, EVENT_RECORD)
            self.dict["events_dropped"] = self.tensor[total - 1:]
        self._ability_num = _ability_nums(self.rules)

    def set_from(self, state: CivLiteState, player: int) -> None:
        c = state.core
        g = c.view_game()
        self.tensor.fill(0.0)
        if g is None or not self.private:
            return
        self.dict["observation"][:] = encode_game(g, player)
        if self.perfect_recall:
            hand = self.dict["dealt_hand"]
            for card in c.dealt_hand(player):
                hand[SUIT_OF[card]] += 1.0
            kept, dropped = c.kept(player, self._ability_num)
            if kept:
                self.dict["events"][:len(kept)] = kept
            self.dict["events_dropped"][0] = float(dropped)

    def string_from(self, state: CivLiteState, player: int) -> str:
        c = state.core
        g = c.view_game()
        if not self.private:
            if g is None:
                return f"dealing {len(c.dealt)}"
            d = g.view(None).to_json()
            d.pop("decision_number", None)
            return json.dumps(d, sort_keys=True, separators=(",", ":"))
        if not self.perfect_recall:
            return json.dumps(c.view_json(player), sort_keys=True, separators=(",", ":"))
        # exactly the tensor's content: the observation's bytes, the dealt hand by suit, the records
        if g is None:
            return f"seat {player} dealing"
        obs = hashlib.blake2b(encode_game(g, player).tobytes(), digest_size=12).hexdigest()
        hand = [0] * 8
        for card in c.dealt_hand(player):
            hand[SUIT_OF[card]] += 1
        return (f"seat {player} turn {g.turn} {g.phase} obs {obs} dealt {''.join(map(str, hand))}"
                f" events {c.history_digest(player, self._ability_num)}")


class SeededChance:
    """A chance sampler giving the outcomes ``Game(players, seed=seed)`` gives: one seed, one deal.

    ``outcome = sampler(state)`` at a chance node of ``python_civlite`` with exact chance
    (a state played from ``new_initial_state()`` with this sampler deciding every chance
    node). It keeps a shadow :class:`~civlite.engine.Game` seeded with ``seed``, applies
    the state's player actions to it, and answers each chance node with the card the
    shadow dealt, drew or stole there. See the module's notes for searches (``exact``).
    """

    def __init__(self, seed: int) -> None:
        self.seed = int(seed)
        self.exact = True
        self._shadow: Game | None = None
        self._seen: list[tuple[int, int]] = []
        self._outcomes: list[int] = []
        self._used = 0
        self._fallback = random.Random(self.seed)

    def _restart(self, game: CivLiteGame) -> None:
        g = Game(game.n, seed=self.seed, rules=game.rules)
        hs = game.rules.hand_size
        hands = g.hands
        # the deal in python_civlite's order: each seat's hand, then seat 0's first Rise
        self._outcomes = [c for p in range(game.n) for c in hands[p][:hs]] + hands[0][hs:]
        self._shadow = g
        self._seen = []
        self._used = 0
        self.exact = True

    def __call__(self, state: CivLiteState) -> int:
        if not state.is_chance_node():
            raise ValueError("SeededChance: the state is not a chance node")
        if state.core.cfg.sampled:
            raise ValueError("SeededChance plays exact chance nodes; this game has chance='sampled'")
        hist = [(int(h.player), int(h.action)) for h in state.full_history()]
        if self._shadow is None or hist[:len(self._seen)] != self._seen:
            self._restart(state.get_game())
        shadow = self._shadow
        assert shadow is not None
        for player, action in hist[len(self._seen):]:
            if player == pyspiel.PlayerId.CHANCE:
                self._used += 1
            elif not shadow.is_over:
                try:
                    events = shadow.apply_id(action)
                except ValueError:  # the games went apart (see ``exact``): chance from now on
                    self.exact = False
                    shadow.over = True
                    continue
                for e in events:
                    if e.kind in ("draw", "steal_cards"):
                        self._outcomes += e.secret
        self._seen = hist
        cands = [c for c, _ in state.chance_outcomes()]
        if self._used < len(self._outcomes):
            card = self._outcomes[self._used]
            if card in cands:
                return card
            self.exact = False
            same = [c for c in cands if SUIT_OF[c] == SUIT_OF[card]]
            if same:
                return same[0]
        else:
            self.exact = False
        return self._fallback.choice(cands)


def game_of(state: CivLiteState) -> Game | None:
    """The civlite Game at the state's last decision (``None`` while dealing)."""
    return state.core.view_game()


pyspiel.register_game(GAME_TYPE, CivLiteGame)
pyspiel.register_game(GAME_TYPE_2P, CivLiteGame2P)
