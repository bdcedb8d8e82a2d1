"""What just happened, in view at 80x24: the "last turn" strip, new and lost cards marked in
the hand, the known cards, automatic passes in the seat's own log; the hot-seat hand-off
shows nothing of the previous turn, and the outgoing player sees its outcome first."""

from __future__ import annotations

from pathlib import Path

from civlite.engine import Card, Event
from civlite.tui import CivliteApp, SeatSpec, Session
from civlite.tui.recap import event_line, recap, since_last_turn
from civlite.tui.screens import PassScreen, TableScreen, TurnOverScreen

from .helpers import action_state, burst, run_async, screen_text, screen_when, session_at, settled_screen

SMALL = (80, 24)
ANN_BOB = [SeatSpec("human", "ann"), SeatSpec("human", "bob")]


def raid_key(s: Session) -> str:
    keys = [c.key for c in s.choice_list(0)]
    return "123456789"[keys.index("basic:M>1")]


def test_second_person_for_the_reader() -> None:
    names = ["you", "bob"]
    turn = Event("turn", "R4", player=0, turn=3)
    assert event_line(turn, 0, names, you=True) == "R4 turn 3: you start a turn"
    assert event_line(turn, 1, ["ann", "bob"], you=True) == "R4 turn 3: ann starts a turn"
    assert event_line(turn, 0, names) == "R4 turn 3: you starts a turn"  # the replay: third person
    win = Event("win", "R8.1", player=0, amount=20)
    assert event_line(win, 0, ["ann", "bob"], you=True) == "R8.1 you hold 20 CT and win"
    assert event_line(win, 1, ["ann", "bob"], you=True) == "R8.1 ann holds 20 CT and wins"
    look = Event("look", "R5", player=1, target=0, ability="Contact", secret=(1,), seen_by=(1,))
    assert event_line(look, 0, ["ann", "bob"], you=True) == "R5 Contact: bob looked at your hand"


def test_recap_names_only_what_the_reader_may_know() -> None:
    raid = [Event("turn", "R4", player=1, turn=2),
            Event("activate", "R5", player=1, target=0, ability="Raid", cards=(Card("Spearmen").id,)),
            Event("steal_cards", "R5", player=1, target=0, ability="Raid", count=1, secret=(Card("Greeks").id,),
                  seen_by=(0, 1)),
            Event("meld", "R7", player=1, amount=5, cards=()),
            Event("turn", "R4", player=0, turn=3)]
    names = ["ann", "bot"]
    assert recap(raid, 0, names) == ["bot: Raid → took your Greeks · melded +5"]  # ann's turn: not yet
    passed = [*raid, Event("pass", "R4.2", player=0, phase="action")]
    assert recap(passed, 0, names)[-1] == "You: passed"
    assert recap(raid, None, names)[0] == "bot: Raid → took 1 card from ann · melded +5"
    assert since_last_turn(raid, 0) == (0, 4)


@run_async
async def test_hand_off_after_an_automatic_pass_shows_nothing_of_the_turn() -> None:
    """Ann raids Bob; her meld passes by itself (no meld is possible, R9.1). She sees what she
    took; Bob's hand-off screen names no card, no pass, no meld, and no toast is up."""
    s = session_at(action_state(), ANN_BOB)
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("enter")  # Ann takes the screen
        await pilot.pause()
        await burst(pilot, raid_key(s))
        taken = next(e for e in s.events if e.kind == "steal_cards")
        card = Card.from_id(taken.secret[0]).name
        assert isinstance(app.screen, TurnOverScreen)  # Ann first sees her outcome
        text = screen_text(app)
        assert f"Raid → took {card} from bob" in text
        assert "no meld is possible" in " ".join(app.table.query_one("#log").lines[-1].text.split()) or any(
            "no meld is possible" in line for line in s.log_lines(0))
        await burst(pilot, "space", "c", "1")  # stray keys of a burst do not hand over
        assert isinstance(app.screen, TurnOverScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PassScreen) and app.screen.seat == 1
        text = screen_text(app)
        every_card = {c.name for c in (*s.game.hand(0), *s.game.hand(1), Card(card))}
        assert not [n for n in every_card if n in text]
        assert "meld" not in text.lower() and "passed" not in text and "Raid" not in text
        assert not app._notifications  # no toast over the hand-off
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.table.viewer == 1
        text = screen_text(app)
        # Bob: the strip says what was taken from him, the hand marks it lost, his log is his own
        assert f"ann: Raid → took your {card}" in " ".join(text.split())
        assert f"−{card}" in text
        assert not any("no meld is possible" in line for line in s.log_lines(1))
        assert "you start a turn" in " ".join(text.split())


