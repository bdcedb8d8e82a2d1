"""Measuring a variant: a tally of its games, the tuner's loss, whether more games can still
make it fair, and which parts of the goal it meets."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine import RuleSet
from .simulator import SimConfig, run_local, run_ray
from .stats import quantile, wilson
from .tune_space import Goal, Space


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
    """Which parts of the goal a variant's measured figures meet: ``seat_edge`` (every seat within
    the band and its interval holding the fair share: what the search ranks by), ``seat_edge_strict``
    (every seat's whole 95% interval inside the band: what a confirmation requires), ``length``."""
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
            seed: int | None = None, bots: tuple[str, ...] | None = None, players: int | None = None) -> Tally:
    """Play ``games`` games of ``rules`` at ``players`` (the space's first table size unless given;
    indices from ``start``; the search's line-up unless ``bots``) and tally them."""
    n = players or space.players[0]
    cfg = SimConfig(bots=bots or space.bots, players=n, games=start + games,
                    seed=space.seed if seed is None else seed, rules=rules)
    t = Tally(n)
    for st in play_batch(cfg, list(range(start, start + games)), workers, backend):
        t.add(st)
    return t

