"""The table encoding of a dealt world, ``champion``'s ``value=`` leaves, and (slow) a few
seconds of each stage of ``examples/world_value.py`` and of ``examples/expert_iteration.py``
against ``heuristic``."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from civlite.bots import decide, make_bot  # noqa: E402
from civlite.bots.champion import ChampionBot, _Node  # noqa: E402
from civlite.bots.expert import TABLE_WEIGHTS, ExpertNet  # noqa: E402
from civlite.bots.features import OPP0, OPP_WIDTH, SCALE, encode, encode_table  # noqa: E402
from civlite.engine import DISCARD_BASE, Game, sample_world  # noqa: E402
from civlite.engine.cards import SUIT_OF  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _advance(game: Game, steps: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            return
        legal = game.legal_ids()
        game.apply_id(legal[int(rng.random() * len(legal))])
    while not game.over:  # on to a decision with a choice, not a discard
        legal = game.legal_ids()
        if len(legal) > 1 and legal[0] < DISCARD_BASE:
            return
        game.apply_id(legal[0])


def _value_net(tmp_path: Path, kind: str, players: int = 2) -> Path:
    net = ExpertNet.load(TABLE_WEIGHTS[2])
    # another value head, so that the test can tell which network scored the leaf
    rng = np.random.default_rng(7)
    net.wv = (net.wv + rng.normal(0, 0.5, net.wv.shape)).astype(np.float32)
    net.meta = {"players": players, "value": kind}
    path = tmp_path / f"value-{kind}-{players}p.npz"
    net.save(path, half=False)
    return path


@pytest.mark.parametrize("n", [2, 3, 5])
def test_the_table_encoding_is_the_view_with_every_opponents_hand(n: int) -> None:
    g = Game(n, seed=40 + n)
    _advance(g, 15, n)
    seat = g.to_move
    assert seat is not None
    x, t = encode(g.view(seat)), encode_table(g, seat)
    slots = np.zeros(len(x), bool)
    for k in range(1, n):
        j = OPP0 + OPP_WIDTH * (k - 1) + 4
        slots[j:j + 8] = True
        hand = np.zeros(8, np.float32)
        for c in g.hands[(seat + k) % n]:  # opponent k, in turn order from the seat
            hand[SUIT_OF[c]] += SCALE
        assert np.allclose(t[j:j + 8], hand)
    assert np.array_equal(x[~slots], t[~slots])  # everything else is the seat's own view
    assert (t[slots] >= x[slots] - 1e-6).all()  # the cards it knew are among them


def test_champions_leaves_take_the_value_networks_score(tmp_path: Path) -> None:
    g = Game(2, seed=11)
    _advance(g, 10, 3)
    seat = g.to_move
    assert seat is not None
    legal = g.legal_ids()
    plain = make_bot("champion:iterations=10", seed=0)
    assert isinstance(plain, ChampionBot)
    for kind, encoding in (("table", encode_table(g, seat)), ("view", encode(g.view(seat)))):
        path = _value_net(tmp_path, kind)
        bot = make_bot(f"champion:iterations=10,value={path}", seed=0)
        assert isinstance(bot, ChampionBot) and bot.spec == f"champion:iterations=10,value={path}"
        node, base = _Node(seat), _Node(seat)
        node.mover = base.mover = seat
        v = bot._score(node, g, legal)
        assert v == pytest.approx(ExpertNet.load(path).value(encoding), abs=1e-5)
        assert v != pytest.approx(plain._score(base, g, legal), abs=1e-4)
        assert node.prior == base.prior  # the prior is still the table network's
    # a value network for another table size leaves this size's leaves alone
    other = make_bot(f"champion:iterations=10,value={_value_net(tmp_path, 'table', players=3)}", seed=0)
    assert isinstance(other, ChampionBot)
    node, base = _Node(seat), _Node(seat)
    node.mover = base.mover = seat
    assert other._score(node, g, legal) == pytest.approx(plain._score(base, g, legal))


def test_champion_with_a_table_value_decides_from_its_view_alone(tmp_path: Path) -> None:
    """The table encoding reads the hands of the *sampled* world: dealing the true game
    differently (the same view) changes nothing."""
    spec = f"champion:iterations=40,value={_value_net(tmp_path, 'table')}"
    checked = 0
    for i in range(4):
        g = Game(2, seed=91_000 + i)
        _advance(g, 12 + 5 * i, i)
        if g.over:
            continue
        seat = g.to_move
        assert seat is not None
        view = g.view(seat)
        worlds = [g, *(sample_world(view, random.Random(i * 10 + k)) for k in range(2))]
        decisions = [decide(make_bot(spec, seed=i), w) for w in worlds]
        assert decisions[1:] == decisions[:1] * 2
        checked += 1
    assert checked >= 3


def test_a_missing_value_network_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"expert weights not found: /nonexistent/v\.npz"):
        make_bot("champion:value=/nonexistent/v.npz")


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "examples" / script), *args],
                          capture_output=True, text=True, check=False)


@pytest.mark.slow
def test_world_value_generates_in_parts_trains_both_encodings_gates_and_ships(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    d, out, ship, log = tmp_path / "shards", tmp_path / "v.npz", tmp_path / "shipped.npz", tmp_path / "log.jsonl"
    common = ["--dir", str(d), "--shards", "3", "--games", "3", "--out", str(out), "--log", str(log),
              "--epochs", "1", "--seed", "2"]
    for part in ("0/2", "1/2"):
        done = _run("world_value.py", *common, "--part", part)
        assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in d.glob("shard_*.npz")) == ["shard_0000.npz", "shard_0001.npz", "shard_0002.npz"]
    shard = np.load(d / "shard_0000.npz")
    assert shard["x"].shape == shard["w"].shape and len(shard["z"]) == len(shard["x"]) > 0
    assert ((shard["z"] >= 0) & (shard["z"] <= 1)).all()
    assert not out.exists()
    done = _run("world_value.py", *common, "--compare", "--gate-games", "2", "--gate-iterations", "5",
                "--gate", "0", "--ship", str(ship))
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in log.read_text().splitlines() if '"progress"' not in line]
    assert [r["stage"] for r in rows] == ["generate"] * 3 + ["epoch", "train", "epoch", "train", "gate"]
    assert [r.get("encoding") for r in rows if r["stage"] == "train"] == ["w", "x"]
    assert rows[-1]["accepted"] is True
    assert ExpertNet.load(ship).meta["value"] == "table" and ExpertNet.load(d.parent / "v-view.npz").meta["value"] == "view"
    bot = make_bot(f"champion:iterations=5,value={ship}", seed=1)
    g = Game(2, seed=4)
    while not g.over:
        seat = g.to_move
        assert seat is not None
        g.apply_id(bot.act(g.view(seat), g.legal_ids()))


def test_world_value_refuses_bad_arguments_by_name(tmp_path: Path) -> None:
    done = _run("world_value.py", "--dir", str(tmp_path), "--out", str(tmp_path / "v.npz"), "--players", "9")
    assert done.returncode == 2 and "--players must be from 2 to 8" in done.stderr
    done = _run("world_value.py", "--dir", str(tmp_path), "--out", str(tmp_path / "v.npz"),
                "--teacher", str(tmp_path / "missing.npz"))
    assert done.returncode == 2 and "missing.npz" in done.stderr
    assert not list(tmp_path.glob("shard_*"))


@pytest.mark.slow
def test_expert_iteration_against_heuristic_gates_on_heuristic(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    d = tmp_path / "run"
    done = _run("expert_iteration.py", "--dir", str(d), "--rounds", "1", "--seed", "4", "--shards", "1",
                "--games", "2", "--search", "ismcts:iterations=20", "--sizes", "3", "--size-weights", "1",
                "--opponents", "heuristic", "--gate-by", "heuristic", "--gate-games", "6", "--gate-margin", "-1")
    assert done.returncode == 0, done.stderr[-2000:]
    gate = json.loads((d / "gate_000.json").read_text())
    assert set(gate) >= {"cand_vs_heuristic_3p", "best_vs_heuristic_3p", "gain_over_fair_share", "accepted"}
    assert gate["accepted"] is True  # a margin of -1 accepts any candidate
    assert gate["gain_over_fair_share"] == pytest.approx(
        3 * (gate["cand_vs_heuristic_3p"] - gate["best_vs_heuristic_3p"]), abs=1e-3)
    shard = np.load(d / "data" / "r000_s000.npz")
    assert len(shard["x"]) > 0 and set(shard["n"].tolist()) == {3}
