"""``civlite tune``: search a declared space of rule changes for a fair, well-paced variant.

The designer declares the space and the goal in TOML::

    [tune]
    players = 2                 # a table size, or several: [2, 3, 4, 6] (the worst of them counts)
    bots = ["expert"]           # the line-up the search plays (default: expert self-play)
    trials = 12                 # variants to try
    games = 2000                # at most this many games per variant and table size ...
    batch = 400                 # ... played in batches: after each, hopeless variants are pruned
    seed = 1
    keep = 3                    # how many of the best variants go on to confirmation
    confirm = "auto"            # fresh games per confirming run: "auto" sizes them from the goal
    confirm_bots = ["heuristic"]  # other skill levels a variant must also pass (default: one other level)
    # rules = "base.toml"       # the base rule set (default: RULES.md)

    [goal]
    seat_edge = 1.5             # points: every seat within its fair share ± 1.5
    length = [24, 36]           # median game length (turns) in this range
    ablation = 10.0             # points: no ability's removal moves the first seat's win rate more
    ablation_games = 400        # games per ablated ability (checked on the finalists only)

    [[param]]
    path = "start_ct"           # any rule path (civlite.sim.paths); start_ct.4 is the 4-player table
    choices = [[0, 0], [0, 1], [0, 2]]

    [[param]]
    path = "victory_ct"
    low = 16
    high = 24                   # whole numbers low..high (step = 1 unless given)

Optuna drives the search (a grid when every parameter is a short list of choices and
the grid fits in ``trials``, else TPE). Each variant plays batches of games at every table
size of ``players`` on all cores (multiprocessing, or Ray); after each batch its loss is
reported to Optuna as an intermediate value, and a pruner stops a variant once a seat's 95%
interval at some table size lies wholly outside fair ± ``seat_edge``: more games cannot make
it fair.

The loss of one table size is the largest distance of a seat's win rate from the fair share
(points), plus how far the median length falls outside the target range (turns); a variant's
loss is that of its worst table size, so a space spanning player counts (with per-seat
compensation such as ``start_ct.4``) looks for one rule set fair at all of them.

The search picks its finalists on the games it searched with, so their figures flatter
them (the best of many noisy measurements is biased towards luck). The ``keep`` best
therefore go through a **confirmation** on fresh games (a seed the search never used) at
every table size, under the search's line-up and under each of ``confirm_bots``. Its size
comes from a power calculation (:func:`civlite.sim.stats.confirm_games`): each seat's 95%
interval half as wide as the band (17,074 games at 2 players for ± 1.5 points), and a run
passes only when every seat's whole interval lies inside the band, so a variant whose seat
sits at the band's edge cannot pass. When the goal names ``ablation``, each ability of the
finalist is removed in turn on fresh paired seeds; the variant fails only when a change is
beyond the goal on its interval corrected over all the abilities at once (a noisy change of
a few hundred games does not reject). Only a variant that holds in every run is written as
playable TOML (``best-1.toml``, ... ranked by their confirmed loss), each with its
confirmed figures; when none passes, no ``best-N`` is written and ``tune.md`` says so.
``tune.json`` and ``tune.md`` hold every figure.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..engine import RuleSetError
from .paths import get_path
from .simulator import SimConfig, _term_as_interrupt
from .tune_measure import Tally, goal_met, hopeless, loss, measure, play_batch
from .tune_report import render_md, seats_text, toml_header
from .tune_space import (
    DEFAULT_BOT,
    Goal,
    Param,
    Space,
    TuneError,
    default_confirm_bots,
    load_space,
    show,
    space_from_dict,
    variant,
    variant_warnings,
)

__all__ = ["DEFAULT_BOT", "Goal", "Param", "Space", "Tally", "TuneError", "default_confirm_bots", "goal_met",
           "hopeless", "load_space", "loss", "measure", "play_batch", "render_md", "space_from_dict", "tune",
           "variant", "variant_warnings"]


def _interval_pruner() -> Any:
    import optuna

    class IntervalPruner(optuna.pruners.BasePruner):
        """Prune a variant once its user attribute ``hopeless`` (set after each batch) is true."""

        def prune(self, study: optuna.study.Study, trial: optuna.trial.FrozenTrial) -> bool:
            return bool(trial.user_attrs.get("hopeless"))

    return IntervalPruner()


def cells_record(tallies: dict[int, Tally], goal: Goal) -> dict[str, Any]:
    """A variant's figures at every table size (``cells``) and, at the top, its worst size's."""
    cells = []
    for n, t in tallies.items():
        cell = {"players": n, "loss": loss(t, goal), **t.figures()}
        cell["goal"] = goal_met(cell, goal, n)
        cells.append(cell)
    worst = max(cells, key=lambda c: c["loss"])
    return {**worst, "cells": cells, "games": sum(c["games"] for c in cells)}


def tune(space: Space, out: str | Path, workers: int | None = None, backend: str = "local",
         log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the search; write best-N.toml, tune.json and tune.md into ``out``; return tune.json's content."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    od = Path(out)
    od.mkdir(parents=True, exist_ok=True)
    workers = workers if workers and workers > 0 else (os.cpu_count() or 1)
    say = log or (lambda s: None)
    for n in space.players:
        if space.confirm_games(n) < space.needed_games(n):
            say(f"warning: tune.confirm = {space.confirm} fresh games cannot resolve ± {space.goal.seat_edge:g} "
                f"points at {n} players (the power calculation needs {space.needed_games(n)}): even a fair "
                "variant will most likely fail its confirmation")
    grid = space.grid
    sampler: Any
    if grid is not None:
        sampler = optuna.samplers.GridSampler({p.path: list(range(len(p.choices))) for p in space.params},
                                              seed=space.seed)
        n_trials = len(grid)
    else:
        sampler = optuna.samplers.TPESampler(seed=space.seed, n_startup_trials=min(5, space.trials))
        n_trials = space.trials
    study = optuna.create_study(direction="minimize", sampler=sampler, pruner=_interval_pruner())
    records: list[dict[str, Any]] = []
    seen: dict[str, dict[str, Any]] = {}
    t0 = time.perf_counter()

    def objective(trial: optuna.trial.Trial) -> float:
        params: dict[str, Any] = {}
        for p in space.params:
            if p.choices:
                params[p.path] = p.choices[trial.suggest_categorical(p.path, list(range(len(p.choices))))]
            else:
                assert p.low is not None and p.high is not None
                params[p.path] = trial.suggest_int(p.path, p.low, p.high, step=p.step)
        key = json.dumps(params, sort_keys=True)
        if key in seen:  # TPE may propose a variant again: its measurement stands
            rec = seen[key]
            if rec["state"] == "pruned":
                raise optuna.TrialPruned()
            return float(rec["loss"])
        rules = variant(space, params, name=f"tuned-{trial.number}")
        tallies = {n: Tally(n) for n in space.players}
        rec = {"trial": trial.number, "params": params, "state": "running"}
        seen[key] = rec
        records.append(rec)
        done = 0
        while done < space.games:
            n_games = min(space.batch, space.games - done)
            for n, tally in tallies.items():
                cfg = SimConfig(bots=space.bots, players=n, games=space.games, seed=space.seed, rules=rules)
                for st in play_batch(cfg, list(range(done, done + n_games)), workers, backend):
                    tally.add(st)
            done += n_games
            rec.update(cells_record(tallies, space.goal))
            value = float(rec["loss"])
            trial.report(value, step=done)
            trial.set_user_attr("hopeless", any(hopeless(t, space.goal) for t in tallies.values()))
            if trial.should_prune():
                rec["state"] = "pruned"
                say(f"variant {trial.number} {show(params)}: pruned after {done} games a table size "
                    f"(edge {rec['edge_points']:.1f} points at {rec['players']} players, "
                    f"median {rec['median_length']:g} turns)")
                raise optuna.TrialPruned()
        rec["state"] = "complete"
        say(f"variant {trial.number} {show(params)}: loss {value:.2f} after {done} games a table size "
            f"(worst: {rec['players']} players, edge {rec['edge_points']:.1f} points, "
            f"median {rec['median_length']:g} turns)")
        return value

    interrupted = False
    ray_started = False
    if backend == "ray":  # one Ray session for the whole search, not one per batch
        try:
            import ray
        except ImportError:
            raise RuntimeError("the ray back end needs Ray: pip install 'civlite[sim]' (or pip install ray)") from None
        if not ray.is_initialized():
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
            ray_started = True
    old_term = _term_as_interrupt()  # a run in the background stops on SIGTERM as on Ctrl-C
    try:
        study.optimize(objective, n_trials=n_trials)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: keep what was measured, write the best so far
        interrupted = True
        say("interrupted: writing the variants measured so far")
        for r in records:
            if r["state"] == "running":
                r["state"] = "interrupted"
    finally:
        if ray_started:
            import ray

            ray.shutdown()
    done = sorted((r for r in records if r["state"] == "complete"), key=lambda r: r["loss"])
    finalists = [] if interrupted else done[:space.keep]
    for rec in finalists:
        try:
            _confirm(rec, space, workers, backend, say)
        except KeyboardInterrupt:
            say("interrupted during the confirmation: only the variants confirmed so far can pass")
            rec.setdefault("confirmation", {})["interrupted"] = True
            interrupted = True
            break
    if old_term is not None:
        signal.signal(signal.SIGTERM, old_term)
    passed = sorted((r for r in finalists if r.get("confirmation", {}).get("passed")),
                    key=lambda r: r["confirmation"]["loss"])
    for old in od.glob("best-*.toml"):  # a --force rerun: no best file of an earlier run survives
        old.unlink()
    for i, rec in enumerate(passed, 1):
        label = "-".join(str(n) for n in space.players)
        rules = variant(space, rec["params"], name=f"tuned-{label}p-{i}")
        rec["file"] = f"best-{i}.toml"
        (od / rec["file"]).write_text(toml_header(rec, space) + rules.to_toml(), encoding="utf-8")
    if not passed:
        say("no variant passed the confirmation: no best-N.toml is written" if finalists else
            "no variant reached the confirmation: no best-N.toml is written")
    result = {"players": list(space.players), "bots": list(space.bots), "seed": space.seed,
              "base_rules": space.rules.name,
              "goal": {"seat_edge": space.goal.seat_edge, "length": space.goal.length,
                       "ablation": space.goal.ablation, "ablation_games": space.goal.ablation_games},
              "params": [{"path": p.path, "values": p.values, "base": _base(space, p.path)} for p in space.params],
              "confirm": {"games": {str(n): space.confirm_games(n) for n in space.players},
                          "needed": {str(n): space.needed_games(n) for n in space.players},
                          "seed": space.confirm_seed, "lineups": [list(lu) for lu in space.lineups],
                          "finalists": [r["trial"] for r in finalists]},
              "sampler": "grid" if grid is not None else "tpe", "interrupted": interrupted,
              "seconds": round(time.perf_counter() - t0, 1),
              "games_played": sum(r.get("games", 0) for r in records)
              + sum(c["games"] for r in finalists for c in r.get("confirmation", {}).get("runs", [])),
              "trials": records, "best": [r["trial"] for r in passed]}
    (od / "tune.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    (od / "tune.md").write_text(render_md(result), encoding="utf-8")
    return result


def ablation_rejects(rows: list[dict[str, Any]], limit_points: float) -> bool:
    """Whether an ablation shows an ability beyond the goal: some ability's change of the first
    seat's win rate lies beyond ± ``limit_points`` on its whole corrected interval (``ci95_adj``,
    which holds for all the abilities at once). A large change measured on few games, whose
    corrected interval still reaches inside the goal, does not reject."""
    lim = limit_points / 100
    for r in rows:
        lo, hi = r["seat0"].get("ci95_adj", r["seat0"]["ci95"])
        if lo > lim or hi < -lim:
            return True
    return False


def _confirm(rec: dict[str, Any], space: Space, workers: int, backend: str, say: Callable[[str], None]) -> None:
    """Play a finalist's confirmation (fresh seed; every table size and line-up; then its ablation)
    into ``rec["confirmation"]``; ``passed`` is whether it held in all of them."""
    rules = variant(space, rec["params"], name=f"tuned-{rec['trial']}")
    conf: dict[str, Any] = {"seed": space.confirm_seed, "runs": [], "passed": False}
    rec["confirmation"] = conf
    ok = True
    for lineup in space.lineups:
        for n in space.players:
            tally = measure(rules, space, space.confirm_games(n), workers, backend, seed=space.confirm_seed,
                            bots=lineup, players=n)
            run = {"players": n, "bots": list(lineup), "loss": loss(tally, space.goal), **tally.figures()}
            met = goal_met(run, space.goal, n)
            run["goal"] = met
            held = met["seat_edge_strict"] and met.get("length", True)
            conf["runs"].append(run)
            ok = ok and held
            say(f"confirming variant {rec['trial']} {show(rec['params'])} at {n} players with {', '.join(lineup)}: "
                f"{run['games']} fresh games, seats {seats_text(run)}, median {run['median_length']:g} turns: "
                + ("holds" if held else "does NOT hold"))
    conf["loss"] = max(r["loss"] for r in conf["runs"] if r["bots"] == list(space.bots))
    if space.goal.ablation is not None:
        if not ok:
            conf["ablation"] = None  # not played: the variant failed already
        else:
            from .ablate import ablate

            n = space.players[0]
            say(f"ablation of variant {rec['trial']} at {n} players ({space.goal.ablation_games} fresh games "
                "per ability)")
            ab = ablate(rules, space.bots, n, space.goal.ablation_games, space.confirm_seed,
                        workers=workers, backend=backend)
            conf["ablation_max_points"] = max((abs(r["seat0"]["diff"]) * 100 for r in ab["rows"]), default=0.0)
            conf["ablation"] = [{"ability": r["ability"], "seat0_diff_points": 100 * r["seat0"]["diff"],
                                 "seat0_ci95_points": [100 * x for x in r["seat0"]["ci95"]],
                                 "seat0_ci95_adj_points": [100 * x for x in r["seat0"]["ci95_adj"]],
                                 "seat0_p_adj": r["seat0"]["p_adj"],
                                 "length_diff": r["length"]["diff"], "length_ci95": r["length"]["ci95"]}
                                for r in ab["rows"]]
            conf["ablation_ok"] = not ablation_rejects(ab["rows"], space.goal.ablation)
            ok = ok and conf["ablation_ok"]
    conf["passed"] = ok


def _base(space: Space, path: str) -> Any:
    try:
        return get_path(space.rules, path)
    except RuleSetError:
        return None
