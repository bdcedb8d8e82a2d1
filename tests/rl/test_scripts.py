"""Smoke tests of the example and the benchmark (tiny budgets; numbers come from running them)."""

from __future__ import annotations

import pytest

from conftest import ROOT, load_script

pytest.importorskip("gymnasium")


def test_training_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    mod = load_script(ROOT / "examples" / "train_policy_gradient.py")
    assert mod.main(["--episodes", "2", "--eval-every", "2", "--eval-games", "1"]) == 0
    out = capsys.readouterr().out
    assert "episode      2" in out


def test_benchmark_plays_a_game() -> None:
    pytest.importorskip("pyspiel")
    from civlite.bots import make_bot

    try:
        make_bot("ismcts:seconds=0.01", seed=0)
    except ValueError:
        pytest.skip("civlite's ismcts bot is not built yet")
    mod = load_script(ROOT / "benchmarks" / "vs_openspiel.py")
    r = mod.play_one((1, 2, 0.002, 4, 0))
    assert r["civ_return"] in (-1.0, 0.0, 1.0) and r["civ_seat"] == 1
    lo, hi = mod.wilson(120, 200)
    assert lo < 0.6 < hi
