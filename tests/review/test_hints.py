"""Hints: the best option now, with a one-line reason, from the seat's view alone."""

from __future__ import annotations

import doctest

import civlite.review.hints
from civlite.review.hints import hint

from .test_rating import winning_meld


def test_the_module_examples_run() -> None:
    assert doctest.testmod(civlite.review.hints).failed == 0


def test_a_winning_meld_is_the_hint_and_says_so() -> None:
    h = hint(winning_meld().view(0), budget=60, names=["ann", "bob"])
    assert h.action.do == "meld"
    assert h.reason.startswith("meld: +5 CT, you win;") and "\n" not in h.reason
    out = h.to_json()
    assert out["action"]["do"] == "meld" and out["win"] == 1.0 and out["reason"] == h.reason
