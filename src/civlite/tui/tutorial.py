"""``civlite tutorial``: the tutorial's fixed practice deal at the terminal table, against the
easy bot, with the coach's notes (:mod:`civlite.review.tutorial`) shown as they come: each
phase of a turn the first time, each ability the first time you can pay for it, the meld
the first time you are near one. Each note is also written to your log. The app that runs it is
:class:`civlite.tui.app.TutorialApp` (only the app module knows the app)."""

from __future__ import annotations

from ..review.tutorial import PLAYERS, TUTOR_BOT, Coach, tutorial_game
from .session import SeatSpec, Session
from .table import TableScreen
from .widgets import LogPanel


def tutorial_session() -> Session:
    return Session(tutorial_game(), [SeatSpec("human", PLAYERS[0]), SeatSpec(TUTOR_BOT, PLAYERS[1])])


class TutorialScreen(TableScreen):
    """The table, and the coach's notes for seat 0 as each becomes due."""

    coach: Coach | None = None

    def refresh_table(self) -> None:
        super().refresh_table()
        if self.coach is None:
            self.coach = Coach(seat=0)
        for note in self.coach.notes(self.session.game):
            self.notify(note.text, title="Tutorial", timeout=25)
            self.query_one(LogPanel).add_line(f"Tutorial: {note.text}")
