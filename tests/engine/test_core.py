"""The engine's core, second edition: one handler per decision kind, events with one
meaning per field, the Outcome value, positions beside Game; on literal positions."""

from __future__ import annotations

import ast
import random
from pathlib import Path
from typing import Any

import pytest

from civlite.engine import (
    Advanced,
    Basic,
    Card,
    DecisionKind,
    Discard,
    Event,
    Game,
    GameRecord,
    Meld,
    Outcome,
    Pass,
    PositionError,
    RuleSet,
    Take,
    Termination,
)
from civlite.engine.handlers import HANDLERS, DiscardHandler, TakeHandler

SRC = Path(__file__).resolve().parents[2] / "src" / "civlite"


def pos(hands: list[list[str]], deck: list[str] | None = None, discard: list[str] | None = None,
        phase: str = "action", active: int = 0, cts: list[int] | None = None,
        rules: RuleSet | None = None, names: list[str] | None = None) -> Game:
    state = {"active": active, "phase": phase,
             "players": [{"hand": h, "ct": (cts or [0] * len(hands))[i]} for i, h in enumerate(hands)],
             "deck": deck or [], "discard": discard or []}
    return Game.from_position(state, rules, seed=3, names=names)


MELD = ["Greeks", "Caesar", "Sphinx", "Laws", "Spearmen", "Roads", "Flood"]


# -- one handler per decision kind, dispatched by the enum ---------------------------------
def test_every_decision_kind_has_exactly_one_handler() -> None:
    assert set(HANDLERS) == set(DecisionKind)
    assert all(h.kind is k for k, h in HANDLERS.items())
    assert len({id(h) for h in HANDLERS.values()}) == len(DecisionKind)
    assert isinstance(HANDLERS[DecisionKind.VISION], TakeHandler)
    assert all(isinstance(HANDLERS[k], DiscardHandler) for k in DecisionKind if k.is_discard)


def test_the_game_holds_the_pending_decisions_handler() -> None:
    g = pos([["Moses", "Flood"], ["Romans"]], deck=["Greeks", "Celts"])
    assert g._h is HANDLERS[DecisionKind.ACTION]
    g.apply(Basic(["Moses"]))
    assert g.pending_kind is DecisionKind.VISION and g._h is HANDLERS[DecisionKind.VISION]
    with pytest.raises(ValueError, match="vision takes take"):
        g.apply(Pass())
    assert g.pending_kind is DecisionKind.VISION  # refused: nothing changed (R9.2)
    g.apply(Take(Card("Celts")))
    assert g._h is HANDLERS[DecisionKind.MELD]


def _kinds_in(node: ast.AST) -> set[str]:
    """The decision kinds a test expression names (as a string or ``DecisionKind.X``)."""
    values = {k.value for k in DecisionKind}
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and n.value in values:
            out.add(str(n.value))
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "DecisionKind":
            out.add(n.attr.lower())
    return out


def test_no_if_elif_chain_on_decision_kinds_outside_the_handlers() -> None:
    """Each kind has one handler (handlers.py); no module chains ``if kind == ... elif ...``."""
    for path in sorted(SRC.rglob("*.py")):
        if path.name in ("handlers.py", "decisions.py") or "web" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.If):
                continue
            kinds = _kinds_in(node.test)
            branch = node
            while len(branch.orelse) == 1 and isinstance(branch.orelse[0], ast.If):
                branch = branch.orelse[0]
                kinds |= _kinds_in(branch.test)
            assert len(kinds) < 3, f"{path.relative_to(SRC)}:{node.lineno} branches on kinds {sorted(kinds)}"


