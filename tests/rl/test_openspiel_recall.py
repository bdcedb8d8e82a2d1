"""``python_civlite``: sampled worlds hold nothing of the truth, and information states have perfect recall.

Both rest on *pairs* of true histories that one seat ``p`` cannot tell apart: the same
cards dealt and drawn to ``p``, other cards to every other seat, and the same actions
(each drawn from the actions legal in both). A pair is followed until ``p`` could tell
the two apart (its view differs), so the pairs give both kinds of histories: those ``p``
saw alike and those it saw differ in something.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from civlite.engine import SUIT_OF, Event  # noqa: E402
from civlite.rl.openspiel import EVENT_RECORD, CivLiteState, game_of  # noqa: E402

#: a short variant, so that each information state tensor is small (the whole game fits)
PARAMS = {"turn_limit": 10}


def _load(players: int) -> Any:
    return pyspiel.load_game("python_civlite", {"players": players, **PARAMS})


def _suits(cards: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(SUIT_OF[c] for c in cards))


def _observed(s: CivLiteState, p: int) -> tuple[Any, ...]:
    """Everything seat p observed, independently of the adapter's encoding: its dealt hand and
    every event as it saw it (suit level, R1.2: cards of one suit play alike), seats relative to p,
    and its view now."""
    n = s.core.cfg.n

    def rel(seat: int | None) -> int | None:
        return None if seat is None else (seat - p) % n

    def seen(e: Event) -> tuple[Any, ...]:
        r = e.for_seat(p)
        return (r.kind, r.rule, rel(r.player), rel(r.target), r.ability, _suits(r.cards), r.count, r.amount,
                _suits(r.secret), tuple(sorted(rel(q) for q in r.seen_by)), tuple(rel(q) for q in r.seats),
                r.phase, r.turn, r.extra, r.source)

    return (_suits(tuple(s.core.dealt_hand(p))), tuple(seen(e) for e in s.core.events),
            np.asarray(s.observation_tensor(p), np.float32).tobytes())


def _view(s: CivLiteState, p: int) -> str:
    return json.dumps(s.core.view_json(p), sort_keys=True)


def _everything(s: CivLiteState) -> list[Any]:
    """Every seat's strings and tensors in a state, and what is legal there."""
    n = s.core.cfg.n
    out: list[Any] = [s.current_player(), s.legal_actions() if not s.is_chance_node() else s.chance_outcomes()]
    for q in range(n):
        out += [s.information_state_string(q), s.information_state_tensor(q),
                s.observation_string(q), s.observation_tensor(q)]
    return out


