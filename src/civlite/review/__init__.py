"""Game review and a coach: every decision of a seat rated from that seat's own view.

The review sits between the bots and the adapters (server, terminal app, command line): it
uses the engine and the ``champion`` bot's search, and nothing above.

* :func:`rate_view` rates the options of one decision from a view; :func:`mark` names a loss;
* :func:`review_record` rates every decision of one seat in a finished game's record;
* :func:`hint` is the best option now, with a one-line reason.
"""

from __future__ import annotations

from .game import GameReview, check_record, load_record, review_record
from .hints import HINT_BUDGET, Hint, hint
from .rating import (
    DEFAULT_BUDGET,
    MARKS,
    MAX_BUDGET,
    THRESHOLDS,
    Option,
    RatedDecision,
    Rating,
    ReviewError,
    mark,
    rate_decision,
    rate_view,
)

__all__ = [
    "DEFAULT_BUDGET",
    "HINT_BUDGET",
    "MARKS",
    "MAX_BUDGET",
    "THRESHOLDS",
    "GameReview",
    "Hint",
    "Option",
    "RatedDecision",
    "Rating",
    "ReviewError",
    "check_record",
    "hint",
    "load_record",
    "mark",
    "rate_decision",
    "rate_view",
    "review_record",
]
