"""PettingZoo's SB3 action-mask tutorial wrapper, made to run with Gymnasium 1.x.

PettingZoo's tutorial "SB3: Action Masked PPO" (``SB3ActionMaskWrapper``) turns an AEC
environment into the single environment that ``sb3_contrib``'s ``ActionMasker`` and
``MaskablePPO`` take: every agent's turn is a step of one policy (self-play). As
published it subclasses ``pettingzoo.utils.BaseWrapper`` alone, and Gymnasium 1.x's
``ActionMasker`` (a ``gymnasium.Wrapper``) refuses an environment that is not a
``gymnasium.Env``. This is the tutorial's wrapper with that one change (it also
subclasses ``gymnasium.Env``), so the tutorial's own training code runs on civlite:

>>> from sb3_contrib import MaskablePPO
>>> from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
>>> from sb3_contrib.common.wrappers import ActionMasker
>>> from civlite.rl.pettingzoo import env as civlite_env
>>> from civlite.rl.sb3_masking import SB3ActionMaskWrapper, mask_fn
>>> e = SB3ActionMaskWrapper(civlite_env(players=2))
>>> e.reset(seed=0)
>>> e = ActionMasker(e, mask_fn)
>>> model = MaskablePPO(MaskableActorCriticPolicy, e, seed=0, n_steps=64, batch_size=32)
>>> model = model.learn(total_timesteps=64)

As in the tutorial, the reward of a step is the *acting* agent's cumulative reward
after it, so every seat's moves train one shared policy.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo.utils import BaseWrapper

__all__ = ["SB3ActionMaskWrapper", "mask_fn"]


class SB3ActionMaskWrapper(BaseWrapper, gymnasium.Env):  # type: ignore[misc]
    """The tutorial's wrapper: ``reset``/``step`` in Gymnasium's form, observations without the mask."""

    def reset(self, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Gymnasium-like reset: the first agent's observation and an empty info."""
        BaseWrapper.reset(self, seed, options)  # as the tutorial's super(): BaseWrapper comes first
        # the spaces become attributes (not methods) for SB3
        agent = self.possible_agents[0]
        self.observation_space = BaseWrapper.observation_space(self, agent)["observation"]
        self.action_space = BaseWrapper.action_space(self, agent)
        return self.observe(self.agent_selection), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Gymnasium-like step: the next agent's observation, and the acting agent's reward and end."""
        current_agent = self.agent_selection
        super().step(action)
        next_agent = self.agent_selection
        return (self.observe(next_agent), self._cumulative_rewards[current_agent],
                self.terminations[current_agent], self.truncations[current_agent], self.infos[current_agent])

    def observe(self, agent: str) -> np.ndarray:
        """The agent's observation without its action mask."""
        obs: np.ndarray = super().observe(agent)["observation"]
        return obs

    def action_mask(self) -> np.ndarray:
        """The mask of the agent to act."""
        mask: np.ndarray = super().observe(self.agent_selection)["action_mask"]
        return mask


def mask_fn(env: gymnasium.Env[Any, Any]) -> np.ndarray:
    """``ActionMasker``'s mask function, as in the tutorial (``env`` is the wrapper)."""
    mask: np.ndarray = env.action_mask()  # type: ignore[attr-defined]
    return mask