def _deal_pair(game: Any, p: int, rng: random.Random) -> tuple[CivLiteState, CivLiteState]:
    """Two deals alike for p (its hand, and its first Rise's cards if it is seat 0), unlike for the others."""
    n = game.num_players()
    s, t = game.new_initial_state(), game.new_initial_state()
    size = s.core.deal_size
    hs = s.core.cfg.rules.hand_size
    deal_s = rng.sample(range(112), size)
    mine = [i for i in range(size) if (i < hs * n and i // hs == p) or (i >= hs * n and p == 0)]
    others = [c for c in range(112) if c not in {deal_s[i] for i in mine}]
    rng.shuffle(others)
    deal_t = [deal_s[i] if i in mine else others.pop() for i in range(size)]
    for a, b in zip(deal_s, deal_t, strict=True):
        s.apply_action(a)
        t.apply_action(b)
    return s, t


def _pairs(players: int, p: int, seed: int) -> list[tuple[CivLiteState, CivLiteState, bool]]:
    """States of a pair along its history: (s, t, whether p saw them alike so far)."""
    game = _load(players)
    rng = random.Random(seed)
    s, t = _deal_pair(game, p, rng)
    out = []
    while not s.is_terminal() and not t.is_terminal():
        alike = _view(s, p) == _view(t, p)
        if not s.is_chance_node() and not t.is_chance_node():
            out.append((s.clone(), t.clone(), alike))
        if not alike:
            break
        if s.is_chance_node() != t.is_chance_node():
            break
        if s.is_chance_node():
            common = sorted({c for c, _ in s.chance_outcomes()} & {c for c, _ in t.chance_outcomes()})
            if not common:
                break
            c = rng.choice(common)
        else:
            if s.current_player() != t.current_player():
                break
            common = sorted(set(s.legal_actions()) & set(t.legal_actions()))
            if not common:
                break
            c = rng.choice(common)
        s.apply_action(c)
        t.apply_action(c)
    return out


def _branches(s: CivLiteState, rng: random.Random) -> tuple[CivLiteState, CivLiteState] | None:
    """Two histories that part at s: two different actions, then the same chance outcomes where possible."""
    legal = s.legal_actions()
    if len(legal) < 2:
        return None
    a, b = rng.sample(legal, 2)
    x, y = s.clone(), s.clone()
    x.apply_action(a)
    y.apply_action(b)
    while x.is_chance_node() or y.is_chance_node():
        if not (x.is_chance_node() and y.is_chance_node()):
            return None
        common = sorted({c for c, _ in x.chance_outcomes()} & {c for c, _ in y.chance_outcomes()})
        if not common:
            return None
        c = rng.choice(common)
        x.apply_action(c)
        y.apply_action(c)
    return x, y


def _compare(s: CivLiteState, t: CivLiteState, p: int, seen: dict[str, Any], counts: list[int]) -> None:
    for state in (s, t):
        string = state.information_state_string(p)
        tensor = np.asarray(state.information_state_tensor(p), np.float32).tobytes()
        seen["key"].setdefault((p, *_observed(state, p)), set()).add(string)
        seen["string"].setdefault(string, set()).add(tensor)
        seen["tensor"].setdefault(tensor, set()).add(string)
        assert tensor[-4:] == np.float32(0).tobytes()  # the whole game fits: nothing dropped
    same = _observed(s, p) == _observed(t, p)
    assert same == (s.information_state_string(p) == t.information_state_string(p))
    assert same == (s.information_state_tensor(p) == t.information_state_tensor(p))
    counts[0 if same else 1] += 1


@pytest.mark.parametrize("players", [2, 3])
def test_perfect_recall_partitions(players: int) -> None:
    """Histories that differ in anything p observed give different information states, histories it
    could not tell apart equal ones; the string and the tensor partition them alike."""
    seen: dict[str, Any] = {"key": {}, "string": {}, "tensor": {}}
    counts = [0, 0]  # pairs p saw alike, pairs it saw differ
    for seed in range(40):
        p = seed % players
        rng = random.Random(seed)
        for s, t, alike in _pairs(players, p, seed):
            _compare(s, t, p, seen, counts)
            if alike and not s.is_terminal():
                branches = _branches(s, rng)
                if branches is not None:
                    _compare(*branches, p, seen, counts)
    # one information state per observed history, and the other way round
    assert all(len(v) == 1 for v in seen["key"].values())
    assert len(set().union(*seen["key"].values())) == len(seen["key"])
    assert all(len(v) == 1 for v in seen["string"].values())
    assert all(len(v) == 1 for v in seen["tensor"].values())
    assert counts[0] > 100 and counts[1] > 30, counts


def test_the_whole_game_is_recalled() -> None:
    """With the default history (-1) no event of a whole random game is dropped, for any seat."""
    game = _load(3)
    rng = random.Random(2)
    for _ in range(4):
        s = game.new_initial_state()
        while not s.is_terminal():
            outcomes = s.chance_outcomes() if s.is_chance_node() else [(a, 0) for a in s.legal_actions()]
            s.apply_action(rng.choice(outcomes)[0])
        for p in range(3):
            tensor = np.asarray(s.information_state_tensor(p))
            size = len(s.observation_tensor(p)) + 8
            records = tensor[size:-1].reshape(-1, EVENT_RECORD)
            assert tensor[-1] == 0.0 and int((records[:, 0] > 0).sum()) == len(s.core.events)
        assert _load(3).information_state_tensor_size() == len(tensor)


@pytest.mark.parametrize("players", [2, 3])
def test_sampled_worlds_hold_nothing_of_the_truth(players: int) -> None:
    """A world sampled for p from either history of a pair p saw alike is the same world, in every
    seat's strings and tensors and in what follows: it is a function of p's information state and
    the sampler alone (the deal, the deck's order, the other seats' secret events and histories
    are not in it). 500 samples per player count, so over 1,000 in all."""
    samples = truth_differs = 0
    seed = 0
    while samples < 500:
        p = seed % players
        for s, t, alike in _pairs(players, p, seed):
            if not alike or s.is_terminal():
                continue
            assert s.information_state_string(p) == t.information_state_string(p)
            k = random.Random(seed * 1000 + samples).random()
            ws = s.resample_from_infostate(p, lambda k=k: k)
            wt = t.resample_from_infostate(p, lambda k=k: k)
            assert _everything(ws) == _everything(wt)
            assert ws.information_state_string(p) == s.information_state_string(p)
            for q in range(players):
                if q != p:
                    assert not any(ws.information_state_tensor(q)[len(s.observation_tensor(q)):][:8])
            gs, gt = game_of(s), game_of(t)
            assert gs is not None and gt is not None
            truth_differs += [sorted(h) for h in gs.hands] != [sorted(h) for h in gt.hands]
            # and the worlds' futures owe nothing to the truth either
            rng = random.Random(samples)
            for _ in range(4):
                if ws.is_terminal():
                    break
                outcomes = ws.chance_outcomes() if ws.is_chance_node() else [(a, 0) for a in ws.legal_actions()]
                a = rng.choice(outcomes)[0]
                ws.apply_action(a)
                wt.apply_action(a)
            assert _everything(ws) == _everything(wt)
            samples += 1
        seed += 1
    assert truth_differs > samples // 2
