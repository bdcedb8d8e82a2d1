"""civlite balance: fairness at every skill level (self-play per level, mixed tables, a chart),
and bad arguments of any command as one-line errors."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from civlite.cli import app
from civlite.sim.balance import level_figures, mixed_figures, slug
from civlite.sim.charts import PALETTE16, int_bins


def _run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, list(args))


def _line(winner: int | None, turns: int, bots: list[str], acts: list[list[str]]) -> dict[str, object]:
    return {"bots": bots, "stats": {"winner": winner, "turns": turns, "melds": [], "abilities": acts}}


def test_level_and_mixed_figures() -> None:
    lines = [_line(0, 30, ["a", "a"], [["Growth"], []]), _line(0, 31, ["a", "a"], [[], ["Growth", "Growth"]]),
             _line(1, 33, ["a", "a"], [[], []]), _line(None, 500, ["a", "a"], [[], []])]
    f = level_figures(lines, 2, ["Growth", "Raid"])
    assert (f["games"], f["decided"], f["draws"]) == (4, 3, 1)
    assert f["seats"][0]["wins"] == 2 and f["edge"]["points"] == pytest.approx(100 * (2 / 3 - 0.5))
    assert f["length"]["turns_p50"] == 32 and f["length"]["rounds_p50"] == 16
    assert f["abilities"]["Growth"]["per_game"] == 0.75 and f["abilities"]["Raid"]["per_game"] == 0
    mixed = [_line(0, 30, ["s", "w", "w"], [[], [], []]), _line(2, 30, ["w", "w", "s"], [[], [], []]),
             _line(0, 30, ["w", "s", "w"], [[], [], []])]
    m = mixed_figures(mixed, "s", 3)
    assert (m["wins"], m["games"]) == (2, 3)
    assert [(s["games"], s["wins"]) for s in m["by_seat"]] == [(1, 1), (1, 0), (1, 1)]
    assert slug("ismcts:iterations=200,depth=4") == "ismcts-iterations-200-depth-4" and len(set(PALETTE16)) == 16


def test_whole_number_bins() -> None:
    assert int_bins([27, 27, 28, 30]) == [26.5, 27.5, 28.5, 29.5, 30.5]  # one bar per whole number
    wide = int_bins(list(range(10, 250)), most=60)  # 240 numbers: 4 to a bar, edges between whole numbers
    assert wide[0] == 9.5 and all(b - a == 4 for a, b in pairwise(wide)) and wide[-1] >= 249.5
    assert int_bins([]) == [-0.5, 0.5]


def test_balance_command_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "bal"
    r = _run("balance", "--skills", "random,heuristic", "--games", "4", "--workers", "1", "--out", str(out))
    assert r.exit_code == 0, r.output
    assert "## Self-play" in r.stdout and "| random |" in r.stdout and "| heuristic | random ×1 |" in r.stdout
    doc = json.loads((out / "balance.json").read_text())
    assert [lv["bot"] for lv in doc["levels"]] == ["random", "heuristic"]
    assert doc["mixed"][0]["strong"] == "heuristic" and sum(s["games"] for s in doc["mixed"][0]["by_seat"]) == 4
    for name in ("balance.html", "balance.md", "skills.png", "self-random/summary.json",
                 "mixed-heuristic-vs-random/games.jsonl"):
        assert (out / name).exists(), name
    assert "data:image/png;base64," in (out / "balance.html").read_text()
    again = _run("balance", "--skills", "random", "--games", "2", "--out", str(out))
    assert again.exit_code == 2 and "already holds files" in again.stderr


@pytest.mark.parametrize(("args", "words"), [
    (["balance", "--skills", "heuristic,heuristic"], "a level is named twice"),
    (["balance", "--skills", "nobot"], "nobot"),
    (["balance", "--seed", "abc"], "--seed must be a whole number, got 'abc' (see civlite balance --help)"),
    (["sim", "--seed", "abc"], "--seed must be a whole number, got 'abc' (see civlite sim --help)"),
    (["sim", "--seed=1.5"], "--seed must be a whole number, got '1.5'"),
    (["sweep", "--games", "x", "--param", "victory_ct=10"], "--games must be a whole number, got 'x'"),
    (["compare", "--edge", "much", "a", "b"], "--edge must be a number, got 'much'"),
    (["sim", "--sed", "3"], "No such option: --sed"),
    (["report"], "Missing argument"),
    (["sim", "--games"], "Option '--games' requires an argument. (see civlite sim --help)"),
])
def test_bad_arguments_are_one_line_errors(tmp_path: Path, args: list[str], words: str) -> None:
    r = _run(args[0], "--out", str(tmp_path / "never"), *args[1:]) if args[0] != "compare" else _run(*args)
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and words in lines[0], r.stderr
    assert not (tmp_path / "never").exists()


def test_a_level_that_plays_like_another_is_named(tmp_path: Path) -> None:
    from civlite.engine import RuleSet
    from civlite.sim.balance import balance, tables_md

    doc = balance(["heuristic", "policy"], 3, 3, 1, RuleSet.default(), tmp_path, workers=1, mixed=False)
    assert [lv["same_games_as"] for lv in doc["levels"]] == [None, "heuristic"]  # policy is a 2-player network
    assert "policy played exactly the games of heuristic" in tables_md(doc) and doc["mixed"] == []


def test_the_balance_matrix_on_a_small_run(tmp_path: Path) -> None:
    out = tmp_path / "matrix"
    r = _run("balance", "--players", "2,3", "--skills", "random,heuristic", "--games", "12", "--workers", "1",
             "--edge", "40", "--out", str(out))
    assert r.exit_code == 0, r.output
    doc = json.loads((out / "matrix.json").read_text())
    assert doc["players"] == [2, 3] and doc["skills"] == ["random", "heuristic"]
    assert [(c["players"], c["bot"]) for c in doc["cells"]] == [(2, "random"), (2, "heuristic"), (3, "random"),
                                                                (3, "heuristic")]
    for c in doc["cells"]:
        assert len(c["seats"]) == c["players"] and c["verdict"] in ("fair", "open", "unfair")
        assert c["shape"]["games"] == 12 and "lead_changes" in c["shape"]
    assert [(d["players"], d["strong"], d["weak"]) for d in doc["depth"]] == [(2, "heuristic", "random"),
                                                                              (3, "heuristic", "random")]
    assert "## Verdicts" in r.stdout and "## 3 players (fair share 33.3%)" in r.stdout and "## Skill depth" in r.stdout
    for name in ("matrix.md", "matrix.html", "matrix.png", "p2/balance.json", "p3/self-heuristic/games.jsonl"):
        assert (out / name).exists(), name
    again = _run("balance", "--players", "2,3", "--skills", "random,heuristic", "--games", "12", "--workers", "1",
                 "--edge", "40", "--out", str(out), "--resume")
    assert again.exit_code == 0 and json.loads((out / "matrix.json").read_text())["cells"] == doc["cells"]
    cmp = _run("compare", str(out), str(out / "p3"), "--out", str(tmp_path / "cmp"))  # the matrix against one count
    assert cmp.exit_code == 0, cmp.output
    assert "| 3 | heuristic | 2 |" in cmp.stdout and "\n| 2 |" not in cmp.stdout
    res = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert len(res["rows"]) == 6 and all(r["diff"] == 0 for r in res["rows"]) and res["only_a"]


def test_verdicts() -> None:
    from civlite.sim.matrix import verdict

    def seat(lo: float, hi: float) -> dict[str, object]:
        return {"ci95": [lo, hi]}

    assert verdict([seat(0.49, 0.51), seat(0.49, 0.51)], 2, 1.5) == "fair"
    assert verdict([seat(0.52, 0.54), seat(0.46, 0.48)], 2, 1.5) == "unfair"
    assert verdict([seat(0.50, 0.53), seat(0.47, 0.50)], 2, 1.5) == "open"


def test_sweep_over_player_counts(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    r = _run("sweep", "--param", "players=2,3", "--bots", "heuristic", "--games", "4", "--workers", "1",
             "--out", str(out), "--json")
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    assert res["players"] == [2, 3] and [p["players"] for p in res["points"]] == [2, 3]
    assert [round(p["fair_share"], 3) for p in res["points"]] == [0.5, 0.333]
    assert (out / "players=3" / "summary.json").exists() and (out / "sweep.png").exists()
    bad = _run("sweep", "--param", "players=2,9", "--out", str(tmp_path / "bad"))
    assert bad.exit_code == 2 and "2 to 8" in bad.stderr


def test_a_histogram_title_says_what_a_bar_holds() -> None:
    from civlite.sim.charts import data_limits
    from civlite.sim.report import _bar_width

    assert _bar_width(int_bins([20, 40, 79])) == "turn (one bar each)"  # 60 numbers: one a bar
    assert _bar_width(int_bins([20, 40, 80])) == "2 turns (one bar each)"  # 61: two a bar, and the title says so
    lo, hi = data_limits([12.5, 22.0], include=[16.7])
    assert 11 < lo < 12.5 and 22 < hi < 23.5  # the axis follows the data, not 0-100
