"""The ladder: the rating fit against known answers, the round robin, the field table, the command."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from civlite.cli import app
from civlite.sim.ladder import ELO, PairResult, fit_ratings, play_field, run_ladder

runner = CliRunner()


def _pair(a: str, b: str, wins_a: int, games: int, draws: int = 0) -> PairResult:
    return PairResult(a, b, games, wins_a, games - wins_a - draws, draws, 1.0)


def test_two_bots_fit_is_the_log_odds_and_its_standard_error() -> None:
    # one pair: the maximum-likelihood difference is 400 log10(odds), its variance 1 / (n p (1-p))
    r = {x.bot: x for x in fit_ratings(["a", "b"], [_pair("a", "b", 750, 1000)], anchor="b", prior_draws=0)}
    assert r["b"].elo == 0 and r["b"].se == 0
    assert r["a"].elo == pytest.approx(400 * math.log10(750 / 250), abs=1e-6)
    assert r["a"].se == pytest.approx(ELO / math.sqrt(1000 * 0.75 * 0.25), rel=1e-6)
    assert r["a"].low == pytest.approx(r["a"].elo - 1.959964 * r["a"].se, abs=1e-3)
    assert r["a"].score == 0.75 and r["a"].games == 1000


def test_fit_recovers_ratings_from_expected_scores() -> None:
    true = {"w": 0.0, "x": 120.0, "y": 300.0, "z": 650.0}
    pairs = []
    names = list(true)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            p = 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
            pairs.append(_pair(a, b, round(p * 100_000), 100_000))
    r = {x.bot: x for x in fit_ratings(names, pairs, anchor="w", anchor_rating=1000, prior_draws=0)}
    for n, v in true.items():
        assert r[n].elo == pytest.approx(1000 + v, abs=0.5)


def test_draws_count_half_and_virtual_draws_keep_a_perfect_score_finite() -> None:
    r = {x.bot: x for x in fit_ratings(["a", "b"], [_pair("a", "b", 30, 100, draws=40)], anchor="b", prior_draws=0)}
    assert r["a"].elo == pytest.approx(0.0, abs=1e-6)  # 30 + 40/2 = 50 of 100
    r = {x.bot: x for x in fit_ratings(["a", "b"], [_pair("a", "b", 50, 50)], anchor="b")}
    assert math.isfinite(r["a"].elo) and r["a"].elo > 600 and r["a"].unbounded
    assert not r["b"].unbounded or r["b"].score == 0.0


def test_fit_refuses_what_cannot_be_put_on_one_scale() -> None:
    with pytest.raises(ValueError, match="no chain of games links c, d"):
        fit_ratings(["a", "b", "c", "d"], [_pair("a", "b", 5, 10), _pair("c", "d", 5, 10)])
    with pytest.raises(ValueError, match="anchor 'q' is not among the bots"):
        fit_ratings(["a", "b"], [_pair("a", "b", 5, 10)], anchor="q")
    with pytest.raises(ValueError, match="at least two bots"):
        fit_ratings(["a"], [])


def test_round_robin_plays_every_pair_on_the_same_deals_and_is_reproducible(tmp_path: Path) -> None:
    bots = ["random", "heuristic:mistakes=0.5", "heuristic"]
    a = run_ladder(bots, games=10, seed=3, anchor="heuristic", anchor_rating=1500, out=tmp_path / "a")
    b = run_ladder(bots, games=10, seed=3, anchor="heuristic", anchor_rating=1500)
    assert [(p.a, p.b, p.games) for p in a.pairs] == [
        ("random", "heuristic:mistakes=0.5", 10), ("random", "heuristic", 10), ("heuristic:mistakes=0.5", "heuristic", 10)]
    assert [(p.wins_a, p.wins_b, p.draws) for p in a.pairs] == [(p.wins_a, p.wins_b, p.draws) for p in b.pairs]
    assert [r.elo for r in a.ratings] == pytest.approx([r.elo for r in b.ratings])
    r = {x.bot: x for x in a.ratings}
    assert r["heuristic"].elo == 1500 and r["random"].elo < r["heuristic:mistakes=0.5"].elo < 1500
    # the same deals for every pair: game i of each pairing starts from the same seed
    seeds = []
    for d in sorted((tmp_path / "a" / "pairs").iterdir()):
        lines = [json.loads(x) for x in (d / "games.jsonl").read_text().splitlines()]
        seeds.append([ln["seed"] for ln in lines])
        # seats alternate: each bot plays first in half the games
        firsts = [ln["bots"][0] for ln in lines]
        assert len(set(firsts)) == 2 and firsts.count(firsts[0]) == 5
    assert seeds[0] == seeds[1] == seeds[2]


def test_target_se_adds_games_where_they_tell_most(tmp_path: Path) -> None:
    bots = ["heuristic:mistakes=0.5", "heuristic:mistakes=0.2", "heuristic"]
    lad = run_ladder(bots, games=10, anchor="heuristic", target_se=90, max_games=60, out=tmp_path)
    assert all(r.se <= 90 or any(p.games == 60 for p in lad.pairs if r.bot in (p.a, p.b)) for r in lad.ratings)
    assert sum(p.games for p in lad.pairs) > 30
    # resumed with the same arguments: nothing is played again, the result is the same
    again = run_ladder(bots, games=10, anchor="heuristic", target_se=90, max_games=60, out=tmp_path, resume=True)
    assert [p.games for p in again.pairs] == [p.games for p in lad.pairs]


def test_field_table_seats_one_bot_against_copies_of_the_reference() -> None:
    f = play_field("heuristic", "random", 4, 8, seed=2)
    assert (f.players, f.games, f.reference) == (4, 8, "random")
    assert f.wins == 8 and f.rate == 1.0 and f.share == 4.0 and f.high == 1.0 and f.low > 0.6
    with pytest.raises(ValueError, match="not played against itself"):
        play_field("random", "random", 4, 4)


def test_markdown_names_the_levels_and_the_anchor() -> None:
    lad = run_ladder(["easy", "medium"], games=4, anchor="medium", anchor_rating=1500, reference="medium",
                     field_games=4)
    md = lad.markdown()
    assert "`easy` (`heuristic:mistakes=0.25`)" in md and "`medium` (`heuristic`)" in md
    assert "| anchor |" in md and "4 players: one seat against 3 × `medium`" in md
    doc = lad.to_json()
    assert doc["field"]["results"][0]["bot"] == "easy" and doc["anchor"] == "medium"


def test_command_writes_the_tables_and_prints_json(tmp_path: Path) -> None:
    out = tmp_path / "lad"
    res = runner.invoke(app, ["ladder", "--bots", "random,heuristic", "--games", "4", "--reference", "",
                              "--workers", "1", "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout.strip().splitlines()[-1])
    assert doc["anchor"] == "random" and doc["games_per_pair"] == 4 and doc["field"]["results"] == []
    assert (out / "ladder.md").read_text().startswith("2 players, round robin, 4 games a pair")
    assert json.loads((out / "ladder.json").read_text())["ratings"][1]["bot"] == "heuristic"


@pytest.mark.parametrize(("args", "message"), [
    (["--games", "5"], "--games must be even"),
    (["--bots", "random,nobot"], "unknown bot 'nobot'"),
    (["--bots", "random"], "at least two different bots"),
    (["--anchor", "expert"], "--anchor 'expert' is not one of --bots"),
    (["--field-players", "2"], "--field-players must be 3 to 8"),
    (["--target-se", "0"], "--target-se must be above 0"),
    (["--reference", "heuristic:depth=2"], "heuristic has no option 'depth'"),
    (["--no-round-robin", "--reference", ""], "nothing to play"),
])
def test_command_refuses_bad_arguments_before_playing(tmp_path: Path, args: list[str], message: str) -> None:
    base = ["ladder", "--bots", "random,heuristic", "--games", "4", "--out", str(tmp_path / "x")]
    res = runner.invoke(app, base + args)
    assert res.exit_code == 2 and message in res.output, res.output
    assert not (tmp_path / "x" / "ladder.json").exists()


def test_more_games_go_where_they_pin_the_least_certain_rating_best() -> None:
    from civlite.sim.ladder import Ladder, PairResult, _most_informative, fit_ratings

    names = ["anchor", "near", "top"]

    def choose(anchor_near_games: int) -> str:
        lopsided = anchor_near_games * 8 // 100
        pairs = [PairResult("anchor", "near", anchor_near_games, lopsided, anchor_near_games - lopsided, 0,
                            anchor_near_games * 0.01),
                 PairResult("anchor", "top", 200, 10, 190, 0, 400.0),
                 PairResult("near", "top", 400, 180, 220, 0, 800.0)]
        lad = Ladder(names, 200, 1, "anchor", 1500.0, 1.0)
        lad.pairs = pairs
        ratings = fit_ratings(names, pairs, "anchor", 1500.0, 1.0)
        worst = max((r for r in ratings if not r.unbounded), key=lambda r: r.se)
        assert worst.bot == "top"
        i = _most_informative(lad, {r.bot: r.elo for r in ratings}, worst.bot, range(3), 100)
        assert i is not None
        return f"{pairs[i].a}-{pairs[i].b}"

    # `top` is rated through `near`, itself pinned only by a lopsided pair: the cheap games
    # that pin `near` help `top` most, though `top` does not play them
    assert choose(200) == "anchor-near"
    # once `near` is pinned, `top`'s own close pair is worth its cost
    assert choose(20_000) == "near-top"


def test_a_resumed_pair_keeps_its_playing_time(tmp_path: Path) -> None:
    from civlite.sim.ladder import play_pair

    first = play_pair("random", "heuristic", 4, 3, out=tmp_path / "p", workers=1)
    assert first.games == 4 and (tmp_path / "p" / "seconds.txt").exists()
    again = play_pair("random", "heuristic", 4, 3, out=tmp_path / "p", workers=1, resume=True)
    assert again.games == 4 and again.seconds >= first.seconds  # nothing played: the time kept
    more = play_pair("random", "heuristic", 6, 3, out=tmp_path / "p", workers=1, resume=True)
    assert more.games == 6 and more.seconds >= again.seconds
    (tmp_path / "p" / "seconds.txt").write_text("garbage")
    broken = play_pair("random", "heuristic", 6, 3, out=tmp_path / "p", workers=1, resume=True)
    assert broken.games == 6 and float((tmp_path / "p" / "seconds.txt").read_text()) >= 0
