"""``examples/rollout_distil.py``: the rollout improvement it distils is honest and judges
every legal move on the same worlds; (slow) a few seconds of each stage, resumed and
reproduced, and a round stopped early trained on the shards it wrote."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

np = pytest.importorskip("numpy")

from civlite.bots.expert import TABLE_WEIGHTS, WEIGHTS, ExpertNet  # noqa: E402
from civlite.bots.features import BASE_SIZE, SIZE  # noqa: E402
from civlite.engine import DISCARD_BASE, Game, sample_world  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "rollout_distil.py"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rollout_distil", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _decision(n: int, seed: int) -> Game:
    """A position with several moves (no discard step), reached by random play."""
    g = Game(n, seed=seed)
    rng = random.Random(seed)
    for _ in range(400):
        legal = g.legal_ids()
        if len(legal) > 2 and legal[0] < DISCARD_BASE and g.turn > 2:
            return g
        g.apply_id(legal[int(rng.random() * len(legal))])
    raise AssertionError("no decision found")


@pytest.mark.parametrize("n", [2, 4])
def test_the_improver_scores_every_legal_move_from_the_view_alone(n: int) -> None:
    mod = _module()
    net = ExpertNet.load(TABLE_WEIGHTS[n])
    g = _decision(n, 11 + n)
    seat = g.to_move
    assert seat is not None
    view, legal = g.view(seat), g.legal_ids()
    scores = mod.RolloutImprover(net, seed=3, worlds=4).scores(view, legal)
    assert sorted(scores) == sorted(legal)
    assert all(0.0 <= v <= 1.0 for v in scores.values())
    # the hidden cards dealt otherwise, consistently with the view: the same scores
    other = sample_world(view, random.Random(99))
    assert other.view(seat) == view
    again = mod.RolloutImprover(net, seed=3, worlds=4).scores(other.view(seat), other.legal_ids())
    assert again == scores
    # the best move: the highest score, the network's own move ahead by the bonus
    imp = mod.RolloutImprover(net, seed=3, worlds=4, bonus=0.0)
    top = max(scores, key=lambda a: scores[a])
    assert imp.best(scores, legal[0]) in {top, legal[0]}
    assert scores[imp.best(scores, legal[0])] == scores[top]
    assert mod.RolloutImprover(net, seed=3, bonus=2.0).best(scores, legal[-1]) == legal[-1]


def test_targets_are_the_improved_move_or_the_networks_discard() -> None:
    mod = _module()
    mask = np.zeros((3, 6), bool)
    mask[:, 1:4] = True
    q = np.zeros((3, 6), np.float16)
    q[0, 1:4] = [0.2, 0.5, 0.49]
    q[1, 1:4] = [0.2, 0.5, 0.49]
    data = {"q": q, "mask": mask, "own": np.array([1, 3, 2], np.int16), "judged": np.array([True, True, False])}
    # the best move; a move within the bonus of the best stays the network's; a discard is the network's
    assert mod.targets(data, 0.02).tolist() == [2, 3, 2]
    assert mod.targets(data, 0.0).tolist() == [2, 2, 2]


@pytest.mark.slow
def test_rollout_distil_generates_trains_gates_resumes_and_reproduces(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    small = ["--players", "3", "--seed", "5", "--shards", "2", "--games", "1", "--worlds", "2",
             "--gate-games", "6", "--epochs", "1", "--gate-margin", "-1"]

    def run(d: Path, *extra: str) -> None:
        out = subprocess.run([sys.executable, str(SCRIPT), "--dir", str(d), *small, *extra],
                             capture_output=True, text=True, check=False)
        assert out.returncode == 0, out.stderr[-2000:]

    a = tmp_path / "a"
    run(a, "--rounds", "1")
    log = [json.loads(line) for line in (a / "log.jsonl").read_text().splitlines()]
    assert [r["stage"] for r in log] == ["init", "generate", "generate", "train", "gate"]
    shard = np.load(a / "r000_s000.npz")
    assert len(shard["x"]) > 0 and shard["judged"].any()
    assert not (shard["q"].astype(np.float32) * ~shard["mask"]).any()  # scores only of legal moves
    assert shard["mask"][np.arange(len(shard["own"])), shard["own"]].all()
    assert log[-1]["accepted"]  # --gate-margin -1: every candidate passes
    assert np.array_equal(np.load(a / "best.npz")["w0"], np.load(a / "cand_000.npz")["w0"])
    # resumed: round 0 is not played again, round 1 is added
    run(a, "--rounds", "2")
    log = [json.loads(line) for line in (a / "log.jsonl").read_text().splitlines()]
    assert [(r["stage"], r["round"]) for r in log[5:]] == [("generate", 1), ("generate", 1), ("train", 1), ("gate", 1)]
    # generation split over processes (--only-shards), then the round finished: the same files
    b = tmp_path / "b"
    run(b, "--rounds", "1", "--only-shards", "1", "--stop-after", "generate")
    assert sorted(p.name for p in b.glob("r*.npz")) == ["r000_s001.npz"]
    run(b, "--rounds", "1")
    for name in ("r000_s000.npz", "r000_s001.npz", "cand_000.npz"):
        x, y = np.load(a / name), np.load(b / name)
        assert all(np.array_equal(x[k], y[k]) for k in x.files)
    # --present: a round stopped early trains on the shards written, generating no more
    c = tmp_path / "c"
    run(c, "--rounds", "1", "--only-shards", "1", "--stop-after", "generate")
    run(c, "--rounds", "1", "--present", "--stop-after", "train")
    assert sorted(p.name for p in c.glob("r*.npz")) == ["r000_s001.npz"] and (c / "cand_000.npz").exists()
    trained = json.loads((c / "log.jsonl").read_text().splitlines()[-1])
    assert trained["stage"] == "train" and trained["shards"] == 1 and trained["present"] == ["r000_s001"]
    # a shard written before the hand summaries (BASE_SIZE values a position) trains as one
    # written now; a network from before them learns them (its candidate reads SIZE values)
    old = dict(np.load(a / "r000_s000.npz"))
    old["x"] = old["x"][:, :BASE_SIZE]
    cands = []
    for name, power in (("d", "1"), ("e", "0.25")):
        d = tmp_path / name
        d.mkdir()
        np.savez(d / "r000_s000.npz", **old)  # type: ignore[arg-type]
        run(d, "--rounds", "1", "--present", "--stop-after", "train", "--init", str(WEIGHTS),
            "--prior-power", power)
        cands.append(ExpertNet.load(d / "cand_000.npz"))
        assert cands[-1].inputs == SIZE and ExpertNet.load(d / "best.npz").inputs == BASE_SIZE
    # --prior-power below 1 moves the target further from the network's policy
    assert not np.array_equal(cands[0].wp, cands[1].wp)
    # --measure-teacher: the teacher and the network alone on the same deals, nothing trained
    run(b, "--measure-teacher", "3")
    last = json.loads((b / "log.jsonl").read_text().splitlines()[-1])
    assert last["stage"] == "measure" and last["games"] == 3
    assert 0 <= last["teacher"]["score"] <= 1 and 0 <= last["network"]["score"] <= 1
    assert last["teacher"]["decisions"] > 0
