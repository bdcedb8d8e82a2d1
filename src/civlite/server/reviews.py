"""Game reviews and hints on the server.

A finished table's review of one seat (:mod:`civlite.review`) is computed once, in the bot
worker processes (at most two of its decisions in the pool at a time, so bot moves keep their
turn), and stored with the table (``reviews``, migration 0007); later asks read it back.
Anyone may ask for any seat's review once the game is over (the record is public then): a
player, a spectator. At most :data:`MAX_RUNNING` reviews run at once per server and
:data:`MAX_WAITING` wait; past that the answer is 429.

The tutorial (``POST /api/tutorial``) is a practice table on the tutorial's fixed deal against
the easy bot; its seat asks the coach (``POST /api/tables/{id}/coach``) for the notes due now.

A hint is the best option of the decision a seat faces now, from that seat's view: only
its player may ask (with the seat's token), and only at a practice table (one whose seed
its creator chose) while the game runs; other tables refuse hints to everyone until the end.
Hints are computed in the bot worker processes, at most :data:`HINTS_RUNNING` at once per
server with at most :data:`HINTS_WAITING` waiting (past that: 429), so askers at one table
cannot hold the workers that other tables' bots think in; and one address may ask at most
:data:`HINTS_PER_MINUTE` a minute (:data:`HINT_BURST` at once; past that: 429 with
``Retry-After``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import DateTime, ForeignKey, Integer, String, Text, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from ..engine import GameRecord, View
from ..review import DEFAULT_BUDGET, GameReview, Hint, ReviewError, hint, review_record
from ..review.tutorial import PLAYERS, SEED, TUTOR_BOT, VICTORY_CT, Coach
from . import protocol
from .bodies import CreateTable, SeatSpec
from .guard import Buckets
from .state import Table
from .storage import Base, Store

log = logging.getLogger("civlite.server")

#: reviews computed at once by one server, and reviews that may wait for them
MAX_RUNNING: Final = 1
MAX_WAITING: Final = 4
#: search iterations per decision of a server's review, and of a hint
REVIEW_BUDGET: Final = int(os.environ.get("CIVLITE_REVIEW_BUDGET", DEFAULT_BUDGET))
HINT_BUDGET: Final = int(os.environ.get("CIVLITE_HINT_BUDGET", 600))
#: hints one address may ask a minute on average (0: no limit), and at once
HINTS_PER_MINUTE: Final = float(os.environ.get("CIVLITE_HINTS_PER_MINUTE", 12))
HINT_BURST: Final = 4
#: hints computed at once by one server (in the bot worker processes), and hints that may wait
HINTS_RUNNING: Final = 1
HINTS_WAITING: Final = 4
#: the Retry-After (seconds) of a hint refused because the server is busy with others
HINT_BUSY_RETRY: Final = 5


class ReviewRow(Base):
    __tablename__ = "reviews"

    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    budget: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(Integer)
    data: Mapped[str] = mapped_column(Text)  # the review's JSON (civlite review --json)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ReviewStore:
    """The stored reviews (blocking: run in a thread)."""

    def __init__(self, store: Store) -> None:
        self.sessions = store.sessions

    def get(self, table_id: str, seat: int) -> dict[str, Any] | None:
        with self.sessions() as s:
            row = s.execute(select(ReviewRow.data).where(ReviewRow.table_id == table_id,
                                                         ReviewRow.seat == seat)).scalar()
        return json.loads(row) if row is not None else None

    def put(self, table_id: str, seat: int, review: GameReview) -> None:
        row = ReviewRow(table_id=table_id, seat=seat, budget=review.budget, seed=review.seed,
                        data=json.dumps(review.to_json(), separators=(",", ":")), created_at=datetime.now(UTC))
        try:
            with self.sessions.begin() as s:
                s.add(row)
        except IntegrityError:  # another process stored the same review first: keep that one
            pass


@dataclass
class _Job:
    done: int = 0
    total: int = 0
    error: str | None = None
    task: asyncio.Task[None] | None = None


def review_seed(table_id: str) -> int:
    """A table's review seed: fixed per table, so every process computes the same review."""
    return sum((i + 1) * ord(c) for i, c in enumerate(table_id)) & 0xFFFF


