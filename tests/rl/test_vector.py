"""The batched games (self-play) and the ``gymnasium.vector`` environment built on them."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from civlite.engine import NUM_ACTIONS, Game, RuleSet  # noqa: E402
from civlite.rl.encoding import encode_game, obs_size  # noqa: E402
from civlite.rl.gymnasium import ENV_ID  # noqa: E402
from civlite.rl.vector import BatchedGames, CivLiteVectorEnv  # noqa: E402

SHORT = RuleSet.default().with_changes(victory_ct=6)


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in mask])


def test_batched_games_match_single_games() -> None:
    b = BatchedGames(4, players=3, rules=SHORT)
    obs, mask, to_move = b.reset(seed=10)
    singles = [Game(3, seed=10 + i, rules=SHORT) for i in range(4)]
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        for i, g in enumerate(singles):
            assert to_move[i] == g.to_move
            np.testing.assert_array_equal(obs[i], encode_game(g, g.to_move))  # type: ignore[arg-type]
            assert sorted(np.flatnonzero(mask[i]).tolist()) == g.legal_ids()
        acts = _random_actions(mask, rng)
        obs, mask, to_move, rewards, term, _ = b.step(acts)
        for i, g in enumerate(singles):
            g.apply_id(int(acts[i]))
            if g.is_over:
                ended += 1
                assert term[i] and rewards[i].tolist() == g.returns()
                singles[i] = b.games[i].clone()
            else:
                assert not term[i] and not rewards[i].any()
    assert ended > 0 and b.episodes == ended


def test_a_reset_reports_the_new_games_deciding_seats() -> None:
    """``reset`` returns each new game's deciding seat (it once returned the buffer as the
    last ``step`` had left it)."""
    b = BatchedGames(6, players=3, copy=False)
    _, mask, to_move = b.reset(seed=2)
    rng = np.random.default_rng(1)
    for _ in range(25):
        _, mask, to_move, *_ = b.step(_random_actions(mask, rng))
    before = to_move.tolist()
    _, _, to_move = b.reset(seed=3)
    now = [g.to_move for g in b.games]
    assert to_move.tolist() == now and before != now


def test_batched_games_refuse_illegal_and_unreset() -> None:
    b = BatchedGames(2)
    with pytest.raises(RuntimeError, match="reset"):
        b.step([0, 0])
    b.reset(seed=1)
    before = [g.state_json() for g in b.games]
    with pytest.raises(ValueError, match="not legal"):
        b.step([0, NUM_ACTIONS - 1])
    assert [g.state_json() for g in b.games] == before
    with pytest.raises(ValueError, match="shape"):
        b.step([0])


def test_vector_env_autoreset_and_rewards() -> None:
    v = CivLiteVectorEnv(num_envs=3, opponents=["random"], rules=SHORT)
    obs, _ = v.reset(seed=4)
    assert obs["observation"].shape == (3, obs_size(2)) and obs["action_mask"].shape == (3, NUM_ACTIONS)
    assert v.core.games[0].seed == 4
    rng = np.random.default_rng(1)
    finished = 0
    for _ in range(300):
        obs, rewards, term, trunc, infos = v.step(_random_actions(obs["action_mask"], rng))
        for i in np.flatnonzero(term | trunc):
            finished += 1
            final = infos["final_info"][i]
            assert rewards[i] == (0.0 if final["winner"] is None else (1.0 if final["winner"] == final["seat"] else -1.0))
            assert infos["final_obs"][i]["observation"].shape == (obs_size(2),)
        assert obs["action_mask"].any(axis=1).all()  # every env waits on its learner
    assert finished > 0


def test_vector_env_is_a_gymnasium_vector_env() -> None:
    v = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", rules=SHORT)
    assert isinstance(v, gymnasium.vector.VectorEnv)
    obs, _ = v.reset(seed=0)
    assert v.observation_space.contains(obs)
    acts = _random_actions(obs["action_mask"], np.random.default_rng(0))
    obs, *_ = v.step(acts)
    assert v.observation_space.contains(obs)
    obs, rewards, term, _, infos = v.step(v.action_space.sample())  # any element of the action space steps
    assert v.observation_space.contains(obs) and obs["action_mask"].any(axis=1).all()
    bad = infos["illegal_action"]
    assert term[bad].all() and (rewards[bad] == -1.0).all()


def test_vector_env_illegal_action_ends_that_rows_episode() -> None:
    """The Gymnasium env's classic convention, row by row: the illegal row ends with the
    penalty and says why, then starts a new game in the same step; the others step on."""
    v = CivLiteVectorEnv(num_envs=3, opponents=["random"], rules=SHORT, seat=0)
    obs, _ = v.reset(seed=7)
    before = [g.state_json() for g in v.core.games]
    acts = _random_actions(obs["action_mask"], np.random.default_rng(2))
    acts[1] = NUM_ACTIONS - 1 if not obs["action_mask"][1, NUM_ACTIONS - 1] else 0
    assert not obs["action_mask"][1, acts[1]]
    seed_games = v.core.episodes
    obs, rewards, term, trunc, infos = v.step(acts)
    assert rewards[1] == -1.0 and term[1] and not trunc[1]
    assert infos["illegal_action"].tolist() == [False, True, False]
    assert infos["_illegal_reason"].tolist() == [False, True, False]
    assert f"action {acts[1]}" in infos["illegal_reason"][1] and "not legal" in infos["illegal_reason"][1]
    final = infos["final_info"][1]
    assert infos["_final_info"][1] and final["illegal_action"] and final["illegal_reason"] == infos["illegal_reason"][1]
    assert not infos["final_obs"][1]["action_mask"].any()  # the ended row's last mask: nothing legal
    assert v.core.episodes == seed_games + 1 + int(term[0] or trunc[0]) + int(term[2] or trunc[2])
    assert v.core.games[1].state_json() != before[1] and not v.core.games[1].over  # its next game
    assert v.core.games[0].state_json() != before[0]  # the legal rows stepped
    assert obs["action_mask"].any(axis=1).all()  # no row waits with an empty mask


def test_vector_env_strict_raises_and_changes_nothing() -> None:
    v = CivLiteVectorEnv(num_envs=2, opponents=["random"], rules=SHORT, strict=True)
    obs, _ = v.reset(seed=3)
    before = [g.state_json() for g in v.core.games]
    acts = _random_actions(obs["action_mask"], np.random.default_rng(0))
    acts[0] = -1
    with pytest.raises(ValueError, match=r"env 0: action -1 \(out of range\) is not legal"):
        v.step(acts)
    assert [g.state_json() for g in v.core.games] == before


def test_vector_env_illegal_penalty_is_a_no_op() -> None:
    v = CivLiteVectorEnv(num_envs=2, opponents=["random"], rules=SHORT, illegal_penalty=-0.25)
    obs, _ = v.reset(seed=3)
    before = v.core.games[1].state_json()
    acts = _random_actions(obs["action_mask"], np.random.default_rng(0))
    acts[1] = -1
    obs2, rewards, term, trunc, infos = v.step(acts)
    assert rewards[1] == -0.25 and not term[1] and not trunc[1] and infos["illegal_action"][1]
    assert v.core.games[1].state_json() == before
    np.testing.assert_array_equal(obs2["action_mask"][1], obs["action_mask"][1])


def test_vector_env_replaces_a_game_that_ends_before_the_learner_decides() -> None:
    """At one CT to win the first seat often wins before the second decides: such a game
    is replaced, so no row is left with an empty mask."""
    one_ct = RuleSet.default().with_changes(victory_ct=1)
    v = CivLiteVectorEnv(num_envs=4, opponents=["random"], rules=one_ct, seat=1)
    replaced = 0
    for seed in range(0, 200, 4):
        obs, _ = v.reset(seed=seed)
        assert obs["action_mask"].any(axis=1).all()
        assert not any(g.over for g in v.core.games)
        replaced += sum(g.seed != seed + i for i, g in enumerate(v.core.games))
    assert replaced > 0
