"""``champion``: information-set search over sampled worlds, guided by the ``expert`` network.

Like ``ismcts`` (single-observer ISMCTS, one tree shared by all worlds), but with the
``expert`` network in place of rollouts, as in AlphaZero's PUCT:

* each iteration deals a world from the seat's view (``civlite.engine.sample_world``: the
  cards the seat cannot see are dealt at random among the places it cannot see), so the
  search uses nothing the seat does not know;
* at a node, the mover picks ``argmax Q + c · P · sqrt(N) / (1 + n)``, where ``P`` is the
  network's policy for the mover's view *in that world* (computed when the node is first
  reached, and completed when a world offers an action the node has not seen), ``Q`` the
  mean result for the mover of the action's visits (unvisited: the node's own mean, less
  ``fpu``) and ``N`` the visits of the node;
* a new node is scored by the network's value head for its mover (the other seats share
  the rest); a finished game by its result. With ``rollout=D`` (D > 0) the leaf's value
  mixes the network's with a short rollout, AlphaGo's mixed evaluation: ``heuristic``
  plays D more steps in the sampled world, which is then scored as ``ismcts`` scores its
  rollouts (a finished game by its result, else each seat's CT and hand value), and the
  leaf's value is ``(1 - mix) · network + mix · rollout``. ``rollout=0`` (the default):
  the network alone. With ``prior=PATH`` (a ``policy`` weights file, trained for one table
  size) the prior at that table size comes from that network instead of ``expert``'s
  policy; the value is still ``expert``'s. Like ``expert``, at a table size with a network
  of its own (:data:`civlite.bots.expert.TABLE_WEIGHTS`) the search uses that one for its
  prior and value, unless ``weights=`` names a file or ``tables=0``. With ``value=PATH``
  (an ``expert``-format file, e.g. from ``examples/world_value.py``) the leaves' value comes
  from that network at its table size: one marked ``"value": "table"`` reads the dealt world
  with every hand in view (:func:`civlite.bots.features.encode_table`), any other the
  mover's view.
* the move is the most visited root child. Step-by-step discards are left to the network
  (``discards=network``, the default), to the heuristic's scorer (``discards=heuristic``,
  in the tree as well), or, with ``discards=search``, the seat's own discard steps are
  searched too: each step is a root whose children are the cards it may discard (their
  prior half the network's discard scores, half even), the rest of the discard and every
  discard below the root the network's.

``search`` picks the search by table size: ``network`` (the search above at every size),
``rollouts`` (``ismcts``'s search at every size: heuristic rollouts, the heuristic's progressive
bias and discards, the same budget), ``hybrid`` (``ismcts``'s search chooses the seat's
actions, the network its discards) or ``auto`` (the default): the network's search at 2
players and ``rollouts`` at the sizes of :data:`ROLLOUT_TABLES`, where it was measured the
stronger against ``heuristic``. (``hybrid`` is the strongest at 2 players against
``heuristic`` and ``ismcts``, but not against the network alone: see the bots page.)
``endgame=K`` hands the end of a game to ``ismcts``'s search where the network's search
plays: once some seat is within ``K`` CT of victory (public facts), the seat's actions are
chosen by the rollout search, whose rollouts then reach the game's end; its discards stay
the network's. The default is :data:`DEFAULT_ENDGAME` (10); ``endgame=0``: never.

Budget: ``iterations=N`` (default 800; deterministic for a seed) or ``seconds=S`` per
decision, at most :data:`MAX_ITERATIONS` and :data:`MAX_SECONDS`.
"""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Sequence

import numpy as np

from ..engine import DISCARD_BASE, Game, View, obs_size, sample_world
from . import Bot, register
from .encoding import encode_view
from .expert import WEIGHTS, ExpertNet, check_tables, load_net, table_nets
from .features import encode, encode_table
from .heuristic import Evaluator, discard_on_game, evaluator
from .ismcts import ISMCTSBot
from .policy import Network, load_network
from .policy import features as policy_features

