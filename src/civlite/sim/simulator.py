"""Many games between bots, in parallel, reproducibly.

Game ``i`` of a run depends only on ``(seed, i)``, the bot specs and the rule set:
its game seed and its bots' seeds are derived from them, and its line-up is the
base line-up rotated by ``i`` seats, so every bot plays every seat equally (over
a multiple of the player count). Results are written in game order, so the
output is identical whatever the number of workers or the back end.

Output directory:

* ``games.jsonl``: one line per game: the engine's record (``GameRecord.from_json``
  reads it as is, ``.replay()`` replays it) plus ``index``, ``bots`` (the spec
  playing each seat) and ``stats`` (turns, CT at the start of each turn, abilities
  activated per seat, melds with their turn);
* ``summary.json``: the keys of :data:`SUMMARY_KEYS`.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from ..bots import Bot, make_bot, play_step
from ..engine import Game, GameRecord, RuleSet
from .stats import quantile, tally_abilities

SUMMARY_KEYS = ("games", "players", "bots", "wins", "draws", "seat_wins", "turns", "abilities",
                "melds_per_game", "seed", "rules")


@dataclass(frozen=True)
class SimConfig:
    """One simulation: ``bots`` is the base line-up (padded with its last spec to ``players``)."""

    bots: tuple[str, ...]
    players: int = 2
    games: int = 100
    seed: int = 1
    rules: RuleSet = field(default_factory=RuleSet.default)
    #: ``(ability path, "only" | "denied")``: in game ``i`` the *focus* seat ``i % players`` is the
    #: only seat that may use the ability (``only``), or the only one that may not (``denied``); a
    #: seat that may not never sees the ability among its legal choices (ablation's strength mode)
    restrict: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if self.restrict is not None:
            banned_ids(self.rules, self.restrict[0])  # raises ValueError naming a bad path
            if self.restrict[1] not in ("only", "denied"):
                raise ValueError(f"restrict: 'only' or 'denied', got {self.restrict[1]!r}")
        if not self.bots:
            raise ValueError("give at least one bot spec")
        if len(self.bots) > self.players:
            raise ValueError(f"{len(self.bots)} bots for {self.players} players")
        if self.games < 1:
            raise ValueError(f"games must be >= 1, got {self.games}")
        if not self.rules.min_players <= self.players <= self.rules.max_players:
            raise ValueError(f"{self.players} players: the rule set plays "
                             f"{self.rules.min_players} to {self.rules.max_players}")
        for spec in set(self.bots):
            make_bot(spec, seed=0)  # raises ValueError naming a bad spec

    @property
    def slow(self) -> bool:
        """Whether a bot of the line-up searches (seconds per game, not milliseconds)."""
        return any(make_bot(spec, seed=0).slow for spec in set(self.bots))

    @property
    def lineup(self) -> tuple[str, ...]:
        return self.bots + (self.bots[-1],) * (self.players - len(self.bots))

    def seats(self, index: int) -> list[str]:
        """The spec playing each seat in game ``index`` (line-up rotated by ``index``)."""
        lu = self.lineup
        n = self.players
        return [lu[(s - index) % n] for s in range(n)]

    def to_json(self) -> dict[str, Any]:
        out = {"bots": list(self.bots), "players": self.players, "games": self.games,
               "seed": self.seed, "rules": self.rules.to_dict()}
        if self.restrict is not None:
            out["restrict"] = list(self.restrict)
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SimConfig:
        r = d.get("restrict")
        return cls(bots=tuple(d["bots"]), players=int(d["players"]), games=int(d["games"]),
                   seed=int(d["seed"]), rules=RuleSet.from_dict(d["rules"]),
                   restrict=(str(r[0]), str(r[1])) if r else None)


def banned_ids(rules: RuleSet, path: str) -> frozenset[int]:
    """The compact ids that activate the ability at ``path`` (``basic.W``, ``advanced.M``)."""
    from ..engine import Suit
    from ..engine.codec import ability_id

    tier, _, letter = path.partition(".")
    try:
        suit = Suit.parse(letter)
    except ValueError:
        raise ValueError(f"restrict: {path!r} is not an ability path like basic.W") from None
    table = rules.basic if tier == "basic" else rules.advanced if tier == "advanced" else None
    if table is None or table[suit] is None:
        raise ValueError(f"restrict: the rule set has no ability {path!r}")
    return frozenset(ability_id(tier == "advanced", suit, off) for off in range(8))


class Restricted(Bot):
    """A bot that may not use some abilities: their ids are taken out of its legal choices
    (passing stays legal, so a choice always remains)."""

    def __init__(self, bot: Bot, banned: frozenset[int]) -> None:
        self.bot = bot
        self.banned = banned
        self.slow = bot.slow

    def act(self, view: Any, legal: Sequence[int]) -> int:
        allowed = [a for a in legal if a not in self.banned]
        return self.bot.act(view, allowed or legal)

    @property
    def spec(self) -> str:
        return self.bot.spec


def split_bots(text: str, strict: bool = False) -> tuple[str, ...]:
    """``"ismcts:iterations=200,depth=4,heuristic"`` -> ``("ismcts:iterations=200,depth=4", "heuristic")``.

    Commas separate bots, but a ``key=value`` piece after a comma continues the
    previous bot's options (bot names never hold ``=``). ``strict`` refuses an empty
    piece (``"a,,b"``, a trailing comma) instead of skipping it.
    """
    out: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            if strict:
                raise ValueError(f"--bots {text!r}: an empty bot spec (two commas in a row, or a comma at an end)")
            continue
        if "=" in part and ":" not in part and out:
            out[-1] += "," + part
        else:
            out.append(part)
    return tuple(out)


def derive_seed(seed: int, index: int, salt: str = "game") -> int:
    """A 63-bit seed from ``(seed, index)``: stable across runs, processes and machines."""
    return random.Random(f"civlite-sim:{salt}:{seed}:{index}").getrandbits(63)


def play_game(cfg: SimConfig, index: int) -> dict[str, Any]:
    """Play game ``index`` of ``cfg``; return its JSON line (record + bots + stats)."""
    specs = cfg.seats(index)
    bots = [make_bot(spec, seed=derive_seed(cfg.seed, index, f"bot{s}")) for s, spec in enumerate(specs)]
    n = cfg.players
    focus = index % n
    if cfg.restrict is not None:
        banned = banned_ids(cfg.rules, cfg.restrict[0])
        only = cfg.restrict[1] == "only"
        bots = [Restricted(b, banned) if (s != focus if only else s == focus) else b for s, b in enumerate(bots)]
    game = Game(players=cfg.players, seed=derive_seed(cfg.seed, index), rules=cfg.rules)
    ct_by_turn: list[list[int]] = [list(game.ct)]
    abilities: list[list[str]] = [[] for _ in range(n)]
    melds: list[list[int]] = []  # [seat, turn]
    while not game.over:
        seat = game.to_move
        assert seat is not None
        for e in play_step(bots[seat], game):
            k = e.kind
            if k == "turn":
                ct_by_turn.append(list(game.ct))
            elif k == "activate":
                abilities[e.player].append(e.ability)
            elif k == "meld":
                melds.append([e.player, game.turn])
    ct_by_turn.append(list(game.ct))  # the final CT
    line: dict[str, Any] = GameRecord.of(game).to_json()
    line["index"] = index
    line["bots"] = specs
    outcome = game.outcome()
    assert outcome is not None
    line["stats"] = {"turns": game.turn, "winner": outcome.winner, "drawn": list(outcome.drawn),
                     "termination": outcome.reason,
                     "ct": ct_by_turn, "abilities": abilities, "melds": melds}
    if cfg.restrict is not None:
        line["stats"]["focus"] = focus
    return line


def play_chunk(cfg_json: dict[str, Any], indices: Sequence[int]) -> list[dict[str, Any]]:
    """Play some games; each comes back light (index, bots, stats) with its whole line as JSON text."""
    cfg = SimConfig.from_json(cfg_json)
    out = []
    for i in indices:
        line = play_game(cfg, i)
        out.append({"index": i, "bots": line["bots"], "stats": line["stats"],
                    "json": json.dumps(line, separators=(",", ":"))})
    return out


def _chunks(indices: Sequence[int], size: int) -> list[list[int]]:
    return [list(indices[a:a + size]) for a in range(0, len(indices), size)]


def _chunk_size(games: int, workers: int, slow: bool = False) -> int:
    if workers <= 1 or slow:
        return 1  # in-process, or seconds per game: each finished game is kept (and on disk) at once
    return max(1, min(25, games // (workers * 8)))


def _init_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler: terminate() ends a worker quietly


def _pool_chunk(args: tuple[dict[str, Any], list[int]]) -> list[dict[str, Any]]:
    return play_chunk(*args)


def _plan(cfg: SimConfig, workers: int, indices: Sequence[int] | None) -> list[list[int]]:
    """The chunks of game indices (all games, or ``indices``) to hand out to ``workers``."""
    todo = list(range(cfg.games)) if indices is None else list(indices)
    return _chunks(todo, _chunk_size(len(todo), workers, cfg.slow))


def run_local(cfg: SimConfig, workers: int, indices: Sequence[int] | None = None) -> Iterator[list[dict[str, Any]]]:
    """Finished chunks of game lines (all games, or ``indices``), in completion order (multiprocessing)."""
    chunks = _plan(cfg, workers, indices)
    cj = cfg.to_json()
    if workers <= 1:
        for ch in chunks:
            yield play_chunk(cj, ch)
        return
    import multiprocessing as mp

    ctx = mp.get_context("fork") if hasattr(os, "fork") else mp.get_context()
    pool = ctx.Pool(workers, initializer=_init_worker)
    try:
        yield from pool.imap_unordered(_pool_chunk, [(cj, ch) for ch in chunks])
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def run_ray(cfg: SimConfig, workers: int, address: str | None = None,
            indices: Sequence[int] | None = None) -> Iterator[list[dict[str, Any]]]:
    """The same chunks on a Ray cluster (``ray.init()`` local unless ``address``)."""
    chunks = _plan(cfg, workers or 2, indices)
    try:
        import ray
    except ImportError:
        raise RuntimeError("the ray back end needs Ray: pip install 'civlite[sim]' (or pip install ray)") from None
    started = False
    if not ray.is_initialized():
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address:
            kwargs["address"] = address
        elif workers:
            kwargs["num_cpus"] = workers
        ray.init(**kwargs)
        started = True
    try:
        remote = ray.remote(play_chunk)
        cj = cfg.to_json()
        pending = [remote.remote(cj, ch) for ch in chunks]
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    yield ray.get(ref)
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
    finally:
        if started:
            ray.shutdown()


@dataclass
class SimResult:
    """``lines`` are light (index, bots, stats); the full records are in the run's games.jsonl."""

    config: SimConfig
    lines: list[dict[str, Any]]
    interrupted: bool
    seconds: float
    summary: dict[str, Any]
    resumed: int = 0  # games found in the run directory (resume), not played now


