"""The heuristic bot values every effect primitive, and refuses one it does not know (no silent 0)."""

from __future__ import annotations

import pytest

from civlite.bots import decide, make_bot
from civlite.bots import evaluator as evaluator_module
from civlite.bots.heuristic import KNOWN_EFFECTS, Evaluator, UnknownEffectError, clear_caches, effect_value
from civlite.engine import PRIMITIVES, Game, RuleSet


def test_every_primitive_of_the_registry_has_a_value() -> None:
    """A primitive added to the engine's registry fails here until the heuristic values it."""
    assert set(PRIMITIVES) <= KNOWN_EFFECTS, sorted(set(PRIMITIVES) - KNOWN_EFFECTS)
    for op in PRIMITIVES:
        effect_value(op, 2, 3)  # a value, never an error


def test_an_unknown_primitive_is_refused_not_valued_at_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UnknownEffectError, match="'teleport'"):
        effect_value("teleport", 1, 2)
    # a rule set whose ability uses a primitive the heuristic does not know (here: gain_ct,
    # taken out of what it knows) is refused when the evaluator is made, naming the ability
    monkeypatch.setattr(evaluator_module, "KNOWN_EFFECTS", KNOWN_EFFECTS - {"gain_ct"})
    clear_caches()
    try:
        with pytest.raises(UnknownEffectError, match=r"'gain_ct' \(in Greatness\)"):
            Evaluator(RuleSet.default(), 2)
        game = Game(players=2, seed=3)
        with pytest.raises(UnknownEffectError):
            while not game.is_over:  # the bot fails loudly on its first real decision
                game.apply(decide(make_bot("heuristic", seed=1), game))
    finally:
        clear_caches()
