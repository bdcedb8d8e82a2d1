"""The ``ismcts`` bot: single-observer information-set Monte Carlo tree search.

After Cowling, Powley & Whitehouse (2012), *Information Set Monte Carlo Tree
Search* (SO-ISMCTS), for several players:

* the root is the searching seat's information set: its :class:`View`. Each
  iteration *determinizes*: ``civlite.engine.sample_world(view, rng)`` deals the
  cards the seat cannot see into the opponents' unknown hand slots and the deck,
  so every world agrees with what the seat knows and uses nothing else;
* one tree, keyed by compact action ids, is shared by all worlds. A node counts
  its visits, the reward of the seat that chose it, and its *availability* (how
  often it was legal when its parent was visited); selection is UCB1 with the
  availability count in place of the parent's visits. Chance (draws, raids,
  shuffles) happens inside the engine and is not branched on;
* below the tree, a rollout plays the ``heuristic`` policy (or uniform random) on
  the imagined game itself (no View is built: it is the bot's own world), for at
  most ``depth`` decisions (default 8; ``0``: to the end), then scores each seat: 1 for a
  winner, else a soft estimate of each seat's chance from CT and hand value;
* the move is the most visited root child.

Budget: ``iterations=N`` (default 1000; deterministic for a seed) or
``seconds=S`` per decision. Options: ``rollout=heuristic|random``, ``depth``,
``c`` (exploration), ``bias`` (progressive bias toward the heuristic's choice at
each node: its line is expanded first and gets ``bias / sqrt(1 + visits)`` added to
its UCB score; 0 turns it off), ``discards=heuristic|search`` (step-by-step discards are
left to the heuristic by default: they are many and rarely decide a game),
``early_stop`` (default on: stop as soon as the rest of the budget cannot change the
most visited root child; the move is the same, found sooner).
"""

from __future__ import annotations

import gc
import inspect
import math
import time
from collections.abc import Sequence
from typing import Any

from ..engine import DISCARD_BASE, Game, View, sample_world
from . import Bot, register
from .heuristic import (
    Evaluator,
    discard_on_game,
    evaluator,
    policy_on_game,
    situation_from_view,
    suit_counts,
)


class Node:
    __slots__ = ("avail", "children", "hint", "mover", "visits", "wins")

    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.visits = 0
        self.wins = 0.0
        self.avail = 0
        self.hint = -1  # the heuristic's choice here (-1: not asked yet)
        self.children: dict[int, Node] = {}


