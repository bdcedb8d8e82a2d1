"""(slow) A few seconds of each stage of ``examples/distil_table_net.py``: generation in
parts, training, the gate and shipping; a stopped run goes on from its files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEACHER = ROOT / "src" / "civlite" / "bots" / "policy.npz"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "examples" / "distil_table_net.py"), *args],
                          capture_output=True, text=True, check=False)


@pytest.mark.slow
def test_distil_generates_in_parts_trains_gates_and_resumes(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from civlite.bots import make_bot
    from civlite.bots.expert import ExpertBot
    from civlite.engine import Game

    d, out, ship, log = tmp_path / "shards", tmp_path / "net.npz", tmp_path / "shipped.npz", tmp_path / "log.jsonl"
    common = ["--dir", str(d), "--teacher", str(TEACHER), "--shards", "3", "--games", "4", "--out", str(out),
              "--log", str(log), "--epochs", "1", "--seed", "3"]
    # two parts side by side write the shards k % 2 == part, then stop
    for part in ("0/2", "1/2"):
        done = _run(*common, "--part", part)
        assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in d.glob("shard_*.npz")) == ["shard_0000.npz", "shard_0001.npz", "shard_0002.npz"]
    assert not out.exists()
    first = (d / "shard_0000.npz").stat().st_mtime_ns
    # the training run finds the shards made (none is played again), trains, gates and ships
    done = _run(*common, "--gate-games", "4", "--gate", "0", "--ship", str(ship))
    assert done.returncode == 0, done.stderr
    assert (d / "shard_0000.npz").stat().st_mtime_ns == first
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["stage"] for r in rows] == ["generate"] * 3 + ["epoch", "train", "gate"]
    assert rows[-1]["accepted"] is True and rows[-1]["players"] == 2 and 0 <= rows[-1]["score"] <= 1
    bot = make_bot(f"expert:weights={ship}", seed=1)
    assert isinstance(bot, ExpertBot) and bot.net.meta["players"] == 2
    g = Game(2, seed=4)
    while not g.over:
        seat = g.to_move
        assert seat is not None
        g.apply_id(bot.act(g.view(seat), g.legal_ids()))
    # the network written is kept: a second run goes straight to the gate, which now refuses
    ship.unlink()
    done = _run(*common, "--gate-games", "4", "--gate", "1.01", "--ship", str(ship))
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["stage"] for r in rows][-2:] == ["gate", "gate"] and rows[-1]["accepted"] is False
    assert not ship.exists()


def test_distil_refuses_bad_arguments_with_a_clear_error(tmp_path: Path) -> None:
    done = _run("--dir", str(tmp_path), "--teacher", str(tmp_path / "missing.npz"), "--out", str(tmp_path / "o.npz"))
    assert done.returncode == 2 and "missing.npz" in done.stderr
    done = _run("--dir", str(tmp_path), "--teacher", str(TEACHER), "--out", str(tmp_path / "o.npz"), "--part", "2/2")
    assert done.returncode == 2 and "--part" in done.stderr
    assert not list(tmp_path.glob("shard_*"))
