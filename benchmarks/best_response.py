"""A best response to a known bot, seeing every hand but not the deck: a bound for honest play.

An honest bot decides from its view. Against a fixed opponent whose policy is known (a
level's bot is public and deterministic: ``hard`` plays its network's best legal action),
the best any honest bot can do is at most what a player can do who, in addition, sees
every hand: every honest strategy is one such a player could follow. That player's best
response is a single-agent problem: the opponent's moves are a function of the state it
sees, and only the deck's order (and random steals) stay random.

:class:`HandsBestResponse` searches for it (Monte Carlo tree search with chance nodes):

* every iteration copies the true game and shuffles its deck: the hands are seen, the
  deck's order is not (the order of a deck shuffled once is uniform given what is seen);
* a decision node is one of the searcher's own decisions, keyed by what it sees there
  (every hand, the CT, the discard pile, the deck's size, the turn and the legal moves):
  the tree branches on the draws and steals between two of its decisions, so the search
  never acts on a card it could not have seen (no strategy fusion over the deck);
* between its decisions the opponents play their own bot (``opponent``, the same bot and
  weights as in the game), its forced moves are made and its discards are its rollout
  policy's (with ``search_discards`` its discards are decisions too, one card at a time,
  as the engine asks for them); selection is PUCT on its own result only (one agent, the
  rest is chance), its prior the rollout policy's network's;
* below the tree, a rollout plays the game to its end: the opponents their bot, the
  searcher its ``rollout`` policy (default ``hard``'s network); the result is 1 for a win,
  0 for a loss, a share for a draw (no estimate of an unfinished game);
* the move is the most visited root child.

With the budget raised it converges to the best response a hands-seeing player has
(restricted to discards by the rollout policy unless ``search_discards``, and to
decisions by what it sees at them, not by how the game came there: restrictions that can
only lower its score), so its score against the opponent, once more budget stops
helping, bounds what an honest bot scores against that opponent. With ``deck_seen`` it
sees the deck's order too (the control: what the same search makes of every card). It
lives in the benchmarks only and is never offered to players.

:class:`ViewBestResponse` is its honest counterpart: the same search from the seat's view
alone (each iteration deals the cards the seat cannot see at random, consistent with its
view; decisions keyed by the view). It still plays its opponent as ``hard``: it measures
how much of the best response a player keeps who knows ``hard``'s network but not its hand.

    .venv/bin/python benchmarks/reference_ladder.py --references hands-br-100 \\
        --games 400 --seed 47000 --out benchmarks/results/clairvoyant-bound-2p
"""

from __future__ import annotations

import gc
import math
import random
from collections.abc import Sequence
from typing import Any

from civlite.bots import Bot, make_bot
from civlite.bots.champion import _result
from civlite.bots.expert import priors
from civlite.bots.features import encode
from civlite.bots.ismcts import ISMCTSBot
from civlite.engine import DISCARD_BASE, Game, View, sample_world


class _Decision:
    """One of the searcher's decisions: its actions' statistics."""

    __slots__ = ("children", "prior", "visits", "wins")

    def __init__(self) -> None:
        self.visits = 0
        self.wins = 0.0
        self.prior: dict[int, float] = {}
        self.children: dict[int, _Action] = {}


class _Action:
    """An action of a decision node: the searcher's mean result, and where chance took it."""

    __slots__ = ("next", "visits", "wins")

    def __init__(self) -> None:
        self.visits = 0
        self.wins = 0.0
        self.next: dict[tuple[Any, ...], _Decision] = {}


