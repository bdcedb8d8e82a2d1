"""The OpenSpiel game ``python_civlite``: chance nodes, invariants, strings, ISMCTS."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from civlite.engine import CARDS, NUM_ACTIONS, Action, Basic, Card, Game, Pass, RuleSet, Take  # noqa: E402
from civlite.rl.encoding import obs_size  # noqa: E402
from civlite.rl.openspiel import SNAPSHOT_EVERY, CivLiteState, game_of, info_tensor_size  # noqa: E402

_UNUSED_RNG = random.Random(0).getstate()


def _load(players: int = 2, **params: object) -> Any:
    return pyspiel.load_game("python_civlite", {"players": players, **params})


def _game(s: Any) -> Game:
    g = game_of(s)
    assert g is not None
    return g


def _ids(names: list[str]) -> list[int]:
    return sorted(Card(n).id for n in names)


def _state_at(hands: list[list[str]], deck: list[str], discard: list[str]) -> Any:
    """A state at a chosen position (its cards are all the cards of that game)."""
    position = {"active": 0, "phase": "action", "players": [{"hand": h, "ct": 0} for h in hands],
                "deck": deck, "discard": discard}
    s = _load(len(hands)).new_initial_state()
    s.core.dealt = []
    s.core.candidates = []
    s.core.game = Game.from_position(position, RuleSet.default(), seed=0)
    return s


def _play(s: Any, action: Action) -> None:
    g = game_of(s)
    assert g is not None and not s.is_chance_node()
    (aid,) = [i for i in g.legal_ids() if g.action_for_id(i) == action]
    s.apply_action(aid)


def _check_invariants(state: CivLiteState) -> None:
    g = game_of(state)
    if g is None:
        return
    cards = [c for h in g.hands for c in h] + list(g.deck) + list(g.discard)
    assert sorted(cards) == sorted(g.universe), "cards are conserved"
    assert all(ct >= 0 for ct in g.ct)
    # every chance outcome went through the ChanceSource hook, never the engine's rng
    assert g.chance is None and g.rng.getstate() == _UNUSED_RNG
    if not state.is_terminal() and not state.is_chance_node():
        legal = state.legal_actions()
        assert legal and all(0 <= a < NUM_ACTIONS for a in legal)
        assert legal == g.legal_ids()


def _random_game(game: object, rng: random.Random, check: bool = True) -> tuple[CivLiteState, int, int]:
    state = game.new_initial_state()  # type: ignore[attr-defined]
    decisions = chances = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            assert len({a for a, _ in outcomes}) == len(outcomes)
            state.apply_action(rng.choice([a for a, _ in outcomes]))
            chances += 1
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
        if check:
            _check_invariants(state)
    return state, decisions, chances


@pytest.mark.parametrize("players", [2, 3, 5])
def test_random_games_keep_invariants(players: int) -> None:
    game = _load(players)
    rng = random.Random(players)
    for _ in range(6):
        state, decisions, chances = _random_game(game, rng)
        r = state.returns()
        assert sorted(r) in ([-1.0] * (players - 1) + [1.0], [0.0] * players)
        assert decisions > 0 and chances >= 5 * players + 2


def test_pyspiel_random_sim_test() -> None:
    pyspiel.random_sim_test(_load(2, victory_ct=8, turn_limit=40), num_sims=3, serialize=True, verbose=False)
    pyspiel.random_sim_test(_load(3, victory_ct=8, turn_limit=40), num_sims=2, serialize=False, verbose=False)


def test_deal_is_chance_over_all_cards() -> None:
    game = _load(2)
    s = game.new_initial_state()
    assert s.is_chance_node()
    out = s.chance_outcomes()
    assert [a for a, _ in out] == list(range(len(CARDS)))
    assert out[0][1] == pytest.approx(1 / len(CARDS))
    for _ in range(2 * 5 + 2):
        assert s.is_chance_node()
        s.apply_action(s.chance_outcomes()[0][0])
    assert s.current_player() == 0
    g = game_of(s)
    assert g is not None and len(g.hands[0]) == 7 and len(g.hands[1]) == 5 and len(g.deck) == 112 - 12


def test_each_drawn_card_is_a_chance_node() -> None:
    game = _load(2)
    s = game.new_initial_state()
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[-1][0])
    g = game_of(s)
    assert g is not None
    deck_before = sorted(g.deck)
    s.apply_action(0)  # pass the action phase
    s.apply_action(0)  # pass the meld: the turn ends, seat 1 rises and draws 2
    for _ in range(2):
        assert s.is_chance_node()
        cands = [a for a, _ in s.chance_outcomes()]
        assert set(cands) <= set(deck_before)
        s.apply_action(cands[0])
    assert s.current_player() == 1
    assert len(_game(s).hands[1]) == 7


def _paused_at_second_draw(game: Any) -> tuple[Any, int]:
    """A state whose turn ended (seat 1 rises and draws 2), after the first draw's outcome (returned)."""
    s = game.new_initial_state()
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[-1][0])
    s.apply_action(0)
    s.apply_action(0)  # the turn ends: seat 1 rises and draws 2
    first = s.chance_outcomes()[3][0]
    s.apply_action(first)
    return s, first


