"""Unit tests per rule on literal positions, and the engine's API contracts."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from civlite.engine import (
    NUM_ACTIONS,
    Advanced,
    Basic,
    Card,
    Discard,
    Game,
    GameOverError,
    GameRecord,
    IllegalActionError,
    Meld,
    Pass,
    PositionError,
    RuleSet,
    Take,
    describe_id,
    sample_world,
)
from civlite.engine.game import DISCARD_BASE, MELD_BASE, PASS_ID, TAKE_BASE


def pos(hands: list[list[str]], deck: list[str] | None = None, discard: list[str] | None = None,
        phase: str = "action", active: int = 0, cts: list[int] | None = None, **rules: Any) -> Game:
    state = {"active": active, "phase": phase,
             "players": [{"hand": h, "ct": (cts or [0] * len(hands))[i]} for i, h in enumerate(hands)],
             "deck": deck or [], "discard": discard or []}
    r = RuleSet.default().with_changes(**rules) if rules else None
    return Game.from_position(state, r, seed=3)


def names(cards: Any) -> set[str]:
    return {c.name for c in cards}


# -- R2 set-up --------------------------------------------------------------------
@pytest.mark.parametrize("n", range(2, 9))
def test_r2_1_deal(n: int) -> None:
    g = Game(players=n, seed=n)
    assert g.pending is not None and g.pending.kind == "action" and g.pending.player == 0
    assert len(g.hands[0]) == 7 and all(len(h) == 5 for h in g.hands[1:])  # seat 0 has risen (R4.1)
    assert len(g.deck) == 112 - 5 * n - 2 and g.ct == [0] * n


def test_r2_set_up_events_open_the_log() -> None:
    g = Game(players=3, seed=5, first=2)
    turn, draw = g.opening_events
    assert (turn.kind, turn.rule, turn.player, turn.turn, turn.extra) == ("turn", "R4", 2, 1, False)
    assert (draw.kind, draw.rule, draw.player, draw.count) == ("draw", "R4.1", 2, 2)
    assert set(draw.secret) <= set(g.hands[2]) and draw.seen_by == (2,)
    assert draw.for_seat(0).secret == () and draw.for_seat(2).secret == draw.secret  # R4.1: only the drawer
    assert g.clone().opening_events == g.opening_events
    first, *rest = GameRecord.of(g).replay_events()
    assert first == (None, list(g.opening_events)) and len(rest) == 0
    # a position that starts at its Rise opens with it; one that starts later has no set-up events
    assert [e.kind for e in pos([["Greeks"], ["Romans"]], deck=["Goths", "Huns"], phase="rise").opening_events] == [
        "turn", "draw"]
    assert pos([["Greeks"], ["Romans"]]).opening_events == ()


def test_r2_1_player_count_checked() -> None:
    with pytest.raises(ValueError, match="2 to 8"):
        Game(players=9)
    with pytest.raises(ValueError, match="2 to 8"):
        Game(players=1)


def test_r2_2_first_seat() -> None:
    assert Game(players=4, seed=1, first=2).pending.player == 2  # type: ignore[union-attr]
    firsts = {Game(players=4, seed=s, first="random").active for s in range(40)}
    assert firsts == {0, 1, 2, 3}
    with pytest.raises(ValueError, match="first seat"):
        Game(players=3, first=5)


def test_seeded_and_independent_of_global_random() -> None:
    random.seed(1)
    a = Game(players=3, seed=42).state_json()
    random.seed(2)
    assert Game(players=3, seed=42).state_json() == a


# -- R3 drawing -------------------------------------------------------------------
def test_r3_1_reshuffle_and_short_draw() -> None:
    g = pos([["Tribute"], []], deck=["Greeks"], discard=["Romans"])
    ev = g.apply(Basic(["Tribute"]))  # Growth: draw 3
    kinds = [e.kind for e in ev]
    assert "reshuffle" in kinds and g.deck == []
    assert names(g.hand(0)) == {"Greeks", "Romans", "Tribute"}  # R3.3: the payment is drawn back
    assert next(e for e in ev if e.kind == "reshuffle").rule == "R3.1"


# -- R5 basic abilities -------------------------------------------------------------
def test_r5_contact_only_actor_sees() -> None:
    g = pos([["Sumerians"], ["Caesar", "Moses"], ["Flood"]])
    ev = g.apply(Basic(["Sumerians"], 1))
    look = next(e for e in ev if e.kind == "look")
    assert look.rule == "R5" and look.seen_by == (0,)
    assert look.for_seat(2).secret == () and look.for_seat(1).secret == ()
    assert names(g.view(0).player(1).known) == {"Caesar", "Moses"}
    assert g.view(2).player(1).known == () and g.view(None).players[1].known == ()
    assert "Caesar" not in json.dumps([e.to_json(2) for e in ev])
    assert "Caesar" in json.dumps([e.to_json(0) for e in ev])


def test_r5_2_vision_choice_then_shuffle() -> None:
    g = pos([["Moses"], []], deck=["Greeks", "Romans", "Celts"])
    g.apply(Basic(["Moses"]))
    assert g.pending is not None and g.pending.kind == "vision" and g.phase == "action"
    assert names(g.view(0).searching or ()) == {"Greeks", "Romans", "Celts"}
    assert g.view(1).searching is None
    ev = g.apply(Take(Card("Romans")))
    take = next(e for e in ev if e.kind == "take")
    assert take.for_seat(1).secret == () and take.cards == ()
    assert "Romans" in names(g.hand(0)) and g.pending.kind == "meld"  # type: ignore[union-attr]
    assert any(e.kind == "shuffle" for e in ev)


def test_r5_3_foundations_public_take() -> None:
    g = pos([["Granaries"], [], []], discard=["Greeks", "Romans"])
    g.apply(Basic(["Granaries"]))
    g.apply(Take(Card("Granaries")))  # R5.3: the card just paid
    assert "Granaries" in names(g.hand(0))
    assert names(g.view(1).player(0).known) == {"Granaries"}  # the discard pile is public (R3.2)


def test_r5_4_culture_discards_three_and_forced_when_short() -> None:
    g = pos([["Religion", "Greeks"], []], deck=["Romans"])
    g.apply(Basic(["Religion"]))  # draws Romans and the reshuffled Religion: hand of 3 -> forced (R9.1)
    assert g.hands[0] == [] and g.pending.kind == "meld"  # type: ignore[union-attr]


def test_r5_5_raid_victim_and_thief_see_the_card_others_the_count() -> None:
    g = pos([["Spearmen"], ["Greeks"], ["Romans"]])
    ev = g.apply(Basic(["Spearmen"], 1))
    steal = next(e for e in ev if e.kind == "steal_cards")
    assert steal.seen_by == (0, 1) and steal.count == 1
    assert steal.for_seat(2).secret == () and steal.for_seat(1).secret == (Card("Greeks").id,)
    assert names(g.view(1).player(0).known) == {"Greeks"} and g.view(2).player(0).known == ()
    assert steal.describe(2) == "R5 Raid: seat 0 took 1 card from seat 1"


def test_r5_1_target_required_with_three_players_and_not_self() -> None:
    g = pos([["Spearmen"], ["Greeks"], ["Romans"]])
    before = g.state_json()
    with pytest.raises(IllegalActionError, match="give a 'target'") as e:
        g.apply(Basic(["Spearmen"]))
    assert e.value.rule == "R5.1"
    with pytest.raises(IllegalActionError, match="not seat 0 itself"):
        g.apply(Basic(["Spearmen"], 0))
    with pytest.raises(IllegalActionError, match="target seat 7 does not exist"):
        g.apply(Basic(["Spearmen"], 7))
    assert g.state_json() == before


@pytest.mark.parametrize("target", [0, 1, 2, 7])
def test_r9_2_target_on_an_ability_without_one_is_rejected_whatever_seat(target: int) -> None:
    g = pos([["Sphinx"], [], []])
    before = g.state_json()
    with pytest.raises(IllegalActionError, match="does not choose an opponent") as e:
        g.apply(Basic(["Sphinx"], target))
    assert e.value.rule == "R9.2" and g.state_json() == before


def test_r5_setback_target_decides() -> None:
    g = pos([["Flood"], ["Greeks", "Romans", "Caesar"]])
    g.apply(Basic(["Flood"]))
    assert g.pending is not None and g.pending.player == 1 and g.pending.kind == "setback_discard"
    assert g.pending.count == 2 and g.phase == "action"
    with pytest.raises(IllegalActionError, match="seat 0 may not decide"):
        g.apply(Discard(["Greeks", "Romans"], player=0))
    g.apply(Discard(["Greeks", "Romans"]))
    assert names(g.hand(1)) == {"Caesar"}


# -- R6 advanced ------------------------------------------------------------------
def test_r6_1_exact_cost() -> None:
    g = pos([["Granaries", "Palaces", "Roads", "Arenas"], []])
    for bad in (["Granaries", "Palaces"], ["Granaries", "Palaces", "Roads", "Arenas"]):
        with pytest.raises(IllegalActionError, match="costs exactly 3") as e:
            g.apply(Advanced(bad))
        assert e.value.rule == "R6.1"
    with pytest.raises(IllegalActionError, match="one suit"):
        pos([["Flood", "Tribute", "Volcano"], []]).apply(Advanced(["Flood", "Tribute", "Volcano"]))


def test_r6_3_remake_moves_a_token() -> None:
    g = pos([["Greeks", "Romans"], []], cts=[1, 2], ct_supply=3)
    g.apply(Advanced(["Greeks", "Romans"]))
    assert g.ct == [2, 1] and g.supply == 0


def test_r6_4_city_builder_extra_turn_and_turn_count() -> None:
    g = pos([["Granaries", "Palaces", "Roads"], []], deck=["Greeks", "Romans", "Celts", "Goths"])
    g.apply(Advanced(["Granaries", "Palaces", "Roads"]))
    assert g.extra_turn and g.ct[0] == 2
    ev = g.apply(Pass())
    assert g.active == 0 and g.turn == 2 and not g.extra_turn
    assert any(e.kind == "turn" and e.extra for e in ev)


def test_r6_conquest_takes_four_at_random() -> None:
    g = pos([["Spearmen", "Axemen", "Swordsmen"], ["Greeks", "Romans", "Celts", "Goths", "Huns", "Persians"]])
    g.apply(Advanced(["Spearmen", "Axemen", "Swordsmen"]))
    assert len(g.hands[0]) == 4 and len(g.hands[1]) == 2
    assert names(g.view(1).player(0).known) == names(g.hand(0))


# -- R7 meld ------------------------------------------------------------------------
MELD = ["Sumerians", "Cleopatra", "Stonehenge", "Religion", "Spearmen", "Granaries", "Flood"]


def test_r7_meld_and_errors() -> None:
    g = pos([[*MELD, "Tribute"], []], phase="meld", deck=["Greeks", "Romans", "Celts", "Goths", "Huns", "Persians", "Hittites"])
    with pytest.raises(IllegalActionError, match="exactly 7 cards") as e:
        g.apply(Meld(MELD[:6]))
    assert e.value.rule == "R7.1"
    g.apply(Meld(MELD))
    assert g.ct[0] == 5 and set(MELD) <= {c.name for c in g.view(1).discard}


def test_r8_1_meld_win_stops_before_drawing() -> None:
    g = pos([MELD, []], phase="meld", deck=["Greeks"], cts=[17, 0])
    ev = g.apply(Meld(MELD))
    assert g.is_over and g.winner == 0 and g.pending is None and g.ct[0] == 22
    assert ev[-1].kind == "win" and ev[-1].rule == "R8.1"
    assert len(g.deck) == 1
    # R7.2: the meld has left the hand (onto the discard pile) before the win
    assert g.hands[0] == [] and sorted(c.name for c in g.view(1).discard) == sorted(MELD)
    assert [e.kind for e in ev] == ["meld", "gain_ct", "win"]
    with pytest.raises(GameOverError):
        g.apply(Pass())


def test_r8_2_turn_limit_draw() -> None:
    g = pos([[], []], cts=[3, 3], turn_limit=1)
    g.apply(Pass())
    g.apply(Pass())
    assert g.is_over and g.winner is None and g.drawn == (0, 1)
    assert g.returns() == [0.0, 0.0]


# -- R9 decisions -------------------------------------------------------------------
def test_r9_2_illegal_changes_nothing_and_cites_rule() -> None:
    g = Game(players=3, seed=5)
    before = g.state_json()
    for bad in (Take(Card("Greeks")), Pass(player=2), Discard(["Greeks"]), Meld(MELD)):
        with pytest.raises(IllegalActionError) as e:
            g.apply(bad)
        assert "(R" in str(e.value)
        assert g.state_json() == before and g.actions == ()


def test_apply_accepts_json() -> None:
    g = pos([["Sphinx"], []])
    g.apply('{"do": "basic", "cards": ["Sphinx"]}')
    g.apply({"do": "pass"})
    assert g.ct[0] == 1 and g.phase != "meld"


# -- compact actions ----------------------------------------------------------------
def test_compact_space_matches_concrete_actions() -> None:
    rng = random.Random(0)
    for seed in range(30):
        g = Game(players=2 + seed % 4, seed=seed)
        for _ in range(200):
            if g.is_over:
                break
            ids = g.legal_ids()
            assert all(0 <= i < NUM_ACTIONS for i in ids) and ids == sorted(set(ids))
            mask = g.legal_mask()
            assert [i for i, ok in enumerate(mask) if ok] == ids
            if not g.is_discard_decision:
                concrete = g.legal_actions()
                assert {g.id_for_action(a) for a in concrete} == set(ids)
                for i in ids:
                    assert g.action_for_id(i) in concrete, describe_id(i)
            g.apply_id(rng.choice(ids))


def test_compact_discard_steps_are_multisets() -> None:
    g = pos([["Greeks", "Romans", "Celts", "Goths", "Huns", "Persians", "Hittites", "Caesar", "Moses"], []],
            phase="meld")
    g.apply_id(PASS_ID)
    assert g.pending is not None and g.pending.kind == "fall_discard" and g.pending.count == 2
    C, L = DISCARD_BASE + 0, DISCARD_BASE + 1
    assert g.legal_ids() == [C, L]
    assert g.apply_id(L) == [] and g.legal_ids() == [L]  # non-decreasing suits
    assert names(g.view(0).selecting) == {"Moses"}
    assert g.discard_for_ids([L]) == Discard(["Caesar", "Moses"])
    ev = g.apply_id(L)
    assert any(e.kind == "discard" for e in ev) and g.actions[-1] == Discard(["Caesar", "Moses"])


def test_compact_take_and_meld() -> None:
    g = pos([["Moses"], []], deck=["Greeks", "Romans", "Flood"])
    g.apply(Basic(["Moses"]))
    assert g.legal_ids() == [TAKE_BASE + 0, TAKE_BASE + 6]
    g = pos([[*MELD, "Tribute"], []], phase="meld")
    assert g.legal_ids() == [PASS_ID, MELD_BASE + 6, MELD_BASE + 7]


# -- clone, record, views -----------------------------------------------------------
def test_clone_is_independent_and_continues_identically() -> None:
    g = Game(players=3, seed=11)
    rng = random.Random(4)
    for _ in range(60):
        g.apply_id(rng.choice(g.legal_ids()))
    c = g.clone()
    assert c.state_json() == g.state_json()
    r1, r2 = random.Random(9), random.Random(9)
    while not g.is_over:
        g.apply_id(r1.choice(g.legal_ids()))
    assert c.turn < g.turn or c.state_json() != g.state_json()
    while not c.is_over:
        c.apply_id(r2.choice(c.legal_ids()))
    assert c.state_json() == g.state_json()


def test_record_replays_positions_too(tmp_path: Any) -> None:
    g = pos([["Spearmen", "Greeks"], ["Romans", "Celts"]], deck=["Goths", "Huns", "Persians"])
    g.apply(Basic(["Spearmen"]))
    g.apply(Pass())
    path = tmp_path / "r.json"
    GameRecord.of(g).save(path)
    again = GameRecord.load(path).replay()
    assert again.state_json() == g.state_json()


def test_views_are_immutable_json_and_spectator_is_public() -> None:
    g = Game(players=4, seed=2)
    v = g.view(1)
    with pytest.raises(AttributeError):
        v.ct = 3  # type: ignore[misc]
    d = json.loads(json.dumps(v.to_json()))
    assert d["seat"] == 1 and [p["seat"] for p in d["players"]] == [0, 2, 3]
    s = g.view(None).to_json()
    assert s["hand"] == [] and len(s["players"]) == 4 and all(p["known"] == [] for p in s["players"])
    with pytest.raises(ValueError):
        g.view(4)


@pytest.mark.parametrize("rules", [
    RuleSet.default(),
    RuleSet.from_dict({"deck": {"C": 8, "L": 8, "W": 8, "A": 8, "M": 8, "B": 8, "X": 0}}),  # a smaller deck (R10)
    RuleSet.from_dict({"deck": {"D": 12, "X": 12, "M": 20}}),  # a larger one, with extra cards
], ids=["default", "small-deck", "large-deck"])
def test_sample_world_agrees_with_the_view(rules: RuleSet) -> None:
    rng = random.Random(1)
    for seed in range(20):
        g = Game(players=2 + seed % 5, seed=seed, rules=rules)
        for _ in range(rng.randrange(1, 120)):
            if g.is_over:
                break
            g.apply_id(rng.choice(g.legal_ids()))
        if g.is_over:
            continue
        seat = g.to_move
        assert seat is not None
        v = g.view(seat)
        for _ in range(5):
            w = sample_world(v, rng)
            wv = w.view(seat)
            assert wv.hand == v.hand and wv.discard == v.discard and wv.deck_size == v.deck_size
            assert [(p.seat, p.hand_size, p.ct) for p in wv.players] == [
                (p.seat, p.hand_size, p.ct) for p in v.players]
            for p, wp in zip(v.players, wv.players, strict=True):
                assert set(p.known) <= set(w.hand(p.seat))
                assert wp.known == p.known  # the sampled world keeps the seat's knowledge
            assert w.legal_ids() == g.legal_ids() and w.pending == g.pending
            dealt = sorted([*w.deck, *w.discard, *(c for h in w.hands for c in h)])
            assert dealt == list(rules.deck)  # the world holds exactly the rule set's deck


def test_repr_is_valid_code() -> None:
    g = pos([["Sphinx"], ["Greeks"]], deck=["Romans"])
    again = eval(repr(g), {"Game": Game, "RuleSet": RuleSet})
    assert again.state_json() == g.state_json()


def test_position_errors() -> None:
    with pytest.raises(PositionError, match="appears twice"):
        pos([["Greeks"], ["Greeks"]])
    with pytest.raises(PositionError, match="unknown card 'Napoleon'"):
        pos([["Napoleon"], []])
    with pytest.raises(PositionError, match="ct must be a whole number"):
        pos([[], []], cts=[-1, 0])


def test_chance_source_decides_every_random_outcome() -> None:
    calls: list[str] = []

    class FirstCard:
        def draw(self, pile: list[int]) -> int:
            calls.append("draw")
            return 0  # the bottom card, not the top

        def pick(self, hand: list[int]) -> int:
            calls.append("pick")
            return len(hand) - 1

        def shuffle(self, pile: list[int]) -> None:
            calls.append("shuffle")
            pile.sort()

    g = pos([["Spearmen", "Tribute"], ["Greeks", "Romans"]], deck=["Celts", "Goths", "Huns"])
    g.chance = FirstCard()
    g.apply(Basic(["Spearmen"]))  # Raid: pick
    g.apply(Pass())
    g.apply(Pass())  # seat 1 rises: draws the deck's bottom card first
    assert calls[:3] == ["pick", "draw", "draw"]
    assert {"Huns", "Goths"} <= names(g.hand(1))
    assert g.clone().chance is g.chance
