"""``chance="implicit"``: ``python_civlite`` without chance nodes (SAMPLED_STOCHASTIC), for RL, ISMCTS and NFSP.

Each state holds a :class:`civlite.engine.Game` that draws its own chance, from its own
seeded random source, inside each action: the deal is done when the state is made, and
every draw, random steal and shuffle happens within the action that causes it, as in the
engine itself. The game's ``chance_seed`` seeds the deals: its k-th ``new_initial_state()``
is ``Game(players, seed=s_k)``, ``s_k`` the k-th ``getrandbits(62)`` of
``random.Random(chance_seed)``. A state's copies (``clone()``, pickling, serialisation)
carry its random source's state, so a copy goes on exactly as the original would, for the
same actions. :meth:`~civlite.rl.openspiel.game.CivLiteGame.deal` ``(seed)`` gives the
state of ``Game(players, seed=seed)``, the deal that seed gives every interface (pyspiel
itself makes initial states for some queries, which take seeds of the stream too).

pyspiel cannot serialise a Python game of SAMPLED_STOCHASTIC chance with
``serialize_game_and_state`` (it asks the game for its C++ random state, which a Python
game cannot provide): so ``random_sim_test`` passes here with ``serialize=False``, and a
state's own ``serialize()`` / ``game.deserialize_state()`` (which pickling uses) is exact.
Information states, observations and sampled worlds are those of the
explicit game (a sampled world draws its own future chance).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import pyspiel

from ...engine import Game, describe_id, sample_world
from ._memory import MEMORY_SLOTS, _Config, _Memory

if TYPE_CHECKING:
    from .game import CivLiteGame


def _restore(game: str, data: str) -> ImplicitState:
    """Unpickle an :class:`ImplicitState`: its game loaded again, and the state deserialised."""
    from . import CivLiteGame  # noqa: F401  (registers the games)

    state: ImplicitState = pyspiel.load_game(game).deserialize_state(data)
    return state


class _ImplicitCore(_Memory):
    """What an implicit-chance state holds: the live game (never None) and its memory."""

    __slots__ = ("game", "legal")
    FIELDS = (*MEMORY_SLOTS, "game")

    game: Game

    def __init__(self, cfg: _Config, seed: int) -> None:
        self._init_memory(cfg)
        g = Game(cfg.n, seed=seed, rules=cfg.rules)
        self.game = g
        self.hands0 = [h[:] for h in g.hands]  # each seat's hand as dealt (seat 0's with its first Rise)
        self.legal: tuple[int, list[int]] | None = None  # the legal ids last given, with their decision

    def legal_ids(self) -> list[int]:
        g = self.game
        ids = g.legal_ids()
        self.legal = (g.decision_number, ids)
        return ids[:]

    def apply(self, aid: int) -> None:
        g = self.game
        legal = self.legal
        # an action among the legal ids just given needs no second check; any other is checked
        # (an illegal one raises before anything changes)
        vouched = legal is not None and legal[0] == g.decision_number and aid in legal[1]
        events = g.apply_id(aid, check=not vouched)
        self.legal = None
        if events:
            self.events += events
        self.observe(g, events)

    def copy(self) -> _ImplicitCore:
        c = _ImplicitCore.__new__(_ImplicitCore)
        self._copy_memory(c)
        c.game = self.game.clone()  # the random source's state too (copied when either draws)
        c.legal = None
        return c

    def __deepcopy__(self, memo: dict[int, Any]) -> _ImplicitCore:
        return self.copy()

    def __copy__(self) -> _ImplicitCore:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.FIELDS}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            setattr(self, k, v)
        self.legal = None

    # -- what the observer asks (as of the explicit game's core) ----------------------
    def view_game(self) -> Game:
        return self.game

    def dealt_hand(self, seat: int) -> list[int]:
        return self.hands0[seat]

    def view_json(self, seat: int) -> dict[str, Any]:
        d = self.game.view(seat).to_json()
        d.pop("decision_number", None)
        return d


class ImplicitState(pyspiel.State):  # type: ignore[misc]
    """A state of ``python_civlite`` with ``chance="implicit"``: a decision or the end, never chance."""

    def __init__(self, game: CivLiteGame, core: _ImplicitCore | None = None, seed: int | None = None) -> None:
        super().__init__(game)
        if core is None:
            core = _ImplicitCore(game.cfg, game.seeds.getrandbits(62) if seed is None else seed)
        self.core = core

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        # pyspiel pickles a state with serialize_game_and_state, which a Python game with
        # SAMPLED_STOCHASTIC chance cannot pass (it asks the C++ game for GetRNGState, which
        # Python cannot provide); the state's own serialisation holds its random source
        return _restore, (str(self.get_game()), self.serialize())

    # -- OpenSpiel API (answered from Python, as CivLiteState does) -------------------
    def current_player(self) -> int:
        seat = self.core.game.to_move
        return -4 if seat is None else seat  # pyspiel.PlayerId.TERMINAL

    def _legal_actions(self, player: int) -> list[int]:
        g = self.core.game
        if g.over or g.to_move != player:
            return []
        return g.legal_ids()

    def legal_actions(self, player: int | None = None) -> list[int]:
        c = self.core
        g = c.game
        if player is not None and player != g.to_move:
            return list(pyspiel.State.legal_actions(self, player))  # rare: pyspiel's own answer (or error)
        if g.over:
            return []
        return c.legal_ids()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return []

    def is_chance_node(self) -> bool:
        return False

    def is_player_node(self) -> bool:
        return not self.core.game.over

    def is_terminal(self) -> bool:
        return self.core.game.over

    def _apply_action(self, action: int) -> None:
        self.core.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return describe_id(action)

    def returns(self) -> list[float]:
        return self.core.game.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> ImplicitState:
        """A world drawn from what ``player_id`` knows only, as the explicit game's (its future
        chance drawn from a source seeded by the sampler)."""
        c = self.core
        if not 0 <= player_id < c.cfg.n:
            raise ValueError(f"no seat {player_id} in a game of {c.cfg.n}")
        if c.game.over:
            raise ValueError("the game is over: there is nothing to sample")
        rng = random.Random(int(probability_sampler() * 2**62))
        world = sample_world(c.game.view(player_id), rng)
        world.rng = random.Random(rng.getrandbits(62))
        world.quiet = False
        core = _ImplicitCore.__new__(_ImplicitCore)
        c._resampled_memory(core, player_id, world)
        core.game = world
        core.legal = None
        return ImplicitState(self.get_game(), core)

    def __str__(self) -> str:
        return str(self.core.game)
