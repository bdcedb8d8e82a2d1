"""Game records as Parquet: one row per compact decision, the rows the interfaces' agents see."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyarrow")

from civlite.engine import Game, GameRecord
from civlite.rl.dataset import FILE, SCHEMA_DOC, export_run, load, schema
from civlite.rl.encoding import encode_game, obs_size


def _run(tmp: Path, players: int, games: int) -> list[list[tuple[int, bytes, list[int], int]]]:
    """A run of uniformly random games played by compact ids (games.jsonl as civlite sim writes
    it), and each game's trajectory as an agent saw it."""
    tmp.mkdir(parents=True, exist_ok=True)
    trajectories = []
    with (tmp / "games.jsonl").open("w") as f:
        for i in range(games):
            g = Game(players, seed=100 + i)
            rng = random.Random(i)
            steps = []
            while not g.over:
                seat = g.to_move
                assert seat is not None
                legal = g.legal_ids()
                aid = rng.choice(legal)
                steps.append((seat, encode_game(g, seat).tobytes(), legal, aid))
                g.apply_id(aid)
            line = GameRecord.of(g).to_json()
            line.update(index=i, bots=["random"] * players)
            f.write(json.dumps(line) + "\n")
            trajectories.append(steps)
    return trajectories


@pytest.mark.parametrize("players", [2, 3])
def test_export_holds_every_decision_as_the_agent_saw_it(tmp_path: Path, players: int) -> None:
    trajectories = _run(tmp_path / "run", players, 3)
    res = export_run(tmp_path / "run", tmp_path / "out")
    assert res.path == tmp_path / "out" / FILE and res.games == 3
    d = load(tmp_path / "out")
    assert list(d) == list(SCHEMA_DOC)
    assert res.rows == len(d["action"]) == sum(len(t) for t in trajectories)
    assert d["observation"].shape == (res.rows, obs_size(players)) and d["observation"].dtype == np.float32
    assert d["legal_mask"].shape == (res.rows, 153) and d["legal_mask"].dtype == bool
    row = 0
    for i, steps in enumerate(trajectories):
        final = Game(players, seed=100 + i)
        for k, (seat, obs, legal, aid) in enumerate(steps):
            assert d["game"][row] == i and d["decision"][row] == k and d["seat"][row] == seat
            assert d["observation"][row].tobytes() == obs
            assert list(np.flatnonzero(d["legal_mask"][row])) == legal and d["action"][row] == aid
            final.apply_id(aid)
            row += 1
        returns = final.returns()
        rows = d["game"] == i
        assert (d["outcome"][rows] == np.array([returns[s] for s in d["seat"][rows]])).all()
        assert (d["winner"][rows] == (-1 if final.winner is None else final.winner)).all()
        assert (d["game_seed"][rows] == 100 + i).all() and (d["bot"][rows] == "random").all()


def test_schema_is_documented() -> None:
    import civlite.rl.dataset as ds

    assert [f.name for f in schema(2)] == list(SCHEMA_DOC)
    for name in SCHEMA_DOC:
        assert f"\n{name} " in (ds.__doc__ or "")


def test_cli_export_and_dataset(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from civlite.cli import app

    _run(tmp_path / "run", 2, 2)
    r = CliRunner().invoke(app, ["export", str(tmp_path / "run"), "--out", str(tmp_path / "a")])
    assert r.exit_code == 0, r.output
    assert len(load(tmp_path / "a")["action"]) > 0
    r = CliRunner().invoke(app, ["export", str(tmp_path / "missing")])
    assert r.exit_code == 2 and "no such run" in r.output
    r = CliRunner().invoke(app, ["dataset", "--games", "2", "--workers", "1", "--bot", "random",
                                 "--out", str(tmp_path / "ds")])
    assert r.exit_code == 0, r.output
    d = load(tmp_path / "ds" / FILE)
    assert set(d["game"]) == {0, 1} and (d["bot"] == "random").all()