@pytest.mark.parametrize("name", ["Fall", "Meld", "Action", "Rise"])
def test_a_designers_ability_named_fall_or_meld_plays_and_logs_as_itself(name: str) -> None:
    """R10: any name; decisions come from the effect primitive, events keep the ability's name."""
    rules = RuleSet.from_dict({"basic": {"X": {"name": name, "effects": ["draw 1", "discard 2"]}},
                               "hand_limit": 2})
    g = pos([["Tribute", "Sphinx", "Spearmen", "Moses", "Laws"], ["Sumerians"]], deck=["Greeks"], rules=rules)
    ev = g.apply(Basic(["Tribute"]))
    assert g.pending_kind is DecisionKind.CULTURE_DISCARD and g.pending is not None
    assert g.pending.ability == name and g.phase == "action"
    draw = next(e for e in ev if e.kind == "draw")
    assert (draw.ability, draw.phase) == (name, "action")
    ev = g.apply(Discard(["Sphinx", "Spearmen"]))
    d = ev[0]
    assert (d.kind, d.ability, d.phase) == ("discard", name, "action")
    assert d.describe() == f"R5 {name}: seat 0 discarded Sphinx, Spearmen"
    g.apply(Pass())  # the meld decision
    assert g.pending_kind is DecisionKind.FALL_DISCARD  # the real Fall: 3 cards over a limit of 2
    ev = g.apply(Discard(["Moses"]))
    assert g.turn == 2 and g.active == 1
    fall = ev[0]
    assert (fall.kind, fall.ability, fall.phase, fall.rule) == ("discard", None, "fall", "R4.4")
    assert fall.describe() == "R4.4 Fall: seat 0 discarded Moses"


# -- events: named fields, one meaning each ------------------------------------------------
def test_turn_events_name_the_turn_and_whether_it_is_extra() -> None:
    g = pos([["Granaries", "Palaces", "Roads"], ["Romans"]], deck=["Greeks", "Celts", "Goths", "Huns"])
    g.apply(Advanced(["Granaries", "Palaces", "Roads"]))  # City Builder (R6.4)
    ev = g.apply(Pass())
    turn = next(e for e in ev if e.kind == "turn")
    assert (turn.turn, turn.extra, turn.player, turn.phase, turn.count, turn.amount) == (2, True, 0, "rise", 0, 0)
    assert turn.describe() == "R4 turn 2: seat 0 starts an extra turn"
    assert turn.to_json()["turn"] == 2 and turn.to_json()["extra"] is True


def test_take_events_say_where_the_card_came_from() -> None:
    g = pos([["Moses", "Granaries"], ["Romans"]], deck=["Greeks", "Celts"], discard=["Goths", "Huns"])
    ev = g.apply(Basic(["Moses"]))
    assert g.pending_kind is DecisionKind.VISION
    ev = g.apply(Take(Card("Celts")))
    take = next(e for e in ev if e.kind == "take")
    assert (take.source, take.count, take.amount, take.cards) == ("deck", 1, 0, ())
    assert take.for_seat(1).describe(1) == "R5 Vision: seat 0 took a card from the deck"
    g.apply(Pass())
    g2 = pos([["Granaries"], ["Romans"]], discard=["Goths", "Huns"])
    ev = g2.apply(Basic(["Granaries"]))
    ev = g2.apply(Take(Card("Huns")))
    take = next(e for e in ev if e.kind == "take")
    assert (take.source, take.amount, take.cards) == ("discard", 0, (Card("Huns").id,))
    assert take.describe(None, names=["ann", "bob"]) == "R5 Foundations: ann took Huns from the discard pile"


def test_meld_events_belong_to_the_meld_phase_not_an_ability() -> None:
    g = pos([MELD, ["Romans"]], deck=["Goths", "Huns", "Celts", "Persians", "Hittites"], phase="meld")
    ev = g.apply(Meld(MELD))
    assert [e.kind for e in ev][:3] == ["meld", "gain_ct", "draw"]
    assert all(e.ability is None and e.phase == "meld" for e in ev[:3])
    assert [e.describe() for e in ev[1:3]] == [
        "R7.2 Meld: seat 0 gained 5 CT", "R7.2 Meld: seat 0 drew 5 cards (Goths, Huns, Celts, Persians, Hittites)"]


def test_describe_uses_player_names() -> None:
    e = Event("steal_ct", "R6", player=0, target=2, ability="Remake", amount=1)
    assert e.describe(names=["ann", "bob", "cy"]) == "R6 Remake: ann took 1 CT from cy"
    assert e.describe() == "R6 Remake: seat 0 took 1 CT from seat 2"
    d = Event("draw_game", "R8.2", seats=(0, 2), amount=9)
    assert d.describe(names=["ann", "bob", "cy"]) == "R8.2 turn limit reached: a draw between ann, cy"
    assert e.to_json(1, names=["ann", "bob", "cy"])["text"] == "R6 Remake: ann took 1 CT from cy"


