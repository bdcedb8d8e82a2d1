"""Expert iteration's pieces: the search statistics it distils, ``champion``'s mixed leaf
value, and (slow) a few seconds of each training stage, resumed and reproduced."""

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
from civlite.bots.expert import ExpertNet  # noqa: E402
from civlite.bots.ismcts import ISMCTSBot  # noqa: E402
from civlite.engine import DISCARD_BASE, Game, sample_world  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _decisions(n: int, seed: int, count: int) -> list[Game]:
    """Positions with more than one move (no discard step), reached by random play."""
    out: list[Game] = []
    g = Game(n, seed=seed)
    rng = random.Random(seed)
    while not g.over and len(out) < count:
        legal = g.legal_ids()
        if len(legal) > 1 and legal[0] < DISCARD_BASE:
            out.append(g.clone())
        g.apply_id(legal[int(rng.random() * len(legal))])
    return out


def test_root_stats_are_the_search_that_picks_the_move() -> None:
    for g in _decisions(3, 4, 5):
        seat = g.to_move
        assert seat is not None
        view, legal = g.view(seat), g.legal_ids()
        bot = make_bot("ismcts:iterations=120,early_stop=0", seed=2)
        assert isinstance(bot, ISMCTSBot)
        move, stats = bot.root_stats(view, legal)
        assert move == make_bot("ismcts:iterations=120,early_stop=0", seed=2).act(view, legal)
        assert set(stats) <= set(legal) and move in stats
        assert sum(v for v, _ in stats.values()) == 120  # every iteration leaves the root by one move
        assert stats[move][0] == max(v for v, _ in stats.values())
        assert all(0.0 <= q <= 1.0 for _, q in stats.values())


def test_root_stats_of_forced_moves_and_discards_are_empty() -> None:
    bot = make_bot("ismcts:iterations=50", seed=1)
    assert isinstance(bot, ISMCTSBot)
    g = Game(2, seed=1)
    seat = g.to_move
    assert seat is not None
    assert bot.root_stats(g.view(seat), [g.legal_ids()[0]]) == (g.legal_ids()[0], {})
    rng = random.Random(3)
    seen = 0
    while not g.over and not seen:
        legal = g.legal_ids()
        s = g.to_move
        assert s is not None
        if legal[0] >= DISCARD_BASE and len(legal) > 1:
            move, stats = bot.root_stats(g.view(s), legal)
            assert move in legal and stats == {}
            seen += 1
        g.apply_id(legal[int(rng.random() * len(legal))])
    assert seen


def test_champions_mixed_leaf_lies_between_the_network_and_the_rollout() -> None:
    """With ``rollout``, a new leaf's value mixes the network's with a rollout's: each
    iteration's result is still a share of one game (it sums to 1 over the seats), and
    ``mix=0`` gives the network's own values."""
    for n, seed in ((2, 3), (4, 5)):
        g = _decisions(n, seed, 3)[-1]
        seat = g.to_move
        assert seat is not None
        view = g.view(seat)
        plain, mixed0, mixed = (ChampionBot(seed=1), ChampionBot(seed=1, rollout=6, mix=0.0),
                                ChampionBot(seed=1, rollout=6, mix=0.5))
        results = {}
        for name, bot in (("plain", plain), ("mix0", mixed0), ("mix", mixed)):
            bot._ev = None
            if bot.rollout:
                from civlite.bots.heuristic import evaluator

                bot._ev = evaluator(view.rules, view.num_players)
            root = _Node(seat)
            # a world draws its chance from the source it was dealt with: one source a world,
            # so that a rollout's draws do not change the next deal
            out = [bot._iterate(root, sample_world(view, random.Random(seed * 100 + i))) for i in range(30)]
            assert all(sum(v) == pytest.approx(1.0) for v in out)
            results[name] = [v[seat] for v in out]
        assert results["mix0"] == pytest.approx(results["plain"])
        assert results["mix"] != pytest.approx(results["plain"])


