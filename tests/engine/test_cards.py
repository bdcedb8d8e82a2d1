from __future__ import annotations

from pathlib import Path

import pytest

from civlite.engine import CARDS, Card, Suit, UnknownCardError
from civlite.engine.cards import CARD_NAMES

SEED = Path(__file__).resolve().parents[3] / "shared" / "seed" / "civ-lite-ancients.txt"


def test_112_cards_six_major_suits_of_16_two_minor_of_8() -> None:
    assert len(CARDS) == 112
    for suit in Suit:
        n = sum(1 for c in CARDS if c.suit == suit)
        assert n == (16 if suit.is_major else 8), suit
    assert len({c.name for c in CARDS}) == 112


def test_names_spelled_as_in_the_designers_list() -> None:
    for name in ("Hadrians Wall", "Light Houses", "Myceneans", "King Djoser", "Pyramids at Giza"):
        assert Card(name).name == name
    if SEED.exists():
        text = SEED.read_text()
        for c in CARDS:
            assert c.name in text, c.name


def test_round_trip_and_repr_is_valid_code() -> None:
    for c in CARDS:
        assert Card.from_name(str(c)) is c
        assert eval(repr(c), {"Card": Card}) is c
        assert Card.from_id(c.id) is c


def test_cards_are_immutable_and_interned() -> None:
    c = Card("Greeks")
    with pytest.raises(AttributeError):
        c.name = "Romans"  # type: ignore[misc]
    assert Card("Greeks") is c and hash(c) == c.id


def test_unknown_card_names_the_problem() -> None:
    with pytest.raises(UnknownCardError, match="Napoleon"):
        Card("Napoleon")
    with pytest.raises(UnknownCardError, match="did you mean 'Greeks'"):
        Card("greeks")
    assert isinstance(UnknownCardError("x"), ValueError)


def test_suit_order_and_letters() -> None:
    assert [s.letter for s in Suit] == list("CLWAMBDX")
    assert Suit.parse("m") is Suit.MILITARY and Suit.parse("Boon") is Suit.BOON
    assert set(CARD_NAMES) == set(Suit)
