"""Reviewing a finished game's record for one seat: every decision of that seat rated.

:func:`review_record` replays the record, and at each decision of the seat rates the options
from that seat's view at that moment (:func:`~civlite.review.rating.rate_view`), then compares
the action it chose. Decisions are independent, so they are rated in worker processes (at
most ``workers``, each holding one decision's search at a time: memory stays bounded); the
result does not depend on how many run, since each decision's search has a seed of its own
(from the review's ``seed`` and the decision's number).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..engine import Action, Game, GameRecord, RecordError, View
from .rating import DEFAULT_BUDGET, MARKS, RatedDecision, Rating, ReviewError, check_budget, rate_view, steps_of

#: a decision with a single legal option gets this share of the budget (its estimate only
#: draws the win-probability graph)
FORCED_SHARE: Final = 8
#: the most worker processes a review starts
MAX_WORKERS: Final = 8

Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class GameReview:
    """Every decision of ``seat`` rated, and the seat's win probability after each."""

    seat: int
    players: tuple[str, ...]
    budget: int
    seed: int
    decisions: tuple[RatedDecision, ...]
    winner: int | None

    @property
    def win(self) -> list[float]:
        """The seat's estimated chance of winning after each of its decisions (the estimate of
        the option it chose)."""
        return [d.chosen_win for d in self.decisions]

    def counts(self) -> dict[str, int]:
        """How many decisions got each mark (decisions with one option left out)."""
        out = dict.fromkeys(MARKS, 0)
        for d in self.decisions:
            if not d.forced:
                out[d.mark] += 1
        return out

    def to_json(self) -> dict[str, Any]:
        """``{"seat", "decisions": [...], "win": [...]}`` (the shape ``civlite review --json``
        prints), with the budget and seed it was computed with."""
        return {
            "seat": self.seat,
            "decisions": [d.to_json() for d in self.decisions],
            "win": [round(w, 4) for w in self.win],
            "budget": self.budget,
            "seed": self.seed,
        }


@dataclass(frozen=True, slots=True)
class _Task:
    index: int
    view: View
    chosen: Action
    steps: tuple[int, ...]
    budget: int
    seed: int
    forced: bool


def decision_seed(seed: int, index: int) -> int:
    """The search seed of decision ``index`` in a review seeded ``seed``."""
    return (seed * 1_000_003 + index) & 0xFFFF_FFFF


def _tasks(record: GameRecord, seat: int, budget: int, seed: int) -> list[_Task]:
    try:
        game = record.initial()
    except (ValueError, KeyError, TypeError) as e:
        raise ReviewError(f"the record does not replay: {e}") from None
    tasks: list[_Task] = []
    for i, action in enumerate(record.actions):
        if game.to_move == seat:
            legal = game.legal_ids()
            forced = len(legal) == 1 and not game.is_discard_decision
            try:
                steps = steps_of(action, game)
            except ValueError as e:
                raise ReviewError(f"action {i} ({action.to_json()}) does not replay: {e}") from None
            tasks.append(_Task(i, game.view(seat), action, steps,
                               max(1, budget // FORCED_SHARE) if forced else budget,
                               decision_seed(seed, i), forced))
        try:
            game.apply(action)
        except ValueError as e:
            raise ReviewError(f"action {i} ({action.to_json()}) does not replay: {e}") from None
    if not game.over:
        raise ReviewError(f"the game is not finished (it stops at turn {game.turn}): only a finished game "
                          "is reviewed")
    return tasks


def _rate(task: _Task) -> RatedDecision:
    rating: Rating = rate_view(task.view, task.budget, task.seed, include=task.steps)
    return RatedDecision(index=task.index, rating=rating, chosen=task.chosen,
                         chosen_index=rating.index_of(task.steps))


def check_record(record: GameRecord, seat: int) -> None:
    """Raise :class:`ReviewError` unless ``record`` is a finished game with a seat ``seat``."""
    n = len(record.players)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ReviewError(f"seat {seat!r} is out of range: this game has seats 0 to {n - 1}")
    if not record.over:
        raise ReviewError("the game is not finished: only a finished game is reviewed")


def rated_decisions(record: GameRecord, seat: int, budget: int = DEFAULT_BUDGET, seed: int = 0,
                    workers: int | None = None, executor: Executor | None = None) -> Iterator[RatedDecision]:
    """Rate the seat's decisions, yielding them in order as they are done (see :func:`review_record`)."""
    check_budget(budget)
    check_record(record, seat)
    yield from _run(_tasks(record, seat, budget, seed), workers, executor)


def _run(tasks: list[_Task], workers: int | None, executor: Executor | None) -> Iterator[RatedDecision]:
    if executor is not None:
        # at most ``workers`` decisions in the pool at a time (default 2), so that a shared pool
        # (a server's bot workers) keeps room for other work between them
        window = max(1, workers if workers is not None else 2)
        pending: deque[Future[RatedDecision]] = deque()
        for t in tasks:
            pending.append(executor.submit(_rate, t))
            if len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
        return
    n = min(MAX_WORKERS, workers if workers is not None else (os.cpu_count() or 1), len(tasks))
    if n <= 1:
        for t in tasks:
            yield _rate(t)
        return
    with ProcessPoolExecutor(max_workers=n) as pool:
        yield from pool.map(_rate, tasks)


def review_record(record: GameRecord, seat: int, budget: int = DEFAULT_BUDGET, seed: int = 0,
                  workers: int | None = None, progress: Progress | None = None,
                  executor: Executor | None = None) -> GameReview:
    """Rate every decision of ``seat`` in the finished game ``record``.

    ``budget``: search iterations per decision; ``seed``: the search's seed (the same seed,
    the same review); ``workers``: processes to rate in (default: one a core; 1 rates in
    this process); ``executor``: rate in this pool instead (a server's bot workers);
    ``progress(done, total)`` is called as decisions are rated. Raises
    :class:`~civlite.review.rating.ReviewError` (nothing done) for an unfinished record, a
    seat out of range, a budget past :data:`~civlite.review.rating.MAX_BUDGET` or a record
    that does not replay.
    """
    check_budget(budget)
    check_record(record, seat)
    tasks = _tasks(record, seat, budget, seed)
    out: list[RatedDecision] = []
    if progress is not None:
        progress(0, len(tasks))
    for d in _run(tasks, workers, executor):
        out.append(d)
        if progress is not None:
            progress(len(out), len(tasks))
    return GameReview(seat=seat, players=record.players, budget=budget, seed=seed, decisions=tuple(out),
                      winner=record.winner)


def load_record(path: str | Path) -> GameRecord:
    """A record file, or :class:`ReviewError` naming what is wrong with it."""
    try:
        return GameRecord.load(path)
    except RecordError as e:
        raise ReviewError(str(e)) from None


def replay_to(record: GameRecord, index: int) -> Game:
    """The game of ``record`` just before its action ``index``."""
    game = record.initial()
    for a in record.actions[:index]:
        game.apply(a)
    return game


__all__: Sequence[str] = ("GameReview", "check_record", "decision_seed", "load_record", "rated_decisions",
                          "replay_to", "review_record")
