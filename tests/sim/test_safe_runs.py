"""Runs are never destroyed by accident; bad input is a one-line error (exit code 2), never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from civlite.cli import app
from civlite.sim import SimConfig, load_run, simulate
from civlite.sim.cli import summary_line

SIM = ["sim", "--bots", "heuristic,random", "--seed", "2", "--workers", "1"]


def _run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, list(args))


def _one_line_error(r) -> str:  # type: ignore[no-untyped-def]
    assert r.exit_code == 2, r.output
    assert ("Traceback" not in r.output and r.exception is None) or isinstance(r.exception, SystemExit)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), r.stderr
    return str(lines[0])


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("small")
    simulate(SimConfig(bots=("heuristic", "random"), players=2, games=4, seed=2), out=d, workers=1)
    return d


def test_a_run_is_not_overwritten_without_force(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert _run(*SIM, "--games", "4", "--out", str(out)).exit_code == 0
    before = (out / "games.jsonl").read_bytes()
    msg = _one_line_error(_run(*SIM, "--games", "2", "--out", str(out)))
    assert "already holds files" in msg and "--force" in msg and "--resume" in msg
    assert (out / "games.jsonl").read_bytes() == before
    r = _run(*SIM, "--games", "2", "--out", str(out), "--force")
    assert r.exit_code == 0, r.output
    assert load_run(out)[0]["games"] == 2
    assert "do not go together" in _one_line_error(_run(*SIM, "--games", "2", "--out", str(out), "--force", "--resume"))


def test_resume_never_shrinks_a_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert _run(*SIM, "--games", "6", "--out", str(out)).exit_code == 0
    before = (out / "games.jsonl").read_bytes()
    r = _run(*SIM, "--games", "2", "--out", str(out), "--resume", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["games"] == 6 and "never shrinks" in r.stderr
    assert (out / "games.jsonl").read_bytes() == before
    res = simulate(SimConfig(bots=("heuristic", "random"), players=2, games=3, seed=2), out=out, workers=1, resume=True)
    assert res.summary["games"] == 6 and res.resumed == 6


@pytest.mark.parametrize("where", ["file", "/proc/civlite-x", "readonly"])
def test_bad_output_paths_are_one_line_errors(tmp_path: Path, small_run: Path, where: str) -> None:
    import os

    if where == "file":
        out = tmp_path / "a-file"
        out.write_text("x")
    elif where == "readonly":
        if os.geteuid() == 0:
            out = Path("/proc/self/civlite-x")  # root may write anywhere else
        else:
            ro = tmp_path / "ro"
            ro.mkdir()
            ro.chmod(0o500)
            out = ro / "x"
    else:
        out = Path(where)
    for args in ([*SIM, "--games", "2", "--out", str(out)],
                 ["sweep", "--param", "victory_ct=10,12", "--games", "2", "--workers", "1", "--out", str(out)],
                 ["report", str(small_run), "--out", str(out)],
                 ["compare", str(small_run), str(small_run), "--out", str(out)]):
        msg = _one_line_error(_run(*args))
        assert str(out) in msg, msg
    if where == "file":
        assert out.read_text() == "x"


@pytest.mark.parametrize(("args", "words"), [
    (["--players", "1"], "--players must be 2 to 8"),
    (["--players", "9"], "--players must be 2 to 8"),
    (["--workers", "-1"], "--workers must be at least 1"),
    (["--workers", "0"], "--workers must be at least 1"),
    (["--bots", "heuristic,,random"], "empty bot spec"),
    (["--bots", "heuristic,"], "empty bot spec"),
    (["--games", "0"], "--games must be at least 1"),
])
def test_bad_numbers_and_bots_are_clear_errors(tmp_path: Path, args: list[str], words: str) -> None:
    out = tmp_path / "never"
    for cmd in (["sim", "--games", "2", *args], ["sweep", "--param", "victory_ct=10", "--games", "2", *args]):
        msg = _one_line_error(_run(*cmd, "--out", str(out)))
        assert words in msg
    assert not out.exists()  # an error changes nothing


def test_summary_line_has_percentages_and_length(small_run: Path) -> None:
    summary, _ = load_run(small_run)
    line = summary_line(summary)
    assert "heuristic" in line and "%" in line and "seat wins" in line and "median" in line and "turns" in line
    r = _run(*SIM, "--games", "4", "--out", str(small_run.parent / "again"))
    assert r.exit_code == 0 and "length: median" in r.stderr and "% [" in r.stderr


def test_report_says_which_bots_played(small_run: Path, tmp_path: Path) -> None:
    r = _run("report", str(small_run), "--out", str(tmp_path))
    assert r.exit_code == 0, r.output
    assert "bots: heuristic vs random" in r.stderr
    assert "heuristic vs random (seats rotated)" in (tmp_path / "report.html").read_text()
