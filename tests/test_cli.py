"""The command line: clear errors and exit status on bad input, never a traceback."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import civlite_command


def civlite(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*civlite_command(), *args], capture_output=True, text=True, timeout=120)


GOOD_STATE = {"active": 0, "phase": "action", "players": [{"hand": ["Sphinx"], "ct": 0}, {"hand": [], "ct": 0}],
              "deck": [], "discard": []}


@pytest.mark.parametrize(("content", "needle"), [
    ("{not json", "not valid JSON"),
    ("[]", "a scenario is a JSON object"),
    (json.dumps({"actions": []}), "no 'state'"),
    (json.dumps({"state": {**GOOD_STATE, "players": [{"hand": ["Napoleon"], "ct": 0}, {"hand": [], "ct": 0}]}}),
     "unknown card 'Napoleon'"),
    (json.dumps({"state": GOOD_STATE, "actions": [{"do": "fly"}]}), "actions[0]"),
    (json.dumps({"state": GOOD_STATE, "actions": [{"do": "basic", "cards": ["Zeus"]}]}), "unknown card 'Zeus'"),
    (json.dumps({"state": GOOD_STATE, "rules": {"victory": 3}}), "unknown name 'victory'"),
    (json.dumps({"state": GOOD_STATE, "rules": {"victory_ct": "x"}}), "victory_ct"),
    (json.dumps({"state": {**GOOD_STATE, "active": 5}}), "state.active"),
    ("\xff\xfe", "cannot read"),
])
def test_invalid_scenarios_exit_2_with_reason(tmp_path: Path, content: str, needle: str) -> None:
    f = tmp_path / "s.json"
    f.write_text(content, encoding="latin-1")
    run = civlite("scenario", str(f))
    assert run.returncode == 2, run.stdout + run.stderr
    assert needle in run.stderr and "Traceback" not in run.stderr
    assert run.stdout == ""


def test_missing_scenario_file() -> None:
    run = civlite("scenario", "/nonexistent/s.json")
    assert run.returncode == 2 and "cannot read" in run.stderr and "Traceback" not in run.stderr


def test_scenario_result_shape(tmp_path: Path) -> None:
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"state": GOOD_STATE, "actions": [{"do": "basic", "cards": ["Sphinx"]},
                                                             {"do": "basic", "cards": ["Sphinx"]}]}))
    run = civlite("scenario", str(f))
    assert run.returncode == 0
    result = json.loads(run.stdout)
    assert result["applied"] == 1 and result["error"]["index"] == 1 and "R9" in result["error"]["message"]
    assert set(result["state"]) >= {"active", "phase", "turn", "extra_turn", "players", "deck", "discard",
                                    "pending", "over", "winner"}
    assert [v["seat"] for v in result["views"]] == [0, 1]


def test_broken_rule_file(tmp_path: Path) -> None:
    f = tmp_path / "r.toml"
    f.write_text("[advanced.M]\neffects = ['steal_all 3']\n")
    for args in (("rules", str(f)), ("demo", "--rules", str(f))):
        run = civlite(*args)
        assert run.returncode == 2 and "unknown effect 'steal_all'" in run.stderr
        assert "Traceback" not in run.stderr


def test_demo_prints_a_game_citing_rules() -> None:
    run = civlite("demo", "--players", "3", "--seed", "4")
    assert run.returncode == 0, run.stderr
    assert "R4.1" in run.stdout and ("wins" in run.stdout or "draw" in run.stdout)
    lines = run.stdout.splitlines()
    assert all(line.startswith(f"seat {p} was dealt ") for p, line in enumerate(lines[1:4]))  # the deal
    head = lines[4:6]  # then the log opens with the first turn and its Rise
    assert "turn 1 · seat 0" in head[0] and head[1].startswith("R4.1 seat 0 drew 2 cards")
    again = civlite("demo", "--players", "3", "--seed", "4")
    assert again.stdout == run.stdout


def test_rules_prints_editable_toml(tmp_path: Path) -> None:
    run = civlite("rules")
    assert run.returncode == 0 and "[advanced.M]" in run.stdout
    f = tmp_path / "x.toml"
    f.write_text(run.stdout)
    assert civlite("rules", str(f)).returncode == 0


def test_rules_takes_a_built_in_rule_set_by_name() -> None:
    run = civlite("rules", "balanced")
    assert run.returncode == 0 and 'name = "balanced"' in run.stdout
    assert "first_rise_draw = { default = [2, 3], 4 = [2, 2, 3, 4], 5 = [2, 2, 3, 3, 4], 6 = [2, 2, 3, 3, 4, 4] }" in run.stdout
    bad = civlite("rules", "balancd")
    assert bad.returncode == 2 and "did you mean 'balanced'?" in bad.stderr and "Traceback" not in bad.stderr


def test_serve_passes_the_abandoned_table_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    import civlite.server.run
    from civlite.cli import app

    seen: dict[str, object] = {}
    monkeypatch.setattr(civlite.server.run, "serve", lambda *a, **kw: seen.update(kw))
    r = CliRunner().invoke(app, ["serve", "--abandoned-seconds", "60", "--close-seconds", "0"])
    assert r.exit_code == 0, r.output
    assert seen["abandoned_seconds"] == 60 and seen["close_seconds"] == 0
