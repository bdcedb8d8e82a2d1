"""PettingZoo and Gymnasium conformance and behaviour."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from civlite.engine import NUM_ACTIONS, Game, RuleSet
from civlite.rl.encoding import encode_view, obs_size
from civlite.rl.gymnasium import SingleAgentEnv
from civlite.rl.pettingzoo import env


@pytest.mark.parametrize("players", [2, 3, 6])
def test_pettingzoo_api(players: int) -> None:
    api_test(env(players=players), num_cycles=1000)


def test_pettingzoo_seed() -> None:
    seed_test(lambda: env(players=3), num_cycles=50)


def _play_out(e: object, seed: int) -> tuple[dict[str, float], int, bool]:
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)  # type: ignore[attr-defined]
    totals: dict[str, float] = {}
    steps = 0
    repeated = False
    prev = None
    for agent in e.agent_iter():  # type: ignore[attr-defined]
        obs, reward, term, trunc, _ = e.last()  # type: ignore[attr-defined]
        totals[agent] = totals.get(agent, 0.0) + reward
        if term or trunc:
            e.step(None)  # type: ignore[attr-defined]
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        repeated |= agent == prev
        prev = agent
        e.step(int(rng.choice(legal)))  # type: ignore[attr-defined]
        steps += 1
    return totals, steps, repeated


def test_pettingzoo_full_games_rewards() -> None:
    rules = RuleSet.default().with_changes(victory_ct=8)
    e = env(players=3, rules=rules)
    any_repeat = False
    for seed in range(5):
        totals, steps, repeated = _play_out(e, seed)
        any_repeat |= repeated
        assert steps > 0
        vals = sorted(totals.values())
        assert vals in ([-1.0, -1.0, 1.0], [0.0, 0.0, 0.0])
        assert not e.agents
    assert any_repeat  # some agent decided twice in a row (discard steps, extra turns)


def test_observation_is_the_view_only() -> None:
    """Two games that differ only in a hidden card encode seat 0 the same."""
    g = Game(2, seed=5)
    h = g.clone()
    # swap one card of seat 1's hand with one of the deck: seat 0 cannot tell
    h.hands[1][0], h.deck[0] = h.deck[0], h.hands[1][0]
    np.testing.assert_array_equal(encode_view(g.view(0)), encode_view(h.view(0)))
    assert encode_view(g.view(0)).shape == (obs_size(2),)


def test_observation_mask_and_render() -> None:
    e = env(players=2, render_mode="ansi")
    e.reset(seed=1)
    obs = e.observe("player_0")
    assert obs["action_mask"].shape == (NUM_ACTIONS,)
    assert obs["action_mask"][0] == 1  # pass is legal in the action phase
    assert not e.observe("player_1")["action_mask"].any()
    text = e.render()
    assert isinstance(text, str) and "seat 0" in text and "pending" in text
    with pytest.raises(ValueError):
        e.step(NUM_ACTIONS - 1)  # a discard step is not legal in the action phase


def test_gymnasium_check_env(opponent_spec: str) -> None:
    check_env(SingleAgentEnv(opponents=[opponent_spec]), skip_render_check=True)
    check_env(SingleAgentEnv(opponents=["random", "random"], seat="random"), skip_render_check=True)


def test_gymnasium_default_is_heuristic() -> None:
    try:
        e = SingleAgentEnv()
    except ValueError:
        pytest.skip("the heuristic bot is not built yet")
    assert e.opponent_specs == ["heuristic"]


def test_gymnasium_episode(opponent_spec: str) -> None:
    e = SingleAgentEnv(opponents=[opponent_spec], rules=RuleSet.default().with_changes(victory_ct=8))
    rng = np.random.default_rng(0)
    for seed in range(3):
        obs, info = e.reset(seed=seed)
        done = False
        reward = 0.0
        while not done:
            assert obs["action_mask"].any()
            assert (e.action_masks() == obs["action_mask"].astype(bool)).all()
            obs, reward, done, trunc, info = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            assert not info["illegal_action"] and not trunc
        assert reward in (-1.0, 0.0, 1.0)
        assert (reward == 1.0) == (info["winner"] == e.seat)


def test_gymnasium_illegal_action_is_replaced() -> None:
    e = SingleAgentEnv(opponents=["random"], illegal_penalty=-0.5)
    e.reset(seed=3)
    _, reward, _, _, info = e.step(NUM_ACTIONS - 1)
    assert info["illegal_action"] and reward == -0.5