@run_async
async def test_a_single_player_sees_what_the_bots_did_and_what_it_knows() -> None:
    state = action_state()
    state["players"][1]["hand"] = ["Celts", "Goths", "Huns", "Flood", "Legion"]
    state["deck"] = [c for c in state["deck"] if c != "Legion"]
    s = session_at(state, [SeatSpec("human", "ann"), SeatSpec("heuristic")])
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        await burst(pilot, raid_key(s))
        await pilot.pause()
        for _ in range(50):
            await app.workers.wait_for_complete()
            await pilot.pause()
            if s.to_move == 0:
                break
        text = " ".join(screen_text(app).split())
        assert "Since your turn: bot heuristic:" in text
        taken = next(e for e in s.events if e.kind == "steal_cards" and e.player == 0)
        name = Card.from_id(taken.secret[0]).name
        if any(c.name == name for c in s.game.hand(1)):  # still in the bot's hand: known to ann
            assert f"known: bot heuristic {name}" in text
        assert "+" in text  # the cards drawn at the Rise are marked new


@run_async
async def test_too_small_a_terminal_says_so_and_recovers() -> None:
    s = session_at(action_state(), [SeatSpec("human", "ann"), SeatSpec("random")])
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SMALL) as pilot:
        before = await screen_when(pilot, lambda t: "Quit" in t and "Your action" in t)
        before = await settled_screen(pilot)
        await pilot.resize_terminal(70, 20)
        text = await screen_when(pilot, lambda t: "too small" in t)
        assert "terminal too small (need 80x24)" in text and "this one is 70x20" in text
        assert "Your action" not in text
        await pilot.resize_terminal(80, 24)
        after = await screen_when(pilot, lambda t: t == before)
        assert "too small" not in after and after == before


def test_every_bot_and_level_is_offered_at_set_up() -> None:
    from civlite import bots
    from civlite.tui.screens import KIND_OPTIONS

    bots.make_bot("random", seed=0)  # every built-in bot registered
    offered = {v for _, v in KIND_OPTIONS}
    assert set(bots.LEVELS) <= offered and set(bots.BOTS) <= offered
    assert "policy" in offered


@run_async
async def test_set_up_refuses_two_players_of_one_name_and_shows_labels_whole() -> None:
    from civlite.tui.screens import SetupScreen

    app = CivliteApp(delay=0, setup=SetupScreen([SeatSpec("human", "Ann"), SeatSpec("human", "ann"),
                                                 SeatSpec("champion")]))
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        assert "bot: champion (champion, Elo" in screen_text(app)
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        assert "seats 0 and 1 are both called 'ann'" in " ".join(screen_text(app).split())


def test_names_are_cut_after_a_whole_word() -> None:
    from civlite.tui.widgets import fit_name

    assert fit_name("▶1 bot heuristic", 17) == "▶1 bot heuristic"
    assert fit_name("▶1 Alexandra of Macedon", 17) == "▶1 Alexandra of…"
    assert fit_name("▶1 Supercalifragilistic", 12) == "▶1 Supercal…"


@run_async
async def test_a_failed_save_offers_another_file(tmp_path: Path) -> None:
    from civlite.engine import GameRecord
    from civlite.tui.screens import SaveAsScreen

    s = session_at(action_state(), [SeatSpec("human", "ann"), SeatSpec("random")])
    s.save_path = Path("/proc/nope/x.json")
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        assert s.save_error is not None
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SaveAsScreen) and "cannot save to /proc/nope/x.json" in screen_text(app)
        box = app.screen.query_one("#save-path")
        box.value = "/proc/nope/y.json"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SaveAsScreen) and "/proc/nope/y.json" in screen_text(app)  # asked again
        app.screen.query_one("#save-path").value = str(tmp_path / "other.json")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert s.save_path == tmp_path / "other.json" and s.save_error is None
        await pilot.press("1")  # the saves after every move go there now
        await pilot.pause()
        assert GameRecord.load(tmp_path / "other.json").actions == s.game.actions


@run_async
async def test_you_win() -> None:
    state = action_state()
    state["players"][0]["ct"] = 19
    s = session_at(state, [SeatSpec("human", "you"), SeatSpec("random")])
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        await pilot.press(str([c.key for c in s.choice_list(0)].index("basic:W") + 1))  # Greatness: 20 CT
        await pilot.pause()
        assert "You win with 20 CT" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        text = " ".join(screen_text(app).split())
        assert "Game over: you win with 20 CT" in text and "you hold 20 CT and win" in text
        assert "you wins" not in text and "you starts" not in text
