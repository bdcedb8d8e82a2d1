"""benchmarks/reference_ladder.py: a fit of the games recorded never plays one (a run may
still be writing the file)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import ROOT, load_script

sys.path.insert(0, str(ROOT / "benchmarks"))  # the script imports its neighbours
RL = load_script(ROOT / "benchmarks" / "reference_ladder.py")


def _write(out: Path, ref: str, games: dict[int, float], seed: int = 100) -> None:
    path = out / "games" / f"{RL.slug(ref, 'hard')}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"game": i, "seed": seed + i, "seat": i % 2, "score": s, "seconds": 1.0})
                            + "\n" for i, s in games.items()))


def test_a_fit_counts_the_games_recorded_whichever_they_are(tmp_path: Path) -> None:
    _write(tmp_path, "hands-br-5", {0: 1.0, 1: 0.0, 3: 1.0, 6: 0.5})  # two parts still writing: gaps
    pair = RL.recorded_pair("hands-br-5", "hard", 100, tmp_path)
    assert (pair.games, pair.wins_a, pair.wins_b, pair.draws) == (4, 2, 1, 1)
    assert RL.recorded_pair("hands-br-7", "hard", 100, tmp_path) is None


def test_fit_only_plays_no_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, "hands-br-5", {0: 1.0, 1: 0.0, 3: 1.0})

    def refuse(*args: object, **kw: object) -> float:
        raise AssertionError("--fit-only played a game")

    monkeypatch.setattr(RL, "play", refuse)
    monkeypatch.setattr(sys, "argv", ["reference_ladder.py", "--fit-only", "--seed", "100", "--games", "400",
                                      "--references", "hands-br-5", "--out", str(tmp_path)])
    assert RL.main() == 0
    res = json.loads((tmp_path / "ladder.json").read_text())
    ref = [p for p in res["pairs"] if p["a"] == "hands-br-5"]
    assert ref == [{"a": "hands-br-5", "b": "hard", "games": 3, "wins_a": 2, "wins_b": 1, "draws": 0, "seconds": 3.0}]
    assert "hands-br-5" in {r["bot"] for r in res["ratings"]}
    lines = (tmp_path / "games" / f"{RL.slug('hands-br-5', 'hard')}.jsonl").read_text().splitlines()
    assert len(lines) == 3