class _OpponentSearch(Bot):
    """The search against a known ``opponent``; a subclass says what world an iteration
    plays (:meth:`_world`) and how a decision is keyed (:meth:`_key`)."""

    def __init__(self, seed: int | None = None, iterations: int = 100, opponent: str = "hard",
                 rollout: str = "hard", c: float = 1.0, search_discards: bool = False) -> None:
        super().__init__(seed)
        self.iterations = iterations
        self.c = c
        #: whether its own discards are searched (else its rollout policy's)
        self.search_discards = search_discards
        self.opponent = make_bot(opponent, seed=0)
        self.policy = make_bot(rollout, seed=0)
        if getattr(self.opponent, "slow", False) or getattr(self.opponent, "sample", False):
            raise ValueError(f"the opponent must be a fast deterministic bot, got {opponent!r}")

    # -- the bot interface ----------------------------------------------------------
    def act(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if self._left_to_policy(legal):
            return self.policy.act(view, legal)
        assert view.seat is not None
        me = view.seat
        root = self._decision(view, legal)
        gc.disable()
        try:
            for _ in range(self.iterations):
                self._iterate(root, self._world(view), me, legal)
        finally:
            gc.enable()
        return ISMCTSBot._best(root, legal)  # type: ignore[arg-type]  # the most visited, as ismcts

    def _left_to_policy(self, legal: Sequence[int]) -> bool:
        """Whether a decision of its own among ``legal`` is its rollout policy's, not
        searched: a discard, unless ``search_discards``."""
        return legal[0] >= DISCARD_BASE and not self.search_discards

    def _world(self, view: View) -> Game:
        """The game one iteration plays, for a decision at ``view``."""
        raise NotImplementedError

    def _key(self, world: Game, me: int, legal: Sequence[int]) -> tuple[Any, ...]:
        """What the searcher sees at its decision in ``world``."""
        raise NotImplementedError

    # -- the search --------------------------------------------------------------------
    def _advance(self, world: Game, me: int) -> list[int] | None:
        """Play until the searcher's next branching decision; its legal moves (None: game over)."""
        while not world.over:
            p = world.to_move
            assert p is not None
            legal = world.legal_ids()
            if len(legal) == 1:
                world.apply_id(legal[0], check=False)
            elif p != me or self._left_to_policy(legal):  # the opponent's move, or its own discard
                self._play(world, p, me, legal)
            else:
                return legal
        return None

    def _play(self, world: Game, p: int, me: int, legal: Sequence[int]) -> None:
        """Seat ``p``'s move by its bot: the opponent's, or the searcher's rollout policy."""
        bot = self.opponent if p != me else self.policy
        world.apply_id(bot.act(world.view(p), legal), check=False)

    def _iterate(self, root: _Decision, world: Game, me: int, legal: Sequence[int]) -> None:
        node = root
        path: list[tuple[_Decision, _Action]] = []
        while True:
            a = self._select(node, legal)
            edge = node.children[a]
            path.append((node, edge))
            world.apply_id(a, check=False)
            nxt = self._advance(world, me)
            if nxt is None:
                break
            key = self._key(world, me, nxt)
            child = edge.next.get(key)
            if child is None:  # expand one node, then play out
                edge.next[key] = self._decision(world.view(me), nxt)
                break
            node, legal = child, nxt
        r = self._rollout(world, me)
        for nd, edge in path:
            nd.visits += 1
            nd.wins += r
            edge.visits += 1
            edge.wins += r

    def _select(self, node: _Decision, legal: Sequence[int]) -> int:
        """PUCT: the mean result plus ``c`` times the prior over the visits (unvisited actions
        start at the node's mean)."""
        children = node.children
        prior = node.prior
        sqrt_n = math.sqrt(node.visits + 1)
        fpu = node.wins / node.visits if node.visits else 0.5
        c = self.c
        best_a, best_u = legal[0], -math.inf
        for a in legal:
            ch = children.get(a)
            if ch is None or not ch.visits:
                u = fpu + c * prior[a] * sqrt_n
            else:
                u = ch.wins / ch.visits + c * prior[a] * sqrt_n / (1 + ch.visits)
            if u > best_u:
                best_a, best_u = a, u
        ch = children.get(best_a)
        if ch is None:
            children[best_a] = _Action()
        return best_a

    def _decision(self, view: View, legal: Sequence[int]) -> _Decision:
        """A new decision node, its prior the rollout policy's network's (uniform without one)."""
        node = _Decision()
        net_for = getattr(self.policy, "net_for", None)
        if net_for is None:
            node.prior = dict.fromkeys(legal, 1.0 / len(legal))
        else:
            logits = net_for(view.num_players).logits(encode(view))
            node.prior = dict(zip(legal, priors(logits, legal), strict=True))
        return node

    def _rollout(self, world: Game, me: int) -> float:
        while not world.over:
            p = world.to_move
            assert p is not None
            legal = world.legal_ids()
            if len(legal) == 1:
                world.apply_id(legal[0], check=False)
            else:
                self._play(world, p, me, legal)
        return _result(world)[me]


class HandsBestResponse(_OpponentSearch):
    """A best-response search against ``opponent``, seeing the hands (``truth``, set before
    each decision), never the deck's order (``deck_seen`` False)."""

    name = "hands-br"
    truth: Game | None = None
    deck_seen = False

    def _world(self, view: View) -> Game:
        """The game of one iteration: a copy of the truth drawing its chance from this bot's
        source, its deck shuffled from its contents alone (unless ``deck_seen``), so that the
        deck's order never reaches the search."""
        assert self.truth is not None
        world = self.truth.clone_fast(random.Random(self.rng.random()))
        if not self.deck_seen:
            world.deck.sort()
            world.rng.shuffle(world.deck)
        return world

    def _key(self, world: Game, me: int, legal: Sequence[int]) -> tuple[Any, ...]:
        """What the searcher sees at a decision: every hand, CT, discards, the deck's size."""
        return (tuple(tuple(h) for h in world.hands), tuple(world.ct), tuple(world.discard),
                len(world.deck), world.turn, world.phase, tuple(legal))


class ViewBestResponse(_OpponentSearch):
    """The honest counterpart of :class:`HandsBestResponse`: the same search from the seat's
    view alone. Each iteration deals the cards the seat cannot see at random, consistent
    with its view (:func:`civlite.engine.sample_world`, as ``ismcts`` does), and the
    opponent plays its bot on that world; a decision is keyed by the seat's own view there.
    It knows its opponent's policy but not its hand: what an honest player who models its
    opponent as ``hard`` (as SPARTA searches with its partners' blueprint) keeps of the
    best response."""

    name = "view-br"

    def _world(self, view: View) -> Game:
        return sample_world(view, random.Random(self.rng.random()))

    def _key(self, world: Game, me: int, legal: Sequence[int]) -> tuple[Any, ...]:
        """The seat's view: its hand, what it knows of every hand and their sizes, CT,
        discards, the deck's size."""
        v = world.view(me)
        return (tuple(c.id for c in v.hand),
                tuple((p.hand_size, tuple(c.id for c in p.known)) for p in v.players),
                tuple(world.ct), tuple(world.discard), len(world.deck), world.turn, world.phase, tuple(legal))
