"""The 112 cards of Civ Lite: Ancients (R1), and the extra cards a rule set's deck may add.

Cards are immutable, interned values: ``Card("Greeks") is Card.from_name("Greeks")``.
Each card has a stable integer id used by the engine's internals: the 112 standard
cards (:data:`CARDS`) are ids 0..111, grouped by suit in the order of :data:`SUITS`.
A rule set's ``[deck]`` (R10) may give a suit more cards than its named ones: the
extras are ids 112..255 (:data:`ALL_CARDS`), named after their suit and number
(``Disaster 9``, ``Civilization 17``), at most :data:`MAX_PER_SUIT` cards a suit.

>>> Card("Greeks"), Card("Greeks").suit, Card("Greeks") is CARDS[Card("Greeks").id]
(Card('Greeks'), Suit.CIVILIZATION, True)
>>> Card("greeks")
Traceback (most recent call last):
civlite.engine.cards.UnknownCardError: unknown card 'greeks': not one of the 112 cards of the deck list (R1.1); did you mean 'Greeks'?
"""

from __future__ import annotations

from enum import IntEnum
from typing import ClassVar


class Suit(IntEnum):
    """The eight suits, in the order of the designer's table (R1.1)."""

    CIVILIZATION = 0
    LEADER = 1
    WONDER = 2
    ADVANCE = 3
    MILITARY = 4
    BUILDING = 5
    DISASTER = 6
    BOON = 7

    @property
    def letter(self) -> str:
        return SUIT_LETTERS[self]

    @property
    def title(self) -> str:
        return self.name.capitalize()

    @property
    def is_major(self) -> bool:
        return self <= Suit.BUILDING

    @classmethod
    def parse(cls, text: str) -> Suit:
        """A suit from its letter (``"C"``) or name (``"civilization"``), any case."""
        t = text.strip().upper()
        for s in cls:
            if t == s.name or t == SUIT_LETTERS[s]:
                return s
        raise ValueError(
            f"unknown suit {text!r}: expected one of "
            + ", ".join(f"{SUIT_LETTERS[s]} ({s.title})" for s in cls)
        )

    def __repr__(self) -> str:
        return f"Suit.{self.name}"


SUITS: tuple[Suit, ...] = tuple(Suit)
SUIT_LETTERS: tuple[str, ...] = ("C", "L", "W", "A", "M", "B", "D", "X")
MAJOR_SUITS: tuple[Suit, ...] = SUITS[:6]
MINOR_SUITS: tuple[Suit, ...] = SUITS[6:]

# Card names exactly as the designer's card list spells them (R1.1).
CARD_NAMES: dict[Suit, tuple[str, ...]] = {
    Suit.CIVILIZATION: (
        "Sumerians", "Egyptians", "Babylonians", "Minoans",
        "Hittites", "Phoenicians", "Myceneans", "Greeks",
        "Romans", "Macedonians", "Assyrians", "Celts",
        "Carthaginians", "Goths", "Huns", "Persians",
    ),
    Suit.LEADER: (
        "Gilgamesh", "Menes", "Cleopatra", "King Djoser",
        "Hammurabi", "Ramses", "Nebuchadnezzar", "Homer",
        "Alexander the Great", "Jesus", "Hannibal", "Moses",
        "Caesar", "Attila", "Boudicca", "Aristotle",
    ),
    Suit.WONDER: (
        "Stonehenge", "Sphinx", "Pyramids at Giza", "Ziggurat",
        "Hanging Gardens", "Colossus", "Mausoleum", "Oracle at Delphi",
        "Forum of Trajan", "Hadrians Wall", "Temple of Solomon", "Pantheon",
        "Baths of Diocletian", "Parthenon", "Coliseum", "Basilica Cistern",
    ),
    Suit.ADVANCE: (
        "Religion", "Metal Working", "Astronomy", "Laws",
        "Alphabet", "Philosophy", "Engineering", "Music",
        "Irrigation", "Coinage", "The Wheel", "Masonry",
        "Medicine", "Mathematics", "Fermenting", "Government",
    ),
    Suit.MILITARY: (
        "Spearmen", "Axemen", "Swordsmen", "Phalanx",
        "Elephants", "Slingers", "Legion", "Biremes",
        "Triremes", "Catapults", "Archers", "Chariots",
        "Horse Archers", "Hoplites", "Peltasts", "Cataphracts",
    ),
    Suit.BUILDING: (
        "Granaries", "Palaces", "Roads", "Arenas",
        "Amphitheaters", "Walls", "Aqueducts", "Temples",
        "Libraries", "Barracks", "Light Houses", "Harbors",
        "Mines", "Citadels", "Markets", "Quarries",
    ),
    Suit.DISASTER: (
        "Flood", "Volcano", "Earthquake", "Famine",
        "Epidemic", "Barbarians", "Civil War", "Desertification",
    ),
    Suit.BOON: (
        "Tribute", "Trade Routes", "Wealth", "Vitality",
        "Exploration", "Innovation", "Peace", "Empire",
    ),
}


