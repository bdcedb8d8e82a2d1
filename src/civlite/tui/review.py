"""Game review in the terminal: every decision of one seat rated (marks), and its chance of
winning after each as a graph; and the table's hint.

The ratings come from :mod:`civlite.review` (search over worlds sampled from the seat's view),
computed in a worker thread (the search itself in worker processes) while a progress bar
fills. Choosing a row closes the screen with the decision's index, so the replay can go there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, ProgressBar, Sparkline, Static

from ..engine import GameRecord, View
from ..review import DEFAULT_BUDGET, HINT_BUDGET, GameReview, Hint, ReviewError, hint, review_record
from ..review.cli import MARK_SIGN, MARK_STYLE, summary

#: the search iterations of a review and of a hint in the terminal, and the review's worker
#: processes (None: one a core)
BUDGET = DEFAULT_BUDGET
HINT = HINT_BUDGET
WORKERS: int | None = None


def mark_text(review: GameReview, index: int) -> Text | None:
    """The mark of the reviewed seat's decision at action ``index`` of the record, as the
    replay shows it beside the step (None: not a decision of that seat)."""
    for d in review.decisions:
        if d.index == index:
            if d.forced:
                return Text("only one option", style="grey62")
            out = Text.assemble((f"{d.mark}{MARK_SIGN[d.mark]}", MARK_STYLE[d.mark]),
                                f" (loss {d.loss:.2f}, {d.chosen_win:.0%} after it)")
            if d.mark != "best":
                out.append(f"; best: {d.rating.best.label} ({d.rating.best.win:.0%})")
            return out
    return None


class ReviewScreen(ModalScreen[int | None]):
    """The review of one seat: a progress bar while it is computed, then the graph and the table."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,e", "close", "Close")]
    DEFAULT_CSS = """
    ReviewScreen { align: center middle; }
    #review-box { width: 96%; height: 92%; border: round $accent; padding: 0 1; background: $surface; }
    #review-status { height: auto; margin-bottom: 1; }
    #review-graph { height: 4; margin-bottom: 1; }
    #review-graph > .sparkline--max-color { color: $success; }
    #review-graph > .sparkline--min-color { color: $error; }
    #review-table { height: 1fr; }
    """

    def __init__(self, record: GameRecord, seat: int, names: Sequence[str], budget: int | None = None,
                 review: GameReview | None = None) -> None:
        super().__init__()
        self.record = record
        self.seat = seat
        self.names = list(names)
        self.budget = BUDGET if budget is None else budget
        self.review: GameReview | None = review

    def compose(self) -> ComposeResult:
        with Vertical(id="review-box") as box:
            box.border_title = f"Review of {self.names[self.seat]} (seat {self.seat}) · esc closes"
            yield Static("Rating every decision from what this seat could see…", id="review-status")
            yield ProgressBar(id="review-progress", show_eta=False)
            yield Static("", id="review-graph-label")
            yield Sparkline([], id="review-graph")
            yield DataTable(id="review-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        # one column for what was decided, chosen and (on a second line) the better option, cut
        # to the terminal's width: every column stays in view from 80 columns up
        table.add_column("#", key="index")
        table.add_column("turn", key="turn")
        table.add_column("decision: chosen / best", key="decision", width=self._decision_width())
        table.add_column("mark", key="mark")
        table.add_column("loss", key="loss")
        table.add_column("win", key="win")
        if self.review is not None:
            self.show(self.review)
        else:
            self.compute()

    @work(thread=True, exclusive=True)
    def compute(self) -> None:
        def tell(done: int, total: int) -> None:
            self.app.call_from_thread(self._progress, done, total)

        try:
            review = review_record(self.record, self.seat, budget=self.budget, workers=WORKERS, progress=tell)
        except ReviewError as e:
            self.app.call_from_thread(self._failed, str(e))
            return
        self.app.call_from_thread(self.show, review)

    def _progress(self, done: int, total: int) -> None:
        self.query_one(ProgressBar).update(total=max(total, 1), progress=done)
        self.query_one("#review-status", Static).update(f"Rated {done} of {total} decisions…")

    def _failed(self, message: str) -> None:
        self.query_one("#review-status", Static).update(Text(f"No review: {message}", style="bold red"))

    def show(self, review: GameReview) -> None:
        self.review = review
        self.query_one(ProgressBar).display = False
        self.query_one("#review-status", Static).update(Text(summary(review), style="bold"))
        win = review.win
        self.query_one("#review-graph-label", Static).update(
            f"Chance of winning after each decision: {win[0]:.0%} at the first, {win[-1]:.0%} at the last"
            if win else "No decision to rate.")
        self.query_one(Sparkline).data = [round(100 * w) for w in win]
        table = self.query_one(DataTable)
        table.clear()
        width = self._decision_width()
        for d in review.decisions:
            mark = (Text("forced", style="grey62") if d.forced
                    else Text(f"{d.mark}{MARK_SIGN[d.mark]}", style=MARK_STYLE[d.mark]))
            what = Text(_cut(f"{d.rating.kind.replace('_', ' ')}: {d.rating.options[d.chosen_index].label}", width))
            better = d.mark != "best" and not d.forced
            if better:
                what.append("\n" + _cut(f"best: {d.rating.best.label} ({d.rating.best.win:.0%})", width),
                            style="grey70")
            table.add_row(str(d.index), str(d.rating.turn), what, mark, "" if d.forced else f"{d.loss:.2f}",
                          f"{d.chosen_win:.0%}", key=str(d.index), height=2 if better else 1)
        table.focus()

    def _decision_width(self) -> int:
        """The decision column's width: what the box leaves beside the other columns."""
        box = int(self.app.size.width * 0.96) - 4  # the box's border and padding
        others = 4 + 4 + len("inaccuracy?!") + 4 + 4 + 2 * 6 + 2  # the other columns, cell padding, scrollbar
        return max(16, box - others)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.dismiss(int(event.row_key.value) if event.row_key.value is not None else None)

    def action_close(self) -> None:
        self.dismiss(None)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def hint_text(h: Hint) -> str:
    return f"{h.option.label}: {h.reason}"


def ask_hint(view: View, names: Sequence[str]) -> Hint:
    """The hint for the decision ``view.seat`` faces (blocking: call it from a worker)."""
    return hint(view, budget=HINT, names=names)


def show_hint(screen: Screen[Any], view: View | None, names: Sequence[str]) -> None:
    """Ask for a hint for ``view``'s seat in a worker thread; say it in a notification."""
    if view is None or view.seat is None or not view.my_turn:
        screen.notify("a hint is for the player whose decision it is", timeout=3)
        return
    screen.notify("thinking about your options…", timeout=2)

    def think() -> None:
        try:
            h = ask_hint(view, names)
        except ReviewError as e:
            screen.app.call_from_thread(screen.notify, f"no hint: {e}", severity="warning")
            return
        screen.app.call_from_thread(screen.notify, h.reason, title=f"Hint: {h.option.label}", timeout=15)

    screen.run_worker(think, thread=True, exclusive=True, group="hint")


def show_review(screen: Screen[Any], record: GameRecord, seat: int, names: Sequence[str]) -> None:
    """Open the review of ``seat`` over ``screen`` (the table's end)."""
    if not record.over:
        screen.notify("the review opens when the game is over", timeout=3)
        return
    screen.app.push_screen(ReviewScreen(record, seat, names))
