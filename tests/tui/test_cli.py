"""``civlite play`` and ``civlite replay``: arguments and errors (the apps themselves are tested with Pilot)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from civlite.cli import app
from civlite.tui import CivliteApp, ReplayApp, SeatSpec, Session

runner = CliRunner()


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Record the apps the commands would run instead of running them."""
    apps: list[Any] = []
    monkeypatch.setattr(CivliteApp, "run", lambda self, *a, **k: apps.append(self))
    monkeypatch.setattr(ReplayApp, "run", lambda self, *a, **k: apps.append(self))
    return apps


def test_play_with_seats_starts_a_game(launched: list[Any], tmp_path: Path) -> None:
    rules = tmp_path / "short.toml"
    rules.write_text("victory_ct = 8\n", encoding="utf-8")
    save = tmp_path / "g.json"
    result = runner.invoke(app, ["play", "--seats", "Ann,heuristic,random", "--rules", str(rules),
                                 "--seed", "5", "--delay", "0.2", "--save", str(save)])
    assert result.exit_code == 0, result.output
    (a,) = launched
    assert isinstance(a, CivliteApp) and a.session is not None and a.delay == 0.2
    assert a.session.game.rules.victory_ct == 8 and a.session.game.seed == 5
    assert [s.kind for s in a.session.seats] == ["human", "heuristic", "random"]
    assert a.session.save_path == save


def test_play_without_seats_opens_the_setup(launched: list[Any]) -> None:
    result = runner.invoke(app, ["play"])
    assert result.exit_code == 0, result.output
    assert launched[0].session is None


def test_play_errors(launched: list[Any], tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", "--seats", ",".join(["random"] * 9)])
    assert result.exit_code == 2 and "9 players" in result.output
    result = runner.invoke(app, ["play", "--resume", str(tmp_path / "none.json")])
    assert result.exit_code == 2 and "cannot read" in result.output
    bad = tmp_path / "bad.toml"
    bad.write_text("victory = 3\n", encoding="utf-8")
    result = runner.invoke(app, ["play", "--rules", str(bad)])
    assert result.exit_code == 2 and "unknown key 'victory'" in result.output
    assert not launched


def test_play_resumes_and_replay_opens(launched: list[Any], tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    s = Session.new([SeatSpec("human", "ann"), SeatSpec("random")], seed=1)
    s.apply(s.game.legal_actions()[0])
    s.save(path)
    assert runner.invoke(app, ["play", "--resume", str(path)]).exit_code == 0
    assert launched[0].session.game.actions == s.game.actions
    assert runner.invoke(app, ["replay", str(path)]).exit_code == 0
    assert isinstance(launched[1], ReplayApp) and launched[1].replay.last == 1
    not_a_record = tmp_path / "x.json"
    not_a_record.write_text("{}", encoding="utf-8")
    result = runner.invoke(app, ["replay", str(not_a_record)])
    assert result.exit_code == 2 and "not a civlite record" in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["--seats", "human,ismcts:foo=1"], "ismcts has no option 'foo'"),
    (["--seats", "human,heuristc"], "did you mean 'heuristic'?"),
    (["--seats", "human,heuristic", "--delay", "-1"], "--delay"),
    (["--seats", "human,heuristic", "--delay", "inf"], "--delay: the bot delay must be between 0 and 60 seconds"),
    (["--seats", "human,heuristic", "--delay", "1e9"], "between 0 and 60 seconds, not 1e+09"),
    (["--seats", "human,heuristic", "--delay", "nan"], "between 0 and 60 seconds, not nan"),
    (["--seats", "human,heuristic", "--delay", "60.5"], "between 0 and 60 seconds"),
    (["--seats", "Ann,Ann"], "seats 0 and 1 are both called 'Ann'"),
    (["--seats", "Ann,heuristic,ann"], "seats 0 and 2 are both called 'ann'"),
    (["--seats", "human,random", "--save", "/proc/nope/x.json"], "cannot save the game to /proc/nope/x.json"),
    (["--save", "/proc/nope/x.json"], "cannot save the game to /proc/nope/x.json"),
    (["--continue"], "no unfinished game is saved"),
])
def test_play_refuses_a_bad_setup_before_it_starts(launched: list[Any], args: list[str], message: str) -> None:
    result = runner.invoke(app, ["play", *args])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split()), result.output
    assert "Traceback" not in result.output and not launched


def test_play_continues_the_last_unfinished_game(launched: list[Any], save_dir: Path) -> None:
    s = Session.new([SeatSpec("human", "ann"), SeatSpec("random")], seed=1)
    s.apply(s.game.legal_actions()[0])
    s.save(save_dir / "civlite-20260101-000000.json")
    result = runner.invoke(app, ["play", "--continue"])
    assert result.exit_code == 0, result.output
    (a,) = launched
    assert a.session.game.actions == s.game.actions
    assert a.session.save_path == save_dir / "civlite-20260101-000000.json"  # it saves back there


def test_a_crashed_app_exits_non_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(self: CivliteApp, *a: Any, **k: Any) -> None:
        self._return_code = 1

    monkeypatch.setattr(CivliteApp, "run", crash)
    result = runner.invoke(app, ["play", "--seats", "human,random"])
    assert result.exit_code == 1


def test_continue_names_the_saves_it_skips_and_why(launched: list[Any], save_dir: Path) -> None:
    begun = Session.new([SeatSpec("human", "ann"), SeatSpec("random")], seed=1)
    begun.apply(begun.game.legal_actions()[0])
    begun.save(save_dir / "civlite-20260101-000000.json")
    (save_dir / "civlite-20260102-000000.json").write_text("{", encoding="utf-8")  # corrupt
    Session.new([SeatSpec("human", "ann"), SeatSpec("random")], seed=2).save(save_dir / "civlite-20260103-000000.json")
    for age, day in enumerate(["01", "02", "03"]):
        os.utime(save_dir / f"civlite-202601{day}-000000.json", (1_000_000 + age, 1_000_000 + age))
    result = runner.invoke(app, ["play", "--continue"])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "--continue skipped civlite-20260103-000000.json: quit before any player moved" in out
    assert "--continue skipped civlite-20260102-000000.json: cannot be read (" in out
    (a,) = launched
    assert a.session.save_path == save_dir / "civlite-20260101-000000.json"
    assert any("20260102" in n for n in a.session.notices)  # said again at the table
