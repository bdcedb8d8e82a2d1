"""The table's panels, each drawn from a :class:`~civlite.engine.View` only, and the compact layout."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Group, RenderableType
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Button, OptionList, RichLog, SelectionList, Static
from textual.widgets._toggle_button import ToggleButton
from textual.widgets.option_list import Option, OptionDoesNotExist
from textual.widgets.selection_list import Selection

from ..engine import Action, Card, Choices, Suit, View
from .choices import Choice, check_discard, check_meld, check_pay, hand_by_suit

#: one colour per suit (R1.1), used everywhere a card is shown
SUIT_STYLE: dict[Suit, str] = {
    Suit.CIVILIZATION: "bold gold1",
    Suit.LEADER: "bold medium_purple1",
    Suit.WONDER: "bold cyan",
    Suit.ADVANCE: "bold green3",
    Suit.MILITARY: "bold red1",
    Suit.BUILDING: "bold dark_orange",
    Suit.DISASTER: "bold grey70",
    Suit.BOON: "bold hot_pink",
}
LETTER_STYLE = {s.letter: st for s, st in SUIT_STYLE.items()}


def card_text(card: Card, *, letter: bool = True) -> Text:
    # a styled span, not a base style: Textual's Content (option prompts) keeps only spans
    return Text().append(f"{card.suit.letter}:{card.name}" if letter else card.name, style=SUIT_STYLE[card.suit])


def cards_text(cards: Sequence[Card], sep: str = ", ", letter: bool = True) -> Text:
    out = Text()
    for i, c in enumerate(cards):
        if i:
            out.append(sep)
        out.append_text(card_text(c, letter=letter))
    return out


def fit_name(text: str, width: int) -> str:
    """``text`` in ``width`` cells, cut at a word's end with "…" when it is longer (mid-word
    only for a single word longer than the room)."""
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    space = cut.rfind(" ")
    if space > 3:  # keep the seat mark and number with at least one whole word
        cut = cut[:space]
    return cut.rstrip() + "…"


def seat_ct(view: View, seat: int) -> int:
    if seat == view.seat:
        return view.ct or 0
    return view.player(seat).ct


def race_renderable(view: View, names: Sequence[str], width: int = 24, *, compact: bool = False) -> RenderableType:
    """The CT race: one line per seat towards the victory target (R8.1): its CT and a bar,
    and in the compact layout its hand size instead of the bar."""
    target = view.rules.victory_ct
    t = Table.grid(padding=(0, 1))
    t.add_column(no_wrap=True, ratio=1 if compact else None)
    t.add_column(no_wrap=True, justify="right")
    t.add_column(no_wrap=True)
    for seat in range(view.num_players):
        ct = seat_ct(view, seat)
        mark = "▶" if view.pending is not None and view.pending.player == seat else " "
        who = Text(fit_name(f"{mark}{seat} {names[seat]}", 17 if compact else 18),
                   style="bold" if seat == view.seat else "")
        style = "bold green" if view.winner == seat else ("yellow" if seat == view.seat else "blue")
        if compact:
            cards = len(view.hand) if seat == view.seat else view.player(seat).hand_size
            t.add_row(who, Text(f"{ct}/{target}", style=style), Text(f"{cards} cards", style="grey62"))
            continue
        filled = min(width, round(width * ct / target)) if target else width
        bar = Text("█" * filled, style=style) + Text("░" * (width - filled), style="grey35")
        t.add_row(who, Text(f"{ct}/{target} CT"), bar)
    if not compact:
        return t
    known = [p for p in view.players if p.known]
    if not known:
        return t
    lines = Text("known: ", style="grey62")
    for i, p in enumerate(known):
        lines.append(" · " if i else "")
        lines.append(f"{names[p.seat]} ", style="grey62")
        lines.append_text(cards_text(p.known, letter=False))
    return Group(t, lines)


def opponents_renderable(view: View, names: Sequence[str]) -> RenderableType:
    t = Table(box=None, padding=(0, 1), expand=True, show_edge=False)
    t.add_column("seat", no_wrap=True)
    t.add_column("hand", justify="right")
    t.add_column("CT", justify="right")
    t.add_column("known cards (R5 Contact, Raid)", ratio=1)
    for p in view.players:
        t.add_row(f"{p.seat} {names[p.seat]}", str(p.hand_size), str(p.ct),
                  cards_text(p.known) if p.known else Text("—", style="grey50"))
    return t


def piles_renderable(view: View, *, compact: bool = False) -> RenderableType:
    line = Text()
    line.append(f"Deck {view.deck_size}", style="bold")
    line.append(f"   Discard {len(view.discard)}", style="bold")
    line.append(" (v: all)", style="grey62")
    if compact:  # the turn, the seat and the phase are in the title, the race and the decision
        top = Text("top: ", no_wrap=True, overflow="ellipsis")
        top.append_text(cards_text(list(reversed(view.discard[-3:]))) if view.discard else Text("—"))
        return Group(line, top)
    if view.discard:
        line.append("   top: ")
        line.append_text(cards_text(list(reversed(view.discard[-5:]))))
    info = Text(f"turn {view.turn} · seat {view.active} · {view.phase} phase", style="grey70")
    if view.extra_turn:
        info.append(" · extra turn (R6.4)", style="yellow")
    if view.supply is not None:
        info.append(f" · CT supply {view.supply}")
    return Group(line, info)


def hand_renderable(view: View, new: frozenset[Card] = frozenset(), lost: Sequence[Card] = (), *,
                    compact: bool = False) -> RenderableType:
    """The hand by suit; ``new`` cards (come since the seat's last move) carry a ``+`` and are
    underlined, ``lost`` ones (gone since then: taken, discarded for another) are listed struck
    out after a ``−``: marks, not colour alone. ``compact`` (80x24): each suit by its letter
    only, so that a hand of 11 cards and more fits without a scrollbar."""
    if view.seat is None:
        return Text("spectator: no hand is shown", style="grey50")
    if not view.hand and not lost:
        return Text("(no cards)", style="grey50")
    t = Table.grid(padding=(0, 1))
    t.add_column(no_wrap=True)
    t.add_column(ratio=1)
    for suit, cards in hand_by_suit(view.hand).items():
        line = Text()
        for i, c in enumerate(cards):
            if i:
                line.append(", ")
            if c in new:
                line.append("+" + c.name, style=f"{SUIT_STYLE[c.suit]} underline")
            else:
                line.append(c.name, style=SUIT_STYLE[c.suit])
        label = f"{suit.letter}×{len(cards)}" if compact else f"{suit.letter} {suit.title} ×{len(cards)}"
        t.add_row(Text(label, style=SUIT_STYLE[suit]), line)
    if not lost:
        return t
    gone = Text("lost: ", style="bold")
    for i, c in enumerate(sorted(lost)):
        gone.append(", " if i else "")
        gone.append("−" + c.name, style="strike grey62")
    return Group(t, gone)


def abilities_renderable(view: View, choices: Choices | None = None) -> RenderableType:
    """In this seat's action phase: what it can pay for now (the engine's choices) and the rest
    on one line; at other times the rule set's abilities by suit, for reference."""
    if view.seat is None:
        return Text("")
    if choices is not None and choices.kind == "action":
        t = Table.grid(padding=(0, 1))
        t.add_column(no_wrap=True)
        t.add_column(no_wrap=True)
        t.add_column(ratio=1)
        later = Text("not now: ", style="grey50")
        n_later = 0
        for a in choices.abilities:
            name = f"{a.name} [{a.cost}{a.suit.letter}]"
            if a.affordable:
                t.add_row(Text("●", style="bold green"), Text(name, style=SUIT_STYLE[a.suit]), Text(a.text))
            else:
                later.append(", " if n_later else "")
                later.append(name, style="grey50")
                n_later += 1
        if not t.row_count:
            t.add_row("", Text("no ability fits this hand", style="grey62"), "")
        return Group(t, later) if n_later else t
    t = Table.grid(padding=(0, 1))
    t.add_column(no_wrap=True)
    t.add_column(ratio=1)
    by_suit: dict[Suit, list[str]] = {}
    for ab in view.rules.abilities:
        by_suit.setdefault(ab.suit, []).append(f"{ab.name} [{ab.cards}]")
    for suit in Suit:
        if suit in by_suit:
            t.add_row(Text(suit.letter, style=SUIT_STYLE[suit]), Text(" · ".join(by_suit[suit]), style="grey70"))
    return Group(Text("your action phase lists what you can pay for", style="grey50"), t)


