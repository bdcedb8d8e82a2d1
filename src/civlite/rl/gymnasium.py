"""Gymnasium environment: one learning seat against civlite bots.

>>> from civlite.rl.gymnasium import SingleAgentEnv
>>> env = SingleAgentEnv(opponents=["random"])
>>> obs, info = env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.step(int(obs["action_mask"].nonzero()[0][0]))

The observation is the same dict as the PettingZoo environment's (the learner's
view encoding and the action mask). The opponents are bots made by
:func:`civlite.bots.make_bot` from spec strings (default one ``"heuristic"``), and
see only their own views. They play until the learner's next decision or the end.

An action outside the mask is replaced by the lowest legal action (so that
samplers that ignore the mask, such as Gymnasium's checker, can still step), the
step's ``info["illegal_action"]`` is then True and ``illegal_penalty`` is added to
its reward. ``action_masks()`` returns the current mask (the MaskablePPO
convention). Reward: +1 win, -1 loss, 0 draw, at the end.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from ..bots import Bot, make_bot, play_step
from ..engine import NUM_ACTIONS, Game, RuleSet
from .encoding import OBS_HIGH, encode_view, mask_array, obs_size, render_table
from .pettingzoo import _rules

__all__ = ["SingleAgentEnv"]


class SingleAgentEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """One learning seat (``seat``; ``"random"`` draws it each episode) against ``opponents``."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012

    def __init__(
        self,
        opponents: Sequence[str] = ("heuristic",),
        rules: RuleSet | str | None = None,
        seat: int | str = 0,
        illegal_penalty: float = 0.0,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.rules = _rules(rules)
        self.opponent_specs = list(opponents)
        self.num_players = len(self.opponent_specs) + 1
        if not self.rules.min_players <= self.num_players <= self.rules.max_players:
            raise ValueError(f"{self.num_players} players: this rule set plays "
                             f"{self.rules.min_players} to {self.rules.max_players}")
        if seat != "random" and not (isinstance(seat, int) and 0 <= seat < self.num_players):
            raise ValueError(f"seat must be 0..{self.num_players - 1} or 'random', got {seat!r}")
        self.seat_option = seat
        self.illegal_penalty = illegal_penalty
        self.render_mode = render_mode
        for spec in self.opponent_specs:
            make_bot(spec, seed=0)  # fail now (ValueError) on an unknown or unbuilt bot
        self.observation_space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(0.0, OBS_HIGH, (obs_size(self.num_players),), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        })
        self.action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self._rng = random.Random()
        self.seat = 0 if seat == "random" else int(seat)
        self.game = Game(self.num_players, seed=0, rules=self.rules)
        self.bots: dict[int, Bot] = {}

    def _obs(self) -> dict[str, np.ndarray]:
        g = self.game
        legal = g.legal_ids() if g.to_move == self.seat else []
        return {"observation": encode_view(g.view(self.seat)), "action_mask": mask_array(legal)}

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as a boolean array (for maskable learners)."""
        return self._obs()["action_mask"].astype(bool)

    def _info(self) -> dict[str, Any]:
        g = self.game
        info: dict[str, Any] = {"seat": self.seat, "turn": g.turn}
        if g.is_over:
            info["winner"] = g.winner
            info["drawn"] = list(g.drawn)
        return info

    def _play_opponents(self) -> None:
        g = self.game
        while not g.is_over and g.to_move != self.seat:
            seat = g.to_move
            assert seat is not None
            play_step(self.bots[seat], g)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        n = self.num_players
        if self.seat_option == "random":
            self.seat = self._rng.randrange(n)
        others = [s for s in range(n) if s != self.seat]
        self.bots = {s: make_bot(spec, seed=self._rng.getrandbits(63))
                     for s, spec in zip(others, self.opponent_specs, strict=True)}
        self.game = Game(n, seed=self._rng.getrandbits(63), rules=self.rules)
        self._play_opponents()
        return self._obs(), self._info()

    def step(self, action: np.int64 | int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        g = self.game
        if g.is_over:
            raise RuntimeError("the episode is over: call reset()")
        legal = g.legal_ids()
        aid = int(action)
        illegal = aid not in legal
        if illegal:
            aid = legal[0]
        g.apply_id(aid)
        self._play_opponents()
        reward = g.returns()[self.seat] if g.is_over else 0.0
        if illegal:
            reward += self.illegal_penalty
        info = self._info()
        info["illegal_action"] = illegal
        return self._obs(), float(reward), g.is_over, False, info

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return render_table(self.game.view(None))
