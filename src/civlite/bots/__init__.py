"""Bots: players that see only a seat's :class:`~civlite.engine.View`.

A bot is asked for one compact action (``civlite.engine.game`` documents the
compact space) given the seat's view and the legal compact actions; it keeps its
own seeded random source. It never receives the :class:`Game`, so it cannot read
hidden cards. :func:`decide` turns a bot's answer into the concrete action the
game records (a k-card discard is k compact steps, assembled here).

Bots are named by spec strings: ``random``, ``heuristic``, ``ismcts``,
``ismcts:iterations=2000``, ``ismcts:seconds=0.5``, ``policy`` (a small learned 2-player
network), ``expert`` (a learned policy and value for 2 to 8 seats), ``champion`` (search
guided by ``expert``); the learned bots need numpy.

Players choose by *level*: :data:`LEVELS` names each level's bot spec (``easy``,
``medium``, ``hard``, ``champion``), and a level's name is accepted wherever a spec is.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable, Sequence
from typing import Any

from ..engine import Action, Game, View


class Bot:
    """Base class. Subclasses implement :meth:`act`."""

    name = "bot"
    #: True for bots that think for a noticeable time per decision (search bots): a simulator
    #: then hands out games one at a time, so progress and crash-safe output are per game
    slow = False

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        if options:
            raise ValueError(f"bot {self.name!r} takes no option {sorted(options)[0]!r}")
        self.rng = random.Random(seed)

    def act(self, view: View, legal: Sequence[int]) -> int:
        """Choose one of ``legal`` (compact action ids) for ``view.seat``."""
        raise NotImplementedError

    @property
    def spec(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"make_bot({self.spec!r})"


class RandomBot(Bot):
    """Uniform over the legal compact actions."""

    name = "random"

    def act(self, view: View, legal: Sequence[int]) -> int:
        return legal[int(self.rng.random() * len(legal))]


BOTS: dict[str, Callable[..., Bot]] = {"random": RandomBot}
#: the options each bot's spec may set (``ismcts:iterations=2000``)
OPTIONS: dict[str, tuple[str, ...]] = {"random": ()}


def register(name: str, factory: Callable[..., Bot], options: Sequence[str] | None = None) -> None:
    """Make a bot available by name. ``options``: the names its spec may set (default: the
    factory's keyword parameters other than ``seed``)."""
    if options is None:
        params = inspect.signature(factory).parameters.values()
        options = [p.name for p in params if p.name != "seed" and p.kind is not p.VAR_KEYWORD]
    BOTS[name] = factory
    OPTIONS[name] = tuple(options)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"ismcts:iterations=2000,rollout=random"`` -> ``("ismcts", {...})``."""
    name, _, rest = spec.strip().partition(":")
    opts: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in rest.replace(";", ",").split(","))):
        key, eq, value = part.partition("=")
        if not eq:
            raise ValueError(f"bot spec {spec!r}: option {part!r} is not key=value")
        v: Any = value
        for conv in (int, float):
            try:
                v = conv(value)
                break
            except ValueError:
                continue
        opts[key.strip()] = v
    return name.strip().lower(), opts


#: the named levels a player chooses from, weakest first, and the bot spec each one plays
LEVELS: dict[str, str] = {
    "easy": "heuristic:mistakes=0.25",
    "medium": "heuristic",
    "hard": "expert",
    "champion": "champion",
}


#: what each level is, for lobbies and set-up screens
LEVEL_NOTES: dict[str, str] = {
    "easy": "the medium strategy, with one move in four at random",
    "medium": "a hand-written strategy",
    "hard": "learned networks (one each for 2, 3, 4 and 6 players), instant",
    "champion": "searches: with the network at 2 players (heuristic rollouts near the end), "
                "with heuristic rollouts at 3 to 8; about a fifth of a second a move",
}
#: each level's rating on the 2-player ladder (Elo with medium at 1500, 200 to 1,600 games a
#: pair, ±17 or less; ``civlite ladder``, benchmarks/results/ladder), shown beside the level
LEVEL_RATINGS: dict[str, int | None] = {"easy": 1268, "medium": 1500, "hard": 1855, "champion": 1875}


def level_label(level: str) -> str:
    """``"hard (expert, Elo 1234)"``: a level, its bot and its rating, for menus."""
    rating = LEVEL_RATINGS.get(level)
    bot = LEVELS[level].split(":")[0]
    return f"{level} ({bot}" + (f", Elo {rating}" if rating is not None else "") + ")"


def resolve_level(spec: str) -> str:
    """The bot spec of a level's name (``"hard"`` -> ``"expert"``); any other spec unchanged."""
    key = spec.strip().lower()
    return LEVELS.get(key, spec) if key != "champion" else LEVELS["champion"]


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A bot from its spec string (or a level's name, :data:`LEVELS`); raises ``ValueError``
    naming the problem."""
    _load_builtin()
    name, opts = parse_spec(resolve_level(spec))
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}; the bots are: {', '.join(sorted(BOTS))}")
    allowed = OPTIONS.get(name, ())
    for key in opts:
        if key not in allowed:
            raise ValueError(f"bot spec {spec!r}: {name} has no option {key!r} "
                             f"({'its options: ' + ', '.join(allowed) if allowed else 'it takes no options'})")
    try:
        return BOTS[name](seed=seed, **opts)
    except TypeError as e:
        raise ValueError(f"bot spec {spec!r}: {e}") from None


def _load_builtin() -> None:
    # heuristic, search and learned bots register themselves when their modules (and what
    # they need: numpy for the policy bot) exist
    for mod in ("heuristic", "ismcts", "policy", "expert", "champion"):
        try:
            __import__(f"{__name__}.{mod}")
        except ImportError:
            pass


def decide_and_return(bot: Bot, game: Game) -> tuple[Action, Bot]:
    """:func:`decide` run in another process: the action, and the bot as it is after deciding
    (its random source moved on), to replace the caller's copy."""
    return decide(bot, game), bot


def decide(bot: Bot, game: Game) -> Action:
    """Ask ``bot`` for the pending decision of ``game``; return the concrete action.

    The bot sees only ``game.view(seat)``. Discards are chosen one compact step at a
    time on a scratch copy, then returned as one :class:`~civlite.engine.Discard`.
    """
    seat = game.to_move
    if seat is None:
        raise ValueError("the game is over")
    if not game.is_discard_decision:
        aid = bot.act(game.view(seat), game.legal_ids())
        return game.action_for_id(aid)
    scratch = game.clone()
    need = scratch.pending.count if scratch.pending else 0
    steps: list[int] = []
    while len(steps) < need:
        aid = bot.act(scratch.view(seat), scratch.legal_ids())
        steps.append(aid)
        if len(steps) < need:
            scratch.apply_id(aid)
    return game.discard_for_ids(steps)


def play_step(bot: Bot, game: Game) -> list[Any]:
    """One compact step of ``bot`` on ``game`` (fast path for simulations)."""
    seat = game.to_move
    assert seat is not None
    return game.apply_id(bot.act(game.view(seat), game.legal_ids()))