class Panel(Static):
    """A bordered panel whose content is a Rich renderable."""

    def __init__(self, title: str, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="panel")
        self.border_title = title


class LogPanel(RichLog):
    """The game log, each line citing its rule, as the viewing seat may read it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, wrap=True, markup=False, highlight=False, max_lines=2000, min_width=20)
        self.border_title = "Log (l)"

    def add_line(self, line: str) -> None:
        rule, _, rest = line.partition(" ")
        text = Text()
        text.append(rule, style="bold cyan")
        text.append(" " + rest, style="bold yellow" if " wins" in rest or "turn limit" in rest
                    else ("grey70" if rest.startswith("turn ") else ""))
        self.write(text)

    def set_lines(self, lines: Sequence[str]) -> None:
        self.clear()
        for line in lines:
            self.add_line(line)


class CardPicker(SelectionList[str]):
    """A selection list whose picked cards carry a ✓ in their box (not only another colour);
    an unpicked card's box is empty."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        if len(segments) < 4 or segments[1].text != ToggleButton.BUTTON_INNER:
            return strip
        try:
            selection = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return strip
        mark = "✓" if selection.value in self.selected else " "
        segments[1] = Segment(mark, segments[1].style)
        return Strip(segments, strip.cell_length)

    def action_select(self) -> None:
        """Toggle the highlighted card at once. (The list's own select posts a message that
        toggles whatever is highlighted *when it is handled*: a burst ``down space down space``
        would toggle the last card twice.)"""
        self._toggle_highlighted_selection()


