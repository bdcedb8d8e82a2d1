"""PettingZoo and Gymnasium: the libraries' own checkers, conventions and behaviour."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

from civlite.engine import CARDS, COMPILED, NUM_ACTIONS, Game, RuleSet  # noqa: E402
from civlite.rl.encoding import encode_game, encode_view, obs_size  # noqa: E402
from civlite.rl.gymnasium import ENV_ID, SingleAgentEnv  # noqa: E402
from civlite.rl.pettingzoo import env, raw_env  # noqa: E402

SHORT = RuleSet.default().with_changes(victory_ct=8)
TURN_LIMITED = RuleSet.default().with_changes(turn_limit=3)


@pytest.mark.parametrize("players", [2, 3, 6])
def test_pettingzoo_api(players: int) -> None:
    api_test(env(players=players), num_cycles=1000)


def test_pettingzoo_raw_api() -> None:
    api_test(raw_env(players=2), num_cycles=300)


def test_pettingzoo_seed() -> None:
    seed_test(lambda: env(players=3), num_cycles=50)


def test_pettingzoo_render() -> None:
    render_test(lambda render_mode=None: env(players=2, render_mode=render_mode))


def _play_out(e: Any, seed: int) -> tuple[dict[str, float], int, bool, dict[str, Any]]:
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    totals: dict[str, float] = {}
    steps = 0
    repeated = False
    prev = None
    last_info: dict[str, Any] = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        if term or trunc:
            last_info = info
            assert term != trunc
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        repeated |= agent == prev
        prev = agent
        e.step(int(rng.choice(legal)))
        steps += 1
    return totals, steps, repeated, last_info


def test_pettingzoo_full_games_rewards() -> None:
    e = env(players=3, rules=SHORT)
    any_repeat = False
    for seed in range(5):
        totals, steps, repeated, info = _play_out(e, seed)
        any_repeat |= repeated
        assert steps > 0
        assert sorted(totals.values()) == [-1.0, -1.0, 1.0]
        assert not info["turn_limit"]
        assert not e.agents
    assert any_repeat  # some agent decided twice in a row (discard steps, extra turns)


def test_pettingzoo_turn_limit_is_truncation() -> None:
    e = env(players=2, rules=TURN_LIMITED)
    truncated = 0
    for seed in range(6):
        e.reset(seed=seed)
        for _agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            if term or trunc:
                if trunc:
                    truncated += 1
                    assert not term and reward == 0.0 and info["turn_limit"] and info["winner"] is None
                e.step(None)
            else:
                e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert truncated > 0


def test_pettingzoo_illegal_move_classic_and_raw() -> None:
    e = env(players=2)
    e.reset(seed=1)
    e.step(NUM_ACTIONS - 1)  # a discard step is not legal in the action phase
    assert all(e.terminations.values())
    assert e.rewards["player_0"] == -1.0 and e.rewards["player_1"] == 0.0
    r = raw_env(players=2)
    r.reset(seed=1)
    with pytest.raises(ValueError, match="not legal"):
        r.step(NUM_ACTIONS - 1)
    with pytest.raises(Exception, match="reset"):
        env(players=2).step(0)  # order enforcing


@pytest.mark.parametrize("copy", [True, False])
def test_pettingzoo_illegal_move_is_judged_on_the_current_mask(copy: bool) -> None:
    """An observation kept by the illegal-move wrapper (a direct ``observe``) never judges a
    later move: after a legal step, the next agent's illegal move still ends the game, and a
    move legal only for the previous agent is judged on the new agent's mask."""
    e = env(players=2, copy=copy)
    e.reset(seed=3)
    first = e.agent_selection
    mask0 = e.observe(first)["action_mask"].copy()  # through the wrappers: kept by TerminateIllegal
    e.step(int(np.flatnonzero(mask0)[0]))
    agent = e.agent_selection
    obs, *_ = e.last()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    e.step(bad)
    assert all(e.terminations.values())
    assert e.rewards[agent] == -1.0
    assert sum(e.rewards.values()) == -1.0


