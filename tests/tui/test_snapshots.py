"""Snapshot tests of the main screens at 80x24 (the compact table) and 140x45
(pytest-textual-snapshot; SVGs in __snapshots__/).

After an intended change of the look, accept the new screens with
``pytest tests/tui/test_snapshots.py --snapshot-update`` and review the SVG diff.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import textual
from textual.pilot import Pilot

from civlite.tui import CivliteApp, Replay, ReplayApp, SeatSpec, Session
from civlite.tui.screens import SetupScreen

from .helpers import FAST, action_state, meld_state, session_at, settle

pytest.importorskip("pytest_textual_snapshot")

#: the Textual release the committed SVGs were taken with (pinned by the ``tui`` extra)
SNAPSHOT_TEXTUAL = "8.2.8"
if textual.__version__ != SNAPSHOT_TEXTUAL:  # pragma: no cover - depends on the install
    pytest.skip(f"snapshots were taken with textual {SNAPSHOT_TEXTUAL}, this is {textual.__version__}: "
                "pip install -e '.[tui]' or retake them with --snapshot-update", allow_module_level=True)

ANN_BOT = [SeatSpec("human", "ann"), SeatSpec("heuristic")]

#: every screen at the smallest supported terminal and at a large one
SIZES = [(80, 24), (140, 45)]


@pytest.fixture(params=SIZES, ids=lambda wh: f"{wh[0]}x{wh[1]}")
def size(request: pytest.FixtureRequest) -> tuple[int, int]:
    return request.param


def table(session: Session) -> CivliteApp:
    return CivliteApp(session, delay=0)


def test_setup_screen(snap_compare: Any, size: tuple[int, int]) -> None:
    app = CivliteApp(delay=0, setup=SetupScreen(seed="42"))
    assert snap_compare(app, terminal_size=size)


def test_table_action_decision(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(table(session_at(action_state(), ANN_BOT)), terminal_size=size)


def test_table_after_bot_turns(snap_compare: Any, size: tuple[int, int]) -> None:
    s = Session.new([SeatSpec("human", "ann"), SeatSpec("random"), SeatSpec("heuristic")], seed=3)
    s.auto_pass_meld.clear()  # no toast (it could time out before the shot on a slow machine)

    async def play(pilot: Pilot[Any]) -> None:
        await pilot.press("1", "1")  # pass, no meld
        await settle(pilot, s)

    assert snap_compare(table(s), terminal_size=size, run_before=play)


def test_vision_choice(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(table(session_at(action_state(), ANN_BOT)), terminal_size=size, press=["2"])


def test_meld_builder(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(table(session_at(meld_state(), ANN_BOT)), terminal_size=size,
                        press=["m", "space", "down", "down", "space"])


def test_discard_picker(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(table(session_at(meld_state(), ANN_BOT)), terminal_size=size, press=["p", "space"])


def test_hot_seat_hand_over(snap_compare: Any, size: tuple[int, int]) -> None:
    s = Session.new([SeatSpec("human", "ann"), SeatSpec("human", "bob")], seed=4)
    assert snap_compare(table(s), terminal_size=size)


def hot_seat_raid() -> tuple[Session, str]:
    """Ann raids Bob, then her meld passes by itself (no meld is possible, R9.1)."""
    s = session_at(action_state(), [SeatSpec("human", "ann"), SeatSpec("human", "bob")])
    return s, str([c.key for c in s.choice_list(0)].index("basic:M>1") + 1)


def test_hot_seat_turn_over(snap_compare: Any, size: tuple[int, int]) -> None:
    """The outgoing player sees what its turn did before the hand-off."""
    s, raid = hot_seat_raid()
    assert snap_compare(table(s), terminal_size=size, press=["enter", raid])


def test_hot_seat_hand_over_after_an_automatic_pass(snap_compare: Any, size: tuple[int, int]) -> None:
    """The hand-off screen after an automatic meld pass: nothing of the turn, no toast."""
    s, raid = hot_seat_raid()
    assert snap_compare(table(s), terminal_size=size, press=["enter", raid, "enter"])


def test_help_screen(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(table(session_at(action_state(), ANN_BOT)), terminal_size=size, press=["question_mark"])


def game_over_session() -> tuple[Session, str]:
    state = action_state()
    state["players"][0]["ct"] = 19
    s = session_at(state, ANN_BOT)
    greatness = [c.key for c in s.choice_list(0)].index("basic:W") + 1
    return s, str(greatness)


def test_game_over_results(snap_compare: Any, size: tuple[int, int]) -> None:
    """The end screen: the standings and every hand revealed."""
    s, key = game_over_session()
    assert snap_compare(table(s), terminal_size=size, press=[key])


def test_game_over_table(snap_compare: Any, size: tuple[int, int]) -> None:
    s, key = game_over_session()
    assert snap_compare(table(s), terminal_size=size, press=[key, "escape"])


def test_discard_pile(snap_compare: Any, size: tuple[int, int]) -> None:
    state = action_state()
    state["discard"] = ["Minoans", "Coliseum", "Greeks", "Romans", "Cleopatra", "Homer", "Legion", "Volcano", "Tribute"]
    state["deck"] = ["Persians", "Hittites", "Babylonians", "Laws", "Roads", "Peace"]
    assert snap_compare(table(session_at(state, ANN_BOT)), terminal_size=size, press=["v"])


def test_quit_question(snap_compare: Any, size: tuple[int, int], tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    s = session_at(action_state(), ANN_BOT)
    s.save_path = Path("game.json")  # a path that reads the same in every run
    assert snap_compare(table(s), terminal_size=size, press=["q"])


def test_replay(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    s = Session.new([SeatSpec("random"), SeatSpec("heuristic")], rules=FAST, seed=2)
    while s.to_move is not None:
        s.apply(s.bot_action())
    s.save(tmp_path / "r.json")
    app = ReplayApp(Replay.load(tmp_path / "r.json"))
    assert snap_compare(app, terminal_size=size, press=["right", "right", "right", "w"])


# -- at 80x24: the tutorial's first decision, the review table, an 11-card hand -------------------
def test_tutorial_first_decision_80x24(snap_compare: Any, tmp_path: Path) -> None:
    """The coach's notes are in the log beside the choices; no toast covers the choice list."""
    from civlite.tui.app import TutorialApp

    assert snap_compare(TutorialApp(delay=0, autosave_dir=tmp_path), terminal_size=(80, 24))


def test_review_table_80x24(snap_compare: Any) -> None:
    """Every column of the review (the decision, what was chosen and the better option, the
    mark, the loss and the chance of winning) is in view at 80 columns."""
    from textual.app import App

    from civlite.engine import GameRecord
    from civlite.review import review_record
    from civlite.tui.review import ReviewScreen

    record = GameRecord.load(Path(__file__).parents[1] / "review" / "data" / "seeded-record.json")
    review = review_record(record, 1, budget=8, workers=1)
    names = list(record.players)

    class ReviewApp(App[None]):
        def on_mount(self) -> None:
            self.push_screen(ReviewScreen(record, 1, names, review=review))

    assert snap_compare(ReviewApp(), terminal_size=(80, 24))


def test_eleven_card_hand_80x24(snap_compare: Any) -> None:
    """A hand of 11 cards of every suit fits the compact table with no scrollbar."""
    state = action_state()
    state["players"][0]["hand"] = ["Moses", "Sphinx", "Pantheon", "Spearmen", "Religion", "Greeks", "Romans",
                                   "Granaries", "Tribute", "Volcano", "Axemen"]
    assert snap_compare(table(session_at(state, ANN_BOT)), terminal_size=(80, 24))
