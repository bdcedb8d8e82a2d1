"""Screens: set-up, the table, hot-seat hand-over, help, replay."""

from __future__ import annotations

import asyncio
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.markdown import Markdown as RichMarkdown
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Header, Input, Label, Select, Static

from ..engine import GameRecord, IllegalActionError, RecordError, RuleSet, RuleSetError
from .session import BOT_LEVELS, HUMAN, Replay, SeatSpec, Session, choices_for, event_line, is_discard_kind
from .widgets import (
    DecisionPanel,
    LogPanel,
    Panel,
    abilities_renderable,
    hand_renderable,
    opponents_renderable,
    piles_renderable,
    race_renderable,
    seat_ct,
)

if TYPE_CHECKING:
    from .app import CivliteApp

#: bot delays (seconds) offered by the speed setting, fastest first
SPEEDS: tuple[float, ...] = (0.0, 0.1, 0.3, 0.6, 1.0, 2.0)

MAX_SEATS = 8
KIND_OPTIONS = [("human", HUMAN)] + [(f"bot: {b}", b) for b in BOT_LEVELS]

TABLE_KEYS: list[tuple[str, str]] = [
    ("1 … 9", "answer with that choice"),
    ("↑ ↓ enter", "move in the choice list and answer"),
    ("p", "pass (action or meld phase)"),
    ("m", "open the meld builder (meld phase)"),
    ("y", "choose which cards pay for the highlighted ability"),
    ("space", "pick / unpick a card (discard picker, meld builder, pay picker)"),
    ("c", "confirm the picked cards"),
    ("esc", "leave the meld builder or the pay picker"),
    ("d / l / tab", "focus the decision / the log / the next panel"),
    ("+ / -", "bots move faster / slower"),
    ("s", "save the game as a record (civlite replay FILE)"),
    ("n", "new game (when the game is over)"),
    ("? or f1", "this help"),
    ("q", "quit"),
]
REPLAY_KEYS: list[tuple[str, str]] = [
    ("→ or n", "next action"),
    ("← or b", "previous action"),
    ("home / end", "first / last position"),
    ("t", "jump to the next turn"),
    ("v", "view as the next seat (or spectator)"),
    ("? or f1", "this help"),
    ("q", "quit"),
]


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


