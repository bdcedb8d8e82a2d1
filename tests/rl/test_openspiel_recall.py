"""``python_civlite``: sampled worlds hold nothing of the truth, and information states have perfect recall.

Both rest on *pairs* of true histories that one seat ``p`` cannot tell apart: the same
cards dealt and drawn to ``p``, other cards to every other seat, and the same actions
(each drawn from the actions legal in both). A pair is followed until ``p`` could tell
the two apart (its view differs), so the pairs give both kinds of histories: those ``p``
saw alike and those it saw differ in something.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
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
    """With the default history (-1) no event or note of a whole random game is dropped, for any seat."""
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
            notes = sum(1 for _, seat, _ in s.core.notes if seat == p)  # what its view showed beyond the events
            assert tensor[-1] == 0.0 and int((records[:, 0] > 0).sum()) == len(s.core.events) + notes
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


# -- the whole game: every pair followed to the end, each seat's whole observation sequence ----------------

#: long enough for Visions, Contacts, Raids and Foundations to be played in most games
WHOLE = {"turn_limit": 12}


def _seen_bytes(events: Sequence[Event], p: int, n: int) -> bytes:
    """Events as seat p saw them (suit level, seats relative to p), as bytes."""

    def rel(seat: int | None) -> int | None:
        return None if seat is None else (seat - p) % n

    out = []
    for e in events:
        r = e.for_seat(p)
        out.append((r.kind, r.rule, rel(r.player), rel(r.target), r.ability, _suits(r.cards), r.count, r.amount,
                    _suits(r.secret), r.phase, r.turn, r.extra, r.source))
    return repr(out).encode()


class _Sequence:
    """Seat p's whole observation sequence along one history, digested link by link: at every decision
    node (any seat's), p's observation there (the tensor of its view: suit level, R1.2) and the events
    since the previous node as p saw them. It reads nothing of the information state."""

    def __init__(self, p: int) -> None:
        self.p = p
        self.digest = b""
        self.done = 0
        self.now = b""  # p's observation at the last node

    def step(self, s: CivLiteState) -> bytes:
        events = s.core.events
        self.now = np.asarray(s.observation_tensor(self.p), np.float32).tobytes()
        h = hashlib.blake2b(self.digest, digest_size=16)
        h.update(self.now)
        h.update(_seen_bytes(events[self.done:], self.p, s.core.cfg.n))
        self.done = len(events)
        self.digest = h.digest()
        return self.digest


class _Ledger:
    """Every information state seat p met at its decisions, against its observation sequence there."""

    def __init__(self) -> None:
        self.by_sequence: dict[bytes, str] = {}
        self.by_string: dict[str, bytes] = {}
        self.tensor_of: dict[str, bytes] = {}
        self.string_of: dict[bytes, str] = {}
        self.forgot: list[str] = []  # information states equal for two sequences (recall lost)
        self.leaked: list[str] = []  # information states unequal for one sequence (more than p saw)
        self.torn: list[str] = []  # the string and the tensor partition histories differently
        self.states = 0

    def add(self, players: int, p: int, key: bytes, s: CivLiteState) -> None:
        string = s.information_state_string(p)
        tensor = hashlib.blake2b(np.asarray(s.information_state_tensor(p), np.float32).tobytes(),
                                 digest_size=16).digest()
        key = bytes([players, p]) + key
        self.states += 1
        if self.by_sequence.setdefault(key, string) != string:
            self.leaked.append(string)
        if self.by_string.setdefault(string, key) != key:
            self.forgot.append(string)
        if self.tensor_of.setdefault(string, tensor) != tensor or self.string_of.setdefault(tensor, string) != string:
            self.torn.append(string)


def _choose(s: CivLiteState, rng: random.Random) -> int:
    if s.is_chance_node():
        return int(rng.choice(s.chance_outcomes())[0])
    return int(rng.choice(s.legal_actions()))


def _follow(game: Any, players: int, p: int, seed: int, sampled: bool, ledger: _Ledger) -> int:
    """Two histories that seat p cannot tell apart at first, each played to its end.

    Exact chance: deals alike for p only (``_deal_pair``); sampled: one deal. Then the same
    action whenever one is legal in both, and at each chance node the same outcome (when
    possible) 3 times in 4, else each its own. Every decision node of each history goes
    into p's observation sequence and every decision of p into the ledger. Returns the
    decisions of p where the two histories, still played alike, show p the same now but
    showed it something different earlier (the cases a recall test that stops at the
    first difference, or that compares only the present, cannot see)."""
    rng = random.Random(seed)
    if sampled:
        s = game.new_initial_state()
        s.apply_action(rng.randrange(s.chance_outcomes()[-1][0] + 1))
        t = s.clone()
    else:
        s, t = _deal_pair(game, p, rng)
    seqs = (_Sequence(p), _Sequence(p))
    alike = True  # the same actions so far (their chance may differ)
    differed = False  # p's observation differed at some earlier node of the pair
    witnesses = 0
    while not (s.is_terminal() and t.is_terminal()):
        keys = []
        for state, seq in zip((s, t), seqs, strict=True):
            if state.is_player_node():
                keys.append(seq.step(state))
                if state.current_player() == p:
                    ledger.add(players, p, keys[-1], state)
        both = s.is_player_node() and t.is_player_node()
        if alike and both:
            if seqs[0].now != seqs[1].now:
                differed = True
            elif differed and s.current_player() == p and keys[0] != keys[1]:
                witnesses += 1
        # the next move of each
        if alike and s.is_chance_node() and t.is_chance_node():
            a = _choose(s, rng)
            common = {c for c, _ in t.chance_outcomes()}
            s.apply_action(a)
            t.apply_action(a if a in common and rng.random() < 0.75 else _choose(t, rng))
            continue
        if alike and both and s.current_player() == t.current_player():
            legal = sorted(set(s.legal_actions()) & set(t.legal_actions()))
            if legal:
                a = rng.choice(legal)
                s.apply_action(a)
                t.apply_action(a)
                continue
        if alike and not (s.is_chance_node() or t.is_chance_node()):
            alike = False
        for state in (s, t):
            if not state.is_terminal() and (not alike or state.is_chance_node()):
                state.apply_action(_choose(state, rng))
    return witnesses


def _recall(players: int, sampled: bool, games: int) -> tuple[_Ledger, int]:
    params = {"players": players, **WHOLE, **({"chance": "sampled"} if sampled else {})}
    game = pyspiel.load_game("python_civlite", params)
    ledger = _Ledger()
    witnesses = 0
    for seed in range(games):
        witnesses += _follow(game, players, seed % players, seed, sampled, ledger)
    return ledger, witnesses


def _check(ledger: _Ledger, witnesses: int, need_witness: bool = True) -> None:
    """No information state forgets, leaks or tears; with exact chance, some pairs were alike now
    and told apart only by their past (sampled chance parts its pairs in what the seat sees at
    once: its own draws come from the history's key, so such pairs are rare there)."""
    assert not ledger.forgot, (f"{len(ledger.forgot)} of {ledger.states} information states stand for two "
                               f"observation sequences, e.g. {ledger.forgot[0]}")
    assert not ledger.leaked, (f"{len(ledger.leaked)} observation sequences got two information states, "
                               f"e.g. {ledger.leaked[0]}")
    assert not ledger.torn, f"{len(ledger.torn)} strings and tensors disagree"
    if need_witness:  # the pairs hold histories alike now and told apart only by the past
        assert witnesses > 0


@pytest.mark.parametrize(("players", "sampled"), [(2, False), (3, False), (2, True)])
def test_whole_game_recall(players: int, sampled: bool) -> None:
    """Each seat's information state at each of its decisions is a function of its whole observation
    sequence (every view it had and every event as it saw it), and tells every two sequences apart:
    pairs of histories that seat cannot tell apart at first, followed to the end."""
    _check(*_recall(players, sampled, 60), need_witness=not sampled)


@pytest.mark.slow
@pytest.mark.parametrize("sampled", [False, True])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_whole_game_recall_thousands(players: int, sampled: bool) -> None:
    """As above, over 1,000 pairs (2,000 games) per player count and chance model."""
    _check(*_recall(players, sampled, 1000), need_witness=not sampled)