MAX_ITERATIONS = 100_000
MAX_SECONDS = 60.0
#: table sizes at which ``search=auto`` plays ``ismcts``'s rollout search instead of the network's
ROLLOUT_TABLES = frozenset(range(3, 9))
SEARCHES = ("auto", "network", "rollouts", "hybrid")
#: who chooses the seat's discards: the network, the heuristic's scorer, or the search
DISCARDS = ("network", "heuristic", "search")
#: ``endgame``'s default: the CT from victory at which the rollout search takes over (0: never).
#: From 10 CT out it chose better than the network's search against ``heuristic`` and no worse
#: against the network alone (benchmarks/results/endgame-search)
DEFAULT_ENDGAME = 10
MAX_ENDGAME = 100


class _Node:
    __slots__ = ("children", "chooser", "logits", "mover", "prior", "top", "total", "value", "visits")

    def __init__(self, chooser: int) -> None:
        self.chooser = chooser  # the seat whose action led here (-1: the root)
        self.mover = -1  # the seat that decides here (-1: not reached yet)
        self.visits = 0
        self.value = 0.0  # sum of the chooser's results over the visits
        self.prior: dict[int, float] | None = None  # the mover's policy here (None: not scored yet)
        self.children: dict[int, _Node] = {}
        # the network's scores where the node was first scored, and their softmax's shift and
        # sum over the legal actions there: an action a later world offers gets its prior from
        # them, without another network call
        self.logits: np.ndarray | None = None
        self.top = 0.0
        self.total = 1.0