class PassScreen(Screen[None]):
    """Hot-seat hand-over: covers the whole table so the next human sees no other hand."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter,space", "ready", "I am ready"), Binding("q", "app.quit", "Quit")]

    def __init__(self, seat: int, name: str, why: str = "") -> None:
        super().__init__()
        self.seat = seat
        self.seat_name = name
        self.why = why

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="pass-box"):
            yield Label(f"Pass to seat {self.seat} ({self.seat_name})", id="pass-title")
            yield Label(self.why or "The hands are hidden until that player is ready.", id="pass-why")
            with Center():
                yield Button(f"I am seat {self.seat}: show my hand (enter)", id="ready", variant="primary")
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_ready()

    def action_ready(self) -> None:
        self.dismiss(None)


class SetupScreen(Screen[None]):
    """A new game (2–8 seats, each a human or a bot level, a rule-set file, a seed) or a saved one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "start", "Start"),
        Binding("ctrl+r", "resume", "Resume"),
        Binding("f1", "help", "Help"),
        Binding("ctrl+q", "app.quit", "Quit"),
    ]

    def __init__(self, seats: list[SeatSpec] | None = None, rules_path: str = "", seed: str = "",
                 resume_path: str = "") -> None:
        super().__init__()
        self.initial = seats or [SeatSpec(HUMAN, "you"), SeatSpec("random"), SeatSpec("random")]
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
                             allow_blank=False, id="num-seats")
            for i in range(MAX_SEATS):
                spec = self.initial[i] if i < len(self.initial) else SeatSpec("random")
                kind = spec.kind if spec.kind in dict((v, v) for _, v in KIND_OPTIONS) else "random"
                with Horizontal(classes="setup-row seat-row", id=f"seat-row-{i}"):
                    yield Label(f"Seat {i}", classes="setup-label")
                    yield Select(KIND_OPTIONS, value=kind, allow_blank=False, id=f"kind-{i}")
                    yield Input(value=spec.name, placeholder=f"name (seat {i})", id=f"name-{i}",
                                disabled=kind != HUMAN)
            with Horizontal(classes="setup-row"):
                yield Label("Rule set", classes="setup-label")
                yield Input(value=self.rules_path, placeholder="TOML file (empty: the default rules)", id="rules")
            with Horizontal(classes="setup-row"):
                yield Label("Seed", classes="setup-label")
                yield Input(value=self.seed, placeholder="empty: random", id="seed", type="integer")
            with Horizontal(classes="setup-row"):
                yield Label("Bot delay", classes="setup-label")
                yield Select([(f"{d:g} s", d) for d in SPEEDS], value=self._speed(), allow_blank=False, id="delay")
            with Horizontal(classes="setup-row"):
                yield Button("Start (ctrl+n)", id="start", variant="primary")
            with Horizontal(classes="setup-row"):
                yield Label("Saved game", classes="setup-label")
                yield Input(value=self.resume_path, placeholder="record file to resume", id="resume")
                yield Button("Resume (ctrl+r)", id="resume-button")
            yield Static(id="setup-error")
        yield Footer()

    @property
    def civ(self) -> CivliteApp:
        from .app import CivliteApp

        assert isinstance(self.app, CivliteApp)
        return self.app

    def on_mount(self) -> None:
        self._show_rows(len(self.initial))
        self.query_one("#num-seats").focus()

    def _show_rows(self, n: int) -> None:
        for i in range(MAX_SEATS):
            self.query_one(f"#seat-row-{i}").display = i < n

    def _speed(self) -> float:
        delay = getattr(self.app, "delay", 0.6) if self.is_attached else 0.6
        return min(SPEEDS, key=lambda d: abs(d - delay))

    def on_select_changed(self, event: Select.Changed) -> None:
        sid = event.select.id or ""
        if sid == "num-seats" and isinstance(event.value, int):
            self._show_rows(event.value)
        elif sid.startswith("kind-"):
            self.query_one(f"#name-{sid[5:]}", Input).disabled = event.value != HUMAN
        elif sid == "delay" and isinstance(event.value, float):
            self.civ.delay = event.value

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
                rules = RuleSet.from_toml(rules_path)
            except RuleSetError as e:
                self.error(str(e))
                return
        seed_text = self.query_one("#seed", Input).value.strip()
        seed = int(seed_text) if seed_text.lstrip("-").isdigit() else None
        try:
            session = Session.new(self.seats(), rules=rules, seed=seed, save_path=self.civ.save_path)
        except ValueError as e:
            self.error(str(e))
            return
        self.civ.start_session(session)

    def action_resume(self) -> None:
        path = self.query_one("#resume", Input).value.strip()
        if not path:
            self.error("name a saved game (a record file) to resume")
            return
        try:
            session = Session.resume(Path(path), save_path=self.civ.save_path)
        except (RecordError, ValueError) as e:
            self.error(str(e))
            return
        self.civ.start_session(session)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(TABLE_KEYS))


