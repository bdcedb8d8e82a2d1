"""The table: a game played by humans (hot-seat) and bots, and its results at the end."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static

from ..engine import Card, IllegalActionError, Pass, StaleDecisionError
from . import dialogs
from .choices import choices_for, meld_possible
from .dialogs import DiscardScreen, HelpScreen, PassScreen, SaveAsScreen, TurnOverScreen
from .options import TABLE_KEYS, BotDelayChanged, step_speed
from .recap import recap, since_last_turn
from .results import ResultsScreen
from .review import show_hint
from .session import Session, event_line, loggable, new_autosave_path
from .widgets import (
    CHOICE_KEYS,
    CompactLayout,
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


class TableScreen(CompactLayout, Screen[None]):
    """The table, seen by one seat at a time (``viewer``), with the bots playing in between."""

    # Every key of the table is a priority binding: the app handles it the moment it arrives,
    # in order, and an answer is played at once (DecisionPanel.on_answer), so keys typed in a
    # burst or pasted (down space down space c) act exactly as if typed slowly. Keys that
    # go to a widget's own queue could be handled after later keys.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark,f1", "help", "Help", priority=True),
        Binding("p", "pass_turn", "Pass", priority=True),
        Binding("m", "meld_builder", "Meld", priority=True),
        Binding("y", "pay_picker", "Pay with…", show=False, priority=True),
        Binding("c", "confirm", "Confirm", priority=True),
        Binding("space", "toggle_card", "Pick", show=False, priority=True),
        Binding("enter", "answer", "Answer", show=False, priority=True),
        *(Binding(key, f"move('{how}')", how, show=False, priority=True)
          for key, how in (("up", "cursor_up"), ("down", "cursor_down"), ("home", "first"), ("end", "last"),
                           ("pageup", "page_up"), ("pagedown", "page_down"))),
        Binding("escape", "back", "Back", show=False, priority=True),
        Binding("d", "focus_decision", "Decision", show=False, priority=True),
        Binding("l", "focus_log", "Log", show=False, priority=True),
        Binding("v", "discard_pile", "Discard pile", priority=True),
        Binding("a", "auto_meld", "Auto-pass meld", show=False, priority=True),
        Binding("plus,equals_sign", "faster", "Faster", show=False, priority=True),
        Binding("minus", "slower", "Slower", show=False, priority=True),
        Binding("s", "save", "Save", show=False, priority=True),
        Binding("r", "results", "Results", priority=True),
        Binding("g", "new_game", "New game", priority=True),
        Binding("H", "hint", "Hint", priority=True),
        Binding("q", "app.quit", "Quit", priority=True),
        *(Binding(k, f"pick({i})", k, show=False, priority=True) for i, k in enumerate(CHOICE_KEYS)),
    ]

    class NewGame(Message):
        """The game is over and the player asks for a new one (the set-up screen)."""

    def __init__(self, session: Session, *, delay: float = 0.6, autosave_dir: Path | None = None) -> None:
        super().__init__()
        self.session = session
        #: seconds a bot waits before it moves
        self.delay = delay
        #: where a game with no file of its own is saved by ``s``
        self.autosave_dir = autosave_dir
        humans = session.humans
        # one human: always that seat; none: a spectator; hot-seat: chosen at each hand-over
        self.viewer: int | None = humans[0] if len(humans) == 1 else None
        self.hot_seat = len(humans) > 1
        self.handing_over = False
        #: hot-seat: from the start of a hand-off until the next player's table has been shown
        #: for dialogs.HANDOFF_GRACE seconds, every key typed is swallowed (the app drops key
        #: events older than this moment, on the event clock, whenever they are handled)
        self.keys_open_at = 0.0
        self.results_shown = False
        self._save_error_shown: str | None = None
        #: each human seat's hand after its last move: what is new or lost since is marked
        self._hand_seen: dict[int, frozenset[Card]] = {}
        #: how many events there were when the seat at the screen took it (hot-seat), and whose
        #: turn it was then
        self._since = len(session.events)
        self._since_active = session.game.active

    def compose(self) -> ComposeResult:
        yield Static(id="too-small")
        yield Header()
        yield Static(id="last-turn")
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
        self.query_one(DecisionPanel).on_answer = self.play
        for seat in self.session.humans:
            self._moved(seat)
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
                          f"bot delay {self.delay:g}s{auto}")
        compact = self.has_class("compact")
        self.query_one("#race", Panel).update(race_renderable(view, names, compact=compact))
        self.query_one("#opponents", Panel).update(opponents_renderable(view, names))
        self.query_one("#piles", Panel).update(piles_renderable(view, compact=compact))
        hand = self.query_one("#hand", Panel)
        new, lost = self._hand_marks(view.hand)
        marks = " · +new" * bool(new) + " · −lost" * bool(lost)
        hand.border_title = f"Your hand: {len(view.hand)}{marks}" if view.seat is not None else "Hand"
        hand.update(hand_renderable(view, new, lost, compact=compact))
        self.query_one("#last-turn", Static).update(self._last_turn_text())
        self.query_one("#abilities", Panel).update(abilities_renderable(view, self.session.choices(self.viewer)))
        self._show_decision()

    def _hand_marks(self, hand: tuple[Card, ...] | list[Card]) -> tuple[frozenset[Card], list[Card]]:
        """The viewing seat's cards come since its last move, and those gone since."""
        seat = self.viewer
        if seat is None or self.session.is_bot(seat):
            return frozenset(), []
        now = frozenset(hand)
        seen = self._hand_seen.setdefault(seat, now)
        return now - seen, sorted(seen - now)

    def _moved(self, seat: int) -> None:
        """``seat`` has just moved: its hand as it is now is the one later marks compare with."""
        self._hand_seen[seat] = frozenset(self.session.view(seat).hand)

    def _last_turn_text(self) -> Text:
        """The strip over the table: what the other seats did since the viewer's last turn
        (for a spectator: the last turn), as the viewer may know it."""
        s = self.session
        lo, hi = since_last_turn(s.events, self.viewer)
        lines = recap(s.events, self.viewer, s.names, lo, hi)
        # what was done to you first: the strip has two lines, the log keeps the whole story
        lines.sort(key=lambda line: not re.search(r"\byour?\b", line.partition(": ")[2]))
        head = "Last turn" if self.viewer is None else "Since your turn"
        text = Text(no_wrap=False, overflow="ellipsis")
        text.append(f"{head}: ", style="bold")
        if not lines:
            text.append("nothing yet" if s.game.turn <= 1 else "no other turn", style="grey62")
        for i, line in enumerate(lines):
            if i:
                text.append("  ▸ ", style="grey50")
            name, _, rest = line.partition(": ")
            text.append(name + ": ", style="bold cyan")
            text.append(rest)
        return text

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
                who = "you win" if view.winner == self.viewer else f"{names[view.winner]} wins"
                text = Text(f"Game over: {who} with {seat_ct(view, view.winner)} CT "
                            f"on turn {view.turn} (R8.1).", style="bold green")
            else:
                text = Text(f"Game over: the turn limit is reached, a draw between "
                            f"{', '.join(names[i] for i in view.drawn)} (R8.2).", style="bold")
            text.append_text(Text.from_markup("\n\n[b]r[/b] shows the standings and every hand, "
                                              "[b]g[/b] starts a new game, [b]q[/b] quits."))
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
            self._hand_over(p)
            return
        self.refresh_table()

    def _hand_over(self, seat: int) -> None:
        """Hot-seat: the seat at the screen first sees what its turn did (its own view), then a
        screen that shows nothing of the table covers it until ``seat``'s player is ready.
        No toast stays up over the hand-off: a notice may speak of the previous hand."""
        s = self.session
        self.handing_over = True
        if dialogs.HANDOFF_GRACE > 0:
            self.keys_open_at = float("inf")
        self.refresh_table()
        outgoing = self.viewer
        # the outgoing seat's turn is over when another's has started (not for a discard asked
        # in the middle of a turn, R5 Setback)
        starts = [i for i, e in enumerate(s.events) if e.kind == "turn" and i >= self._since]
        done = (recap(s.events, outgoing, s.names, self._since, starts[-1], active=self._since_active)
                if outgoing is not None and starts and s.events[starts[-1]].player != outgoing else [])

        def pass_screen(_: object = None) -> None:
            self.app.clear_notifications()
            kind = s.game.pending.kind if s.game.pending else ""
            why = f"Seat {seat} decides: {kind.replace('_', ' ')}." if kind else ""
            self.app.push_screen(PassScreen(seat, s.label(seat), why), callback=lambda _: self._handed_over(seat))

        if done and outgoing is not None:
            self.app.push_screen(TurnOverScreen(s.label(outgoing), done, s.label(seat)), callback=pass_screen)
        else:
            pass_screen()

    def _auto_pass_meld(self, seat: int) -> bool:
        """R9.1: pass ``seat``'s meld decision by itself when its setting is on and no meld is possible."""
        s = self.session
        p = s.game.pending
        if p is None or p.kind != "meld" or seat not in s.auto_pass_meld or meld_possible(s.choices(seat)):
            return False
        events = s.apply(Pass())
        self._moved(seat)
        # a line of this seat's own log, never a toast: it would stay up over a hot-seat hand-off
        line = "R9.1 no meld is possible: your meld phase passed by itself (a turns this off)"
        s.note(seat, line)
        self._log_events(events)
        if self.viewer == seat:
            self.query_one(LogPanel).add_line(line)
        self.after_step()
        return True

    def _report_save_error(self) -> None:
        err = self.session.save_error
        if err and err != self._save_error_shown:
            self.notify(err + " (s saves it to another file)", severity="error", title="Not saved", timeout=10)
        self._save_error_shown = err

    def _handed_over(self, seat: int) -> None:
        self.handing_over = False
        self._since = len(self.session.events)
        self._since_active = self.session.game.active
        self.set_viewer(seat)
        # keys open only once this table has been drawn for the new player, and a grace later
        self.call_after_refresh(self._start_grace)

    def _start_grace(self) -> None:
        if not self.handing_over:  # (another hand-off may have begun meanwhile)
            self.keys_open_at = dialogs.event_clock() + dialogs.HANDOFF_GRACE

    @property
    def keys_closed(self) -> bool:
        """Whether the table swallows keys now (a hot-seat hand-off and its grace)."""
        return dialogs.event_clock() < self.keys_open_at

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
        for note in self.session.notices:  # what resuming it said (no secret: files and settings)
            log.write(Text(note, style="yellow"))
        for line in self.session.log_lines(self.viewer, you=True):
            log.add_line(line)

    def _log_events(self, events: list[Any]) -> None:
        log = self.query_one(LogPanel)
        names = self.session.names
        for e in loggable(events):
            log.add_line(event_line(e, self.viewer, names, you=True))

    @work(exclusive=True, group="bots")
    async def run_bots(self) -> None:
        s = self.session
        shown = False
        while (p := s.to_move) is not None and s.is_bot(p):
            delay = self.delay
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
        if p is None or p != self.viewer or s.is_bot(p) or self.handing_over or self.keys_closed:
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
        self._moved(p)
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

    def _decision_keys(self) -> DecisionPanel:
        """The decision panel, for a key that moves in it; skipped (the key goes on to the
        focused widget) while another widget than a list has the focus: the arrows scroll the
        log, enter presses a focused button."""
        if self.focused is not None and not isinstance(self.focused, OptionList):
            raise SkipAction()
        return self.query_one(DecisionPanel)

    def action_pick(self, index: int) -> None:
        if self.keys_closed:
            return
        self.query_one(DecisionPanel).pick(index)

    def action_move(self, how: str) -> None:
        if self.keys_closed:
            return
        if not self._decision_keys().move(how):
            raise SkipAction()

    def action_toggle_card(self) -> None:
        if self.keys_closed:
            return
        if not self._decision_keys().toggle():
            raise SkipAction()

    def action_answer(self) -> None:
        if self.keys_closed:
            return
        if not self._decision_keys().select_highlighted():
            raise SkipAction()

    def action_pass_turn(self) -> None:
        if self.keys_closed:
            return
        self.query_one(DecisionPanel).choose_key("pass")

    def action_meld_builder(self) -> None:
        if self.keys_closed:
            return
        if not self.query_one(DecisionPanel).open_meld_builder():
            self.notify("the meld builder opens in your meld phase with the cards for a meld", timeout=3)

    def action_pay_picker(self) -> None:
        if self.keys_closed:
            return
        if not self.query_one(DecisionPanel).open_pay_picker():
            self.notify("y picks which cards pay for the highlighted ability, when you hold more of "
                        "its suit than it costs", timeout=3)

    def action_confirm(self) -> None:
        if self.keys_closed:
            return
        self.query_one(DecisionPanel).confirm()

    def action_back(self) -> None:
        if self.keys_closed:
            return
        self.query_one(DecisionPanel).back()

    def action_focus_decision(self) -> None:
        if self.keys_closed:
            return
        panel = self.query_one(DecisionPanel)
        for w in ("#choices", "#picker"):
            widget = panel.query_one(w)
            if widget.display:
                widget.focus()
                return

    def action_focus_log(self) -> None:
        if self.keys_closed:
            return
        self.query_one(LogPanel).focus()

    def action_faster(self) -> None:
        if self.keys_closed:
            return
        self._change_speed(-1)

    def action_slower(self) -> None:
        if self.keys_closed:
            return
        self._change_speed(+1)

    def _change_speed(self, step: int) -> None:
        self.delay = step_speed(self.delay, step)
        self.notify(f"bot delay {self.delay:g} s", timeout=2)
        self.post_message(BotDelayChanged(self.delay))
        self.refresh_table()

    def action_save(self) -> None:
        """Save now; when saving to the game's file fails (or failed after a move), ask for another."""
        if self.keys_closed:
            return
        s = self.session
        path = s.save_path or new_autosave_path(self.autosave_dir)
        if s.save_error is not None:
            self._ask_save_path(path, s.save_error)
            return
        self._save_to(path)

    def _save_to(self, path: Path | None) -> None:
        if path is None:  # the question was cancelled
            return
        s = self.session
        try:
            s.save(path)
        except OSError as e:
            self._ask_save_path(path, f"cannot save to {path}: {e.strerror or e}")
            return
        s.save_path = path  # the saves after every move go there from now on
        s.save_error = None
        self._save_error_shown = None
        self.notify(f"saved to {path} (civlite replay {path})", title="Saved")

    def _ask_save_path(self, failed: Path, why: str) -> None:
        """Another file to save to: the user data dir's next file, or the working directory's."""
        offer = new_autosave_path(self.autosave_dir)
        if offer.parent == failed.parent:
            offer = Path.cwd() / failed.name
        self.app.push_screen(SaveAsScreen(why, offer), callback=self._save_to)

    def action_new_game(self) -> None:
        if self.session.game.is_over:
            self.post_message(self.NewGame())

    def action_results(self) -> None:
        if self.session.game.is_over and not isinstance(self.app.screen, ResultsScreen):
            self.app.push_screen(ResultsScreen(self))

    def action_discard_pile(self) -> None:
        if self.keys_closed:
            return
        if not isinstance(self.app.screen, DiscardScreen):
            self.app.push_screen(DiscardScreen(self.session.view(self.viewer).discard))

    def action_auto_meld(self) -> None:
        """Turn the automatic meld pass on or off for the seat at the screen (a player's setting, R9.1)."""
        if self.keys_closed:
            return
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
        if self.keys_closed:
            return
        self.app.push_screen(HelpScreen(TABLE_KEYS))

    def action_hint(self) -> None:
        """The best option of the decision at the screen, with a one-line reason (civlite.review)."""
        if self.keys_closed:
            return
        seat = self.viewer
        view = None if seat is None or self.session.is_bot(seat) or self.handing_over else self.session.view(seat)
        show_hint(self, view, self.names())
