"""Speed of the research interfaces against the raw engine, measured interleaved.

Each round runs every loop for ``--seconds`` (uniformly random legal actions, 2 players
unless ``--players``), in turn, so that load on the machine hits them alike; the
medians over ``--rounds`` are reported. Run it on one core:

    taskset -c 0 .venv/bin/python benchmarks/rl_speed.py --seconds 5 --rounds 5 --json

Loops (each counts *decisions*: one seat's compact action applied to a game):

* ``engine``: ``legal_ids()`` + ``apply_id`` on :class:`civlite.engine.Game` (no observation);
  the baseline of every ratio;
* ``engine_quiet``: the same with ``game.quiet = True`` (no events built), as the
  interfaces' games run unless something reads their events (PettingZoo's render);
  ``ratios_to_engine_quiet`` in the JSON compare with it;
* ``pettingzoo_raw`` / ``pettingzoo``: the AEC loop (``agent_iter``, ``last()`` with its
  observation and mask, ``step``) on ``raw_env()`` and on the wrapped ``env()``;
* ``gymnasium``: :class:`SingleAgentEnv` against one ``random`` bot; each ``step()`` is
  the learner's decision plus the bot's until the learner's next (both counted; the
  learner's steps/s are reported too);
* ``*_nocopy``: the same loops with ``copy=False`` (each observation written into the
  preallocated arrays of the agent, no array made per step);
* ``batched``: :class:`civlite.rl.vector.BatchedGames`, ``--batch`` self-play games per
  call (observation and mask for every game, every call): agent steps/s; ``--batch-sweep``
  adds the same loop at other batch sizes;
* ``vector_env``: :class:`civlite.rl.vector.CivLiteVectorEnv` (``gymnasium.vector``),
  ``--batch`` learner-vs-``random`` games: learner steps/s and decisions/s.

The single-game loops pick a uniformly random action among ``mask.nonzero()[0]`` (what
an agent holding only the observation does; the engine loop picks among ``legal_ids()``).

``--bracket`` runs the engine loop again after every loop, so that each loop sits between two
engine runs of the same length; its ``bracketed_ratios`` (the JSON; printed in brackets) are
the medians over the rounds of the loop's rate over the mean of those two: the tightest
pairing a machine whose speed drifts within seconds allows.

``breakdown`` (after the rounds) splits one agent step into its parts, in microseconds,
timed phase by phase on the same functions the interfaces call: for a single game, the
engine's decision (``legal_ids`` + ``apply_id``, from the engine loop), the observation with
its mask written in place (``ObservationBuffer.write``, what PettingZoo's ``observe`` and
Gymnasium's steps do) and its two copies (``copy=True``);
for the batched games, per agent
step: the engine (``apply_id``, new games, ``legal_ids``), ``encode_batch`` and the masks,
the rest of ``BatchedGames.step`` being the bookkeeping.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from civlite.engine import Game
from civlite.rl.encoding import ObservationBuffer, encode_batch, write_masks
from civlite.rl.gymnasium import SingleAgentEnv
from civlite.rl.pettingzoo import env as pz_env
from civlite.rl.pettingzoo import raw_env as pz_raw_env
from civlite.rl.vector import BatchedGames, CivLiteVectorEnv

Loop = Callable[[float], dict[str, float]]


def engine_loop(players: int, quiet: bool = False) -> Loop:
    def run(seconds: float) -> dict[str, float]:
        r = random.Random(1)
        n = 0
        t0 = time.perf_counter()
        end = t0 + seconds
        while time.perf_counter() < end:
            g = Game(players, seed=r.getrandbits(62))
            g.quiet = quiet
            while not g.over:
                legal = g.legal_ids()
                g.apply_id(legal[int(r.random() * len(legal))], check=False)
                n += 1
        return {"decisions_per_s": n / (time.perf_counter() - t0)}
    return run


def pettingzoo_loop(players: int, wrapped: bool, copy: bool = True) -> Loop:
    def run(seconds: float) -> dict[str, float]:
        e = pz_env(players=players, copy=copy) if wrapped else pz_raw_env(players=players, copy=copy)
        r = random.Random(2)
        n = 0
        t0 = time.perf_counter()
        end = t0 + seconds
        while time.perf_counter() < end:
            e.reset(seed=r.getrandbits(62))
            for _agent in e.agent_iter():
                obs, _, term, trunc, _ = e.last()
                if term or trunc:
                    e.step(None)
                    continue
                legal = obs["action_mask"].nonzero()[0]
                e.step(int(legal[int(r.random() * len(legal))]))
                n += 1
        return {"decisions_per_s": n / (time.perf_counter() - t0)}
    return run


def gymnasium_loop(players: int, copy: bool = True) -> Loop:
    def run(seconds: float) -> dict[str, float]:
        e = SingleAgentEnv(opponents=["random"] * (players - 1), copy=copy)
        r = random.Random(3)
        steps = decisions = 0
        t0 = time.perf_counter()
        end = t0 + seconds
        while time.perf_counter() < end:
            obs, _ = e.reset(seed=r.getrandbits(62))
            done = False
            while not done:
                legal = obs["action_mask"].nonzero()[0]
                obs, _, term, trunc, _ = e.step(int(legal[int(r.random() * len(legal))]))
                done = term or trunc
                steps += 1
            assert e.game is not None
            decisions += e.game.decision_number - 1  # every compact step applied, as the engine loop counts
        dt = time.perf_counter() - t0
        return {"decisions_per_s": decisions / dt, "learner_steps_per_s": steps / dt}
    return run


def _random_rows(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of a mask."""
    out: np.ndarray = np.argmax(rng.random(mask.shape) * mask, axis=1)
    return out


