"""PettingZoo AEC environment for Civ Lite.

>>> from civlite.rl.pettingzoo import env
>>> e = env(players=3)
>>> e.reset(seed=1)
>>> obs, reward, terminated, truncated, info = e.last()
>>> e.step(int(obs["action_mask"].nonzero()[0][0]))

Agents are ``player_0`` .. ``player_{n-1}`` (seat order). Each observation is a
dict: ``observation`` is :func:`civlite.rl.encoding.encode_view` of the agent's
own view (float32, fixed shape) and ``action_mask`` the int8 mask over the
engine's compact action space (``NUM_ACTIONS`` = 153; all zeros for an agent that
is not deciding). Several consecutive decisions can belong to the same agent
(discard steps, extra turns), and a Setback discard is decided by its *target*:
``agent_selection`` always names the agent whose decision is pending.

``reset(seed=s)`` deals exactly the game ``Game(players, seed=s)`` deals (the same
hands, draws and steals for the same actions), so ``civlite demo --seed s`` shows
that deal; a reset without a seed continues the sequence of the last seeded one.

Rewards are given once, at the end: +1 for the winner, -1 for the others.
Reaching the turn limit (R8.2) ends the game as a draw, reported as a
*truncation* (all ``truncations`` True, rewards 0, ``info["turn_limit"]``).

:func:`env` comes wrapped like PettingZoo's classic games: an illegal move ends
the game with ``illegal_reward`` (default -1) for the mover and 0 for the others
(``TerminateIllegalWrapper``; ``illegal_reward=None`` instead raises a
``ValueError`` naming the move), out-of-bounds actions are refused
(``AssertOutOfBoundsWrapper``) and the call order is enforced
(``OrderEnforcingWrapper``: ``reset()`` first). :func:`raw_env` is the bare
environment, which raises on an illegal move. ``render_mode="ansi"`` returns the
public table and the last move's log; ``"human"`` prints it.

Each observation is new arrays by default. With ``copy=False`` an agent's observations
are written into two arrays preallocated for it (no array is made per step, the fastest
loop): ``observe(agent)`` returns the same two arrays every time, read-only views of the
environment's memory overwritten by that agent's next observation, like
``gymnasium.vector``'s ``copy=False`` (copy what you keep, e.g. in a replay buffer).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env import AECIterable, AECIterator
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable

from ..engine import NUM_ACTIONS, Event, Game, RuleSet, Termination, describe_id
from .aec import AECCore
from .encoding import OBS_HIGH, ObservationBuffer, obs_size, render_table

__all__ = ["CivLiteAECEnv", "env", "raw_env"]


def _rules(rules: RuleSet | str | None) -> RuleSet:
    if rules is None:
        return RuleSet.default()
    if isinstance(rules, RuleSet):
        return rules
    return RuleSet.load(rules)


def next_seed(rng: random.Random) -> int:
    """The game seed of an unseeded reset: the next one of the last seeded reset's sequence."""
    return rng.getrandbits(63)


def _core_field(name: str, before_reset: bool = False) -> Any:
    """A read-write property over the field ``name`` of the bare environment's core (its
    ``_core``; a wrapper reaches it through ``_raw``). ``before_reset``: reading it before
    the first ``reset()`` raises ``AttributeError``, as PettingZoo's attribute would not
    exist yet."""

    def core(obj: Any) -> AECCore:
        return obj._core if isinstance(obj, CivLiteAECEnv) else obj._raw._core

    def get(obj: Any) -> Any:
        c = core(obj)
        if before_reset and not c.agent_selection:
            raise AttributeError(f"{name}: call reset() first")
        return getattr(c, name)

    def set_(obj: Any, value: Any) -> None:
        setattr(core(obj), name, value)

    return property(get, set_, doc=f"the core's ``{name}``")