def test_an_action_paused_at_chance_runs_once_and_its_copies_replay_alike() -> None:
    """The rise draws two cards: the action pauses at each (in a fiber) and is applied once;
    a clone or a pickled copy made between the draws replays it, and all end alike."""
    import gc
    import pickle

    game = _load(2)
    s, first = _paused_at_second_draw(game)
    assert s.is_chance_node() and s.core.fiber is not None  # paused at the second draw
    copies = [s.clone(), game.deserialize_state(s.serialize())]
    core = pickle.loads(pickle.dumps(s.core))
    assert core.fiber is None and core.script == [first]
    for t in copies:
        assert t.core.fiber is None and t.chance_outcomes() == s.chance_outcomes()
    second = s.chance_outcomes()[-1][0]
    for t in [s, *copies]:
        t.apply_action(second)
        assert not t.is_chance_node() and t.core.fiber is None
    assert len({str(t) for t in [s, *copies]}) == 1
    assert len({t.information_state_string(1) for t in [s, *copies]}) == 1
    # states dropped while paused unwind their fibers; play goes on
    paused = 0
    rng = random.Random(3)
    for _ in range(20):
        u = s.clone()
        while not u.is_terminal() and u.core.fiber is None:
            u.apply_action(rng.choice([a for a, _ in u.chance_outcomes()] if u.is_chance_node() else u.legal_actions()))
        paused += u.core.fiber is not None
        del u
    gc.collect()
    assert paused > 0
    while not s.is_terminal():
        s.apply_action(s.chance_outcomes()[0][0] if s.is_chance_node() else s.legal_actions()[-1])


def test_raid_steal_is_a_chance_node_over_the_victims_hand() -> None:
    rules = RuleSet.default()
    game = _load(2)
    rng = random.Random(7)
    for _ in range(200):
        s = game.new_initial_state()
        while s.is_chance_node():
            s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
        raid = 1 + 4 * 8 + 1  # basic Military -> next seat
        if raid in s.legal_actions():
            break
    else:  # pragma: no cover
        pytest.fail("no Raid in 200 deals")
    assert rules.basic[4] is not None and rules.basic[4].name == "Raid"
    victim = list(_game(s).hands[1])
    s.apply_action(raid)
    assert s.is_chance_node()
    assert [a for a, _ in s.chance_outcomes()] == sorted(victim)
    s.apply_action(victim[2])
    assert not s.is_chance_node()
    assert victim[2] in _game(s).hands[0]


def test_reshuffle_needs_no_chance_node_of_its_own() -> None:
    s = _state_at([["Greeks"], []], deck=[], discard=["Romans", "Celts", "Goths"])
    _play(s, Pass())  # action phase
    _play(s, Pass())  # meld: seat 1 rises and draws 2 from a deck reshuffled from the discard pile
    assert s.is_chance_node()
    assert [a for a, _ in s.chance_outcomes()] == _ids(["Romans", "Celts", "Goths"])
    s.apply_action(Card("Celts").id)
    assert s.is_chance_node()
    assert [a for a, _ in s.chance_outcomes()] == _ids(["Romans", "Goths"])
    s.apply_action(Card("Goths").id)
    assert not s.is_chance_node() and s.current_player() == 1
    g = game_of(s)
    assert g is not None and sorted(g.hands[1]) == _ids(["Celts", "Goths"])
    assert g.deck == _ids(["Romans"]) and g.discard == []
    _check_invariants(s)


