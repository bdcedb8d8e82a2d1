"""Ablation (each ability off or dearer, against the unchanged rules) and rule paths for sweeps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from civlite.cli import app
from civlite.engine import RuleSet, RuleSetError, Suit
from civlite.sim.ablate import ablate, ablated, chart_data
from civlite.sim.paths import get_path, parse_value, set_path, split_values
from civlite.sim.simulator import SimConfig, banned_ids, play_game
from civlite.sim.stats import adjust, paired_binary, paired_t


def test_ablated_rule_sets(tmp_path: Path) -> None:
    r = RuleSet.default()
    off = ablated(r, "advanced", "M", "off")
    assert "Conquest" not in [a.name for a in off.abilities] and len(off.abilities) == len(r.abilities) - 1
    (tmp_path / "off.toml").write_text(off.to_toml())
    assert RuleSet.from_toml(tmp_path / "off.toml") == off  # playable as written
    dearer = ablated(r, "basic", "W", "dearer")
    assert get_path(dearer, "basic.W.cards") == get_path(r, "basic.W.cards") + 1


def test_ablation_measures_each_ability_against_the_default() -> None:
    res = ablate(RuleSet.default(), ("heuristic", "random"), 2, 6, seed=2, only=["Conquest", "basic.W"])
    assert [r["ability"] for r in res["rows"]] == ["Greatness", "Conquest"]
    assert res["paired"] and res["correction"] == "holm"
    for row in res["rows"]:
        assert row["uses_per_game"]["changed"] == 0  # removed: never played
        lo, hi = row["seat0"]["ci95"]
        assert -1 <= lo <= row["seat0"]["diff"] <= hi <= 1
        assert row["seat0"]["p"] <= row["seat0"]["p_adj"] <= 1
        lo, hi = row["length"]["ci95"]
        assert lo <= row["length"]["diff"] <= hi
        assert set(row["bots"]) == {"heuristic", "random"}
    panels = chart_data(res)
    assert [p["key"] for p in panels] == ["seat0", "length"]
    assert {r["ability"] for r in panels[0]["rows"]} == {"Greatness", "Conquest"}


def test_paired_statistics() -> None:
    # the same 10 games: 3 turn from a loss into a win, 1 the other way
    x = [0, 0, 0, 1, 1, 0, 1, 0, 1, 0]
    y = [1, 1, 1, 0, 1, 0, 1, 0, 1, 0]
    d, lo, hi, p = paired_binary(x, y)
    assert d == pytest.approx(0.2) and lo < d < hi
    from statsmodels.stats.contingency_tables import mcnemar

    assert p == pytest.approx(mcnemar([[0, 1], [3, 0]], exact=True).pvalue)
    import numpy as np

    diffs = np.array(y) - np.array(x)
    se = diffs.std(ddof=1) / np.sqrt(10)
    from scipy import stats as st

    t = st.t.ppf(0.975, 9)
    assert (lo, hi) == pytest.approx((0.2 - t * se, 0.2 + t * se))  # the paired SE, not two samples'
    assert paired_binary(x, x)[3] == 1.0
    a, b = [30.0, 31, 29, 35], [31.0, 33, 30, 36]
    d, lo, hi, p = paired_t(a, b)
    assert d == pytest.approx(1.25) and p == pytest.approx(st.ttest_rel(b, a).pvalue) and lo < 1.25 < hi
    reject, padj = adjust([0.01, 0.04, 0.03], "holm")
    assert padj == pytest.approx([0.03, 0.06, 0.06]) and reject == [True, False, False]


def test_a_restricted_seat_never_uses_the_ability() -> None:
    rules = RuleSet.default()
    assert len(banned_ids(rules, "basic.A")) == 8
    for kind in ("only", "denied"):
        cfg = SimConfig(bots=("heuristic",), players=2, games=6, seed=4, rules=rules, restrict=("basic.A", kind))
        assert SimConfig.from_json(cfg.to_json()) == cfg
        for i in range(6):
            st = play_game(cfg, i)["stats"]
            assert st["focus"] == i % 2
            for seat, acts in enumerate(st["abilities"]):
                allowed = (seat == st["focus"]) == (kind == "only")
                if not allowed:
                    assert "Culture" not in acts
    free = [play_game(SimConfig(bots=("heuristic",), players=2, games=6, seed=4), i)["stats"] for i in range(6)]
    assert any("Culture" in acts for st in free for acts in st["abilities"])  # the test can fail
    with pytest.raises(ValueError, match="no ability"):
        SimConfig(bots=("heuristic",), rules=ablated(rules, "basic", "A", "off"), restrict=("basic.A", "only"))
    with pytest.raises(ValueError, match="ability path"):
        SimConfig(bots=("heuristic",), restrict=("victory_ct", "only"))


def test_ability_strength() -> None:
    res = ablate(RuleSet.default(), ("heuristic",), 2, 8, seed=2, mode="strength", only=["Culture", "Greatness"])
    assert res["mode"] == "strength" and [r["ability"] for r in res["rows"]] == ["Greatness", "Culture"]
    for r in res["rows"]:
        assert r["swing"]["diff"] == pytest.approx(r["only"]["win_rate"] - r["denied"]["win_rate"])
        assert r["swing"]["ci95"][0] <= r["swing"]["diff"] <= r["swing"]["ci95"][1]
        assert "p_adj" in r["swing"] and r["fair_share"] == 0.5
    assert [p["key"] for p in chart_data(res)] == ["swing"]
    with pytest.raises(ValueError, match="no ability"):
        ablate(RuleSet.default(), ("heuristic",), 2, 2, only=["Nonesuch"])


def test_ablate_command(tmp_path: Path) -> None:
    r = CliRunner().invoke(app, ["ablate", "--games", "4", "--workers", "1", "--only", "Golden Age",
                                 "--mode", "dearer", "--out", str(tmp_path / "ab"), "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    assert res["mode"] == "dearer" and res["rows"][0]["ability"] == "Golden Age"
    html = (tmp_path / "ab" / "ablation.html").read_text()
    assert "Golden Age" in html and "Bots: <b>heuristic</b>" in html and "data:image/png" in html
    assert (tmp_path / "ab" / "ablation.png").stat().st_size > 0 and "Holm" in html
    r = CliRunner().invoke(app, ["ablate", "--games", "2", "--workers", "1", "--only", "Growth", "--mode", "strength",
                                 "--correction", "fdr_bh", "--out", str(tmp_path / "st")])
    assert r.exit_code == 0, r.output
    assert "ability strength" in r.stdout and "Growth" in r.stdout
    for args, words in ((["--mode", "cheaper"], "--mode"), (["--only", "Nonesuch"], "no ability"),
                        (["--correction", "bonferroni"], "--correction"),
                        (["--players", "1"], "--players")):
        bad = CliRunner().invoke(app, ["ablate", "--games", "2", "--workers", "1", *args,
                                       "--out", str(tmp_path / "bad")])
        assert bad.exit_code == 2 and words in bad.stderr and "Traceback" not in bad.output


def test_rule_paths() -> None:
    r = RuleSet.default()
    assert get_path(set_path(r, "basic.W.cards", 2), "basic.W.cards") == 2
    assert get_path(set_path(r, "advanced.M.effects", "steal_cards 3"), "advanced.M.effects") == ["steal_cards 3"]
    assert set_path(r, "start_ct", [0, 1]).per_seat("start_ct", 2) == (0, 1)
    four = set_path(set_path(r, "start_ct", [0, 1]), "start_ct.4", [0, 1, 1, 2])
    assert four.per_seat("start_ct", 4) == (0, 1, 1, 2) and four.per_seat("start_ct", 2) == (0, 1)
    assert set_path(r, "meld.one_of", ["X"]).to_dict()["meld"]["one_of"] == ["X"]
    assert get_path(set_path(r, "basic.D", False), "basic.D") is False
    assert set_path(r, "victory_ct", 15).victory_ct == 15
    # a suit's cards in the deck (R10 [deck]): a count or names; a suit not named keeps its own
    assert get_path(r, "deck.D") == 8 and get_path(r, "deck.Military") == 16
    twelve = set_path(set_path(r, "deck.D", 12), "deck.X", ["Tribute", "Boon 9"])
    assert twelve.suit_sizes[Suit.DISASTER] == 12 and get_path(twelve, "deck.D") == 12
    assert get_path(twelve, "deck.X") == ["Tribute", "Boon 9"] and twelve.name.endswith('deck.X=["Tribute","Boon 9"]')
    for path, value, words in (("deck.D", 40, "deck.D: a suit holds 0 to 32 cards, got 40"), ("deck.Q", 3, "deck.Q"),
                               ("deck", 3, "expected deck.<suit letter>"),
                               ("deck.D", ["Greeks"], "'Greeks' is not a Disaster card")):
        with pytest.raises(RuleSetError, match=words):
            set_path(r, path, value)
    for path, value, words in (("nothing", 1, "unknown key"), ("basic.W.cost", 1, "not 'cost'"),
                               ("basic.Q.cards", 1, "basic.Q"), ("victory_ct", "x", "whole number"),
                               ("basic.W.cards", 0, ">= 1"), ("victory_ct.x", 1, "no parts"),
                               ("advanced.M.effects", "fly 3", "unknown effect"), ("", 1, "empty")):
        with pytest.raises(RuleSetError, match=words):
            set_path(r, path, value)
    assert split_values("[0,1],[0,2]") == ["[0,1]", "[0,2]"]
    assert split_values("steal_cards 3|steal_cards 4") == ["steal_cards 3", "steal_cards 4"]
    assert [parse_value(v) for v in split_values("1,false,draw 2")] == [1, False, "draw 2"]


def test_sweep_params_over_rule_paths() -> None:
    from civlite.sim.sweep import parse_param, run_name

    assert parse_param("basic.W.cards=1,2") == ("basic.W.cards", [1, 2])
    assert parse_param("start_ct=[0,0],[0,1]") == ("start_ct", [[0, 0], [0, 1]])
    assert parse_param("advanced.M.effects=steal_cards 3|steal_cards 4") == (
        "advanced.M.effects", ["steal_cards 3", "steal_cards 4"])
    assert parse_param("victory_ct=12..16:2") == ("victory_ct", [12, 14, 16])
    assert run_name("advanced.M.effects", "steal_cards 3") == "advanced.M.effects=steal_cards_3"
    with pytest.raises(ValueError, match=r"LO\.\.HI"):
        parse_param("victory_ct=20..12")


def test_sweep_command_over_a_rule_path(tmp_path: Path) -> None:
    r = CliRunner().invoke(app, ["sweep", "--param", "basic.W.cards=1,2", "--games", "2", "--workers", "1",
                                 "--out", str(tmp_path / "sw"), "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert res["values"] == [1, 2] and (tmp_path / "sw" / "basic.W.cards=2" / "summary.json").exists()
    summary = json.loads((tmp_path / "sw" / "basic.W.cards=2" / "summary.json").read_text())
    assert summary["rules"]["basic"]["W"]["cards"] == 2
    r = CliRunner().invoke(app, ["sweep", "--param", "advanced.M.effects=steal_cards 2|steal_cards 3", "--games", "2",
                                 "--workers", "1", "--out", str(tmp_path / "eff")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "eff" / "sweep.html").exists()
    # the deck as data: a sweep over a suit's size
    r = CliRunner().invoke(app, ["sweep", "--param", "deck.D=4,12", "--games", "2", "--workers", "1",
                                 "--out", str(tmp_path / "deck"), "--json"])
    assert r.exit_code == 0, r.output
    summary = json.loads((tmp_path / "deck" / "deck.D=12" / "summary.json").read_text())
    assert summary["rules"]["deck"] == {"D": 12} and summary["games"] == 2
    for param, words in (("basic.W.cost=1,2", "not 'cost'"), ("deck.D=40", "a suit holds 0 to 32 cards"), ("nothing=1", "unknown key"),
                         ("basic.W.cards=0,1", ">= 1"), ("victory_ct", "expected PATH")):
        bad = CliRunner().invoke(app, ["sweep", "--param", param, "--games", "2", "--out", str(tmp_path / "bad")])
        assert bad.exit_code == 2 and words in bad.stderr and "Traceback" not in bad.output
        assert not (tmp_path / "bad").exists()
