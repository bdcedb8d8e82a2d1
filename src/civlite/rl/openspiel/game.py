"""The games ``python_civlite`` and ``python_civlite_2p``, their states and observer (see :mod:`civlite.rl.openspiel`)."""

from __future__ import annotations

import hashlib
import json
import operator
import random
from typing import Any

import numpy as np
import pyspiel

from ...engine import ALL_CARDS, NUM_ACTIONS, SUIT_OF, RuleSet, describe_id, sample_world
from ..encoding import encode_game, obs_size
from ..spec import EVENT_RECORD
from ._core import _UNUSED_RNG, _Core
from ._memory import _capacity, _Config
from .implicit import ImplicitState

_DEFAULT_RULES = RuleSet.default()
#: the parameters and their defaults (``python_civlite_2p`` has all but ``players``)
DEFAULTS: dict[str, Any] = {"players": 2, "rules": "", "victory_ct": 0, "turn_limit": 0, "history": -1,
                            "chance": "exact", "chance_outcomes": 4, "chance_seed": 0}
_DEFAULTS_2P = {k: v for k, v in DEFAULTS.items() if k != "players"}


def _game_type(short_name: str, utility: Any, min_players: int, max_players: int,
               params: dict[str, Any], implicit: bool = False) -> Any:
    return pyspiel.GameType(
        short_name=short_name,
        long_name="Civ Lite: Ancients (civlite)" + (", 2 players" if max_players == 2 else ""),
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC if implicit
                     else pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC),
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
#: the types a game with ``chance="implicit"`` reports (no chance nodes: SAMPLED_STOCHASTIC), by
#: (registered name, whether it is zero-sum)
_IMPLICIT = {
    (name, zero): _game_type(name, pyspiel.GameType.Utility.ZERO_SUM if zero else pyspiel.GameType.Utility.GENERAL_SUM,
                             2 if name.endswith("_2p") else _DEFAULT_RULES.min_players,
                             2 if name.endswith("_2p") else _DEFAULT_RULES.max_players,
                             _DEFAULTS_2P if name.endswith("_2p") else DEFAULTS, implicit=True)
    for name in ("python_civlite", "python_civlite_2p") for zero in (False, True)
}


def _rules_from_params(params: dict[str, Any]) -> RuleSet:
    path = str(params.get("rules", "") or "")
    rules = RuleSet.load(path) if path else RuleSet.default()
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
        if mode not in ("exact", "sampled", "implicit"):
            raise ValueError(f"chance must be 'exact', 'sampled' or 'implicit', got {mode!r}")
        self.implicit = mode == "implicit"
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
            max_chance_outcomes=k if mode == "sampled" else 0 if self.implicit else self.rules.deck_span,
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if n == 2 else None,
            max_game_length=self.rules.turn_limit * 64,
        )
        # the seeds of the implicit game's deals, one per new_initial_state()
        self.seeds = random.Random(int(full["chance_seed"]))
        game_type = self._type(n)
        if self.implicit:
            game_type = _IMPLICIT[(game_type.short_name, n == 2)]
        super().__init__(game_type, info, full)

    def _type(self, n: int) -> Any:
        return _LOADED_2P if n == 2 else GAME_TYPE

    def new_initial_state(self) -> Any:
        if self.implicit:
            return ImplicitState(self)
        return CivLiteState(self)

    def deal(self, seed: int) -> ImplicitState:
        """With ``chance="implicit"``: the initial state of ``Game(players, seed=seed)`` (the deal
        that seed gives every interface), its chance drawn from the same seeded source."""
        if not self.implicit:
            raise ValueError("deal(seed) is for chance='implicit'; with chance nodes, use SeededChance(seed)")
        return ImplicitState(self, seed=seed)

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
        c._resampled_memory(core, player_id, world)
        core.dealt = []
        core.game = world
        core.pending = None
        core.script = []
        core.fiber = None
        core.pre = core.root = None
        core.tail = None
        core.candidates = []
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
            kept, dropped = c.kept(player)
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
                f" events {c.history_digest(player)}")