def test_event_repr_is_code() -> None:
    e = Event("take", "R5", 0, ability="Vision", count=1, secret=(3,), seen_by=(0,), phase="action", source="deck")
    assert eval(repr(e)) == e


# -- Outcome ----------------------------------------------------------------------------------
def test_outcome_of_a_win() -> None:
    g = pos([["Sphinx"], ["Romans"]], cts=[19, 4])
    assert g.outcome() is None
    g.apply(Basic(["Sphinx"]))
    o = g.outcome()
    assert o == Outcome(Termination.VICTORY, 0, (20, 4))
    assert (o.reason, o.rule, o.is_draw, o.returns(), o.result()) == ("victory", "R8.1", False, [1.0, -1.0], "1-0")
    assert eval(repr(o)) == o
    assert o.describe(["ann", "bob"]) == "ann wins with 20 CT (R8.1)"
    assert o.to_json() == {"termination": "victory", "winner": 0, "ct": [20, 4], "drawn": [],
                           "rule": "R8.1", "result": "1-0"}
    assert g.returns() == o.returns()


def test_outcome_of_a_draw_at_the_turn_limit() -> None:
    rules = RuleSet.default().with_changes(turn_limit=1)
    g = pos([["Sphinx"], ["Romans"], ["Celts"]], cts=[3, 1, 3], rules=rules)
    g.apply(Pass())
    g.apply(Pass())
    o = g.outcome()
    assert o is not None and o.termination is Termination.TURN_LIMIT and o.winner is None
    assert (o.drawn, o.ct, o.result(), o.returns()) == ((0, 2), (3, 1, 3), "½-0-½", [0.0, 0.0, 0.0])
    assert o.describe() == "turn limit: a draw between seat 0 and seat 2 (R8.2)"


# -- positions beside Game --------------------------------------------------------------------
def test_positions_round_trip_and_name_their_errors() -> None:
    g = pos([["Sphinx"], ["Romans"]], deck=["Greeks"], discard=["Flood"], phase="meld", active=1, cts=[2, 0])
    again = Game.from_position(g.position(), seed=3)
    assert again.state_json() == g.state_json()
    assert eval(repr(g)).state_json() == g.state_json()  # Game's repr is code at an action or meld decision
    with pytest.raises(PositionError, match=r"state.phase must be 'rise', 'action' or 'meld', got 'fall'"):
        Game.from_position({"phase": "fall", "players": [{"hand": []}, {"hand": []}]})
    bad: dict[str, Any] = {"players": [{"hand": ["Sphinx"], "ct": 20}, {"hand": []}]}
    with pytest.raises(PositionError, match=r"R8.1"):
        Game.from_position(bad)


def test_knows_follows_the_knowledge_of_each_seat() -> None:
    g = pos([["Greeks", "Sphinx"], ["Romans", "Celts"], ["Goths"]], discard=["Flood"])
    assert g.knows(0, Card("Sphinx")) and not g.knows(1, Card("Sphinx")) and g.knows(2, Card("Flood"))
    g.apply(Basic(["Greeks"], target=1))  # Contact (R5)
    assert g.knows(0, Card("Romans")) and not g.knows(2, Card("Romans"))


# -- no module outside the engine sets a game's private fields ------------------------------
def test_no_module_outside_the_engine_sets_private_game_fields() -> None:
    offenders = []
    for path in SRC.rglob("*.py"):
        if "engine" in path.relative_to(SRC).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
            for t in targets:
                if (isinstance(t, ast.Attribute) and t.attr.startswith("_") and not t.attr.startswith("__")
                        and isinstance(t.value, ast.Name) and t.value.id in ("g", "game", "world", "state")):
                    offenders.append(f"{path.relative_to(SRC)}:{node.lineno} sets {t.value.id}.{t.attr}")
    assert offenders == []