def test_one_seed_one_deal_everywhere() -> None:
    g = Game(2, seed=5)
    pz = raw_env(players=2)
    pz.reset(seed=5)
    assert pz.game.hands == g.hands and pz.game.deck == g.deck
    gym = SingleAgentEnv(opponents=["random"], seat=0)  # the learner moves first: nothing played yet
    gym.reset(seed=5)
    assert gym.game is not None and gym.game.hands == g.hands and gym.game.deck == g.deck
    drawn = SingleAgentEnv(opponents=["random"])  # any seat: the same game seed
    drawn.reset(seed=5)
    assert drawn.game is not None and drawn.game.seed == 5
    # a reset without a seed continues the seeded sequence: the same in two environments
    other = raw_env(players=2)
    other.reset(seed=5)
    pz.reset()
    other.reset()
    assert pz.game.hands == other.game.hands and pz.game.hands != g.hands


def test_demo_replays_the_seeded_deal() -> None:
    from typer.testing import CliRunner

    from civlite.cli import app

    env5 = raw_env(players=2)
    env5.reset(seed=5)
    rise = next(e for e in env5.game.opening_events if e.kind == "draw").describe()  # the first Rise, whole truth
    out = CliRunner().invoke(app, ["demo", "--seed", "5"]).output  # 2 players by default
    assert rise in out
    names = [[CARDS[c].name for c in h] for h in env5.game.hands]
    assert f"seat 1 was dealt {', '.join(names[1])}" in out  # the dealt hands, as reset(seed=5) deals them
    assert f"seat 0 was dealt {', '.join(names[0][:5])}" in out


def test_observation_is_the_view_only() -> None:
    """Two games that differ only in a hidden card encode seat 0 the same."""
    g = Game(2, seed=5)
    h = g.clone()
    # swap one card of seat 1's hand with one of the deck: seat 0 cannot tell
    h.hands[1][0], h.deck[0] = h.deck[0], h.hands[1][0]
    np.testing.assert_array_equal(encode_view(g.view(0)), encode_view(h.view(0)))
    np.testing.assert_array_equal(encode_game(g, 0), encode_game(h, 0))
    assert encode_view(g.view(0)).shape == (obs_size(2),)


def test_fast_encoding_equals_the_view_encoding() -> None:
    rng = np.random.default_rng(3)
    for players in (2, 4):
        for seed in range(2):
            g = Game(players, seed=seed, rules=SHORT)
            while True:
                for seat in range(players):
                    np.testing.assert_array_equal(encode_game(g, seat), encode_view(g.view(seat)))
                if g.is_over:
                    break
                g.apply_id(int(rng.choice(g.legal_ids())))


def test_observation_mask_and_render() -> None:
    e = raw_env(players=2, render_mode="ansi")
    e.reset(seed=1)
    obs = e.observe("player_0")
    assert obs["action_mask"].shape == (NUM_ACTIONS,)
    assert obs["action_mask"][0] == 1  # pass is legal in the action phase
    assert not e.observe("player_1")["action_mask"].any()
    text = e.render()
    assert isinstance(text, str) and "seat 0" in text and "pending" in text and "R4.1" in text


def test_gymnasium_check_env(opponent_spec: str) -> None:
    # the checker samples actions without the mask: with the default arguments an illegal one ends the episode
    check_env(SingleAgentEnv(opponents=[opponent_spec]), skip_render_check=True)
    check_env(SingleAgentEnv(opponents=["random", "random"]), skip_render_check=True)
    check_env(gymnasium.make(ENV_ID, opponents=["random"]).unwrapped, skip_render_check=True)
    check_env(SingleAgentEnv(opponents=["random"], illegal_penalty=-0.1), skip_render_check=True)


def test_sb3_check_env() -> None:
    sb3 = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3.check_env(SingleAgentEnv(opponents=["random"]), warn=False)
    sb3.check_env(SingleAgentEnv(opponents=["random"], illegal_penalty=-0.1), warn=False)


