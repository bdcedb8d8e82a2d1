"""civlite's research interfaces against the field's peers, measured in the same run, interleaved.

Every loop plays uniformly random legal actions for ``--seconds`` per round, in turn, for
``--rounds`` rounds, and counts decisions (a player's action; chance nodes are not
counted); the medians are reported, with each loop's rate as a fraction of that round's
civlite engine (the loops of a round saw the same load):

* ``civlite_engine``: the raw engine (``legal_ids`` + ``apply_id``, events built), 2 players;
* ``civlite_openspiel_exact`` / ``_sampled`` / ``_implicit``: ``python_civlite`` through pyspiel's
  API with each chance model (``chance="implicit"``: no chance nodes);
* ``pyspiel_<game>``: OpenSpiel's own games through the same Python loop (C++ games, and
  ``python_kuhn_poker``, OpenSpiel's Python game);
* ``rlcard_<env>``: RLCard's environments (``env.step`` with a random legal action), if
  ``rlcard`` imports;
* ``pgx_<env>``: pgx on the CPU, one game at a time (``step``, a random legal action and a
  new game at the end in one ``jax.jit``; one XLA thread) and ``pgx_<env>_batch256``
  (``jax.vmap`` over 256 games: agent steps/s), if ``pgx`` imports.

    nice .venv/bin/python benchmarks/openspiel_peers.py --seconds 2 --rounds 3 --out benchmarks/results/openspiel_peers.json

(RLCard and pgx are not civlite's dependencies: install them beside it, e.g. with
``pip install --target DIR rlcard pgx`` and ``PYTHONPATH=DIR``, to include them.)
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import argparse
import importlib.metadata
import platform
import random
import statistics
import sys
import time
from typing import Any

import open_spiel.python.games.kuhn_poker  # noqa: F401  (registers python_kuhn_poker, OpenSpiel's Python game)
import pyspiel
from openspiel_speed import Loop, engine_loop, openspiel_loop, pyspiel_loop, run_rounds, write_summary

from civlite.engine import COMPILED

#: OpenSpiel's games played through pyspiel
PYSPIEL_GAMES = ("kuhn_poker", "leduc_poker", "liars_dice", "hearts", "python_kuhn_poker")
#: RLCard's environments
RLCARD_ENVS = ("leduc-holdem", "limit-holdem", "uno")
#: pgx's environments
PGX_ENVS = ("leduc_holdem", "kuhn_poker")


def rlcard_loop(name: str) -> Loop:
    rlcard = importlib.import_module("rlcard")  # not a dependency of civlite
    env = rlcard.make(name, config={"seed": 1})

    def run(seconds: float) -> float:
        r = random.Random(1)
        n = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            state, _ = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[int(r.random() * len(legal))])
                n += 1
        return n / (time.perf_counter() - t0)
    return run


def pgx_loop(name: str, batch: int) -> Loop:
    """pgx's ``step`` with a uniformly random legal action and a new game when one ends, in one
    ``jax.jit`` (``jax.vmap`` over ``batch`` games when ``batch`` > 1); compiled before timing."""
    jax = importlib.import_module("jax")  # not dependencies of civlite
    jnp = importlib.import_module("jax.numpy")
    pgx = importlib.import_module("pgx")

    env = pgx.make(name)

    def one(state: Any, key: Any) -> tuple[Any, Any]:
        key, k1, k2 = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        state = env.step(state, jax.random.categorical(k1, logits))
        state = jax.lax.cond(state.terminated, lambda: env.init(k2), lambda: state)
        return state, key

    if batch == 1:
        init, step = env.init, one
    else:
        init, step = jax.vmap(env.init), jax.vmap(one)
    init, step = jax.jit(init), jax.jit(step)

    def keys(seed: int) -> Any:
        key = jax.random.PRNGKey(seed)
        return key if batch == 1 else jax.random.split(key, batch)

    warm, _ = step(init(keys(0)), keys(1))  # compile before timing
    jax.block_until_ready(warm)

    def run(seconds: float) -> float:
        state, key = init(keys(2)), keys(3)
        n = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            for _ in range(16):
                state, key = step(state, key)
            jax.block_until_ready(state)
            n += 16 * batch
        return n / (time.perf_counter() - t0)
    return run


def _version(pkg: str) -> str | None:
    try:
        return importlib.metadata.version(pkg)
    except importlib.metadata.PackageNotFoundError:
        return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    loops: dict[str, Loop] = {
        "engine": engine_loop(2),
        "civlite_openspiel_exact": openspiel_loop(2),
        "civlite_openspiel_sampled": openspiel_loop(2, chance="sampled"),
        "civlite_openspiel_implicit": openspiel_loop(2, chance="implicit"),
    }
    for g in PYSPIEL_GAMES:
        loops[f"pyspiel_{g}"] = pyspiel_loop(pyspiel.load_game(g))
    missing = []
    try:
        for e in RLCARD_ENVS:
            loops[f"rlcard_{e}"] = rlcard_loop(e)
    except ImportError as err:
        missing.append(f"rlcard: {err}")
    try:
        for e in PGX_ENVS:
            loops[f"pgx_{e}"] = pgx_loop(e, 1)
            loops[f"pgx_{e}_batch256"] = pgx_loop(e, 256)
    except ImportError as err:
        missing.append(f"pgx: {err}")
    rates, ratios = run_rounds(loops, args.rounds, args.seconds)
    summary = {
        "command": "benchmarks/openspiel_peers.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "seconds": args.seconds, "rounds": args.rounds, "python": platform.python_version(),
        "engine_compiled": COMPILED,
        "versions": {p: _version(p) for p in ("open_spiel", "rlcard", "pgx", "jax")},
        "not_measured": missing,
        "decisions_per_s": {k: round(statistics.median(v)) for k, v in rates.items()},
        "ratio_to_civlite_engine": {k: round(statistics.median(v), 3) for k, v in ratios.items()},
        "ratio_per_round": {k: [round(x, 3) for x in v] for k, v in ratios.items()},
    }
    write_summary(summary, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