def test_a_game_is_all_slots() -> None:
    """Every field is a slot (no ``__dict__``: clone() copies a fixed set, typos fail)."""
    g = Game(players=2, seed=1)
    assert not hasattr(g, "__dict__")
    with pytest.raises(AttributeError):
        g.no_such_field = 1  # type: ignore[attr-defined]


def test_every_view_tells_the_outcome_the_game_does() -> None:
    # R8: the end is public; a client holding only a view reads the same Outcome
    ended = {"victory": 0, "turn_limit": 0}
    for seed in range(40):
        n = 2 + seed % 4
        rules = RuleSet.default() if seed % 3 else RuleSet.default().with_changes(turn_limit=3)
        g = Game(n, seed=seed, rules=rules)
        rng = random.Random(seed)
        while not g.is_over:
            assert all(g.view(s).outcome() is None for s in (None, *range(n)))
            ids = g.legal_ids()
            g.apply_id(ids[rng.randrange(len(ids))])
        out = g.outcome()
        assert out is not None
        ended[out.reason] += 1
        for s in (None, *range(n)):
            assert g.view(s).outcome() == out
    assert ended["victory"] and ended["turn_limit"]


def test_a_quiet_game_builds_no_events_and_plays_the_same() -> None:
    # events are output only: a quiet game (search, learning) reaches the same states
    for seed in range(30):
        n = 2 + seed % 5
        loud, quiet = Game(n, seed=seed), Game(n, seed=seed)
        quiet.quiet = True
        assert quiet.opening_events == loud.opening_events  # set-up happened before
        rng = random.Random(seed)
        while not loud.is_over:
            ids = loud.legal_ids()
            assert quiet.legal_ids() == ids
            aid = ids[rng.randrange(len(ids))]
            loud_events = loud.apply_id(aid)
            assert quiet.apply_id(aid) == []
            if not loud.is_discard_decision and loud_events:
                assert any(e.kind for e in loud_events)
            for s in range(n):
                assert quiet.view(s) == loud.view(s)
        assert quiet.is_over and quiet.outcome() == loud.outcome()
        assert GameRecord.of(quiet).to_json() == GameRecord.of(loud).to_json()
        assert GameRecord.of(quiet).replay().state_json() == loud.state_json()


def test_copies_keep_quiet_and_search_copies_are_quiet() -> None:
    g = Game(3, seed=5)
    assert not g.quiet and not g.clone().quiet
    assert g.clone_fast(random.Random(1)).quiet
    g.quiet = True
    c = g.clone()
    assert c.quiet
    assert c.apply_id(c.legal_ids()[0]) == []
    c.quiet = False
    assert c.apply_id(c.legal_ids()[0]) != [] or c.is_discard_decision


def test_games_views_and_primitives_pickle() -> None:
    import pickle

    from civlite.engine import PRIMITIVES

    assert all(pickle.loads(pickle.dumps(p)) is p for p in PRIMITIVES.values())


def test_games_pickle_and_play_on_identically() -> None:
    # OpenSpiel serialises states, multiprocessing ships games: a pickled game (compiled or
    # not) comes back with the registered decision handlers and plays on as the original
    import pickle

    for seed in range(12):
        n = 2 + seed % 4
        g = Game(n, seed=seed)
        rng = random.Random(seed)
        for _ in range(40 + seed * 7):
            if g.is_over:
                break
            ids = g.legal_ids()
            g.apply_id(ids[rng.randrange(len(ids))])
        h = pickle.loads(pickle.dumps(g))
        assert h.state_json() == g.state_json() and h.pending == g.pending
        for s in (None, *range(n)):  # views and choices travel too (bots in other processes)
            assert pickle.loads(pickle.dumps(g.view(s))) == g.view(s)
            assert pickle.loads(pickle.dumps(g.choices(s))) == g.choices(s)
        assert GameRecord.of(h).to_json() == GameRecord.of(g).to_json()
        while not g.is_over:
            ids = g.legal_ids()
            assert h.legal_ids() == ids
            aid = ids[rng.randrange(len(ids))]
            assert h.apply_id(aid) == g.apply_id(aid)
        assert h.outcome() == g.outcome()
