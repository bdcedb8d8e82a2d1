"""The table with Pilot: small screens, quitting safely, autosave, the end screen, the discard
pile, picked cards, the command palette and the automatic meld pass."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette
from textual.widgets import Button

from civlite.engine import GameRecord, Pass
from civlite.tui import CivliteApp, SeatSpec, Session
from civlite.tui.screens import DiscardScreen, QuitScreen, ResultsScreen, SetupScreen, TableScreen
from civlite.tui.widgets import DecisionPanel

from .helpers import FAST, action_state, meld_state, run_async, screen_text, session_at, settle

SMALL = (80, 24)
EIGHT = [SeatSpec("human", "ann"), *(SeatSpec("random") for _ in range(7))]


@run_async
async def test_80x24_shows_every_ct_total_and_the_choices() -> None:
    s = Session.new(EIGHT, seed=5)
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, s)
        assert app.table.has_class("compact")
        text = screen_text(app)
        target = s.game.rules.victory_ct
        lines = text.splitlines()
        for seat, name in enumerate(s.names):
            assert any(f"{seat} {name}" in line and f" {s.game.ct[seat]}/{target} " in line for line in lines)
        dp = app.table.query_one(DecisionPanel)
        assert dp.mode == "choices"
        shown = [c.label for c in dp.choices if c.label in text]
        assert len(shown) >= min(len(dp.choices), 7), (shown, text)
        await pilot.resize_terminal(140, 45)
        for _ in range(200):  # the resize is handled a few messages later on a loaded machine
            await pilot.pause()
            if not app.table.has_class("compact"):
                break
        assert not app.table.has_class("compact")


@run_async
async def test_80x24_setup_screen_start_is_on_screen() -> None:
    app = CivliteApp(delay=0, setup=SetupScreen(seats=EIGHT))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        start = app.screen.query_one("#start", Button)
        assert start.region.bottom <= SMALL[1] and start.region.height > 0 and "Start" in screen_text(app)
        await pilot.click("#start")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.session is not None
        assert app.session.game.num_players == 8


@run_async
async def test_quit_asks_in_the_middle_of_a_game_and_the_game_is_autosaved(save_dir: Path) -> None:
    s, app = session_at(action_state(), [SeatSpec("human", "ann"), SeatSpec("random")]), None
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        # no --save: the game has a file in the save dir, written at once and after every move
        assert s.save_path is not None and s.save_path.parent == save_dir and s.save_path.exists()
        await pilot.press("1")  # pass
        await settle(pilot, s)
        assert GameRecord.load(s.save_path).actions == s.game.actions
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        assert str(s.save_path) in " ".join(screen_text(app).split()) or "civlite play --continue" in screen_text(app)
        await pilot.press("n")  # stay
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.is_running
        await pilot.press("ctrl+q")  # every way out asks
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("ctrl+p", *"quit")  # the command palette's Quit too
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen) and app.is_running
        await pilot.press("y")
        await pilot.pause()
    assert app.return_code == 0
    assert GameRecord.load(s.save_path).actions == s.game.actions


@run_async
async def test_quit_says_when_the_game_is_not_saved() -> None:
    s = session_at(action_state(), [SeatSpec("human", "ann"), SeatSpec("random")])
    s.save_path = Path("/proc/nope/x.json")
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        assert s.save_error is not None
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen) and "NOT saved" in screen_text(app)


@run_async
async def test_the_end_screen_reveals_every_hand_and_quit_needs_no_question() -> None:
    s = Session.new([SeatSpec("random"), SeatSpec("heuristic"), SeatSpec("random")], rules=FAST, seed=9)
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, s)
        await pilot.pause()
        assert s.game.is_over and isinstance(app.screen, ResultsScreen)
        text = screen_text(app)
        assert "Standings" in text and "hand (revealed)" in text
        assert all(c.name in text for seat in range(3) for c in s.game.hand(seat))
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ResultsScreen)
        await pilot.press("q")  # the game is over: nothing to lose
        await pilot.pause()
    assert not app.is_running


@run_async
async def test_discard_pile_viewer_shows_every_card() -> None:
    state = action_state()
    pile = ["Minoans", "Coliseum", "Greeks", "Romans", "Cleopatra", "Homer", "Legion", "Volcano", "Famine",
            "Tribute"]
    state["discard"] = pile
    state["deck"] = ["Persians", "Hittites", "Babylonians", "Laws", "Roads", "Peace"]
    s = session_at(state, [SeatSpec("human", "ann"), SeatSpec("random")])
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        assert "Minoans" not in screen_text(app)  # the table shows the top of the pile only
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, DiscardScreen)
        text = screen_text(app)
        assert all(name in text for name in pile) and "10 cards" in text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)


@run_async
async def test_picked_cards_carry_a_check_mark() -> None:
    s = session_at(meld_state(), [SeatSpec("human", "ann"), SeatSpec("random")])
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        assert "✓" not in screen_text(app)
        first = sorted(s.view(0).hand)[0].name
        await pilot.press("space")
        await pilot.pause()
        marked = [line for line in screen_text(app).splitlines() if "✓" in line]
        assert any(first in line for line in marked), marked
        await pilot.press("space")  # unpicked: the mark goes
        await pilot.pause()
        assert "✓" not in screen_text(app)


@run_async
async def test_command_palette_runs_table_commands() -> None:
    s = session_at(action_state(), [SeatSpec("human", "ann"), SeatSpec("random")])
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert CommandPalette.is_open(app)
        await pilot.press(*"discard pile")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DiscardScreen)


@run_async
async def test_automatic_meld_pass_is_on_by_default_and_a_setting() -> None:
    # seat 0 at its meld phase with no meld possible
    state = meld_state(["Greeks", "Romans", "Moses", "Sphinx", "Religion", "Spearmen", "Sumerians"])
    s = session_at(state, [SeatSpec("human", "ann"), SeatSpec("random")])
    assert s.auto_pass_meld == {0}
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, s)
        assert s.game.actions[0].do == "pass"  # passed by itself
    # off: the meld decision is asked
    s = session_at(state, [SeatSpec("human", "ann"), SeatSpec("random")])
    s.auto_pass_meld.clear()
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        assert not s.game.actions and app.table.query_one(DecisionPanel).mode == "choices"
        assert "auto-pass meld off" in screen_text(app)
        await pilot.press("a")  # on again: it passes now
        await settle(pilot, s)
        assert s.game.actions and s.game.actions[0].do == "pass"
        assert 0 in s.auto_pass_meld


@run_async
async def test_a_possible_meld_is_always_asked() -> None:
    s = session_at(meld_state(), [SeatSpec("human", "ann"), SeatSpec("random")])
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        assert 0 in s.auto_pass_meld and not s.game.actions
        assert app.table.query_one(DecisionPanel).mode == "choices"


@run_async
async def test_setup_screen_offers_the_last_unfinished_game(save_dir: Path) -> None:
    s = session_at(action_state(), [SeatSpec("human", "ann"), SeatSpec("random")])
    s.apply(s.game.legal_actions()[0])
    path = s.save(save_dir / "civlite-20260101-000000.json")
    app = CivliteApp(delay=0)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#resume").value == str(path)  # type: ignore[attr-defined]
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.session is not None
        assert app.session.save_path == path
        assert app.session.game.actions[: len(s.game.actions)] == s.game.actions


@run_async
async def test_a_turns_the_automatic_meld_pass_off_for_the_player_at_the_screen() -> None:
    s = session_at(action_state(), [SeatSpec("human", "ann"), SeatSpec("random")])
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        assert "auto-pass meld on" in screen_text(app)
        await pilot.press("a")
        await pilot.pause()
        assert s.auto_pass_meld == set() and "auto-pass meld off" in screen_text(app)
        await pilot.press("p")  # pass the action: the meld decision is asked though no meld is possible
        await pilot.pause()
        assert s.game.pending is not None and s.game.pending.kind == "meld" and s.to_move == 0


@run_async
async def test_replay_fits_80x24_and_shows_the_discard_pile(tmp_path: Path) -> None:
    from civlite.tui import Replay, ReplayApp

    s = Session.new([SeatSpec("random"), SeatSpec("heuristic")], rules=FAST, seed=2)
    while s.to_move is not None:
        s.apply(s.bot_action())
    r = Replay.load(s.save(tmp_path / "r.json"))
    app = ReplayApp(r)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("end")
        await pilot.pause()
        assert app.screen.has_class("compact")
        text = screen_text(app)
        assert all(f" {s.game.ct[i]}/6 " in text for i in range(2))
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, DiscardScreen)
        assert all(c.name in screen_text(app) for c in s.game.view(None).discard)


@run_async
async def test_a_late_answer_is_refused_and_changes_nothing() -> None:
    s = session_at(meld_state(), [SeatSpec("human", "ann"), SeatSpec("random")])
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        told: list[str] = []
        app.table.notify = lambda message, **kw: told.append(str(message))  # type: ignore[method-assign]
        n = s.game.decision_number
        assert app.table.play(Pass(), n)  # no meld: the fall discard is next, still seat 0's
        await pilot.pause()
        assert s.game.decision_number == n + 1 and s.game.pending is not None
        before = s.game.state_json()
        assert not app.table.play(Pass(), n)  # the same answer again: already answered
        await pilot.pause()
        assert s.game.state_json() == before
        assert told and "already answered" in told[-1]
