"""Play Civ Lite in the terminal: a Textual app (``civlite play``, ``civlite replay FILE``).

Needs the ``tui`` extra (``pip install civlite[tui]``).
"""

from __future__ import annotations

from .app import SPEEDS, CivliteApp, ReplayApp
from .session import BOT_LEVELS, HUMAN, Choice, Replay, SeatSpec, Session, choices_for, parse_seats

__all__ = [
    "BOT_LEVELS", "HUMAN", "SPEEDS", "Choice", "CivliteApp", "Replay", "ReplayApp", "SeatSpec", "Session",
    "choices_for", "parse_seats",
]