def test_gymnasium_illegal_action_ends_the_episode_unless_strict() -> None:
    e = SingleAgentEnv(opponents=["random"])
    obs, _ = e.reset(seed=3)
    before = e.game.state_json()  # type: ignore[union-attr]
    obs, reward, term, trunc, info = e.step(NUM_ACTIONS - 1)
    assert term and not trunc and reward == -1.0 and info["illegal_action"]
    assert "is not legal now" in info["illegal_reason"] and not obs["action_mask"].any()
    assert not e.action_masks().any() and e.game.state_json() == before  # type: ignore[union-attr]
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)
    e.reset(seed=3)
    assert e.step(999)[1:3] == (-1.0, True)  # outside the action space too: says why, ends
    strict = SingleAgentEnv(opponents=["random"], strict=True, illegal_reward=-5.0)
    strict.reset(seed=3)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(NUM_ACTIONS - 1)
    assert strict.step(int(np.flatnonzero(strict.action_masks())[0]))[1] in (0.0, 1.0, -1.0)
    soft = SingleAgentEnv(opponents=["random"], illegal_reward=-5.0)
    soft.reset(seed=3)
    assert soft.step(NUM_ACTIONS - 1)[1] == -5.0


def test_gymnasium_make_and_make_vec() -> None:
    e = gymnasium.make(ENV_ID, opponents=["random"])
    obs, _ = e.reset(seed=2)
    assert obs["observation"].shape == (obs_size(2),)
    v = gymnasium.make_vec(ENV_ID, num_envs=3, vectorization_mode="sync", opponents=["random"])
    obs, _ = v.reset(seed=2)
    assert obs["observation"].shape == (3, obs_size(2))
    b = gymnasium.make_vec(ENV_ID, num_envs=3, vectorization_mode="vector_entry_point")
    obs, _ = b.reset(seed=2)
    assert obs["action_mask"].shape == (3, NUM_ACTIONS)


def test_gymnasium_defaults(opponent_spec: str) -> None:
    e = SingleAgentEnv(opponents=["random"])
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)
    seats = {e.reset(seed=s)[1]["seat"] for s in range(12)}
    assert seats == {0, 1}  # the learner's seat is drawn per reset
    e.reset(seed=3)
    assert e.step(NUM_ACTIONS - 1)[2]  # an illegal action ends the episode (PettingZoo's convention)
    try:
        assert SingleAgentEnv().opponent_specs == ["heuristic"]
    except ValueError:
        pytest.skip("the heuristic bot is not built yet")


def test_gymnasium_illegal_penalty_changes_nothing() -> None:
    e = SingleAgentEnv(opponents=["random"], illegal_penalty=-0.5)
    obs, _ = e.reset(seed=3)
    before = e.game.state_json()  # type: ignore[union-attr]
    obs2, reward, term, trunc, info = e.step(NUM_ACTIONS - 1)
    assert info["illegal_action"] and reward == -0.5 and not term and not trunc
    assert e.game.state_json() == before  # type: ignore[union-attr]
    np.testing.assert_array_equal(obs["observation"], obs2["observation"])


def test_gymnasium_episode(opponent_spec: str) -> None:
    e = SingleAgentEnv(opponents=[opponent_spec], rules=SHORT)
    rng = np.random.default_rng(0)
    for seed in range(3):
        obs, info = e.reset(seed=seed)
        done = False
        reward = 0.0
        while not done:
            assert obs["action_mask"].any()
            assert (e.action_masks() == obs["action_mask"].astype(bool)).all()
            obs, reward, term, trunc, info = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            assert not info["illegal_action"] and not trunc
            done = term
        assert reward in (-1.0, 1.0)
        assert (reward == 1.0) == (info["winner"] == e.seat)


def test_gymnasium_turn_limit_is_truncation() -> None:
    e = SingleAgentEnv(opponents=["random"], rules=TURN_LIMITED)
    seen = 0
    for seed in range(6):
        obs, _ = e.reset(seed=seed)
        term = trunc = False
        while not (term or trunc):
            obs, reward, term, trunc, info = e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if trunc:
            seen += 1
            assert not term and reward == 0.0 and info["turn_limit"]
    assert seen > 0


# -- copy=False: observations written into preallocated arrays ----------------------------
def test_pettingzoo_no_copy_passes_the_api_test() -> None:
    api_test(env(players=3, copy=False), num_cycles=300)
    api_test(raw_env(players=2, copy=False), num_cycles=200)