class UnknownCardError(ValueError):
    """A name that is not one of the 112 cards."""


class Card:
    """One card: an immutable, interned value with a name, a suit and an id.

    ``Card("Greeks")`` returns the one card of that name; ``str(card)`` is its name
    and ``repr(card)`` is ``Card('Greeks')``, valid code.
    """

    __slots__ = ("id", "name", "suit")
    _by_name: ClassVar[dict[str, Card]] = {}
    _by_lower: ClassVar[dict[str, Card]] = {}

    id: int
    name: str
    suit: Suit

    def __new__(cls, name: str) -> Card:
        try:
            return cls._by_name[name]
        except (KeyError, TypeError):
            raise UnknownCardError(_unknown_message(name)) from None

    @classmethod
    def _make(cls, cid: int, name: str, suit: Suit) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "id", cid)
        object.__setattr__(card, "name", name)
        object.__setattr__(card, "suit", suit)
        cls._by_name[name] = card
        cls._by_lower[name.lower()] = card
        return card

    @classmethod
    def from_name(cls, name: str) -> Card:
        """The card of that exact name; raises :class:`UnknownCardError` otherwise."""
        return cls(name)

    @classmethod
    def from_id(cls, cid: int) -> Card:
        return ALL_CARDS[cid]

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[str]]:
        return (Card, (self.name,))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Card({self.name!r})"

    def __lt__(self, other: Card) -> bool:
        return self.id < other.id

    def __hash__(self) -> int:
        return self.id

    def __eq__(self, other: object) -> bool:
        return self is other


def _unknown_message(name: object) -> str:
    if not isinstance(name, str):
        return f"a card name must be a string, got {name!r} (R1.1)"
    close = Card._by_lower.get(name.strip().lower())
    hint = f"; did you mean {close.name!r}?" if close is not None else ""
    return f"unknown card {name!r}: not one of the 112 cards of the deck list (R1.1){hint}"


#: the most cards a suit may hold in a rule set's deck (named cards and extras)
MAX_PER_SUIT = 32


def extra_name(suit: Suit, number: int) -> str:
    """The name of a suit's extra card: its suit and its number in the suit (``Disaster 9``);
    no named card is a suit's title and a number."""
    return f"{suit.title} {number}"


def _build() -> tuple[Card, ...]:
    cards: list[Card] = []
    for suit in SUITS:
        for name in CARD_NAMES[suit]:
            cards.append(Card._make(len(cards), name, suit))
    for suit in SUITS:  # the extras, after the 112: the standard ids never move
        for number in range(len(CARD_NAMES[suit]) + 1, MAX_PER_SUIT + 1):
            cards.append(Card._make(len(cards), extra_name(suit, number), suit))
    return tuple(cards)


#: every card a deck may hold: the 112 standard cards, then each suit's extras (ids 112..255)
ALL_CARDS: tuple[Card, ...] = _build()
#: the 112 cards of the designer's card list (R1.1): the default deck
CARDS: tuple[Card, ...] = ALL_CARDS[:112]
#: suit index of each card id (every card of ALL_CARDS), for the engine's hot paths
SUIT_OF: tuple[int, ...] = tuple(int(c.suit) for c in ALL_CARDS)
#: the standard card ids of each suit, ascending
IDS_OF_SUIT: tuple[tuple[int, ...], ...] = tuple(
    tuple(c.id for c in CARDS if c.suit == s) for s in SUITS
)
#: every card id of each suit in deck order: the named cards, then the extras
SUIT_CARD_IDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(c.id for c in ALL_CARDS if c.suit == s) for s in SUITS
)
NAMES: tuple[str, ...] = tuple(c.name for c in ALL_CARDS)
ID_OF_NAME: dict[str, int] = {c.name: c.id for c in ALL_CARDS}


def card_by_id(cid: int) -> Card:
    """The card of an id (standard or extra)."""
    return ALL_CARDS[cid]


assert len(CARDS) == 112 and len(ALL_CARDS) == 8 * MAX_PER_SUIT == 256 and len(set(NAMES)) == 256
