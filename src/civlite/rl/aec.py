"""The per-decision half of an agent-environment-cycle (AEC) environment over one game,
compiled with the engine (in its mypyc group, so that it calls the engine natively).

PettingZoo's AEC loop makes three calls per decision (the ``agent_iter`` iterator's
``__next__``, ``last()``, ``step()``); run as Python methods, their bookkeeping (which
agent, its flags, its observation, the engine's calls) cost more than the game's own move.
``civlite.rl.pettingzoo`` hands those three calls to an :class:`AECCore` (its bound methods
become the environment's ``last`` and ``step``), whose methods run compiled next to the
engine and call it natively: the same values, the same state after every call, as the
Python methods they stand for.

It imports nothing but the engine, and knows no library: the environment comes in as a
plain object, the observation arrays (numpy's, made by the caller over one
:class:`~civlite.engine.numeric.ObservationStore` per seat) as opaque values with a ``copy``
method. The AEC state that every call reads
(``agents``, ``agent_selection``, ``terminations``, ``truncations``, ``rewards``,
``_cumulative_rewards``, ``infos``) lives here, in native fields: the environment's
attributes of those names are properties over them, so PettingZoo's own code (its
wrappers, ``_was_dead_step``) reads and writes the same objects. Everything rare goes back
to the environment's own Python methods: a dead agent's step (``_was_dead_step``), any
action that is not a legal ``int`` now (``_step_checked``: its errors), the game's end
(``_finish``), rendering (``render``).
"""

from __future__ import annotations

from typing import Any, Final

from ..engine.codec import NUM_ACTIONS
from ..engine.game import Game
from ..engine.numeric import ObservationStore

__all__ = ["AECCore", "AECIterator"]

#: ``agent_iter``'s default bound, capped to a machine integer (2**62 steps: never reached)
_MAX_ITER: Final = 1 << 62
#: the reward reset at each step (one float object, not a new one per step)
_ZERO: Final[object] = 0.0
#: the legal ids of a seat that does not decide now (never changed)
_NO_IDS: Final[list[int]] = []


