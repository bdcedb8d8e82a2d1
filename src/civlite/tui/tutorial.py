"""``civlite tutorial``: the tutorial's fixed practice deal at the terminal table, against the
easy bot, with the coach's notes (:mod:`civlite.review.tutorial`) shown as they come: each
phase of a turn the first time, each ability the first time you can pay for it, the meld
the first time you are near one. Each note is written to your log, beside the choices (a toast
would cover them at 80x24). The app that runs it is
:class:`civlite.tui.app.TutorialApp` (only the app module knows the app)."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from ..review.tutorial import PLAYERS, TUTOR_BOT, Coach, tutorial_game
from .session import SeatSpec, Session
from .table import TableScreen
from .widgets import LogPanel


def tutorial_session() -> Session:
    return Session(tutorial_game(), [SeatSpec("human", PLAYERS[0]), SeatSpec(TUTOR_BOT, PLAYERS[1])])


class TutorialScreen(TableScreen):
    """The table, and the coach's notes for seat 0 as each becomes due."""

    coach: Coach | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: every note shown so far, in order
        self.notes: list[str] = []

    def refresh_table(self) -> None:
        super().refresh_table()
        if self.coach is None:
            self.coach = Coach(seat=0)
        # into the log beside the choices, never a toast over them (at 80x24 a toast covers
        # the decision list)
        log = self.query_one(LogPanel)
        for note in self.coach.notes(self.session.game):
            log.write(Text.assemble(("Tutorial: ", "bold magenta"), note.text))
            self.notes.append(note.text)
