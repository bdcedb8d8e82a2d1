"""Gymnasium environment: one learning seat against civlite bots.

>>> import gymnasium, civlite.rl.gymnasium  # registers civlite/CivLite-v0
>>> env = gymnasium.make("civlite/CivLite-v0", opponents=["random"])
>>> obs, info = env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.step(int(obs["action_mask"].nonzero()[0][0]))

``gymnasium.make_vec("civlite/CivLite-v0", num_envs=8)`` gives a vector of them
(``vectorization_mode="vector_entry_point"``: the batched
:class:`civlite.rl.vector.CivLiteVectorEnv`, many games stepped in one call).

The observation is the same dict as the PettingZoo environment's (the learner's
view encoding and the action mask). The opponents are bots made by
:func:`civlite.bots.make_bot` from spec strings (default one ``"heuristic"``), and
see only their own views. They play until the learner's next decision or the end.

* ``reset(seed=s)`` deals the game ``Game(players, seed=s)`` deals (so ``civlite
  demo --seed s`` shows it); the learner's seat (``seat="random"``, the default:
  drawn per reset, since the first seat wins more often) and the bots' seeds come
  from the environment's own generator, seeded by ``s`` too.
* ``step()`` before ``reset()`` raises ``RuntimeError``.
* An action outside the mask (any element of the action space may be stepped, as
  Gymnasium expects) ends the episode by default, PettingZoo's classic convention: the
  step returns reward ``illegal_reward`` (-1), ``terminated=True``, an all-zero mask,
  ``info["illegal_action"] = True`` and ``info["illegal_reason"]`` saying why; the game
  is left as it was. ``strict=True`` raises ``ValueError`` instead (and changes
  nothing); ``illegal_penalty=x`` makes it a no-op with reward ``x`` (the episode goes
  on). So ``gymnasium.utils.env_checker.check_env`` and SB3's ``check_env`` pass with
  the default arguments.
* After the game's end every mask is all zeros (nothing is legal). In a
  ``gymnasium.vector.SyncVectorEnv`` (``vectorization_mode="sync"``, next-step
  autoreset) a row whose episode ended shows that all-zero mask until the next
  ``step()`` resets it, and that step's action for the row is ignored: a masked
  sampler must give such rows any action (e.g. 0) rather than sample from an empty
  mask. The batched ``vector_entry_point`` resets in the same step, so its masks are
  never empty.
* Reward: +1 win, -1 loss, at the end. The turn limit (R8.2, a draw) is a
  *truncation* (reward 0, ``info["turn_limit"]``), not a termination.

``action_masks()`` returns the current mask (the MaskablePPO convention).

Each observation is new arrays by default, as Gymnasium's ``check_env`` requires; with
``copy=False`` every step writes into the same two preallocated arrays and returns them,
read-only (the fastest loop, which that checker refuses by design: copy what you keep).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from ..bots import Bot, RandomBot, make_bot
from ..engine import NUM_ACTIONS, Game, RuleSet, Termination, describe_id
from .encoding import OBS_HIGH, ObservationBuffer, obs_size, render_table
from .pettingzoo import _rules

__all__ = ["ENV_ID", "SingleAgentEnv"]

ENV_ID = "civlite/CivLite-v0"


class SingleAgentEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """One learning seat (``seat``: a seat number or ``"random"``, per reset) against ``opponents``."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012

    def __init__(
        self,
        opponents: Sequence[str] = ("heuristic",),
        rules: RuleSet | str | None = None,
        seat: int | str = "random",
        illegal_penalty: float | None = None,
        render_mode: str | None = None,
        copy: bool = True,
        strict: bool = False,
        illegal_reward: float = -1.0,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        if isinstance(opponents, str):
            opponents = [s.strip() for s in opponents.split(",") if s.strip()]
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
        self.strict = strict
        self.illegal_reward = float(illegal_reward)
        self._ended = False  # the episode ended on an illegal action
        self.render_mode = render_mode
        for spec in self.opponent_specs:
            make_bot(spec, seed=0)  # fail now (ValueError) on an unknown or unbuilt bot
        self.observation_space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(0.0, OBS_HIGH, (obs_size(self.num_players),), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        })
        self.action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.seat = 0 if seat == "random" else int(seat)
        self.game: Game | None = None
        self.bots: dict[int, Bot] = {}
        self._legal: list[int] = []
        self.copy = copy
        #: the learner's observation, written in place every step (copies returned if ``copy``)
        self._buffer = ObservationBuffer(self.num_players)

    def _obs(self) -> dict[str, np.ndarray]:
        g = self.game
        assert g is not None
        obs, mask = self._buffer.write(g, self.seat, self._legal)
        if self.copy:
            return {"observation": obs.copy(), "action_mask": mask.copy()}
        return {"observation": obs, "action_mask": mask}

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as a boolean array (for maskable learners)."""
        mask = np.zeros(NUM_ACTIONS, bool)
        mask[self._legal] = True
        return mask

    def _info(self) -> dict[str, Any]:
        g = self.game
        assert g is not None
        info: dict[str, Any] = {"seat": self.seat, "turn": g.turn}
        if g.over:
            outcome = g.outcome()
            assert outcome is not None
            info["winner"] = outcome.winner
            info["drawn"] = list(outcome.drawn)
            info["turn_limit"] = outcome.termination is Termination.TURN_LIMIT
        return info

    def _play_opponents(self) -> None:
        g = self.game
        assert g is not None
        me = self.seat
        bots = self.bots
        while not g.over:
            seat = g.to_move
            if seat == me:
                self._legal = g.legal_ids()
                return
            assert seat is not None
            bot = bots[seat]
            legal = g.legal_ids()
            if type(bot) is RandomBot:  # it reads no view: skip building one
                g.apply_id(legal[int(bot.rng.random() * len(legal))], check=False)
            else:
                g.apply_id(bot.act(g.view(seat), legal), check=False)
        self._legal = []

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        n = self.num_players
        if self.seat_option == "random":
            self.seat = int(rng.integers(n))
        others = [s for s in range(n) if s != self.seat]
        self.bots = {s: make_bot(spec, seed=int(rng.integers(2**63)))
                     for s, spec in zip(others, self.opponent_specs, strict=True)}
        game_seed = int(seed) if seed is not None else int(rng.integers(2**63))
        self.game = Game(n, seed=game_seed, rules=self.rules)
        self.game.quiet = True  # nothing here reads events (the render shows the public table)
        self._ended = False
        self._play_opponents()
        return self._obs(), self._info()

    def step(self, action: np.int64 | int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        g = self.game
        if g is None:
            raise RuntimeError("step() before reset(): call reset() first")
        if g.is_over or self._ended:
            raise RuntimeError("the episode is over: call reset()")
        aid = int(action)
        if aid not in self._legal:
            why = (f"action {aid} ({describe_id(aid) if 0 <= aid < NUM_ACTIONS else 'out of range'}) is not legal "
                   f"now; the legal actions are {self._legal}")
            if self.strict:
                raise ValueError(f"{why} (use the action_mask; strict=False ends the episode with a penalty instead)")
            info = self._info()
            info["illegal_action"] = True
            info["illegal_reason"] = why
            if self.illegal_penalty is not None:  # a penalised no-op: the episode goes on
                return self._obs(), float(self.illegal_penalty), False, False, info
            self._ended = True
            self._legal = []
            return self._obs(), self.illegal_reward, True, False, info
        g.apply_id(aid, check=False)
        self._play_opponents()
        if not g.over:
            return self._obs(), 0.0, False, False, {"seat": self.seat, "turn": g.turn, "illegal_action": False}
        limit = g.winner is None
        info = self._info()
        info["illegal_action"] = False
        return self._obs(), float(g.returns()[self.seat]), not limit, limit, info

    def render(self) -> str | None:
        if self.render_mode is None or self.game is None:
            return None
        return render_table(self.game.view(None))


def _register() -> None:
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID,
            entry_point="civlite.rl.gymnasium:SingleAgentEnv",
            vector_entry_point="civlite.rl.vector:CivLiteVectorEnv",
        )


_register()
