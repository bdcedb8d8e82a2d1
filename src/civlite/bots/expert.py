"""``expert``: a learned policy with a value head that plays every table size (2 to 8 seats).

The network reads :func:`civlite.bots.features.encode` of the seat's view (the same
:data:`~civlite.bots.features.SIZE` values at every table size), passes it through two
``tanh`` layers and gives two heads: one score per compact action (the policy; the illegal
actions are masked out) and one number whose logistic is the seat's estimated chance of
winning (the value; the ``champion`` search uses both). Inference is numpy only. It sees
the seat's view and nothing else, so it cannot read hidden cards.

The weights ship in the package as ``expert.npz``; they were trained by
``examples/train_expert.py`` (imitation of ``heuristic`` as a start, then self-play
against a league of its past versions, ``heuristic`` and ``ismcts``). Beside it ship
networks of the same layers trained for one table size (:data:`TABLE_WEIGHTS`):

* ``expert-2p.npz``, distilled by ``examples/distil_table_net.py`` from the 2-player
  ``policy`` network, then trained on by ``examples/train_table_ppo.py``;
* ``expert-3p.npz``, ``expert-4p.npz`` and ``expert-6p.npz``, trained by
  ``examples/rollout_distil.py`` on what a rollout improvement of the network then shipped
  for that size chose (157,555, 126,572 and 106,080 positions), reading the encoding's
  summaries of the hand (meld, victory, fetch), which the networks before them lacked.

``train_table_ppo.py`` is MaskablePPO against ``heuristic`` with a critic that read the
true hands during training. At a table size with a network of its own the bot plays with
it (``tables=0``: the all-sizes network everywhere). ``weights=PATH`` loads another file
written by those scripts and plays it at every size; ``sample=1`` draws from the policy
(at ``temperature``) instead of playing its best action.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..engine import NUM_ACTIONS, View
from . import Bot, register
from .features import BASE_SIZE, SIZE, encode

WEIGHTS = Path(__file__).with_name("expert.npz")
#: networks trained for one table size, shipped beside :data:`WEIGHTS`; without ``weights=``
#: the ``expert`` and ``champion`` bots use the one of their table's size (``tables=0``: not)
TABLE_WEIGHTS: dict[int, Path] = {n: Path(__file__).with_name(f"expert-{n}p.npz") for n in (2, 3, 4, 6)}
_NAMES = ("w0", "b0", "w1", "b1", "wp", "bp", "wv", "bv")


class ExpertNet:
    """Two ``tanh`` layers, a policy head (one score per compact action) and a value head."""

    def __init__(self, arrays: dict[str, np.ndarray], meta: dict[str, Any] | None = None) -> None:
        missing = [k for k in _NAMES if k not in arrays]
        if missing:
            raise ValueError(f"expert weights lack {', '.join(missing)}")
        a = {k: np.ascontiguousarray(arrays[k], dtype=np.float32) for k in _NAMES}
        if a["w0"].ndim != 2 or a["w0"].shape[0] not in (SIZE, BASE_SIZE):
            raise ValueError(f"expert weights take {a['w0'].shape[0] if a['w0'].ndim else 0} inputs; the encoding "
                             f"has {SIZE} ({BASE_SIZE} before its hand summaries)")
        if a["wp"].shape[1] != NUM_ACTIONS:
            raise ValueError(f"expert weights give {a['wp'].shape[1]} action scores, not {NUM_ACTIONS}")
        if a["wv"].shape[1] != 1:
            raise ValueError("expert weights' value head must give one number")
        #: how many values of the encoding the network reads: :data:`SIZE`, or
        #: :data:`BASE_SIZE` for a network trained before the hand summaries
        self.inputs = int(a["w0"].shape[0])
        # ``w0`` always has SIZE rows (those a network does not read are zero), so a trainer
        # warm-started from an older network learns the later inputs; inference reads the
        # rows the file holds, exactly as it was trained
        self._w0 = a["w0"]
        if self.inputs < SIZE:
            a["w0"] = np.concatenate([a["w0"], np.zeros((SIZE - self.inputs, a["w0"].shape[1]), np.float32)])
        self.w0, self.b0, self.w1, self.b1 = a["w0"], a["b0"], a["w1"], a["b1"]
        self.wp, self.bp, self.wv, self.bv = a["wp"], a["bp"], a["wv"], a["bv"]
        self.meta = dict(meta or {})

    @classmethod
    def load(cls, path: str | Path) -> ExpertNet:
        """Read a ``.npz`` written by :meth:`save`."""
        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"])) if "meta" in z.files else {}
                arrays = {k: z[k] for k in z.files if k != "meta"}
        except FileNotFoundError:
            raise ValueError(f"expert weights not found: {path}") from None
        except (OSError, ValueError, KeyError) as e:
            raise ValueError(f"expert weights {path} cannot be read: {e}") from None
        return cls(arrays, meta)

    def save(self, path: str | Path, half: bool = True) -> None:
        """Write the weights (``half``: as float16, half the size; loaded back as float32).

        The file appears whole or not at all (written beside it, then renamed), so a process
        that loads it while another writes it never reads a partial file."""
        dt = np.float16 if half else np.float32
        out: dict[str, np.ndarray] = {"meta": np.array(json.dumps(self.meta))}
        for k in _NAMES:
            out[k] = (self._w0 if k == "w0" else getattr(self, k)).astype(dt)
        path = Path(path)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp.npz")
        np.savez_compressed(tmp, **out)  # type: ignore[arg-type]
        os.replace(tmp, path)

    def hidden(self, x: np.ndarray) -> np.ndarray:
        if self.inputs < SIZE:
            x = x[..., :self.inputs]
        h: np.ndarray = np.tanh(x @ self._w0 + self.b0)
        out: np.ndarray = np.tanh(h @ self.w1 + self.b1)
        return out

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Action scores for encodings ``x`` (one row or a batch)."""
        out: np.ndarray = self.hidden(x) @ self.wp + self.bp
        return out

    def value(self, x: np.ndarray) -> float:
        """The value head alone: the win probability for one encoding ``x``."""
        v = float((self.hidden(x) @ self.wv + self.bv)[0])
        return 1.0 / (1.0 + math.exp(-v))

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(action scores, win probability)`` for encodings ``x`` (one row or a batch)."""
        h = self.hidden(x)
        v = h @ self.wv + self.bv
        return h @ self.wp + self.bp, 1.0 / (1.0 + np.exp(-v[..., 0]))


@lru_cache(maxsize=8)
def load_net(path: str) -> ExpertNet:
    """The network in ``path`` (cached: every bot made from one file shares it)."""
    return ExpertNet.load(path)


def table_nets(weights: str, tables: bool) -> dict[int, ExpertNet]:
    """The networks a bot made with ``weights`` plays at each table size that has one of its
    own (empty: ``weights`` everywhere): the shipped :data:`TABLE_WEIGHTS`, unless ``weights``
    names another file or ``tables`` is off."""
    if not tables or weights != str(WEIGHTS):
        return {}
    return {n: load_net(str(path)) for n, path in TABLE_WEIGHTS.items()}


def check_tables(tables: object) -> bool:
    if tables not in (0, 1):
        raise ValueError(f"tables must be 0 or 1, got {tables!r}")
    return bool(tables)


def priors(logits: np.ndarray, legal: Sequence[int]) -> list[float]:
    """The softmax of ``logits`` over ``legal`` (in that order)."""
    sc = [float(logits[a]) for a in legal]
    top = max(sc)
    ex = [math.exp(v - top) for v in sc]
    tot = sum(ex)
    return [e / tot for e in ex]


class ExpertBot(Bot):
    """Plays the best legal action of the expert network (``sample=1``: draws one)."""

    name = "expert"

    def __init__(self, seed: int | None = None, weights: str = "", sample: int = 0,
                 temperature: float = 1.0, net: ExpertNet | None = None, tables: int = 1) -> None:
        super().__init__(seed)
        if not isinstance(temperature, (int, float)) or not 0 < temperature <= 100:
            raise ValueError(f"temperature must be > 0 and at most 100, got {temperature!r}")
        if sample not in (0, 1):
            raise ValueError(f"sample must be 0 or 1, got {sample!r}")
        self.weights = str(weights) if weights else str(WEIGHTS)
        self.sample = bool(sample)
        self.temperature = float(temperature)
        self.tables = check_tables(tables)
        #: the network (``net``: one given directly, e.g. by a trainer; else read from ``weights``)
        self.net = net if net is not None else load_net(self.weights)
        #: the networks of one table size that replace it there (none when ``net`` is given)
        self.table_nets = table_nets(self.weights, self.tables) if net is None else {}

    def net_for(self, players: int) -> ExpertNet:
        """The network this bot plays a ``players``-seat table with."""
        return self.table_nets.get(players, self.net)

    @property
    def spec(self) -> str:
        opts = []
        if self.weights != str(WEIGHTS):
            opts.append(f"weights={self.weights}")
        if self.sample:
            opts.append("sample=1")
        if self.temperature != 1.0:
            opts.append(f"temperature={self.temperature:g}")
        if not self.tables:
            opts.append("tables=0")
        return self.name + (":" + ",".join(opts) if opts else "")

    def act(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        scores = self.net_for(view.num_players).logits(encode(view))
        if not self.sample:
            best, best_s = legal[0], -math.inf
            for a in legal:  # ties go to the lowest id
                s = scores[a]
                if s > best_s:
                    best, best_s = a, s
            return best
        p = priors(scores / self.temperature, legal)
        r = self.rng.random()
        acc = 0.0
        for a, q in zip(legal, p, strict=True):
            acc += q
            if r < acc:
                return a
        return legal[-1]

    def win_probability(self, view: View) -> float:
        """The value head: this seat's estimated chance of winning from ``view``."""
        _, v = self.net_for(view.num_players).forward(encode(view))
        return float(v)


register("expert", ExpertBot, ("weights", "sample", "temperature", "tables"))
