"""Batched games: many games stepped in one call, numpy arrays in and out.

Two layers:

* :class:`BatchedGames` (self-play): ``num_games`` games; each call applies one
  action per game for whichever seat is deciding there, and returns the next
  decider's observation, its action mask, that seat, per-seat rewards and done
  flags. A game that ends is replaced by a new one *in the same call* (same-step
  autoreset): the returned observation is the new game's first, the rewards and
  flags are the ended game's.
* :class:`CivLiteVectorEnv`, a ``gymnasium.vector.VectorEnv`` (what
  ``gymnasium.make_vec("civlite/CivLite-v0", num_envs=N,
  vectorization_mode="vector_entry_point")`` builds): ``num_envs`` copies of
  :class:`civlite.rl.gymnasium.SingleAgentEnv` (one learning seat against bots,
  ``opponents=("random",)`` by default here, since bots that search cost far more
  than the games) stepped in one call, same-step autoreset
  (``infos["final_obs"]`` / ``infos["final_info"]`` hold the ended games' last
  observation and info).

Illegal actions in :class:`CivLiteVectorEnv` follow the Gymnasium environment's
convention (PettingZoo's classic one), row by row: an action outside a row's mask ends
that row's episode with reward ``illegal_reward`` (-1) and ``terminated`` True, its
game left as it was; ``infos["illegal_action"]`` (booleans, every step) marks the row,
``infos["illegal_reason"]`` says why, its ``final_info`` has ``illegal_action`` True and
the reason, and its ``final_obs`` has an all-zero mask; the row starts its next game in
the same step, like any other ended row. The other rows step as usual. ``strict=True``
raises ``ValueError`` instead (and changes nothing); ``illegal_penalty=x`` makes the
action a no-op with reward ``x`` (the episode goes on). :class:`BatchedGames` (self-play,
no learner) always raises.

Masks are never all zero here: a row whose game ends starts its next one in the same
step, so every returned row waits on its learner (only ``final_obs`` holds an ended
game's all-zero mask). A game that would end before the learner's first decision
(possible only with rules whose turn limit ends it first) is replaced by another.
Gymnasium's ``SyncVectorEnv`` over :class:`civlite.rl.gymnasium.SingleAgentEnv`
(``vectorization_mode="sync"``, next-step autoreset) differs: there a row whose episode
ended shows the all-zero mask until the next step resets it, and that step ignores its
action.

Seeds: ``reset(seed=s)`` starts game ``i`` as ``Game(players, seed=s + i)`` (so game 0
deals what ``Game(players, seed=s)``, PettingZoo's and Gymnasium's ``reset(seed=s)`` and
``civlite demo --seed s`` deal); later games take seeds from a generator seeded by ``s``.

Observations are :func:`civlite.rl.encoding.encode_view` of the deciding seat's view
(float32, ``(num_games, obs_size)``), masks int8 ``(num_games, 153)``. Both are written in
place into arrays kept for the whole batch (:func:`civlite.rl.encoding.encode_batch`: one
engine call writes the batch's float32 bytes, one copy puts them in place); ``copy=True`` (the default) returns
copies, ``copy=False`` the arrays themselves, overwritten by the next call.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from ..bots import Bot, RandomBot, make_bot
from ..engine import NUM_ACTIONS, Game, RuleSet, describe_id
from .encoding import OBS_HIGH, encode_batch, encode_game, obs_size, write_masks
from .pettingzoo import _rules

__all__ = ["BatchedGames", "CivLiteVectorEnv"]


def _check_actions(actions: Any, num: int) -> list[int]:
    a = np.asarray(actions)
    if a.shape != (num,):
        raise ValueError(f"actions must have shape ({num},), got {a.shape}")
    out: list[int] = a.tolist()
    return out


def _first_illegal(acts: list[int], legal: list[list[int]]) -> tuple[int, int] | None:
    """The first game whose action is not legal, and that action; ``None`` if all are legal."""
    if all(map(list.__contains__, legal, acts)):  # one C loop in the usual case
        return None
    return next((i, a) for i, (a, ok) in enumerate(zip(acts, legal, strict=True)) if a not in ok)


class BatchedGames:
    """``num_games`` self-play games, stepped together (see the module's documentation).

    The arrays returned are written in place into buffers kept for the whole batch;
    ``copy=True`` (the default) returns copies of them, ``copy=False`` the buffers
    themselves (valid until the next call: copy what you keep)."""

    def __init__(self, num_games: int, players: int = 2, rules: RuleSet | str | None = None,
                 copy: bool = True) -> None:
        if num_games < 1:
            raise ValueError(f"num_games must be at least 1, got {num_games}")
        self.rules = _rules(rules)
        if not self.rules.min_players <= players <= self.rules.max_players:
            raise ValueError(f"{players} players: this rule set plays {self.rules.min_players} to {self.rules.max_players}")
        self.num_games = num_games
        self.players = players
        self.copy = copy
        self.obs_size = obs_size(players)
        self.games: list[Game] = []
        self.legal: list[list[int]] = []
        self._rng = random.Random()
        self.episodes = 0  # games finished since the last reset
        self._obs = np.zeros((num_games, self.obs_size), np.float32)
        self._mask = np.zeros((num_games, NUM_ACTIONS), np.int8)
        self._to_move = np.zeros(num_games, np.int64)
        self._rewards = np.zeros((num_games, players), np.float32)
        self._term = np.zeros(num_games, bool)
        self._trunc = np.zeros(num_games, bool)

    def _new_game(self, seed: int) -> Game:
        g = Game(self.players, seed=seed, rules=self.rules)
        g.quiet = True  # nothing reads events here
        return g

    def _out(self, a: np.ndarray) -> np.ndarray:
        return a.copy() if self.copy else a

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start every game; returns ``(obs, mask, to_move)``."""
        if seed is None:
            seed = random.SystemRandom().randrange(2**62)
        self._rng = random.Random(seed)
        self.games = [self._new_game(seed + i) for i in range(self.num_games)]
        self.legal = [g.legal_ids() for g in self.games]
        seats: list[int] = [g.to_move for g in self.games]  # type: ignore[misc]
        self.episodes = 0
        self._to_move[:] = seats
        self._observe(seats)
        return self._out(self._obs), self._out(self._mask), self._out(self._to_move)

    def to_move(self) -> np.ndarray:
        return np.array([g.to_move for g in self.games], dtype=np.int64)

    def _observe(self, seats: list[int]) -> None:
        encode_batch(self.games, seats, self._obs)
        write_masks(self.legal, self._mask)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One action per game (compact ids) -> ``(obs, mask, to_move, rewards, terminated, truncated)``.

        ``rewards`` is ``(num_games, players)``: each seat's return in the games that ended
        in this call, 0 elsewhere. An illegal action raises ``ValueError`` and changes nothing."""
        if not self.games:
            raise RuntimeError("step() before reset(): call reset() first")
        acts = _check_actions(actions, self.num_games)
        legal = self.legal
        bad = _first_illegal(acts, legal)
        if bad is not None:
            i, a = bad
            raise ValueError(f"game {i}: action {a} ({describe_id(a) if 0 <= a < NUM_ACTIONS else 'out of range'}) "
                             f"is not legal; legal: {legal[i]}")
        games = self.games
        rewards, term, trunc = self._rewards, self._term, self._trunc
        rewards.fill(0.0)
        term.fill(False)
        trunc.fill(False)
        for i, g in enumerate(games):
            g.apply_id(acts[i], False)
            if g.over:
                if g.winner is None:
                    trunc[i] = True
                else:
                    term[i] = True
                    rewards[i] = -1.0
                    rewards[i, g.winner] = 1.0
                self.episodes += 1
                games[i] = self._new_game(self._rng.getrandbits(63))
        self.legal = [g.legal_ids() for g in games]
        seats: list[int] = [g.to_move for g in games]  # type: ignore[misc]
        self._to_move[:] = seats
        self._observe(seats)
        out = self._out
        return out(self._obs), out(self._mask), out(self._to_move), out(rewards), out(term), out(trunc)


class CivLiteVectorEnv(VectorEnv):
    """``num_envs`` learner-vs-bots games stepped in one call (a ``gymnasium.vector.VectorEnv``).

    Autoreset is gymnasium's ``SAME_STEP`` mode (``metadata["autoreset_mode"]``). An
    illegal action ends its row's episode with reward ``illegal_reward`` (see the module's
    notes); ``strict=True`` raises instead, ``illegal_penalty=x`` makes it a penalised no-op.
    ``copy`` as for :class:`BatchedGames` (``False``: the observation arrays are buffers
    reused by the next call)."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 8,
        opponents: Sequence[str] = ("random",),
        rules: RuleSet | str | None = None,
        seat: int | str = "random",
        illegal_penalty: float | None = None,
        render_mode: str | None = None,
        copy: bool = True,
        strict: bool = False,
        illegal_reward: float = -1.0,
    ) -> None:
        if render_mode is not None:
            raise ValueError("the batched environment does not render; use SingleAgentEnv")
        if isinstance(opponents, str):
            opponents = [s.strip() for s in opponents.split(",") if s.strip()]
        self.opponent_specs = list(opponents)
        self.players = len(self.opponent_specs) + 1
        self.core = BatchedGames(num_envs, self.players, rules, copy=False)
        self.rules = self.core.rules
        if seat != "random" and not (isinstance(seat, int) and 0 <= seat < self.players):
            raise ValueError(f"seat must be 0..{self.players - 1} or 'random', got {seat!r}")
        for spec in self.opponent_specs:
            make_bot(spec, seed=0)  # fail now on an unknown bot
        self.seat_option = seat
        self.illegal_penalty = illegal_penalty
        self.strict = strict
        self.illegal_reward = float(illegal_reward)
        self.num_envs = num_envs
        self.copy = copy
        self.render_mode = None
        size = obs_size(self.players)
        self.single_observation_space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(0.0, OBS_HIGH, (size,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        })
        self.single_action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self.seats = np.zeros(num_envs, np.int64)
        self._seats: list[int] = [0] * num_envs
        self.bots: list[dict[int, Bot]] = []
        self._rng = random.Random()

    def _start(self, i: int, seed: int) -> None:
        """Start env ``i``'s next game and play the bots up to its learner's first decision.

        A game that ends before that decision (only a rule set's turn limit can do it) is
        replaced by another, so that no row is left with an empty mask."""
        n = self.players
        rng = self._rng
        for _ in range(1000):
            seat = rng.randrange(n) if self.seat_option == "random" else int(self.seat_option)
            self.seats[i] = self._seats[i] = seat
            others = [s for s in range(n) if s != seat]
            bots = {s: make_bot(spec, seed=rng.getrandbits(63))
                    for s, spec in zip(others, self.opponent_specs, strict=True)}
            g = self.core.games[i] = self.core._new_game(seed)
            if i < len(self.bots):
                self.bots[i] = bots
            else:
                self.bots.append(bots)
            self._play_opponents(i, g)
            if not g.over:
                return
            seed = rng.getrandbits(63)
        raise ValueError(f"seat {self.seat_option}: 1,000 games in a row ended before the learner's first "
                         f"decision (turn limit {self.rules.turn_limit})")

    def _play_opponents(self, i: int, g: Game) -> None:
        """Let the bots decide until env ``i``'s learner decides (or the game ends)."""
        me = self._seats[i]
        bots = self.bots[i]
        while not g.over:
            p = g.to_move
            if p == me:
                self.core.legal[i] = g.legal_ids()
                return
            assert p is not None
            bot = bots[p]
            legal = g.legal_ids()
            if type(bot) is RandomBot:  # it reads no view: skip building one
                g.apply_id(legal[int(bot.rng.random() * len(legal))], check=False)
            else:
                g.apply_id(bot.act(g.view(p), legal), check=False)
        self.core.legal[i] = []

    def _observe(self) -> dict[str, np.ndarray]:
        core = self.core
        encode_batch(core.games, self._seats, core._obs)
        write_masks(core.legal, core._mask)
        if self.copy:
            return {"observation": core._obs.copy(), "action_mask": core._mask.copy()}
        return {"observation": core._obs, "action_mask": core._mask}

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game now, ``(num_envs, 153)`` booleans (for maskable learners)."""
        mask = np.zeros((self.num_envs, NUM_ACTIONS), np.int8)
        write_masks(self.core.legal, mask)
        return mask.astype(bool)

    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        if isinstance(seed, list):
            seed = seed[0]
        if seed is None:
            seed = random.SystemRandom().randrange(2**62)
        self._rng = random.Random(seed)
        self.core.games = [None] * self.num_envs  # type: ignore[list-item]
        self.core.legal = [[] for _ in range(self.num_envs)]
        self.bots = []
        for i in range(self.num_envs):
            self._start(i, seed + i)
        self.core.episodes = 0
        return self._observe(), {"seat": self.seats.copy()}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        core = self.core
        if not core.games:
            raise RuntimeError("step() before reset(): call reset() first")
        acts = _check_actions(actions, self.num_envs)
        n = self.num_envs
        rewards = np.zeros(n, np.float64)
        term = np.zeros(n, bool)
        trunc = np.zeros(n, bool)
        illegal = np.zeros(n, bool)
        legal = core.legal
        bad = _first_illegal(acts, legal)
        reasons: dict[int, str] = {}
        if bad is not None:
            for i, a in enumerate(acts):
                if a not in legal[i]:
                    illegal[i] = True
                    reasons[i] = (f"action {a} ({describe_id(a) if 0 <= a < NUM_ACTIONS else 'out of range'}) "
                                  f"is not legal now; the legal actions are {legal[i]}")
            if self.strict:
                i, _ = bad
                raise ValueError(f"env {i}: {reasons[i]} (use the action_mask; strict=False ends the row's "
                                 "episode with a penalty instead)")
        ended: list[int] = []
        finals: list[dict[str, Any]] = []
        games = core.games
        seats = self._seats
        play = self._play_opponents
        penalty = self.illegal_penalty
        for i, a in enumerate(acts):
            if bad is not None and illegal[i]:
                if penalty is not None:  # a penalised no-op: the episode goes on
                    rewards[i] = penalty
                    continue
                rewards[i] = self.illegal_reward  # the classic convention: the row's episode ends
                term[i] = True
                ended.append(i)
                finals.append({"seat": seats[i], "turn": games[i].turn, "illegal_action": True,
                               "illegal_reason": reasons[i]})
                continue
            g = games[i]
            g.apply_id(a, False)
            play(i, g)
            if g.over:
                seat = seats[i]
                if g.winner is None:
                    trunc[i] = True
                else:
                    term[i] = True
                    rewards[i] = 1.0 if g.winner == seat else -1.0
                ended.append(i)
                finals.append({"seat": seat, "winner": g.winner, "drawn": list(g.drawn), "turn": g.turn,
                               "turn_limit": g.winner is None, "illegal_action": False})
        infos: dict[str, Any] = {}
        if ended:
            final_obs = np.empty(n, dtype=object)
            final_info = np.empty(n, dtype=object)
            flags = np.zeros(n, bool)
            for i, info in zip(ended, finals, strict=True):
                final_obs[i] = {"observation": encode_game(games[i], seats[i]),
                                "action_mask": np.zeros(NUM_ACTIONS, np.int8)}
                final_info[i] = info
                flags[i] = True
                core.episodes += 1
                self._start(i, self._rng.getrandbits(63))
            infos = {"final_obs": final_obs, "_final_obs": flags, "final_info": final_info, "_final_info": flags}
        infos["illegal_action"] = illegal
        infos["_illegal_action"] = np.ones(n, bool)
        if reasons:
            why = np.empty(n, dtype=object)
            for i, r in reasons.items():
                why[i] = r
            infos["illegal_reason"] = why
            infos["_illegal_reason"] = illegal.copy()
        return self._observe(), rewards, term, trunc, infos
