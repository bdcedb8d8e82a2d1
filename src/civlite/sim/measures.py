"""Measures of a game's shape that a designer asks for, from the light game lines of a run
(``stats``: the CT of every seat at each turn, the winner, the melds):

* **lead changes**: how often the unique CT leader at the end of a round differs from the
  previous unique leader (rounds where two seats share the lead are skipped);
* **decisiveness**: the chance that the unique leader at the end of round ``r`` wins the game,
  for each ``r`` (a curve that rises towards 1 as the game is decided; near the fair share it
  is still open);
* **comeback rate**: the share of decided games won by a seat that was behind the leader at
  half time (the end of the round that halves the game);
* **last place without a meld**: for the seat that ends last (fewest CT; ties: the later seat),
  its longest stretch without a meld, in rounds (from the deal or its previous meld to its next
  meld or the end), and the share of games in which it never melded.

A round is one turn per seat (``players`` turns; an extra turn makes a round a turn longer,
which these measures do not track). The skill depth curve comes from :mod:`civlite.sim.matrix`
(the mixed tables of adjacent skill levels).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from .stats import mean_ci, wilson


def _leader(ct: Sequence[int]) -> int | None:
    top = max(ct)
    seats = [s for s, c in enumerate(ct) if c == top]
    return seats[0] if len(seats) == 1 else None


def round_leaders(stats: dict[str, Any], players: int) -> list[int | None]:
    """The unique CT leader at the end of each whole round (``None`` where the lead is shared)."""
    cts = stats["ct"]
    return [_leader(cts[k]) for k in range(players, len(cts), players)]


def lead_changes(stats: dict[str, Any], players: int) -> int:
    """How many times the unique leader changed between rounds of one game."""
    prev: int | None = None
    changes = 0
    for lead in round_leaders(stats, players):
        if lead is None:
            continue
        if prev is not None and lead != prev:
            changes += 1
        prev = lead
    return changes


def comeback(stats: dict[str, Any], players: int) -> bool | None:
    """Whether the winner was behind the leader at half time (``None``: no winner, or no whole round)."""
    w = stats["winner"]
    cts = stats["ct"]
    rounds = (len(cts) - 1) // players
    if w is None or rounds < 1:
        return None
    half = cts[max(1, rounds // 2) * players]
    return bool(half[w] < max(half))


def last_place_drought(stats: dict[str, Any], players: int) -> tuple[int, float, bool]:
    """``(seat, longest stretch without a meld in rounds, never melded)`` for the seat that ends last."""
    final = stats["ct"][-1]
    low = min(final)
    seat = max(s for s, c in enumerate(final) if c == low)
    turns = [int(t) for s, t in stats["melds"] if s == seat]
    marks = [0, *turns, int(stats["turns"])]
    gap = max((b - a for a, b in pairwise(marks)), default=0)
    return seat, gap / players, not turns


def game_shape(lines: Sequence[dict[str, Any]], players: int, most_rounds: int = 40) -> dict[str, Any]:
    """Every measure of one run's game lines, with 95% intervals."""
    stats = [ln["stats"] for ln in lines if ln["stats"].get("ct")]
    changes = [float(lead_changes(st, players)) for st in stats]
    m, lo, hi = mean_ci(changes)
    came = [c for c in (comeback(st, players) for st in stats) if c is not None]
    cb, cb_lo, cb_hi = wilson(sum(came), len(came))
    curve = []
    for r in range(1, most_rounds + 1):
        k = n = 0
        for st in stats:
            leaders = round_leaders(st, players)
            if len(leaders) >= r and leaders[r - 1] is not None and st["winner"] is not None:
                n += 1
                k += leaders[r - 1] == st["winner"]
        if n < 10:  # too few games last this long to say
            break
        p, plo, phi = wilson(k, n)
        curve.append({"round": r, "games": n, "leader_wins": p, "ci95": [plo, phi]})
    droughts = [last_place_drought(st, players) for st in stats]
    dm, dlo, dhi = mean_ci([d[1] for d in droughts])
    never = sum(1 for d in droughts if d[2])
    nv, nlo, nhi = wilson(never, len(droughts))
    return {"games": len(stats), "fair_share": 1 / players,
            "lead_changes": {"mean": m, "ci95": [lo, hi]},
            "comeback": {"rate": cb, "ci95": [cb_lo, cb_hi], "games": len(came)},
            "decisiveness": curve,
            "last_place": {"longest_without_meld_rounds": dm, "ci95": [dlo, dhi],
                           "never_melded": nv, "never_ci95": [nlo, nhi]}}
