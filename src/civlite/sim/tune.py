"""``civlite tune``: search a declared space of rule changes for a fair, well-paced variant.

The designer declares the space and the goal in TOML::

    [tune]
    players = 2
    bots = ["heuristic"]        # self-play; "ismcts:iterations=50" at a small budget works too
    trials = 12                 # variants to try
    games = 2000                # at most this many games per variant ...
    batch = 400                 # ... played in batches: after each, hopeless variants are pruned
    seed = 1
    keep = 3                    # how many best variants to write
    confirm = 4000              # second stage: those play on to this many games, then are ranked again
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
how far the median length falls outside the target range (turns). The best variants are
written as playable TOML (``best-1.toml``, ...) with ``tune.json`` and ``tune.md``.
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
from .simulator import SimConfig, run_local, run_ray, split_bots
from .stats import quantile, wilson


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
    bots: tuple[str, ...] = ("heuristic",)
    trials: int = 12
    games: int = 2000
    batch: int = 400
    seed: int = 1
    rules: RuleSet = field(default_factory=RuleSet.default)
    keep: int = 3
    confirm: int = 0  # a second stage: the best `keep` variants play on to this many games, then are re-ranked

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
    bad = sorted(set(t) - {"players", "bots", "trials", "games", "batch", "seed", "rules", "keep", "confirm"})
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
    bots = t.get("bots", ["heuristic"])
    if isinstance(bots, str):
        try:
            bots = list(split_bots(bots, strict=True))
        except ValueError as e:
            raise TuneError(f"{where}: tune.bots: {e}") from None
    if not isinstance(bots, list) or not bots or not all(isinstance(b, str) and b.strip() for b in bots):
        raise TuneError(f"{where}: tune.bots must be a list of bot specs like [\"heuristic\"]")
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
                  confirm=_num(t.get("confirm", 0), f"{where}: tune.confirm"))
    try:
        SimConfig(bots=space.bots, players=space.players, games=1, seed=space.seed, rules=rules)
    except ValueError as e:
        raise TuneError(f"{where}: {e}") from None
    return space


def variant(space: Space, params: dict[str, Any], name: str = "tuned") -> RuleSet:
    """The base rule set with ``params`` (path -> value) applied."""
    rules = space.rules
    for path, v in params.items():
        rules = set_path(rules, path, v)
    return RuleSet.from_dict({**rules.to_dict(), "name": name})


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
            seed: int | None = None) -> Tally:
    """Play ``games`` games of ``rules`` (indices from ``start``) and tally them."""
    cfg = SimConfig(bots=space.bots, players=space.players, games=start + games,
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
    tallies: dict[int, Tally] = {}
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
        tally = tallies[trial.number] = Tally(space.players)
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
    if space.confirm > space.games and not interrupted:
        # racing: a few variants measured well beat many measured roughly; the finalists play on
        # (the next game numbers, same seed) and are ranked again on all their games
        for rec in done[:space.keep]:
            rules = variant(space, rec["params"], name=f"tuned-{rec['trial']}")
            cfg = SimConfig(bots=space.bots, players=space.players, games=space.confirm, seed=space.seed, rules=rules)
            tally = tallies[rec["trial"]]
            try:
                for st in play_batch(cfg, list(range(tally.games, space.confirm)), workers, backend):
                    tally.add(st)
            except KeyboardInterrupt:
                say("interrupted during the second stage: ranking on the games played")
                break
            rec["search_loss"] = rec["loss"]
            rec.update(loss=loss(tally, space.goal), **tally.figures())
            rec["goal"] = goal_met(rec, space.goal, space.players)
            say(f"finalist variant {rec['trial']} {_show(rec['params'])}: loss {rec['loss']:.2f} after "
                f"{rec['games']} games (edge {rec['edge_points']:.1f} points)")
        done.sort(key=lambda r: r["loss"])
    best = done[:space.keep]
    for i, rec in enumerate(best, 1):
        rules = variant(space, rec["params"], name=f"tuned-{space.players}p-{i}")
        if space.goal.ablation is not None and i == 1:  # the costly check: the best variant only
            say(f"ablation of best variant {i} ({space.goal.ablation_games} games per ability)")
            from .ablate import ablate

            ab = ablate(rules, space.bots, space.players, space.goal.ablation_games, space.seed, workers=workers,
                        backend=backend)
            worst = max((abs(r["seat0"]["diff"]) * 100 for r in ab["rows"]), default=0.0)
            rec["ablation_max_points"] = worst
            rec["ablation"] = [{"ability": r["ability"], "seat0_diff_points": 100 * r["seat0"]["diff"],
                                "seat0_ci95_points": [100 * x for x in r["seat0"]["ci95"]],
                                "length_diff": r["length"]["diff"], "length_ci95": r["length"]["ci95"]}
                               for r in ab["rows"]]
            rec["goal"]["ablation"] = worst <= space.goal.ablation
        rec["file"] = f"best-{i}.toml"
        (od / rec["file"]).write_text(_toml_header(rec, space) + rules.to_toml(), encoding="utf-8")
    result = {"players": space.players, "bots": list(space.bots), "seed": space.seed, "base_rules": space.rules.name,
              "goal": {"seat_edge": space.goal.seat_edge, "length": space.goal.length,
                       "ablation": space.goal.ablation},
              "params": [{"path": p.path, "values": p.values, "base": _base(space, p.path)} for p in space.params],
              "confirm": space.confirm,
              "sampler": "grid" if grid is not None else "tpe", "interrupted": interrupted, "seconds": round(time.perf_counter() - t0, 1),
              "games_played": sum(r.get("games", 0) for r in records), "trials": records,
              "best": [r["trial"] for r in best]}
    (od / "tune.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    (od / "tune.md").write_text(render_md(result), encoding="utf-8")
    return result


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
    return (f"# Found by civlite tune: {_show(rec['params'])}\n"
            f"# measured over {rec['games']} games, {space.players} players, bots {', '.join(space.bots)}:\n"
            f"# seat win rates (95% CI) {_seats(rec)}; median length {rec['median_length']:g} turns\n")


def render_md(res: dict[str, Any]) -> str:
    fair = 100 / res["players"]
    lines = [f"# civlite tune: {res['players']} players, bots {', '.join(res['bots'])}", "",
             f"Goal: every seat within {fair:.1f}% ± {res['goal']['seat_edge']} points with its 95% interval "
             f"holding {fair:.1f}%"
             + (f"; median length in {res['goal']['length']} turns" if res["goal"]["length"] else "")
             + (f"; no ability's removal moves seat 0 by more than {res['goal']['ablation']} points"
                if res["goal"]["ablation"] else "") + ".", "",
             f"Search: {res['sampler']}, {len(res['trials'])} variants"
             + (f", the best played on to {res['confirm']} games and ranked again" if res.get("confirm") else "")
             + f"; {res['games_played']} games, "
             f"{res['seconds']:.0f} s. Base values: "
             + ", ".join(f"`{p['path']}` = {format_value(p['base'])}" for p in res["params"]), "",
             "| variant | changes | state | games | seat win rates (95% CI) | median turns | loss | goal |",
             "|---|---|---|---|---|---|---|---|"]
    for r in sorted(res["trials"], key=lambda r: (r["state"] != "complete", r.get("loss", 1e9))):
        goal = ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in r.get("goal", {}).items())
        lines.append(f"| {r['trial']} | {_show(r['params'])} | {r['state']} | {r.get('games', 0)} | "
                     f"{_seats(r) if 'seats' in r else ''} | {r.get('median_length', '')} | "
                     f"{r.get('loss', float('nan')):.2f} | {goal} |")
    best = sorted((r for r in res["trials"] if "file" in r), key=lambda r: r["file"])
    lines += ["", "Best variants (playable rule sets): "
              + ", ".join(f"`{r['file']}` (variant {r['trial']})" for r in best), "",
              "`seat_edge`: every seat within the band and its 95% interval holding the fair share; "
              "`seat_edge_strict`: every seat's whole interval inside the band (takes about 10,000 games "
              "at ± 1 point)."]
    for r in best:
        if "ablation" in r:
            lines += ["", f"Ablation of `{r['file']}` (each ability removed; change of the first seat's win rate "
                      "in points, of mean length in turns):", "",
                      "| ability | seat 0 change (95% CI) | length change (95% CI) |", "|---|---|---|"]
            lines += [f"| {a['ability']} | {a['seat0_diff_points']:+.1f}{_ci_pair(a.get('seat0_ci95_points'), 1)} | "
                      f"{a['length_diff']:+.2f}{_ci_pair(a.get('length_ci95'), 2)} |"
                      for a in sorted(r["ablation"], key=lambda a: -abs(a["seat0_diff_points"]))]
    lines.append("")
    return "\n".join(lines)