class ChampionBot(Bot):
    """PUCT information-set search with the expert network's policy and value."""

    name = "champion"
    slow = True

    def __init__(self, seed: int | None = None, iterations: int | None = None, seconds: float | None = None,
                 c: float = 1.5, fpu: float = 0.2, weights: str = "", rollout: int = 0,
                 mix: float = 0.5, discards: str = "network", prior: str = "", tables: int = 1,
                 search: str = "auto", value: str = "", endgame: int = DEFAULT_ENDGAME) -> None:
        super().__init__(seed)
        if iterations is not None and (not isinstance(iterations, int) or not 1 <= iterations <= MAX_ITERATIONS):
            raise ValueError(f"iterations must be a whole number from 1 to {MAX_ITERATIONS}, got {iterations!r}")
        if seconds is not None and (not isinstance(seconds, (int, float)) or not 0 < seconds <= MAX_SECONDS):
            raise ValueError(f"seconds must be > 0 and at most {MAX_SECONDS:g}, got {seconds!r}")
        if not isinstance(c, (int, float)) or c < 0:
            raise ValueError(f"c must be a number >= 0, got {c!r}")
        self.iterations = iterations if iterations is not None else (None if seconds is not None else 800)
        self.seconds = float(seconds) if seconds is not None else None
        if not isinstance(rollout, int) or not 0 <= rollout <= 200:
            raise ValueError(f"rollout must be a whole number of steps from 0 to 200, got {rollout!r}")
        if not isinstance(mix, (int, float)) or not 0 <= mix <= 1:
            raise ValueError(f"mix must be a number from 0 to 1, got {mix!r}")
        if discards not in DISCARDS:
            raise ValueError(f"discards must be one of {', '.join(DISCARDS)}, got {discards!r}")
        self.discards = discards
        if search not in SEARCHES:
            raise ValueError(f"search must be one of {', '.join(SEARCHES)}, got {search!r}")
        self.search_kind = search
        if not isinstance(endgame, int) or isinstance(endgame, bool) or not 0 <= endgame <= MAX_ENDGAME:
            raise ValueError(f"endgame must be a whole number of CT from 0 to {MAX_ENDGAME}, got {endgame!r}")
        self.endgame = endgame
        self.c = float(c)
        self.fpu = float(fpu)
        self.rollout = rollout
        self.mix = float(mix)
        # the rollouts' player and scorer (ismcts's), on this bot's random source
        self._roller = ISMCTSBot(depth=rollout or 1)
        self._roller.rng = self.rng
        # ismcts's whole search, for the table sizes that play it (search=rollouts|auto)
        self._rollout_search = ISMCTSBot(iterations=self.iterations, seconds=self.seconds)
        self._rollout_search.rng = self.rng
        self._ev: Evaluator | None = None
        self._tree_ev: Evaluator | None = None  # the discards' scorer inside the tree (discards=heuristic)
        self._root_discard = False  # whether the search's root is a discard step it branches on
        self.weights = str(weights) if weights else str(WEIGHTS)
        self.tables = check_tables(tables)
        self.base_net: ExpertNet = load_net(self.weights)
        self.table_nets = table_nets(self.weights, self.tables)
        #: the network of the table being searched (set by each search)
        self.net: ExpertNet = self.base_net
        self.prior = str(prior)
        self.prior_net: Network | None = load_network(self.prior) if prior else None
        self._prior_buf = np.zeros(obs_size(self.prior_net.players), np.float32) if self.prior_net else None
        self.value = str(value)
        self.value_net: ExpertNet | None = load_net(self.value) if value else None
        # a table-value network (meta "value": "table") reads the dealt world with every hand
        # in view (features.encode_table); another one, the mover's view
        self._value_table = bool(self.value_net is not None and self.value_net.meta.get("value") == "table")
        self._value_players = int(self.value_net.meta.get("players", 0)) if self.value_net is not None else 0
        self.last_iterations = 0

    @property
    def spec(self) -> str:
        opts = []
        if self.seconds is not None:
            opts.append(f"seconds={self.seconds:g}")
        if self.iterations is not None and (self.seconds is not None or self.iterations != 800):
            opts.append(f"iterations={self.iterations}")
        if self.c != 1.5:
            opts.append(f"c={self.c:g}")
        if self.fpu != 0.2:
            opts.append(f"fpu={self.fpu:g}")
        if self.weights != str(WEIGHTS):
            opts.append(f"weights={self.weights}")
        if self.rollout:
            opts.append(f"rollout={self.rollout}")
        if self.mix != 0.5:
            opts.append(f"mix={self.mix:g}")
        if self.discards != "network":
            opts.append(f"discards={self.discards}")
        if self.prior:
            opts.append(f"prior={self.prior}")
        if not self.tables:
            opts.append("tables=0")
        if self.search_kind != "auto":
            opts.append(f"search={self.search_kind}")
        if self.value:
            opts.append(f"value={self.value}")
        if self.endgame != DEFAULT_ENDGAME:
            opts.append(f"endgame={self.endgame}")
        return self.name + (":" + ",".join(opts) if opts else "")

    def net_for(self, players: int) -> ExpertNet:
        """The network that guides a search at a ``players``-seat table."""
        return self.table_nets.get(players, self.base_net)

    def _best(self, view: View, legal: Sequence[int]) -> int:
        scores = self.net_for(view.num_players).logits(encode(view))
        best, best_s = legal[0], -math.inf
        for a in legal:
            s = scores[a]
            if s > best_s:
                best, best_s = a, s
        return best

    def plays_rollouts(self, players: int) -> bool:
        """Whether this bot plays ``ismcts``'s rollout search at a ``players``-seat table."""
        return self.search_kind == "rollouts" or (self.search_kind == "auto" and players in ROLLOUT_TABLES)

    def plays_hybrid(self, players: int) -> bool:
        """Whether this bot's actions at a ``players``-seat table are ``ismcts``'s search's and
        its discards the network's (``search=hybrid``, at every size)."""
        return self.search_kind == "hybrid"

    def in_endgame(self, view: View) -> bool:
        """Whether ``endgame`` hands this decision to the rollout search: some seat is within
        ``endgame`` CT of victory (every seat's CT is public)."""
        if not self.endgame:
            return False
        lead = max([p.ct for p in view.players] + ([view.ct] if view.ct is not None else []))
        return lead >= view.rules.victory_ct - self.endgame

    def act(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if self.plays_rollouts(view.num_players):
            return self._rollouts(view, legal)
        if legal[0] >= DISCARD_BASE:
            return self.search(view, legal) if self.discards == "search" else self._best(view, legal)
        if self.plays_hybrid(view.num_players) or self.in_endgame(view):
            return self._rollouts(view, legal)
        return self.search(view, legal)

    def _rollouts(self, view: View, legal: Sequence[int]) -> int:
        move = self._rollout_search.act(view, legal)
        self.last_iterations = self._rollout_search.last_iterations
        return move

    def search(self, view: View, legal: Sequence[int]) -> int:
        """Run the search from ``view``; return the most visited legal root action."""
        assert view.seat is not None
        rng = self.rng
        self.net = self.net_for(view.num_players)
        self._ev = evaluator(view.rules, view.num_players) if self.rollout else None
        self._tree_ev = evaluator(view.rules, view.num_players) if self.discards == "heuristic" else None
        root = _Node(view.seat)  # scored by the first iteration, from the first world's view
        self._root_discard = legal[0] >= DISCARD_BASE  # a discard step searched (discards=search)
        deadline = time.perf_counter() + self.seconds if self.seconds is not None else None
        limit = self.iterations
        done = 0
        collecting = gc.isenabled()
        gc.disable()  # the tree only points down: reference counting frees it
        try:
            while (limit is None or done < limit) and (deadline is None or not done
                                                       or time.perf_counter() < deadline):
                self._iterate(root, sample_world(view, rng))
                done += 1
        finally:
            if collecting:
                gc.enable()
        self.last_iterations = done
        return most_visited(root, legal)

    def option_values(self, view: View, options: Sequence[Sequence[int]], iterations: int,
                      keep: Sequence[int] = (), finalists: int = 4) -> list[tuple[float, int]]:
        """Estimate each option (a sequence of compact steps for ``view.seat``: one id, or a
        discard's steps) as ``(mean result for the seat, visits)``.

        Each round deals one world from ``view`` and plays every option still in the running
        in a copy of it (the same deal and chance seed, so that options are compared on the
        same worlds), then searches below as :meth:`search` does (a tree of its own per
        option). Half the iterations go to every option alike; the other half to the
        ``finalists`` best so far and the options of ``keep`` (indices: the one a review
        compares), so that the estimates that decide a comparison are the steadiest. Uses
        nothing but ``view`` and this bot's random source.
        """
        assert view.seat is not None
        if not options:
            raise ValueError("no options to estimate")
        seat = view.seat
        rng = self.rng
        self.net = self.net_for(view.num_players)
        self._ev = evaluator(view.rules, view.num_players) if self.rollout else None
        self._tree_ev = evaluator(view.rules, view.num_players) if self.discards == "heuristic" else None
        roots = [_Node(seat) for _ in options]
        self._root_discard = False
        totals = [0.0] * len(options)
        visits = [0] * len(options)
        k = len(options)
        everyone = list(range(k))
        first = max(1, -(-iterations // (2 * k))) if k > finalists else max(1, -(-iterations // k))
        collecting = gc.isenabled()
        gc.disable()
        try:
            spent = 0
            running = everyone
            while spent < iterations or spent == 0:
                if running is everyone and visits[0] >= first and k > finalists:
                    best = sorted(everyone, key=lambda i: (-totals[i] / visits[i], i))[:finalists]
                    running = sorted(set(best) | {i for i in keep if 0 <= i < k})
                world = sample_world(view, rng)
                chance = rng.getrandbits(64)
                for i in running:
                    w = world.clone_fast(random.Random(chance))
                    for aid in options[i]:
                        w.apply_id(aid, check=False)
                    totals[i] += self._iterate(roots[i], w)[seat]
                    visits[i] += 1
                spent += len(running)
        finally:
            if collecting:
                gc.enable()
        return [(t / v, v) for t, v in zip(totals, visits, strict=True)]

    def _score(self, node: _Node, world: Game, legal: list[int]) -> float:
        """Fill ``node.prior`` from the mover's view in ``world``; the mover's value there."""
        view = world.view(node.mover)
        x = encode(view)
        logits, head = self.net.forward(x)
        v = float(head)
        pn = self.prior_net
        if pn is not None and pn.players == world.n:  # the prior from a network of this table size
            assert self._prior_buf is not None
            logits = pn.logits(policy_features(encode_view(view, out=self._prior_buf)))
        vn = self.value_net
        if vn is not None and self._value_players in (0, world.n):  # the leaf's value from that network
            v = vn.value(encode_table(world, node.mover) if self._value_table else x)
        sc = [float(logits[a]) for a in legal]
        top = max(sc)
        ex = [math.exp(x - top) for x in sc]
        tot = sum(ex)
        node.logits, node.top, node.total = logits, top, tot
        node.prior = {a: e / tot for a, e in zip(legal, ex, strict=True)}
        return v

    @staticmethod
    def _extend(node: _Node, legal: list[int]) -> None:
        """Complete the prior of a scored node for the actions of ``legal`` it has not seen
        (a later world offers them) from the scores it was first given: the softmax extended,
        without another network call."""
        prior, lg, top, tot = node.prior, node.logits, node.top, node.total
        assert prior is not None and lg is not None
        for a in legal:
            if a not in prior:
                prior[a] = min(1.0, math.exp(float(lg[a]) - top) / tot)

    def _iterate(self, root: _Node, world: Game) -> list[float]:
        node = root
        path: list[_Node] = []
        c = self.c
        # a k-card discard is k compact steps: inside the search, the mover's network scores
        # are computed once per discard and reused for its later steps (at the root, act()
        # scores every step afresh)
        disc: np.ndarray | None = None
        disc_by = -1
        while True:
            if world.over:
                value = _result(world)
                break
            legal = world.legal_ids()
            p = world.to_move
            assert p is not None
            if len(legal) == 1:  # forced steps do not branch the tree
                world.apply_id(legal[0], check=False)
                continue
            if legal[0] >= DISCARD_BASE and (path or not self._root_discard):
                # a discard below the root (the root's own discard step, searched, branches)
                if self._tree_ev is not None:  # the hand-written discard: no network call
                    discard_on_game(world, legal, self._tree_ev)
                    continue
                if disc is None or disc_by != p:
                    disc, disc_by = self.net.logits(encode(world.view(p))), p
                best, best_s = legal[0], -math.inf
                for a in legal:
                    if disc[a] > best_s:
                        best, best_s = a, disc[a]
                world.apply_id(best, check=False)
                continue
            disc = None
            if node.mover != p:  # first reached (or, rarely, reached with another seat to move)
                node.mover = p
                node.prior = None
            prior = node.prior
            if prior is None:
                v = self._score(node, world, legal)
                if node is root and self._root_discard:  # the network's discard is near certain:
                    # half its prior spread evenly, so that every card is tried
                    k = len(legal)
                    assert node.prior is not None
                    node.prior = {a: 0.5 * q + 0.5 / k for a, q in node.prior.items()}
                if node is not root:  # a new leaf: the network's value
                    n = world.n
                    value = [(1.0 - v) / (n - 1)] * n
                    value[p] = v
                    if self._ev is not None:
                        rolled, _ = self._roller._rollout(world, self._ev)
                        m = self.mix
                        value = [(1.0 - m) * a + m * b for a, b in zip(value, rolled, strict=True)]
                    break
                prior = node.prior
            elif any(a not in prior for a in legal):
                self._extend(node, legal)
            assert prior is not None
            sq = math.sqrt(node.visits + 1)
            fpu_q = (node.value / node.visits - self.fpu) if node.visits and node.chooser == p else 1.0 / world.n
            children = node.children
            best_a, best_u = legal[0], -math.inf
            for a in legal:
                ch = children.get(a)
                if ch is None or not ch.visits:
                    u = fpu_q + c * prior[a] * sq
                else:
                    u = ch.value / ch.visits + c * prior[a] * sq / (1 + ch.visits)
                if u > best_u:
                    best_a, best_u = a, u
            ch = children.get(best_a)
            if ch is None:
                ch = children[best_a] = _Node(p)
            world.apply_id(best_a, check=False)
            path.append(ch)
            node = ch
        for nd in path:
            nd.visits += 1
            nd.value += value[nd.chooser]
        root.visits += 1
        root.value += value[root.chooser]  # the root's mean for its seat: the fpu of its unvisited actions
        return value


def most_visited(root: _Node, legal: Sequence[int]) -> int:
    """The legal root action visited most (ties: the better mean value, then the lower id)."""
    best, key = legal[0], (-1, -1.0)
    for a in legal:
        ch = root.children.get(a)
        if ch is not None and ch.visits:
            k = (ch.visits, ch.value / ch.visits)
            if k > key:
                best, key = a, k
    return best


def _result(world: Game) -> list[float]:
    n = world.n
    if world.winner is not None:
        return [1.0 if s == world.winner else 0.0 for s in range(n)]
    drawn = world.drawn or tuple(range(n))
    return [1.0 / len(drawn) if s in drawn else 0.0 for s in range(n)]


register("champion", ChampionBot,
         ("iterations", "seconds", "c", "fpu", "weights", "rollout", "mix", "discards", "prior", "tables", "search",
          "value", "endgame"))
