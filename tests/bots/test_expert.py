"""The ``expert`` and ``champion`` bots, the size-independent encoding they read, the named
levels, and the honesty of every bot: a decision depends only on the seat's view and seed."""

from __future__ import annotations

import fnmatch
import json
import random
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from civlite.bots import LEVELS, decide, make_bot, resolve_level  # noqa: E402
from civlite.bots.champion import DEFAULT_ENDGAME, MAX_ITERATIONS, MAX_SECONDS, ChampionBot  # noqa: E402
from civlite.bots.expert import WEIGHTS, ExpertBot, ExpertNet, load_net  # noqa: E402
from civlite.bots.features import (  # noqa: E402
    BASE_SIZE,
    OPPONENTS,
    SIZE,
    SPEC,
    _meld_block,
    _meld_of,
    complete,
    encode,
    offset,
    spec_table,
)
from civlite.bots.policy import WEIGHTS as POLICY_WEIGHTS  # noqa: E402
from civlite.engine import DISCARD_BASE, NUM_ACTIONS, Game, RuleSet, View, sample_world  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

#: every bot, at budgets small enough for a test
ALL_BOTS = ("random", "heuristic", "ismcts:iterations=40", "policy", "expert", "expert:sample=1",
            "champion:iterations=40", "champion:iterations=40,rollout=4", "champion:iterations=40,rollout=8,mix=1",
            "champion:iterations=40,discards=heuristic", f"champion:iterations=40,prior={POLICY_WEIGHTS}",
            "champion:iterations=40,search=network", "champion:iterations=40,search=rollouts",
            "champion:iterations=40,endgame=20", "champion:iterations=40,endgame=0",
            "champion:iterations=40,discards=search")


def advance(game: Game, steps: int, seed: int) -> None:
    """``steps`` random compact steps, then on to the end of any discard half chosen."""
    rng = random.Random(seed)
    k = 0
    while not game.over:
        seat = game.to_move
        if k >= steps and not (seat is not None and game.view(seat).selecting):
            return
        legal = game.legal_ids()
        game.apply_id(legal[int(rng.random() * len(legal))])
        k += 1


# -- the encoding ------------------------------------------------------------------------
def test_the_encoding_has_one_size_at_every_table_size() -> None:
    assert SIZE == sum(w for _, w, _ in SPEC)
    for n in range(2, 9):
        g = Game(n, seed=n)
        advance(g, 30, n)
        for seat in range(n):
            x = encode(g.view(seat))
            assert x.shape == (SIZE,) and x.dtype == np.float32
            assert np.isfinite(x).all()
            present = [x[offset(f"opp{k}.present")] for k in range(1, OPPONENTS + 1)]
            assert present == [1.0] * (n - 1) + [0.0] * (OPPONENTS - n + 1)
            assert x[offset("players") + n - 2] == 1.0 and x[offset("players"):offset("players") + 7].sum() == 1.0
            assert x[offset("bias")] == 1.0


def test_opponent_slots_are_in_turn_order_from_the_viewer() -> None:
    g = Game(4, seed=3)
    advance(g, 25, 3)
    for seat in range(4):
        x = encode(g.view(seat))
        for k in range(1, 4):
            other = (seat + k) % 4
            assert x[offset(f"opp{k}.ct")] == pytest.approx(g.ct[other] * 0.1)
            assert x[offset(f"opp{k}.hand_size")] == pytest.approx(len(g.hands[other]) * 0.1)


def test_the_encoding_refuses_a_spectators_view() -> None:
    with pytest.raises(ValueError, match="spectator"):
        encode(Game(2, seed=1).view(None))


def test_the_spec_table_names_every_slot() -> None:
    table = spec_table()
    for name, _, _ in SPEC:
        assert f"`{name}`" in table
    assert f"{SIZE} values" in table
    page = (ROOT / "docs" / "observation.md").read_text()
    assert table in page, "docs/observation.md is out of date: run scripts/gen_observation_docs.py"


# -- expert --------------------------------------------------------------------------------
def test_expert_weights_ship_in_the_package() -> None:
    assert WEIGHTS.is_file() and WEIGHTS.stat().st_size < 1_000_000
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = data["tool"]["setuptools"]["package-data"]["civlite"]
    for path in sorted(WEIGHTS.parent.glob("*.npz")):  # every network the bots load is packaged
        assert any(fnmatch.fnmatch(f"bots/{path.name}", p) for p in patterns), path.name
    net = load_net(str(WEIGHTS))
    assert net.w0.shape[0] == SIZE and net.wp.shape[1] == NUM_ACTIONS and net.wv.shape[1] == 1


