"""``python_civlite`` with ``chance="implicit"``: no chance nodes, SAMPLED_STOCHASTIC, exact copies."""

from __future__ import annotations

import pickle
import random
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from civlite.engine import Game  # noqa: E402
from civlite.rl.openspiel import SeededChance, game_of  # noqa: E402


def _load(players: int = 2, name: str = "python_civlite", **params: Any) -> Any:
    if name == "python_civlite":
        params["players"] = players
    return pyspiel.load_game(name, {"chance": "implicit", **params})


def _everything(s: Any) -> list[Any]:
    out: list[Any] = [str(s), s.current_player(), s.is_terminal(), s.returns(), s.legal_actions()]
    for p in range(s.get_game().num_players()):
        out += [s.information_state_string(p), s.observation_string(p)]
    return out


def test_the_type_has_no_chance_nodes() -> None:
    for game in (_load(2), _load(3), _load(name="python_civlite_2p")):
        t = game.get_type()
        assert t.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
        assert game.max_chance_outcomes() == 0
    assert _load(2).get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert _load(3).get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    # the explicit game's type is as registered
    assert (pyspiel.load_game("python_civlite").get_type().chance_mode
            == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC)


def test_random_sim_test() -> None:
    pyspiel.random_sim_test(_load(2, turn_limit=40), num_sims=3, serialize=False, verbose=False)
    pyspiel.random_sim_test(_load(3, turn_limit=40), num_sims=2, serialize=False, verbose=False)
    pyspiel.random_sim_test(_load(name="python_civlite_2p", turn_limit=30), num_sims=2, serialize=False, verbose=False)


def test_pyspiel_cannot_serialise_a_python_sampled_stochastic_game() -> None:
    """serialize_game_and_state (random_sim_test's serialize=True) asks the C++ game for its random
    state, which no Python game can give: the limit is pyspiel's, and the state's own serialisation
    (tested below) is what pickling uses instead."""
    game = _load(2)
    with pytest.raises(pyspiel.SpielError, match="GetRNGState"):
        pyspiel.serialize_game_and_state(game, game.new_initial_state())


def test_a_whole_game_meets_no_chance_node() -> None:
    game = _load(3, turn_limit=30)
    rng = random.Random(0)
    s = game.new_initial_state()
    assert not s.is_chance_node() and s.current_player() == 0
    while not s.is_terminal():
        assert not s.is_chance_node() and s.chance_outcomes() == []
        s.apply_action(rng.choice(s.legal_actions()))
    assert all(h.player != pyspiel.PlayerId.CHANCE for h in s.full_history())
    assert sum(s.returns()) in (-1.0, 0.0) or s.returns() == [0.0] * 3


def test_deals_come_from_a_seeded_stream() -> None:
    """The k-th new_initial_state() of a game loaded with chance_seed s is Game(n, seed=s_k), s_k the
    k-th getrandbits(62) of random.Random(s): the same in every process, and a new deal each time;
    deal(seed) is Game(n, seed=seed)'s."""
    a, b = _load(2, chance_seed=7), _load(2, chance_seed=7)
    seeds = random.Random(7)
    deals = []
    for _ in range(3):
        sa, sb = a.new_initial_state(), b.new_initial_state()
        g = Game(2, seed=seeds.getrandbits(62))
        assert game_of(sa).hands == game_of(sb).hands == g.hands  # type: ignore[union-attr]
        deals.append(g.hands)
    assert deals[0] != deals[1] != deals[2]
    assert game_of(_load(2, chance_seed=8).new_initial_state()).hands != deals[0]  # type: ignore[union-attr]
    assert game_of(a.deal(5)).hands == Game(2, seed=5).hands  # type: ignore[union-attr]


def test_copies_go_on_exactly_as_the_original() -> None:
    """A clone, a pickled copy and a deserialised copy draw the same cards for the same actions."""
    game = _load(3, turn_limit=30)
    rng = random.Random(3)
    s = game.new_initial_state()
    checked = 0
    while not s.is_terminal():
        if rng.random() < 0.1:
            copies = [s.clone(), pickle.loads(pickle.dumps(s)), game.deserialize_state(s.serialize())]
            script = random.Random(checked)
            for c in copies:
                assert _everything(c) == _everything(s)
            t = s.clone()
            for _ in range(30):
                if t.is_terminal():
                    break
                a = script.choice(t.legal_actions())
                t.apply_action(a)
                for c in copies:
                    c.apply_action(a)
            for c in copies:
                assert _everything(c) == _everything(t)
            checked += 1
        s.apply_action(rng.choice(s.legal_actions()))
    assert checked > 3