def batched_loop(players: int, batch: int) -> Loop:
    def run(seconds: float) -> dict[str, float]:
        b = BatchedGames(batch, players)
        rng = np.random.default_rng(4)
        _, mask, _ = b.reset(seed=4)
        n = 0
        t0 = time.perf_counter()
        end = t0 + seconds
        while time.perf_counter() < end:
            _, mask, *_ = b.step(_random_rows(mask, rng))
            n += batch
        return {"agent_steps_per_s": n / (time.perf_counter() - t0)}
    return run


def vector_loop(players: int, batch: int) -> Loop:
    def run(seconds: float) -> dict[str, float]:
        v = CivLiteVectorEnv(batch, opponents=["random"] * (players - 1))
        rng = np.random.default_rng(5)
        obs, _ = v.reset(seed=5)
        n = 0
        decisions_before = sum(g.decision_number - 1 for g in v.core.games)
        finished = 0
        t0 = time.perf_counter()
        end = t0 + seconds
        while time.perf_counter() < end:
            obs, _, _, _, infos = v.step(_random_rows(obs["action_mask"], rng))
            n += batch
            if "final_info" in infos:
                finished += int(infos["_final_info"].sum())
        dt = time.perf_counter() - t0
        return {"learner_steps_per_s": n / dt, "games_finished": float(finished),
                "decisions_in_live_games_at_start": float(decisions_before)}
    return run


def single_breakdown(players: int, seconds: float) -> dict[str, float]:
    """Microseconds per decision of the observation the single-game interfaces make: the
    deciding seat's store written in place (``ObservationBuffer.write``: the numeric view
    and the mask), then its two arrays copied (``copy=True``, the default), timed on the
    states of random games (each call timed alone; the timer's own cost subtracted)."""
    r = random.Random(6)
    clock = time.perf_counter_ns
    buffers = [ObservationBuffer(players) for _ in range(players)]
    t_write = t_copy = t_zero = 0
    n = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        g = Game(players, seed=r.getrandbits(62))
        while not g.over:
            legal = g.legal_ids()
            seat = g._dplayer
            buf = buffers[seat]
            t0 = clock()
            obs, mask = buf.write(g, seat, legal)
            t1 = clock()
            obs.copy()
            mask.copy()
            t2 = clock()
            t3 = clock()
            t_write += t1 - t0
            t_copy += t2 - t1
            t_zero += t3 - t2
            g.apply_id(legal[int(r.random() * len(legal))], check=False)
            n += 1
    return {"observation_write_us": (t_write - t_zero) / n / 1e3, "observation_copies_us": (t_copy - t_zero) / n / 1e3}