#: the keys that answer choices 1, 2, ...: digits, then letters no key of the table or the
#: replay means anything else by
CHOICE_KEYS = "123456789fhijkouxz"


class DecisionPanel(Vertical):
    """The pending decision: a focused choice list, or a card picker for discards and melds.

    It posts :class:`Chosen` up when the seat has answered, or calls ``on_answer`` at once
    when the screen sets one (keys typed in a burst then land on the next decision, in order).
    """

    class Chosen(Message):
        """``action`` answers decision number ``decision`` (a late or repeated answer is refused)."""

        def __init__(self, action: Action, decision: int | None) -> None:
            super().__init__()
            self.action = action
            self.decision = decision

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Decision (d)"
        self.view: View | None = None
        self.options: Choices | None = None  # the engine's choices for the decision shown
        self.choices: list[Choice] = []
        self.mode = ""  # wait | choices | discard | meld | pay | over
        self._title: str | Text = ""
        self._choices_title = ""  # to go back from the meld builder or the pay picker
        self._paying: Choice | None = None  # the ability choice whose cards are being picked
        #: called with (action, decision number) instead of posting :class:`Chosen`
        self.on_answer: Callable[[Action, int | None], object] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="decision-title")
        yield OptionList(id="choices")
        yield Static(id="choice-detail")
        yield CardPicker(id="picker")
        yield Static(id="picker-status")
        with Horizontal(id="picker-buttons"):
            yield Button("Confirm (c)", id="confirm", variant="primary", compact=True)
            yield Button("Back (esc)", id="back", compact=True)

    # -- showing a decision ----------------------------------------------------
    def show_wait(self, text: str | Text) -> None:
        self._set_mode("wait", text)

    def show_over(self, text: str | Text) -> None:
        self._set_mode("over", text)

    def show_choices(self, view: View, options: Choices, title: str, choices: list[Choice]) -> None:
        self.view = view
        self.options = options
        self.choices = choices
        ol = self.query_one("#choices", OptionList)
        ol.clear_options()
        opts = []
        for i, ch in enumerate(choices):
            prompt = Text(no_wrap=True, overflow="ellipsis")
            prompt.append(f"{CHOICE_KEYS[i]}. " if i < len(CHOICE_KEYS) else "   ", style="bold")
            prompt.append(ch.label)
            opts.append(Option(prompt, id=str(i)))
        ol.add_options(opts)
        self._choices_title = title
        self._set_mode("choices", title)
        # a fresh decision never starts on Pass: an enter typed one key too many (at a
        # hand-off, after a bot's move) must not give a turn away; p or 1 passes
        first = next((i for i, ch in enumerate(choices) if ch.key != "pass"), None)
        ol.highlighted = first
        if first is None and choices:
            self.query_one("#choice-detail", Static).update(
                Text("nothing else is possible now: p (or 1) passes", style="grey70"))
        else:
            self._show_detail(first)
        ol.focus()

    def _show_detail(self, index: int | None) -> None:
        """What the highlighted choice does, under the list (one line a choice keeps the list long)."""
        detail = self.choices[index].detail if index is not None and 0 <= index < len(self.choices) else ""
        self.query_one("#choice-detail", Static).update(Text(detail, style="grey70"))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_list.id == "choices":
            self._show_detail(event.option_index)

    def show_picker(self, view: View, options: Choices, mode: str, title: str | Text,
                    cards: Sequence[Card] | None = None) -> None:
        """``mode`` is ``discard`` (``options.discard``), ``meld`` (``options.meld``, R7.1) or ``pay``
        (the cards that pay for an ability); ``cards``: those offered (default: the hand)."""
        self.view = view
        self.options = options
        offered = sorted(view.hand if cards is None else cards)
        sl = self.query_one("#picker", SelectionList)
        sl.clear_options()
        sl.add_options([Selection(card_text(c), c.name, False) for c in offered])
        self._set_mode(mode, title)
        self.query_one("#back", Button).display = mode in ("meld", "pay")
        self._update_status()
        sl.highlighted = 0 if offered else None
        sl.focus()

    def _set_mode(self, mode: str, title: str | Text) -> None:
        if title != self._title:
            self._title = title
            self.query_one("#decision-title", Static).update(Text.from_markup(title) if isinstance(title, str)
                                                               else title)
        if mode == self.mode:
            return
        self.mode = mode
        self.query_one("#choices").display = mode == "choices"
        self.query_one("#choice-detail").display = mode == "choices"
        picking = mode in ("discard", "meld", "pay")
        for w in ("#picker", "#picker-status", "#picker-buttons"):
            self.query_one(w).display = picking

    # -- answering -------------------------------------------------------------
    def picked(self) -> list[Card]:
        return [Card(n) for n in self.query_one("#picker", SelectionList).selected]

    def _checked(self) -> tuple[Action | None, str]:
        o = self.options
        if self.mode == "discard" and o is not None and o.discard is not None:
            return check_discard(o.discard, self.picked())
        if self.mode == "pay" and self._paying is not None:
            return check_pay(self._paying, self.picked())
        if self.mode == "meld" and o is not None and o.meld is not None:
            return check_meld(o.meld, self.picked())
        return None, "nothing to pick now"

    def _update_status(self) -> None:
        if self.mode not in ("discard", "meld", "pay"):
            return
        action, status = self._checked()
        text = Text(status, style="bold green" if action else "yellow")
        picked = self.picked()
        if picked and (action is None or self.mode == "meld"):
            text.append("\n✓ picked: ", style="bold")
            text.append_text(cards_text(picked, letter=False))
        self.query_one("#picker-status", Static).update(text)
        self.query_one("#confirm", Button).disabled = action is None

    def pick(self, index: int) -> bool:
        """Answer with choice ``index`` (its key in :data:`CHOICE_KEYS`); False if there is no such choice."""
        if self.mode != "choices" or not 0 <= index < len(self.choices):
            return False
        self._choose(self.choices[index])
        return True

    def choose_key(self, key: str) -> bool:
        for ch in self.choices:
            if ch.key == key and self.mode == "choices":
                self._choose(ch)
                return True
        return False

    def _choose(self, choice: Choice) -> None:
        if choice.action is None:
            self.open_meld_builder()
        else:
            self._answer(choice.action)

    def _answer(self, action: Action) -> None:
        if self.on_answer is not None:
            self.on_answer(action, self._decision())
        else:
            self.post_message(self.Chosen(action, self._decision()))

    def _decision(self) -> int | None:
        return self.options.decision_number if self.options is not None else None

    def open_meld_builder(self) -> bool:
        v, o = self.view, self.options
        if v is None or o is None or o.meld is None or not o.meld.possible or self.mode not in ("choices", "meld"):
            return False
        self.show_picker(v, o, "meld", "[b]Meld builder[/b] (R7.1): pick one card of each major suit and one "
                         "Disaster or Boon; [b]space[/b] picks, [b]c[/b] confirms, [b]esc[/b] goes back")
        return True

    def open_pay_picker(self) -> bool:
        """Pick which cards pay for the highlighted ability (when its suit has more than it costs)."""
        v, o = self.view, self.options
        if v is None or o is None or self.mode != "choices":
            return False
        i = self.query_one("#choices", OptionList).highlighted
        if i is None or not 0 <= i < len(self.choices):
            return False
        choice = self.choices[i]
        a = choice.ability
        if a is None or len(a.payable) <= a.cost:
            return False
        self._paying = choice
        n = a.cost
        self.show_picker(v, o, "pay", f"[b]Pay for {choice.label}[/b]: pick the {n} {a.suit.title} "
                         f"card{'s' if n != 1 else ''} that pay; [b]space[/b] picks, [b]c[/b] confirms, "
                         "[b]esc[/b] goes back", a.payable)
        return True

    def back(self) -> bool:
        """From the meld builder or the pay picker to the choices they were opened from."""
        if self.mode in ("meld", "pay") and self.view is not None and self.options is not None:
            self._paying = None
            self.show_choices(self.view, self.options, self._choices_title, self.choices)
            return True
        return False

    def confirm(self) -> bool:
        if self.mode not in ("discard", "meld", "pay"):
            return False
        action, status = self._checked()
        if action is None:
            self.app.bell()
            self.notify(status, severity="warning")
            return False
        self._answer(action)
        return True

    # -- keys, handled at once and in order (see TableScreen) ------------------
    def _list(self) -> OptionList | None:
        """The list the keys move in now: the choices or the card picker (None: neither is shown)."""
        if self.mode == "choices":
            return self.query_one("#choices", OptionList)
        if self.mode in ("discard", "meld", "pay"):
            return self.query_one("#picker", SelectionList)
        return None

    def move(self, how: str) -> bool:
        """Move the highlight: ``cursor_up``, ``cursor_down``, ``first``, ``last``, ``page_up``, ``page_down``."""
        ol = self._list()
        if ol is None:
            return False
        getattr(ol, f"action_{how}")()
        return True

    def toggle(self) -> bool:
        """Pick or unpick the highlighted card (space)."""
        ol = self._list()
        if not isinstance(ol, SelectionList):
            return False
        ol._toggle_highlighted_selection()
        return True

    def select_highlighted(self) -> bool:
        """Enter: answer with the highlighted choice, or pick / unpick the highlighted card."""
        ol = self._list()
        if isinstance(ol, SelectionList):
            return self.toggle()
        if ol is None or ol.highlighted is None:
            return False
        return self.pick(ol.highlighted)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.pick(int(event.option.id))

    def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged[str]) -> None:
        event.stop()
        self._update_status()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "confirm":
            self.confirm()
        elif event.button.id == "back":
            self.back()


