"""The game-shape measures on hand-made records: lead changes, decisiveness, comebacks and the
last-place seat's stretch without a meld."""

from __future__ import annotations

from typing import Any

import pytest

from civlite.sim.measures import comeback, game_shape, last_place_drought, lead_changes, round_leaders


def _stats(ct: list[list[int]], winner: int | None, melds: list[list[int]] | None = None) -> dict[str, Any]:
    return {"ct": ct, "winner": winner, "turns": len(ct) - 1, "melds": melds or []}


# 2 players, 4 rounds (8 turns): seat 0 leads after round 1, seat 1 after round 2, shared after
# round 3, seat 0 after round 4 and wins: two changes, a comeback for nobody (seat 1 led at half time)
SEESAW = _stats([[0, 0], [1, 0], [1, 0], [1, 2], [1, 3], [3, 3], [4, 4], [5, 4], [6, 4]], 0, [[0, 2], [1, 5]])


def test_round_leaders_and_lead_changes() -> None:
    assert round_leaders(SEESAW, 2) == [0, 1, None, 0]  # ct after turns 2, 4, 6, 8
    assert lead_changes(SEESAW, 2) == 2
    flat = _stats([[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]], 0)
    assert lead_changes(flat, 2) == 0
    shared = _stats([[0, 0], [1, 0], [1, 1], [2, 1], [2, 2]], 1)
    assert round_leaders(shared, 2) == [None, None] and lead_changes(shared, 2) == 0


def test_comeback_and_last_place() -> None:
    # half time is the end of round 2 (turn 4): seat 1 leads 3 to 1, seat 0 wins: a comeback
    assert comeback(SEESAW, 2) is True
    assert comeback(_stats([[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]], 0), 2) is False
    assert comeback(_stats([[0, 0], [1, 0], [1, 1]], None), 2) is None
    seat, gap, never = last_place_drought(SEESAW, 2)  # seat 1 ends last; it melded at turn 5 of 8
    assert (seat, gap, never) == (1, 2.5, False)  # turns 0..5: 5 turns = 2.5 rounds
    seat, gap, never = last_place_drought(_stats([[0, 0, 0], [1, 0, 0], [1, 0, 0], [1, 0, 0]], 0), 3)
    assert (seat, gap, never) == (2, 1.0, True)  # seats 1 and 2 tie last: the later seat


def test_game_shape_over_a_run() -> None:
    winner_leads = _stats([[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]], 0)
    lines = [{"stats": SEESAW}] * 10 + [{"stats": winner_leads}] * 10
    shape = game_shape(lines, 2)
    assert shape["games"] == 20 and shape["lead_changes"]["mean"] == pytest.approx(1.0)
    assert shape["comeback"]["rate"] == pytest.approx(0.5)
    # after round 1 both kinds of game have seat 0 leading, and seat 0 wins all 20
    assert shape["decisiveness"][0] == {"round": 1, "games": 20, "leader_wins": 1.0,
                                        "ci95": shape["decisiveness"][0]["ci95"]}
    # after round 2 the seesaw games have seat 1 leading (it loses): 10 of 20
    assert shape["decisiveness"][1]["leader_wins"] == pytest.approx(0.5)
    assert len(shape["decisiveness"]) == 2  # round 3: only the seesaw's games last that long, and it is shared
    assert shape["last_place"]["never_melded"] == pytest.approx(0.5)
