"""OpenSpiel's NFSP (the PyTorch one) learns ``python_civlite`` with the sampled chance model.

Self-play NFSP through ``rl_environment`` on a short 2-player variant (two CT to win,
twelve turns, so that a random game ends in a draw about one time in five), seeded and
bounded in steps; then its *average policy*, the one NFSP converges with, plays a
uniformly random player from both seats. Its win rate (a draw counts as not won) must
have a 99% Wilson lower bound above 50%: more wins than losses and draws together, by
more than chance explains. Two random players win about 39% each there; seeds 0-3 gave
NFSP 66%, 68%, 63% and 69% (lower bounds 58%, 60%, 55%, 62%). Learning every 64 steps
(the default) instead of 16 gave 46-62% after the same steps: too few updates.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
torch = pytest.importorskip("torch")
pytest.importorskip("tree")  # dm-tree: the PyTorch NFSP's replay buffers

import civlite.rl.openspiel  # noqa: E402,F401  (registers python_civlite)
from civlite.sim.stats import wilson  # noqa: E402

SHORT = {"players": 2, "chance": "sampled", "chance_outcomes": 4, "turn_limit": 12, "victory_ct": 2}
TRAIN_STEPS = 20_000  # agent steps of self-play: 50-65 s on one core of the (shared) test machine
EVAL_GAMES = 300


@pytest.fixture
def one_thread() -> Iterator[None]:
    """Torch on one thread, and numpy's global generator (which NFSP seeds) put back after."""
    threads = torch.get_num_threads()
    state = np.random.get_state()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
        np.random.set_state(state)


def _agents(size: int, actions: int) -> list[Any]:
    from open_spiel.python.pytorch import nfsp

    return [nfsp.NFSP(p, size, actions, [128], reservoir_buffer_capacity=100_000, anticipatory_param=0.1,
                      batch_size=128, rl_learning_rate=1e-3, sl_learning_rate=1e-3, min_buffer_size_to_learn=500,
                      learn_every=16, optimizer_str="adam", replay_buffer_capacity=50_000, epsilon_start=0.06,
                      epsilon_end=0.001, epsilon_decay_duration=200_000, update_target_network_every=1000,
                      seed=10 + p)
            for p in range(2)]


def _train(env: Any, agents: list[Any], steps: int) -> int:
    done = episodes = 0
    while done < steps:
        ts = env.reset()
        while not ts.last():
            p = ts.observations["current_player"]
            ts = env.step([agents[p].step(ts).action])
            done += 1
        for a in agents:
            a.step(ts)  # every agent sees the end (its last transition, its episode's policy)
        episodes += 1
    return episodes


def _against_random(env: Any, agents: list[Any], games: int) -> tuple[int, int]:
    """(wins, draws) of the average policy against uniform random, seats alternating."""
    from open_spiel.python.pytorch import nfsp

    rng = random.Random(1)
    wins = draws = 0
    for i in range(games):
        me = i % 2
        ts = env.reset()
        while not ts.last():
            p = ts.observations["current_player"]
            if p == me:
                with agents[p].temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
                    a = agents[p].step(ts, is_evaluation=True).action
            else:
                a = rng.choice(ts.observations["legal_actions"][p])
            ts = env.step([a])
        wins += ts.rewards[me] > 0
        draws += ts.rewards[me] == 0
    return wins, draws


@pytest.mark.slow
@pytest.mark.usefixtures("one_thread")
def test_nfsp_learns_to_beat_random() -> None:
    from open_spiel.python import rl_environment

    game = pyspiel.load_game("python_civlite", SHORT)
    # (Environment's own seed= is a game parameter, ignored with a loaded game: seed the sampler)
    env = rl_environment.Environment(game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=0))
    size = env.observation_spec()["info_state"][0]
    assert size == game.information_state_tensor_size()  # the whole game's recall
    np.random.seed(0)
    agents = _agents(size, env.action_spec()["num_actions"])
    episodes = _train(env, agents, TRAIN_STEPS)
    wins, draws = _against_random(env, agents, EVAL_GAMES)
    rate, low, _ = wilson(wins, EVAL_GAMES, z=2.576)
    assert low > 0.5, (f"NFSP after {TRAIN_STEPS} steps ({episodes} games): won {wins}/{EVAL_GAMES} "
                       f"({rate:.0%}, 99% lower bound {low:.0%}), drew {draws}")
