"""Smoke tests of the example and the benchmark (tiny budgets; numbers come from running them)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("gymnasium")
ROOT = Path(__file__).resolve().parents[2]


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_training_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    mod = _load(ROOT / "examples" / "train_policy_gradient.py")
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
    mod = _load(ROOT / "benchmarks" / "vs_openspiel.py")
    r = mod.play_one((1, 2, 0.002, 4, 0))
    assert r["civ_return"] in (-1.0, 0.0, 1.0) and r["civ_seat"] == 1
    lo, hi = mod.wilson(120, 200)
    assert lo < 0.6 < hi
