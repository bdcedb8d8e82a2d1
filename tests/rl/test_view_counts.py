"""``Game.view_counts`` (the engine's per-suit view for RL encodings) agrees with ``Game.view``."""

from __future__ import annotations

import random

from civlite.engine import Card, Game, RuleSet, View
from civlite.engine.cards import SUIT_OF


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


def test_seen_codes_agree_with_the_view() -> None:
    """``seen_codes`` (the fast encodings' card reader) shows exactly the cards of the view."""
    from civlite.engine.view import seen_codes

    rng = random.Random(2)
    covered = set()
    for players in (2, 3, 4):
        n = players
        # pile k's cards count at 8 * k + suit
        tables = [bytes(8 * k + s for s in SUIT_OF) + bytes(256 - len(SUIT_OF)) for k in range(n + 3)]
        for seed in range(3):
            g = Game(players, seed=seed)
            while not g.is_over:
                for seat in range(players):
                    v = g.view(seat)
                    want = [0] * (8 * (n + 3))
                    piles: list[tuple[Card, ...]] = [v.hand, v.discard]
                    piles += [v.player((seat + k) % n).known for k in range(1, n)]
                    piles += [v.searching or (), v.selecting]
                    for k, pile in enumerate(piles):
                        for c in pile:
                            want[8 * k + int(c.suit)] += 1
                    got = [0] * (8 * (n + 3))
                    for code in seen_codes(g, seat, tables):
                        got[code] += 1
                    assert got == want
                    covered.add((any(piles[2]), bool(v.searching), bool(v.selecting)))
                ids = g.legal_ids()
                g.apply_id(ids[int(rng.random() * len(ids))])
    assert {c[0] for c in covered} == {c[1] for c in covered} == {c[2] for c in covered} == {False, True}


def test_view_numbers_agree_with_the_view() -> None:
    from civlite.engine.view import KIND_ORDER, view_numbers

    rng = random.Random(3)
    rules = RuleSet.default().with_changes(victory_ct=8, ct_supply=12, turn_limit=60)
    for players in (2, 3):
        for seed in range(2):
            g = Game(players, seed=seed, rules=rules)
            while True:
                for seat in range(players):
                    v = g.view(seat)
                    n = players
                    want: list[int] = []
                    for k in range(n):
                        s = (seat + k) % n
                        want += [v.ct or 0, len(v.hand)] if s == seat else [v.player(s).ct, v.player(s).hand_size]
                    ab = next((a for a in v.rules.abilities if a.name == v.resolving), None)
                    pend = v.pending
                    want += [v.deck_size, ("rise", "action", "meld", "fall").index(v.phase), int(v.over),
                             -1 if pend is None else KIND_ORDER.index(pend.kind),
                             -1 if pend is None else (pend.player - seat) % n, 0 if pend is None else pend.count,
                             -1 if ab is None else int(ab.suit) + (8 if ab.tier == "advanced" else 0),
                             (v.active - seat) % n, int(v.extra_turn), -1 if v.supply is None else v.supply, v.turn]
                    assert view_numbers(g, seat) == want
                if g.is_over:
                    break
                ids = g.legal_ids()
                g.apply_id(ids[int(rng.random() * len(ids))])
