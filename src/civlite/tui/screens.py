"""Screens: set-up, the table, hot-seat hand-over, help, replay."""

from __future__ import annotations

import asyncio
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group
from rich.markdown import Markdown as RichMarkdown
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Center, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Header, Input, Label, Select, Static

from ..bots import LEVELS, level_label
from ..engine import (
    Card,
    GameRecord,
    IllegalActionError,
    Pass,
    RecordError,
    RuleSet,
    RuleSetError,
    StaleDecisionError,
)
from .session import (
    BOT_LEVELS,
    HUMAN,
    Replay,
    SeatSpec,
    Session,
    choices_for,
    event_line,
    hand_by_suit,
    last_unfinished,
    loggable,
    meld_possible,
    new_autosave_path,
)
from .widgets import (
    SUIT_STYLE,
    DecisionPanel,
    LogPanel,
    Panel,
    abilities_renderable,
    cards_text,
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
KIND_OPTIONS = [("human", HUMAN)] + [(f"bot: {level_label(b) if b in LEVELS else b}", b) for b in BOT_LEVELS]

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
    ("v", "the whole discard pile (it is public, R3.2)"),
    ("a", "automatic meld pass on / off for you: passes your meld phase when no meld is possible (R9.1)"),
    ("+ / -", "bots move faster / slower"),
    ("s", "save the game now (it is also saved after every move)"),
    ("r / n", "results / new game (when the game is over)"),
    ("ctrl+p", "the command palette: every command by name"),
    ("? or f1", "this help"),
    ("q", "quit (asks first in the middle of a game; civlite play --continue plays on)"),
]
REPLAY_KEYS: list[tuple[str, str]] = [
    ("→ or n", "next action"),
    ("← or b", "previous action"),
    ("home / end", "first / last position"),
    ("t", "jump to the next turn"),
    ("v", "view as the next seat (or spectator)"),
    ("x", "the whole discard pile"),
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


class CompactLayout:
    """A screen that switches to its compact layout (the ``compact`` class) below 110x36."""

    #: below this size the table is compact: the decision first, CT totals on one line each
    COMPACT_BELOW = (110, 36)

    def _set_compact(self) -> bool:
        """Switch the compact layout on or off for the terminal's size; True if it changed."""
        assert isinstance(self, Screen)
        w, h = self.app.size
        compact = w < self.COMPACT_BELOW[0] or h < self.COMPACT_BELOW[1]
        if compact == self.has_class("compact"):
            return False
        self.set_class(compact, "compact")
        return True


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
        if s.save_path is not None and s.save_error is None:
            where = Text.assemble("The game is saved in ", (str(s.save_path), "bold"), ".\n",
                                  ("civlite play --continue", "bold cyan"), " (or ",
                                  (f"--resume {s.save_path}", "bold cyan"), ") plays on.")
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


def results_renderable(session: Session) -> Group:
    """The end of a game: who won and how, the standings by CT, and every hand, now revealed."""
    g = session.game
    v = session.view(None)
    names = session.names
    ct = [seat_ct(v, i) for i in range(v.num_players)]
    if v.winner is not None:
        head = Text(f"{names[v.winner]} wins with {ct[v.winner]} CT on turn {v.turn} (R8.1).", style="bold green")
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
        Binding("n", "new_game", "New game"),
        Binding("s", "save", "Save"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, table: TableScreen) -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="results-box") as box:
            box.border_title = "Game over"
            yield Static(results_renderable(self.table.session), id="results")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#results-box").focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_discard_pile(self) -> None:
        self.table.action_discard_pile()

    def action_save(self) -> None:
        self.table.action_save()

    def action_new_game(self) -> None:
        self.dismiss(None)
        self.table.action_new_game()


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

    @property
    def civ(self) -> CivliteApp:
        from .app import CivliteApp

        assert isinstance(self.app, CivliteApp)
        return self.app

    def on_mount(self) -> None:
        self._show_rows(len(self.initial))
        resume = self.query_one("#resume", Input)
        if not resume.value:  # offer the last unfinished game
            last = last_unfinished(self.civ.autosave_dir)
            if last is not None:
                resume.value = str(last)
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


