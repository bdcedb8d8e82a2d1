"""civlite: the reference software for the card game Civ Lite: Ancients.

The rules engine is :mod:`civlite.engine`; its main types are re-exported here::

    import civlite
    game = civlite.Game(players=3, seed=7)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
"""

from .engine import (
    CARDS,
    NUM_ACTIONS,
    Ability,
    AbilityChoice,
    Action,
    ActionFormatError,
    Advanced,
    Basic,
    Card,
    Choices,
    Decision,
    DecisionKind,
    Discard,
    DiscardChoice,
    Effect,
    Event,
    Game,
    GameOverError,
    GameRecord,
    IllegalActionError,
    Meld,
    MeldChoice,
    Pass,
    PlayerView,
    PositionError,
    RecordError,
    RuleSet,
    RuleSetError,
    StaleDecisionError,
    Suit,
    Take,
    TakeChoice,
    UnknownCardError,
    View,
)

__version__ = "0.1.0"

__all__ = [
    "CARDS",
    "NUM_ACTIONS",
    "Ability",
    "AbilityChoice",
    "Action",
    "ActionFormatError",
    "Advanced",
    "Basic",
    "Card",
    "Choices",
    "Decision",
    "DecisionKind",
    "Discard",
    "DiscardChoice",
    "Effect",
    "Event",
    "Game",
    "GameOverError",
    "GameRecord",
    "IllegalActionError",
    "Meld",
    "MeldChoice",
    "Pass",
    "PlayerView",
    "PositionError",
    "RecordError",
    "RuleSet",
    "RuleSetError",
    "StaleDecisionError",
    "Suit",
    "Take",
    "TakeChoice",
    "UnknownCardError",
    "View",
    "__version__",
]
