"""OpenSpiel game ``python_civlite``: ``import civlite.rl.openspiel`` registers it.

>>> import pyspiel, civlite.rl.openspiel
>>> game = pyspiel.load_game("python_civlite", {"players": 3})

Parameters: ``players`` (2..8), ``rules`` (path of a rule-set TOML file, ``""`` for
the default rules) and ``victory_ct`` (``0``: the rule set's own; a convenience for
short games).

Chance is explicit. Every random event of the rules is a chance node whose
outcomes are card ids (``max_chance_outcomes`` = 112), each uniformly likely:

* the deal: one chance node per dealt card (the hands, then the first player's
  Rise draw);
* each card drawn from the deck (R4.1, abilities, melds): the deck is kept
  *unordered* and each draw picks its card by chance among the deck's cards. This
  is exactly a uniform shuffle (R3.1, R5.2) revealed one card at a time, so a
  reshuffle costs no chance node of its own and a Vision's re-shuffle changes
  nothing;
* each card taken at random by Raid or Conquest: a chance node over the
  victim's hand (R5.5).

How: the state wraps a :class:`civlite.engine.Game` at its last decision. A
player's action is applied to a copy (``clone_fast``) whose ``chance`` (the
engine's public :class:`civlite.engine.ChanceSource` hook, which decides every
draw, random steal and shuffle) reads a *script* of chance outcomes: ``draw`` and
``pick`` return the position of the scripted card, ``shuffle`` leaves the pile as
it is (the next draw picks its card anyway). When the script runs out, the copy
is dropped and the state becomes a chance node over the candidates (the pile or
the victim's hand); each chance outcome extends the script and replays the action
from the saved decision. When the action runs to the next decision, that game
(with ``chance`` back to ``None``) becomes the state.

Strings and tensors: the observation is the seat's :class:`View` (JSON string;
tensor :func:`civlite.rl.encoding.encode_view`). The information state has perfect
recall: its string adds a digest of every event the seat has seen, redacted for
it; its tensor is the observation tensor, then the seat's dealt hand (counts per
suit), then one record of 22 numbers per event the seat has seen, redacted for it
(kind, acting and target seat relative to the viewer, ability, count, amount,
public cards by suit, the cards it may see by suit; its own actions are among
these events), oldest first, for the last ``history`` events (a game parameter,
default 512: heuristic players' games had at most 288 events in 60 games, uniformly
random players' a median of 487 and up to 918 in 30; the last number counts the
events that no longer fit, and two histories that differ only there share a
tensor: raise ``history`` for exact perfect recall in long games). ``resample_from_infostate`` deals a world consistent with the seat's view
with :func:`civlite.engine.sample_world`, so OpenSpiel's own ``ISMCTSBot`` can
search it.

The 2-player game is declared zero-sum (returns +1/-1, or 0/0 for a draw at the turn
limit: they always sum to 0); with more players it is general-sum (+1 for the
winner and -1 for each other seat, 0 for all in a draw).

One seed, one deal: :class:`SeededChance` ``(seed)`` is a chance sampler
(``sampler(state) -> outcome``) that plays the chance nodes as
``Game(players, seed=seed)`` does (the deal, each draw and each random steal, for
the same player actions), so that ``python_civlite`` with it, ``Game(2, seed=5)``,
the PettingZoo and Gymnasium ``reset(seed=5)`` and ``civlite demo --seed 5`` deal the
same hands. A Vision or Foundations search takes a card of the chosen suit, which
may be another card of that suit here than in the engine's ordered deck (R1.2:
they play alike); from then on the sampler gives a card of the engine's suit when
the engine's own card is not possible (``sampler.exact`` turns False).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel

from ..engine import CARDS, NUM_ACTIONS, SUIT_OF, Event, Game, RuleSet, describe_id, sample_world
from .encoding import encode_game, obs_size

__all__ = ["GAME_TYPE", "GAME_TYPE_2P", "CivLiteGame", "CivLiteState", "SeededChance", "game_of"]

NUM_CARDS = len(CARDS)
_DEFAULT_RULES = RuleSet.default()

GAME_TYPE = pyspiel.GameType(
    short_name="python_civlite",
    long_name="Civ Lite: Ancients (civlite)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_DEFAULT_RULES.max_players,
    min_num_players=_DEFAULT_RULES.min_players,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
    parameter_specification={"players": 2, "rules": "", "victory_ct": 0, "history": 512},
)

#: the type of a 2-player game: zero-sum (returns +1/-1, or 0/0 for a draw)
GAME_TYPE_2P = pyspiel.GameType(
    short_name=GAME_TYPE.short_name,
    long_name=GAME_TYPE.long_name,
    dynamics=GAME_TYPE.dynamics,
    chance_mode=GAME_TYPE.chance_mode,
    information=GAME_TYPE.information,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=GAME_TYPE.reward_model,
    max_num_players=GAME_TYPE.max_num_players,
    min_num_players=GAME_TYPE.min_num_players,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
    parameter_specification=GAME_TYPE.parameter_specification,
)

#: event kinds, numbered from 1 in the information state tensor (another kind: len + 1)
EVENT_KINDS = ("activate", "discard", "draw", "draw_game", "extra_turn", "gain_ct", "look", "meld", "pass",
               "reshuffle", "shuffle", "steal_cards", "steal_ct", "take", "turn", "win")
_KIND_NUM = {k: i + 1 for i, k in enumerate(EVENT_KINDS)}
EVENT_RECORD = 22


class NeedChance(Exception):
    """Raised inside a replay when the script of chance outcomes has run out."""

    def __init__(self, candidates: Sequence[int]) -> None:
        super().__init__("chance outcome needed")
        self.candidates = sorted(candidates)


class _ScriptedChance:
    """The :class:`~civlite.engine.ChanceSource` of a replay: each outcome comes from the script.

    The deck is unordered: a shuffle does nothing and each draw takes the card the
    script names, wherever it lies in the pile.
    """

    __slots__ = ("outcomes", "pos")

    def __init__(self, outcomes: list[int]) -> None:
        self.outcomes = outcomes
        self.pos = 0

    def _next(self, cards: Sequence[int]) -> int:
        if self.pos < len(self.outcomes):
            c = self.outcomes[self.pos]
            self.pos += 1
            return cards.index(c)
        raise NeedChance(cards)

    def draw(self, pile: Sequence[int]) -> int:
        return self._next(pile)

    def pick(self, hand: Sequence[int]) -> int:
        return self._next(hand)

    def shuffle(self, pile: list[int]) -> None:
        pass


def _event_key(e: Event, seat: int) -> str:
    r = e.for_seat(seat)
    return (f"{r.kind}/{r.player}/{r.target}/{r.ability}/{r.cards}/{r.count}/{r.amount}/{r.secret}/{r.seats}"
            f"/{r.phase}/{r.turn}/{r.extra}/{r.source}")


class _Core:
    """Everything a state holds; copied by hand (never ``deepcopy`` a Game)."""

    __slots__ = ("candidates", "dealt", "digests", "events", "game", "n", "pending", "records", "rules", "script")

    def __init__(self, rules: RuleSet, n: int) -> None:
        self.rules = rules
        self.n = n
        self.dealt: list[int] = []
        self.game: Game | None = None
        self.pending: int | None = None  # the player action waiting on chance
        self.script: list[int] = []
        self.candidates: list[int] = list(range(NUM_CARDS))
        self.digests = [""] * n
        self.events: list[Event] = []  # every event since the deal (whole truth; redacted when read)
        self.records: list[list[tuple[float, ...]]] = [[] for _ in range(n)]  # per seat, filled when asked

    def copy(self) -> _Core:
        c = _Core.__new__(_Core)
        c.rules = self.rules
        c.n = self.n
        c.dealt = self.dealt[:]
        c.game = self.game.clone_fast(random.Random(0)) if self.game is not None else None
        c.pending = self.pending
        c.script = self.script[:]
        c.candidates = self.candidates[:]
        c.digests = self.digests[:]
        c.events = self.events[:]
        c.records = [r[:] for r in self.records]
        return c

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        return self.copy()

    def __copy__(self) -> _Core:
        return self.copy()

    # -- dynamics -----------------------------------------------------------------
    @property
    def deal_size(self) -> int:
        return min(NUM_CARDS, self.rules.hand_size * self.n + self.rules.rise_draw)

    def is_chance(self) -> bool:
        return self.game is None or self.pending is not None

    def apply_chance(self, card: int) -> None:
        if card not in self.candidates:
            raise ValueError(f"chance outcome {card} is not possible here")
        if self.game is None:
            self.dealt.append(card)
            self.candidates.remove(card)
            if len(self.dealt) == self.deal_size:
                self._start()
            return
        self.script.append(card)
        assert self.pending is not None
        self._run(self.pending)

    def apply_player(self, aid: int) -> None:
        assert self.game is not None and self.pending is None
        self.pending = aid
        self.script = []
        self._run(aid)

    def _start(self) -> None:
        r = self.rules
        hs = r.hand_size
        hands = [self.dealt[i * hs:(i + 1) * hs] for i in range(self.n)]
        hands[0] = hands[0] + self.dealt[hs * self.n:]
        deck = sorted(set(range(NUM_CARDS)) - set(self.dealt))
        state = {
            "players": [{"hand": [CARDS[c].name for c in h], "ct": 0} for h in hands],
            "deck": [CARDS[c].name for c in deck],
            "discard": [], "active": 0, "phase": "action", "turn": 1,
        }
        self.game = Game.from_position(state, r, seed=0)
        self.candidates = []

    def _run(self, aid: int) -> None:
        base = self.game
        assert base is not None
        chance = _ScriptedChance(self.script)
        g = base.clone_fast(random.Random(0))
        g.quiet = False  # clone_fast copies are quiet: the information state is made of the events
        g.chance = chance
        try:
            events = g.apply_id(aid)
        except NeedChance as need:
            self.candidates = need.candidates
            return
        if chance.pos != len(self.script):  # pragma: no cover - replays are deterministic
            raise AssertionError("chance script not consumed")
        g.chance = None
        self.game = g
        self.pending = None
        self.script = []
        self.candidates = []
        if events:
            self.events += events
            for seat in range(self.n):
                text = ";".join(_event_key(e, seat) for e in events)
                self.digests[seat] = hashlib.blake2b(
                    (self.digests[seat] + "|" + text).encode(), digest_size=12
                ).hexdigest()

    # -- what a seat sees -----------------------------------------------------------
    def dealt_hand(self, seat: int) -> list[int]:
        """The cards dealt to ``seat`` (with the first Rise's for seat 0), so far."""
        hs = self.rules.hand_size
        mine = [c for i, c in enumerate(self.dealt) if i < hs * self.n and i // hs == seat]
        if seat == 0:
            mine += self.dealt[hs * self.n:]
        return mine

    def view_string(self, seat: int) -> str:
        if self.game is None:
            mine = [CARDS[c].name for c in self.dealt_hand(seat)]
            return json.dumps({"seat": seat, "dealing": len(self.dealt), "hand": sorted(mine)})
        d = self.game.view(seat).to_json()
        if self.pending is not None and self.game.to_move == seat:
            d["acting"] = self.pending  # its own action, waiting on chance
        return json.dumps(d, sort_keys=True, separators=(",", ":"))


def _rules_from_params(params: dict[str, Any]) -> RuleSet:
    path = str(params.get("rules", "") or "")
    rules = RuleSet.from_toml(path) if path else RuleSet.default()
    v = int(params.get("victory_ct", 0) or 0)
    if v:
        rules = rules.with_changes(victory_ct=v)
    return rules


class CivLiteGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game; parameters ``players``, ``rules`` (TOML path), ``victory_ct``, ``history``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        full: dict[str, Any] = {"players": 2, "rules": "", "victory_ct": 0, "history": 512}
        full.update(params)
        self.history = int(full["history"])
        if self.history < 0:
            raise ValueError(f"history must be 0 or more events, got {self.history}")
        self.rules = _rules_from_params(full)
        n = int(full["players"])
        if not self.rules.min_players <= n <= self.rules.max_players:
            raise ValueError(f"{n} players: this rule set plays {self.rules.min_players} to {self.rules.max_players}")
        self.n = n
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=NUM_CARDS,
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if n == 2 else None,
            max_game_length=self.rules.turn_limit * 64,
        )
        super().__init__(GAME_TYPE_2P if n == 2 else GAME_TYPE, info, full)

    def new_initial_state(self) -> CivLiteState:
        return CivLiteState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> CivLiteObserver:
        return CivLiteObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self, params
        )


