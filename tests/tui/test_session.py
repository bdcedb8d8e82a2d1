"""The table's logic without Textual: choices, pickers, seats, saving and replays."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from civlite.engine import Advanced, Basic, Card, Discard, Meld, Pass, Take
from civlite.tui import SeatSpec, Session, choices_for, parse_seats
from civlite.tui.session import (
    Replay,
    SeatError,
    check_discard,
    check_meld,
    check_pay,
    check_writable,
    last_unfinished,
    loggable,
    new_autosave_path,
    unfinished_games,
)

from .helpers import FAST, action_state, meld_state, session_at

HUMAN_BOT = [SeatSpec("human", "ann"), SeatSpec("random")]


def test_parse_seats() -> None:
    seats = parse_seats("human, Bob, random, heuristic, ismcts:iterations=50, bot:random")
    assert [s.kind for s in seats] == ["human", "human", "random", "heuristic", "ismcts:iterations=50", "random"]
    assert seats[1].name == "Bob"
    assert seats[1].record_name(1) == "Bob" and seats[0].record_name(0) == "seat 0"
    assert SeatSpec.from_record_name(seats[3].record_name(3)) == SeatSpec("heuristic")
    assert SeatSpec.from_record_name("Ann") == SeatSpec("human", "Ann")


def test_action_choices_come_from_the_engine() -> None:
    s = session_at(action_state(), HUMAN_BOT)
    choices = s.choice_list(0)
    assert choices == choices_for(s.game.choices(0), s.names)
    keys = [c.key for c in choices]
    assert keys[0] == "pass" and choices[0].action == Pass()
    assert "basic:L" in keys and "basic:W" in keys and "basic:M>1" in keys and "advanced:W" not in keys
    by_key = {c.key: c.action for c in choices}
    assert by_key["basic:M>1"] == Basic([Card("Spearmen")], 1)
    assert by_key["basic:A"] == Basic([Card("Religion")])
    # every offered action is legal
    for c in choices:
        assert c.action is not None and s.game.is_legal(c.action)
    # labels and previews name the target
    raid = next(c for c in choices if c.key == "basic:M>1")
    assert raid.label == "Raid [1M] → bot random" and raid.detail.startswith("pay Spearmen: ")
    assert "bot random" in raid.detail
    # the other seat has no choices now
    assert s.choice_list(1) == []
    assert s.choice_list(None) == []


def test_vision_choices_one_per_suit() -> None:
    s = session_at(action_state(), HUMAN_BOT)
    s.apply(Basic([Card("Moses")]))
    assert s.game.pending is not None and s.game.pending.kind == "vision"
    choices = s.choice_list(0)
    assert choices and all(isinstance(c.action, Take) for c in choices)
    assert len({c.key for c in choices}) == len(choices)
    s.apply(next(c.action for c in choices if c.key == "take:C" and c.action is not None))
    assert s.game.pending is not None and s.game.pending.kind == "meld"


def test_meld_choices_and_builder_check() -> None:
    s = session_at(meld_state(), HUMAN_BOT)
    keys = [c.key for c in s.choice_list(0)]
    assert keys == ["pass", "meld:D", "meld:X", "build"]
    view = s.choices(0).meld
    assert view is not None
    good = [Card(n) for n in ["Greeks", "Moses", "Sphinx", "Religion", "Spearmen", "Granaries", "Tribute"]]
    action, text = check_meld(view, good)
    assert action == Meld(good) and "+5 CT" in text
    action, text = check_meld(view, good[:-1])
    assert action is None and "one of D/X" in text
    action, text = check_meld(view, [*good, Card("Flood")])
    assert action is None and "one card of each suit" in text
    action, text = check_meld(view, [*good[:-2], Card("Romans"), Card("Tribute")])
    assert action is None and "needs B" in text


def test_discard_check_needs_exactly_the_count() -> None:
    s = session_at(meld_state(), HUMAN_BOT)
    s.apply(Pass())
    view = s.choices(0).discard
    assert view is not None and view.count == 2 and "hand limit 7" in view.reason
    assert check_discard(view, [Card("Greeks")])[0] is None
    assert check_discard(view, [Card("Greeks"), Card("Romans"), Card("Flood")])[0] is None
    action, _ = check_discard(view, [Card("Greeks"), Card("Romans")])
    assert action == Discard([Card("Greeks"), Card("Romans")])
    assert s.game.is_legal(action)


def test_unknown_bot_is_an_error_not_a_random_bot() -> None:
    with pytest.raises(SeatError, match="seat 1: unknown bot 'heuristc': did you mean 'heuristic'"):
        Session.new([SeatSpec("human"), SeatSpec("heuristc")], seed=1)
    with pytest.raises(SeatError, match="ismcts has no option 'foo'"):
        Session.new([SeatSpec("human"), SeatSpec("ismcts:foo=1")], seed=1)


def test_log_is_redacted_for_each_seat() -> None:
    s = Session.new(HUMAN_BOT, seed=5)
    while s.to_move is not None and len(s.events) < 40:
        if s.is_bot(s.to_move):
            s.apply(s.bot_action())
        else:
            options = s.choices(s.to_move)
            ch = s.choice_list(s.to_move)
            if ch and ch[-1].action:
                s.apply(ch[-1].action)
            else:
                assert options.discard is not None
                s.apply(Discard(list(options.discard.from_cards[: options.discard.count])))
    logged = loggable(s.events)
    assert s.log_lines(0) == [e.describe(0).replace("seat 0", "ann").replace("seat 1", "bot random") for e in logged]
    assert s.log_lines(None) == [e.public.describe().replace("seat 0", "ann").replace("seat 1", "bot random")
                                 for e in logged]
    hidden = [(e, seat) for e in s.events if e.secret for seat in (0, 1, None) if seat not in e.seen_by]
    assert hidden, "the game should have had a secret draw by now"
    for e, seat in hidden:
        line = s.log_lines(seat)[s.events.index(e)]
        assert not any(Card.from_id(c).name in line for c in e.secret if c not in e.cards)


def test_save_resume_and_replay(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    s = Session.new([SeatSpec("human", "ann"), SeatSpec("heuristic")], rules=FAST, seed=11, save_path=path)
    for _ in range(6):
        if s.is_bot(s.to_move):
            s.apply(s.bot_action())
        else:
            s.apply(Pass())
    assert path.exists()
    again = Session.resume(path)
    assert again.game.state_json() == s.game.state_json()
    assert [sp.kind for sp in again.seats] == ["human", "heuristic"] and again.seats[0].name == "ann"
    assert again.events == s.events
    assert [e.kind for e in s.events[:2]] == ["turn", "draw"]  # the log opens with the first turn and its Rise
    assert again.save_path == path
    r = Replay.load(path)
    assert r.last == len(s.game.actions)
    r.go(r.last + 10)
    assert r.step == r.last and r.game.state_json() == s.game.state_json()
    r.go(-3)
    assert r.step == 0 and r.action_text() == "the deal"
    assert r.log_lines(0) == [e.describe(0).replace("seat 0", "ann") for e in s.events[:2]]  # the first Rise
    r.go(1)
    assert r.action_text().startswith("ann: ")
    # a step that used an ability names it as the engine's events say (Greatness paid with a Wonder)
    s = session_at(action_state(), HUMAN_BOT)
    s.apply(s.choices(0).ability_choice("basic.W").action())
    r = Replay.load(s.save(tmp_path / "ability.json"))
    r.go(1)
    assert r.action_text() == "ann: Greatness, paying Sphinx"


def test_advanced_choice_pays_exactly_its_cost() -> None:
    state = action_state()
    state["players"][0]["hand"] = ["Sphinx", "Pantheon", "Coliseum", "Moses"]
    state["discard"] = ["Minoans"]
    s = session_at(state, HUMAN_BOT)
    ch = {c.key: c.action for c in s.choice_list(0)}
    assert ch["advanced:W"] == Advanced([Card("Coliseum"), Card("Pantheon"), Card("Sphinx")])


def test_check_pay_takes_payable_cards_in_the_right_number() -> None:
    state = action_state()
    state["players"][0]["hand"] = ["Sphinx", "Pantheon", "Coliseum", "Stonehenge", "Moses", "Spearmen", "Hoplites"]
    state["discard"] = ["Minoans"]
    s = session_at(state, HUMAN_BOT)
    by_key = {c.key: c for c in s.choice_list(0)}
    golden = by_key["advanced:W"]
    assert check_pay(golden, [Card("Sphinx")]) == (None, "pick 3 Wonder cards (1/3)")
    assert check_pay(golden, [Card("Sphinx"), Card("Moses"), Card("Coliseum")])[1] == "Moses cannot pay for Golden Age"
    action, status = check_pay(golden, [Card("Stonehenge"), Card("Sphinx"), Card("Coliseum")])
    assert action == Advanced([Card("Stonehenge"), Card("Sphinx"), Card("Coliseum")]) and status.startswith("pay with")
    raid = by_key["basic:M>1"]
    assert check_pay(raid, [Card("Hoplites")])[0] == Basic([Card("Hoplites")], 1)  # the target is kept
    assert check_pay(by_key["pass"], [])[0] is None


def test_parse_seats_is_strict() -> None:
    with pytest.raises(SeatError, match=r"seat 1: 'heuristc' is not a bot: did you mean 'heuristic'\?"):
        parse_seats("human,heuristc")
    with pytest.raises(SeatError, match="ismcts has no option 'foo'"):
        parse_seats("human,ismcts:foo=1")
    with pytest.raises(SeatError, match="unknown bot 'heuristc': did you mean 'heuristic'"):
        parse_seats("human,heuristc:seconds=1")
    with pytest.raises(SeatError, match="unknown bot 'nosuch'"):
        parse_seats("human,bot:nosuch")
    with pytest.raises(SeatError, match="entry 2 is empty"):
        parse_seats("human,,random")
    # a player really called like a bot's near miss says so; a bot's name in capitals is that bot
    seats = parse_seats("human:heuristc,Heuristic,ismcts:seconds=0.5")
    assert seats == [SeatSpec("human", "heuristc"), SeatSpec("heuristic"), SeatSpec("ismcts:seconds=0.5")]


def test_the_log_names_players_and_says_a_meld_gain_once() -> None:
    s = session_at(meld_state(), HUMAN_BOT)
    meld = next(c.action for c in s.choice_list(0) if c.key == "meld:D")
    assert meld is not None
    events = s.apply(meld)
    assert [e.kind for e in events[:2]] == ["meld", "gain_ct"]  # the engine reports the gain twice
    lines = s.log_lines(0)
    assert sum("gained 5 CT" in line for line in lines) == 1
    assert any(line.startswith("R7.2 Meld: ann melded") for line in lines)
    assert not any("seat 0" in line or "seat 1" in line for line in lines)
    assert any("bot random" in line for line in lines)


def test_check_writable(tmp_path: Path) -> None:
    with pytest.raises(OSError, match=r"cannot save the game to /proc/nope/x\.json"):
        check_writable(Path("/proc/nope/x.json"))
    with pytest.raises(OSError, match="is a directory"):
        check_writable(tmp_path)
    check_writable(tmp_path / "new.json")
    assert not (tmp_path / "new.json").exists()  # the check leaves nothing behind


def test_a_failed_autosave_is_reported_not_raised(tmp_path: Path) -> None:
    s = Session.new(HUMAN_BOT, seed=2, save_path=Path("/proc/nope/x.json"))
    s.apply(Pass())  # the move is made; the save failed
    assert len(s.game.actions) == 1
    assert s.save_error is not None and "cannot save to /proc/nope/x.json" in s.save_error
    s.save_path = tmp_path / "ok.json"
    s.apply(s.game.legal_actions()[0])
    assert s.save_error is None and (tmp_path / "ok.json").exists()


def test_last_unfinished_game(tmp_path: Path) -> None:
    assert last_unfinished(tmp_path / "none") is None
    over = Session.new([SeatSpec("random"), SeatSpec("random")], rules=FAST, seed=1)
    while over.to_move is not None:
        over.apply(over.bot_action())
    over.save(tmp_path / "civlite-1-over.json")
    on = Session.new(HUMAN_BOT, seed=3)
    while on.to_move is not None and on.is_bot(on.to_move):
        on.apply(on.bot_action())
    on.apply(on.game.legal_actions()[0])  # a player has moved
    on.save(tmp_path / "civlite-0-on.json")
    (tmp_path / "civlite-2-broken.json").write_text("{", encoding="utf-8")
    Session.new(HUMAN_BOT, seed=4).save(tmp_path / "civlite-3-not-begun.json")  # quit before its first move
    for age, name in enumerate(["1-over", "0-on", "2-broken", "3-not-begun"]):  # saved in this order
        os.utime(tmp_path / f"civlite-{name}.json", (1_000_000 + age, 1_000_000 + age))
    assert last_unfinished(tmp_path) == tmp_path / "civlite-0-on.json"
    found, skipped = unfinished_games(tmp_path)
    assert found == tmp_path / "civlite-0-on.json"
    assert skipped[0] == "civlite-3-not-begun.json: quit before any player moved"
    assert skipped[1].startswith("civlite-2-broken.json: cannot be read (") and len(skipped) == 2
    assert on.begun and not Session.new(HUMAN_BOT, seed=4).begun
    assert new_autosave_path(tmp_path).parent == tmp_path
