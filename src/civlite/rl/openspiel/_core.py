"""The dynamics of ``python_civlite``'s states with chance nodes (exact or sampled chance).

See :mod:`civlite.rl.openspiel` for the model; :class:`_Core` is everything one state holds.
"""

from __future__ import annotations

import bisect
import random
from typing import Any

import greenlet

from ...engine import ALL_CARDS, Game
from ._chance import _SAMPLED_NODE, _fiber_loop, _idle_fibers, _SampledChance, _ScriptedChance
from ._memory import MEMORY_SLOTS, _Config, _Memory

#: the random source of the copies: never drawn from (every chance outcome goes through ``chance``)
_UNUSED_RNG = random.Random(0)

#: the persistent list of actions since a snapshot: ``(earlier, action, chance record, length)`` or None
_Tail = tuple[Any, int, Any, int] | None
#: a new snapshot every so many actions, so that rebuilding the game before a paused action
#: replays fewer than this many (a copy each time: about 1 us in 64 actions)
SNAPSHOT_EVERY = 64


class _Core(_Memory):
    """Everything a state holds; copied by hand (never ``deepcopy`` a Game).

    ``game`` is the live game: at a decision node, that decision's; at a chance node with
    a ``fiber``, the game the paused action is changing; at one without (a copy), the
    game before the action, which the next outcome replays it on. ``root`` (a snapshot
    never changed, shared by copies) and ``tail`` (the actions since, with their chance)
    rebuild the game before a paused action when it is asked for (:meth:`view_game`)."""

    __slots__ = ("candidates", "dealt", "fiber", "game", "path", "pending", "pre", "root", "script", "tail")
    #: every field, its memory's included (pickling)
    FIELDS = MEMORY_SLOTS + __slots__

    def __init__(self, cfg: _Config) -> None:
        self._init_memory(cfg)
        self.dealt: list[int] = []  # the deal so far, in chance order (exact chance)
        self.game: Game | None = None
        self.pending: int | None = None  # the player action waiting on chance
        self.script: list[int] = []  # its chance outcomes so far
        self.fiber: greenlet.greenlet | None = None  # the pending action, paused (None in a copy)
        self.pre: Game | None = None  # the game before the paused action, once rebuilt
        self.root: Game | None = None  # a snapshot at a decision (never changed)
        self.tail: _Tail = None  # the actions since ``root``
        self.candidates: list[int] = list(range(cfg.sampled)) if cfg.sampled else list(cfg.rules.deck)
        self.path = cfg.seed  # a digest of the history (the key of a sampled chance node)

    def copy(self) -> _Core:
        c = _Core.__new__(_Core)
        self._copy_memory(c)
        c.dealt = self.dealt[:]
        g = self.view_game()
        c.game = g.clone_fast(_UNUSED_RNG) if g is not None else None
        if c.game is not None:
            c.game.quiet = False
        c.pending = self.pending
        c.script = self.script[:]
        c.fiber = None  # a paused fiber is not copied: the copy replays (see apply_chance)
        c.pre = None
        c.root = self.root
        c.tail = self.tail
        c.candidates = self.candidates[:]
        c.path = self.path
        return c

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:  # pickled without its paused fiber (the copy replays)
        state = {k: getattr(self, k) for k in self.FIELDS if k not in ("fiber", "pre", "root", "tail")}
        state["game"] = self.view_game()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            setattr(self, k, v)
        self.fiber = self.pre = self.root = None
        self.tail = None

    def __copy__(self) -> _Core:
        return self.copy()

    # -- dynamics -----------------------------------------------------------------
    @property
    def deal_size(self) -> int:
        r = self.cfg.rules
        return min(len(r.deck), r.hand_size * self.cfg.n + r.rise_draw)

    def view_game(self) -> Game | None:
        """The game at the last decision: before the pending action, if there is one."""
        if self.fiber is None:
            return self.game
        pre = self.pre
        if pre is None:
            pre = self.pre = self._rebuild()
        return pre

    def _rebuild(self) -> Game:
        """The game before the paused action: the snapshot, with the actions since replayed
        on a copy (quiet, with their recorded chance); it becomes the new snapshot."""
        assert self.root is not None
        g = self.root.clone_fast(_UNUSED_RNG)
        steps = []
        t = self.tail
        while t is not None:
            t, aid, rec, _ = t
            steps.append((aid, rec))
        sampled = self.cfg.sampled
        for aid, rec in reversed(steps):
            if sampled:
                g.chance = _SampledChance(rec)
            else:
                g.chance = _ScriptedChance(list(rec))
            g.apply_id(aid, check=False)
        g.chance = None
        self.root = g.clone_fast(_UNUSED_RNG)
        self.tail = None
        g.quiet = False
        return g

    def apply_chance(self, outcome: int) -> None:
        cands = self.candidates  # sorted
        i = bisect.bisect_left(cands, outcome)
        if i == len(cands) or cands[i] != outcome:
            raise ValueError(f"chance outcome {outcome} is not possible here")
        self.path = hash((self.path, -1 - outcome))
        if self.game is None:
            if self.cfg.sampled:
                rng = random.Random(self.path)
                self.dealt = rng.sample(self.cfg.rules.deck, self.deal_size)  # as range(112) for the default
            else:
                self.dealt.append(outcome)
                cands.pop(i)
            if len(self.dealt) == self.deal_size:
                self._start()
            return
        assert self.pending is not None
        self.script.append(outcome)
        fiber = self.fiber
        if fiber is not None:
            try:
                fiber.parent = greenlet.getcurrent()
                msg = fiber.switch(self.path)  # the sampled source's key (ignored by the scripted one)
            except (greenlet.error, ValueError):  # another thread's fiber: replay here
                self.game = self.view_game()
                self.fiber = self.pre = None
            else:
                self._after(fiber, msg)
                return
        # a copy (or a foreign fiber's state): replay the action on the game before it, in a fiber
        g = self.game
        assert g is not None
        self._arm(g, self.path)
        self._run(g, self.pending)

    def apply_player(self, aid: int) -> None:
        g = self.game
        assert g is not None and self.pending is None
        path = self.path
        self.path = hash((path, aid))
        self.pending = aid
        self.script = []
        self._arm(g, None)
        try:
            self._run(g, aid)
        except Exception:  # refused before any change (an illegal action): the state is as it was
            self.path = path
            raise

    def _start(self) -> None:
        r = self.cfg.rules
        hs = r.hand_size
        n = self.cfg.n
        hands = [self.dealt[i * hs:(i + 1) * hs] for i in range(n)]
        hands[0] = hands[0] + self.dealt[hs * n:]
        deck = sorted(set(r.deck) - set(self.dealt))
        state = {
            "players": [{"hand": [ALL_CARDS[c].name for c in h], "ct": 0} for h in hands],
            "deck": [ALL_CARDS[c].name for c in deck],
            "discard": [], "active": 0, "phase": "action", "turn": 1,
        }
        g = Game.from_position(state, r, seed=0)
        g.rng = _UNUSED_RNG
        self.game = g
        self.hands0 = hands
        self.candidates = []

    def _arm(self, g: Game, key: int | None) -> None:
        """Ready ``g``, the game at the pending action's decision, to run it: a new snapshot if
        there is none (a state made by hand, unpickled or resampled) or the tail is long, and
        the chance source (sampled: ``key``, the node's, or None to pause at it; exact: the script)."""
        tail = self.tail
        if self.root is None or (tail is not None and tail[3] >= SNAPSHOT_EVERY):
            self.root = g.clone_fast(_UNUSED_RNG)
            self.tail = None
        g.chance = _SampledChance(key) if self.cfg.sampled else _ScriptedChance(self.script)

    def _run(self, g: Game, aid: int) -> None:
        """Apply ``aid`` to ``g`` in place, in a fiber that its chance source may pause."""
        pool = _idle_fibers()
        fiber = pool.pop() if pool else greenlet.greenlet(_fiber_loop)
        fiber.parent = greenlet.getcurrent()
        self._after(fiber, fiber.switch((g, aid)))

    def _after(self, fiber: greenlet.greenlet, msg: Any) -> None:
        """After the fiber switched back: a chance node to wait on, or the action done (or refused)."""
        if type(msg) is not tuple:  # paused at a chance node (``pre``, if built, is still the game before)
            self.fiber = fiber
            self.candidates = msg if msg is not _SAMPLED_NODE else list(range(self.cfg.sampled))
            return
        _idle_fibers().append(fiber)
        events, error = msg
        g = self.game
        assert g is not None
        g.chance = None
        aid = self.pending
        assert aid is not None
        self.pending = None
        self.fiber = self.pre = None
        if error is not None:
            self.script = []
            raise error
        if self.cfg.sampled:
            rec: Any = self.path if self.script else None
        else:
            rec = tuple(self.script)
        tail = self.tail
        self.tail = (tail, aid, rec, tail[3] + 1 if tail is not None else 1)
        self.script = []
        self.candidates = []
        if events:
            self.events += events
        self.observe(g, events)

    # -- what a seat sees -----------------------------------------------------------
    def dealt_hand(self, seat: int) -> list[int]:
        """The cards dealt to ``seat`` (with the first Rise's for seat 0), as far as this world knows."""
        if self.game is not None:
            return self.hands0[seat]
        hs = self.cfg.rules.hand_size
        n = self.cfg.n
        mine = [c for i, c in enumerate(self.dealt) if i < hs * n and i // hs == seat]
        if seat == 0:
            mine += self.dealt[hs * n:]
        return mine

    def view_json(self, seat: int) -> dict[str, Any]:
        g = self.view_game()
        if g is None:
            mine = [ALL_CARDS[c].name for c in self.dealt_hand(seat)] if not self.cfg.sampled else []
            return {"seat": seat, "dealing": len(self.dealt), "hand": sorted(mine)}
        d = g.view(seat).to_json()
        d.pop("decision_number", None)  # the tensor has no such count: nor has the string
        if self.pending is not None and g.to_move == seat:
            d["acting"] = self.pending  # its own action, waiting on chance
        return d