def test_vision_shuffle_needs_no_chance_node() -> None:
    s = _state_at([["Moses"], []], deck=["Greeks", "Stonehenge", "Religion"], discard=[])
    _play(s, Basic([Card("Moses")]))  # R5.2 Vision: search the deck
    g = game_of(s)
    assert not s.is_chance_node() and g is not None and g.pending is not None and g.pending.kind == "vision"
    _play(s, Take(Card("Stonehenge")))  # then the deck is shuffled: no chance node
    g = game_of(s)
    assert not s.is_chance_node() and g is not None and g.pending is not None and g.pending.kind == "meld"
    _play(s, Pass())  # seat 1 rises: each drawn card is a chance node over the deck
    assert [a for a, _ in s.chance_outcomes()] == _ids(["Greeks", "Religion"])
    s.apply_action(Card("Religion").id)
    assert [a for a, _ in s.chance_outcomes()] == _ids(["Greeks"])
    s.apply_action(Card("Greeks").id)
    g = game_of(s)
    assert s.current_player() == 1 and g is not None and sorted(g.hands[1]) == _ids(["Greeks", "Religion"])
    _check_invariants(s)


def test_chance_outcome_outside_the_candidates_is_refused() -> None:
    s = _state_at([["Greeks"], []], deck=["Romans", "Celts"], discard=[])
    _play(s, Pass())
    _play(s, Pass())
    with pytest.raises(ValueError, match="not possible"):
        s.apply_action(Card("Greeks").id)
    assert [a for a, _ in s.chance_outcomes()] == _ids(["Romans", "Celts"])


def test_strings_tensors_and_hidden_cards() -> None:
    game = _load(3)
    rng = random.Random(3)
    s = game.new_initial_state()
    while s.is_chance_node():
        s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
    for _ in range(40):
        if s.is_terminal():
            break
        if s.is_chance_node():
            s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
            continue
        g = game_of(s)
        assert g is not None
        for p in range(3):
            info = s.information_state_string(p)
            obs = s.observation_string(p)
            assert info.startswith(f"seat {p} turn {g.turn} {g.phase} ") and "decision_number" not in obs
            assert len(s.observation_tensor(p)) == obs_size(3)
            assert len(s.information_state_tensor(p)) == info_tensor_size(3, RuleSet.default())
            view = g.view(p)
            visible = {c.name for c in view.hand} | {c.name for c in view.discard}
            visible |= {c.name for q in view.players for c in q.known}
            for q in range(3):
                if q == p:
                    continue
                for c in g.hands[q]:
                    name = CARDS[c].name
                    if name not in visible:
                        assert f'"{name}"' not in obs and name not in info
        s.apply_action(rng.choice(s.legal_actions()))


def test_resample_from_infostate_keeps_the_infostate() -> None:
    game = _load(3)
    rng = random.Random(11)
    s = game.new_initial_state()
    differs = 0
    for _ in range(300):
        if s.is_terminal():
            break
        if s.is_chance_node():
            s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
            continue
        p = s.current_player()
        r = s.resample_from_infostate(p, rng.random)
        assert r.information_state_string(p) == s.information_state_string(p)
        assert r.legal_actions() == s.legal_actions()
        differs += game_of(r).hands != game_of(s).hands  # type: ignore[union-attr]
        s.apply_action(rng.choice(s.legal_actions()))
    assert differs > 0


def _ismcts_game(players: int, victory_ct: int, sims: int, seed: int) -> tuple[list[float], int]:
    from open_spiel.python.algorithms import ismcts, mcts

    game = _load(players, victory_ct=victory_ct)
    rs = np.random.RandomState(seed)
    ev = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bots = [ismcts.ISMCTSBot(game, ev, uct_c=2.0, max_simulations=sims, random_state=rs) for _ in range(players)]
    s = game.new_initial_state()
    moves = 0
    while not s.is_terminal():
        if s.is_chance_node():
            acts, probs = zip(*s.chance_outcomes(), strict=True)
            s.apply_action(int(rs.choice(acts, p=probs)))
        else:
            s.apply_action(int(bots[s.current_player()].step(s)))
            moves += 1
            assert moves < 5000
    return s.returns(), moves


