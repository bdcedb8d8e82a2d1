"""The Textual app driven with Pilot: keys and clicks, bots, hot-seat, saving, replays."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, OptionList, SelectionList

from civlite.engine import Card, GameRecord, Meld, RuleSet
from civlite.tui import CivliteApp, Replay, ReplayApp, SeatSpec, Session
from civlite.tui.screens import (
    HelpScreen,
    PassScreen,
    ReplayScreen,
    ResultsScreen,
    SetupScreen,
    TableScreen,
    TurnOverScreen,
)
from civlite.tui.widgets import DecisionPanel

from .helpers import FAST, SIZE, action_app, action_state, meld_state, run_async, screen_text, session_at, settle


def panel(app: CivliteApp) -> DecisionPanel:
    return app.table.query_one(DecisionPanel)


#: a larger deck (R10 [deck]), with extra cards (Military 17..20, Disaster 9..12, Boon 9..12)
LARGE_DECK = RuleSet.from_dict({**FAST.to_dict(), "deck": {"D": 12, "X": 12, "M": 20}})


@pytest.mark.parametrize("rules", [FAST, LARGE_DECK], ids=["default-deck", "large-deck"])
@run_async
async def test_full_game_against_bots_to_the_end(tmp_path: Path, rules: RuleSet) -> None:
    """A human (keys only) against a random and a heuristic bot, to the end of the game."""
    save = tmp_path / "full.json"
    s = Session.new([SeatSpec("human", "ann"), SeatSpec("random"), SeatSpec("heuristic")],
                    rules=rules, seed=3, save_path=save)
    app = CivliteApp(s, delay=0)
    extras_shown = 0
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(400):
            await settle(pilot, s)
            if s.game.is_over:
                break
            extras = [c.name for c in s.game.hand(0) if c.id >= 112]  # a deck's extra cards, in the hand
            if extras:
                text = screen_text(app)
                assert all(name in text for name in extras)
                extras_shown += 1
            dp = panel(app)
            assert s.to_move == 0 and dp.mode in ("choices", "discard")
            if dp.mode == "choices":
                # the last choice: an ability when there is one (the choice list has the focus)
                assert isinstance(app.focused, OptionList)
                await pilot.press("end", "enter")
            else:
                for _ in range(s.game.pending.count):  # type: ignore[union-attr]
                    await pilot.press("space", "down")
                await pilot.press("c")
        assert s.game.is_over
        await pilot.pause()
        # the end screen: the standings, and every hand revealed
        assert isinstance(app.screen, ResultsScreen)
        text = screen_text(app)
        winner = s.game.winner
        who = "You win" if winner == 0 else f"{s.names[winner]} wins"  # the second person for ann
        assert winner is not None and f"{who} with {s.game.ct[winner]} CT" in text
        assert all(c.name in text for seat in range(3) for c in s.game.hand(seat))
        assert text.index(s.names[winner]) < min(text.index(s.names[i]) for i in range(3) if i != winner)
        await pilot.press("escape")  # back to the table: its log and the end
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and panel(app).mode == "over"
        assert "Game over" in screen_text(app)
    # the autosaved record replays to the same end
    game = GameRecord.load(save).replay()
    assert game.is_over and game.winner == s.game.winner and game.state_json() == s.game.state_json()
    assert game.rules == rules and (extras_shown > 0) == (rules is LARGE_DECK)


@run_async
async def test_number_keys_and_mouse_answer_the_decision() -> None:
    s, app = action_app()
    s.auto_pass_meld.clear()  # ask the meld decision even when no meld is possible
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        dp = panel(app)
        keys = [c.key for c in dp.choices]
        vision = keys.index("basic:L")
        await pilot.press(str(vision + 1))  # Vision by its number
        await pilot.pause()
        assert s.game.pending is not None and s.game.pending.kind == "vision"
        assert dp.mode == "choices" and all(c.key.startswith("take:") for c in dp.choices)
        # take a card with the mouse: click the first option
        await pilot.click(OptionList, offset=(4, 0))
        await pilot.pause()
        assert s.game.pending is not None and s.game.pending.kind == "meld"
        assert "Vision: you took" in screen_text(app)  # the log speaks to the player at the screen
        await pilot.press("p")  # pass the meld
        await settle(pilot, s)
        assert s.game.turn == 2 or s.to_move == 0


@run_async
async def test_discard_picker_takes_exactly_the_count() -> None:
    s = session_at(meld_state(), [SeatSpec("human", "ann"), SeatSpec("random")])
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("p")  # no meld: 9 cards, so 2 must go (R4.4)
        await pilot.pause()
        dp = panel(app)
        assert dp.mode == "discard" and s.game.pending is not None and s.game.pending.kind == "fall_discard"
        assert isinstance(app.focused, SelectionList)
        confirm = dp.query_one("#confirm", Button)
        assert confirm.disabled
        await pilot.press("space")
        await pilot.press("c")  # one card only: refused
        await pilot.pause()
        assert s.game.pending.kind == "fall_discard"
        assert "pick 1 more card" in screen_text(app)
        await pilot.press("down", "space", "down", "space")  # three: still refused
        await pilot.press("c")
        assert s.game.pending.kind == "fall_discard"
        await pilot.press("space")  # unpick the third
        assert not confirm.disabled
        hand = sorted(s.view(0).hand)
        await pilot.press("c")
        await settle(pilot, s)
        discarded = s.game.actions[-1] if s.to_move == 1 else next(
            a for a in reversed(s.game.actions) if a.do == "discard")
        assert discarded.to_json()["cards"] == [c.name for c in hand[:2]]


@run_async
async def test_meld_builder() -> None:
    s = session_at(meld_state(), [SeatSpec("human", "ann"), SeatSpec("random")])
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        dp = panel(app)
        assert dp.mode == "meld"
        await pilot.press("escape")
        assert dp.mode == "choices"
        await pilot.press("m")
        want = {"Romans", "Moses", "Sphinx", "Religion", "Spearmen", "Granaries", "Flood"}
        hand = sorted(s.view(0).hand)
        for c in hand:
            if c.name in want:
                await pilot.press("space")
            await pilot.press("down")
        await pilot.pause()
        assert "+5 CT" in screen_text(app)
        await pilot.press("c")
        await pilot.pause()
        assert Meld([Card(n) for n in want]) in s.game.actions
        assert s.game.ct[0] == 5


@run_async
async def test_quick_meld_choice_and_illegal_actions_are_refused() -> None:
    s = session_at(meld_state(), [SeatSpec("human", "ann"), SeatSpec("random")])
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.table
        assert not table.play(Card("Greeks") and Meld([Card("Greeks")]))  # an illegal meld changes nothing
        assert s.game.pending is not None and s.game.pending.kind == "meld" and s.game.ct[0] == 0
        await pilot.press("2")  # "Meld with a Disaster"
        await pilot.pause()
        assert s.game.ct[0] == 5


@run_async
async def test_hot_seat_hides_hands_between_humans() -> None:
    s = Session.new([SeatSpec("human", "ann"), SeatSpec("human", "bob")], seed=4)
    names = {c.name for seat in (0, 1) for c in s.game.hand(seat)}
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, PassScreen) and app.screen.seat == 0
        text = screen_text(app)
        assert "Pass to seat 0 (ann)" in text
        assert not any(n in text for n in names)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.table.viewer == 0
        text = screen_text(app)
        assert any(c.name in text for c in s.game.hand(0))
        assert not any(c.name in text for c in s.game.hand(1))
        await pilot.press("p", "p")  # pass action and meld (7 cards: no fall discard)
        await pilot.pause()
        assert isinstance(app.screen, TurnOverScreen)  # ann sees her turn's outcome first
        assert "You: passed" in screen_text(app)
        assert not any(c.name in screen_text(app) for c in s.game.hand(1))
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PassScreen) and app.screen.seat == 1
        text = screen_text(app)
        assert not any(c.name in text for seat in (0, 1) for c in s.game.hand(seat))
        await pilot.click("#ready")
        await pilot.pause()
        assert app.table.viewer == 1
        text = screen_text(app)
        assert any(c.name in text for c in s.game.hand(1))
        assert not any(c.name in text for c in s.game.hand(0))


@run_async
async def test_spectator_table_for_bots_only() -> None:
    s = Session.new([SeatSpec("random"), SeatSpec("heuristic")], rules=FAST, seed=9)
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, s)
        assert s.game.is_over and app.table.viewer is None
        await pilot.press("escape")  # from the end screen back to the table
        await pilot.pause()
        text = screen_text(app)
        assert "spectator" in text
        drawn = [e for e in s.events if e.kind == "draw" and e.secret]
        assert not any(f"({', '.join(Card.from_id(c).name for c in e.secret)})" in text for e in drawn)


@run_async
async def test_setup_screen_starts_a_game() -> None:
    app = CivliteApp(delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        app.screen.query_one("#rules").value = "/no/such/rules.toml"  # type: ignore[attr-defined]
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        assert "cannot read rule-set file" in screen_text(app)
        app.screen.query_one("#rules").value = ""  # type: ignore[attr-defined]
        app.screen.query_one("#seed").value = "12"  # type: ignore[attr-defined]
        app.screen.query_one("#num-seats").value = 2  # type: ignore[attr-defined]
        await pilot.pause()
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        s = app.session
        assert s is not None and s.game.num_players == 2 and s.game.seed == 12
        assert [sp.kind for sp in s.seats] == ["human", "random"] and s.seats[0].name == "Ann"  # never "you"


@run_async
async def test_setup_screen_resumes_a_saved_game(tmp_path: Path) -> None:
    path = tmp_path / "saved.json"
    s = session_at(action_state(), [SeatSpec("human", "ann"), SeatSpec("heuristic")])
    s.apply(s.game.legal_actions()[0])
    s.save(path)
    app = CivliteApp(delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+r")  # nothing named yet
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        app.screen.query_one("#resume").value = str(path)  # type: ignore[attr-defined]
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert app.session is not None
        assert app.session.game.actions[: len(s.game.actions)] == s.game.actions
        assert app.session.seats[1].kind == "heuristic"


@run_async
async def test_setup_screen_delay_and_save_file_reach_the_table(tmp_path: Path) -> None:
    """The delay chosen at set-up and the --save file apply to the game started there."""
    save = tmp_path / "named.json"
    app = CivliteApp(delay=0, save_path=save)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.screen.query_one("#delay").value = 0.3  # type: ignore[attr-defined]
        await pilot.pause()
        assert app.delay == 0.3
        app.screen.query_one("#kind-1").value = "human"  # type: ignore[attr-defined]
        app.screen.query_one("#num-seats").value = 2  # type: ignore[attr-defined]
        await pilot.pause()
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert isinstance(app.screen, PassScreen) and app.table.delay == 0.3  # two humans: a hand-over first
        assert app.session is not None and app.session.save_path == save and save.exists()


@run_async
async def test_resumed_at_setup_screen_saves_to_the_save_file(tmp_path: Path) -> None:
    path, save = tmp_path / "saved.json", tmp_path / "other.json"
    s = session_at(action_state(), [SeatSpec("human", "ann"), SeatSpec("heuristic")])
    s.save(path)
    app = CivliteApp(delay=0, save_path=save)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.screen.query_one("#resume").value = str(path)  # type: ignore[attr-defined]
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert app.session is not None and app.session.save_path == save and save.exists()


@run_async
async def test_help_speed_and_save(tmp_path: Path, monkeypatch: object) -> None:
    s = session_at(action_state(), [SeatSpec("human", "ann"), SeatSpec("random")])
    app = CivliteApp(s, delay=0.6)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        assert "meld builder" in text and "R1 Components" in text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        await pilot.press("minus")
        assert app.delay == 1.0
        await pilot.press("plus", "plus", "plus")
        assert app.delay == 0.1
        s.save_path = tmp_path / "g.json"
        await pilot.press("s")
        await pilot.pause()
        assert GameRecord.load(tmp_path / "g.json").actions == s.game.actions


@run_async
async def test_replay_steps_forward_and_back(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    s = Session.new([SeatSpec("random"), SeatSpec("heuristic")], rules=FAST, seed=2)
    while s.to_move is not None:
        s.apply(s.bot_action())
    s.save(path)
    r = Replay.load(path)
    app = ReplayApp(r)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)
        assert r.step == 0 and "Step 0 of" in screen_text(app)
        await pilot.press("right", "right", "n")
        assert r.step == 3
        await pilot.press("left")
        assert r.step == 2
        turn = r.game.turn
        await pilot.press("t")
        assert r.game.turn == turn + 1 and r.games[r.step - 1].turn == turn
        await pilot.press("end")
        await pilot.pause()
        assert r.step == r.last and "Game over" in screen_text(app)
        await pilot.press("w")  # as seat 0: its hand is shown
        await pilot.pause()
        assert app.screen.viewer == 0  # type: ignore[attr-defined]
        text = screen_text(app)
        assert all(c.name in text for c in r.game.hand(0))
        await pilot.press("w", "w")
        assert app.screen.viewer is None  # type: ignore[attr-defined]
        await pilot.press("home")
        assert r.step == 0


@run_async
async def test_hot_seat_setback_target_answers_on_its_own_screen() -> None:
    state = action_state()
    state["players"][0]["hand"].append("Flood")
    state["players"][1]["hand"] = ["Celts", "Goths", "Huns", "Famine"]
    s = session_at(state, [SeatSpec("human", "ann"), SeatSpec("human", "bob")])
    s.auto_pass_meld.clear()
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")  # seat 0 takes the screen
        await pilot.pause()
        setback = [c.key for c in panel(app).choices].index("basic:D>1") + 1
        await pilot.press(str(setback))
        await pilot.pause()
        assert s.game.pending is not None and s.game.pending.kind == "setback_discard" and s.game.pending.player == 1
        assert isinstance(app.screen, PassScreen) and app.screen.seat == 1
        await pilot.press("enter")
        await pilot.pause()
        assert app.table.viewer == 1 and panel(app).mode == "discard"
        await pilot.press("space", "down", "space", "c")
        await pilot.pause()
        assert s.game.pending is not None and s.game.pending.kind == "meld" and s.game.pending.player == 0
        assert isinstance(app.screen, PassScreen) and app.screen.seat == 0
        await pilot.press("enter")
        await pilot.pause()
        assert app.table.viewer == 0
        text = screen_text(app)
        assert "Setback: bob discarded Celts, Goths" in text  # the discard is public (R3.2)
        assert "Huns" not in text and "Famine" not in text  # the rest of seat 1's hand is not


@run_async
async def test_pay_picker_chooses_which_cards_pay() -> None:
    """Cards of one suit play alike (R1.2), but not what opponents know of them: y on an ability
    picks the cards that pay. The hand holds two Wonders (Greatness) and one Leader (Vision)."""
    s, app = action_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        dp = panel(app)
        keys = [c.key for c in dp.choices]
        ol = dp.query_one("#choices", OptionList)
        ol.highlighted = keys.index("basic:L")  # one Leader only: nothing to choose
        await pilot.press("y")
        await pilot.pause()
        assert dp.mode == "choices"
        ol.highlighted = keys.index("basic:W")
        default = dp.choices[keys.index("basic:W")].action
        assert default is not None
        await pilot.press("y")
        await pilot.pause()
        assert dp.mode == "pay" and isinstance(app.focused, SelectionList)
        await pilot.press("escape")  # back to the choices, nothing played
        assert dp.mode == "choices" and not s.game.actions
        ol.highlighted = keys.index("basic:W")
        await pilot.press("y")
        wonders = sorted(c for c in s.view(0).hand if c.suit == default.cards[0].suit)  # type: ignore[attr-defined]
        other = next(c for c in wonders if c not in default.cards)  # type: ignore[attr-defined]
        for c in wonders:
            if c == other:
                await pilot.press("space")
            await pilot.press("down")
        await pilot.pause()
        assert f"pay with {other.name}" in screen_text(app)
        await pilot.press("c")
        await pilot.pause()
        played = s.game.actions[0]
        assert played.to_json() == {"do": "basic", "cards": [other.name]}


def test_a_crash_report_shows_no_hand(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual prints a crash with every frame's locals (the session, its game: every hand).
    The app prints the frames and the error only, and exits non-zero."""
    s = session_at(action_state(), [SeatSpec("human", "ann"), SeatSpec("random")])
    hidden = {c.name for seat in (0, 1) for c in s.game.hand(seat)}

    def boom(self: Session, action: object, decision: int | None = None) -> None:
        hand = self.game.hand(1)  # a local holding a hidden hand
        raise RuntimeError(f"boom ({len(hand)} cards)")

    monkeypatch.setattr(Session, "apply", boom)
    app = CivliteApp(s, delay=0)

    async def auto_pilot(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await pilot.press("1")

    app.run(headless=True, size=SIZE, auto_pilot=auto_pilot)
    err = capsys.readouterr().err
    assert "RuntimeError: boom (4 cards)" in err and "in boom" in err
    assert not [n for n in hidden if n in err]
    assert "civlite play --resume" in err  # where the game was saved
    assert app.return_code == 1
