"""``policy``: a small learned network, run in numpy.

The network maps :func:`civlite.bots.encoding.encode_view` of the seat's view (through
:func:`features`) to one score per compact action; the illegal actions are masked out
and the best legal one is played (``sample=1``: drawn from the softmax instead). It was
trained by ``examples/train_policy.py`` (MaskablePPO from sb3-contrib, against the
``heuristic`` bot, 2 players); its weights ship in the package as ``policy.npz``
(``weights=PATH`` loads another file written by that script). Inference needs only numpy
(the ``rl`` extra); torch is for training.

The network reads a fixed-length encoding whose length depends on the number of seats.
The shipped one was trained for 2 players; in a game of another size the bot plays as
the ``heuristic`` bot (``fallback=0``: it raises ``ValueError`` instead), and counts
those decisions in :attr:`PolicyBot.fallback_decisions`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..engine import NUM_ACTIONS, View, obs_size
from . import Bot, register
from .encoding import encode_view

WEIGHTS = Path(__file__).with_name("policy.npz")
#: encoding values are clipped here, then scaled by FEATURE_SCALE (counts to about 0..10)
FEATURE_CLIP = 100.0
FEATURE_SCALE = 0.1


def features(obs: np.ndarray) -> np.ndarray:
    """The network's input from an encoding (or a batch of them): clipped, scaled counts."""
    out: np.ndarray = np.minimum(obs, FEATURE_CLIP).astype(np.float32) * np.float32(FEATURE_SCALE)
    return out


class Network:
    """A multilayer perceptron: ``tanh`` hidden layers, a linear output of 153 action scores."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any]) -> None:
        if not layers:
            raise ValueError("a policy network needs at least one layer")
        self.layers = layers
        self.meta = meta
        self.players = int(meta.get("players", 2))
        if layers[0][0].shape[0] != obs_size(self.players):
            raise ValueError(f"policy weights take {layers[0][0].shape[0]} inputs; "
                             f"the {self.players}-player encoding has {obs_size(self.players)}")
        if layers[-1][0].shape[1] != NUM_ACTIONS:
            raise ValueError(f"policy weights give {layers[-1][0].shape[1]} scores, not one per action ({NUM_ACTIONS})")

    @classmethod
    def load(cls, path: str | Path) -> Network:
        """Read a ``.npz`` written by :meth:`save` (``w0, b0, w1, b1, ...`` and ``meta``)."""
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"])) if "meta" in z.files else {}
            layers = []
            k = 0
            while f"w{k}" in z.files:
                layers.append((z[f"w{k}"].astype(np.float32), z[f"b{k}"].astype(np.float32)))
                k += 1
        return cls(layers, meta)

    def save(self, path: str | Path, half: bool = False) -> None:
        """Write the layers (``half``: as float16, half the size; loaded back as float32)."""
        dt = np.float16 if half else np.float32
        arrays: dict[str, np.ndarray] = {"meta": np.array(json.dumps(self.meta))}
        for k, (w, b) in enumerate(self.layers):
            arrays[f"w{k}"] = w.astype(dt)
            arrays[f"b{k}"] = b.astype(dt)
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Action scores for features ``x`` (one row, or a batch of rows)."""
        h = x
        last = len(self.layers) - 1
        for k, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if k < last:
                h = np.tanh(h)
        return h


@lru_cache(maxsize=8)
def load_network(path: str) -> Network:
    """The network in ``path`` (cached: every bot made from one file shares it)."""
    try:
        return Network.load(path)
    except FileNotFoundError:
        raise ValueError(f"policy weights not found: {path}") from None


class PolicyBot(Bot):
    """Plays the arg-max legal action of the learned network (``sample=1``: samples instead)."""

    name = "policy"

    def __init__(self, seed: int | None = None, weights: str = "", sample: int = 0, fallback: int = 1) -> None:
        super().__init__(seed)
        self.weights = str(weights) if weights else str(WEIGHTS)
        self.sample = bool(sample)
        self.fallback = bool(fallback)
        self.net = load_network(self.weights)
        self._buf = np.zeros(obs_size(self.net.players), np.float32)
        self._fallback_bot: Bot | None = None
        #: decisions taken by the heuristic bot because the game's size was not the network's
        self.fallback_decisions = 0

    @property
    def spec(self) -> str:
        opts = []
        if self.weights != str(WEIGHTS):
            opts.append(f"weights={self.weights}")
        if self.sample:
            opts.append("sample=1")
        if not self.fallback:
            opts.append("fallback=0")
        return self.name + (":" + ",".join(opts) if opts else "")

    def act(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if view.num_players != self.net.players:
            if not self.fallback:
                raise ValueError(f"the policy bot was trained for {self.net.players} players and cannot "
                                 f"play a {view.num_players}-player game (without fallback=0 it plays as heuristic)")
            if self._fallback_bot is None:
                from .heuristic import HeuristicBot

                self._fallback_bot = HeuristicBot(seed=self.rng.getrandbits(63))
            self.fallback_decisions += 1
            return self._fallback_bot.act(view, legal)
        x = features(encode_view(view, out=self._buf))
        scores = self.net.logits(x)
        idx = np.asarray(legal, dtype=np.intp)
        s = scores[idx].astype(np.float64)
        if not self.sample:
            return int(legal[int(np.argmax(s))])
        p = np.exp(s - s.max())
        p /= p.sum()
        u = self.rng.random()
        return int(legal[min(int(np.searchsorted(np.cumsum(p), u)), len(legal) - 1)])


register("policy", PolicyBot)
