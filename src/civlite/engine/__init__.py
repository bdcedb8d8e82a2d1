"""The civlite rules engine: imports nothing from the rest of civlite.

Its hot modules run compiled by mypyc when installed with pip (:mod:`._compiled`):
:data:`COMPILED` says whether they do in this process, :data:`SOURCE_REASON` why not.
"""

from ._compiled import SOURCE_REASON, is_compiled  # first: decides how the modules below load
from .actions import (
    Action,
    ActionFormatError,
    Advanced,
    Basic,
    Discard,
    IllegalActionError,
    Meld,
    Pass,
    StaleDecisionError,
    Take,
    action_from_json,
)
from .cards import ALL_CARDS, CARDS, MAJOR_SUITS, MINOR_SUITS, SUIT_OF, SUITS, Card, Suit, UnknownCardError
from .chance import ChanceSource
from .choices import AbilityChoice, Choices, DiscardChoice, MeldChoice, MeldSlot, TakeChoice
from .codec import (
    ADVANCED_BASE,
    BASIC_BASE,
    DISCARD_BASE,
    MELD_BASE,
    NUM_ACTIONS,
    PASS_ID,
    TAKE_BASE,
    describe_id,
)
from .decisions import DecisionKind
from .determinize import sample_world, unseen_cards
from .effects import PRIMITIVES, Primitive
from .events import Event
from .game import Game, GameOverError
from .numeric import ObservationStore, mask_batch, numeric_batch, numeric_observation, numeric_view, obs_size
from .outcome import Outcome, Termination
from .positions import PositionError
from .record import GameRecord, RecordError
from .rules import BUILTIN_RULES, EFFECT_OPS, Ability, Effect, RuleSet, RuleSetError
from .view import Decision, PlayerView, View

#: whether the engine's hot modules run compiled (mypyc) in this process
COMPILED: bool = is_compiled()

__all__ = [
    "ADVANCED_BASE",
    "ALL_CARDS",
    "BASIC_BASE",
    "BUILTIN_RULES",
    "CARDS",
    "COMPILED",
    "DISCARD_BASE",
    "EFFECT_OPS",
    "MAJOR_SUITS",
    "MELD_BASE",
    "MINOR_SUITS",
    "NUM_ACTIONS",
    "PASS_ID",
    "PRIMITIVES",
    "SOURCE_REASON",
    "SUITS",
    "SUIT_OF",
    "TAKE_BASE",
    "Ability",
    "AbilityChoice",
    "Action",
    "ActionFormatError",
    "Advanced",
    "Basic",
    "Card",
    "ChanceSource",
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
    "MeldSlot",
    "ObservationStore",
    "Outcome",
    "Pass",
    "PlayerView",
    "PositionError",
    "Primitive",
    "RecordError",
    "RuleSet",
    "RuleSetError",
    "StaleDecisionError",
    "Suit",
    "Take",
    "TakeChoice",
    "Termination",
    "UnknownCardError",
    "View",
    "action_from_json",
    "describe_id",
    "mask_batch",
    "numeric_batch",
    "numeric_observation",
    "numeric_view",
    "obs_size",
    "sample_world",
    "unseen_cards",
]
