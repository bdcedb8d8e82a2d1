"""The screens of the terminal app by name: set-up, table, replay, and the dialogs over them."""

from __future__ import annotations

from .dialogs import DiscardScreen, HelpScreen, PassScreen, QuitScreen, SaveAsScreen, TurnOverScreen
from .options import REPLAY_KEYS, SPEEDS, TABLE_KEYS
from .replay import ReplayScreen
from .results import ResultsScreen
from .setup import KIND_OPTIONS, MAX_SEATS, SetupScreen
from .table import TableScreen

__all__ = [
    "KIND_OPTIONS", "MAX_SEATS", "REPLAY_KEYS", "SPEEDS", "TABLE_KEYS", "DiscardScreen", "HelpScreen", "PassScreen",
    "QuitScreen", "ReplayScreen", "ResultsScreen", "SaveAsScreen", "SetupScreen", "TableScreen", "TurnOverScreen",
]