class ISMCTSBot(Bot):
    """SO-ISMCTS over the compact action space, sampling worlds from the seat's view."""

    name = "ismcts"
    slow = True

    def __init__(
        self,
        seed: int | None = None,
        iterations: int | None = None,
        seconds: float | None = None,
        rollout: str = "heuristic",
        depth: int = 8,
        c: float = 0.7,
        discards: str = "heuristic",
        temperature: float = 2.5,
        discount: float = 0.995,
        bias: float = 0.5,
        early_stop: bool = True,
    ) -> None:
        super().__init__(seed)
        if rollout not in ("heuristic", "random"):
            raise ValueError(f"rollout must be 'heuristic' or 'random', got {rollout!r}")
        if discards not in ("heuristic", "search"):
            raise ValueError(f"discards must be 'heuristic' or 'search', got {discards!r}")
        if iterations is not None and (not isinstance(iterations, int) or iterations < 1):
            raise ValueError(f"iterations must be a whole number >= 1, got {iterations!r}")
        if seconds is not None and (not isinstance(seconds, (int, float)) or seconds <= 0):
            raise ValueError(f"seconds must be > 0, got {seconds!r}")
        if not isinstance(depth, int) or depth < 0:
            raise ValueError(f"depth must be a whole number >= 0 (0: play to the end), got {depth!r}")
        self.iterations = iterations if iterations is not None else (None if seconds is not None else 1000)
        self.seconds = float(seconds) if seconds is not None else None
        self.rollout = rollout
        self.depth = depth
        self.c = float(c)
        self.discards = discards
        self.temperature = float(temperature)
        self.discount = float(discount)
        self.bias = float(bias)
        self.early_stop = _flag("early_stop", early_stop)
        self._opts: dict[str, Any] = {}  # the options given in the spec (set by make_bot)
        self.last_iterations = 0  # iterations of the last search (for benchmarks)

    @property
    def spec(self) -> str:
        opts = ",".join(f"{k}={v}" for k, v in self._opts.items() if v is not None)
        return f"{self.name}:{opts}" if opts else self.name

    # -- the bot interface ------------------------------------------------------
    def act(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        ev = evaluator(view.rules, view.num_players)
        if self.discards == "heuristic" and legal[0] >= DISCARD_BASE:
            return ev.choose(situation_from_view(view), legal)
        return self.search(view, legal, ev)

    def search(self, view: View, legal: Sequence[int], ev: Evaluator | None = None) -> int:
        """Run the search from ``view``; return the most visited legal root action."""
        return self._best(self._grow(view, legal, ev), legal)

    def root_stats(self, view: View, legal: Sequence[int]) -> tuple[int, dict[int, tuple[int, float]]]:
        """Search from ``view`` as :meth:`act` does (a discard step too); return the move and,
        for each legal root action searched, ``(visits, mean reward of the seat)``: what a
        trainer distils (the visit counts as a policy, their mean as a value). A forced move,
        or a discard left to the heuristic, gives no statistics (an empty dict)."""
        if len(legal) == 1:
            return legal[0], {}
        ev = evaluator(view.rules, view.num_players)
        if self.discards == "heuristic" and legal[0] >= DISCARD_BASE:
            return ev.choose(situation_from_view(view), legal), {}
        root = self._grow(view, legal, ev)
        stats = {a: (ch.visits, ch.wins / ch.visits) for a, ch in root.children.items()
                 if ch.visits and a in legal}
        return self._best(root, legal), stats

    def _grow(self, view: View, legal: Sequence[int], ev: Evaluator | None = None) -> Node:
        ev = ev or evaluator(view.rules, view.num_players)
        assert view.seat is not None
        root = Node(-1)
        if self.bias > 0:  # the root's hint comes from the view itself
            root.hint = ev.choose(situation_from_view(view), legal)
        start = time.perf_counter()
        deadline = start + self.seconds if self.seconds is not None else None
        limit = self.iterations
        done = 0
        # The search makes no reference cycles (the tree only points down, worlds are dropped
        # whole), so the cyclic collector would only re-scan the evaluator's caches and the
        # tree: it is paused for the search (reference counting still frees everything).
        collecting = gc.isenabled()
        gc.disable()
        try:
            while True:
                if limit is not None and done >= limit:
                    break
                if deadline is not None and done and time.perf_counter() >= deadline:
                    break
                self._iterate(root, self._world(view), ev)
                done += 1
                if self.early_stop and not done % 64 and self._settled(root, done, limit, start, deadline):
                    break
        finally:
            if collecting:
                gc.enable()
        self.last_iterations = done
        return root

    @staticmethod
    def _best(root: Node, legal: Sequence[int]) -> int:
        best, best_key = legal[0], (-1, -1.0)
        for aid in legal:  # most visits, then best mean; remaining ties go to the lowest id
            ch = root.children.get(aid)
            if ch is not None and ch.visits:
                key = (ch.visits, ch.wins / ch.visits)
                if key > best_key:
                    best, best_key = aid, key
        return best

    def _world(self, view: View) -> Game:
        """The world of one iteration: a deal consistent with ``view``, from this bot's source."""
        return sample_world(view, self.rng)

    @staticmethod
    def _settled(root: Node, done: int, limit: int | None, start: float, deadline: float | None) -> bool:
        """True when the rest of the budget cannot change the most visited root child.

        Each iteration adds one visit to one root child, so once the leader is ahead of
        the runner-up by more than the iterations left, the choice is made. With a time
        budget the iterations left are estimated from the rate so far (plus a margin).
        """
        first = second = 0
        for ch in root.children.values():
            v = ch.visits
            if v > first:
                first, second = v, first
            elif v > second:
                second = v
        if limit is not None:
            left = limit - done
        else:
            assert deadline is not None
            now = time.perf_counter()
            left = int(1.25 * done * (deadline - now) / max(now - start, 1e-9)) + 1
        return first - second > left

    # -- one iteration ----------------------------------------------------------
    def _iterate(self, root: Node, world: Game, ev: Evaluator) -> None:
        rng = self.rng
        node = root
        path = [root]
        c = self.c
        log = math.log
        sqrt = math.sqrt
        steps = 0
        while not world.over:
            legal = world.legal_ids()
            p = world.to_move
            assert p is not None
            steps += 1
            if len(legal) == 1:  # forced steps do not branch the tree
                world.apply_id(legal[0], check=False)
                continue
            if self.discards == "heuristic" and legal[0] >= DISCARD_BASE:
                steps += discard_on_game(world, legal, ev) - 1
                continue
            children = node.children
            bias = self.bias
            if bias > 0 and node.hint < 0:
                node.hint = policy_on_game(world, legal, ev)
            hint = node.hint
            untried = []
            for a in legal:
                ch = children.get(a)
                if ch is None:
                    untried.append(a)
                else:
                    ch.avail += 1
            if untried:
                if hint in untried:  # progressive bias: the heuristic's line first
                    a = hint
                else:
                    a = untried[int(rng.random() * len(untried))]
                ch = Node(p)
                ch.avail = 1
                children[a] = ch
                world.apply_id(a, check=False)
                path.append(ch)
                break
            best_a = legal[0]
            best_u = -1.0
            for a in legal:
                ch = children[a]
                u = ch.wins / ch.visits + c * sqrt(log(ch.avail) / ch.visits)
                if a == hint:
                    u += bias / (1 + ch.visits) ** 0.5
                if u > best_u:
                    best_u, best_a = u, a
            node = children[best_a]
            world.apply_id(best_a, check=False)
            path.append(node)
        rewards, more = self._rollout(world, ev)
        # sooner is surer: shrink the result toward an equal share with the distance (a win now beats
        # a win later, a loss later beats a loss now)
        shrink = self.discount ** (steps + more)
        fair = 1.0 / world.n
        rewards = [fair + (r - fair) * shrink for r in rewards]
        for nd in path[1:]:
            nd.visits += 1
            nd.wins += rewards[nd.mover]

    def _rollout(self, world: Game, ev: Evaluator) -> tuple[list[float], int]:
        rng = self.rng
        steps = 0
        depth = self.depth
        heuristic = self.rollout == "heuristic"
        while not world.over and (depth == 0 or steps < depth):
            legal = world.legal_ids()
            if len(legal) == 1:
                a = legal[0]
            elif heuristic:
                if legal[0] >= DISCARD_BASE:
                    steps += discard_on_game(world, legal, ev, depth - steps if depth else 0)
                    continue
                a = policy_on_game(world, legal, ev)
            else:
                a = legal[int(rng.random() * len(legal))]
            world.apply_id(a, check=False)
            steps += 1
        return self.evaluate(world, ev), steps

    def evaluate(self, world: Game, ev: Evaluator) -> list[float]:
        """Reward of each seat in [0, 1]: the result, or an estimate of each seat's chance."""
        n = world.n
        if world.over:
            if world.winner is not None:
                return [1.0 if p == world.winner else 0.0 for p in range(n)]
            drawn = world.drawn or tuple(range(n))
            return [1.0 / len(drawn) if p in drawn else 0.0 for p in range(n)]
        t = self.temperature
        scores = []
        hands = world.hands
        for p in range(n):
            scores.append(world.ct[p] + 0.7 * ev.hand_value(suit_counts(hands[p])))
        top = max(scores)
        ex = [math.exp((x - top) / t) for x in scores]
        tot = sum(ex)
        return [x / tot for x in ex]


def _flag(name: str, value: Any) -> bool:
    """A yes/no option given as a bool, 0/1 or a word (spec strings carry text)."""
    if isinstance(value, bool) or value in (0, 1):
        return bool(value)
    word = str(value).strip().lower()
    if word in ("true", "yes", "on"):
        return True
    if word in ("false", "no", "off"):
        return False
    raise ValueError(f"{name} must be true or false (or 1/0, on/off), got {value!r}")


def _factory(seed: int | None = None, **options: Any) -> ISMCTSBot:
    bot = ISMCTSBot(seed=seed, **options)
    bot._opts = dict(options)
    return bot


register("ismcts", _factory, [p for p in inspect.signature(ISMCTSBot.__init__).parameters if p not in ("self", "seed")])
