"""``civlite tune``: search a declared space of rule changes for a fair, well-paced variant.

The designer declares the space and the goal in TOML::

    [tune]
    players = 2
    bots = ["expert"]           # the line-up the search plays (default: expert self-play)
    trials = 12                 # variants to try
    games = 2000                # at most this many games per variant ...
    batch = 400                 # ... played in batches: after each, hopeless variants are pruned
    seed = 1
    keep = 3                    # how many of the best variants go on to confirmation
    confirm = 4000              # fresh games (a seed the search never used) per confirming line-up
    confirm_bots = ["heuristic"]  # other skill levels a variant must also pass (default: one other level)
    # rules = "base.toml"       # the base rule set (default: RULES.md)

    [goal]
    seat_edge = 1.0             # points: every seat within fair ± 1, its 95% interval holding fair
    length = [24, 36]           # median game length (turns) in this range
    ablation = 10.0             # points: no ability's removal moves the first seat's win rate more
    ablation_games = 400        # games per ablated ability (checked on the best variant only)

    [[param]]
    path = "start_ct"           # any rule path (civlite.sim.paths)
    choices = [[0, 0], [0, 1], [0, 2]]

    [[param]]
    path = "victory_ct"
    low = 16
    high = 24                   # whole numbers low..high (step = 1 unless given)

Optuna drives the search (a grid when every parameter is a short list of choices and
the grid fits in ``trials``, else TPE). Each variant plays batches of games on all cores
(multiprocessing, or Ray); after each batch its loss is reported to Optuna as an
intermediate value, and the :class:`IntervalPruner` stops a variant once a seat's 95%
interval lies wholly outside fair ± ``seat_edge``: more games cannot make it fair.

The loss is the largest distance of a seat's win rate from the fair share (points), plus
how far the median length falls outside the target range (turns).

The search picks its finalists on the games it searched with, so their figures flatter
them (the best of many noisy measurements is biased towards luck). The ``keep`` best
therefore go through a **confirmation**: ``confirm`` fresh games under a seed the search
never used, under the search's line-up and under each of ``confirm_bots`` (another skill
level), and, when the goal names ``ablation``, an ablation of each ability on fresh seeds
too. Only a variant that meets every part of the goal in every confirming run is written
as playable TOML (``best-1.toml``, ... ranked by their confirmed loss under the search's
line-up), each with its confirmed figures; when none passes, no ``best-N`` is written and
``tune.md`` says so. ``tune.json`` and ``tune.md`` hold every figure.
"""

from __future__ import annotations

import json
import math
import os
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine import RuleSet, RuleSetError
from .paths import format_value, get_path, set_path
from .simulator import SimConfig, derive_seed, run_local, run_ray, split_bots
from .stats import quantile, wilson

#: the tuner's default line-up: the strongest bot that plays a game in milliseconds (civlite.bots.LEVELS "hard")
DEFAULT_BOT = "expert"


