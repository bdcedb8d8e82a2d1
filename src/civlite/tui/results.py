"""The end of a game at the table: who won and how, the standings, and every hand revealed."""

from __future__ import annotations

from typing import ClassVar, Protocol

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ..engine import GameRecord
from .review import show_review
from .session import Session
from .widgets import cards_text, seat_ct


class TableScreen(Protocol):
    """What the results read of the table they close over (the table screen)."""

    session: Session
    viewer: int | None

    def action_discard_pile(self) -> None: ...

    def action_save(self) -> None: ...

    def action_new_game(self) -> None: ...


def results_renderable(session: Session, reader: int | None = None) -> Group:
    """The end of a game: who won and how, the standings by CT, and every hand, now revealed;
    ``reader``: the seat at the screen, told in the second person ("You win")."""
    g = session.game
    v = session.view(None)
    names = session.names
    ct = [seat_ct(v, i) for i in range(v.num_players)]
    if v.winner is not None:
        who = "You win" if v.winner == reader else f"{names[v.winner]} wins"
        head = Text(f"{who} with {ct[v.winner]} CT on turn {v.turn} (R8.1).", style="bold green")
    else:
        head = Text(f"Turn limit reached on turn {v.turn}: a draw between "
                    f"{', '.join(names[i] for i in v.drawn)} (R8.2).", style="bold")
    t = Table(box=None, padding=(0, 1), expand=True, title="Standings", title_justify="left", title_style="bold")
    t.add_column("#", justify="right", no_wrap=True)
    t.add_column("player", no_wrap=True)
    t.add_column("CT", justify="right", no_wrap=True)
    t.add_column("hand (revealed)", ratio=1)
    order = sorted(range(v.num_players), key=lambda i: (-ct[i], i))
    rank = 0
    for n, seat in enumerate(order):
        if n == 0 or ct[seat] != ct[order[n - 1]]:
            rank = n + 1
        hand = sorted(g.hand(seat)) if g.is_over else []  # the game is over: every hand is shown
        style = "bold green" if seat == v.winner or seat in v.drawn else ""
        t.add_row(str(rank), Text(names[seat], style=style), str(ct[seat]),
                  cards_text(hand) if hand else Text("(no cards)", style="grey50"))
    foot = Text(f"Deck {v.deck_size} · discard pile {len(v.discard)} (v shows it)", style="grey62")
    return Group(head, Text(""), t, Text(""), foot)


class ResultsScreen(ModalScreen[None]):
    """The game is over: the standings and every hand revealed."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,r", "close", "Back to the table"),
        Binding("v", "discard_pile", "Discard pile"),
        Binding("g", "new_game", "New game"),
        Binding("e", "review", "Review my game"),
        Binding("s", "save", "Save"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, table: TableScreen) -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="results-box") as box:
            box.border_title = "Game over"
            yield Static(results_renderable(self.table.session, self.table.viewer), id="results")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#results-box").focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_discard_pile(self) -> None:
        self.table.action_discard_pile()

    def action_save(self) -> None:
        self.table.action_save()

    def action_review(self) -> None:
        s = self.table.session
        show_review(self, GameRecord.of(s.game), self.table.viewer or 0, s.names)

    def action_new_game(self) -> None:
        self.dismiss(None)
        self.table.action_new_game()
