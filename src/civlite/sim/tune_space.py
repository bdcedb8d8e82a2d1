"""The tuner's space file: what may change (``[[param]]``), the goal (``[goal]``) and how to
search (``[tune]``), checked whole before a game is played (see :mod:`civlite.sim.tune`)."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine import RuleSet, RuleSetError
from .paths import did_you_mean, format_value, set_path
from .simulator import SimConfig, derive_seed, split_bots
from .stats import confirm_games

#: the tuner's default line-up: the strongest bot that plays a game in milliseconds (civlite.bots.LEVELS "hard")
DEFAULT_BOT = "expert"
TUNE_KEYS = ("players", "bots", "trials", "games", "batch", "seed", "rules", "keep", "confirm", "confirm_bots")
GOAL_KEYS = ("seat_edge", "length", "ablation", "ablation_games")
PARAM_KEYS = ("path", "choices", "low", "high", "step")


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
    #: the table sizes a variant is played at; its loss is that of the worst of them
    players: tuple[int, ...] = (2,)
    bots: tuple[str, ...] = (DEFAULT_BOT,)
    trials: int = 12
    games: int = 2000
    batch: int = 400
    seed: int = 1
    rules: RuleSet = field(default_factory=RuleSet.default)
    keep: int = 3
    #: fresh games per confirming cell (table size and line-up); None: sized by the power calculation
    confirm: int | None = None
    #: the other line-ups (skill levels) a variant must also pass; each a bot spec list, self-play if one
    confirm_bots: tuple[tuple[str, ...], ...] = ()

    @property
    def confirm_seed(self) -> int:
        """The seed of the confirmation games: derived from ``seed``, never one the search played."""
        return derive_seed(self.seed, 0, "tune-confirm")

    def confirm_games(self, players: int) -> int:
        """Fresh games per confirming run at ``players``: ``confirm`` if the file gives it, else
        what the goal needs (:func:`civlite.sim.stats.confirm_games`: each seat's interval half as
        wide as the band)."""
        return self.confirm if self.confirm is not None else self.needed_games(players)

    def needed_games(self, players: int) -> int:
        """The power calculation: games to resolve ``seat_edge`` at ``players``."""
        return confirm_games(self.goal.seat_edge, players)

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


def _unknown(where: str, table: str, key: str, known: tuple[str, ...]) -> TuneError:
    return TuneError(f"{where}: unknown key {table}.{key}{did_you_mean(key, known)}; the keys are {', '.join(known)}")


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


def _players(v: Any, where: str) -> tuple[int, ...]:
    counts = v if isinstance(v, list) else [v]
    if not counts:
        raise TuneError(f"{where}: tune.players must be a player count or a list of them, e.g. [2, 3, 4, 6]")
    out = tuple(_num(n, f"{where}: tune.players", 2) for n in counts)
    if any(n > 8 for n in out):
        raise TuneError(f"{where}: tune.players must be 2 to 8, got {v!r}")
    if len(set(out)) != len(out):
        raise TuneError(f"{where}: tune.players names a count twice: {v!r}")
    return out


def space_from_dict(data: dict[str, Any], base_dir: Path | None = None, overrides: dict[str, Any] | None = None,
                    where: str = "space") -> Space:
    unknown = sorted(set(data) - {"tune", "goal", "param"})
    if unknown:
        raise TuneError(f"{where}: unknown table {unknown[0]!r}{did_you_mean(unknown[0], ('tune', 'goal', 'param'))}; "
                        "expected [tune], [goal] and [[param]]")
    t = dict(data.get("tune", {}))
    t.update({k: v for k, v in (overrides or {}).items() if v is not None})
    bad = sorted(set(t) - set(TUNE_KEYS))
    if bad:
        raise _unknown(where, "tune", bad[0], TUNE_KEYS)
    rules = RuleSet.default()
    if "rules" in t:
        rp = Path(t["rules"])
        if base_dir is not None and not rp.is_absolute() and (base_dir / rp).exists():
            rp = base_dir / rp  # a file beside the search's file; otherwise a built-in name (or the path as given)
        try:
            rules = RuleSet.load(rp)
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
    bad = sorted(set(g) - set(GOAL_KEYS))
    if bad:
        raise _unknown(where, "goal", bad[0], GOAL_KEYS)
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
    params = _params(data.get("param", []), rules, where)
    space = Space(params=tuple(params), goal=goal, players=_players(t.get("players", 2), where),
                  bots=tuple(bots), trials=_num(t.get("trials", 12), f"{where}: tune.trials", 1),
                  games=_num(t.get("games", 2000), f"{where}: tune.games", 1),
                  batch=_num(t.get("batch", 400), f"{where}: tune.batch", 1),
                  seed=_num(t.get("seed", 1), f"{where}: tune.seed"), rules=rules,
                  keep=_num(t.get("keep", 3), f"{where}: tune.keep", 1),
                  confirm=_confirm_games(t.get("confirm", "auto"), where), confirm_bots=confirm_bots)
    for lineup in space.lineups:
        for n in space.players:
            try:
                SimConfig(bots=lineup, players=n, games=1, seed=space.seed, rules=rules)
            except ValueError as e:
                raise TuneError(f"{where}: {e}") from None
    return space


def _params(raw: Any, rules: RuleSet, where: str) -> list[Param]:
    if not isinstance(raw, list) or not raw:
        raise TuneError(f"{where}: declare at least one [[param]] with a path and choices (or low/high)")
    params = []
    for i, q in enumerate(raw):
        w = f"{where}: param[{i}]"
        if not isinstance(q, dict) or not isinstance(q.get("path"), str):
            raise TuneError(f"{w}: needs a rule path, e.g. path = \"start_ct\"")
        bad = sorted(set(q) - set(PARAM_KEYS))
        if bad:
            raise TuneError(f"{w}: unknown key {bad[0]!r}{did_you_mean(bad[0], PARAM_KEYS)}; "
                            "expected path, choices or low/high/step")
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
    return params


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


def _confirm_games(v: Any, where: str) -> int | None:
    if v == "auto":
        return None
    if isinstance(v, int) and not isinstance(v, bool) and v == 0:
        raise TuneError(f"{where}: tune.confirm must be at least 1: the tuner writes only variants that passed "
                        "a confirmation on fresh games")
    if isinstance(v, str):
        raise TuneError(f"{where}: tune.confirm must be \"auto\" (sized by the goal) or a number of games, got {v!r}")
    return _num(v, f"{where}: tune.confirm", 1)


def variant(space: Space, params: dict[str, Any], name: str = "tuned") -> RuleSet:
    """The base rule set with ``params`` (path -> value) applied."""
    rules = space.rules
    for path, v in params.items():
        rules = set_path(rules, path, v)
    return RuleSet.from_dict({**rules.to_dict(), "name": name})


def variant_warnings(space: Space, most: int = 50) -> list[tuple[str, tuple[str, ...]]]:
    """The design warnings (``RuleSet.design_warnings``) of the space's variants that the base
    rules do not already have, at any of the space's table sizes: ``(changes, warnings)`` for each
    such variant (grid spaces are checked whole; other spaces at each parameter's values, one at a
    time)."""
    combos = space.grid or [{p.path: v} for p in space.params for v in p.values]
    out = []
    for params in combos[:most]:
        rules = variant(space, params)
        w: list[str] = []
        for n in space.players:
            base = set(space.rules.design_warnings(n))
            w += [x for x in rules.design_warnings(n) if x not in base and x not in w]
        if w:
            out.append((show(params), tuple(w)))
    return out


def show(params: dict[str, Any]) -> str:
    """A variant's changes: ``start_ct=[0,1], victory_ct=20``."""
    return ", ".join(f"{k}={format_value(v)}" for k, v in params.items())