@pytest.mark.parametrize("wrapped", [False, True])
def test_pettingzoo_no_copy_sees_what_copy_sees_in_reused_arrays(wrapped: bool) -> None:
    """The same seed and actions give the same observations, rewards and endings with and
    without copying; without, each agent's observation is the same two arrays every step."""
    make = env if wrapped else raw_env
    fresh, reused = make(players=3, copy=True), make(players=3, copy=False)
    for seed in (1, 2):
        fresh.reset(seed=seed)
        reused.reset(seed=seed)
        rng = np.random.default_rng(seed)
        arrays: dict[str, tuple[int, int]] = {}
        kept: list[np.ndarray] = []
        for agent in fresh.agent_iter():
            assert reused.agent_selection == agent
            a, b = fresh.last(), reused.last()
            np.testing.assert_array_equal(a[0]["observation"], b[0]["observation"])
            np.testing.assert_array_equal(a[0]["action_mask"], b[0]["action_mask"])
            assert a[1:] == b[1:]
            ids = (id(b[0]["observation"]), id(b[0]["action_mask"]))
            assert arrays.setdefault(agent, ids) == ids, "a copy=False observation was a new array"
            # the env's own memory, read-only (it changes under them); the copies are the caller's
            assert not (b[0]["observation"].flags.writeable or b[0]["action_mask"].flags.writeable)
            assert a[0]["observation"].flags.writeable and a[0]["action_mask"].flags.writeable
            assert not np.shares_memory(a[0]["observation"], b[0]["observation"])
            kept.append(a[0]["observation"])
            if a[2] or a[3]:
                fresh.step(None)
                reused.step(None)
                continue
            action = int(rng.choice(np.flatnonzero(a[0]["action_mask"])))
            fresh.step(action)
            reused.step(action)
        assert not reused.agents
        assert len({id(x) for x in kept}) == len(kept)  # copy=True: a new array every time
    assert len({ids for ids in arrays.values()}) == 3  # one pair per agent


def test_gymnasium_no_copy_matches_copy_and_reuses_its_arrays() -> None:
    fresh = SingleAgentEnv(opponents=["random", "random"])
    reused = SingleAgentEnv(opponents=["random", "random"], copy=False)
    # gymnasium's checker requires new arrays every call: copy=False departs from it on purpose
    with pytest.raises(AssertionError, match="share an object"):
        check_env(SingleAgentEnv(opponents=["random"], copy=False), skip_render_check=True)
    obs_a, info_a = fresh.reset(seed=4)
    obs_b, info_b = reused.reset(seed=4)
    first = obs_b["observation"]
    rng = np.random.default_rng(4)
    done = False
    while not done:
        np.testing.assert_array_equal(obs_a["observation"], obs_b["observation"])
        np.testing.assert_array_equal(obs_a["action_mask"], obs_b["action_mask"])
        assert info_a == info_b
        assert obs_b["observation"] is first
        action = int(rng.choice(np.flatnonzero(obs_a["action_mask"])))
        obs_a, r_a, t_a, tr_a, info_a = fresh.step(action)
        obs_b, r_b, t_b, tr_b, info_b = reused.step(action)
        assert (r_a, t_a, tr_a) == (r_b, t_b, tr_b)
        done = t_a or tr_a
    np.testing.assert_array_equal(obs_a["observation"], obs_b["observation"])


def test_observation_buffer_refuses_another_player_count_and_keeps_its_arrays() -> None:
    from civlite.rl.encoding import ObservationBuffer, observe_game

    b = ObservationBuffer(2)
    assert repr(b) == "ObservationBuffer(2)" and b.observation.shape == (obs_size(2),)
    g = Game(2, seed=3)
    before = b.observation, b.mask
    got = b.write(g, 1, g.legal_ids() if g.to_move == 1 else [])
    assert got[0] is before[0] and got[1] is before[1]
    want = observe_game(g, 1, g.legal_ids() if g.to_move == 1 else [])
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert not (got[0].flags.writeable or got[1].flags.writeable)  # views of the env's memory: copy to keep
    saved = got[0].tobytes() + got[1].tobytes()
    with pytest.raises(ValueError, match="2-player games; the game has 3 players"):
        b.write(Game(3, seed=3), 0, [])
    with pytest.raises(ValueError, match="action id 999"):
        b.write(g, 0, [999])
    with pytest.raises(ValueError, match=r"seat must be 0\.\.1"):
        b.write(g, 2, [])
    assert got[0].tobytes() + got[1].tobytes() == saved  # a refused write changes nothing


