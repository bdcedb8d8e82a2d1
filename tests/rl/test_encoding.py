"""The fast encodings (``encode_game``, ``encode_batch``, ``observe_game``) equal ``encode_view``
of the seat's view."""

from __future__ import annotations

import random

import numpy as np
import pytest

from civlite.engine import Game, RuleSet
from civlite.rl.encoding import (
    ObservationBuffer,
    encode_batch,
    encode_game,
    encode_view,
    mask_array,
    obs_size,
    observe_game,
)

SHORT = RuleSet.default().with_changes(victory_ct=8)
RULES = {  # rules, player counts, games per count
    "default": (RuleSet.default(), (2, 4), 1),
    "short": (SHORT, (2, 3, 4, 6), 2),
    "supply": (SHORT.with_changes(ct_supply=14, turn_limit=40), (2, 5), 1),  # a finite supply: its flag and count
    "clipped": (RuleSet.default().with_changes(victory_ct=1500, turn_limit=12), (2, 8), 1),  # clipped at OBS_HIGH
}


@pytest.mark.parametrize("case", RULES)
def test_fast_encodings_equal_the_view_encoding_over_random_games(case: str) -> None:
    rules, counts, games_per_count = RULES[case]
    rng = random.Random(7)
    kinds = set()
    for players in counts:
        for _ in range(games_per_count):
            g = Game(players, seed=rng.getrandbits(32), rules=rules)
            kept = [ObservationBuffer(players) for _ in range(players)]  # written in place every step
            while True:
                games, seats, rows = [], [], []
                legal = [] if g.is_over else g.legal_ids()
                for seat in range(players):
                    want = encode_view(g.view(seat))
                    np.testing.assert_array_equal(encode_game(g, seat), want)
                    mine = legal if seat == g.to_move else []
                    obs, mask = observe_game(g, seat, mine)
                    np.testing.assert_array_equal(obs, want)
                    np.testing.assert_array_equal(mask, mask_array(mine))
                    obs, mask = kept[seat].write(g, seat, mine)
                    np.testing.assert_array_equal(obs, want)
                    np.testing.assert_array_equal(mask, mask_array(mine))
                    games.append(g)
                    seats.append(seat)
                    rows.append(want)
                out = np.full((players, obs_size(players)), -1.0, np.float32)
                encode_batch(games, seats, out)
                np.testing.assert_array_equal(out, np.array(rows))
                kinds.add(g.pending_kind)
                if g.is_over:
                    break
                ids = g.legal_ids()
                g.apply_id(ids[int(rng.random() * len(ids))])
    assert {"action", "meld", None} <= kinds


def test_observe_game_gives_new_writable_arrays_that_do_not_overlap() -> None:
    g = Game(3, seed=2)
    legal = g.legal_ids()
    obs, mask = observe_game(g, 0, legal)
    assert obs.dtype == np.float32 and obs.shape == (obs_size(3),) and obs.flags.writeable
    assert mask.dtype == np.int8 and mask.shape == (153,) and mask.flags.writeable
    first_obs, first_mask = obs.copy(), mask.copy()
    obs[:] = -7.0  # the caller's arrays: writing one leaves the other, and the next pair, untouched
    np.testing.assert_array_equal(mask, first_mask)
    mask[:] = 9
    again_obs, again_mask = observe_game(g, 0, legal)
    np.testing.assert_array_equal(again_obs, first_obs)
    np.testing.assert_array_equal(again_mask, first_mask)
    assert int(first_mask.sum()) == len(legal)


def test_a_refused_call_leaves_no_trace_in_the_next() -> None:
    """The numeric view reuses a scratch vector; a call refused half-way must not spoil it."""
    from civlite.engine import numeric_observation, numeric_view

    g = Game(2, seed=6)
    want = encode_view(g.view(1))
    with pytest.raises(ValueError, match=r"seat must be 0\.\.1"):
        numeric_view(g, 5)
    with pytest.raises(ValueError, match="action id 400 is outside"):
        numeric_observation(g, 0, [0, 400], 153)
    np.testing.assert_array_equal(np.frombuffer(numeric_view(g, 1), np.float32), want)
    obs, mask = observe_game(g, 1, [])
    np.testing.assert_array_equal(obs, want)
    assert not mask.any()


def test_large_counts_are_exact_and_the_supply_is_clipped() -> None:
    g = Game(2, seed=1, rules=RuleSet.default().with_changes(victory_ct=300, ct_supply=5000))
    g.ct[0] = 280  # past one byte
    g.supply = 4000  # clipped at OBS_HIGH
    for seat in (0, 1):
        np.testing.assert_array_equal(encode_game(g, seat), encode_view(g.view(seat)))
        np.testing.assert_array_equal(ObservationBuffer(2).write(g, seat, [])[0], encode_view(g.view(seat)))
    out = np.zeros((2, obs_size(2)), np.float32)
    encode_batch([g, g], [0, 1], out)
    np.testing.assert_array_equal(out, np.array([encode_view(g.view(0)), encode_view(g.view(1))]))


