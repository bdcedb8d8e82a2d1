"""The heuristic's caches, and a smoke test of benchmarks/bot_speed.py (tiny budgets:
the numbers come from running it)."""

from __future__ import annotations

from civlite.bots import heuristic
from civlite.engine import RuleSet
from conftest import ROOT, load_script


def test_clear_caches_starts_the_evaluators_cold() -> None:
    rules = RuleSet.default()
    ev = heuristic.evaluator(rules, 3)
    assert heuristic.evaluator(rules, 3) is ev
    ev.hand_value([1, 1, 1, 1, 1, 1, 1, 0])
    heuristic.clear_caches()
    fresh = heuristic.evaluator(rules, 3)
    assert fresh is not ev and not fresh._hv


def test_ismcts_rate_times_cold_then_warm() -> None:
    mod = load_script(ROOT / "benchmarks" / "bot_speed.py")
    r = mod.ismcts_rate("ismcts:depth=4", 2, 20, 2)
    assert r["positions"] == 2 and r["iterations"] == 40  # early stopping is off: the whole budget
    assert r["iterations_per_s"] > 0 and r["cold_iterations_per_s"] > 0
    # the warm-up positions are other games than the measured ones
    warm = mod.midgame_positions(2, 2, 10, seed=10_000)
    measured = mod.midgame_positions(2, 2, 10)
    assert [g.hands for g in warm] != [g.hands for g in measured]


def test_a_full_memo_forgets_its_older_half() -> None:
    memo = {i: str(i) for i in range(10)}
    heuristic._make_room(memo, 10)
    assert list(memo) == [5, 6, 7, 8, 9]  # the newest entries stay
    short = {i: str(i) for i in range(9)}
    heuristic._make_room(short, 10)
    assert len(short) == 9  # room left: nothing forgotten
