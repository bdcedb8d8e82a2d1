"""The simulator, report, compare and sweep on small runs."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from civlite.cli import app
from civlite.engine import GameRecord, RuleSet
from civlite.sim import SUMMARY_KEYS, SimConfig, load_run, simulate
from civlite.sim.compare import compare_runs
from civlite.sim.report import PNGS, build_report
from civlite.sim.stats import two_proportions, wilson
from civlite.sim.sweep import parse_param, sweep

CFG = SimConfig(bots=("heuristic", "random"), players=2, games=8, seed=3)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("run")
    simulate(SimConfig(bots=("heuristic", "random"), players=3, games=12, seed=5), out=d, workers=1)
    return d


def test_same_results_whatever_the_worker_count(tmp_path: Path) -> None:
    a = simulate(CFG, out=tmp_path / "w1", workers=1)
    b = simulate(CFG, out=tmp_path / "w2", workers=2)
    assert a.lines == b.lines and a.summary == b.summary
    for f in ("games.jsonl", "summary.json"):
        assert (tmp_path / "w1" / f).read_bytes() == (tmp_path / "w2" / f).read_bytes()
    c = simulate(SimConfig(bots=("heuristic", "random"), players=2, games=8, seed=4), workers=1)
    assert c.lines != a.lines


def test_summary_has_exactly_the_keys(run_dir: Path) -> None:
    summary, lines = load_run(run_dir)
    assert tuple(summary) == SUMMARY_KEYS
    assert summary["games"] == len(lines) == 12
    assert summary["players"] == 3 and summary["bots"] == ["heuristic", "random", "random"]
    assert sum(summary["wins"].values()) + summary["draws"] == 12
    assert sum(summary["seat_wins"]) + summary["draws"] == 12
    assert set(summary["turns"]) == {"mean", "p50", "p90"}
    assert summary["rules"] == RuleSet.default().to_dict()
    for v in summary["abilities"].values():
        assert set(v) == {"used", "win_rate_when_used"}
    assert summary["melds_per_game"] == sum(len(ln["stats"]["melds"]) for ln in lines) / 12


def test_seats_rotate(run_dir: Path) -> None:
    _, lines = load_run(run_dir)
    for seat in range(3):
        assert sum(1 for ln in lines if ln["bots"][seat] == "heuristic") == 4


def test_records_replay(run_dir: Path) -> None:
    _, lines = load_run(run_dir)
    for ln in lines[:4]:
        g = GameRecord.from_json(ln).replay()
        assert g.over and g.winner == ln["stats"]["winner"] and g.turn == ln["stats"]["turns"]
        assert g.ct == ln["stats"]["ct"][-1]


def test_ctrl_c_keeps_finished_games(tmp_path: Path) -> None:
    def stop(done: int, total: int) -> None:
        raise KeyboardInterrupt

    cfg = SimConfig(bots=("heuristic", "random"), players=2, games=200, seed=1)
    res = simulate(cfg, out=tmp_path, workers=1, progress=stop)
    assert res.interrupted and 0 < len(res.lines) < 200
    summary, lines = load_run(tmp_path)
    assert summary["games"] == len(lines) == len(res.lines)


def test_finished_games_are_on_disk_while_the_run_goes(tmp_path: Path) -> None:
    seen: list[int] = []

    def look(done: int, total: int) -> None:
        part = tmp_path / "games.partial.jsonl"
        seen.append(len(part.read_text().splitlines()))

    simulate(CFG, out=tmp_path, workers=1, progress=look)
    assert seen == list(range(1, 9))  # each game is appended (and flushed) as it finishes
    assert not (tmp_path / "games.partial.jsonl").exists()  # the ordered games.jsonl replaces it
    assert json.loads((tmp_path / "run.json").read_text()) == json.loads(json.dumps(CFG.to_json()))


def test_resume_plays_only_what_is_missing_and_matches_a_full_run(tmp_path: Path) -> None:
    full = simulate(CFG, out=tmp_path / "full", workers=1)

    def stop(done: int, total: int) -> None:
        if done >= 3:
            raise KeyboardInterrupt

    part = simulate(CFG, out=tmp_path / "r", workers=1, progress=stop)
    assert part.interrupted and len(part.lines) == 3
    # a kill (not Ctrl-C) leaves only the partial file, with a torn last line
    (tmp_path / "r" / "games.jsonl").rename(tmp_path / "r" / "games.partial.jsonl")
    (tmp_path / "r" / "summary.json").unlink()
    with (tmp_path / "r" / "games.partial.jsonl").open("a") as f:
        f.write('{"index": 3, "bots": ["heur')
    played: list[int] = []
    res = simulate(CFG, out=tmp_path / "r", workers=2, resume=True, progress=lambda d, t: played.append(d))
    assert res.resumed == 3 and not res.interrupted and played[-1] == 8
    assert res.summary == full.summary and res.lines == full.lines
    for f in ("games.jsonl", "summary.json"):
        assert (tmp_path / "r" / f).read_bytes() == (tmp_path / "full" / f).read_bytes()
    # a finished run extends to more games; nothing to do is fine too
    more = simulate(SimConfig(bots=CFG.bots, players=2, games=10, seed=3), out=tmp_path / "r", workers=1, resume=True)
    assert more.resumed == 8 and more.summary["games"] == 10
    again = simulate(SimConfig(bots=CFG.bots, players=2, games=10, seed=3), out=tmp_path / "r", workers=1, resume=True)
    assert again.resumed == 10 and again.lines == more.lines


@pytest.mark.parametrize("change,word", [({"seed": 4}, "seed"), ({"bots": ("random", "heuristic")}, "line-up"),
                                         ({"rules": RuleSet.default().with_changes(victory_ct=12)}, "rule set")])
def test_resume_refuses_another_run(tmp_path: Path, change: dict[str, object], word: str) -> None:
    simulate(CFG, out=tmp_path, workers=1)
    before = (tmp_path / "games.jsonl").read_bytes()
    kw: dict[str, object] = {"bots": CFG.bots, "players": 2, "games": 8, "seed": 3, **change}
    with pytest.raises(ValueError, match=word):
        simulate(SimConfig(**kw), out=tmp_path, workers=1, resume=True)  # type: ignore[arg-type]
    assert (tmp_path / "games.jsonl").read_bytes() == before


def test_resume_from_the_command_line(tmp_path: Path) -> None:
    args = ["sim", "--bots", "heuristic,random", "--games", "6", "--seed", "2", "--workers", "1",
            "--out", str(tmp_path), "--json"]
    first = CliRunner().invoke(app, [*args[:4], "4", *args[5:]])
    assert first.exit_code == 0, first.output
    r = CliRunner().invoke(app, [*args, "--resume"])
    assert r.exit_code == 0, r.output
    assert "2 games + 4 resumed" in r.stderr
    assert json.loads(r.stdout)["games"] == 6
    bad = CliRunner().invoke(app, [*args[:6], "9", *args[7:], "--resume"])
    assert bad.exit_code == 2 and "seed" in bad.stderr


def _sim_process(out: Path, games: int) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "civlite", "sim", "--bots", "heuristic,random", "--games",
                             str(games), "--seed", "3", "--workers", "2", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_pool_run_ends_quietly(tmp_path: Path) -> None:
    proc = _sim_process(tmp_path, 40)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "40 games in" in err
    assert load_run(tmp_path)[0]["games"] == 40


def test_sigterm_keeps_finished_games(tmp_path: Path) -> None:
    proc = _sim_process(tmp_path, 100_000)
    part = tmp_path / "games.partial.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not part.exists() or len(part.read_text().splitlines()) < 50):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted: finished games kept" in err
    summary, lines = load_run(tmp_path)
    assert summary["games"] == len(lines) >= 50 and not part.exists()


def test_search_bots_get_games_one_at_a_time() -> None:
    from civlite.sim.simulator import _chunk_size

    fast = SimConfig(bots=("heuristic", "random"), players=2, games=1000)
    slow = SimConfig(bots=("ismcts:seconds=0.5", "heuristic"), players=2, games=1000)
    assert not fast.slow and slow.slow
    assert _chunk_size(1000, 2, fast.slow) == 25 and _chunk_size(1000, 2, slow.slow) == 1


def test_report_files_with_real_numbers(run_dir: Path, tmp_path: Path) -> None:
    a = build_report(run_dir, tmp_path)
    for f in (*PNGS, "report.html", "report.json"):
        assert (tmp_path / f).exists() and (tmp_path / f).stat().st_size > 500
    for f in PNGS:
        assert (tmp_path / f).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rep = json.loads((tmp_path / "report.json").read_text())
    heur = next(b for b in rep["bots"] if b["bot"] == "heuristic")
    assert heur["seats_played"] == 12 and heur["wins"] == a["bots"][0]["wins"]
    assert 0 <= heur["ci95"][0] <= heur["win_rate"] <= heur["ci95"][1] <= 1
    assert rep["length"]["mean"] > 5
    html = (tmp_path / "report.html").read_text()
    assert "first player" in html and "data:image/png;base64," in html
    assert f"{100 * heur['win_rate']:.1f}%" in html
    # the CT race per seat and for the winner against the losers, turn by turn; length in rounds too
    assert set(rep["ct_race_seats"]) == {f"seat {s}" for s in range(rep["players"])}
    assert set(rep["ct_race_outcome"]) == {"winner", "losers"}
    won = rep["ct_race_outcome"]["winner"]["median"]
    assert won[-1] >= rep["ct_race_outcome"]["losers"]["median"][-1] and len(won) == len(rep["ct_race"]["heuristic"]["median"])
    assert "rounds" in html


def test_compare_flags_a_rule_change(tmp_path: Path) -> None:
    simulate(SimConfig(bots=("heuristic",), players=2, games=16, seed=1), out=tmp_path / "a", workers=1)
    rules = RuleSet.default().with_changes(victory_ct=8, name="short")
    simulate(SimConfig(bots=("heuristic",), players=2, games=16, seed=1, rules=rules), out=tmp_path / "b", workers=1)
    res = compare_runs(tmp_path / "a", tmp_path / "b")
    assert any("victory_ct" in d for d in res["rules_diff"])
    turns = next(r for r in res["rows"] if r["metric"] == "turns per game")
    assert turns["b"] < turns["a"] and turns["significant"]


def test_sweep(tmp_path: Path) -> None:
    assert parse_param("victory_ct=12..24:4") == ("victory_ct", [12, 16, 20, 24])
    assert parse_param("hand_limit=6,7") == ("hand_limit", [6, 7])
    with pytest.raises(ValueError):
        parse_param("victory_ct=20..12")
    res = sweep("victory_ct", [8, 14], ("heuristic", "random"), 2, 6, 1, RuleSet.default(), tmp_path, workers=1)
    assert res["values"] == [8, 14]
    assert res["points"][0]["turns_mean"] < res["points"][1]["turns_mean"]
    for f in ("sweep.json", "sweep.html", "sweep.png", "victory_ct=8/summary.json"):
        assert (tmp_path / f).exists()


def test_stats() -> None:
    p, lo, hi = wilson(90, 100)
    assert p == 0.9 and 0.82 < lo < 0.83 and 0.94 < hi < 0.95
    assert wilson(0, 0) == (0.0, 0.0, 1.0)
    z, pv = two_proportions(60, 100, 40, 100)
    assert z > 2.8 and pv < 0.01


def test_cli_commands(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "cli"
    r = runner.invoke(app, ["sim", "--bots", "heuristic,random", "--games", "4", "--seed", "2", "--workers", "1",
                            "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout.strip().splitlines()[-1])
    assert summary["games"] == 4 and tuple(summary) == SUMMARY_KEYS
    r = runner.invoke(app, ["report", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / "report.html").exists()
    r = runner.invoke(app, ["compare", str(out), str(out), "--json"])
    assert r.exit_code == 0, r.output
    assert not any(row["significant"] for row in json.loads(r.stdout)["rows"])
    r = runner.invoke(app, ["sweep", "--param", "victory_ct=10,12", "--games", "2", "--workers", "1",
                            "--out", str(tmp_path / "sw"), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout.strip().splitlines()[-1])["values"] == [10, 12]
    r = runner.invoke(app, ["sim", "--bots", "nobot", "--games", "2", "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "unknown bot" in r.output


@pytest.mark.slow
def test_ray_backend_matches_local(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ray = pytest.importorskip("ray")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    import shutil
    import tempfile

    short = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # Ray's socket paths must stay under 107 bytes
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _temp_dir=short)
    try:
        cfg = SimConfig(bots=("heuristic", "random"), players=2, games=10, seed=9)
        a = simulate(cfg, workers=2, backend="ray")
        b = simulate(cfg, workers=1)
        assert a.lines == b.lines and a.summary == b.summary
    finally:
        ray.shutdown()
        shutil.rmtree(short, ignore_errors=True)


def test_gzipped_records_load(run_dir: Path, tmp_path: Path) -> None:
    import gzip
    import shutil

    d = tmp_path / "gz"
    d.mkdir()
    shutil.copy(run_dir / "summary.json", d / "summary.json")
    with (run_dir / "games.jsonl").open("rb") as src, gzip.open(d / "games.jsonl.gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    assert load_run(d) == load_run(run_dir)
