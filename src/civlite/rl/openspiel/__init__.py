"""OpenSpiel games ``python_civlite`` and ``python_civlite_2p``: ``import civlite.rl.openspiel`` registers them.

>>> import pyspiel, civlite.rl.openspiel
>>> game = pyspiel.load_game("python_civlite", {"players": 3})

Parameters: ``players`` (2..8; ``python_civlite_2p`` has exactly 2 and no such
parameter), ``rules`` (path of a rule-set TOML file, ``""`` for the default rules),
``victory_ct`` and ``turn_limit`` (``0``: the rule set's own; a convenience for short
games), ``history`` (``-1``: the whole game, see below), ``chance`` (``"exact"``,
``"sampled"`` or ``"implicit"``), ``chance_outcomes`` (the sampled model) and
``chance_seed`` (the sampled model's, and the implicit game's deals).

**Implicit chance** (``chance="implicit"``, :mod:`civlite.rl.openspiel.implicit`), for RL,
ISMCTS and NFSP: no chance nodes at all; the game reports ``SAMPLED_STOCHASTIC``, each
``new_initial_state()`` is a new deal from a stream seeded by ``chance_seed``, and each
action draws what it draws inside its transition, from the state's own seeded source
(carried by its copies and its serialisation, so that they go on alike). The explicit
models below stay for the methods that need chance nodes (CFR, exact expectations).

**Exact chance** (the default). Every random event of the rules is a chance node whose
outcomes are card ids (``max_chance_outcomes`` = 112, or one more than the largest id of
a rule set's ``[deck]``), each uniformly likely:

* the deal: one chance node per dealt card (the hands, then the first player's
  Rise draw);
* each card drawn from the deck (R4.1, abilities, melds): the deck is kept
  *unordered* and each draw picks its card by chance among the deck's cards. This
  is exactly a uniform shuffle (R3.1, R5.2) revealed one card at a time, so a
  reshuffle costs no chance node of its own and a Vision's re-shuffle changes
  nothing;
* each card taken at random by Raid or Conquest: a chance node over the
  victim's hand (R5.5).

**Sampled chance** (``chance="sampled"``), for CFR-family methods: the deal is one
chance node, and so is each player action that meets chance (every draw, steal and
shuffle it causes, to the next decision), each with ``chance_outcomes`` (K, default
4) outcomes ``0 .. K-1`` of probability 1/K. Outcome k resolves that node's chance
with a random source seeded by ``chance_seed``, the node's history and k, so the
game is a well-defined tree: an abstraction of the real game whose every chance
event has K equally likely results. The probability of a history is K to the power
minus its number of chance nodes (about one per turn), so reach probabilities stay
far from underflow in short games (``victory_ct``, ``turn_limit``).

How: the state holds a :class:`civlite.engine.Game`, and a player's action is applied to
it *in place*, in a greenlet (a "fiber", kept in a pool per thread), with a ``chance``
(the engine's public :class:`civlite.engine.ChanceSource` hook) that takes each outcome
from the action's *script* of chance outcomes. When the script runs out, the source
pauses the fiber inside the engine: the state is a chance node over the candidates (the
pile or the victim's hand, or with sampled chance K outcomes) and its outcome resumes the
action there. So every action runs once, whatever chance it meets, and a decision is
never copied. The game before a paused action (for the views and strings of a chance
node, and for its copies) is rebuilt when asked: a state keeps a snapshot at an earlier
decision (at most :data:`SNAPSHOT_EVERY` actions back), shared by its copies and never
changed, and the actions since with their chance outcomes, and replays them on a copy of
the snapshot (which then becomes the snapshot). A copy of a paused state (``clone()``,
pickling) has no fiber: its next outcome replays the action on the game before it, with
the script so far, in a fiber of its own. An action the engine refuses (an illegal one)
changes nothing.

**Information states** are at suit level, since cards of one suit are identical in
play (R1.2) and the actions name suits: histories that differ only in which card of
a suit was dealt or drawn share an information state. The tensor is the observation
tensor (:func:`civlite.rl.encoding.encode_game`), then the seat's dealt hand (counts
per suit, 8), then one record of :data:`EVENT_RECORD` numbers per thing the seat has
observed: each event, redacted for it, and each *note* of a secret its view showed it
that no event holds (the deck by suit while it decided a Vision; which cards of another
hand it knows, by suit, whenever that changed: see :mod:`civlite.rl.openspiel._memory`),
so that nothing it once saw is forgotten. A record holds the kind, acting and target
seat relative to the viewer, ability, count, amount — for a turn's start: whether it is an extra turn and its number —
public cards by suit, the cards it may see by suit (its own actions are among the
events, and since a k-card discard is k steps in suit order, the events fix them);
the records come oldest first, then the count of those that no longer fit. By default
(``history`` -1) the records hold the whole game: :data:`EVENTS_PER_TURN` per turn up to
the turn limit, plus one. With the default rules and 2 players the tensor
has ``information_state_tensor_size()`` = 176,121 numbers (see
:func:`info_tensor_size`); a short variant (``turn_limit``) has a small one. A positive
``history`` keeps the last ``history`` events instead. The string is the seat, the
turn, the phase and a digest of exactly the tensor's content, so string and tensor
partition histories alike (perfect recall: equal strings, equal tensors, and the
other way round).

The modules: :mod:`~civlite.rl.openspiel.game` (the games, states and observer),
:mod:`~civlite.rl.openspiel._core` (the explicit game's dynamics),
:mod:`~civlite.rl.openspiel._chance` (its chance sources and fibers),
:mod:`~civlite.rl.openspiel._memory` (what each seat remembers),
:mod:`~civlite.rl.openspiel.implicit` and :mod:`~civlite.rl.openspiel.seeded`.

The observation is the seat's :class:`View` (JSON string without the decision's
number; tensor :func:`civlite.rl.encoding.encode_view`).

**Sampled worlds** (``resample_from_infostate(p, sampler)``) are built from what seat p
knows only: the present is :func:`civlite.engine.sample_world` of p's view (the cards p
cannot see dealt at random into the other hands and the deck), and the past is the
events *as p saw them*. In the world every other seat's information state is its view
of the sampled present, with no dealt hand (zeros: p never saw it) and the history as
p saw it (their secret cards left out); from the world on, events are the world's own.
So nothing of the truth beyond p's information state is in the world, for any seat: it
is a function of p's information state and the sampler alone. OpenSpiel's own
``ISMCTSBot`` can search it.

The 2-player game is zero-sum (returns +1/-1, or 0/0 for a draw at the turn limit:
they always sum to 0); with more players it is general-sum (+1 for the winner and -1
for each other seat, 0 for all in a draw). A registered game type cannot depend on
the parameters, so ``python_civlite`` (2..8 players) is registered general-sum (a
loaded 2-player game still reports ZERO_SUM) and ``python_civlite_2p`` is registered
ZERO_SUM.

One seed, one deal: :class:`SeededChance` ``(seed)`` is a chance sampler
(``sampler(state) -> outcome``) that plays the exact chance nodes as
``Game(players, seed=seed)`` does (the deal, each draw and each random steal, for
the same player actions), so that ``python_civlite`` with it, ``Game(2, seed=5)``,
the PettingZoo and Gymnasium ``reset(seed=5)`` and ``civlite demo --seed 5`` deal the
same hands. A Vision or Foundations search takes a card of the chosen suit, which
may be another card of that suit here than in the engine's ordered deck (R1.2:
they play alike); from then on the sampler gives a card of the engine's suit when
the engine's own card is not possible (``sampler.exact`` turns False).
"""


from __future__ import annotations

import pyspiel

from ..spec import EVENT_KINDS, EVENT_RECORD, EVENTS_PER_TURN
from ._core import SNAPSHOT_EVERY
from ._memory import info_tensor_size
from .game import (
    DEFAULTS,
    GAME_TYPE,
    GAME_TYPE_2P,
    CivLiteGame,
    CivLiteGame2P,
    CivLiteObserver,
    CivLiteState,
)
from .implicit import ImplicitState
from .seeded import SeededChance, game_of

__all__ = ["DEFAULTS", "EVENTS_PER_TURN", "EVENT_KINDS", "EVENT_RECORD", "GAME_TYPE", "GAME_TYPE_2P",
           "SNAPSHOT_EVERY", "CivLiteGame", "CivLiteGame2P", "CivLiteObserver", "CivLiteState", "ImplicitState",
           "SeededChance", "game_of", "info_tensor_size"]

pyspiel.register_game(GAME_TYPE, CivLiteGame)
pyspiel.register_game(GAME_TYPE_2P, CivLiteGame2P)