def test_ismcts_bot_plays_a_short_game() -> None:
    returns, moves = _ismcts_game(2, victory_ct=4, sims=4, seed=1)
    assert moves > 0 and sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
    assert Counter(returns)[1.0] <= 1


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3])
def test_ismcts_bot_plays_full_games(players: int) -> None:
    returns, moves = _ismcts_game(players, victory_ct=20, sims=10, seed=players)
    assert (moves > 0 and 1.0 in returns) or returns == [0.0] * players


@pytest.mark.slow
def test_many_random_games_keep_invariants() -> None:
    rng = random.Random(0)
    for players in range(2, 9):
        game = _load(players)
        for _ in range(25):
            _random_game(game, rng)


def test_two_player_game_is_zero_sum() -> None:
    assert _load(2).get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert _load(2).utility_sum() == 0.0
    assert _load(3).get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    rng = random.Random(4)
    for _ in range(3):  # draws (turn limit) are 0/0: the returns always sum to 0
        state, _, _ = _random_game(_load(2, victory_ct=8), rng, check=False)
        assert sum(state.returns()) == 0.0


def test_information_state_tensor_has_perfect_recall() -> None:
    """The tensor is the observation, the dealt hand and every event the seat saw (redacted):
    what a seat saw stays in it, while the observation forgets."""
    from civlite.rl.openspiel import EVENT_RECORD

    history = 400
    game = _load(2, history=history)
    size = obs_size(2) + 8 + history * EVENT_RECORD + 1
    assert game.information_state_tensor_shape() == [size]
    rng = random.Random(5)
    s = game.new_initial_state()
    while s.is_chance_node():
        s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
    start = [np.array(s.information_state_tensor(p)) for p in range(2)]
    prev = [x[obs_size(2) + 8:-1].reshape(history, EVENT_RECORD) for x in start]
    grew = 0
    for _ in range(60):
        if s.is_terminal():
            break
        if s.is_chance_node():
            s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
            continue
        s.apply_action(rng.choice(s.legal_actions()))
        if s.is_chance_node():
            continue
        for p in range(2):
            info = np.array(s.information_state_tensor(p))
            obs = np.array(s.observation_tensor(p))
            assert np.array_equal(info[:len(obs)], obs)
            assert np.array_equal(info[obs_size(2):obs_size(2) + 8], start[p][obs_size(2):obs_size(2) + 8])
            events = info[obs_size(2) + 8:-1].reshape(history, EVENT_RECORD)
            used = int((prev[p][:, 0] > 0).sum())
            assert np.array_equal(events[:used], prev[p][:used])  # nothing seen is forgotten
            grew += int((events[:, 0] > 0).sum()) > used
            prev[p] = events
            assert info[-1] == 0.0
    assert grew > 10
    # the other seat's hidden draws are counted but not shown
    assert s.information_state_tensor(0) != s.information_state_tensor(1)


def test_seeded_chance_deals_what_the_engine_deals() -> None:
    from civlite.rl.openspiel import SeededChance

    game = _load(2)
    for seed in (5, 6):
        engine = Game(2, seed=seed)
        sampler = SeededChance(seed)
        s = game.new_initial_state()
        rng = random.Random(seed)
        decisions = 0
        while not s.is_terminal() and decisions < 150:
            if s.is_chance_node():
                s.apply_action(sampler(s))
                continue
            g = _game(s)
            if sampler.exact:
                assert [sorted(h) for h in g.hands] == [sorted(h) for h in engine.hands]
                assert g.ct == engine.ct and sorted(g.deck) == sorted(engine.deck)
            a = rng.choice(s.legal_actions())
            s.apply_action(a)
            engine.apply_id(a)
            decisions += 1
        assert decisions > 10
    assert Game(2, seed=5).hands[1] == _game(_seeded_start(game, 5)).hands[1]


def _seeded_start(game: Any, seed: int) -> Any:
    from civlite.rl.openspiel import SeededChance

    s = game.new_initial_state()
    sampler = SeededChance(seed)
    while s.is_chance_node():
        s.apply_action(sampler(s))
    return s


