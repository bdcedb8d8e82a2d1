"""OpenSpiel's CFR-family methods on ``python_civlite`` with the sampled chance model.

With exact chance a history passes hundreds of chance nodes of up to 112 outcomes, so its
reach probability underflows and outcome-sampling MCCFR divides by zero. The sampled
model (``chance="sampled"``) makes each deal or draw one node of K uniform outcomes, on a
short variant: the solvers run with every floating-point error raised, and their average
policies are finite probability distributions.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import civlite.rl.openspiel  # noqa: E402,F401  (registers python_civlite)


def _short(turn_limit: int) -> Any:
    return pyspiel.load_game("python_civlite", {"players": 2, "chance": "sampled", "chance_outcomes": 2,
                                                "turn_limit": turn_limit, "victory_ct": 6})


def _check_policy(game: Any, policy: Any, games: int = 20) -> int:
    """Plays games by the average policy (chance uniform) and checks every distribution it gives."""
    rng = random.Random(0)
    seen = 0
    for _ in range(games):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes, probs = zip(*s.chance_outcomes(), strict=True)
                assert all(math.isfinite(p) and p > 0 for p in probs) and abs(sum(probs) - 1) < 1e-12
                s.apply_action(rng.choice(outcomes))
                continue
            probs = policy.action_probabilities(s)
            assert set(probs) == set(s.legal_actions())
            values = np.array(list(probs.values()))
            assert np.all(np.isfinite(values)) and np.all(values >= 0) and abs(values.sum() - 1) < 1e-9
            seen += 1
            s.apply_action(rng.choices(list(probs), weights=list(probs.values()))[0])
    return seen


def _run(solver_cls: Any, game: Any, iterations: int) -> Any:
    solver = solver_cls(game)
    with np.errstate(all="raise"):  # a division by zero or a NaN fails the test
        for _ in range(iterations):
            solver.iteration()
    return solver.average_policy()


def test_sampled_chance_is_a_well_scaled_tree() -> None:
    game = _short(4)
    assert game.max_chance_outcomes() == 2
    s = game.new_initial_state()
    nodes = 0
    rng = random.Random(1)
    while not s.is_terminal():
        if s.is_chance_node():
            assert s.chance_outcomes() == [(0, 0.5), (1, 0.5)]
            nodes += 1
        s.apply_action(rng.choice([a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()))
    assert 1 <= nodes <= 4 * 4  # the deal, then about one a turn: reach stays above 2**-16
    # the same history, the same world: a tree, as CFR needs
    t = game.new_initial_state()
    for a in s.history():
        t.apply_action(a)
    assert t.returns() == s.returns() and str(t) == str(s)


@pytest.mark.parametrize("solver", ["outcome", "external"])
def test_mccfr_runs_with_finite_regrets(solver: str) -> None:
    from open_spiel.python.algorithms import external_sampling_mccfr, outcome_sampling_mccfr

    if solver == "outcome":
        policy = _run(outcome_sampling_mccfr.OutcomeSamplingSolver, _short(3), 100)
    else:
        policy = _run(external_sampling_mccfr.ExternalSamplingSolver, _short(1), 30)
    assert _check_policy(_short(3 if solver == "outcome" else 1), policy) > 0


@pytest.mark.slow
def test_outcome_sampling_mccfr_1000_iterations() -> None:
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    game = _short(4)
    policy = _run(outcome_sampling_mccfr.OutcomeSamplingSolver, game, 1000)
    assert _check_policy(game, policy, games=50) > 0


@pytest.mark.slow
def test_external_sampling_mccfr_1000_iterations() -> None:
    from open_spiel.python.algorithms import external_sampling_mccfr

    game = _short(2)
    policy = _run(external_sampling_mccfr.ExternalSamplingSolver, game, 1000)
    assert _check_policy(game, policy, games=50) > 0
