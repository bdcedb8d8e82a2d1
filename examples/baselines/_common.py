"""What the baseline scripts share: the evaluation table, the time budget and the result file.

Every baseline is scored the same way: ``--eval-games`` 2-player games against each of
``random``, ``heuristic`` (medium) and ``expert`` (hard), seats alternated, the same deals
for every baseline (``python_civlite`` with ``chance="implicit"``: ``game.deal(seed)``, the
deal ``Game(2, seed=seed)`` gives every interface). A win counts 1; the table gives the win
rate with its 95% Wilson interval, and draws (the turn limit) apart.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

import civlite.rl.openspiel  # noqa: F401  (registers python_civlite)
from civlite.bots import make_bot
from civlite.rl.openspiel import game_of
from civlite.sim.stats import wilson

#: the opponents every baseline meets
OPPONENTS = ("random", "heuristic", "expert")
#: the deals of the evaluation: game i is deal(EVAL_SEED + i)
EVAL_SEED = 50_000_000

#: a policy: (state, seat) -> action, for a ``python_civlite`` state where ``seat`` decides
Policy = Callable[[Any, int], int]


def one_thread() -> None:
    """Torch and numpy's BLAS on one thread each: the budgets assume 2 shared cores."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass


def load(params: dict[str, Any] | None = None) -> Any:
    """``python_civlite`` (2 players, implicit chance) with ``params``."""
    return pyspiel.load_game("python_civlite", {"players": 2, "chance": "implicit", **(params or {})})


def evaluate(policy: Policy, games: int, params: dict[str, Any] | None = None,
             opponents: tuple[str, ...] = OPPONENTS) -> dict[str, Any]:
    """The policy's record against each opponent: ``games`` games each, seats alternated."""
    game = load(params)
    table: dict[str, Any] = {}
    for name in opponents:
        wins = draws = 0
        t0 = time.perf_counter()
        for i in range(games):
            me = i % 2
            state = game.deal(EVAL_SEED + i)
            bot = make_bot(name, seed=EVAL_SEED + i)
            while not state.is_terminal():
                seat = state.current_player()
                legal = state.legal_actions()
                if len(legal) == 1:
                    a = legal[0]
                elif seat == me:
                    a = policy(state, seat)
                else:
                    g = game_of(state)
                    assert g is not None
                    a = bot.act(g.view(seat), legal)
                state.apply_action(a)
            r = state.returns()[me]
            wins += r > 0
            draws += r == 0
        rate, low, high = wilson(wins, games)
        table[name] = {"games": games, "wins": wins, "draws": draws, "win_rate": round(rate, 3),
                       "interval95": [round(low, 3), round(high, 3)], "seconds": round(time.perf_counter() - t0, 1)}
        print(f"  against {name}: won {wins} of {games} ({rate:.1%}, 95% {low:.1%}-{high:.1%}), drew {draws}",
              flush=True)
    return table


def argmax_policy(logits_of: Callable[[np.ndarray], np.ndarray]) -> Policy:
    """A policy taking the legal action of highest logit, from the observation tensor."""
    from civlite.rl.encoding import encode_game

    def act(state: Any, seat: int) -> int:
        g = game_of(state)
        assert g is not None
        legal = state.legal_actions()
        logits = logits_of(encode_game(g, seat))
        return int(legal[int(np.argmax(logits[legal]))])
    return act


def write(out: Path, name: str, result: dict[str, Any]) -> None:
    """``out/<name>.json``: the result, the command that made it and the machine."""
    out.mkdir(parents=True, exist_ok=True)
    script = Path(os.path.relpath(sys.argv[0])).as_posix()  # relative to where it ran (the repository)
    result = {"baseline": name, "command": " ".join([script, *sys.argv[1:]]),
              "python": platform.python_version(), **result}
    (out / f"{name}.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out / f'{name}.json'}", flush=True)


class Budget:
    """A wall-clock budget in seconds."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.start = time.perf_counter()

    def left(self) -> float:
        return self.seconds - (time.perf_counter() - self.start)

    def over(self) -> bool:
        return self.left() <= 0


def flat_env(opponent: str = "heuristic", seed: int = 0) -> Any:
    """:class:`civlite.rl.gymnasium.SingleAgentEnv` (2 players, the learner's seat drawn per game)
    with the observation vector alone as its observation and ``action_masks()``, for MaskablePPO."""
    import gymnasium

    from civlite.rl.gymnasium import SingleAgentEnv

    class FlatEnv(gymnasium.Env[np.ndarray, np.int64]):
        def __init__(self) -> None:
            self.env = SingleAgentEnv(opponents=[opponent], seat="random")
            self.observation_space = self.env.observation_space["observation"]  # type: ignore[index]
            self.action_space = self.env.action_space
            self._seed: int | None = seed

        def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
                  ) -> tuple[np.ndarray, dict[str, Any]]:
            if seed is None and self._seed is not None:
                seed, self._seed = self._seed, None
            obs, info = self.env.reset(seed=seed, options=options)
            return obs["observation"], info

        def step(self, action: np.int64 | int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
            obs, r, term, trunc, info = self.env.step(action)
            return obs["observation"], float(r), term, trunc, info

        def action_masks(self) -> np.ndarray:
            return self.env.action_masks()

    return FlatEnv()


def sb3_policy(model: Any) -> Policy:
    """The arg-max policy of a MaskablePPO model over the observation vector."""
    import torch

    def logits_of(x: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            obs = torch.as_tensor(x, dtype=torch.float32).unsqueeze(0)
            dist = model.policy.get_distribution(obs)
            return np.asarray(dist.distribution.logits[0].numpy())
    return argmax_policy(logits_of)


class TimeLimit:
    """An SB3 callback that stops learning when the budget is spent."""

    def __new__(cls, budget: Budget) -> Any:
        from stable_baselines3.common.callbacks import BaseCallback

        class _Stop(BaseCallback):
            def _on_step(self) -> bool:
                return not budget.over()

        return _Stop()
