"""``Game.view_counts`` (the engine's per-suit view for RL encodings) agrees with ``Game.view``."""

from __future__ import annotations

import random

from civlite.engine import Card, Game, View


def _counts(cards: tuple[Card, ...] | None) -> list[int]:
    out = [0] * 8
    for c in cards or ():
        out[int(c.suit)] += 1
    return out


def _expected(v: View) -> tuple[list[int], list[int], list[list[int]], list[int], list[int], str | None]:
    assert v.seat is not None
    n = v.num_players
    known = [[0] * 8 for _ in range(n)]
    for p in v.players:
        known[(p.seat - v.seat) % n] = _counts(p.known)
    return (_counts(v.hand), _counts(v.discard), known, _counts(v.searching), _counts(v.selecting), v.resolving)


def test_view_counts_agree_with_the_view() -> None:
    rng = random.Random(1)
    checked = set()
    for players in (2, 4):
        for seed in range(3):
            g = Game(players, seed=seed)
            while not g.is_over:
                for seat in range(players):
                    hand, discard, known, searching, selecting, ability = g.view_counts(seat)
                    got = (hand, discard, known, searching, selecting, ability.name if ability else None)
                    assert got == _expected(g.view(seat))
                    checked.add((g.pending_kind, any(map(any, known)), any(searching), any(selecting)))
                ids = g.legal_ids()
                g.apply_id(ids[int(rng.random() * len(ids))])
    kinds = {k for k, *_ in checked}
    assert {"action", "meld", "vision"} <= kinds
    assert any(k[1] for k in checked) and any(k[2] for k in checked) and any(k[3] for k in checked)
