"""The Textual apps: ``civlite play`` (:class:`CivliteApp`) and ``civlite replay`` (:class:`ReplayApp`)."""

from __future__ import annotations

import time
from pathlib import Path

from textual.app import App

from .screens import SPEEDS, ReplayScreen, SetupScreen, TableScreen
from .session import Replay, Session

__all__ = ["SPEEDS", "CivliteApp", "ReplayApp"]


class CivliteApp(App[None]):
    """``civlite play``: set up a game (or resume one), then play it at the table."""

    CSS_PATH = "civlite.tcss"
    TITLE = "Civ Lite: Ancients"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        session: Session | None = None,
        *,
        delay: float = 0.6,
        save_path: Path | None = None,
        setup: SetupScreen | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.delay = max(0.0, delay)
        self.save_path = save_path
        self._setup = setup

    def on_mount(self) -> None:
        if self.session is not None:
            self.push_screen(TableScreen(self.session))
        else:
            self.push_screen(self._setup or SetupScreen())

    def start_session(self, session: Session) -> None:
        """Leave the set-up screen for the table of ``session``."""
        self.session = session
        self.switch_screen(TableScreen(session))

    def show_setup(self) -> None:
        seats = self.session.seats if self.session is not None else None
        self.switch_screen(SetupScreen(seats))

    @property
    def table(self) -> TableScreen:
        screen = self.screen
        if isinstance(screen, TableScreen):
            return screen
        for s in self.screen_stack:
            if isinstance(s, TableScreen):
                return s
        raise LookupError("no table is shown")

    def change_speed(self, step: int) -> None:
        """``step`` -1: faster (shorter bot delay), +1: slower."""
        idx = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - self.delay))
        idx = max(0, min(len(SPEEDS) - 1, idx + step))
        self.delay = SPEEDS[idx]
        self.notify(f"bot delay {self.delay:g} s", timeout=2)

    def default_save_path(self) -> Path:
        return Path(time.strftime("civlite-%Y%m%d-%H%M%S.json"))


class ReplayApp(App[None]):
    """``civlite replay FILE``: step through a saved game."""

    CSS_PATH = "civlite.tcss"
    TITLE = "Civ Lite: replay"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, replay: Replay) -> None:
        super().__init__()
        self.replay = replay

    def on_mount(self) -> None:
        self.push_screen(ReplayScreen(self.replay))