class Reviews:
    """The server's reviews: stored ones read back, new ones computed one at a time."""

    def __init__(self, store: Store, executor: Any) -> None:
        self.store = ReviewStore(store)
        #: a callable giving the bot worker pool (or None: threads)
        self.executor = executor
        self.jobs: dict[tuple[str, int], _Job] = {}
        self.running = asyncio.Semaphore(MAX_RUNNING)

    async def status(self, t: Table, seat: int, start: bool) -> dict[str, Any] | None:
        """The review of ``seat`` at table ``t``: ``{"status": "done", "review": ...}``, or
        ``{"status": "running", "done": k, "total": n}`` (started now when ``start``), or None."""
        if not t.game.is_over:
            raise HTTPException(409, "a game is reviewed once it is over")
        if not 0 <= seat < t.game.num_players:
            raise HTTPException(422, f"seat {seat} is out of range: this table has seats 0 to {t.game.num_players - 1}")
        key = (t.id, seat)
        job = self.jobs.get(key)
        if job is not None and job.error is None:
            return {"status": "running", "done": job.done, "total": job.total}
        stored = await asyncio.to_thread(self.store.get, t.id, seat)
        if stored is not None:
            return {"status": "done", "review": stored}
        if job is not None and job.error is not None and not start:
            return {"status": "failed", "error": job.error}
        if not start:
            return None
        if sum(1 for j in self.jobs.values() if j.error is None) >= MAX_RUNNING + MAX_WAITING:
            raise HTTPException(429, "the server is busy reviewing other games: try again in a minute")
        job = self.jobs[key] = _Job()
        job.task = asyncio.create_task(self._run(t, seat, job))
        return {"status": "running", "done": 0, "total": 0}

    async def _run(self, t: Table, seat: int, job: _Job) -> None:
        record = GameRecord.of(t.game)
        try:
            async with self.running:
                def progress(done: int, total: int) -> None:
                    job.done, job.total = done, total

                review = await asyncio.to_thread(review_record, record, seat, REVIEW_BUDGET, review_seed(t.id),
                                                 None, progress, self.executor())
                await asyncio.to_thread(self.store.put, t.id, seat, review)
            self.jobs.pop((t.id, seat), None)
        except ReviewError as e:
            job.error = str(e)
        except Exception as e:  # a broken pool, storage: said to the asker, logged here
            log.exception("review of table %s seat %d failed", t.id, seat)
            job.error = f"the review failed ({type(e).__name__}); ask again"

    async def stop(self) -> None:
        for job in self.jobs.values():
            if job.task is not None:
                job.task.cancel()