def simulate(
    cfg: SimConfig,
    out: str | Path | None = None,
    workers: int | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    progress: bool | Callable[[int, int], None] = False,
    resume: bool = False,
) -> SimResult:
    """Run ``cfg``; write ``games.jsonl`` and ``summary.json`` into ``out`` (if given).

    Ctrl-C (KeyboardInterrupt) or SIGTERM stops the run; the games finished so far
    are kept, written and summarised (``interrupted`` is then True). While the run
    goes, each finished game is appended to ``games.partial.jsonl``, so not even a
    killed run loses them: ``resume=True`` plays only the games ``out`` lacks (from
    either file), after checking that its ``run.json`` is this configuration (the
    number of games may differ: a run can be extended).
    """
    if backend not in ("local", "ray"):
        raise ValueError(f"unknown backend {backend!r}: local or ray")
    lines: list[dict[str, Any]] = []
    texts: dict[int, str] = {}
    partial: Any = None
    if out is not None:
        d = Path(out)
        if resume:
            held = _finished_games(d, replace(cfg, games=_MANY))
            if held:  # a resumed run never shrinks: --games below what it holds keeps them all
                cfg = replace(cfg, games=max(cfg.games, 1 + max(e["index"] for e in held)))
            for entry in held:
                if entry["index"] not in texts:
                    texts[entry["index"]] = entry.pop("json")
                    lines.append(entry)
        else:
            (d / "games.partial.jsonl").unlink(missing_ok=True)
        d.mkdir(parents=True, exist_ok=True)
        (d / "run.json").write_text(json.dumps(cfg.to_json()) + "\n", encoding="utf-8")
        partial = (d / "games.partial.jsonl").open("a", encoding="utf-8")
    elif resume:
        raise ValueError("resume needs the run's output directory")
    todo = [i for i in range(cfg.games) if i not in texts]
    workers = workers if workers and workers > 0 else (os.cpu_count() or 1)
    workers = max(1, min(workers, len(todo)))
    stream = run_local(cfg, workers, todo) if backend == "local" else run_ray(cfg, workers, ray_address, todo)
    interrupted = False
    old_term = _term_as_interrupt()
    t0 = time.perf_counter()
    bar: Any = None
    task: Any = None
    callback: Callable[[int, int], None] | None = progress if callable(progress) else None
    if progress is True:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        bar = Progress(
            TextColumn("[bold]sim[/]"), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
            TextColumn("{task.fields[rate]:>7.1f} games/s"), TimeElapsedColumn(), TextColumn("ETA"),
            TimeRemainingColumn(), console=Console(stderr=True), transient=False,
        )
        bar.start()
        task = bar.add_task("sim", total=cfg.games, completed=len(lines), rate=0.0)
    before = len(lines)
    try:
        for chunk in stream:
            for entry in chunk:
                text = texts[entry["index"]] = entry.pop("json")
                lines.append(entry)
                if partial is not None:
                    partial.write(text + "\n")
            if partial is not None:
                partial.flush()
            if bar is not None:
                el = time.perf_counter() - t0
                bar.update(task, completed=len(lines), rate=(len(lines) - before) / el if el > 0 else 0.0)
            if callback is not None:
                callback(len(lines), cfg.games)
    except KeyboardInterrupt:
        interrupted = True
        close = getattr(stream, "close", None)
        if close is not None:
            try:
                close()
            except Exception:
                pass
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
        if bar is not None:
            bar.stop()
        if partial is not None:
            partial.close()
    seconds = time.perf_counter() - t0
    lines.sort(key=lambda d: d["index"])
    summary = summarize(cfg, lines)
    if out is not None:
        write_run(out, [texts[ln["index"]] for ln in lines], summary)
        (Path(out) / "games.partial.jsonl").unlink(missing_ok=True)
    return SimResult(cfg, lines, interrupted, seconds, summary, before)