@pytest.mark.parametrize("copy", [True, False])
def test_pettingzoo_compiled_calls_match_pettingzoos_own_chain(copy: bool) -> None:
    """``env()``'s ``agent_iter``, ``last`` and ``step`` (the compiled core's) give, step by
    step, what PettingZoo's own ``AECEnv.last`` and the wrappers' ``step`` chain give."""
    from pettingzoo import AECEnv
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    fast, slow = env(players=3, copy=copy), env(players=3, copy=copy)
    for seed in (4, 5):
        fast.reset(seed=seed)
        slow.reset(seed=seed)
        rng = np.random.default_rng(seed)
        steps = 0
        for agent in fast.agent_iter():
            assert slow.agent_selection == agent
            a, b = fast.last(), AECEnv.last(slow)
            np.testing.assert_array_equal(a[0]["observation"], b[0]["observation"])
            np.testing.assert_array_equal(a[0]["action_mask"], b[0]["action_mask"])
            assert a[1:] == b[1:]
            action = None if a[2] or a[3] else int(rng.choice(np.flatnonzero(a[0]["action_mask"])))
            fast.step(action)
            OrderEnforcingWrapper.step(slow, action)
            steps += 1
        assert not slow.agents and steps > 50
        assert fast.unwrapped.rewards == slow.unwrapped.rewards
    if COMPILED:  # the loop's calls are the compiled core's bound methods, not Python frames
        assert all(type(f) is type(len) for f in (fast.last, fast.step, fast.unwrapped.observe))


def test_pettingzoo_state_lives_in_the_core_and_wrappers_rebind_it() -> None:
    """The AEC state is the core's (PettingZoo's code reads and writes it through the
    environment's properties): the illegal-move wrapper's new dicts and flags reach it."""
    e = env(players=2)
    raw = e.unwrapped
    with pytest.raises(AttributeError, match="reset"):
        raw.agents  # noqa: B018
    with pytest.raises(AttributeError, match="reset"):
        raw.last()
    e.reset(seed=1)
    core = raw._core
    assert raw.terminations is core.terminations and raw._cumulative_rewards is core.cumulative
    assert raw.agent_selection == core.agent_selection == "player_0"
    e.step(NUM_ACTIONS - 1)  # illegal: the wrapper rebinds every dict
    assert core.terminated and all(core.terminations.values()) and raw.terminations is core.terminations
    assert core.cumulative["player_0"] == -1.0
    e.step(None)
    e.step(None)
    assert not raw.agents and not core.agents
    e.reset(seed=1)  # a new game clears the flags
    assert not core.terminated and raw.agents == ["player_0", "player_1"]
    obs, *_ = e.last()
    e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert core.has_updated and raw.agent_selection == core.agent_selection


def test_pettingzoo_agent_iter_stops_at_max_iter_and_refuses_a_skipped_step() -> None:
    for make in (env, raw_env):
        e = make(players=2)
        e.reset(seed=2)
        seen = 0
        for _ in e.agent_iter(max_iter=7):
            obs, *_ = e.last()
            e.step(int(np.flatnonzero(obs["action_mask"])[0]))
            seen += 1
        assert seen == 7
    w = env(players=2)
    w.reset(seed=2)
    it = iter(w.agent_iter())
    next(it)
    with pytest.raises(AssertionError, match="need to call step"):
        next(it)  # no step between two agents: the order wrapper's check


def test_aec_core_refuses_mismatched_seats_and_buffers() -> None:
    from civlite.rl.aec import AECCore
    from civlite.rl.encoding import ObservationBuffer

    g = Game(2, seed=1)
    bufs = [ObservationBuffer(2) for _ in range(2)]
    arrays = ([b.store for b in bufs], [b.observation for b in bufs], [b.mask for b in bufs])
    with pytest.raises(ValueError, match="3 agent names for a 2-player game"):
        AECCore(None, g, ["a", "b", "c"], True, *arrays)
    with pytest.raises(ValueError, match=r"one ObservationStore\(2, 153\) per seat"):
        AECCore(None, g, ["a", "b"], False, [bufs[0].store], [bufs[0].observation], [bufs[0].mask])
    with pytest.raises(ValueError, match=r"one ObservationStore\(2, 153\) per seat"):
        AECCore(None, g, ["a", "b"], True, [ObservationBuffer(3).store, bufs[1].store], *arrays[1:])
    AECCore(None, g, ["a", "b"], True, *arrays)
