"""civlite tune: the space file, pruning of hopeless variants, playable best variants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from civlite.cli import app
from civlite.engine import RuleSet
from civlite.sim.tune import Goal, Tally, TuneError, goal_met, hopeless, load_space, loss, space_from_dict, tune

SPACE = """
[tune]
players = 2
bots = ["heuristic"]
trials = 4
games = 8
batch = 4
seed = 3

[goal]
seat_edge = 1.0
length = [10, 60]
ablation = 60.0
ablation_games = 2

[[param]]
path = "start_ct"
choices = [[0, 0], [0, 15]]

[[param]]
path = "basic.W.cards"
choices = [1, 2]
"""


def test_loss_pruning_and_goal() -> None:
    t = Tally(2)
    for i in range(100):
        t.add({"winner": 0 if i < 90 else 1, "turns": 30})
    assert hopeless(t, Goal())  # 90% with an interval far from 50% ± 1
    assert loss(t, Goal()) == pytest.approx(40.0)
    assert loss(t, Goal(length=(40, 50))) == pytest.approx(50.0)  # + 10 turns short
    fair = Tally(2)
    for i in range(100):
        fair.add({"winner": i % 2, "turns": 30})
    assert not hopeless(fair, Goal()) and loss(fair, Goal()) == 0
    met = goal_met(fair.figures(), Goal(length=(20, 40)), 2)
    assert met == {"seat_edge": True, "seat_edge_strict": False, "length": True}  # 100 games: interval ±10


def test_a_space_file_is_checked(tmp_path: Path) -> None:
    f = tmp_path / "s.toml"
    f.write_text(SPACE)
    sp = load_space(f)
    assert sp.grid is not None and len(sp.grid) == 4 and sp.goal.length == (10.0, 60.0)
    ism = space_from_dict({"tune": {"bots": "ismcts:iterations=20,depth=4"},
                           "param": [{"path": "victory_ct", "low": 18, "high": 22, "step": 2}]})
    assert ism.bots == ("ismcts:iterations=20,depth=4",) and ism.grid is None and ism.params[0].values == [18, 20, 22]
    for data, words in (({"param": []}, "at least one"),
                        ({"param": [{"path": "basic.W.cost", "choices": [1]}]}, "not 'cost'"),
                        ({"param": [{"path": "victory_ct", "low": 5, "high": 2}]}, "below low"),
                        ({"param": [{"path": "victory_ct"}]}, "choices"),
                        ({"tune": {"bots": ["nobot"]}, "param": [{"path": "victory_ct", "choices": [20]}]}, "nobot"),
                        ({"tune": {"speed": 1}, "param": [{"path": "victory_ct", "choices": [20]}]}, "tune.speed"),
                        ({"goal": {"length": [40, 20]}, "param": [{"path": "victory_ct", "choices": [20]}]}, "length"),
                        ({"param": [{"path": "start_ct", "choices": [[0, 25]]}]}, "win at once")):
        with pytest.raises(TuneError, match=words):
            space_from_dict(data)


def test_tune_prunes_hopeless_variants_and_writes_playable_toml(tmp_path: Path) -> None:
    f = tmp_path / "s.toml"
    f.write_text(SPACE)
    res = tune(load_space(f), tmp_path / "out", workers=1)
    states = {(tuple(t["params"]["start_ct"]), t["params"]["basic.W.cards"]): t["state"] for t in res["trials"]}
    assert states[(0, 15), 1] == states[(0, 15), 2] == "pruned"
    assert states[(0, 0), 1] == states[(0, 0), 2] == "complete"
    assert all(t["games"] == 4 for t in res["trials"] if t["state"] == "pruned")  # stopped after one batch
    best = [next(t for t in res["trials"] if t["trial"] == n) for n in res["best"]]
    assert best and best[0]["file"] == "best-1.toml" and best[0]["params"]["start_ct"] == [0, 0] and "ablation_max_points" in best[0]
    rules = RuleSet.from_toml(tmp_path / "out" / best[0]["file"])
    assert rules.to_dict()["basic"]["W"]["cards"] == best[0]["params"]["basic.W.cards"]
    md = (tmp_path / "out" / "tune.md").read_text()
    assert "pruned" in md and "heuristic" in md and best[0]["file"] in md


def test_tune_command(tmp_path: Path) -> None:
    f = tmp_path / "s.toml"
    f.write_text(SPACE.replace('choices = [1, 2]', 'choices = [1]').replace("ablation = 60.0\n", "")
                 .replace("seed = 3", "seed = 3\nconfirm = 6\nkeep = 1"))
    r = CliRunner().invoke(app, ["tune", str(f), "--out", str(tmp_path / "o"), "--games", "4", "--workers", "1",
                                 "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    assert res["best"] and (tmp_path / "o" / "best-1.toml").exists()
    finalist = next(t for t in res["trials"] if t["trial"] == res["best"][0])
    assert finalist["games"] == 6 and "search_loss" in finalist  # played on from 4 to 6 games
    again = CliRunner().invoke(app, ["tune", str(f), "--out", str(tmp_path / "o")])
    assert again.exit_code == 2 and "already holds files" in again.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("[[param]]\npath = 'nothing'\nchoices = [1]\n")
    r = CliRunner().invoke(app, ["tune", str(bad), "--out", str(tmp_path / "b")])
    assert r.exit_code == 2 and "unknown key 'nothing'" in r.stderr and "Traceback" not in r.output
    r = CliRunner().invoke(app, ["tune", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "b")])
    assert r.exit_code == 2 and "cannot read" in r.stderr


@pytest.mark.slow
def test_tune_on_ray_matches_local(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ray = pytest.importorskip("ray")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    import shutil
    import tempfile

    f = tmp_path / "s.toml"
    f.write_text(SPACE.replace("ablation = 60.0\n", ""))
    short = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _temp_dir=short)
    try:
        a = tune(load_space(f), tmp_path / "ray", workers=2, backend="ray")
    finally:
        ray.shutdown()
        shutil.rmtree(short, ignore_errors=True)
    b = tune(load_space(f), tmp_path / "local", workers=1)
    strip = ["seconds"]
    assert {k: v for k, v in a.items() if k not in strip} == {k: v for k, v in b.items() if k not in strip}