class TableScreen(CompactLayout, Screen[None]):
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
        Binding("v", "discard_pile", "Discard pile"),
        Binding("a", "auto_meld", "Auto-pass meld", show=False),
        Binding("plus,equals_sign", "faster", "Faster", show=False),
        Binding("minus", "slower", "Slower", show=False),
        Binding("s", "save", "Save", show=False),
        Binding("r", "results", "Results"),
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
        self.results_shown = False
        self._save_error_shown: str | None = None

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
                yield Panel("Abilities", id="abilities")
            with Vertical(id="right"):
                yield DecisionPanel(id="decision")
                yield LogPanel(id="log")
        yield Footer()

    def on_mount(self) -> None:
        for note in self.session.notices:
            self.notify(note, severity="warning", timeout=8)
        self._set_compact()
        self._reset_log()
        self.refresh_table()
        self.after_step()

    def on_resize(self) -> None:
        if self._set_compact():
            self.refresh_table()

    # -- drawing ---------------------------------------------------------------
    def names(self) -> list[str]:
        return self.session.names

    def refresh_table(self) -> None:
        view = self.session.view(self.viewer)
        names = self.names()
        who = "spectator" if self.viewer is None else f"seat {self.viewer} ({names[self.viewer]})"
        self.title = "Civ Lite: Ancients"
        auto = ""
        if self.viewer is not None and not self.session.is_bot(self.viewer):
            auto = f" · auto-pass meld {'on' if self.viewer in self.session.auto_pass_meld else 'off'}"
        self.sub_title = (f"{who} · turn {view.turn} · rules {view.rules.name} · "
                          f"bot delay {self.civ.delay:g}s{auto}")
        compact = self.has_class("compact")
        self.query_one("#race", Panel).update(race_renderable(view, names, compact=compact))
        self.query_one("#opponents", Panel).update(opponents_renderable(view, names))
        self.query_one("#piles", Panel).update(piles_renderable(view, compact=compact))
        hand = self.query_one("#hand", Panel)
        hand.border_title = f"Your hand ({len(view.hand)} cards)" if view.seat is not None else "Hand"
        hand.update(hand_renderable(view))
        self.query_one("#abilities", Panel).update(abilities_renderable(view, self.session.choices(self.viewer)))
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
                text = Text(f"Game over: {names[view.winner]} wins with {seat_ct(view, view.winner)} CT "
                            f"on turn {view.turn} (R8.1).", style="bold green")
            else:
                text = Text(f"Game over: the turn limit is reached, a draw between "
                            f"{', '.join(names[i] for i in view.drawn)} (R8.2).", style="bold")
            text.append_text(Text.from_markup("\n\n[b]r[/b] shows the standings and every hand, "
                                              "[b]n[/b] starts a new game, [b]q[/b] quits."))
            panel.show_over(text)
            return
        p = view.pending
        assert p is not None
        if self.handing_over or self.viewer != p.player or s.is_bot(p.player):
            what = p.kind.replace("_", " ")
            panel.show_wait(Text(f"Waiting for {names[p.player]} (seat {p.player}): {what}…"))
            return
        options = s.choices(self.viewer)
        listed = choices_for(options, names)
        if options.kind == "action":
            panel.show_choices(view, options, "[b]Your action[/b] (R4.2): activate one ability or pass "
                               "([b]y[/b]: choose which cards pay)", listed)
        elif options.kind == "meld":
            panel.show_choices(view, options, "[b]Meld phase[/b] (R4.3): meld 7 cards or pass", listed)
        elif options.take is not None:
            where = "deck (R5.2)" if options.take.source == "deck" else "discard pile (R5.3)"
            panel.show_choices(view, options, f"[b]{options.ability or p.kind}[/b]: take one card from the {where}",
                               listed)
        elif options.discard is not None:
            d = options.discard
            panel.show_picker(view, options, "discard", Text.assemble(
                (f"Discard exactly {d.count}", "bold"), f": {d.reason}; ", ("space", "bold"), " picks, ",
                ("c", "bold"), " confirms"))
        else:  # a decision kind this table does not know
            panel.show_wait(Text(f"unknown decision {p.kind!r}"))

    # -- the flow of the game --------------------------------------------------
    def after_step(self) -> None:
        """Decide what happens next: the game is over, a bot moves, or a human (maybe after a hand-over)."""
        s = self.session
        self._report_save_error()
        p = s.to_move
        if p is None:
            self.refresh_table()
            if not self.results_shown:
                self.results_shown = True
                self.action_results()
            return
        if s.is_bot(p):
            self.run_bots()
            return
        if self._auto_pass_meld(p):
            return
        if self.hot_seat and p != self.viewer:
            self.handing_over = True
            self.refresh_table()
            kind = s.game.pending.kind if s.game.pending else ""
            why = f"Seat {p} decides: {kind.replace('_', ' ')}." if kind else ""
            self.app.push_screen(PassScreen(p, s.label(p), why), callback=lambda _: self._handed_over(p))
            return
        self.refresh_table()

    def _auto_pass_meld(self, seat: int) -> bool:
        """R9.1: pass ``seat``'s meld decision by itself when its setting is on and no meld is possible."""
        s = self.session
        p = s.game.pending
        if p is None or p.kind != "meld" or seat not in s.auto_pass_meld or meld_possible(s.choices(seat)):
            return False
        events = s.apply(Pass())
        self._log_events(events)
        self.notify(f"{s.label(seat)}: no meld is possible, passed by itself (a turns this off)",
                    timeout=3)
        self.after_step()
        return True

    def _report_save_error(self) -> None:
        err = self.session.save_error
        if err and err != self._save_error_shown:
            self.notify(err + " (s tries again)", severity="error", title="Not saved", timeout=10)
        self._save_error_shown = err

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
        you = f"You are {self.session.label(self.viewer)} (seat {self.viewer})" if self.viewer is not None else "Watching"
        log.write(Text(f"A game of {g.num_players} seats, rules {g.rules.name!r}. {you}.", style="grey62"))
        for line in self.session.log_lines(self.viewer):
            log.add_line(line)

    def _log_events(self, events: list[Any]) -> None:
        log = self.query_one(LogPanel)
        names = self.session.names
        for e in loggable(events):
            log.add_line(event_line(e, self.viewer, names))

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
        self.play(message.action, message.decision)

    def play(self, action: Any, decision: int | None = None) -> bool:
        """Apply the viewing human's action; an illegal one is refused with its rule."""
        s = self.session
        p = s.to_move
        if p is None or p != self.viewer or s.is_bot(p) or self.handing_over:
            return False
        try:
            events = s.apply(action, decision)
        except StaleDecisionError:
            self.notify("That answer came late: this decision was already answered, the table has moved on.",
                        severity="warning")
            return False
        except IllegalActionError as e:
            self.notify(str(e), severity="error", title="Not allowed")
            return False
        self._log_events(events)
        self.after_step()
        return True

    # -- key actions -------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show only the keys that do something now (the footer is short at 80 columns)."""
        panel = self.query_one(DecisionPanel) if self.is_mounted else None
        mode = panel.mode if panel is not None else ""
        if action == "pass_turn":
            return panel is not None and mode == "choices" and any(c.key == "pass" for c in panel.choices)
        if action == "meld_builder":
            return panel is not None and mode == "choices" and any(c.key == "build" for c in panel.choices)
        if action == "confirm":
            return mode in ("discard", "meld", "pay")
        if action in ("new_game", "results"):
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
        path = self.session.save_path or new_autosave_path(self.civ.autosave_dir)
        try:
            self.session.save(path)
        except OSError as e:
            self.notify(f"cannot save to {path}: {e.strerror}", severity="error")
            return
        self.session.save_path = path
        self.session.save_error = None
        self._save_error_shown = None
        self.notify(f"saved to {path} (civlite replay {path})", title="Saved")

    def action_new_game(self) -> None:
        if self.session.game.is_over:
            self.civ.show_setup()

    def action_results(self) -> None:
        if self.session.game.is_over and not isinstance(self.app.screen, ResultsScreen):
            self.app.push_screen(ResultsScreen(self))

    def action_discard_pile(self) -> None:
        if not isinstance(self.app.screen, DiscardScreen):
            self.app.push_screen(DiscardScreen(self.session.view(self.viewer).discard))

    def action_auto_meld(self) -> None:
        """Turn the automatic meld pass on or off for the seat at the screen (a player's setting, R9.1)."""
        seat = self.viewer
        s = self.session
        if seat is None or s.is_bot(seat):
            self.notify("the automatic meld pass is a setting of the player at the screen", timeout=3)
            return
        on = seat not in s.auto_pass_meld
        (s.auto_pass_meld.add if on else s.auto_pass_meld.discard)(seat)
        self.notify(f"automatic meld pass {'on' if on else 'off'} for {s.label(seat)}", timeout=3)
        self.refresh_table()
        if on and s.to_move == seat and not self.handing_over:
            self._auto_pass_meld(seat)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(TABLE_KEYS))


class ReplayScreen(CompactLayout, Screen[None]):
    """A saved game, one action at a time, forward and back, as a spectator or one seat sees it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n", "step(1)", "Next"),
        Binding("left,b", "step(-1)", "Back"),
        Binding("home", "goto(0)", "Start", show=False),
        Binding("end", "goto(-1)", "End", show=False),
        Binding("t", "next_turn", "Next turn"),
        Binding("v", "cycle_view", "View as"),
        Binding("x", "discard_pile", "Discard pile"),
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
        self.query_one("#piles", Panel).update(piles_renderable(view, compact=compact, pile_key="x"))
        self.query_one("#hand", Panel).update(hand_renderable(view))
        end = ""
        if view.over:
            end = (f"\nGame over: {names[view.winner]} wins." if view.winner is not None
                   else f"\nGame over: a draw between {', '.join(names[i] for i in view.drawn)}.")
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