class CivLiteState(pyspiel.State):  # type: ignore[misc]
    """One state; ``state.core.game`` is the civlite Game at the last decision (None while dealing)."""

    def __init__(self, game: CivLiteGame, core: _Core | None = None) -> None:
        super().__init__(game)
        self.core = core if core is not None else _Core(game.rules, game.n)

    # -- OpenSpiel API ------------------------------------------------------------
    def current_player(self) -> int:
        c = self.core
        if c.is_chance():
            return int(pyspiel.PlayerId.CHANCE)
        assert c.game is not None
        if c.game.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        seat = c.game.to_move
        assert seat is not None
        return seat

    def _legal_actions(self, player: int) -> list[int]:
        g = self.core.game
        if g is None or g.is_over or g.to_move != player or self.core.pending is not None:
            return []
        return g.legal_ids()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        cands = self.core.candidates
        p = 1.0 / len(cands)
        return [(c, p) for c in cands]

    def _apply_action(self, action: int) -> None:
        if self.core.is_chance():
            self.core.apply_chance(int(action))
        else:
            self.core.apply_player(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance: {CARDS[action].name}"
        return describe_id(action)

    def is_terminal(self) -> bool:
        g = self.core.game
        return g is not None and g.is_over

    def returns(self) -> list[float]:
        g = self.core.game
        if g is None:
            return [0.0] * self.core.n
        return g.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CivLiteState:
        """A state drawn uniformly among those ``player_id`` cannot tell from this one."""
        c = self.core
        if c.game is None or c.pending is not None:
            raise ValueError("resample_from_infostate is supported at decision nodes only")
        if c.game.is_over:
            return self.clone()  # type: ignore[no-any-return]
        rng = random.Random(int(probability_sampler() * 2**62))
        world = sample_world(c.game.view(player_id), rng)
        core = c.copy()
        core.game = world
        return CivLiteState(self.get_game(), core)

    def __str__(self) -> str:
        c = self.core
        if c.game is None:
            return f"dealing: {len(c.dealt)} of {c.deal_size} cards dealt"
        s = str(c.game)
        if c.pending is not None:
            s += f"\n  pending chance after {describe_id(c.pending)} ({len(c.script)} outcomes so far)"
        return s


class CivLiteObserver:
    """Observer for strings and tensors (the PyObserver interface).

    Without perfect recall: the observation tensor (the seat's view encoding). With it
    (the information state): the view encoding, then the dealt hand by suit (8), then
    ``history`` event records of :data:`EVENT_RECORD` numbers, then the count of events
    that no longer fit."""

    def __init__(self, iig_obs_type: Any, game: CivLiteGame, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        n = game.n
        self.n = n
        self.rules = game.rules
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        size = obs_size(n)
        self.history = game.history if self.perfect_recall else 0
        total = size + (8 + self.history * EVENT_RECORD + 1 if self.perfect_recall else 0)
        self.tensor = np.zeros(total, np.float32)
        self.dict = {"observation": self.tensor[:size]}
        if self.perfect_recall:
            self.dict["dealt_hand"] = self.tensor[size:size + 8]
            self.dict["events"] = self.tensor[size + 8:total - 1].reshape(self.history, EVENT_RECORD)
            self.dict["events_dropped"] = self.tensor[total - 1:]
        self._ability_num = {a.name: (8 if a.tier == "advanced" else 0) + int(a.suit) + 1 for a in self.rules.abilities}

    def set_from(self, state: CivLiteState, player: int) -> None:
        c = state.core
        g = c.game
        self.tensor.fill(0.0)
        if g is None or not self.private:
            return
        self.dict["observation"][:] = encode_game(g, player)
        if self.perfect_recall:
            hand = self.dict["dealt_hand"]
            for card in c.dealt_hand(player):
                hand[SUIT_OF[card]] += 1.0
            records = c.records[player]
            events = c.events
            for e in events[len(records):]:  # each event is encoded once per seat, when first asked
                records.append(self._record(e.for_seat(player), player))
            keep = records[len(records) - self.history:] if self.history else []
            if keep:
                self.dict["events"][:len(keep)] = keep
            self.dict["events_dropped"][0] = float(len(records) - len(keep))

    def _record(self, e: Event, seat: int) -> tuple[float, ...]:
        n = self.n
        row = [0.0] * EVENT_RECORD
        row[0] = _KIND_NUM.get(e.kind, len(EVENT_KINDS) + 1)
        row[1] = 0.0 if e.player is None else (e.player - seat) % n + 1
        row[2] = 0.0 if e.target is None else (e.target - seat) % n + 1
        row[3] = self._ability_num.get(e.ability, 0) if e.ability else 0
        # numbers of the event: cards moved (or, for a turn's start, whether it is an extra
        # turn) and CT (or the turn's number), as in the first version of this record
        row[4] = e.count or float(e.extra)
        row[5] = e.amount or e.turn
        for card in e.cards:
            row[6 + SUIT_OF[card]] += 1.0
        for card in e.secret:
            row[14 + SUIT_OF[card]] += 1.0
        return tuple(row)

    def string_from(self, state: CivLiteState, player: int) -> str:
        c = state.core
        if not self.private:
            if c.game is None:
                return f"dealing {len(c.dealt)}"
            return json.dumps(c.game.view(None).to_json(), sort_keys=True, separators=(",", ":"))
        s = c.view_string(player)
        if self.perfect_recall:
            s += "|" + c.digests[player]
        return s


class SeededChance:
    """A chance sampler giving the outcomes ``Game(players, seed=seed)`` gives: one seed, one deal.

    ``outcome = sampler(state)`` at a chance node of ``python_civlite`` (a state played
    from ``new_initial_state()`` with this sampler deciding every chance node). It
    keeps a shadow :class:`~civlite.engine.Game` seeded with ``seed``, applies the
    state's player actions to it, and answers each chance node with the card the
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
    return state.core.game


pyspiel.register_game(GAME_TYPE, CivLiteGame)