def default_confirm_bots(bots: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """One other skill level to confirm on: heuristic (the "medium" level), or expert when the
    search already plays heuristic."""
    return (("expert",),) if bots == ("heuristic",) else (("heuristic",),)


class TuneError(ValueError):
    """A tuning space file that is not valid; the message names the key."""


@dataclass(frozen=True)
class Param:
    path: str
    choices: tuple[Any, ...] = ()
    low: int | None = None
    high: int | None = None
    step: int = 1

    @property
    def values(self) -> list[Any]:
        if self.choices:
            return list(self.choices)
        assert self.low is not None and self.high is not None
        return list(range(self.low, self.high + 1, self.step))


@dataclass(frozen=True)
class Goal:
    seat_edge: float = 1.0
    length: tuple[float, float] | None = None
    ablation: float | None = None
    ablation_games: int = 400


@dataclass(frozen=True)
class Space:
    params: tuple[Param, ...]
    goal: Goal = Goal()
    players: int = 2
    bots: tuple[str, ...] = (DEFAULT_BOT,)
    trials: int = 12
    games: int = 2000
    batch: int = 400
    seed: int = 1
    rules: RuleSet = field(default_factory=RuleSet.default)
    keep: int = 3
    #: fresh games per confirming line-up (the best ``keep`` variants; a seed the search never used)
    confirm: int = 2000
    #: the other line-ups (skill levels) a variant must also pass; each a bot spec list, self-play if one
    confirm_bots: tuple[tuple[str, ...], ...] = ()

    @property
    def confirm_seed(self) -> int:
        """The seed of the confirmation games: derived from ``seed``, never one the search played."""
        return derive_seed(self.seed, 0, "tune-confirm")

    @property
    def lineups(self) -> list[tuple[str, ...]]:
        """Every line-up a variant is confirmed under: the search's first, then ``confirm_bots``."""
        out = [self.bots]
        out += [b for b in self.confirm_bots if b != self.bots]
        return out

    @property
    def grid(self) -> list[dict[str, Any]] | None:
        """Every combination, when all parameters are lists of choices and they fit in ``trials``."""
        if not all(p.choices for p in self.params):
            return None
        size = math.prod(len(p.choices) for p in self.params)
        if size > self.trials:
            return None
        combos: list[dict[str, Any]] = [{}]
        for p in self.params:
            combos = [{**c, p.path: v} for c in combos for v in p.choices]
        return combos


def _num(v: Any, where: str, low: int = 0) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < low:
        raise TuneError(f"{where} must be a whole number >= {low}, got {v!r}")
    return v


def load_space(path: str | Path, overrides: dict[str, Any] | None = None) -> Space:
    """Read and check a tuning space file (every variant it can make is checked to be a valid rule set)."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise TuneError(f"cannot read {p}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise TuneError(f"{p.name}: not valid TOML: {e}") from None
    return space_from_dict(data, base_dir=p.parent, overrides=overrides, where=p.name)


def space_from_dict(data: dict[str, Any], base_dir: Path | None = None, overrides: dict[str, Any] | None = None,
                    where: str = "space") -> Space:
    unknown = sorted(set(data) - {"tune", "goal", "param"})
    if unknown:
        raise TuneError(f"{where}: unknown table {unknown[0]!r}; expected [tune], [goal] and [[param]]")
    t = dict(data.get("tune", {}))
    t.update({k: v for k, v in (overrides or {}).items() if v is not None})
    bad = sorted(set(t) - {"players", "bots", "trials", "games", "batch", "seed", "rules", "keep", "confirm",
                           "confirm_bots"})
    if bad:
        raise TuneError(f"{where}: unknown key tune.{bad[0]}")
    rules = RuleSet.default()
    if "rules" in t:
        rp = Path(t["rules"])
        if base_dir is not None and not rp.is_absolute():
            rp = base_dir / rp
        try:
            rules = RuleSet.from_toml(rp)
        except RuleSetError as e:
            raise TuneError(f"{where}: tune.rules: {e}") from None
    bots = _lineup(t.get("bots", [DEFAULT_BOT]), f"{where}: tune.bots")
    if "confirm_bots" in t:
        cb = t["confirm_bots"]
        if not isinstance(cb, list):
            raise TuneError(f"{where}: tune.confirm_bots must be a list of line-ups like [\"heuristic\"] "
                            "(a string per line-up: one spec for self-play, or specs separated by commas)")
        confirm_bots = tuple(_lineup(x, f"{where}: tune.confirm_bots[{i}]") for i, x in enumerate(cb))
    else:
        confirm_bots = default_confirm_bots(bots)
    g = data.get("goal", {})
    bad = sorted(set(g) - {"seat_edge", "length", "ablation", "ablation_games"})
    if bad:
        raise TuneError(f"{where}: unknown key goal.{bad[0]}")
    length = g.get("length")
    if length is not None and (not isinstance(length, list) or len(length) != 2
                               or not all(isinstance(x, int | float) for x in length) or length[0] > length[1]):
        raise TuneError(f"{where}: goal.length must be [low, high] turns, got {length!r}")
    for k in ("seat_edge", "ablation"):
        if k in g and (not isinstance(g[k], int | float) or isinstance(g[k], bool) or g[k] <= 0):
            raise TuneError(f"{where}: goal.{k} must be a positive number of points, got {g[k]!r}")
    goal = Goal(seat_edge=float(g.get("seat_edge", 1.0)), length=(float(length[0]), float(length[1])) if length else None,
                ablation=float(g["ablation"]) if "ablation" in g else None,
                ablation_games=_num(g.get("ablation_games", 400), f"{where}: goal.ablation_games", 1))
    raw = data.get("param", [])
    if not isinstance(raw, list) or not raw:
        raise TuneError(f"{where}: declare at least one [[param]] with a path and choices (or low/high)")
    params = []
    for i, q in enumerate(raw):
        w = f"{where}: param[{i}]"
        if not isinstance(q, dict) or not isinstance(q.get("path"), str):
            raise TuneError(f"{w}: needs a rule path, e.g. path = \"start_ct\"")
        bad = sorted(set(q) - {"path", "choices", "low", "high", "step"})
        if bad:
            raise TuneError(f"{w}: unknown key {bad[0]!r}; expected path, choices or low/high/step")
        if "choices" in q:
            if not isinstance(q["choices"], list) or not q["choices"]:
                raise TuneError(f"{w}: choices must be a non-empty list")
            par = Param(q["path"], choices=tuple(q["choices"]))
        elif "low" in q and "high" in q:
            lo, hi = _num(q["low"], f"{w}.low"), _num(q["high"], f"{w}.high")
            if hi < lo:
                raise TuneError(f"{w}: high ({hi}) is below low ({lo})")
            par = Param(q["path"], low=lo, high=hi, step=_num(q.get("step", 1), f"{w}.step", 1))
        else:
            raise TuneError(f"{w}: give choices = [...] or low and high")
        for v in par.values:
            try:
                set_path(rules, par.path, v)
            except RuleSetError as e:
                raise TuneError(f"{w}: {e}") from None
        params.append(par)
    paths = [p.path for p in params]
    if len(set(paths)) != len(paths):
        raise TuneError(f"{where}: a path is declared twice")
    space = Space(params=tuple(params), goal=goal, players=_num(t.get("players", 2), f"{where}: tune.players", 2),
                  bots=tuple(bots), trials=_num(t.get("trials", 12), f"{where}: tune.trials", 1),
                  games=_num(t.get("games", 2000), f"{where}: tune.games", 1),
                  batch=_num(t.get("batch", 400), f"{where}: tune.batch", 1),
                  seed=_num(t.get("seed", 1), f"{where}: tune.seed"), rules=rules,
                  keep=_num(t.get("keep", 3), f"{where}: tune.keep", 1),
                  confirm=_confirm_games(t.get("confirm", 2000), where), confirm_bots=confirm_bots)
    for lineup in space.lineups:
        try:
            SimConfig(bots=lineup, players=space.players, games=1, seed=space.seed, rules=rules)
        except ValueError as e:
            raise TuneError(f"{where}: {e}") from None
    return space


def _lineup(value: Any, where: str) -> tuple[str, ...]:
    """A line-up from a list of specs or one comma-separated string."""
    if isinstance(value, str):
        try:
            value = list(split_bots(value, strict=True))
        except ValueError as e:
            raise TuneError(f"{where}: {e}") from None
    if not isinstance(value, list) or not value or not all(isinstance(b, str) and b.strip() for b in value):
        raise TuneError(f"{where} must be a list of bot specs like [\"expert\"]")
    return tuple(b.strip() for b in value)


def _confirm_games(v: Any, where: str) -> int:
    if isinstance(v, int) and not isinstance(v, bool) and v == 0:
        raise TuneError(f"{where}: tune.confirm must be at least 1: the tuner writes only variants that passed "
                        "a confirmation on fresh games")
    return _num(v, f"{where}: tune.confirm", 1)


def variant(space: Space, params: dict[str, Any], name: str = "tuned") -> RuleSet:
    """The base rule set with ``params`` (path -> value) applied."""
    rules = space.rules
    for path, v in params.items():
        rules = set_path(rules, path, v)
    return RuleSet.from_dict({**rules.to_dict(), "name": name})


def variant_warnings(space: Space, most: int = 50) -> list[tuple[str, tuple[str, ...]]]:
    """The design warnings (``RuleSet.design_warnings``) of the space's variants that the base
    rules do not already have: ``(changes, warnings)`` for each such variant (grid spaces
    are checked whole; other spaces at each parameter's values, one at a time)."""
    base = set(space.rules.design_warnings(space.players))
    combos = space.grid or [{p.path: v} for p in space.params for v in p.values]
    out = []
    for params in combos[:most]:
        w = tuple(x for x in variant(space, params).design_warnings(space.players) if x not in base)
        if w:
            out.append((_show(params), w))
    return out


# -- measuring a variant -------------------------------------------------------------
@dataclass
class Tally:
    """What a batch of games says about a variant."""

    players: int
    games: int = 0
    draws: int = 0
    seat_wins: list[int] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)

    def add(self, stats: dict[str, Any]) -> None:
        if not self.seat_wins:
            self.seat_wins = [0] * self.players
        self.games += 1
        w = stats["winner"]
        if w is None:
            self.draws += 1
        else:
            self.seat_wins[w] += 1
        self.turns.append(int(stats["turns"]))

    @property
    def decided(self) -> int:
        return self.games - self.draws

    def seats(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for k in self.seat_wins or [0] * self.players:
            p, lo, hi = wilson(k, self.decided)
            out.append({"win_rate": p, "ci95": [lo, hi]})
        return out

    @property
    def median_length(self) -> float:
        return quantile(sorted(self.turns), 0.5)

    def figures(self) -> dict[str, Any]:
        fair = 1 / self.players
        seats = self.seats()
        return {"games": self.games, "draws": self.draws, "seat_wins": list(self.seat_wins),
                "seats": seats, "edge_points": max(abs(s["win_rate"] - fair) for s in seats) * 100,
                "median_length": self.median_length, "mean_length": sum(self.turns) / max(1, len(self.turns))}


def loss(t: Tally, goal: Goal) -> float:
    """Largest seat distance from fair (points) + median length outside the target (turns)."""
    f = t.figures()
    out = float(f["edge_points"])
    if goal.length is not None:
        lo, hi = goal.length
        m = f["median_length"]
        out += max(0.0, lo - m, m - hi)
    return out


def hopeless(t: Tally, goal: Goal) -> bool:
    """A seat's 95% interval lies wholly outside fair ± seat_edge: more games will not make it fair."""
    fair = 1 / t.players
    tol = goal.seat_edge / 100
    return any(s["ci95"][0] > fair + tol or s["ci95"][1] < fair - tol for s in t.seats())


def goal_met(f: dict[str, Any], goal: Goal, players: int) -> dict[str, bool]:
    """Which parts of the goal a variant's measured figures meet."""
    fair = 1 / players
    tol = goal.seat_edge / 100 + 1e-9  # 49.0% is within 1 point of 50%, floating point notwithstanding
    out = {"seat_edge": all(abs(s["win_rate"] - fair) <= tol and s["ci95"][0] <= fair <= s["ci95"][1]
                            for s in f["seats"]),
           "seat_edge_strict": all(fair - tol <= s["ci95"][0] and s["ci95"][1] <= fair + tol for s in f["seats"])}
    if goal.length is not None:
        out["length"] = goal.length[0] <= f["median_length"] <= goal.length[1]
    return out


def play_batch(cfg: SimConfig, indices: list[int], workers: int, backend: str = "local",
               ray_address: str | None = None) -> list[dict[str, Any]]:
    """The stats of games ``indices`` of ``cfg`` (all cores, in game order)."""
    stream = run_local(cfg, workers, indices) if backend == "local" else run_ray(cfg, workers, ray_address, indices)
    lines = [e for chunk in stream for e in chunk]
    lines.sort(key=lambda e: e["index"])
    return [e["stats"] for e in lines]


def measure(rules: RuleSet, space: Space, games: int, workers: int, backend: str = "local", start: int = 0,
            seed: int | None = None, bots: tuple[str, ...] | None = None) -> Tally:
    """Play ``games`` games of ``rules`` (indices from ``start``; the search's line-up unless
    ``bots``) and tally them."""
    cfg = SimConfig(bots=bots or space.bots, players=space.players, games=start + games,
                    seed=space.seed if seed is None else seed, rules=rules)
    t = Tally(space.players)
    for st in play_batch(cfg, list(range(start, start + games)), workers, backend):
        t.add(st)
    return t


# -- the search -----------------------------------------------------------------------
def _interval_pruner() -> Any:
    import optuna

    class IntervalPruner(optuna.pruners.BasePruner):
        """Prune a variant once its user attribute ``hopeless`` (set after each batch) is true."""

        def prune(self, study: optuna.study.Study, trial: optuna.trial.FrozenTrial) -> bool:
            return bool(trial.user_attrs.get("hopeless"))

    return IntervalPruner()


def tune(space: Space, out: str | Path, workers: int | None = None, backend: str = "local",
         log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the search; write best-N.toml, tune.json and tune.md into ``out``; return tune.json's content."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    od = Path(out)
    od.mkdir(parents=True, exist_ok=True)
    workers = workers if workers and workers > 0 else (os.cpu_count() or 1)
    say = log or (lambda s: None)
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
        tally = Tally(space.players)
        rec = {"trial": trial.number, "params": params, "state": "running"}
        seen[key] = rec
        records.append(rec)
        cfg = SimConfig(bots=space.bots, players=space.players, games=space.games, seed=space.seed, rules=rules)
        done = 0
        while done < space.games:
            n = min(space.batch, space.games - done)
            for st in play_batch(cfg, list(range(done, done + n)), workers, backend):
                tally.add(st)
            done += n
            value = loss(tally, space.goal)
            trial.report(value, step=done)
            trial.set_user_attr("hopeless", hopeless(tally, space.goal))
            rec.update(loss=value, **tally.figures())
            if trial.should_prune():
                rec["state"] = "pruned"
                say(f"variant {trial.number} {_show(params)}: pruned after {done} games "
                    f"(edge {rec['edge_points']:.1f} points, median {rec['median_length']:g} turns)")
                raise optuna.TrialPruned()
        rec["state"] = "complete"
        rec["goal"] = goal_met(rec, space.goal, space.players)
        say(f"variant {trial.number} {_show(params)}: loss {value:.2f} after {done} games "
            f"(edge {rec['edge_points']:.1f} points, median {rec['median_length']:g} turns)")
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
    try:
        study.optimize(objective, n_trials=n_trials)
    except KeyboardInterrupt:  # Ctrl-C: keep what was measured, write the best so far
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
    passed = sorted((r for r in finalists if r.get("confirmation", {}).get("passed")),
                    key=lambda r: r["confirmation"]["loss"])
    for old in od.glob("best-*.toml"):  # a --force rerun: no best file of an earlier run survives
        old.unlink()
    for i, rec in enumerate(passed, 1):
        rules = variant(space, rec["params"], name=f"tuned-{space.players}p-{i}")
        rec["file"] = f"best-{i}.toml"
        (od / rec["file"]).write_text(_toml_header(rec, space) + rules.to_toml(), encoding="utf-8")
    if not passed:
        say("no variant passed the confirmation: no best-N.toml is written" if finalists else
            "no variant reached the confirmation: no best-N.toml is written")
    result = {"players": space.players, "bots": list(space.bots), "seed": space.seed, "base_rules": space.rules.name,
              "goal": {"seat_edge": space.goal.seat_edge, "length": space.goal.length,
                       "ablation": space.goal.ablation, "ablation_games": space.goal.ablation_games},
              "params": [{"path": p.path, "values": p.values, "base": _base(space, p.path)} for p in space.params],
              "confirm": {"games": space.confirm, "seed": space.confirm_seed,
                          "lineups": [list(lu) for lu in space.lineups],
                          "finalists": [r["trial"] for r in finalists]},
              "sampler": "grid" if grid is not None else "tpe", "interrupted": interrupted,
              "seconds": round(time.perf_counter() - t0, 1),
              "games_played": sum(r.get("games", 0) for r in records)
              + sum(c["games"] for r in finalists for c in r.get("confirmation", {}).get("runs", [])),
              "trials": records, "best": [r["trial"] for r in passed]}
    (od / "tune.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    (od / "tune.md").write_text(render_md(result), encoding="utf-8")
    return result


def _parts_met(met: dict[str, bool]) -> bool:
    """Every part of the goal (``seat_edge_strict`` is reported, not required)."""
    return all(v for k, v in met.items() if k != "seat_edge_strict")


def _confirm(rec: dict[str, Any], space: Space, workers: int, backend: str, say: Callable[[str], None]) -> None:
    """Play a finalist's confirmation (fresh seed, every line-up; then its ablation) into
    ``rec["confirmation"]``; ``passed`` is whether it met every part of the goal in all of them."""
    rules = variant(space, rec["params"], name=f"tuned-{rec['trial']}")
    conf: dict[str, Any] = {"seed": space.confirm_seed, "runs": [], "passed": False}
    rec["confirmation"] = conf
    ok = True
    for lineup in space.lineups:
        tally = measure(rules, space, space.confirm, workers, backend, seed=space.confirm_seed, bots=lineup)
        run = {"bots": list(lineup), "loss": loss(tally, space.goal), **tally.figures()}
        run["goal"] = goal_met(run, space.goal, space.players)
        conf["runs"].append(run)
        ok = ok and _parts_met(run["goal"])
        say(f"confirming variant {rec['trial']} {_show(rec['params'])} with {', '.join(lineup)}: "
            f"{run['games']} fresh games, seats {_seats(run)}, median {run['median_length']:g} turns: "
            + ("goal met" if _parts_met(run["goal"]) else "goal NOT met"))
    conf["loss"] = conf["runs"][0]["loss"]
    if space.goal.ablation is not None:
        if not ok:
            conf["ablation"] = None  # not played: the variant failed already
        else:
            from .ablate import ablate

            say(f"ablation of variant {rec['trial']} ({space.goal.ablation_games} fresh games per ability)")
            ab = ablate(rules, space.bots, space.players, space.goal.ablation_games, space.confirm_seed,
                        workers=workers, backend=backend)
            worst = max((abs(r["seat0"]["diff"]) * 100 for r in ab["rows"]), default=0.0)
            conf["ablation_max_points"] = worst
            conf["ablation"] = [{"ability": r["ability"], "seat0_diff_points": 100 * r["seat0"]["diff"],
                                 "seat0_ci95_points": [100 * x for x in r["seat0"]["ci95"]],
                                 "seat0_p_adj": r["seat0"]["p_adj"],
                                 "length_diff": r["length"]["diff"], "length_ci95": r["length"]["ci95"]}
                                for r in ab["rows"]]
            conf["ablation_ok"] = worst <= space.goal.ablation
            ok = ok and conf["ablation_ok"]
    conf["passed"] = ok


def _base(space: Space, path: str) -> Any:
    try:
        return get_path(space.rules, path)
    except RuleSetError:
        return None


def _show(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={format_value(v)}" for k, v in params.items())


def _ci_pair(ci: list[float] | None, digits: int) -> str:
    return f" ({ci[0]:+.{digits}f} … {ci[1]:+.{digits}f})" if ci else ""


def _seats(rec: dict[str, Any]) -> str:
    return ", ".join(f"{100 * s['win_rate']:.1f}% [{100 * s['ci95'][0]:.1f}–{100 * s['ci95'][1]:.1f}]"
                     for s in rec["seats"])


def _toml_header(rec: dict[str, Any], space: Space) -> str:
    conf = rec["confirmation"]
    lines = [f"# Found by civlite tune: {_show(rec['params'])}",
             f"# {space.players} players; passed its confirmation on {space.confirm} fresh games per line-up "
             f"(seed {conf['seed']}, which the search never used):"]
    lines += [f"#   {', '.join(run['bots'])}: seat win rates (95% CI) {_seats(run)}; median length "
              f"{run['median_length']:g} turns ({_rounds(run['median_length'], space.players)} rounds)"
              for run in conf["runs"]]
    if conf.get("ablation_max_points") is not None:
        lines.append(f"#   ablation: no ability's removal moves seat 0 by more than "
                     f"{conf['ablation_max_points']:.1f} points (goal {space.goal.ablation:g})")
    lines.append(f"# (the search measured it over {rec['games']} games: {_seats(rec)}; those figures are "
                 "biased by the selection, the confirmed ones are not)")
    return "\n".join(lines) + "\n"


def _rounds(turns: float, players: int) -> str:
    return f"{turns / players:.1f}"


def render_md(res: dict[str, Any]) -> str:
    fair = 100 / res["players"]
    n = res["players"]
    conf = res["confirm"]
    lines = [f"# civlite tune: {n} players, bots {', '.join(res['bots'])}", "",
             f"Goal: every seat within {fair:.1f}% ± {res['goal']['seat_edge']} points with its 95% interval "
             f"holding {fair:.1f}%"
             + (f"; median length in {res['goal']['length']} turns" if res["goal"]["length"] else "")
             + (f"; no ability's removal moves seat 0 by more than {res['goal']['ablation']} points"
                if res["goal"]["ablation"] else "") + ".", "",
             f"Search: {res['sampler']}, {len(res['trials'])} variants; the best {len(conf['finalists'])} confirmed "
             f"on {conf['games']} fresh games (seed {conf['seed']}) under each of "
             + "; ".join(", ".join(lu) for lu in conf["lineups"])
             + f"; {res['games_played']} games in all, {res['seconds']:.0f} s. Base values: "
             + ", ".join(f"`{p['path']}` = {format_value(p['base'])}" for p in res["params"]), ""]
    best = sorted((r for r in res["trials"] if "file" in r), key=lambda r: r["file"])
    if best:
        lines += ["**Passed the confirmation** (playable rule sets, ranked by their confirmed loss): "
                  + ", ".join(f"`{r['file']}` (variant {r['trial']}: {_show(r['params'])})" for r in best), ""]
    elif res.get("interrupted") and not conf["finalists"]:
        lines += ["**Interrupted before the confirmation: no variant is written as `best-N`.**", ""]
    else:
        lines += ["**No variant passed the confirmation: none is written as `best-N`.** The search's figures "
                  "below are not evidence of fairness: they are the luckiest of many measurements.", ""]
    lines += ["## Confirmation (fresh games)", "",
              "| variant | changes | bots | games | seat win rates (95% CI) | median turns (rounds) | loss | goal |",
              "|---|---|---|---|---|---|---|---|"]
    for r in res["trials"]:
        c = r.get("confirmation")
        if not c:
            continue
        for run in c["runs"]:
            goal = ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in run["goal"].items())
            lines.append(f"| {r['trial']} | {_show(r['params'])} | {', '.join(run['bots'])} | {run['games']} | "
                         f"{_seats(run)} | {run['median_length']:g} ({_rounds(run['median_length'], n)}) | "
                         f"{run['loss']:.2f} | {goal} |")
        verdict = "passed" if c.get("passed") else "failed"
        if c.get("ablation_max_points") is not None:
            verdict += (f" (ablation: largest seat-0 change {c['ablation_max_points']:.1f} points, "
                        f"{'within' if c['ablation_ok'] else 'beyond'} the goal)")
        lines.append(f"| {r['trial']} | | **{verdict}** | | | | | |")
    lines += ["", "## Search (games the finalists were chosen on)", "",
              "| variant | changes | state | games | seat win rates (95% CI) | median turns | loss | goal |",
              "|---|---|---|---|---|---|---|---|"]
    for r in sorted(res["trials"], key=lambda r: (r["state"] != "complete", r.get("loss", 1e9))):
        goal = ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in r.get("goal", {}).items())
        lines.append(f"| {r['trial']} | {_show(r['params'])} | {r['state']} | {r.get('games', 0)} | "
                     f"{_seats(r) if 'seats' in r else ''} | {r.get('median_length', '')} | "
                     f"{r.get('loss', float('nan')):.2f} | {goal} |")
    lines += ["", "`seat_edge`: every seat within the band and its 95% interval holding the fair share; "
              "`seat_edge_strict`: every seat's whole interval inside the band (reported, not required: it "
              "takes about 10,000 games at ± 1 point)."]
    for r in res["trials"]:
        ab = (r.get("confirmation") or {}).get("ablation")
        if ab:
            lines += ["", f"Ablation of variant {r['trial']} (each ability removed, paired on the same fresh seeds; "
                      "change of the first seat's win rate in points, of mean length in turns; p adjusted by Holm "
                      "over the abilities):", "",
                      "| ability | seat 0 change (95% CI) | p (Holm) | length change (95% CI) |", "|---|---|---|---|"]
            lines += [f"| {a['ability']} | {a['seat0_diff_points']:+.1f}{_ci_pair(a.get('seat0_ci95_points'), 1)} | "
                      f"{a['seat0_p_adj']:.3g} | {a['length_diff']:+.2f}{_ci_pair(a.get('length_ci95'), 2)} |"
                      for a in sorted(ab, key=lambda a: -abs(a["seat0_diff_points"]))]
    lines.append("")
    return "\n".join(lines)