class CompactLayout:
    """A screen that switches to its compact layout (the ``compact`` class) below 110x36, and
    below 80x24 shows only a notice that the terminal is too small (the ``too-small`` class and
    its ``#too-small`` widget); all comes back when the terminal is enlarged."""

    #: below this size the table is compact: the decision first, CT totals on one line each
    COMPACT_BELOW = (110, 36)
    #: the smallest terminal the table fits
    SMALLEST = (80, 24)

    def _set_compact(self) -> bool:
        """Switch the compact layout on or off for the terminal's size; True if it changed."""
        assert isinstance(self, Screen)
        w, h = self.app.size
        small = w < self.SMALLEST[0] or h < self.SMALLEST[1]
        if small and not self.has_class("too-small"):
            self._focus_before = self.focused  # hidden widgets lose the focus: give it back later
        elif not small and self.has_class("too-small"):
            before = getattr(self, "_focus_before", None)
            if before is not None:
                self.call_after_refresh(before.focus)
        self.set_class(small, "too-small")
        if small:
            need = "{}x{}".format(*self.SMALLEST)
            self.query_one("#too-small", Static).update(Text.assemble(
                (f"terminal too small (need {need})", "bold"), f"\nthis one is {w}x{h}: enlarge it to play on",
                "\n(nothing is lost; q quits, and the game is saved)", justify="center"))
        compact = w < self.COMPACT_BELOW[0] or h < self.COMPACT_BELOW[1]
        if compact == self.has_class("compact"):
            return False
        self.set_class(compact, "compact")
        return True
