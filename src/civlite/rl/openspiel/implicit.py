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
explicit game (a sampled world draws its own future chance). A dealt state keeps no memory
while it plays (see :class:`_ImplicitCore`): what the information states need is rebuilt
from its seed and actions the first time one is asked for, so loops that never ask (random
play, RL on observations) pay nothing for perfect recall.
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
    """What an implicit-chance state holds: the live game (never None) and its memory.

    A state dealt from a seed keeps no memory while it plays: it records the ids of the
    actions applied (``aids``). Its memory (the events, the seats' notes and records) is
    built when something first asks for it, by a *shadow*: a core that keeps its memory as it
    goes and replays the same seed and actions, which is the same game, since the game draws
    its chance from its own seeded stream alone. From then on each new action is replayed
    into the shadow when the memory is asked for again. Random play and RL loops that ask for
    no information state pay nothing for it. A state whose past no seed replays (a world
    sampled from a seat's view, a shadow itself) keeps its memory as it goes (``aids`` None).
    """

    __slots__ = ("aids", "game", "legal", "replayed", "seed", "shadow")
    FIELDS = (*MEMORY_SLOTS, "game")

    game: Game

    def __init__(self, cfg: _Config, seed: int, lazy: bool = True) -> None:
        self._init_memory(cfg)
        g = Game(cfg.n, seed=seed, rules=cfg.rules)
        self.hands0 = [h[:] for h in g.hands]  # each seat's hand as dealt (seat 0's with its first Rise)
        if lazy:
            # the events are the shadow's to build: the live game builds none, and goes on
            # drawing from the dealt game's own stream (so a replay of the seed is this game)
            g = g.clone_fast(g.rng)
        self.game = g
        self.legal: list[int] | None = None  # the legal ids last given (None once an action is applied)
        self.seed: int | None = seed
        self.aids: list[int] | None = [] if lazy else None  # the ids applied (None: memory kept as it goes)
        self.shadow: _ImplicitCore | None = None  # the replay that holds the memory (built when asked)
        self.replayed = 0  # how many of ``aids`` the shadow has applied

    def apply(self, aid: int) -> None:
        # an action among the legal ids just given (every action goes through here, which
        # forgets them) needs no second check; any other is checked (an illegal one raises
        # before anything changes)
        legal = self.legal
        self.legal = None
        g = self.game
        events = g.apply_id(aid, check=legal is None or aid not in legal)
        aids = self.aids
        if aids is not None:
            aids.append(aid)
            return
        if events:
            self.events += events
        self.observe(g, events)

    def _synced(self) -> _Memory:
        aids = self.aids
        if aids is None:
            return self
        shadow = self.shadow
        if shadow is None:
            assert self.seed is not None
            shadow = self.shadow = _ImplicitCore(self.cfg, self.seed, lazy=False)
            self.replayed = 0
        if self.replayed < len(aids):
            for aid in aids[self.replayed:]:
                shadow.apply(aid)
            self.replayed = len(aids)
        return shadow

    def copy(self) -> _ImplicitCore:
        c = _ImplicitCore.__new__(_ImplicitCore)
        if self.aids is None:
            self._copy_memory(c)
            c.aids = None
            c.shadow = None
        else:
            c._init_memory(self.cfg)
            c.hands0 = self.hands0  # never changed in place once dealt
            c.aids = self.aids[:]
            c.shadow = self.shadow.copy() if self.shadow is not None else None
        c.replayed = self.replayed
        c.seed = self.seed
        c.game = self.game.clone()  # the random source's state too (copied when either draws)
        c.legal = None
        return c

    def __deepcopy__(self, memo: dict[int, Any]) -> _ImplicitCore:
        return self.copy()

    def __copy__(self) -> _ImplicitCore:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        if self.aids is not None:  # the seed and the actions: the memory is built again when asked
            return {"cfg": self.cfg, "hands0": self.hands0, "game": self.game, "seed": self.seed,
                    "aids": self.aids}
        return {k: getattr(self, k) for k in self.FIELDS}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._init_memory(state["cfg"])
        self.aids = None
        self.seed = None
        for k, v in state.items():
            setattr(self, k, v)
        self.shadow = None
        self.replayed = 0
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
        ids = g.legal_ids()
        c.legal = ids
        return ids[:]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return []

    def is_chance_node(self) -> bool:
        return False

    def is_player_node(self) -> bool:
        return not self.core.game.over

    def is_terminal(self) -> bool:
        return self.core.game.over

    def _apply_action(self, action: int) -> None:
        self.core.apply(action)

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
        core.seed = None  # no seed replays this world's past: it keeps its memory as it goes
        core.aids = None
        core.shadow = None
        core.replayed = 0
        return ImplicitState(self.get_game(), core)

    def __str__(self) -> str:
        return str(self.core.game)