def test_fast_queries_answer_as_pyspiel_does() -> None:
    """legal_actions, is_chance_node and is_player_node answer from Python as pyspiel.State's own do."""
    game = _load(3, victory_ct=8, turn_limit=30)
    rng = random.Random(9)
    for _ in range(2):
        s = game.new_initial_state()
        while True:
            for player in (None, -1, 0, 1, 2):
                args = () if player is None else (player,)
                try:
                    expected = pyspiel.State.legal_actions(s, *args)
                except pyspiel.SpielError:  # pyspiel refuses a pseudo-player at a decision
                    with pytest.raises(pyspiel.SpielError):
                        s.legal_actions(*args)
                    continue
                assert s.legal_actions(*args) == expected, player
            assert s.is_chance_node() == pyspiel.State.is_chance_node(s)
            assert s.is_player_node() == pyspiel.State.is_player_node(s)
            if s.is_terminal():
                break
            s.apply_action(rng.choice(s.legal_actions()))


def test_an_illegal_action_changes_nothing() -> None:
    """Actions apply in place: one the engine refuses leaves the state as it was, and play goes on."""
    game = _load(2)
    rng = random.Random(11)
    s = game.new_initial_state()
    for _ in range(60):
        if s.is_chance_node():
            s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
        else:
            strings = (s.information_state_string(0), s.information_state_string(1))  # (fills their caches)
            before = (str(s), s.serialize(), *strings)
            illegal = next(a for a in range(NUM_ACTIONS) if a not in s.legal_actions())
            with pytest.raises(Exception, match="not legal"):
                s.apply_action(illegal)
            assert (str(s), s.serialize(), s.information_state_string(0), s.information_state_string(1)) == before
            s.apply_action(rng.choice(s.legal_actions()))


@pytest.mark.parametrize("chance", ["exact", "sampled"])
def test_paused_nodes_show_the_game_before_the_action(chance: str) -> None:
    """At a chance node inside an action (the action paused in place), views, strings and tensors
    are those of the game before it: equal to a copy's, to a replay of the history's, and
    unchanged by the rebuilds that make them."""
    game = _load(2, chance=chance)
    rng = random.Random(5)
    checked = 0
    for _ in range(4):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                if s.core.fiber is not None and rng.random() < 0.3:
                    replay = game.new_initial_state()
                    for a in s.history():
                        replay.apply_action(a)
                    copy = s.clone()
                    for t in (copy, replay):
                        for p in range(2):
                            assert t.information_state_string(p) == s.information_state_string(p)
                            assert t.observation_string(p) == s.observation_string(p)
                            assert np.array_equal(t.information_state_tensor(p), s.information_state_tensor(p))
                    assert str(copy) == str(s) == str(replay)
                    assert _game(s).state_json() == _game(copy).state_json() == _game(replay).state_json()
                    outcome = rng.choice([a for a, _ in s.chance_outcomes()])
                    for t in (s, copy, replay):
                        t.apply_action(outcome)
                    assert str(copy) == str(s) == str(replay)
                    checked += 1
                else:
                    s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()]))
            else:
                s.apply_action(rng.choice(s.legal_actions()))
            tail = s.core.tail  # a rebuild replays at most SNAPSHOT_EVERY actions
            assert tail is None or tail[3] <= SNAPSHOT_EVERY
    assert checked > 20


def test_a_state_paused_in_one_thread_resumes_in_another() -> None:
    """A greenlet belongs to its thread: a state paused in one thread and resumed in another
    replays its action there, and ends as the same state resumed where it paused."""
    import threading

    s, _ = _paused_at_second_draw(_load(2))
    assert s.core.fiber is not None  # paused at the second draw
    twin = s.clone()
    second = s.chance_outcomes()[-1][0]
    errors: list[BaseException] = []

    def resume() -> None:
        try:
            s.apply_action(second)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    t = threading.Thread(target=resume)
    t.start()
    t.join()
    assert not errors
    twin.apply_action(second)
    assert not s.is_chance_node() and s.core.fiber is None
    assert str(s) == str(twin) and _game(s).state_json() == _game(twin).state_json()
    assert s.history() == twin.history()
    for p in range(2):
        assert s.information_state_string(p) == twin.information_state_string(p)
        assert s.observation_string(p) == twin.observation_string(p)