class TableScreen(Screen[None]):
    """The table, seen by one seat at a time (``viewer``), with the bots playing in between."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark,f1", "help", "Help"),
        Binding("p", "pass_turn", "Pass"),
        Binding("m", "meld_builder", "Meld"),
        Binding("y", "pay_picker", "Pay with…", show=False),
        Binding("c", "confirm", "Confirm"),
        Binding("escape", "back", "Back", show=False),
        Binding("d", "focus_decision", "Decision", show=False),
        Binding("l", "focus_log", "Log", show=False),
        Binding("plus,equals_sign", "faster", "Faster"),
        Binding("minus", "slower", "Slower"),
        Binding("s", "save", "Save"),
        Binding("n", "new_game", "New game"),
        Binding("q", "app.quit", "Quit"),
        *(Binding(str(i), f"pick({i - 1})", str(i), show=False) for i in range(1, 10)),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        humans = session.humans
        # one human: always that seat; none: a spectator; hot-seat: chosen at each hand-over
        self.viewer: int | None = humans[0] if len(humans) == 1 else None
        self.hot_seat = len(humans) > 1
        self.handing_over = False

    @property
    def civ(self) -> CivliteApp:
        from .app import CivliteApp

        assert isinstance(self.app, CivliteApp)
        return self.app

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="table"):
            with VerticalScroll(id="left"):
                yield Panel("CT race", id="race")
                yield Panel("Opponents", id="opponents")
                yield Panel("Deck and discard (R3)", id="piles")
                yield Panel("Your hand", id="hand")
                yield Panel("Abilities (● now, ○ in your action phase)", id="abilities")
            with Vertical(id="right"):
                yield DecisionPanel(id="decision")
                yield LogPanel(id="log")
        yield Footer()

    def on_mount(self) -> None:
        for note in self.session.notices:
            self.notify(note, severity="warning", timeout=8)
        self._reset_log()
        self.refresh_table()
        self.after_step()

    # -- drawing ---------------------------------------------------------------
    def names(self) -> list[str]:
        return [self.session.label(i) for i in range(self.session.game.num_players)]

    def refresh_table(self) -> None:
        view = self.session.view(self.viewer)
        names = self.names()
        who = "spectator" if self.viewer is None else f"seat {self.viewer} ({names[self.viewer]})"
        self.title = "Civ Lite: Ancients"
        self.sub_title = (f"{who} · turn {view.turn} · rules {view.rules.name} · "
                          f"bot delay {self.civ.delay:g}s")
        self.query_one("#race", Panel).update(race_renderable(view, names))
        self.query_one("#opponents", Panel).update(opponents_renderable(view, names))
        self.query_one("#piles", Panel).update(piles_renderable(view))
        hand = self.query_one("#hand", Panel)
        hand.border_title = f"Your hand ({len(view.hand)} cards)" if view.seat is not None else "Hand"
        hand.update(hand_renderable(view))
        self.query_one("#abilities", Panel).update(abilities_renderable(view))
        self._show_decision()

    def _show_decision(self) -> None:
        self._update_decision()
        self.refresh_bindings()

    def _update_decision(self) -> None:
        s = self.session
        panel = self.query_one(DecisionPanel)
        view = s.view(self.viewer)
        names = self.names()
        if view.over:
            if view.winner is not None:
                text = (f"[b green]Game over: seat {view.winner} ({names[view.winner]}) wins "
                        f"with {seat_ct(view, view.winner)} CT[/] on turn {view.turn} (R8.1).")
            else:
                text = (f"[b]Game over: the turn limit is reached, a draw between seats "
                        f"{', '.join(map(str, view.drawn))}[/] (R8.2).")
            panel.show_over(text + "\n\n[b]s[/b] saves the record, [b]n[/b] starts a new game, [b]q[/b] quits.")
            return
        p = view.pending
        assert p is not None
        if self.handing_over or self.viewer != p.player or s.is_bot(p.player):
            what = p.kind.replace("_", " ")
            panel.show_wait(f"Waiting for seat {p.player} ({names[p.player]}): {what}…")
            return
        if p.kind == "action":
            panel.show_choices(view, "[b]Your action[/b] (R4.2): activate one ability or pass "
                               "([b]y[/b]: choose which cards pay)", choices_for(view))
        elif p.kind == "meld":
            panel.show_choices(view, "[b]Meld phase[/b] (R4.3): meld 7 cards or pass", choices_for(view))
        elif p.kind in ("vision", "foundations"):
            where = "deck (R5.2)" if p.kind == "vision" else "discard pile (R5.3)"
            panel.show_choices(view, f"[b]{p.ability or p.kind}[/b]: take one card from the {where}",
                               choices_for(view))
        elif is_discard_kind(p.kind):
            why = {"fall_discard": f"hand limit {view.rules.hand_limit} (R4.4)"}.get(p.kind, p.ability or p.kind)
            panel.show_picker(view, "discard", f"[b]Discard exactly {p.count}[/b]: {why}; "
                              "[b]space[/b] picks, [b]c[/b] confirms")
        else:  # a decision kind this table does not know: still answerable by its legal choices
            panel.show_wait(f"unknown decision {p.kind!r}")

    # -- the flow of the game --------------------------------------------------
    def after_step(self) -> None:
        """Decide what happens next: the game is over, a bot moves, or a human (maybe after a hand-over)."""
        s = self.session
        p = s.to_move
        if p is None:
            self.refresh_table()
            return
        if s.is_bot(p):
            self.run_bots()
            return
        if self.hot_seat and p != self.viewer:
            self.handing_over = True
            self.refresh_table()
            kind = s.game.pending.kind if s.game.pending else ""
            why = f"Seat {p} decides: {kind.replace('_', ' ')}." if kind else ""
            self.app.push_screen(PassScreen(p, s.label(p), why), callback=lambda _: self._handed_over(p))
            return
        self.refresh_table()

    def _handed_over(self, seat: int) -> None:
        self.handing_over = False
        self.set_viewer(seat)

    def set_viewer(self, seat: int | None) -> None:
        self.viewer = seat
        self._reset_log()
        self.refresh_table()

    def _reset_log(self) -> None:
        """The whole log again, as the viewing seat may read it (after a hot-seat hand-over)."""
        log = self.query_one(LogPanel)
        g = self.session.game
        log.clear()
        log.write(Text(f"A game of {g.num_players} seats, rules {g.rules.name!r}. "
                       f"{'You are seat ' + str(self.viewer) if self.viewer is not None else 'Watching'}.",
                       style="grey62"))
        for line in self.session.log_lines(self.viewer):
            log.add_line(line)

    def _log_events(self, events: list[Any]) -> None:
        log = self.query_one(LogPanel)
        for e in events:
            log.add_line(event_line(e, self.viewer))

    @work(exclusive=True, group="bots")
    async def run_bots(self) -> None:
        s = self.session
        shown = False
        while (p := s.to_move) is not None and s.is_bot(p):
            delay = self.civ.delay
            if delay > 0 or not shown:  # at speed 0 the table is drawn only when the bots are done
                self.refresh_table()
                shown = True
            await asyncio.sleep(delay)
            # search bots think in a thread so that the table stays responsive
            action = await asyncio.to_thread(s.bot_action)
            if s.to_move != p:  # pragma: no cover - the game moved on meanwhile
                return
            self._log_events(s.apply(action))
        self.after_step()

    def on_decision_panel_chosen(self, message: DecisionPanel.Chosen) -> None:
        message.stop()
        self.play(message.action)

    def play(self, action: Any) -> bool:
        """Apply the viewing human's action; an illegal one is refused with its rule."""
        s = self.session
        p = s.to_move
        if p is None or p != self.viewer or s.is_bot(p) or self.handing_over:
            return False
        try:
            events = s.apply(action)
        except IllegalActionError as e:
            self.notify(str(e), severity="error", title="Not allowed")
            return False
        self._log_events(events)
        self.after_step()
        return True

    # -- key actions -------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show only the keys that do something now (``None``: shown greyed out)."""
        mode = self.query_one(DecisionPanel).mode if self.is_mounted else ""
        if action == "pass_turn":
            return (mode == "choices" and any(c.key == "pass" for c in self.query_one(DecisionPanel).choices)) or None
        if action == "meld_builder":
            return (mode == "choices" and any(c.key == "build" for c in self.query_one(DecisionPanel).choices)) or None
        if action == "confirm":
            return mode in ("discard", "meld", "pay") or None
        if action == "new_game":
            return mode == "over"
        return True

    def action_pick(self, index: int) -> None:
        self.query_one(DecisionPanel).pick(index)

    def action_pass_turn(self) -> None:
        self.query_one(DecisionPanel).choose_key("pass")

    def action_meld_builder(self) -> None:
        if not self.query_one(DecisionPanel).open_meld_builder():
            self.notify("the meld builder opens in your meld phase with the cards for a meld", timeout=3)

    def action_pay_picker(self) -> None:
        if not self.query_one(DecisionPanel).open_pay_picker():
            self.notify("y picks which cards pay for the highlighted ability, when you hold more of "
                        "its suit than it costs", timeout=3)

    def action_confirm(self) -> None:
        self.query_one(DecisionPanel).confirm()

    def action_back(self) -> None:
        self.query_one(DecisionPanel).back()

    def action_focus_decision(self) -> None:
        panel = self.query_one(DecisionPanel)
        for w in ("#choices", "#picker"):
            widget = panel.query_one(w)
            if widget.display:
                widget.focus()
                return

    def action_focus_log(self) -> None:
        self.query_one(LogPanel).focus()

    def action_faster(self) -> None:
        self.civ.change_speed(-1)
        self.refresh_table()

    def action_slower(self) -> None:
        self.civ.change_speed(+1)
        self.refresh_table()

    def action_save(self) -> None:
        path = self.session.save_path or self.civ.default_save_path()
        try:
            self.session.save(path)
        except OSError as e:
            self.notify(f"cannot save to {path}: {e.strerror}", severity="error")
            return
        self.session.save_path = path
        self.notify(f"saved to {path} (civlite replay {path})", title="Saved")

    def action_new_game(self) -> None:
        if self.session.game.is_over:
            self.civ.show_setup()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(TABLE_KEYS))


