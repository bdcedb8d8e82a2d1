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
loop): ``observe(agent)`` returns the same two arrays every time, overwritten by that
agent's next observation, like ``gymnasium.vector``'s ``copy=False`` (copy what you keep,
e.g. in a replay buffer).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env import AECIterable
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from ..engine import NUM_ACTIONS, Event, Game, RuleSet, Termination, describe_id
from .encoding import OBS_HIGH, ObservationBuffer, obs_size, observe_game, render_table

__all__ = ["CivLiteAECEnv", "env", "raw_env"]


def _rules(rules: RuleSet | str | None) -> RuleSet:
    if rules is None:
        return RuleSet.default()
    if isinstance(rules, RuleSet):
        return rules
    return RuleSet.from_toml(rules)


def next_seed(rng: random.Random) -> int:
    """The game seed of an unseeded reset: the next one of the last seeded reset's sequence."""
    return rng.getrandbits(63)


class CivLiteAECEnv(AECEnv[str, dict[str, np.ndarray], int]):  # type: ignore[misc]
    """The AEC environment (use :func:`env` to build one)."""

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
        self._legal: list[int] = []
        self._mover = -1  # the seat deciding now (-1 once the game is over)
        self._last_events: list[Event] = []
        self.copy = copy
        #: per seat, the arrays that ``observe`` overwrites when ``copy`` is False
        self._buffers = [] if copy else [ObservationBuffer(players) for _ in range(players)]

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

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
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._last_events = list(self.game.opening_events) if self.render_mode else []
        self._legal = self.game.legal_ids()
        mover = self.game.to_move
        assert mover is not None
        self._mover = mover
        self.agent_selection = self.possible_agents[mover]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        legal = self._legal if seat == self._mover else []
        if self.copy:
            obs, mask = observe_game(self.game, seat, legal)
        else:
            obs, mask = self._buffers[seat].write(self.game, seat, legal)
        return {"observation": obs, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last`` (the same values), one Python call fewer per step."""
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        aid = action if type(action) is int else self._action_id(action)
        if aid not in self._legal:
            raise ValueError(f"action {aid} ({describe_id(aid) if 0 <= aid < NUM_ACTIONS else 'out of range'}) "
                             f"is not legal for {agent} now; use the observation's action_mask")
        self._play(agent, aid)

    def _play(self, agent: str, aid: int) -> None:
        """``step`` once its checks passed: ``aid`` is legal for ``agent``, who decides now."""
        g = self.game
        self._cumulative_rewards[agent] = 0.0
        events = g.apply_id(aid, False)
        if self.render_mode:
            self._last_events = events
        if g.over:
            outcome = g.outcome()
            assert outcome is not None
            self._legal = []
            self._mover = -1
            ret = outcome.returns()
            limit = outcome.termination is Termination.TURN_LIMIT  # R8.2: truncation, not termination
            for a in self.agents:
                self.rewards[a] = ret[self.agent_name_mapping[a]]
                self.terminations[a] = not limit
                self.truncations[a] = limit
                self.infos[a] = {"winner": outcome.winner, "drawn": list(outcome.drawn), "turns": g.turn,
                                 "turn_limit": limit}
            self._accumulate_rewards()
        else:
            self._legal = g.legal_ids()
            mover = g.to_move
            assert mover is not None
            self._mover = mover
            self.agent_selection = self.possible_agents[mover]
        if self.render_mode == "human":
            self.render()

    def _action_id(self, action: Any) -> int:
        if action is None:
            raise ValueError(f"{self.agent_selection} must act: its decision is {self.game.pending}")
        return int(action)

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
    def __init__(self, env: CivLiteAECEnv, illegal_reward: float) -> None:
        super().__init__(env, illegal_reward=illegal_reward)
        self._raw = env


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
    """PettingZoo's order check, outermost, with a fast path for the loop's three calls
    (``agent_iter``, ``last``, ``step``) when nothing is out of the ordinary: after
    ``reset()``, a plain ``int`` action that is legal now. That path does what the three
    wrappers' chain does then (no check can fail), without a call per layer: the same
    observation, the same state after the step. Anything else (an illegal or
    out-of-range action, ``None``, a numpy integer, a dead agent, a call before
    ``reset()``) goes through the wrappers unchanged."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped
        ti = env.env if isinstance(env, _AssertOutOfBounds) else None
        self._ti: _TerminateIllegal | None = ti if isinstance(ti, _TerminateIllegal) else None

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

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        if not self._has_reset:
            return super().agent_iter(max_iter)  # PettingZoo's error
        return _Iterable(self, max_iter)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            return super().last(observe)  # type: ignore[no-any-return]  # PettingZoo's error
        raw = self._raw
        agent = raw.agent_selection
        # TerminateIllegalWrapper.observe would keep this observation for its step's mask
        # check; the fast step needs none, and its own step, when it runs, observes afresh
        # (the same mask: nothing has moved since)
        return (raw.observe(agent) if observe else None, raw._cumulative_rewards[agent], raw.terminations[agent],
                raw.truncations[agent], raw.infos[agent])

    def step(self, action: int | None) -> None:
        raw = self._raw
        ti = self._ti
        if (self._has_reset and type(action) is int and action in raw._legal
                and (ti is None or not ti._terminated)):
            # legal now, so: in bounds, the agent is alive, the previous observation's mask allows it
            self._has_updated = True
            if ti is not None and ti._prev_obs is not None:  # kept by a call through the wrappers
                ti._prev_obs = None
                ti._prev_info = None
            raw._play(raw.agent_selection, action)
        else:
            super().step(action)


class _Iterable(AECOrderEnforcingIterable):  # type: ignore[misc]
    def __iter__(self) -> _Iterator:
        return _Iterator(self.env, self.max_iter)


class _Iterator(AECOrderEnforcingIterator):  # type: ignore[misc]
    """PettingZoo's order-enforcing iterator, reading the bare environment's state directly."""

    def __next__(self) -> str:
        env = self.env
        raw = env._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return raw.agent_selection  # type: ignore[no-any-return]


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
