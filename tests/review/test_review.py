"""Whole-game reviews and ``civlite review``: golden output on a seeded record, the JSON
shape, and bad input refused with one line that names the problem."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from civlite.engine import GameRecord
from civlite.review import MARKS, ReviewError, review_record
from conftest import civlite_command

from .records import DATA, RECORD, seeded_game

#: ``civlite review`` of the seeded record at this budget, for the golden files (regenerate with
#: ``CIVLITE_REGOLD=1`` after a change of the search, the network or the rules)
GOLDEN_ARGS = ("--seat", "1", "--budget", "40", "--seed", "3", "--workers", "1")


def civlite(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1", "TERM": "dumb"}
    return subprocess.run([*civlite_command(), *args], capture_output=True, text=True, timeout=300, env=env)


def golden(name: str, text: str) -> None:
    path = DATA / name
    if os.environ.get("CIVLITE_REGOLD"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_the_seeded_record_is_what_its_seed_plays() -> None:
    assert GameRecord.of(seeded_game()).to_json() == GameRecord.load(RECORD).to_json()


def test_review_json_golden() -> None:
    run = civlite("review", str(RECORD), *GOLDEN_ARGS, "--json")
    assert run.returncode == 0, run.stderr
    golden("review-seat1.json", run.stdout)
    out = json.loads(run.stdout)
    assert set(out) >= {"seat", "decisions", "win"} and out["seat"] == 1
    assert len(out["win"]) == len(out["decisions"]) and all(0 <= w <= 1 for w in out["win"])
    for d in out["decisions"]:
        assert set(d) == {"decision", "turn", "kind", "options", "chosen", "loss", "mark"}
        assert d["loss"] >= 0 and d["mark"] in MARKS and d["options"]
        assert all(set(o) == {"action", "win"} and "do" in o["action"] for o in d["options"])
        assert d["options"][0]["win"] == max(o["win"] for o in d["options"])
        assert "do" in d["chosen"]


def test_review_table_golden() -> None:
    run = civlite("review", str(RECORD), *GOLDEN_ARGS)
    assert run.returncode == 0, run.stderr
    golden("review-seat1.txt", run.stdout)
    assert "Review of bob (seat 1)" in run.stdout and "win: " in run.stdout


def test_the_review_does_not_depend_on_the_workers(record: GameRecord) -> None:
    one = review_record(record, 0, budget=20, seed=4, workers=1)
    two = review_record(record, 0, budget=20, seed=4, workers=2)
    assert one.to_json() == two.to_json()
    seen: list[tuple[int, int]] = []
    review_record(record, 0, budget=5, seed=4, workers=1, progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (0, len(one.decisions)) and seen[-1] == (len(one.decisions), len(one.decisions))


def _unfinished(tmp_path: Path) -> Path:
    data = json.loads(RECORD.read_text())
    data["actions"] = data["actions"][:5]
    data["result"] = {"over": False, "winner": None, "turns": 3}
    f = tmp_path / "unfinished.json"
    f.write_text(json.dumps(data))
    return f


@pytest.mark.parametrize(("case", "needle"), [
    ("unfinished", "not finished"),
    ("seat", "seat 2 is out of range: this game has seats 0 to 1"),
    ("corrupt", "not valid JSON"),
    ("budget", "budget must be a whole number of search iterations from 1 to 50,000"),
    ("missing", "cannot read"),
    ("not a record", "not a civlite record"),
])
def test_bad_input_is_refused_with_one_line(tmp_path: Path, case: str, needle: str) -> None:
    path, args = RECORD, ["--seat", "0"]
    if case == "unfinished":
        path = _unfinished(tmp_path)
    elif case == "seat":
        args = ["--seat", "2"]
    elif case == "corrupt":
        path = tmp_path / "c.json"
        path.write_text(RECORD.read_text()[:200])
    elif case == "budget":
        args += ["--budget", "50001"]
    elif case == "missing":
        path = tmp_path / "none.json"
    else:
        path = tmp_path / "x.json"
        path.write_text("{}")
    before = path.read_bytes() if path.exists() else None
    run = civlite("review", str(path), *args, "--json")
    assert run.returncode == 2, run.stdout + run.stderr
    assert needle in run.stderr and "Traceback" not in run.stderr and run.stdout == ""
    assert (path.read_bytes() if path.exists() else None) == before


def test_a_record_that_does_not_replay_is_refused(record: GameRecord, tmp_path: Path) -> None:
    data = record.to_json()
    data["actions"][1] = {"do": "meld", "cards": ["Greeks"]}
    with pytest.raises(ReviewError, match=r"action 1 .* does not replay"):
        review_record(GameRecord.from_json(data), 0, budget=5, workers=1)
