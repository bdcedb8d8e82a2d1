"""The screens over the table: help, the hot-seat hand-over, the quit question, the discard pile."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import ClassVar

from rich.markdown import Markdown as RichMarkdown
from rich.table import Table
from rich.text import Text
from textual import _time
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Header, Input, Label, Static

from ..engine import Card
from .choices import hand_by_suit
from .session import Session
from .widgets import SUIT_STYLE, cards_text


def rules_text() -> str:
    return resources.files("civlite.tui").joinpath("RULES.md").read_text(encoding="utf-8")


def keys_table(keys: list[tuple[str, str]]) -> Table:
    t = Table(title="Keys", show_header=False, box=None, padding=(0, 2))
    t.add_column(style="bold cyan", no_wrap=True)
    t.add_column()
    for k, what in keys:
        t.add_row(k, what)
    return t


class HelpScreen(ModalScreen[None]):
    """The key bindings and the rules (from the RULES text shipped with the package)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark,f1", "dismiss_help", "Close")]

    def __init__(self, keys: list[tuple[str, str]]) -> None:
        super().__init__()
        self.keys = keys

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Help: keys and rules (esc closes)"
            yield Static(keys_table(self.keys), id="help-keys")
            yield Static(RichMarkdown(rules_text()), id="help-rules")

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()

    def action_dismiss_help(self) -> None:
        self.dismiss(None)


#: seconds after a hand-off screen is shown, and after the next player's table is shown,
#: during which every key is swallowed: an enter typed one too many (a double press, key
#: repeat, a slow machine drawing the screen late) neither skips the hand-off nor answers
#: the next player's first decision
HANDOFF_GRACE = 0.3


def event_clock() -> float:
    """Now, on the clock of Textual's events (``Message.time``: when a key was typed)."""
    return _time.get_time()


