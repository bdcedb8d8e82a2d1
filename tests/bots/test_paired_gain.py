"""benchmarks/paired_gain.py: a budget step's gain, paired by deal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT, load_script

PG = load_script(ROOT / "benchmarks" / "paired_gain.py")


def _write(path: Path, scores: dict[int, float]) -> Path:
    path.write_text("".join(json.dumps({"game": i, "seed": 100 + i, "seat": i % 2, "score": s}) + "\n"
                            for i, s in scores.items()))
    return path


def test_a_step_is_compared_on_the_deals_both_played(tmp_path: Path) -> None:
    a = PG.games(_write(tmp_path / "a.jsonl", {0: 0.0, 1: 1.0, 2: 0.0, 3: 1.0, 4: 0.0}))
    b = PG.games(_write(tmp_path / "b.jsonl", {0: 1.0, 1: 1.0, 2: 1.0, 3: 0.0, 9: 1.0}))
    row = PG.step(a, b)
    assert row["deals"] == 4  # deal 4 and deal 9 were played by one of them only
    assert row["before"] == pytest.approx(0.5) and row["after"] == pytest.approx(0.75)
    assert row["gain"] == pytest.approx(0.25)
    assert (row["won_only_after"], row["won_only_before"]) == (2, 1)
    assert row["interval95"][0] < row["gain"] < row["interval95"][1]
    assert row["mcnemar_p"] == pytest.approx(1.0)


def test_a_broken_record_is_named(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"game": 0, "score": 1.0}\n{"game": 1}\n')
    with pytest.raises(SystemExit, match=r"x.jsonl:2: not a game record"):
        PG.games(path)
    with pytest.raises(SystemExit, match="does not exist"):
        PG.games(tmp_path / "missing.jsonl")