@pytest.mark.parametrize("pure", ["0", "1"])
def test_expert_weights_load_compiled_and_from_source(pure: str) -> None:
    code = ("from civlite.bots import make_bot; from civlite.engine import Game, COMPILED; "
            "from civlite.bots import decide; g = Game(3, seed=5); b = make_bot('expert', seed=1)\n"
            "while not g.over: g.apply(decide(b, g))\n"
            "print(COMPILED, g.winner, g.turn)")
    env = {"CIVLITE_PURE": pure, "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    compiled, _winner, turn = out.stdout.split()
    if pure == "1":
        assert compiled == "False"
    assert int(turn) > 0


def test_expert_values_are_probabilities_and_its_move_the_best_scored() -> None:
    g = Game(2, seed=11)
    bot = make_bot("expert", seed=0)
    assert isinstance(bot, ExpertBot)
    for _ in range(60):
        if g.over:
            break
        seat = g.to_move
        assert seat is not None
        view, legal = g.view(seat), g.legal_ids()
        p = bot.win_probability(view)
        assert 0.0 <= p <= 1.0
        a = bot.act(view, legal)
        scores = bot.net_for(2).logits(encode(view))
        if len(legal) > 1:
            assert scores[a] == max(scores[b] for b in legal)
        g.apply_id(a)


def test_a_table_size_with_a_network_plays_it_and_others_the_all_sizes_one(tmp_path: Path) -> None:
    from civlite.bots.expert import TABLE_WEIGHTS, WEIGHTS, load_net

    bot = make_bot("expert", seed=0)
    assert isinstance(bot, ExpertBot)
    assert {2, 3, 4, 6} <= set(TABLE_WEIGHTS)
    for n, path in TABLE_WEIGHTS.items():
        assert path.is_file() and path.parent == WEIGHTS.parent
        net = load_net(str(path))
        assert net.meta["players"] == n and bot.net_for(n) is net is not bot.net
    assert all(bot.net_for(n) is bot.net is load_net(str(WEIGHTS)) for n in range(2, 9) if n not in TABLE_WEIGHTS)
    two = load_net(str(TABLE_WEIGHTS[2]))
    # at 2 players the moves follow the 2-player network; tables=0 plays the all-sizes one
    plain = make_bot("expert:tables=0", seed=0)
    assert isinstance(plain, ExpertBot) and plain.spec == "expert:tables=0"
    assert all(plain.net_for(n) is plain.net for n in TABLE_WEIGHTS)
    g = Game(2, seed=5)
    differ = 0
    while not g.over:
        seat = g.to_move
        assert seat is not None
        view, legal = g.view(seat), g.legal_ids()
        a = bot.act(view, legal)
        if len(legal) > 1:
            scores = two.logits(encode(view))
            assert scores[a] == max(scores[b] for b in legal)
            differ += a != plain.act(view, legal)
        g.apply_id(a)
    assert differ > 0
    # another file named by weights= plays at every size
    other = tmp_path / "other.npz"
    other.write_bytes(WEIGHTS.read_bytes())
    named = make_bot(f"expert:weights={other}", seed=0)
    assert isinstance(named, ExpertBot) and named.net_for(2) is named.net
    with pytest.raises(ValueError, match="tables must be 0 or 1"):
        make_bot("expert:tables=2")


def _play_sizes(games: int) -> int:
    decisions = 0
    for i in range(games):
        n = 2 + i % 7
        g = Game(n, seed=50_000 + i)
        bots = [make_bot("expert" if s % 2 == 0 else "expert:sample=1", seed=i * 9 + s) for s in range(n)]
        while not g.over:
            seat = g.to_move
            assert seat is not None
            g.apply(decide(bots[seat], g))  # Game.apply refuses an illegal action
            decisions += 1
    return decisions


def test_expert_plays_legal_games_at_every_table_size() -> None:
    assert _play_sizes(70) > 0


@pytest.mark.slow
def test_expert_plays_legal_moves_over_thousands_of_games() -> None:
    assert _play_sizes(2100) > 100_000


@pytest.mark.parametrize(("spec", "message"), [
    ("expert:foo=1", "expert has no option 'foo'"),
    ("expert:weights=/nonexistent/x.npz", "expert weights not found: /nonexistent/x.npz"),
    ("expert:temperature=0", "temperature must be > 0"),
    ("expert:sample=2", "sample must be 0 or 1"),
    (f"champion:iterations={MAX_ITERATIONS + 1}", f"iterations must be a whole number from 1 to {MAX_ITERATIONS}"),
    (f"champion:seconds={MAX_SECONDS * 2:g}", "seconds must be > 0 and at most"),
    ("champion:c=-1", "c must be a number >= 0"),
    ("champion:bar=1", "champion has no option 'bar'"),
    ("champion:rollout=-1", "rollout must be a whole number of steps from 0 to 200"),
    ("champion:rollout=2.5", "rollout must be a whole number of steps from 0 to 200"),
    ("champion:mix=1.5", "mix must be a number from 0 to 1"),
    ("champion:discards=random", "discards must be one of network, heuristic, search, got 'random'"),
    ("champion:prior=/nonexistent/p.npz", "policy weights not found: /nonexistent/p.npz"),
    ("champion:search=best", "search must be one of auto, network, rollouts, hybrid, got 'best'"),
])
def test_bad_specs_are_refused_by_name(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        make_bot(spec, seed=0)


def test_a_corrupt_weights_file_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="cannot be read"):
        make_bot(f"expert:weights={bad}")
    net = load_net(str(WEIGHTS))
    short = tmp_path / "short.npz"
    np.savez(short, w0=net.w0[:10], b0=net.b0)
    with pytest.raises(ValueError, match="lack"):
        ExpertNet.load(short)


# -- the meld summaries ----------------------------------------------------------------------
def meld_slots(hand: list[int], pile: list[int], rules: RuleSet | None = None,
               need_ct: int = 20, unseen: list[int] | None = None) -> dict[str, list[float]]:
    x = [0.0] * SIZE
    _meld_block(hand, pile, unseen or [0] * 8, need_ct, _meld_of(rules or RuleSet()), x)
    out = {}
    for name, w, _ in SPEC:
        if name.startswith(("meld_", "win_", "fetch_")):
            out[name] = [round(v, 6) for v in x[offset(name):offset(name) + w]]
    return out


def test_the_meld_summaries_of_a_hand_one_card_short() -> None:
    # C L L L W A M, no Building, X X: lacks B alone (R7.1); one B in the discard pile
    m = meld_slots([1, 3, 1, 1, 1, 0, 0, 2], [0, 0, 0, 0, 0, 1, 0, 0])
    assert m["meld_lacking"] == [0, 1, 0, 0]
    assert m["meld_need"] == [0, 0, 0, 0, 0, 1, 0, 0]
    # two spare L; of the two X one is the meld's (X is the only 'one of' suit held)
    assert m["meld_spare"] == [0, 0.2, 0, 0, 0, 0, 0, 0.1]
    assert m["meld_in_discard"] == [1]
    # the B not in the pile: nothing to take back with Foundations
    assert meld_slots([1, 3, 1, 1, 1, 0, 0, 2], [2, 0, 0, 0, 0, 0, 0, 0])["meld_in_discard"] == [0]


def test_the_meld_summaries_of_a_full_meld_and_of_an_empty_hand() -> None:
    full = meld_slots([1, 1, 1, 1, 1, 1, 1, 1], [0] * 8)
    # with both a D and an X either can go into the meld, so each may be spent
    assert full["meld_lacking"] == [1, 0, 0, 0] and full["meld_need"] == [0] * 8
    assert full["meld_spare"] == [0, 0, 0, 0, 0, 0, 0.1, 0.1]
    empty = meld_slots([0] * 8, [1] * 8)
    assert empty["meld_lacking"] == [0, 0, 0, 1] and empty["meld_need"] == [1] * 8
    assert empty["meld_in_discard"] == [0]  # seven cards short, not one


def test_the_victory_summaries() -> None:
    full = [1, 3, 1, 1, 1, 1, 0, 1]  # a meld, and L L spare
    # 5 CT short: the meld wins (R7.2); Pass the Torch (advanced L, 2 CT) leaves the meld in hand
    m = meld_slots(full, [0] * 8, need_ct=5)
    assert m["win_meld"] == [1] and m["win_ability"] == [0] * 16
    # Vision and Pass the Torch are paid from the spare L; every other ability the hand can
    # pay takes the meld's only card of its suit
    assert [i for i, v in enumerate(m["win_ability_meld"]) if v] == [1, 8 + 1]
    # 7 CT short: only an ability worth 2 CT, paid from the spare cards, wins with the meld
    m = meld_slots(full, [0] * 8, need_ct=7)
    assert m["win_meld"] == [0]
    assert [i for i, v in enumerate(m["win_ability_meld"]) if v] == [8 + 1]
    # 2 CT short without a meld: Pass the Torch alone wins
    m = meld_slots([0, 2, 0, 0, 0, 0, 0, 0], [0] * 8, need_ct=2)
    assert m["win_meld"] == [0] and [i for i, v in enumerate(m["win_ability"]) if v] == [8 + 1]
    assert m["win_ability_meld"] == [0] * 16
    # paying the X of a meld's only 'one of' card breaks the meld
    m = meld_slots([1, 1, 1, 1, 1, 1, 0, 2], [0] * 8, need_ct=5)
    assert m["win_ability_meld"][8 + 7] == 0 and m["win_ability_meld"][7] == 1


def test_the_fetch_summaries() -> None:
    # lacks the Wonder alone; a spare L pays for Vision, a spare B for Foundations
    hand = [1, 2, 0, 1, 1, 2, 1, 0]
    m = meld_slots(hand, [0] * 8, need_ct=20, unseen=[0, 0, 3, 0, 0, 0, 0, 0])
    assert [i for i, v in enumerate(m["fetch_meld"]) if v] == [1]  # Vision: W may be in the deck
    assert m["fetch_win"] == [0] * 16
    m = meld_slots(hand, [0, 0, 1, 0, 0, 0, 0, 0], need_ct=5)
    assert [i for i, v in enumerate(m["fetch_meld"]) if v] == [5]  # Foundations: a W in the pile
    assert [i for i, v in enumerate(m["fetch_win"]) if v] == [5]  # and the meld then wins
    # paying Vision with the only L would leave two cards lacking
    m = meld_slots([1, 1, 0, 1, 1, 1, 1, 0], [0] * 8, unseen=[0, 0, 3, 0, 0, 0, 0, 0])
    assert m["fetch_meld"] == [0] * 16


def test_the_meld_summaries_follow_the_rule_sets_meld() -> None:
    rules = RuleSet.from_dict({"meld": {"suits": ["C", "L"], "one_of": []}})
    m = meld_slots([1, 0, 0, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0, 0, 0], rules)
    assert m["meld_lacking"] == [0, 1, 0, 0] and m["meld_need"] == [0, 1, 0, 0, 0, 0, 0, 0]
    assert m["meld_in_discard"] == [1]
    g = Game(3, seed=5, rules=rules)
    x = encode(g.view(0))
    hand = [round(float(v) * 10) for v in x[:8]]
    lacking = (hand[0] == 0) + (hand[1] == 0)
    assert x[offset("meld_lacking") + lacking] == 1.0


def test_complete_adds_what_encode_writes_to_older_encodings() -> None:
    rows = []
    for n in range(2, 9):
        g = Game(n, seed=900 + n)
        rng = random.Random(n)
        while not g.over and len(rows) < 400 * (n - 1):
            seat = g.to_move
            assert seat is not None
            rows.append(encode(g.view(seat)))
            legal = g.legal_ids()
            g.apply_id(legal[int(rng.random() * len(legal))])
    x = np.stack(rows)
    assert x[:, BASE_SIZE:].any()
    assert np.array_equal(complete(x[:, :BASE_SIZE]), x)
    assert complete(x) is x
    with pytest.raises(ValueError, match=f"rows of {BASE_SIZE} or {SIZE}"):
        complete(x[:, :100])


def test_a_network_trained_before_the_meld_summaries_reads_the_first_values(tmp_path: Path) -> None:
    net = load_net(str(WEIGHTS))
    old = ExpertNet({k: (getattr(net, k)[:BASE_SIZE] if k == "w0" else getattr(net, k))
                     for k in ("w0", "b0", "w1", "b1", "wp", "bp", "wv", "bv")})
    assert old.inputs == BASE_SIZE and old.w0.shape[0] == SIZE and not old.w0[BASE_SIZE:].any()
    g = Game(4, seed=11)
    advance(g, 40, 11)
    x = encode(g.view(0))
    w0 = net.w0[:BASE_SIZE]
    h = np.tanh(np.tanh(x[:BASE_SIZE] @ w0 + net.b0) @ net.w1 + net.b1)
    assert np.array_equal(old.logits(x), h @ net.wp + net.bp)
    path = tmp_path / "old.npz"
    old.save(path, half=False)
    assert np.load(path)["w0"].shape[0] == BASE_SIZE  # saved as it was read
    assert np.array_equal(ExpertNet.load(path).logits(x), old.logits(x))
    with pytest.raises(ValueError, match=f"has {SIZE} \\({BASE_SIZE} before"):
        ExpertNet({k: (getattr(net, k)[:100] if k == "w0" else getattr(net, k))
                   for k in ("w0", "b0", "w1", "b1", "wp", "bp", "wv", "bv")})


# -- champion ------------------------------------------------------------------------------
def test_champion_plays_legal_games_and_counts_its_iterations() -> None:
    for n in (2, 4):
        g = Game(n, seed=70 + n)
        bots = [make_bot("champion:iterations=30", seed=s) if s == 0 else make_bot("expert", seed=s)
                for s in range(n)]
        while not g.over:
            seat = g.to_move
            assert seat is not None
            g.apply(decide(bots[seat], g))
        bot = bots[0]
        assert isinstance(bot, ChampionBot) and bot.last_iterations in (0, 30)


def test_champion_searches_by_table_size() -> None:
    """``search=auto``: the network's search at 2 players, ismcts's rollout search at the
    sizes of ROLLOUT_TABLES (the same moves as ``ismcts`` with the same budget and seed)."""
    from civlite.bots.champion import ROLLOUT_TABLES

    auto, net = make_bot("champion:iterations=60", seed=3), make_bot("champion:iterations=60,search=network", seed=3)
    rollouts = make_bot("champion:iterations=60,search=rollouts", seed=3)
    assert isinstance(auto, ChampionBot) and isinstance(net, ChampionBot) and isinstance(rollouts, ChampionBot)
    assert 2 not in ROLLOUT_TABLES and 4 in ROLLOUT_TABLES
    assert not auto.plays_rollouts(2) and auto.plays_rollouts(4) and rollouts.plays_rollouts(2)
    assert not any(net.plays_rollouts(n) for n in range(2, 9))
    assert (auto.spec, net.spec, rollouts.spec) == (
        "champion:iterations=60", "champion:iterations=60,search=network", "champion:iterations=60,search=rollouts")
    g = Game(4, seed=12)
    advance(g, 6, seed=1)
    seat = g.to_move
    assert seat is not None and len(g.legal_ids()) > 1
    view, legal = g.view(seat), g.legal_ids()
    assert auto.act(view, legal) == make_bot("ismcts:iterations=60", seed=3).act(view, legal)
    assert auto.last_iterations == 60


def test_champions_prior_comes_from_the_policy_network_at_its_table_size() -> None:
    """``prior=PATH``: at the network's table size (2 players) the prior is that network's
    softmax over the legal moves; at another size, expert's."""
    from civlite.bots.champion import _Node
    from civlite.bots.encoding import encode_view
    from civlite.bots.policy import features, load_network

    net = load_network(str(POLICY_WEIGHTS))
    for n in (2, 3):
        g = Game(n, seed=5)
        advance(g, 6, 5)
        seat = g.to_move
        assert seat is not None
        legal = g.legal_ids()
        plain, guided = (make_bot(spec, seed=0) for spec in
                         ("champion:iterations=10", f"champion:iterations=10,prior={POLICY_WEIGHTS}"))
        assert isinstance(plain, ChampionBot) and isinstance(guided, ChampionBot)
        priors = []
        for bot in (plain, guided):
            node = _Node(seat)
            node.mover = seat
            bot._score(node, g, legal)
            assert node.prior is not None and abs(sum(node.prior.values()) - 1.0) < 1e-9
            priors.append(node.prior)
        if n == 2:
            logits = net.logits(features(encode_view(g.view(seat))))
            best = max(legal, key=lambda a: float(logits[a]))
            assert max(priors[1], key=priors[1].__getitem__) == best and priors[0] != priors[1]
        else:
            assert priors[0] == priors[1]
    assert guided.spec == f"champion:iterations=10,prior={POLICY_WEIGHTS}"


def test_champions_root_keeps_its_mean_for_first_play_urgency() -> None:
    """The root's unvisited actions are valued at the root's mean for its seat, less fpu: the
    root keeps that mean (each iteration adds the seat's result), as every other node does."""
    from civlite.bots.champion import _Node

    for n, seed in ((2, 3), (3, 8), (4, 5)):
        g = Game(n, seed=seed)
        advance(g, 20, seed)
        while not g.over and (len(g.legal_ids()) < 2 or g.legal_ids()[0] >= DISCARD_BASE):
            g.apply_id(g.legal_ids()[0])
        seat = g.to_move
        assert seat is not None
        bot = ChampionBot(seed=1)
        root = _Node(seat)
        view = g.view(seat)
        rng = random.Random(seed)
        results = [bot._iterate(root, sample_world(view, rng))[seat] for _ in range(60)]
        assert root.visits == 60 and root.value == pytest.approx(sum(results))
        assert 0.0 < root.value / root.visits < 1.0
        children = list(root.children.values())
        assert sum(ch.visits for ch in children) == 60  # every iteration leaves the root by one action
        assert sum(ch.value for ch in children) == pytest.approx(root.value)


def test_champion_takes_a_winning_meld() -> None:
    """Where one option wins at once (a meld reaching the victory CT), the search finds it."""
    found = 0
    for seed in range(400):
        g = Game(2, seed=seed)
        advance(g, 0, seed)
        rng = random.Random(seed)
        while not g.over:
            seat = g.to_move
            assert seat is not None
            legal = g.legal_ids()
            if g.pending is not None and g.pending.kind == "meld" and len(legal) > 1:
                wins = []
                for a in legal:
                    w = g.clone()
                    w.apply_id(a)
                    if w.over and w.winner == seat:
                        wins.append(a)
                if wins and 0 not in wins:
                    for spec in ("champion:iterations=200", "champion:iterations=200,endgame=0"):
                        assert make_bot(spec, seed=1).act(g.view(seat), legal) in wins, spec
                    found += 1
                    break
            g.apply_id(legal[int(rng.random() * len(legal))])
        if found >= 3:
            break
    assert found >= 1


# -- every bot is honest -------------------------------------------------------------------
def _positions(count: int) -> list[tuple[Game, int]]:
    out = []
    for i in range(count):
        n = (2, 3, 4, 6)[i % 4]
        g = Game(n, seed=90_000 + i)
        advance(g, 12 + 7 * i, i)
        if not g.over:
            out.append((g, i))
    return out


@pytest.mark.parametrize("spec", ALL_BOTS)
def test_a_bots_decision_depends_only_on_its_view_and_seed(spec: str) -> None:
    """Deal the cards the seat cannot see another way (consistent with its view): the same
    bot with the same seed makes the same decision."""
    checked = 0
    for game, i in _positions(12):
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        rng = random.Random(i)
        others = [sample_world(view, rng) for _ in range(2)]
        decisions = []
        for world in [game, *others]:
            assert world.view(seat) == view  # another deal, the same view
            decisions.append(decide(make_bot(spec, seed=i), world))
        assert decisions[1:] == decisions[:1] * 2, (spec, i)
        checked += 1
    assert checked >= 6


def test_other_deals_really_differ() -> None:
    """The honesty test's worlds do change what the seat cannot see."""
    changed = 0
    for game, i in _positions(12):
        seat = game.to_move
        assert seat is not None
        world = sample_world(game.view(seat), random.Random(i))
        hidden_true = [sorted(game.hands[s]) for s in range(game.n) if s != seat]
        hidden_world = [sorted(world.hands[s]) for s in range(world.n) if s != seat]
        changed += hidden_true != hidden_world
    assert changed >= 5


# -- named levels --------------------------------------------------------------------------
def test_named_levels_resolve_to_bots() -> None:
    assert list(LEVELS) == ["easy", "medium", "hard", "champion"]
    assert resolve_level("medium") == "heuristic"
    assert resolve_level("hard") == "expert"
    assert resolve_level("ismcts:iterations=5") == "ismcts:iterations=5"
    assert make_bot("hard", seed=1).name == "expert"
    assert make_bot("medium", seed=1).name == "heuristic"
    assert make_bot("easy", seed=1).name == LEVELS["easy"].split(":")[0]
    assert make_bot("champion", seed=1).name == "champion"
    with pytest.raises(ValueError, match="unknown bot 'impossible'"):
        make_bot("impossible")


def test_levels_are_offered_by_the_server_with_their_caps() -> None:
    pytest.importorskip("fastapi")
    from civlite.server.tables import BOT_LEVELS, MAX_BOT_SECONDS, bot_for, check_bot_spec

    assert BOT_LEVELS[:4] == ("easy", "medium", "hard", "champion")
    for level in ("easy", "medium", "hard", "champion", "expert"):
        assert check_bot_spec(level) == level
    with pytest.raises(ValueError, match="at most seconds="):
        check_bot_spec(f"champion:seconds={MAX_BOT_SECONDS * 2:g}")
    bot, spec = bot_for("champion", 1)
    assert isinstance(bot, ChampionBot) and bot.seconds == MAX_BOT_SECONDS and bot.iterations == 800
    assert spec == f"champion:iterations=800,seconds={MAX_BOT_SECONDS}"


def test_levels_are_offered_by_the_terminal_set_up() -> None:
    pytest.importorskip("textual")
    from civlite.bots import level_label
    from civlite.tui.screens import KIND_OPTIONS
    from civlite.tui.session import parse_seats

    assert [s.kind for s in parse_seats("Ann,hard,champion,medium")] == ["human", "hard", "champion", "medium"]
    labels = [label for label, _ in KIND_OPTIONS]
    for level in LEVELS:
        assert f"bot: {level_label(level)}" in labels
    assert "bot: expert" in labels and "bot: policy" in labels


@pytest.mark.slow
def test_training_runs_and_writes_weights_the_bot_loads(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    script = str(ROOT / "examples" / "train_expert.py")

    def train(argv: list[str]) -> int:
        return subprocess.run([sys.executable, script, *argv], capture_output=True, check=False).returncode

    out = tmp_path / "e.npz"
    args = ["--seed", "3", "--imitation-games", "20", "--updates", "2", "--steps", "512", "--parallel", "8",
            "--eval-every", "2", "--eval-games", "4", "--hidden", "32", "--out", str(out)]
    assert train(args) == 0
    log = [line for line in out.with_suffix(".log.jsonl").read_text().splitlines() if line]
    assert '"stage": "imitation"' in log[1] and '"stage": "done"' in log[-1]
    bot = make_bot(f"expert:weights={out}", seed=0)
    g = Game(3, seed=1)
    while not g.over:
        g.apply(decide(bot, g))
    # reproducible from the seed: a second run writes the same weights
    out2 = tmp_path / "e2.npz"
    assert train([*args[:-1], str(out2)]) == 0
    a, b = ExpertNet.load(out), ExpertNet.load(out2)
    assert np.array_equal(a.w0, b.w0) and np.array_equal(a.wp, b.wp)
    # a fine-tuning run starts from those weights (no imitation) and writes weights of their shape
    out3 = tmp_path / "e3.npz"
    # (here one table size, evaluated at that size, the best evaluation kept)
    out3, best = tmp_path / "e3.npz", tmp_path / "best.npz"
    assert train(["--init", str(out), "--seed", "4", "--updates", "2", "--steps", "256", "--parallel", "4",
                  "--eval-every", "1", "--eval-games", "4", "--self-share", "0", "--past-share", "0",
                  "--sizes", "4", "--size-weights", "1", "--eval-players", "4", "--keep-best", str(best),
                  "--out", str(out3)]) == 0
    log3 = [json.loads(line) for line in out3.with_suffix(".log.jsonl").read_text().splitlines() if line]
    assert all(r["stage"] != "imitation" for r in log3) and log3[-1]["stage"] == "done"
    evals = [r["vs_heuristic_4p"] for r in log3 if r["stage"] == "selfplay"]
    assert len(evals) == 2 and "vs_heuristic_2p" not in log3[1]
    c = ExpertNet.load(out3)
    assert c.w0.shape == a.w0.shape and not np.array_equal(c.wp, a.wp) and c.meta["init"] == str(out)
    kept = ExpertNet.load(best)
    assert kept.meta["eval"]["vs_heuristic_4p"] == max(evals) and kept.meta["sizes"] == [4]


def test_training_refuses_bad_arguments_by_name() -> None:
    pytest.importorskip("torch")
    script = str(ROOT / "examples" / "train_expert.py")
    for argv, message in ((["--sizes", "3,4", "--size-weights", "1"], "--size-weights has 1 weights for 2"),
                          (["--eval-players", "9"], "--eval-players must be 2 to 8")):
        p = subprocess.run([sys.executable, script, *argv], capture_output=True, text=True, check=False)
        assert p.returncode == 2 and message in p.stderr


def test_champion_hands_the_end_of_a_game_to_the_rollout_search() -> None:
    """``endgame=K`` (with the network's search): once some seat is within K CT of victory
    (10 by default), the seat's actions are the rollout search's (the same move as ``ismcts``
    on the same random source); before that the network's search, as ``auto`` at 2 players. ``search=hybrid``
    hands every action to the rollout search and every discard to the network."""
    state = {"active": 0, "phase": "action", "players": [
        {"hand": ["Stonehenge", "Spearmen", "Axemen", "Flood", "Tribute"], "ct": 16},
        {"hand": ["Greeks", "Romans", "Moses"], "ct": 9}],
        "deck": ["Wealth", "Peace", "Empire", "Vitality", "Exploration", "Famine", "Celts", "Goths"], "discard": []}
    crafted = Game.from_position(state).view(0)
    assert make_bot("champion:search=network,endgame=4").in_endgame(crafted)  # type: ignore[attr-defined]
    assert not make_bot("champion:search=network,endgame=3").in_endgame(crafted)  # type: ignore[attr-defined]
    assert make_bot("champion").in_endgame(crafted)  # type: ignore[attr-defined]  # the default: 10 CT
    assert not make_bot("champion:endgame=0").in_endgame(crafted)  # type: ignore[attr-defined]

    def rollout_move(view: View, legal: list[int]) -> int:
        search = ChampionBot(seed=5, iterations=60)._rollout_search
        search.rng = random.Random(0)
        return search.act(view, legal)

    def network_move(view: View, legal: list[int]) -> int:
        return ChampionBot(seed=5, iterations=60, search="network", endgame=0).act(view, legal)

    differ = ends = middles = 0
    for seed in range(60):  # positions where the two searches choose differently
        g = Game(2, seed=seed)
        advance(g, 8 + 3 * seed, seed)
        if g.over or g.to_move is None or len(g.legal_ids()) < 2 or g.legal_ids()[0] >= DISCARD_BASE:
            continue
        view, legal = g.view(g.to_move), g.legal_ids()
        by_rollouts, by_network = rollout_move(view, legal), network_move(view, legal)
        near_end = max(g.ct) >= g.rules.victory_ct - DEFAULT_ENDGAME
        for spec, expected in (("champion:iterations=60,search=network,endgame=100", by_rollouts),
                               ("champion:iterations=60,search=network,endgame=0", by_network),
                               ("champion:iterations=60,search=hybrid", by_rollouts),
                               ("champion:iterations=60,endgame=0", by_network),
                               ("champion:iterations=60", by_rollouts if near_end else by_network)):
            bot = make_bot(spec, seed=5)
            assert isinstance(bot, ChampionBot)
            bot._rollout_search.rng = random.Random(0)
            assert bot.act(view, legal) == expected, spec
        differ += by_rollouts != by_network
        ends += near_end and by_rollouts != by_network
        middles += not near_end and by_rollouts != by_network
    assert differ >= 2 and ends and middles  # the test tells the two searches apart
    assert make_bot("champion:search=hybrid").plays_hybrid(4) and not make_bot("champion").plays_hybrid(2)  # type: ignore[attr-defined]
    assert make_bot("champion").plays_rollouts(4) and not make_bot("champion").plays_rollouts(2)  # type: ignore[attr-defined]
    assert make_bot("champion:endgame=3").spec == "champion:endgame=3"
    assert make_bot("champion:endgame=0").spec == "champion:endgame=0"
    assert make_bot("champion:endgame=10").spec == "champion"
    assert make_bot("champion:search=hybrid").spec == "champion:search=hybrid"
    for bad in ("-1", "101", "2.5", "x"):
        with pytest.raises(ValueError, match="endgame"):
            make_bot(f"champion:endgame={bad}")


def _discard_choices(games: int) -> list[tuple[View, list[int]]]:
    """The 2-player positions of seeds 0 to ``games - 1`` (each ``advance``d ``10 + seed``
    steps) where the seat to move chooses among several discards: its view and choices."""
    out = []
    for seed in range(games):
        g = Game(2, seed=seed)
        advance(g, 10 + seed, seed)
        if g.over or g.to_move is None:
            continue
        legal = g.legal_ids()
        if legal[0] >= DISCARD_BASE and len(legal) >= 2:
            out.append((g.view(g.to_move), legal))
    return out


def test_champion_discards_with_the_network_in_the_hybrid_search() -> None:
    """At a discard, ``search=hybrid`` plays the network's choice, not ``ismcts``'s rule."""
    found = 0
    for view, legal in _discard_choices(40):
        hybrid = ChampionBot(seed=1, iterations=30, search="hybrid")
        assert hybrid.act(view, legal) == make_bot("expert").act(view, legal)
        found += 1
    assert found >= 3


def test_champion_searches_its_own_discards_with_discards_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """``discards=search``: a discard step is the search's root, one child per card it may
    discard, each of them tried (the network's discard, near certain, is only half their
    prior); without it, a discard is the network's and nothing is searched."""
    import civlite.bots.champion as champion_module

    tried: list[tuple[int, int]] = []  # (cards tried at the root, cards it may discard)
    real = champion_module.most_visited

    def most_visited(root: Any, legal: Sequence[int]) -> int:
        tried.append((sum(1 for ch in root.children.values() if ch.visits), len(legal)))
        assert set(root.children) <= set(legal)
        return real(root, legal)

    monkeypatch.setattr(champion_module, "most_visited", most_visited)
    found = 0
    for view, legal in _discard_choices(60):
        searched = ChampionBot(seed=1, iterations=200, discards="search")
        move = searched.act(view, legal)
        assert move in legal and searched.last_iterations == 200
        assert tried[-1] == (len(legal), len(legal))  # every card it may discard was tried
        before = len(tried)
        network = ChampionBot(seed=1, iterations=200)
        assert network.act(view, legal) == make_bot("expert").act(view, legal)  # the network's discard
        assert len(tried) == before  # ... and no search
        found += 1
    assert found >= 3
    assert make_bot("champion:discards=search").spec == "champion:discards=search"
