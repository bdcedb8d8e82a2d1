"""The set-up screen: the seats of a new game, its rules and seed, the bot delay, or a saved game."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Input, Label, Select, Static

from ..bots import LEVELS, level_label
from ..engine import RecordError, RuleSet, RuleSetError
from .dialogs import HelpScreen
from .options import SPEEDS, TABLE_KEYS, BotDelayChanged
from .seats import BOT_LEVELS, DEFAULT_NAMES, HUMAN, SeatSpec, name_error
from .session import Session, last_unfinished

MAX_SEATS = 8
KIND_OPTIONS = [("human", HUMAN)] + [(f"bot: {level_label(b) if b in LEVELS else b}", b) for b in BOT_LEVELS]


class SetupScreen(Screen[None]):
    """A new game (2–8 seats, each a human or a bot level, a rule-set file, a seed) or a saved one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "start", "Start"),
        Binding("ctrl+r", "resume", "Resume"),
        Binding("f1", "help", "Help"),
        Binding("ctrl+q", "app.quit", "Quit"),
    ]

    class GameChosen(Message):
        """A game to play: a new one as set up here, or a saved one resumed."""

        def __init__(self, session: Session) -> None:
            super().__init__()
            self.session = session

    def __init__(self, seats: list[SeatSpec] | None = None, rules_path: str = "", seed: str = "",
                 resume_path: str = "", *, delay: float = 0.6, autosave_dir: Path | None = None) -> None:
        super().__init__()
        #: the bot delay offered first (the app sets its own before it shows the screen)
        self.delay = delay
        #: the directory whose last unfinished game is offered to resume
        self.autosave_dir = autosave_dir
        self.initial = seats or [SeatSpec(HUMAN, DEFAULT_NAMES[0]), SeatSpec("random"), SeatSpec("random")]
        self.rules_path = rules_path
        self.seed = seed
        self.resume_path = resume_path

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="setup-box") as box:
            box.border_title = "New game"
            with Horizontal(classes="setup-row"):
                yield Label("Seats", classes="setup-label")
                yield Select([(str(n), n) for n in range(2, MAX_SEATS + 1)], value=len(self.initial),
                             allow_blank=False, id="num-seats", compact=True)
            for i in range(MAX_SEATS):
                spec = self.initial[i] if i < len(self.initial) else SeatSpec("random")
                options = list(KIND_OPTIONS)
                if spec.kind not in {v for _, v in options}:
                    options.append((f"bot: {spec.kind}", spec.kind))
                with Horizontal(classes="setup-row seat-row", id=f"seat-row-{i}"):
                    yield Label(f"Seat {i}", classes="setup-label")
                    yield Select(options, value=spec.kind, allow_blank=False, id=f"kind-{i}", compact=True)
                    yield Input(value=spec.name, placeholder=f"name (seat {i})", id=f"name-{i}",
                                disabled=spec.kind != HUMAN, compact=True)
            with Horizontal(classes="setup-row"):
                yield Label("Rule set", classes="setup-label")
                yield Input(value=self.rules_path, placeholder="TOML file (empty: the default rules)", id="rules",
                            compact=True)
            with Horizontal(classes="setup-row"):
                yield Label("Seed", classes="setup-label")
                yield Input(value=self.seed, placeholder="empty: random", id="seed", type="integer", compact=True)
            with Horizontal(classes="setup-row"):
                yield Label("Bot delay", classes="setup-label")
                yield Select([(f"{d:g} s", d) for d in SPEEDS], value=self._speed(), allow_blank=False, id="delay",
                             compact=True)
            with Horizontal(classes="setup-row"):
                yield Label("Saved game", classes="setup-label")
                yield Input(value=self.resume_path, placeholder="record file to resume", id="resume", compact=True)
            yield Static(id="setup-error")
        with Horizontal(id="setup-buttons"):
            yield Button("Start (ctrl+n)", id="start", variant="primary", compact=True)
            yield Button("Resume (ctrl+r)", id="resume-button", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self._show_rows(len(self.initial))
        resume = self.query_one("#resume", Input)
        if not resume.value:  # offer the last unfinished game
            last = last_unfinished(self.autosave_dir)
            if last is not None:
                resume.value = str(last)
        self.query_one("#num-seats").focus()

    def _show_rows(self, n: int) -> None:
        for i in range(MAX_SEATS):
            self.query_one(f"#seat-row-{i}").display = i < n

    def _speed(self) -> float:
        return min(SPEEDS, key=lambda d: abs(d - self.delay))

    def on_select_changed(self, event: Select.Changed) -> None:
        sid = event.select.id or ""
        if sid == "num-seats" and isinstance(event.value, int):
            self._show_rows(event.value)
        elif sid.startswith("kind-"):
            name = self.query_one(f"#name-{sid[5:]}", Input)
            name.disabled = event.value != HUMAN
            if event.value == HUMAN and not name.value.strip():  # a player's name, never "you"
                taken = {w.value.strip().casefold() for w in self.query(Input) if (w.id or "").startswith("name-")}
                name.value = next((n for n in DEFAULT_NAMES[int(sid[5:]):] + DEFAULT_NAMES
                                   if n.casefold() not in taken), "")
        elif sid == "delay" and isinstance(event.value, float):
            self.delay = event.value
            self.post_message(BotDelayChanged(event.value))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "start":
            self.action_start()
        elif event.button.id == "resume-button":
            self.action_resume()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "resume":
            self.action_resume()
        else:
            self.action_start()

    def error(self, message: str) -> None:
        self.query_one("#setup-error", Static).update(Text(message, style="bold red"))
        self.notify(message, severity="error")

    def seats(self) -> list[SeatSpec]:
        n = self.query_one("#num-seats", Select).value
        assert isinstance(n, int)
        out = []
        for i in range(n):
            kind = self.query_one(f"#kind-{i}", Select).value
            name = self.query_one(f"#name-{i}", Input).value
            out.append(SeatSpec(str(kind), name.strip() if kind == HUMAN else ""))
        return out

    def action_start(self) -> None:
        rules_path = self.query_one("#rules", Input).value.strip()
        rules = RuleSet.default()
        if rules_path:
            try:
                rules = RuleSet.load(rules_path)
            except RuleSetError as e:
                self.error(str(e))
                return
        seed_text = self.query_one("#seed", Input).value.strip()
        seed = int(seed_text) if seed_text.lstrip("-").isdigit() else None
        seats = self.seats()
        why = name_error(seats)
        if why is not None:
            self.error(why)
            return
        try:
            session = Session.new(seats, rules=rules, seed=seed)
        except ValueError as e:
            self.error(str(e))
            return
        self.post_message(self.GameChosen(session))

    def action_resume(self) -> None:
        path = self.query_one("#resume", Input).value.strip()
        if not path:
            self.error("name a saved game (a record file) to resume")
            return
        try:
            session = Session.resume(Path(path))
        except (RecordError, ValueError) as e:
            self.error(str(e))
            return
        self.post_message(self.GameChosen(session))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(TABLE_KEYS))
