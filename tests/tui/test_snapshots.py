"""Snapshot tests of the main screens (pytest-textual-snapshot; SVGs in __snapshots__/).

After an intended change of the look, accept the new screens with
``pytest tests/tui/test_snapshots.py --snapshot-update`` and review the SVG diff.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import textual
from textual.pilot import Pilot

from civlite.tui import CivliteApp, Replay, ReplayApp, SeatSpec, Session, choices_for
from civlite.tui.screens import SetupScreen

from .helpers import FAST, SIZE, action_state, meld_state, session_at, settle

pytest.importorskip("pytest_textual_snapshot")

#: the Textual release the committed SVGs were taken with (pinned by the ``tui`` extra)
SNAPSHOT_TEXTUAL = "8.2.8"
if textual.__version__ != SNAPSHOT_TEXTUAL:  # pragma: no cover - depends on the install
    pytest.skip(f"snapshots were taken with textual {SNAPSHOT_TEXTUAL}, this is {textual.__version__}: "
                "pip install -e '.[tui]' or retake them with --snapshot-update", allow_module_level=True)

ANN_BOT = [SeatSpec("human", "ann"), SeatSpec("heuristic")]


def table(session: Session) -> CivliteApp:
    return CivliteApp(session, delay=0)


def test_setup_screen(snap_compare: Any) -> None:
    app = CivliteApp(delay=0, setup=SetupScreen(seed="42"))
    assert snap_compare(app, terminal_size=SIZE)


def test_table_action_decision(snap_compare: Any) -> None:
    assert snap_compare(table(session_at(action_state(), ANN_BOT)), terminal_size=SIZE)


def test_table_after_bot_turns(snap_compare: Any) -> None:
    s = Session.new([SeatSpec("human", "ann"), SeatSpec("random"), SeatSpec("heuristic")], seed=3)

    async def play(pilot: Pilot[Any]) -> None:
        await pilot.press("1", "1")  # pass, no meld
        await settle(pilot, s)

    assert snap_compare(table(s), terminal_size=SIZE, run_before=play)


def test_vision_choice(snap_compare: Any) -> None:
    assert snap_compare(table(session_at(action_state(), ANN_BOT)), terminal_size=SIZE, press=["2"])


def test_meld_builder(snap_compare: Any) -> None:
    assert snap_compare(table(session_at(meld_state(), ANN_BOT)), terminal_size=SIZE,
                        press=["m", "space", "down", "down", "space"])


def test_discard_picker(snap_compare: Any) -> None:
    assert snap_compare(table(session_at(meld_state(), ANN_BOT)), terminal_size=SIZE, press=["p", "space"])


def test_hot_seat_hand_over(snap_compare: Any) -> None:
    s = Session.new([SeatSpec("human", "ann"), SeatSpec("human", "bob")], seed=4)
    assert snap_compare(table(s), terminal_size=SIZE)


def test_help_screen(snap_compare: Any) -> None:
    assert snap_compare(table(session_at(action_state(), ANN_BOT)), terminal_size=SIZE, press=["question_mark"])


def test_game_over(snap_compare: Any) -> None:
    state = action_state()
    state["players"][0]["ct"] = 19
    s = session_at(state, ANN_BOT)
    greatness = [c.key for c in choices_for(s.view(0))].index("basic:W") + 1
    assert snap_compare(table(s), terminal_size=SIZE, press=[str(greatness)])


def test_replay(snap_compare: Any, tmp_path: Path) -> None:
    s = Session.new([SeatSpec("random"), SeatSpec("heuristic")], rules=FAST, seed=2)
    while s.to_move is not None:
        s.apply(s.bot_action())
    s.save(tmp_path / "r.json")
    app = ReplayApp(Replay.load(tmp_path / "r.json"))
    assert snap_compare(app, terminal_size=SIZE, press=["right", "right", "right", "v"])