def test_encode_batch_refuses_an_unfit_buffer() -> None:
    g = Game(2, seed=1)
    for bad in (np.zeros((2, obs_size(2)), np.float64), np.zeros((3, obs_size(2)), np.float32),
                np.zeros((obs_size(2), 2), np.float32).T):
        with pytest.raises(ValueError, match="out must be"):
            encode_batch([g, g], [0, 1], bad)


def test_the_numeric_view_refuses_bad_input_by_name() -> None:
    from civlite.engine import NUM_ACTIONS, mask_batch, numeric_batch, numeric_view

    g2, g3 = Game(2, seed=1), Game(3, seed=1)
    with pytest.raises(ValueError, match=r"seat must be 0\.\.1"):
        numeric_view(g2, 2)
    with pytest.raises(ValueError, match="game 1 has 3 players"):
        numeric_batch([g2, g3], [0, 0])
    with pytest.raises(ValueError, match="2 games but 1 seats"):
        numeric_batch([g2, g2], [0])
    assert numeric_batch([], []) == b""
    with pytest.raises(ValueError, match="action id 153 is outside"):
        mask_batch([[0, NUM_ACTIONS]], NUM_ACTIONS)
    assert mask_batch([[0, 2], []], 3) == bytes([1, 0, 1, 0, 0, 0])


def test_a_long_run_of_zeros_and_a_turn_past_the_limit() -> None:
    """Eight players: the longest zero runs; the turn fraction is capped at 1."""
    g = Game(8, seed=4)
    g.turn = g.rules.turn_limit + 5
    for seat in range(8):
        np.testing.assert_array_equal(encode_game(g, seat), encode_view(g.view(seat)))
        np.testing.assert_array_equal(ObservationBuffer(8).write(g, seat, [])[0], encode_view(g.view(seat)))


def test_a_store_follows_games_of_other_rules_and_turns_interleaved() -> None:
    """The turn fraction's float32 bits are cached for the last rule set and turn: games with
    other turn limits, and turns going back and forth, written in turn into the same stores."""
    games = [Game(2, seed=s, rules=RuleSet.default().with_changes(turn_limit=limit))
             for s, limit in ((1, 7), (2, 30), (3, 7), (4, 1))]
    stores = [ObservationBuffer(2) for _ in range(2)]
    for turn in (0, 1, 3, 3, 2, 6, 7, 9, 1, 30, 31, 0):
        for g in games:
            g.turn = turn
            for seat in (0, 1):
                np.testing.assert_array_equal(stores[seat].write(g, seat, [])[0], encode_view(g.view(seat)))


def test_an_observation_store_refuses_bad_input_and_changes_nothing() -> None:
    from civlite.engine import NUM_ACTIONS, ObservationStore, numeric_observation

    with pytest.raises(ValueError, match="players >= 1 and width >= 0"):
        ObservationStore(0, NUM_ACTIONS)
    s = ObservationStore(3, NUM_ACTIONS)
    assert repr(s) == "ObservationStore(3, 153)"
    g = Game(3, seed=5)
    legal = g.legal_ids()
    s.write(g, g.to_move, legal)
    before = bytes(s.values) + bytes(s.mask)
    assert before == numeric_observation(g, g.to_move, legal, NUM_ACTIONS)
    for bad_game, seat, ids, message in ((Game(2, seed=5), 0, [], "3-player games; the game has 2 players"),
                                         (g, 3, [], r"seat must be 0\.\.2"), (g, -1, [], r"seat must be 0\.\.2"),
                                         (g, 0, [1, 153], "action id 153 is outside 0..152"),
                                         (g, 0, [-1], "action id -1 is outside"),
                                         (g, 0, [0] * 154, "154 action ids for a mask of 153")):
        with pytest.raises(ValueError, match=message):
            s.write(bad_game, seat, ids)
        assert bytes(s.values) + bytes(s.mask) == before
    s.write(g, (g.to_move + 1) % 3, [])  # the mask is cleared for a seat that does not decide
    assert not any(bytes(s.mask))
    with pytest.raises(TypeError):
        memoryview(s.values)[0] = 1  # read-only: only write() changes it


def test_the_mask_zero_row_cache_keeps_one_width() -> None:
    from civlite.engine import mask_batch, numeric

    for width in range(1, 60):
        assert mask_batch([[0], []], width) == bytes([1] + [0] * (2 * width - 1))
    assert numeric._SCRATCH.zeros == bytes(59)  # the last width only: never a growing cache


def test_scratch_vectors_are_given_back_and_a_failed_call_leaves_none_dirty() -> None:
    """The scratch vector of a player count is taken out while in use: a call that fails
    half-way (a bad seat) leaves its slot empty, and the next call starts from zeros."""
    from civlite.engine import numeric

    g = Game(3, seed=2)
    before = encode_game(g, 1)
    assert len(numeric._SCRATCH.slots[3]) == numeric.obs_size(3)  # given back, all zeros
    assert not any(numeric._SCRATCH.slots[3])
    with pytest.raises(ValueError, match="seat must be"):
        numeric.numeric_view(g, 7)
    np.testing.assert_array_equal(encode_game(g, 1), before)
    big = Game(8, seed=2)  # another count has its own slot
    np.testing.assert_array_equal(encode_game(big, 5), encode_view(big.view(5)))
    np.testing.assert_array_equal(encode_game(g, 1), before)
