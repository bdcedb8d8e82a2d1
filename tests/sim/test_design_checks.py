"""Designs that cannot work are warned about (on stderr) by ``civlite rules``, ``sim`` and ``tune``;
the command still runs."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from civlite.cli import app
from civlite.sim.tune import space_from_dict, variant_warnings


def _run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, list(args))


def test_rules_sim_and_tune_warn(tmp_path: Path) -> None:
    f = tmp_path / "short-supply.toml"
    f.write_text("ct_supply = 10\nturn_limit = 40\n[advanced.W]\ncards = 20\n")
    r = _run("rules", str(f))
    assert r.exit_code == 0, r.output
    assert "ct_supply = 10" in r.stdout and "warning" not in r.stdout
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("warning:")]
    assert len(lines) == 2 and "victory_ct 20 cannot be reached" in lines[0] and "only 16 Wonder" in lines[1]
    r = _run("sim", "--bots", "heuristic", "--games", "2", "--workers", "1", "--rules", str(f),
             "--out", str(tmp_path / "run"))
    assert r.exit_code == 0, r.output
    assert "warning: victory_ct 20 cannot be reached" in r.stderr
    assert _run("rules").stderr == ""  # the default rules have nothing to warn about


def test_tune_names_the_variants_that_cannot_work() -> None:
    space = space_from_dict({"tune": {"players": 2, "bots": ["heuristic"], "trials": 4},
                             "param": [{"path": "ct_supply", "choices": [30, 15]},
                                       {"path": "advanced.W.cards", "choices": [3, 17]}]})
    found = dict(variant_warnings(space))
    assert set(found) == {"ct_supply=15, advanced.W.cards=3", "ct_supply=30, advanced.W.cards=17",
                          "ct_supply=15, advanced.W.cards=17"}
    assert len(found["ct_supply=15, advanced.W.cards=17"]) == 2