class CivLiteAECEnv(AECEnv[str, dict[str, np.ndarray], int]):  # type: ignore[misc]
    """The AEC environment (use :func:`env` to build one).

    Its per-decision calls (``last``, ``step``, ``observe`` and the ``agent_iter``
    iterator) are the bound methods of a :class:`civlite.rl.aec.AECCore`, which runs
    compiled with the engine; this class keeps everything else, and every rare path those
    calls hand back (``_step_checked``, ``_finish``, PettingZoo's ``_was_dead_step``)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "civlite_v0",
                                          "is_parallelizable": False}

    def __init__(self, players: int = 2, rules: RuleSet | str | None = None, render_mode: str | None = None,
                 copy: bool = True) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        self.rules = _rules(rules)
        if not self.rules.min_players <= players <= self.rules.max_players:
            raise ValueError(f"{players} players: this rule set plays {self.rules.min_players} to {self.rules.max_players}")
        self.num_players = players
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        size = obs_size(players)
        obs_space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(0.0, OBS_HIGH, (size,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        })
        act_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._rng = random.Random()
        self.game: Game = Game(players, seed=0, rules=self.rules)
        self._last_events: list[Event] = []
        self.copy = copy
        #: per seat, the arrays that ``observe`` overwrites (and returns if ``copy`` is False,
        #: copies of them otherwise)
        buffers = [ObservationBuffer(players) for _ in range(players)]
        core = AECCore(self, self.game, self.possible_agents, copy, [b.store for b in buffers],
                       [b.observation for b in buffers], [b.mask for b in buffers])
        core.keep_events = render_mode is not None
        core.human = render_mode == "human"
        self._core = core
        # the per-decision calls, compiled (an instance's attributes come before its class's methods)
        self.observe = core.observe  # type: ignore[method-assign]
        self.last = core.last  # type: ignore[method-assign]
        self.step = core.step  # type: ignore[method-assign]

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    # -- the AEC state, kept by the core (PettingZoo's code reads and writes it here) ---
    agents: list[str] = _core_field("agents", before_reset=True)
    agent_selection: str = _core_field("agent_selection", before_reset=True)
    terminations: dict[str, bool] = _core_field("terminations")
    truncations: dict[str, bool] = _core_field("truncations")
    rewards: dict[str, float] = _core_field("rewards")
    _cumulative_rewards: dict[str, float] = _core_field("cumulative")
    infos: dict[str, dict[str, Any]] = _core_field("infos")

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- AEC API ------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
            game_seed = int(seed)
        else:
            game_seed = next_seed(self._rng)
        self.game = Game(self.num_players, seed=game_seed, rules=self.rules)
        self.game.quiet = self.render_mode is None  # events only for the render's log
        self._last_events = list(self.game.opening_events) if self.render_mode else []
        self._core.reset(self.game)  # the AEC state: agents, agent_selection, rewards, flags, infos

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation now (an instance's ``observe`` is its core's)."""
        return self._core.observe(agent)

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last`` (an instance's ``last`` is its core's)."""
        return self._core.last(observe)

    def step(self, action: int | None) -> None:
        """PettingZoo's ``step`` (an instance's ``step`` is its core's)."""
        self._core.step(action)

    def _step_checked(self, action: Any) -> None:
        """A live agent's step with anything but a legal ``int``: a clear error, or the move
        (a numpy integer, say)."""
        agent = self.agent_selection
        if action is None:
            raise ValueError(f"{agent} must act: its decision is {self.game.pending}")
        try:
            aid = int(action)
        except (TypeError, ValueError):
            raise ValueError(f"action {action!r} is not an action id (an int in 0..{NUM_ACTIONS - 1})") from None
        if aid not in self._core.legal:
            raise ValueError(f"action {aid} ({describe_id(aid) if 0 <= aid < NUM_ACTIONS else 'out of range'}) "
                             f"is not legal for {agent} now; use the observation's action_mask")
        self._core.play(agent, aid)

    def _finish(self) -> None:
        """The game has just ended: every agent's reward, termination or truncation, info."""
        g = self.game
        outcome = g.outcome()
        assert outcome is not None
        ret = outcome.returns()
        limit = outcome.termination is Termination.TURN_LIMIT  # R8.2: truncation, not termination
        for a in self.agents:
            self.rewards[a] = ret[self.agent_name_mapping[a]]
            self.terminations[a] = not limit
            self.truncations[a] = limit
            self.infos[a] = {"winner": outcome.winner, "drawn": list(outcome.drawn), "turns": g.turn,
                             "turn_limit": limit}
        self._accumulate_rewards()

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        return _RawIterable(self, max_iter)

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without render_mode; pass render_mode='ansi' or 'human'")
            return None
        text = render_table(self.game.view(None), [e.describe(None) for e in self._last_events])
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


class _RawIterable(AECIterable):  # type: ignore[misc]
    def __iter__(self) -> AECIterator:
        return self.env._core.iterate(self.max_iter)


def raw_env(players: int = 2, rules: RuleSet | str | None = None, render_mode: str | None = None,
            copy: bool = True) -> CivLiteAECEnv:
    """The environment without PettingZoo's wrappers (an illegal move raises ``ValueError``)."""
    return CivLiteAECEnv(players=players, rules=rules, render_mode=render_mode, copy=copy)