class AECCore:
    """The hot state and calls of one AEC environment (``env``) with seats ``names``.

    ``observe`` writes a seat's observation into ``stores[seat]``, the memory under the
    float32 array ``observations[seat]`` and the int8 array ``masks[seat]`` (numpy arrays,
    made by the caller), and returns those two arrays (``copy=False``) or new copies of them
    (``copy=True``: their own ``copy`` methods, bound once).
    """

    def __init__(self, env: Any, game: Game, names: list[str], copy: bool, stores: list[ObservationStore],
                 observations: list[Any], masks: list[Any]) -> None:
        if len(names) != game.n:
            raise ValueError(f"{len(names)} agent names for a {game.n}-player game")
        if not len(stores) == len(observations) == len(masks) == game.n or any(
                s.players != game.n or s.width != NUM_ACTIONS for s in stores):
            raise ValueError(f"one ObservationStore({game.n}, {NUM_ACTIONS}) per seat ({game.n}), with its two arrays, "
                             "is needed")
        self.env = env
        self.names = names
        self.seat_of: dict[str, int] = {a: i for i, a in enumerate(names)}
        self.copy = copy
        self.stores = stores
        self.observations = observations
        self.masks = masks
        self.copy_observation: list[Any] = [o.copy for o in observations]
        self.copy_mask: list[Any] = [m.copy for m in masks]
        self.game = game  # replaced by every ``reset``
        # the AEC state (the environment's attributes of these names read and write them)
        self.agents: list[str] = []
        self.agent_selection = ""
        self.terminations: dict[str, Any] = {}
        self.truncations: dict[str, Any] = {}
        self.rewards: dict[str, Any] = {}
        self.cumulative: dict[str, Any] = {}  # ``_cumulative_rewards``
        self.infos: dict[str, Any] = {}
        #: the legal ids of the deciding seat (empty once the game is over)
        self.legal: list[int] = []
        #: the deciding seat (-1 once the game is over)
        self.mover = -1
        #: whether ``play`` keeps the events (``env._last_events``), and renders after each move
        self.keep_events = False
        self.human = False
        #: PettingZoo's order-enforcing wrapper over ``env`` (``None``: none), for
        #: :meth:`enforced_step`; the wrappers' per-step flags live here (their attributes of
        #: those names are properties over these fields): the order wrapper's
        #: ``_has_updated``, the illegal-move wrapper's ``_terminated`` and ``_prev_obs`` /
        #: ``_prev_info`` (the observation it keeps for its mask check)
        self.enforcer: Any = None
        self.has_updated = False
        self.terminated = False
        self.prev_obs: Any = None
        self.prev_info: Any = None

    def reset(self, game: Game) -> None:
        """Start on ``game`` (a new game): every agent alive, no reward yet, the first decider
        selected."""
        names = self.names
        self.game = game
        self.agents = names[:]
        self.rewards = dict.fromkeys(names, 0.0)
        self.cumulative = dict.fromkeys(names, 0.0)
        self.terminations = dict.fromkeys(names, False)
        self.truncations = dict.fromkeys(names, False)
        self.infos = {a: {} for a in names}
        self.legal = game.legal_ids()
        mover = game.to_move
        assert mover is not None
        self.mover = mover
        self.agent_selection = names[mover]

    def observe(self, agent: str) -> dict[str, Any]:
        """``{"observation": ..., "action_mask": ...}`` of ``agent`` now (the mask is all zeros
        unless ``agent`` decides now)."""
        seat = self.seat_of[agent]
        self.stores[seat].write(self.game, seat, self.legal if seat == self.mover else _NO_IDS)
        if self.copy:
            return {"observation": self.copy_observation[seat](), "action_mask": self.copy_mask[seat]()}
        return {"observation": self.observations[seat], "action_mask": self.masks[seat]}

    def last(self, observe: bool = True) -> tuple[Any, Any, Any, Any, Any]:
        """PettingZoo's ``last``: the observation, cumulative reward, termination, truncation
        and info of ``env.agent_selection`` (the values as stored: nothing is converted)."""
        agent = self.agent_selection
        if not agent:
            raise AttributeError("agent_selection: call reset() first")
        return (self.observe(agent) if observe else None, self.cumulative[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def step(self, action: Any) -> None:
        """PettingZoo's ``step``: a legal ``int`` plays here; anything else (a dead agent's
        step, another type, an illegal id) goes to the environment's Python methods."""
        agent = self.agent_selection
        if not agent:
            raise AttributeError("agent_selection: call reset() first")
        if self.terminations[agent] or self.truncations[agent]:
            self.env._was_dead_step(action)
        elif type(action) is int and _is_in(self.legal, action):
            self.play(agent, action)
        else:
            self.env._step_checked(action)

    def enforced_step(self, action: Any) -> None:
        """The step of the wrapped environment (``enforcer``, after its ``reset``): with a legal
        ``int`` that no wrapper can refuse, what their chain does (the order flag set, the
        illegal-move wrapper's kept observation dropped, the move played); anything else
        through the wrappers (``enforcer._step_wrapped``)."""
        if type(action) is int and _is_in(self.legal, action) and not self.terminated:
            self.has_updated = True
            self.prev_obs = None  # kept by a call through the wrappers
            self.prev_info = None
            self.play(self.agent_selection, action)
        else:
            self.enforcer._step_wrapped(action)

    def play(self, agent: str, aid: int) -> None:
        """``agent`` (who decides now) plays the legal id ``aid``."""
        g = self.game
        self.cumulative[agent] = _ZERO
        events = g.apply_id(aid, False)
        if self.keep_events:
            self.env._last_events = events
        if g.over:
            self.legal = []
            self.mover = -1
            self.env._finish()
        else:
            self.legal = g.legal_ids()
            mover = g.to_move
            assert mover is not None
            self.mover = mover
            self.agent_selection = self.names[mover]
        if self.human:
            self.env.render()

    def iterate(self, max_iter: int, enforced: bool = False) -> AECIterator:
        """The iterator of ``agent_iter(max_iter)``; ``enforced``: the order-enforcing
        wrapper's (which checks and clears ``has_updated``, see :class:`AECIterator`)."""
        return AECIterator(self, max_iter, enforced)


def _is_in(ids: list[int], aid: int) -> bool:
    """``aid in ids``, natively (a handful of ids)."""
    for x in ids:
        if x == aid:
            return True
    return False


class AECIterator:
    """PettingZoo's ``AECIterator`` (and, given the wrapper, ``AECOrderEnforcingIterator``):
    the agent to act next, until no agent is left or ``max_iter`` steps were taken."""

    def __init__(self, core: AECCore, max_iter: int, enforced: bool = False) -> None:
        self.core = core
        self.left = min(max_iter, _MAX_ITER)
        self.enforced = enforced

    def __iter__(self) -> AECIterator:
        return self

    def __next__(self) -> str:
        core = self.core
        if not core.agents or self.left <= 0:
            raise StopIteration
        self.left -= 1
        if self.enforced:
            assert core.has_updated, "need to call step() or reset() in a loop over `agent_iter`"
            core.has_updated = False
        return core.agent_selection
