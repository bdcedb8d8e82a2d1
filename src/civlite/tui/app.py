"""The Textual apps: ``civlite play`` (:class:`CivliteApp`) and ``civlite replay`` (:class:`ReplayApp`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rich.text import Text
from textual import events
from textual.app import App, SystemCommand
from textual.screen import Screen

from .dialogs import QuitScreen
from .options import SPEEDS, BotDelayChanged, delay_error
from .replay import ReplayScreen
from .session import Replay, Session, new_autosave_path
from .setup import SetupScreen
from .table import TableScreen
from .tutorial import TutorialScreen, tutorial_session

__all__ = ["SPEEDS", "CivliteApp", "ReplayApp"]


class SafeApp(App[None]):
    """An app whose crash report never shows a hand.

    Textual prints an unhandled exception as a Rich traceback *with the local variables of
    every frame*, and those hold hands, secret draws and the deck. Here the traceback keeps
    its frames and the error, and drops the locals.
    """

    CSS_PATH = "civlite.tcss"

    def crash_note(self) -> str:
        return ""

    def _fatal_error(self) -> None:
        import rich
        from rich.console import Group
        from rich.segment import Segments
        from rich.traceback import Traceback

        self.bell()
        report = Group(Traceback(show_locals=False, width=None, suppress=[rich]), Text(self.crash_note(), style="bold"))
        self._exit_renderables.append(Segments(self.console.render(report, self.console.options)))
        self._close_messages_no_wait()


class CivliteApp(SafeApp):
    """``civlite play``: set up a game (or resume one), then play it at the table.

    Every game is saved after every move: to ``save_path`` (``--save``), to the record it was
    resumed from, or else to a new file in ``autosave_dir`` (default: the user data dir, see
    :func:`~civlite.tui.session.autosave_dir`).

    The screens tell the app what the player chose by messages: a game to play
    (:class:`SetupScreen.GameChosen`), a new game (:class:`TableScreen.NewGame`) and another
    bot delay (:class:`~civlite.tui.options.BotDelayChanged`).
    """

    TITLE = "Civ Lite: Ancients"

    async def on_event(self, event: events.Event) -> None:
        # hot-seat: a key typed before the screen's keys_open_at (the hand-off screen, or the
        # next player's table, each shown for a grace) is dropped, however late it is handled:
        # an enter too many must neither skip the hand-off nor answer the next decision
        if (isinstance(event, events.Key) and not event.is_forwarded
                and event.time < getattr(self.screen, "keys_open_at", 0.0)):
            event.stop()
            return
        await super().on_event(event)

    def __init__(
        self,
        session: Session | None = None,
        *,
        delay: float = 0.6,
        save_path: Path | None = None,
        setup: SetupScreen | None = None,
        autosave_dir: Path | None = None,
    ) -> None:
        super().__init__()
        why = delay_error(delay)
        if why is not None:
            raise ValueError(why)
        self.session = session
        self.delay = delay
        self.save_path = save_path
        self.autosave_dir = autosave_dir
        self._setup = setup

    def on_mount(self) -> None:
        if self.session is not None:
            self._ensure_saved(self.session)
            self.push_screen(self._table(self.session))
        else:
            self.push_screen(self._set_up(self._setup or SetupScreen()))

    def _table(self, session: Session) -> TableScreen:
        return TableScreen(session, delay=self.delay, autosave_dir=self.autosave_dir)

    def _set_up(self, screen: SetupScreen) -> SetupScreen:
        """``screen`` with the app's bot delay and the directory of its saved games."""
        screen.delay = self.delay
        screen.autosave_dir = self.autosave_dir
        return screen

    def _ensure_saved(self, session: Session) -> None:
        """Give the game a file (a new autosave file if none) and write it at once."""
        if session.save_path is None:
            session.save_path = self.save_path or new_autosave_path(self.autosave_dir)
        session.autosave()

    def start_session(self, session: Session) -> None:
        """Leave the set-up screen for the table of ``session`` (saved to ``save_path`` if one is named)."""
        if self.save_path is not None:
            session.save_path = self.save_path
        self.session = session
        self._ensure_saved(session)
        self.switch_screen(self._table(session))

    def show_setup(self) -> None:
        """The set-up screen, with the seats of the last game."""
        seats = self.session.seats if self.session is not None else None
        self.switch_screen(self._set_up(SetupScreen(seats)))

    def on_setup_screen_game_chosen(self, message: SetupScreen.GameChosen) -> None:
        self.start_session(message.session)

    def on_table_screen_new_game(self, message: TableScreen.NewGame) -> None:
        self.show_setup()

    def on_bot_delay_changed(self, message: BotDelayChanged) -> None:
        self.delay = message.delay

    @property
    def table(self) -> TableScreen:
        screen = self.screen
        if isinstance(screen, TableScreen):
            return screen
        for s in self.screen_stack:
            if isinstance(s, TableScreen):
                return s
        raise LookupError("no table is shown")

    @property
    def game_in_progress(self) -> bool:
        return self.session is not None and not self.session.game.is_over

    async def action_quit(self) -> None:
        """Quit; in the middle of a game, ask first (and say where it is saved)."""
        if not self.game_in_progress or isinstance(self.screen, QuitScreen):
            self.exit()
            return
        assert self.session is not None

        def answered(quit_: bool | None) -> None:
            if quit_:
                self.exit()

        self.push_screen(QuitScreen(self.session), callback=answered)

    def crash_note(self) -> str:
        s = self.session
        if s is None or s.save_path is None or s.save_error or s.game.is_over:
            return ""
        return f"The game was saved after its last move: civlite play --resume {s.save_path} plays on."

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        if isinstance(screen, TableScreen):
            t = screen
            yield SystemCommand("Help", "the keys and the rules", t.action_help)
            yield SystemCommand("Discard pile", "every card of the discard pile (it is public, R3.2)",
                                t.action_discard_pile)
            yield SystemCommand("Automatic meld pass", "on / off for the seat at the screen (R9.1)",
                                t.action_auto_meld)
            yield SystemCommand("Save", "save the game as a record (civlite replay FILE)", t.action_save)
            yield SystemCommand("Faster bots", "a shorter bot delay", t.action_faster)
            yield SystemCommand("Slower bots", "a longer bot delay", t.action_slower)
            if t.session.game.is_over:
                yield SystemCommand("Results", "the standings and every hand", t.action_results)
                yield SystemCommand("New game", "back to the set-up screen", t.action_new_game)
        yield from super().get_system_commands(screen)


class ReplayApp(SafeApp):
    """``civlite replay FILE``: step through a saved game."""

    TITLE = "Civ Lite: replay"

    def __init__(self, replay: Replay) -> None:
        super().__init__()
        self.replay = replay

    def on_mount(self) -> None:
        self.push_screen(ReplayScreen(self.replay))


class TutorialApp(CivliteApp):
    """``civlite tutorial``: the tutorial's fixed deal against the easy bot, with the coach."""

    TITLE = "Civ Lite: tutorial"

    def __init__(self, delay: float = 0.6, autosave_dir: Path | None = None) -> None:
        super().__init__(tutorial_session(), delay=delay, autosave_dir=autosave_dir)

    def _table(self, session: Session) -> TableScreen:
        return TutorialScreen(session, delay=self.delay, autosave_dir=self.autosave_dir)