class HintAsk(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: str = Field(min_length=1, max_length=200)


def _manager(request: Request) -> Any:
    return request.app.state.manager


def _reviews(request: Request) -> Reviews:
    m = _manager(request)
    r: Reviews | None = getattr(request.app.state, "reviews", None)
    if r is None:
        r = request.app.state.reviews = Reviews(m.store, m.bots.executor)
    return r


async def _table(request: Request, table_id: str) -> Table:
    t: Table | None = await _manager(request).get(table_id)
    if t is None:
        raise HTTPException(404, f"there is no table {table_id!r}")
    return t


router = APIRouter()


@router.post("/api/tables/{table_id}/reviews/{seat}")
async def start_review(table_id: str, seat: int, request: Request) -> dict[str, Any]:
    """Start (or read) the review of ``seat``; poll with GET until ``status`` is ``done``."""
    t = await _table(request, table_id)
    out = await _reviews(request).status(t, seat, start=True)
    assert out is not None
    return out


@router.get("/api/tables/{table_id}/reviews/{seat}")
async def get_review(table_id: str, seat: int, request: Request) -> dict[str, Any]:
    t = await _table(request, table_id)
    out = await _reviews(request).status(t, seat, start=False)
    if out is None:
        raise HTTPException(404, f"seat {seat} of this table has not been reviewed: POST to start")
    return out


class Hints:
    """The server's hints: a token bucket per client address, and a bound on the hints
    computed (and waiting) at once."""

    def __init__(self, executor: Any) -> None:
        #: a callable giving the bot worker pool (or None: threads)
        self.executor = executor
        self.per_minute = HINTS_PER_MINUTE
        self.buckets = Buckets(self.per_minute / 60.0, HINT_BURST) if self.per_minute > 0 else None
        self.running = asyncio.Semaphore(HINTS_RUNNING)
        self.asked = 0  # hints running or waiting to

    def refused(self, address: str) -> JSONResponse | None:
        """A 429 when ``address`` has asked too many hints lately, or the server has as many
        hints running and waiting as it takes; None: this hint may go ahead (counted)."""
        if self.asked >= HINTS_RUNNING + HINTS_WAITING:  # refused before the address's budget is spent
            return JSONResponse(
                protocol.refusal("busy", f"the server is busy computing other hints: try again in "
                                 f"{HINT_BUSY_RETRY} s"),
                status_code=429, headers={"Retry-After": str(HINT_BUSY_RETRY)})
        if self.buckets is not None:
            wait = self.buckets.take(address)
            if wait > 0:
                return JSONResponse(
                    protocol.refusal("rate_limited", f"too many hints asked from your address (at most "
                                     f"{self.per_minute:g} a minute): try again in {max(1, round(wait))} s"),
                    status_code=429, headers={"Retry-After": str(max(1, round(wait)))})
        return None

    async def compute(self, view: View, names: list[str]) -> Hint:
        """The hint for ``view``, in the worker pool once a place is free (after :meth:`refused`)."""
        self.asked += 1
        try:
            async with self.running:
                return await asyncio.get_running_loop().run_in_executor(
                    self.executor(), hint, view, HINT_BUDGET, view.decision_number, names)
        except BrokenProcessPool:  # a worker died (killed, out of memory): the next ask starts a fresh pool
            log.warning("the worker processes broke while computing a hint")
            raise HTTPException(503, "the hint could not be computed: ask again",
                                headers={"Retry-After": "1"}) from None
        finally:
            self.asked -= 1


def _hints(request: Request) -> Hints:
    h: Hints | None = getattr(request.app.state, "hints", None)
    if h is None:
        h = request.app.state.hints = Hints(_manager(request).bots.executor)
    return h


@router.post("/api/tables/{table_id}/hint", response_model=None)
async def ask_hint(table_id: str, body: HintAsk, request: Request) -> dict[str, Any] | JSONResponse:
    """The best option of the decision the token's seat faces now, with a one-line reason.
    Only at a practice table; only for the seat whose decision it is; limited per address and
    per server (429)."""
    t = await _table(request, table_id)
    seat = t.seat_of(body.token)
    if seat is None:
        raise HTTPException(403, "this seat token is not valid for this table")
    if t.game.is_over:
        raise HTTPException(409, "the game is over: there is nothing to hint")
    if not t.info.seeded:
        raise HTTPException(403, "hints are given at practice tables only while the game runs")
    if t.game.to_move != seat:
        raise HTTPException(409, "a hint is for the seat whose decision it is")
    hints = _hints(request)
    refused = hints.refused(request.client.host if request.client else "?")
    if refused is not None:
        return refused
    h = await hints.compute(t.game.view(seat), list(t.info.player_names()))
    return {"hint": h.to_json()}


#: the tutorial table's name: with its seed and the practice mark, what makes a table a tutorial
TUTORIAL_NAME: Final = "Tutorial"
_coaches: dict[tuple[str, int], Coach] = {}


def is_tutorial(t: Table) -> bool:
    return t.info.seeded and t.info.seed == SEED and t.info.name == TUTORIAL_NAME


@router.post("/api/tutorial", status_code=201)
async def new_tutorial(request: Request) -> Any:
    """A new tutorial table: you against the tutor (the easy bot), the fixed deal, to 12 CT
    (counted with the tables an address may make a minute)."""
    limited = getattr(request.app.state, "limited", None)
    refused = limited(request, "tables created") if limited is not None else None
    if refused is not None:
        return refused
    spec = CreateTable(name=TUTORIAL_NAME, seats=[SeatSpec(kind="human", name=PLAYERS[0]),
                                                  SeatSpec(kind="bot", bot=TUTOR_BOT, name=PLAYERS[1])],
                       victory_ct=VICTORY_CT, practice=True, seed=SEED)
    info, tokens, host = await _manager(request).create(spec)
    return protocol.table_created(info, tokens, host)


@router.post("/api/tables/{table_id}/coach")
async def coach_notes(table_id: str, body: HintAsk, request: Request) -> dict[str, Any]:
    """The tutorial coach's notes due now for the token's seat (each note once)."""
    t = await _table(request, table_id)
    seat = t.seat_of(body.token)
    if seat is None:
        raise HTTPException(403, "this seat token is not valid for this table")
    if not is_tutorial(t):
        raise HTTPException(403, "the coach speaks at tutorial tables only")
    if len(_coaches) > 10_000:  # bounded: the oldest tutorials forget what they said
        _coaches.pop(next(iter(_coaches)))
    coach = _coaches.setdefault((t.id, seat), Coach(seat=seat))
    return {"notes": [n.to_json() for n in coach.notes(t.game)]}