class _Direct:
    """The AEC state that every step reads (``agent_selection``, ``terminations``, ...) taken
    straight off the bare environment. PettingZoo's wrappers forward each attribute through
    ``__getattr__``, one Python call per layer per access, which cost as much as the game's
    own step; the behaviour is theirs unchanged (an attribute missing underneath still goes
    through their ``__getattr__``, e.g. the order check's error before ``reset()``)."""

    _raw: CivLiteAECEnv

    @property
    def agent_selection(self) -> str:
        return self._raw.agent_selection

    @property
    def agents(self) -> list[str]:
        return self._raw.agents

    @property
    def terminations(self) -> dict[str, bool]:
        return self._raw.terminations

    @property
    def truncations(self) -> dict[str, bool]:
        return self._raw.truncations

    @property
    def rewards(self) -> dict[str, float]:
        return self._raw.rewards

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        return self._raw.infos

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self._raw._cumulative_rewards


class _TerminateIllegal(_Direct, wrappers.TerminateIllegalWrapper):  # type: ignore[misc]
    """PettingZoo's illegal-move wrapper, its flags kept in the bare environment's core
    (which the compiled step reads and clears)."""

    def __init__(self, env: CivLiteAECEnv, illegal_reward: float) -> None:
        self._raw = env  # first: the wrapper's __init__ sets the flags below
        super().__init__(env, illegal_reward=illegal_reward)

    _terminated: bool = _core_field("terminated")
    _prev_obs: Any = _core_field("prev_obs")
    _prev_info: Any = _core_field("prev_info")


class _AssertOutOfBounds(_Direct, wrappers.AssertOutOfBoundsWrapper):  # type: ignore[misc]
    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    def step(self, action: int | None) -> None:
        # PettingZoo's check, with a fast path for a plain int in range
        if not (type(action) is int and 0 <= action < NUM_ACTIONS):
            super().step(action)
        else:
            self.env.step(action)


class _OrderEnforcing(_Direct, wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order check, outermost. Once ``reset()`` has run, the loop's three calls
    (``agent_iter``, ``last``, ``step``) are the bare environment's compiled core's:
    ``last`` is the bare ``last`` (the wrappers add no check to it: the illegal-move
    wrapper's ``observe`` would keep the observation for its step's mask check, which the
    fast step needs none of, and its own step, when it runs, observes afresh: the same mask,
    nothing has moved since); ``step`` with a plain ``int`` legal now does what the three
    wrappers' chain does then (no check can fail): the same state after the step. Anything
    else (an illegal or out-of-range action, ``None``, a numpy integer, a dead agent) goes
    through the wrappers unchanged, and so does every call before ``reset()``."""

    def __init__(self, env: AECEnv) -> None:
        self._raw = env.unwrapped  # first: the wrapper's __init__ sets _has_updated
        super().__init__(env)
        self._raw._core.enforcer = self

    _has_updated: bool = _core_field("has_updated")

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self._raw.agent_selection

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        return self._raw.agents

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)
        core = self._raw._core
        self.last = core.last
        self.step = core.enforced_step

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        if not self._has_reset:
            return super().agent_iter(max_iter)  # PettingZoo's error
        return _Iterable(self, max_iter)

    def _step_wrapped(self, action: int | None) -> None:
        """The step through PettingZoo's wrappers (the compiled core's slow path)."""
        wrappers.OrderEnforcingWrapper.step(self, action)


class _Iterable(AECOrderEnforcingIterable):  # type: ignore[misc]
    def __iter__(self) -> AECIterator:
        return self.env._raw._core.iterate(self.max_iter, True)


def env(players: int = 2, rules: RuleSet | str | None = None, render_mode: str | None = None,
        illegal_reward: float | None = -1.0, copy: bool = True) -> AECEnv:
    """The AEC environment wrapped like PettingZoo's classic games.

    ``players`` seats, a :class:`RuleSet` (or a rule-set TOML path); an illegal move ends
    the game with ``illegal_reward`` for its maker (``None``: it raises ``ValueError``).
    The wrappers are PettingZoo's own (``TerminateIllegalWrapper``,
    ``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``), subclassed only to read the
    per-step state without a ``__getattr__`` chain. ``copy``: see the module's description."""
    raw = raw_env(players=players, rules=rules, render_mode=render_mode, copy=copy)
    e: AECEnv = raw
    if illegal_reward is not None:
        e = _TerminateIllegal(raw, illegal_reward=illegal_reward)
    e = _AssertOutOfBounds(e)
    return _OrderEnforcing(e)
