"""The replay screen: a saved game stepped through, forward and back, as any seat saw it."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from ..review import GameReview
from .dialogs import DiscardScreen, HelpScreen
from .options import REPLAY_KEYS
from .review import ReviewScreen, mark_text
from .session import Replay
from .widgets import (
    CompactLayout,
    LogPanel,
    Panel,
    hand_renderable,
    opponents_renderable,
    piles_renderable,
    race_renderable,
)


class ReplayScreen(CompactLayout, Screen[None]):
    """A saved game, one action at a time, forward and back, as a spectator or one seat sees it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n", "step(1)", "Next"),
        Binding("left,b", "step(-1)", "Back"),
        Binding("home", "goto(0)", "Start", show=False),
        Binding("end", "goto(-1)", "End", show=False),
        Binding("t", "next_turn", "Next turn"),
        Binding("w", "cycle_view", "Watch as"),
        Binding("v", "discard_pile", "Discard pile"),
        Binding("e", "review", "Review"),
        Binding("question_mark,f1", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, replay: Replay) -> None:
        super().__init__()
        self.replay = replay
        self.viewer: int | None = None
        #: the reviews computed so far, by seat (``e``): their marks show beside each step
        self.reviews: dict[int, GameReview] = {}

    def compose(self) -> ComposeResult:
        yield Static(id="too-small")
        yield Header()
        with Horizontal(id="table"):
            with VerticalScroll(id="left"):
                yield Panel("CT race", id="race")
                yield Panel("Players", id="opponents")
                yield Panel("Deck and discard (R3)", id="piles")
                yield Panel("Hand", id="hand")
            with Vertical(id="right"):
                yield Static(id="replay-step", classes="panel")
                yield LogPanel(id="log")
        yield Footer()

    def on_mount(self) -> None:
        self._set_compact()
        self.show()

    def on_resize(self) -> None:
        if self._set_compact():
            self.show()

    def action_discard_pile(self) -> None:
        if not isinstance(self.app.screen, DiscardScreen):
            self.app.push_screen(DiscardScreen(self.replay.game.view(self.viewer).discard))

    def names(self) -> list[str]:
        return self.replay.names

    def show(self) -> None:
        r = self.replay
        view = r.game.view(self.viewer)
        names = self.names()
        who = "spectator" if self.viewer is None else f"{names[self.viewer]} (seat {self.viewer})"
        self.title = "Civ Lite: replay"
        self.sub_title = f"step {r.step}/{r.last} · viewed as {who} · rules {view.rules.name}"
        compact = self.has_class("compact")
        self.query_one("#race", Panel).update(race_renderable(view, names, compact=compact))
        self.query_one("#opponents", Panel).update(opponents_renderable(view, names))
        self.query_one("#piles", Panel).update(piles_renderable(view, compact=compact))
        self.query_one("#hand", Panel).update(hand_renderable(view))
        end = ""
        if view.over:
            end = (f"\nGame over: {names[view.winner]} wins." if view.winner is not None
                   else f"\nGame over: a draw between {', '.join(names[i] for i in view.drawn)}.")
        step = Text(f"Step {r.step} of {r.last}: {r.action_text()}{end}\n→ next  ← back  t next turn  w watch as"
                    "  e review", style="bold")
        rated = self._mark(r.step - 1)
        if rated is not None:
            step.append("\nReview: ", style="bold")
            step.append_text(rated)
        self.query_one("#replay-step", Static).update(step)
        self.query_one(LogPanel).set_lines(r.log_lines(self.viewer))

    def action_step(self, delta: int) -> None:
        self.replay.go(self.replay.step + delta)
        self.show()

    def action_goto(self, step: int) -> None:
        self.replay.go(self.replay.last if step < 0 else step)
        self.show()

    def action_next_turn(self) -> None:
        r = self.replay
        turn = r.game.turn
        while r.step < r.last and r.game.turn == turn:
            r.go(r.step + 1)
        self.show()

    def action_cycle_view(self) -> None:
        n = self.replay.game.num_players
        self.viewer = 0 if self.viewer is None else (None if self.viewer + 1 >= n else self.viewer + 1)
        self.show()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(REPLAY_KEYS))

    def _mark(self, index: int) -> Text | None:
        """The review's mark of action ``index`` (the one that led to this step), if reviewed."""
        for review in self.reviews.values():
            text = mark_text(review, index)
            if text is not None:
                return text
        return None

    def action_review(self) -> None:
        """Review the watched seat (seat 0 for a spectator): marks beside each step, the graph;
        choosing a decision there goes to it."""
        seat = 0 if self.viewer is None else self.viewer
        record = self.replay.record
        if not record.over:
            self.notify("only a finished game is reviewed", timeout=3)
            return
        screen = ReviewScreen(record, seat, self.names(), review=self.reviews.get(seat))

        def back(index: int | None) -> None:
            if screen.review is not None:
                self.reviews[seat] = screen.review
            if index is not None:
                self.replay.go(index)
            self.show()

        self.app.push_screen(screen, callback=back)
