"""Statistics by statsmodels/scipy: intervals, multiple-test correction, power, compare's charts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from civlite.cli import app
from civlite.engine import RuleSet
from civlite.sim import SimConfig, simulate
from civlite.sim.compare import PlayerCountError, compare_lines, compare_runs, correct, write_compare
from civlite.sim.stats import adjust, binomial_test, diff_ci, games_to_detect, mean_diff_ci, welch, wilson


def test_intervals_and_tests_match_textbook_values() -> None:
    p, lo, hi = wilson(546, 1000)
    assert p == 0.546 and 0.515 < lo < 0.516 and 0.576 < hi < 0.577
    assert binomial_test(546, 1000, 0.5) < 0.01 < binomial_test(520, 1000, 0.5)
    d, lo, hi = diff_ci(50, 100, 60, 100)
    assert abs(d - 0.1) < 1e-9 and lo < 0 < hi < 0.25
    d, lo, hi, pv = mean_diff_ci([1.0, 2, 3, 4], [11.0, 12, 13, 14])
    assert d == 10 and 7.76 < lo < 7.77 and 12.23 < hi < 12.24 and pv < 0.001  # t(6) = 2.447, se 0.913
    _t, pv = welch([1.0, 2, 3], [1.0, 2, 3])
    assert pv > 0.99


def test_multiple_test_correction() -> None:
    reject, padj = adjust([0.01, 0.02, 0.04, 0.5], "holm")
    assert reject == [True, False, False, False] and padj[0] == pytest.approx(0.04)
    reject_bh, _ = adjust([0.01, 0.02, 0.03, 0.5], "fdr_bh")
    assert reject_bh == [True, True, True, False]
    rows = [{"p": p} for p in (0.001, 0.03, 0.04)]
    correct(rows, "holm")
    assert [r["significant"] for r in rows] == [True, False, False] and rows[1]["significant_raw"]
    with pytest.raises(ValueError, match="correction"):
        correct(rows, "bonferroni-ish")


def test_power_analysis() -> None:
    assert 4800 < games_to_detect(2) < 5000  # (1.96 + 0.84)² · 0.25 / 0.02²
    assert games_to_detect(2, two_runs=True) > 1.9 * games_to_detect(2)
    assert games_to_detect(1, 0.25) > games_to_detect(2, 0.25)


def _fake(n: int, seat0: int, turns: int) -> list[dict[str, object]]:
    return [{"bots": ["heuristic", "heuristic"],
             "stats": {"winner": 0 if i < seat0 else 1, "turns": turns + i % 3, "melds": [], "abilities": [[], []]}}
            for i in range(n)]


def test_compare_corrects_for_the_number_of_metrics() -> None:
    summ = {"players": 2, "bots": ["heuristic", "heuristic"], "abilities": {}, "rules": {"name": "x"}}
    res = compare_lines(summ, _fake(400, 200, 20), summ, _fake(400, 226, 20))  # p ≈ 0.07 raw: seat rows
    seat = next(r for r in res["rows"] if r["metric"] == "win rate: seat 0")
    assert seat["p_adj"] >= seat["p"] and not seat["significant"]
    assert seat["games_to_detect"] and seat["games_to_detect"] > 400
    assert res["power"]["games_one_run"] > 4000 and res["correction"] == "holm"
    longer = compare_lines(summ, _fake(400, 200, 20), summ, _fake(400, 200, 25))
    assert next(r for r in longer["rows"] if r["metric"] == "turns per game")["significant"]


def test_compare_html_has_flags_and_a_chart(tmp_path: Path) -> None:
    simulate(SimConfig(bots=("heuristic",), players=2, games=10, seed=1), out=tmp_path / "a", workers=1)
    rules = RuleSet.default().with_changes(victory_ct=8, name="short")
    simulate(SimConfig(bots=("heuristic",), players=2, games=10, seed=1, rules=rules), out=tmp_path / "b", workers=1)
    res = compare_runs(tmp_path / "a", tmp_path / "b")
    write_compare(res, tmp_path / "c")
    html = (tmp_path / "c" / "compare.html").read_text()
    assert "data:image/png;base64," in html and "corrected p" in html and "Holm" in html
    assert "games to detect" in html and "heuristic" in html
    r = CliRunner().invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json",
                                 "--correction", "fdr_bh", "--edge", "3"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["correction"] == "fdr_bh" and out["power"]["edge_points"] == 3
    assert all("p_adj" in row and "ci95" in row for row in out["rows"])
    bad = CliRunner().invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--correction", "x"])
    assert bad.exit_code == 2 and "--correction" in bad.stderr


def test_compare_refuses_different_player_counts_unless_forced(tmp_path: Path) -> None:
    simulate(SimConfig(bots=("heuristic",), players=2, games=4, seed=1), out=tmp_path / "two", workers=1)
    simulate(SimConfig(bots=("heuristic",), players=3, games=3, seed=1), out=tmp_path / "three", workers=1)
    with pytest.raises(PlayerCountError, match="A has 2 players and B has 3"):
        compare_runs(tmp_path / "two", tmp_path / "three")
    r = CliRunner().invoke(app, ["compare", str(tmp_path / "two"), str(tmp_path / "three")])
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "--force" in r.stderr, r.output
    r = CliRunner().invoke(app, ["compare", str(tmp_path / "two"), str(tmp_path / "three"), "--force",
                                 "--out", str(tmp_path / "c")])
    assert r.exit_code == 0, r.output
    assert "different player counts (A 2, B 3)" in r.stdout
    forced = compare_runs(tmp_path / "two", tmp_path / "three", force=True)
    assert forced["warning"] and (forced["a"]["players"], forced["b"]["players"]) == (2, 3)
    assert "win rate: seat 0 (fair 50% / 33%)" in [row["metric"] for row in forced["rows"]]
    assert "Warning" in (tmp_path / "c" / "compare.html").read_text()
    same = compare_runs(tmp_path / "two", tmp_path / "two")
    assert same["warning"] is None and "win rate: seat 0" in [row["metric"] for row in same["rows"]]


def test_compare_table_reads_at_80_columns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    simulate(SimConfig(bots=("heuristic",), players=2, games=6, seed=1), out=tmp_path / "a", workers=1)
    simulate(SimConfig(bots=("heuristic",), players=2, games=6, seed=2), out=tmp_path / "b", workers=1)
    r = CliRunner().invoke(app, ["compare", str(tmp_path / "a"), str(tmp_path / "b")])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert max(len(ln) for ln in lines) <= 80
    rows = [ln for ln in lines if " uses " in ln or "win rate: seat" in ln]
    assert rows and all("(" in ln and " to " in ln for ln in rows), [ln for ln in rows if " to " not in ln]