class ReplayScreen(Screen[None]):
    """A saved game, one action at a time, forward and back, as a spectator or one seat sees it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n", "step(1)", "Next"),
        Binding("left,b", "step(-1)", "Back"),
        Binding("home", "goto(0)", "Start", show=False),
        Binding("end", "goto(-1)", "End", show=False),
        Binding("t", "next_turn", "Next turn"),
        Binding("v", "cycle_view", "View as"),
        Binding("question_mark,f1", "help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, replay: Replay) -> None:
        super().__init__()
        self.replay = replay
        self.viewer: int | None = None

    def compose(self) -> ComposeResult:
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
        self.show()

    def names(self) -> list[str]:
        return [SeatSpec.from_record_name(n).label(i) for i, n in enumerate(self.replay.record.players)]

    def show(self) -> None:
        r = self.replay
        view = r.game.view(self.viewer)
        names = self.names()
        who = "spectator" if self.viewer is None else f"seat {self.viewer}"
        self.title = "Civ Lite: replay"
        self.sub_title = f"step {r.step}/{r.last} · viewed as {who} · rules {view.rules.name}"
        self.query_one("#race", Panel).update(race_renderable(view, names))
        self.query_one("#opponents", Panel).update(opponents_renderable(view, names))
        self.query_one("#piles", Panel).update(piles_renderable(view))
        self.query_one("#hand", Panel).update(hand_renderable(view))
        end = ""
        if view.over:
            end = (f"\nGame over: seat {view.winner} wins." if view.winner is not None
                   else f"\nGame over: a draw between seats {list(view.drawn)}.")
        self.query_one("#replay-step", Static).update(
            Text(f"Step {r.step} of {r.last}: {r.action_text()}{end}\n→ next  ← back  t next turn  v view as",
                 style="bold"))
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


def load_record(path: Path) -> GameRecord:
    return GameRecord.load(path)
