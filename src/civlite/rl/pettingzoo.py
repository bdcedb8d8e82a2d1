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

Rewards are given once, at the end: +1 for the winner, -1 for the others, 0 for
all in a draw (``Game.returns()``). The turn limit (R8.2) ends the game as a draw,
reported as a termination. ``render_mode="ansi"`` returns the public table.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from ..engine import NUM_ACTIONS, Game, RuleSet, describe_id
from .encoding import OBS_HIGH, encode_view, mask_array, obs_size, render_table

__all__ = ["CivLiteAECEnv", "env", "raw_env"]


def _rules(rules: RuleSet | str | None) -> RuleSet:
    if rules is None:
        return RuleSet.default()
    if isinstance(rules, RuleSet):
        return rules
    return RuleSet.from_toml(rules)


class CivLiteAECEnv(AECEnv[str, dict[str, np.ndarray], int]):  # type: ignore[misc]
    """The AEC environment (use :func:`env` to build one)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "civlite_v0", "is_parallelizable": False}

    def __init__(self, players: int = 2, rules: RuleSet | str | None = None, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
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
        self._last_events: list[str] = []

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- AEC API ------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.game = Game(self.num_players, seed=self._rng.getrandbits(63), rules=self.rules)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._last_events = []
        self._select()

    def _select(self) -> None:
        seat = self.game.to_move
        if seat is not None:
            self.agent_selection = self.possible_agents[seat]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        g = self.game
        obs = encode_view(g.view(seat))
        legal = g.legal_ids() if g.to_move == seat else []
        return {"observation": obs, "action_mask": mask_array(legal)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self.game
        if action is None:
            raise ValueError(f"{agent} must act: its decision is {g.pending}")
        aid = int(action)
        if not 0 <= aid < NUM_ACTIONS or aid not in g.legal_ids():
            raise ValueError(f"action {aid} ({describe_id(aid)}) is not legal for {agent} now; "
                             "use the observation's action_mask")
        self._cumulative_rewards[agent] = 0.0
        events = g.apply_id(aid)
        self._last_events = [e.describe(None) for e in events]
        if g.is_over:
            ret = g.returns()
            for a in self.agents:
                self.rewards[a] = ret[self.agent_name_mapping[a]]
                self.terminations[a] = True
                self.infos[a] = {"winner": g.winner, "drawn": list(g.drawn), "turns": g.turn}
        else:
            for a in self.agents:
                self.rewards[a] = 0.0
            self._select()
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without render_mode; pass render_mode='ansi'")
            return None
        return render_table(self.game.view(None), self._last_events)

    def close(self) -> None:
        pass


def raw_env(players: int = 2, rules: RuleSet | str | None = None, render_mode: str | None = None) -> CivLiteAECEnv:
    """The environment without PettingZoo's wrappers."""
    return CivLiteAECEnv(players=players, rules=rules, render_mode=render_mode)


def env(players: int = 2, rules: RuleSet | str | None = None, render_mode: str | None = None) -> CivLiteAECEnv:
    """The AEC environment: ``players`` seats, a :class:`RuleSet` (or a rule-set TOML path)."""
    return raw_env(players=players, rules=rules, render_mode=render_mode)
