"""Every key counts: keys typed in a burst (fast typing, key repeat, a paste) act exactly as
if typed slowly, and each key means one thing at the table and in the replay."""

from __future__ import annotations

from pathlib import Path

from civlite.engine import Card, Discard, Meld
from civlite.tui import CivliteApp, Replay, ReplayApp, SeatSpec, Session
from civlite.tui.options import REPLAY_KEYS, TABLE_KEYS
from civlite.tui.replay import ReplayScreen
from civlite.tui.table import TableScreen
from civlite.tui.widgets import CHOICE_KEYS, DecisionPanel

from .helpers import FAST, burst, meld_state, run_async, screen_text, session_at

ANN_RANDOM = [SeatSpec("human", "ann"), SeatSpec("random")]


def panel(app: CivliteApp) -> DecisionPanel:
    return app.table.query_one(DecisionPanel)


@run_async
async def test_burst_picks_in_the_fall_discard_all_count() -> None:
    s = session_at(meld_state(), ANN_RANDOM)
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("p")  # no meld: 9 cards, 2 go (R4.4)
        await pilot.pause()
        hand = sorted(s.view(0).hand)
        await burst(pilot, "down", "space", "down", "space", "down", "space")
        assert panel(app).picked() == hand[1:4]  # three ticked, as typed
        assert "3 picked: unpick 1 (3/2)" in screen_text(app)
        await burst(pilot, "space", "c")  # unpick the third and confirm, in one burst
        assert Discard(hand[1:3]) in s.game.actions


@run_async
async def test_a_whole_turn_typed_in_one_burst() -> None:
    """Pass the meld, pick two cards and confirm: one burst, across two decisions."""
    s = session_at(meld_state(), ANN_RANDOM)
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        hand = sorted(s.view(0).hand)
        await burst(pilot, "p", "space", "down", "space", "c")
        assert Discard(hand[:2]) in s.game.actions


@run_async
async def test_burst_in_the_meld_builder() -> None:
    s = session_at(meld_state(), ANN_RANDOM)
    app = CivliteApp(s, delay=0)
    want = {"Romans", "Moses", "Sphinx", "Religion", "Spearmen", "Granaries", "Flood"}
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        keys = ["m"]
        for c in sorted(s.view(0).hand):
            keys += ["space", "down"] if c.name in want else ["down"]
        await burst(pilot, *keys, "c")
        assert Meld([Card(n) for n in want]) in s.game.actions and s.game.ct[0] >= 5


@run_async
async def test_arrows_scroll_the_log_when_it_has_the_focus() -> None:
    s = session_at(meld_state(), ANN_RANDOM)
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("p")
        await pilot.pause()
        await pilot.press("l")
        await pilot.pause()
        await burst(pilot, "down", "space", "down")
        assert panel(app).picked() == []  # the keys went to the log, not the picker
        await burst(pilot, "d")
        await pilot.pause()
        await burst(pilot, "space")
        assert len(panel(app).picked()) == 1


def test_one_meaning_per_key_at_the_table_and_in_the_replay() -> None:
    def keys(bindings: list) -> dict[str, str]:  # type: ignore[type-arg]
        out = {}
        for b in bindings:
            for k in b.key.split(","):
                out[k] = b.action
        return out

    table, replay = keys(TableScreen.BINDINGS), keys(ReplayScreen.BINDINGS)
    assert table["v"] == "discard_pile" and replay["v"] == "discard_pile"
    same = {"v", "q", "question_mark", "f1", "home", "end"}  # the discard pile, quit, help, first / last
    shared = set(table) & set(replay)
    assert shared <= same, shared - same
    assert not set(CHOICE_KEYS) & set(replay)
    # the help lists say the same
    assert any(k.startswith("1 … 9, f h") for k, _ in TABLE_KEYS)
    assert ("v", "the whole discard pile (as at the table)") in REPLAY_KEYS


@run_async
async def test_letter_keys_answer_options_past_nine() -> None:
    """A choice list longer than nine: the tenth choice has the key f, shown beside it."""
    state = meld_state(["Greeks", "Romans", "Moses", "Sphinx", "Religion", "Spearmen", "Granaries", "Flood"])
    state["phase"] = "action"
    state["players"] += [{"hand": ["Hittites"], "ct": 0}, {"hand": ["Babylonians"], "ct": 0}]
    state["deck"] = [c for c in state["deck"] if c not in ("Hittites", "Babylonians")]
    seats = [SeatSpec("human", "ann"), SeatSpec("random"), SeatSpec("random"), SeatSpec("random")]
    s = session_at(state, seats)
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        dp = panel(app)
        assert len(dp.choices) > 9
        text = screen_text(app)
        assert f"f. {dp.choices[9].label}" in text
        tenth = dp.choices[9].action
        await burst(pilot, "f")
        assert s.game.actions and s.game.actions[0] == tenth


@run_async
async def test_replay_keys(tmp_path: Path) -> None:
    s = Session.new([SeatSpec("random"), SeatSpec("heuristic")], rules=FAST, seed=2)
    while s.to_move is not None:
        s.apply(s.bot_action())
    s.save(tmp_path / "r.json")
    app = ReplayApp(Replay.load(tmp_path / "r.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await burst(pilot, "right", "right", "w")
        assert app.screen.viewer == 0  # type: ignore[attr-defined]
        await pilot.press("v")
        await pilot.pause()
        assert "Discard pile" in screen_text(app)


@run_async
async def test_enter_presses_a_focused_button() -> None:
    s = session_at(meld_state(), ANN_RANDOM)
    app = CivliteApp(s, delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        hand = sorted(s.view(0).hand)
        await burst(pilot, "p", "space", "down", "space")
        confirm = panel(app).query_one("#confirm")
        confirm.active_effect_duration = 0  # type: ignore[attr-defined]
        confirm.focus()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert Discard(hand[:2]) in s.game.actions