def batched_breakdown(players: int, batch: int, seconds: float) -> dict[str, float]:
    """Microseconds per agent step of each phase of ``BatchedGames.step``, timed phase by phase."""
    b = BatchedGames(batch, players, copy=False)
    rng = np.random.default_rng(7)
    _, mask, _ = b.reset(seed=7)
    clock = time.perf_counter_ns
    t_engine = t_enc = t_mask = 0
    steps = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        acts = _random_rows(mask, rng).tolist()
        t0 = clock()
        games = b.games
        for i, g in enumerate(games):
            g.apply_id(acts[i], False)
            if g.over:
                games[i] = b._new_game(b._rng.getrandbits(63))
        b.legal = [g.legal_ids() for g in games]
        t1 = clock()
        encode_batch(games, [g._dplayer for g in games], b._obs)
        t2 = clock()
        write_masks(b.legal, b._mask)
        t3 = clock()
        mask = b._mask
        t_engine += t1 - t0
        t_enc += t2 - t1
        t_mask += t3 - t2
        steps += batch
    return {"engine_us": t_engine / steps / 1e3, "encode_batch_us": t_enc / steps / 1e3,
            "masks_us": t_mask / steps / 1e3}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=5.0, help="per loop and round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--batch-sweep", default="", metavar="B,B,...",
                    help="also run the batched loop with these numbers of games per call (batched_B)")
    ap.add_argument("--bracket", action="store_true",
                    help="also run the engine loop between every two loops (same --seconds) and give each loop's "
                         "ratio to the mean of the engine runs just before and just after it (bracketed_ratios)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON too")
    ap.add_argument("--out", default="", help="write the results as JSON to this file (with the run's conditions)")
    ap.add_argument("--note", default="", help="a word on the conditions, stored in --out")
    a = ap.parse_args(argv)
    load_before = os.getloadavg()
    loops: dict[str, Loop] = {
        "engine": engine_loop(a.players),
        "engine_quiet": engine_loop(a.players, quiet=True),
        "pettingzoo_raw": pettingzoo_loop(a.players, wrapped=False),
        "pettingzoo": pettingzoo_loop(a.players, wrapped=True),
        "gymnasium": gymnasium_loop(a.players),
        "pettingzoo_raw_nocopy": pettingzoo_loop(a.players, wrapped=False, copy=False),
        "pettingzoo_nocopy": pettingzoo_loop(a.players, wrapped=True, copy=False),
        "gymnasium_nocopy": gymnasium_loop(a.players, copy=False),
        "batched": batched_loop(a.players, a.batch),
        "vector_env": vector_loop(a.players, a.batch),
        **{f"batched_{b}": batched_loop(a.players, int(b)) for b in a.batch_sweep.split(",") if b.strip()},
    }
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in loops}
    bracketed: dict[str, list[float]] = {k: [] for k in loops if k != "engine"}
    for rnd in range(a.rounds):
        before = 0.0
        for name, loop in loops.items():
            runs[name].append(loop(a.seconds))
            if not a.bracket:
                continue
            if name == "engine":
                before = runs[name][-1]["decisions_per_s"]
                continue
            after = loops["engine"](a.seconds)["decisions_per_s"]
            bracketed[name].append(next(iter(runs[name][-1].values())) / ((before + after) / 2))
            before = after
        print(f"round {rnd + 1}: " + ", ".join(f"{k} {runs[k][-1][next(iter(runs[k][-1]))]:,.0f}" for k in loops),
              flush=True)
    med: dict[str, dict[str, float]] = {
        k: {m: statistics.median(r[m] for r in v) for m in v[0]} for k, v in runs.items()
    }
    eng = med["engine"]["decisions_per_s"]
    # each round's ratio to the engine loop run just before it, then their median: the load of
    # a shared machine drifts over a run, and a ratio within one round cancels most of it
    paired: dict[str, float] = {
        k: statistics.median(next(iter(r.values())) / e["decisions_per_s"] for r, e in zip(v, runs["engine"], strict=True))
        for k, v in runs.items()
    }
    print(f"\nmedians over {a.rounds} rounds of {a.seconds:g}s, {a.players} players "
          "(x engine: the median of the rounds' ratios to the engine loop):")
    for k, m in med.items():
        main_metric = next(iter(m))
        extra = ", ".join(f"{x} {y:,.0f}" for x, y in list(m.items())[1:] if not x.startswith("decisions_in"))
        quiet = med["engine_quiet"]["decisions_per_s"]
        ratio = f"  ({paired[k]:.2f} x engine, {m[main_metric] / quiet:.2f} x quiet)" if k != "engine" else ""
        if a.bracket and k != "engine":
            b = sorted(bracketed[k])
            ratio += f" [bracketed {statistics.median(b):.2f}, rounds {b[0]:.2f}-{b[-1]:.2f}]"
        print(f"  {k:<21} {main_metric:<18} {m[main_metric]:>10,.0f}{ratio}" + (f"; {extra}" if extra else ""))
    single = single_breakdown(a.players, a.seconds)
    batched = batched_breakdown(a.players, a.batch, a.seconds)
    batched["total_us"] = 1e6 / med["batched"]["agent_steps_per_s"]
    batched["bookkeeping_us"] = batched["total_us"] - batched["engine_us"] - batched["encode_batch_us"] - batched["masks_us"]
    breakdown: dict[str, Any] = {"engine_decision_us": 1e6 / eng, "engine_quiet_decision_us": 1e6 / med["engine_quiet"]["decisions_per_s"],
                 **single,
                 "pettingzoo_raw_decision_us": 1e6 / med["pettingzoo_raw"]["decisions_per_s"],
                 "batched_agent_step": batched}
    print("\nbreakdown (microseconds): engine decision {:.2f}; observation written {:.2f}, copied {:.2f} "
          "(PettingZoo raw decision {:.2f})".format(breakdown["engine_decision_us"], single["observation_write_us"],
                                                   single["observation_copies_us"],
                                                   breakdown["pettingzoo_raw_decision_us"]))
    print("  batched, per agent step: " + ", ".join(f"{k[:-3]} {v:.2f}" for k, v in batched.items()))
    if a.json or a.out:
        out: dict[str, Any] = {"players": a.players, "seconds": a.seconds, "rounds": a.rounds, "batch": a.batch,
                               "python": platform.python_version(), "medians": med, "runs": runs,
                               "breakdown_us": breakdown,
                               "ratios_to_engine": {k: next(iter(m.values())) / eng for k, m in med.items()},
                               "paired_ratios_to_engine": paired,
                               **({"bracketed_ratios": {k: {"median": statistics.median(v), "rounds": v}
                                                        for k, v in bracketed.items()}} if a.bracket else {}),
                               "ratios_to_engine_quiet": {k: next(iter(m.values())) / med["engine_quiet"]["decisions_per_s"]
                                                          for k, m in med.items()},
                               "conditions": {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                              "cpus": os.cpu_count(), "nice": os.nice(0),
                                              "affinity": sorted(os.sched_getaffinity(0)),
                                              "load_avg_1m_before": round(load_before[0], 2),
                                              "load_avg_1m_after": round(os.getloadavg()[0], 2),
                                              "note": a.note}}
        if a.json:
            print(json.dumps(out, indent=1))
        if a.out:
            with open(a.out, "w", encoding="utf-8") as f:
                json.dump(out, f, indent=1)
                f.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