def test_information_states_are_the_explicit_games() -> None:
    """For the same deal and draws (SeededChance plays Game(n, seed)'s chance in the explicit game),
    every seat's information state and observation tensor are the explicit game's, step by step."""
    seeds = random.Random(0)
    implicit = _load(2, turn_limit=20)
    explicit = pyspiel.load_game("python_civlite", {"players": 2, "turn_limit": 20})
    steps = 0
    for _ in range(3):
        seed = seeds.getrandbits(62)
        s = implicit.deal(seed)
        sampler = SeededChance(seed)
        t = explicit.new_initial_state()
        rng = random.Random(seed)
        while not s.is_terminal():
            while t.is_chance_node():
                t.apply_action(sampler(t))
            if not sampler.exact:
                break  # a search took another card of the suit: the games may part from here
            for p in range(2):
                assert s.information_state_string(p) == t.information_state_string(p)
                assert np.array_equal(s.information_state_tensor(p), t.information_state_tensor(p))
            a = rng.choice(s.legal_actions())
            s.apply_action(a)
            t.apply_action(a)
            steps += 1
    assert steps > 100


def test_resampled_worlds_keep_the_infostate_and_play_on() -> None:
    game = _load(2, turn_limit=20)
    rng = random.Random(1)
    s = game.new_initial_state()
    differs = 0
    while not s.is_terminal():
        p = s.current_player()
        r = s.resample_from_infostate(p, rng.random)
        assert r.information_state_string(p) == s.information_state_string(p)
        assert r.legal_actions() == s.legal_actions()
        differs += game_of(r).hands != game_of(s).hands  # type: ignore[union-attr]
        r.apply_action(rng.choice(r.legal_actions()))
        s.apply_action(rng.choice(s.legal_actions()))
    assert differs > 0


def test_ismcts_bot_plays_the_implicit_game() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = _load(2, victory_ct=4)
    rs = np.random.RandomState(0)
    ev = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bots = [ismcts.ISMCTSBot(game, ev, uct_c=2.0, max_simulations=4, random_state=rs) for _ in range(2)]
    s = game.new_initial_state()
    moves = 0
    while not s.is_terminal():
        s.apply_action(int(bots[s.current_player()].step(s)))
        moves += 1
    assert moves > 0 and sorted(s.returns()) in ([-1.0, 1.0], [0.0, 0.0])


def test_an_illegal_action_changes_nothing() -> None:
    game = _load(2)
    s = game.new_initial_state()
    before = _everything(s)
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in s.legal_actions())
    with pytest.raises(Exception):  # noqa: B017  (the engine's error, through pyspiel)
        s.apply_action(illegal)
    assert _everything(s) == before


@pytest.mark.parametrize("players", [2, 3, 4])
def test_memory_built_when_asked_is_the_memory_kept_as_it_goes(players: int) -> None:
    """A dealt state keeps only its actions and builds its memory by replaying its seed when
    first asked; that memory is, at every step and for every seat, the one a state that keeps
    its memory as it goes holds: asked at every step, now and then, after copies and pickling."""
    from civlite.rl.openspiel.implicit import ImplicitState, _ImplicitCore

    game = _load(players, turn_limit=25)
    seeds = random.Random(players)
    compared = 0
    for k in range(8):
        seed = seeds.getrandbits(62)
        lazy = game.deal(seed)
        eager = ImplicitState(game, _ImplicitCore(game.cfg, seed, lazy=False))
        rng = random.Random(seed)
        every = k % 3  # 0: ask at every step; else now and then
        while not eager.is_terminal():
            if every == 0 or rng.random() < 0.15:
                if rng.random() < 0.3:  # a copy goes on in the original's place
                    lazy = rng.choice([lazy.clone(), pickle.loads(pickle.dumps(lazy)),
                                       game.deserialize_state(lazy.serialize())])
                for p in range(players):
                    assert lazy.information_state_string(p) == eager.information_state_string(p)
                    assert np.array_equal(lazy.information_state_tensor(p), eager.information_state_tensor(p))
                assert lazy.core.all_events() == eager.core.all_events()
                compared += 1
            assert lazy.legal_actions() == eager.legal_actions()
            a = rng.choice(eager.legal_actions())
            lazy.apply_action(a)
            eager.apply_action(a)
        assert lazy.is_terminal() and lazy.returns() == eager.returns()
        assert lazy.information_state_string(0) == eager.information_state_string(0)
    assert compared > 200