_MANY = 1 << 40  # "any number of games": to read every game a run directory holds


def _term_as_interrupt() -> Any:
    """Make SIGTERM stop a run like Ctrl-C (main thread only); return the old handler."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, handler)


def _finished_games(d: Path, cfg: SimConfig) -> list[dict[str, Any]]:
    """The games already in run directory ``d`` (light entries with their JSON text), checked
    to belong to ``cfg``; games beyond ``cfg.games`` are left out."""
    rj = d / "run.json"
    if not rj.exists():
        sj = d / "summary.json"
        if not sj.exists() and not (d / "games.partial.jsonl").exists():
            return []  # nothing run there yet: the whole run is to play
        if not sj.exists():
            raise ValueError(f"{d}: no run.json to check the configuration against")
        s = json.loads(sj.read_text(encoding="utf-8"))  # a run written before run.json existed
        old = {"bots": s["bots"], "players": s["players"], "seed": s["seed"], "rules": s["rules"]}
    else:
        old = json.loads(rj.read_text(encoding="utf-8"))
    new = json.loads(json.dumps(cfg.to_json()))  # as it reads back from run.json
    try:
        old_players = int(old["players"])
        old_bots = [str(b) for b in old["bots"]]
        old_lineup = old_bots + old_bots[-1:] * (old_players - len(old_bots))
    except (KeyError, TypeError, ValueError, IndexError):
        raise ValueError(f"{d}: its run.json or summary.json does not describe a run") from None
    for key, theirs, mine in (("line-up", old_lineup, list(cfg.lineup)), ("players", old_players, cfg.players),
                              ("seed", old.get("seed"), cfg.seed), ("rules", old.get("rules"), new["rules"])):
        if theirs != mine:
            if key == "rules":
                raise ValueError(f"{d} holds a run with a different rule set; resume with the same rules "
                                 "(or use another --out)")
            raise ValueError(f"{d} holds a different run: its {key} is {theirs!r}, not {mine!r}; "
                             "resume with the same bots, players, seed and rules (or use another --out)")
    out: list[dict[str, Any]] = []
    for name in ("games.jsonl", "games.jsonl.gz", "games.partial.jsonl"):
        p = d / name
        if not p.exists():
            continue
        with _open_text(p) as f:
            for raw in f:
                raw = raw.strip()
                if not raw:
                    continue
                try:
                    line = json.loads(raw)
                except json.JSONDecodeError:
                    continue  # a line cut short by a kill: that game is played again
                i = line.get("index")
                if isinstance(i, int) and 0 <= i < cfg.games and line.get("bots") == cfg.seats(i):
                    out.append({"index": i, "bots": line["bots"], "stats": line["stats"], "json": raw})
    return out


def write_run(out: str | Path, texts: Sequence[str], summary: dict[str, Any]) -> None:
    """Write a run directory: the game lines (JSON text, in game order) and the summary."""
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    with (d / "games.jsonl").open("w", encoding="utf-8") as f:
        for text in texts:
            f.write(text)
            f.write("\n")
    (d / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")


def summarize(cfg: SimConfig, lines: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``summary.json`` of finished games (only the keys of :data:`SUMMARY_KEYS`).

    ``abilities[name].used`` counts activations; ``win_rate_when_used`` is the share
    of (game, seat) pairs that activated it at least once and won that game.
    """
    n = cfg.players
    wins: dict[str, int] = {spec: 0 for spec in dict.fromkeys(cfg.lineup)}
    seat_wins = [0] * n
    draws = 0
    turns = []
    melds = 0
    used, users, user_wins = tally_abilities(lines, (a.name for a in cfg.rules.abilities))
    for line in lines:
        st = line["stats"]
        w = st["winner"]
        if w is None:
            draws += 1
        else:
            wins[line["bots"][w]] = wins.get(line["bots"][w], 0) + 1
            seat_wins[w] += 1
        turns.append(st["turns"])
        melds += len(st["melds"])
    turns.sort()
    g = len(lines)
    return {
        "games": g,
        "players": n,
        "bots": list(cfg.lineup),
        "wins": wins,
        "draws": draws,
        "seat_wins": seat_wins,
        "turns": {"mean": round(sum(turns) / g, 3) if g else 0.0,
                  "p50": quantile(turns, 0.5), "p90": quantile(turns, 0.9)},
        "abilities": {name: {"used": used[name],
                             "win_rate_when_used": round(user_wins[name] / users[name], 4) if users[name] else None}
                      for name in used},
        "melds_per_game": round(melds / g, 4) if g else 0.0,
        "seed": cfg.seed,
        "rules": cfg.rules.to_dict(),
    }


def load_run(path: str | Path, light: bool = False) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``(summary, game lines)`` of a run directory (``games.jsonl``, or ``games.jsonl.gz`` if that
    is all there is); ``light`` keeps only index, bots and stats."""
    d = Path(path)
    summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
    lines = []
    gp = d / "games.jsonl"
    gz = d / "games.jsonl.gz"
    if gp.exists() or gz.exists():
        with _open_text(gp if gp.exists() else gz) as f:
            for x in f:
                if not x.strip():
                    continue
                line = json.loads(x)
                if light:
                    line = {"index": line.get("index"), "bots": line["bots"], "stats": line["stats"]}
                lines.append(line)
    return summary, lines


def _open_text(p: Path) -> IO[str]:
    """A run's JSON-lines file for reading, gzipped (``.gz``) or not."""
    return gzip.open(p, "rt", encoding="utf-8") if p.suffix == ".gz" else p.open(encoding="utf-8")