class PassScreen(Screen[None]):
    """Hot-seat hand-over: covers the whole table so the next human sees no other hand.

    Keys typed before it has been shown for :data:`HANDOFF_GRACE` seconds are swallowed (the
    app drops every key event older than the screen's ``keys_open_at``)."""

    # enter only: a space typed in a burst at the card picker must not show the next hand;
    # a priority binding, so that every enter is seen here (the focused button would ignore an
    # enter during its own press effect, and one typed before the grace would delay the next)
    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "ready", "I am ready", priority=True),
                                             Binding("q", "app.quit", "Quit")]

    def __init__(self, seat: int, name: str, why: str = "", grace: float | None = None) -> None:
        super().__init__()
        self.seat = seat
        self.seat_name = name
        self.why = why
        self.grace = HANDOFF_GRACE if grace is None else grace
        #: keys typed before this moment (the event clock) are swallowed: set once the screen
        #: has been drawn, to then plus the grace
        self.keys_open_at = float("inf") if self.grace > 0 else 0.0

    @property
    def armed(self) -> bool:
        """Whether keys act now."""
        return event_clock() >= self.keys_open_at

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="pass-box"):
            yield Label(f"Pass to seat {self.seat} ({self.seat_name})", id="pass-title")
            yield Label(self.why or "The hands are hidden until that player is ready.", id="pass-why")
            with Center():
                yield Button(f"I am seat {self.seat}: show my hand (enter)", id="ready", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        self.call_after_refresh(self._start_grace)

    def _start_grace(self) -> None:
        if self.grace > 0:
            self.keys_open_at = event_clock() + self.grace

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_ready()

    def action_ready(self) -> None:
        if self.armed and self.is_current:
            self.keys_open_at = float("inf")  # once
            self.dismiss(None)


class TurnOverScreen(ModalScreen[None]):
    """Hot-seat: before the hand-off, the player whose turn ends sees what it did (its own
    view: what it took, what it melded), then hands the screen over."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "close", "Hand over"), Binding("q", "app.quit", "Quit")]

    def __init__(self, name: str, lines: list[str], next_name: str) -> None:
        super().__init__()
        self.player_name = name
        self.lines = lines
        self.next_name = next_name

    def compose(self) -> ComposeResult:
        text = Text()
        for line in self.lines:
            who, _, rest = line.partition(": ")
            text.append(who + ": ", style="bold cyan")
            text.append(rest + "\n")
        text.append("\nenter", style="bold")
        text.append(f" hides the table and hands the screen to {self.next_name}.")
        with Vertical(id="turn-over-box") as box:
            box.border_title = f"{self.player_name}: your turn is over"
            yield Static(text, id="turn-over-text")

    def action_close(self) -> None:
        if self.is_current:  # once, even for an enter typed twice
            self.dismiss(None)


class SaveAsScreen(ModalScreen["Path | None"]):
    """Saving failed: say why and offer another file (enter saves there, esc cancels)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, why: str, offer: Path) -> None:
        super().__init__()
        self.why = why
        self.offer = offer

    def compose(self) -> ComposeResult:
        with Vertical(id="save-box") as box:
            box.border_title = "Save the game to another file"
            yield Static(Text(self.why, style="bold red"), id="save-why")
            yield Input(value=str(self.offer), id="save-path")
            yield Static(Text.assemble(("enter", "bold"), " saves there (and after every move from now on), ",
                                       ("esc", "bold"), " cancels"), id="save-hint")

    def on_mount(self) -> None:
        self.query_one("#save-path", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            self.app.bell()
            return
        self.dismiss(Path(text).expanduser())

    def action_cancel(self) -> None:
        self.dismiss(None)


class QuitScreen(ModalScreen[bool]):
    """Quit in the middle of a game? Says where the game is saved (or that it is not)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,q", "answer(True)", "Quit"),
        Binding("n,escape", "answer(False)", "Stay"),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        s = self.session
        if s.save_path is not None and s.save_error is None and s.begun:
            where = Text.assemble("The game is saved in ", (str(s.save_path), "bold"), ".\n",
                                  ("civlite play --continue", "bold cyan"), " (or ",
                                  (f"--resume {s.save_path}", "bold cyan"), ") plays on.")
        elif s.save_path is not None and s.save_error is None:
            # --continue offers only a game in which someone has moved: promise what does work
            where = Text.assemble("Nobody has moved yet. The deal is saved in ", (str(s.save_path), "bold"),
                                  ":\n", (f"civlite play --resume {s.save_path}", "bold cyan"), " plays it.")
        else:
            why = s.save_error or "no file to save to"
            where = Text.assemble(("The game is NOT saved", "bold red"), f" ({why}).\nPress esc and s to save it.")
        with Vertical(id="quit-box") as box:
            box.border_title = "Quit the game?"
            yield Static(where, id="quit-text")
            with Horizontal(id="quit-buttons"):
                yield Button("Quit (y)", id="quit-yes", variant="error")
                yield Button("Stay (n)", id="quit-no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#quit-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "quit-yes")

    def action_answer(self, quit_: bool) -> None:
        self.dismiss(quit_)


def pile_renderable(discard: tuple[Card, ...] | list[Card]) -> Table:
    """The whole discard pile: by suit (how many and which), then every card, the top first."""
    t = Table.grid(padding=(0, 1))
    t.add_column(no_wrap=True)
    t.add_column(ratio=1)
    for suit, cards in hand_by_suit(list(discard)).items():
        t.add_row(Text(f"{suit.letter} {suit.title} ×{len(cards)}", style=SUIT_STYLE[suit]),
                  cards_text(cards, letter=False))
    t.add_row("", "")
    t.add_row(Text("top first", style="grey62"), cards_text(list(reversed(discard))))
    return t


class DiscardScreen(ModalScreen[None]):
    """The discard pile is face up (R3.2): every card in it, for anyone at the table."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,v,q", "close", "Close")]

    def __init__(self, discard: tuple[Card, ...] | list[Card]) -> None:
        super().__init__()
        self.discard = discard

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="pile-box") as box:
            box.border_title = f"Discard pile: {len(self.discard)} cards, public (R3.2) · esc closes"
            yield Static(pile_renderable(self.discard) if self.discard else Text("The discard pile is empty."),
                         id="pile")

    def on_mount(self) -> None:
        self.query_one("#pile-box").focus()

    def action_close(self) -> None:
        self.dismiss(None)
