from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from civlite.engine import CARDS, Action, ActionFormatError, Advanced, Basic, Card, Discard, Meld, Pass, Take

names = st.sampled_from([c.name for c in CARDS])


@st.composite
def actions(draw: st.DrawFn) -> Action:
    kind = draw(st.sampled_from(["pass", "basic", "advanced", "take", "discard", "meld"]))
    player = draw(st.none() | st.integers(0, 7))
    if kind == "pass":
        return Pass(player=player)
    if kind == "take":
        return Take(Card(draw(names)), player=player)
    cards = draw(st.lists(names, min_size=1, max_size=7, unique=True))
    if kind in ("basic", "advanced"):
        target = draw(st.none() | st.integers(0, 7))
        return (Basic if kind == "basic" else Advanced)(cards, target, player)
    return (Discard if kind == "discard" else Meld)(cards, player)


@given(actions())
def test_json_round_trip(a: Action) -> None:
    d = a.to_json()
    assert Action.from_json(d) == a
    assert Action.from_json(json.dumps(d)) == a
    assert Action.from_json(d).player == a.player


def test_vocabulary_is_exactly_scenarios_md() -> None:
    assert Pass().to_json() == {"do": "pass"}
    assert Basic(["Spearmen"], 1).to_json() == {"do": "basic", "cards": ["Spearmen"], "target": 1}
    assert Advanced(["Granaries", "Palaces", "Roads"]).to_json() == {
        "do": "advanced", "cards": ["Granaries", "Palaces", "Roads"]}
    assert Take(Card("Greeks")).to_json() == {"do": "take", "card": "Greeks"}
    assert Discard(["Caesar", "Moses"]).to_json() == {"do": "discard", "cards": ["Moses", "Caesar"]}
    assert Meld(["Sumerians"]).to_json()["do"] == "meld"


def test_actions_are_immutable_values() -> None:
    a = Basic(["Spearmen"], 1)
    with pytest.raises(AttributeError):
        a.target = 2  # type: ignore[misc]
    assert a == Basic([Card("Spearmen")], 1) and hash(a) == hash(Basic(["Spearmen"], 1))
    assert repr(a) == "Basic([Card('Spearmen')], target=1)"


@pytest.mark.parametrize(("data", "needle"), [
    ("{not json", "not valid JSON"),
    ([1, 2], "an action is a JSON object"),
    ({"do": "fly"}, "'do' must be one of"),
    ({}, "'do' must be one of"),
    ({"do": "basic"}, "needs 'cards'"),
    ({"do": "basic", "cards": "Spearmen"}, "needs 'cards'"),
    ({"do": "basic", "cards": ["Napoleon"]}, "unknown card 'Napoleon'"),
    ({"do": "basic", "cards": ["Spearmen"], "target": "one"}, "'target' must be a seat"),
    ({"do": "take"}, "needs a 'card'"),
    ({"do": "take", "card": 3}, "must be a card name"),
    ({"do": "pass", "player": -1}, "'player' must be a seat"),
    ({"do": "pass", "cards": []}, "unknown field 'cards'"),
])
def test_malformed_actions_name_the_problem(data: object, needle: str) -> None:
    with pytest.raises(ActionFormatError, match=needle.replace("(", r"\(")):
        Action.from_json(data)