def test_champion_with_rollouts_plays_legal_games() -> None:
    for n in (2, 5):
        g = Game(n, seed=10 + n)
        bots = [make_bot("champion:iterations=20,rollout=4", seed=s) if s == 0 else make_bot("heuristic", seed=s)
                for s in range(n)]
        while not g.over:
            seat = g.to_move
            assert seat is not None
            g.apply(decide(bots[seat], g))
    assert make_bot("champion:rollout=8,mix=0.25").spec == "champion:rollout=8,mix=0.25"


@pytest.mark.slow
def test_expert_iteration_generates_trains_gates_resumes_and_reproduces(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    script = str(ROOT / "examples" / "expert_iteration.py")
    small = ["--seed", "5", "--shards", "2", "--games", "1", "--search", "ismcts:iterations=30",
             "--sizes", "2,3", "--size-weights", "1,1", "--gate-games", "8", "--gate-games4", "4",
             "--eval-games", "4", "--gate", "0.0"]

    def run(d: Path, rounds: int) -> None:
        out = subprocess.run([sys.executable, script, "--dir", str(d), "--rounds", str(rounds), *small],
                             capture_output=True, text=True, check=False)
        assert out.returncode == 0, out.stderr[-2000:]

    a = tmp_path / "a"
    run(a, 1)
    log = [json.loads(line) for line in (a / "log.jsonl").read_text().splitlines()]
    stages = [r["stage"] for r in log]
    assert stages == ["start", "generate", "generate", "train", "gate", "done"]
    assert sorted(p.name for p in (a / "data").iterdir()) == ["r000_s000.npz", "r000_s001.npz"]
    shard = np.load(a / "data" / "r000_s000.npz")
    assert len(shard["x"]) > 0
    assert np.allclose(shard["pi"].astype(np.float32).sum(-1), 1.0, atol=1e-2)
    assert not (shard["pi"] * ~shard["mask"]).any()  # targets only on legal moves
    assert ((shard["z"] >= 0) & (shard["z"] <= 1)).all()
    gate = json.loads((a / "gate_000.json").read_text())
    assert gate["accepted"]  # --gate 0: every candidate passes
    assert ExpertNet.load(a / "best.npz").meta.get("expert_iteration_round") == 0
    make_bot(f"expert:weights={a / 'best.npz'}", seed=0)
    # resumed: round 0 is not played again, round 1 is added
    run(a, 2)
    log = [json.loads(line) for line in (a / "log.jsonl").read_text().splitlines()]
    assert [r["stage"] for r in log[6:]] == ["start", "generate", "generate", "train", "gate", "done"]
    assert all(r["round"] == 1 for r in log[7:-1])
    # an interrupted round goes on from its files: a lost candidate is trained again, the same
    b = tmp_path / "b"
    run(b, 1)
    first = np.load(b / "cand_000.npz")["w0"].copy()
    (b / "cand_000.npz").unlink()
    (b / "gate_000.json").unlink()
    (b / "state.json").unlink()
    (b / "best.npz").unlink()
    run(b, 1)
    assert np.array_equal(np.load(b / "cand_000.npz")["w0"], first)
    # reproducible from the seed: another directory, the same data and network
    for name in ("data/r000_s000.npz", "data/r000_s001.npz"):
        x, y = np.load(a / name), np.load(b / name)
        assert all(np.array_equal(x[k], y[k]) for k in x.files)
    assert np.array_equal(np.load(a / "cand_000.npz")["w0"], first)


def test_the_gates_score_is_even_at_parity() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("expert_iteration", ROOT / "examples" / "expert_iteration.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.gate_score(0.5, 1000, 0.25, 400) == pytest.approx(0.5)
    assert mod.gate_score(0.6, 1000, 0.25, 0) == pytest.approx(0.6)
    assert mod.gate_score(0.5, 0, 0.3, 400) == pytest.approx(0.6)
    assert mod.gate_score(0.55, 1000, 0.3, 400) > 0.52
