"""Storage: tables and their action lists in SQL (SQLite by default, PostgreSQL for many processes).

A game is stored as its table's set-up (rule set, seed, seats) plus the list of
accepted actions, one row each, numbered ``seq`` = 1, 2, ...; replaying them
rebuilds the game exactly (:meth:`TableRow.record`). The schema is created and
upgraded by the Alembic migrations shipped in ``civlite/server/migrations``.

On PostgreSQL every append also sends ``NOTIFY civlite, '<table>:<seq>'`` in the
same transaction, so other server processes learn about it once it is committed.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    bindparam,
    create_engine,
    event,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

from ..engine import GameRecord, RuleSet, action_from_json

CHANNEL = "civlite"
#: a process's heartbeat: its leases hold until ``expires``
_HEARTBEAT = ("INSERT INTO lease_owners (owner, expires) VALUES (:me, now() + make_interval(secs => :ttl)) "
              "ON CONFLICT (owner) DO UPDATE SET expires = EXCLUDED.expires")


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(80), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    first: Mapped[int] = mapped_column(Integer, default=0)
    seats: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    clock: Mapped[int | None] = mapped_column(Integer, nullable=True)
    status: Mapped[str] = mapped_column(String(16), default="playing")
    num_actions: Mapped[int] = mapped_column(Integer, default=0)
    winner: Mapped[int | None] = mapped_column(Integer, nullable=True)
    rematch_of: Mapped[str | None] = mapped_column(String(32), nullable=True)
    rematch: Mapped[str | None] = mapped_column(String(32), nullable=True)
    #: the deal's secret seed in hex (``seed`` is then 0); None for a chosen seed or an old table
    secret: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: the seed was chosen by the table's creator (practice): every seat is told, and shown it
    seeded: Mapped[bool] = mapped_column(Boolean, default=False)
    #: the creator's choices besides the game's (``stand_in``: the bot a timed-out seat's clock uses)
    options: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    #: the last time a player acted here (None: nobody yet, or a table from before migration 0005)
    active_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: the game's turn after its last stored action (None: a table from before migration 0006)
    turn: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: a rated table: its end moves its players' ratings (once)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)


class ActionRow(Base):
    __tablename__ = "actions"
    __table_args__ = (UniqueConstraint("table_id", "client_id", name="uq_actions_client_id"),)

    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]] = mapped_column(JSON)
    client_id: Mapped[str | None] = mapped_column(String(80), nullable=True)
    by: Mapped[str] = mapped_column(String(16), default="human")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


@dataclass(frozen=True, slots=True)
class TableInfo:
    """A table as stored (without its actions)."""

    id: str
    name: str
    created_at: datetime
    rules: dict[str, Any]
    seed: int
    first: int
    seats: list[dict[str, Any]]
    clock: int | None
    status: str
    num_actions: int
    winner: int | None
    rematch_of: str | None
    rematch: str | None
    seeded: bool = False  # a chosen seed (practice): every seat is told and shown the seed
    options: dict[str, Any] = field(default_factory=dict)
    active_at: datetime | None = None
    turn: int | None = None
    rated: bool = False

    @classmethod
    def of(cls, r: TableRow) -> TableInfo:
        seed = int(r.secret, 16) if r.secret else r.seed  # the secret is the deal's seed
        return cls(r.id, r.name, r.created_at, r.rules, seed, r.first, list(r.seats), r.clock, r.status,
                   r.num_actions, r.winner, r.rematch_of, r.rematch, bool(r.seeded), dict(r.options or {}),
                   r.active_at, r.turn, bool(r.rated))

    @property
    def last_active(self) -> datetime:
        """When a player last acted here (or the table was made)."""
        at = self.active_at or self.created_at
        return at if at.tzinfo is not None else at.replace(tzinfo=UTC)

    def player_names(self) -> tuple[str, ...]:
        return tuple(str(s.get("name") or f"Seat {i + 1}") for i, s in enumerate(self.seats))

    def open_seats(self) -> list[int]:
        """The seats nobody has taken yet (a table waiting for its players)."""
        return [i for i, s in enumerate(self.seats) if s.get("kind") == "open"]

    @property
    def stand_in(self) -> str | None:
        """The bot spec the creator chose for a seat whose clock runs out (None: the safest move)."""
        v = self.options.get("stand_in")
        return str(v) if v else None

    def ruleset(self) -> RuleSet:
        return RuleSet.from_dict(self.rules, where=f"table {self.id} rules")


@dataclass(slots=True)
class TableChange:
    """A table's seats, status and options, to edit inside :meth:`Store.change_table`."""

    seats: list[dict[str, Any]]
    status: str
    options: dict[str, Any]


#: :meth:`Store._append_pg`'s statement: every part sees the same snapshot, and the statement
#: is one transaction (a conflict in the insert aborts all of it, as a failed commit would)
_PG_APPEND = text(
    "WITH ins AS ("
    " INSERT INTO actions (table_id, seq, seat, action, client_id, \"by\", created_at)"
    " SELECT x.t, x.s, x.st, CAST(x.a AS json), x.c, x.b, :now"
    " FROM unnest(CAST(:t AS text[]), CAST(:s AS int[]), CAST(:st AS int[]), CAST(:a AS text[]),"
    " CAST(:c AS text[]), CAST(:b AS text[])) AS x(t, s, st, a, c, b)"
    "), upd AS ("
    " UPDATE tables SET num_actions = u.n, turn = coalesce(u.turn, tables.turn),"
    " active_at = CASE WHEN u.human THEN :now ELSE tables.active_at END,"
    " status = CASE WHEN u.over THEN 'over' ELSE tables.status END,"
    " winner = CASE WHEN u.over THEN u.winner ELSE tables.winner END"
    " FROM unnest(CAST(:ui AS text[]), CAST(:un AS int[]), CAST(:ut AS int[]), CAST(:uo AS boolean[]),"
    " CAST(:uw AS int[]), CAST(:uh AS boolean[])) AS u(id, n, turn, over, winner, human)"
    " WHERE tables.id = u.id"
    ") SELECT pg_notify(:ch, p) FROM unnest(CAST(:ps AS text[])) AS p")


def _tips(batch: Sequence[Append]) -> tuple[list[Append], set[str]]:
    """Each table's last action in a batch (what its row records), and the tables where a
    player (not a bot or a clock) moved."""
    last: dict[str, Append] = {}
    for a in batch:
        if a.table_id not in last or a.seq > last[a.table_id].seq:
            last[a.table_id] = a
    return list(last.values()), {a.table_id for a in batch if a.by == "human"}


@dataclass(frozen=True, slots=True)
class StoredAction:
    seq: int
    seat: int
    action: dict[str, Any]
    client_id: str | None
    by: str


@dataclass(slots=True)
class Append:
    """One action to append: ``seq`` must be the table's next number."""

    table_id: str
    seq: int
    seat: int
    action: dict[str, Any]
    client_id: str | None = None
    by: str = "human"
    turn: int | None = None
    over: bool = False
    winner: int | None = None
    error: str | None = field(default=None)


class StorageError(RuntimeError):
    pass


class ConflictError(StorageError):
    """The action number is taken (another process appended first) or the client id was used."""


def default_db_url() -> str:
    from platformdirs import user_data_dir

    d = Path(user_data_dir("civlite", appauthor=False))
    d.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{d / 'civlite.db'}"


def normalize_url(url: str) -> str:
    """``postgresql://`` means psycopg 3 here; a bare path means an SQLite file."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://"):]
    if url.startswith("postgresql://"):
        return "postgresql+psycopg://" + url[len("postgresql://"):]
    if "://" not in url:
        return f"sqlite:///{Path(url).resolve()}"
    return url


def _now() -> datetime:
    return datetime.now(UTC)


class Store:
    """Synchronous storage; the server calls it from a worker thread."""

    def __init__(self, url: str, migrate: bool = True) -> None:
        self.url = normalize_url(url)
        self.origin = secrets.token_hex(4)  # tells this process's notices from the others'
        self.is_postgres = self.url.startswith("postgresql")
        if self.url.startswith("sqlite"):
            self.engine: Engine = create_engine(self.url, connect_args={"timeout": 30, "check_same_thread": False})

            @event.listens_for(self.engine, "connect")
            def _pragmas(dbapi_conn: Any, _rec: Any) -> None:
                cur = dbapi_conn.cursor()
                cur.execute("PRAGMA journal_mode=WAL")  # a committed action survives kill -9
                # FULL: the WAL is synced at every commit, so an acknowledged move survives a power
                # cut too (NORMAL would only survive a crash of the process); see the README
                cur.execute("PRAGMA synchronous=FULL")
                cur.execute("PRAGMA foreign_keys=ON")
                # checkpoints (the only fsyncs in WAL mode) run in a background thread, not in a commit
                cur.execute("PRAGMA wal_autocheckpoint=0")
                cur.close()
        else:
            self.engine = create_engine(self.url, pool_size=10, max_overflow=20, pool_pre_ping=True)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._commit_conn: Connection | None = None  # PostgreSQL: the group commit's own connection
        self._commit_lock = threading.Lock()
        if migrate:
            self.migrate()
        self._stop_checkpoints = threading.Event()
        self._checkpointer: threading.Thread | None = None
        if self.url.startswith("sqlite"):
            self._checkpointer = threading.Thread(target=self._checkpoints, name="civlite-checkpoint", daemon=True)
            self._checkpointer.start()

    # -- schema -------------------------------------------------------------------
    def migrate(self) -> None:
        """Bring the schema to the newest Alembic revision (safe to run from several processes)."""
        from alembic import command
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
        with self.engine.begin() as conn:
            if self.is_postgres:
                conn.execute(text("SELECT pg_advisory_xact_lock(7711)"))
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    def revision(self) -> str | None:
        with self.engine.connect() as conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()

    def _checkpoints(self, every: float = 1.0) -> None:
        """Copy the WAL into the database file now and then (SQLite), off the serving thread."""
        import sqlite3

        path = self.engine.url.database
        if not path or path == ":memory:":
            return
        conn = sqlite3.connect(path, timeout=30, check_same_thread=False)
        try:
            while not self._stop_checkpoints.wait(every):
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error:
                    pass
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        with self._commit_lock:
            if self._commit_conn is not None:
                self._commit_conn.close()
                self._commit_conn = None
        self._stop_checkpoints.set()
        if self._checkpointer is not None:
            self._checkpointer.join(5)
        self.engine.dispose()

    # -- tables -------------------------------------------------------------------
    def create_table(self, *, id: str, name: str, rules: dict[str, Any], seed: int, seats: list[dict[str, Any]],
                     clock: int | None, first: int = 0, rematch_of: str | None = None,
                     seeded: bool = False, lease: tuple[str, float] | None = None,
                     options: dict[str, Any] | None = None, rated: bool = False) -> TableInfo:
        """``seed``: the deal's seed, of any size (a secret one is kept as hex: it is too big for
        BIGINT); ``seeded``: it was chosen by the creator (a practice table, marked as such).
        ``lease``: ``(owner, seconds)``, the new table's lease, taken in the same transaction
        (PostgreSQL, several processes): no other process can claim a table between its creation
        and its maker's first lease round (one that resumes or loads it then finds it held)."""
        if seed < 0:
            raise StorageError(f"a seed is 0 or more, got {seed}")
        small = seeded and seed < 2**63
        row = TableRow(id=id, name=name, created_at=_now(), rules=rules, seed=seed if small else 0,
                       secret=None if small else format(seed, "x"), seeded=seeded, first=first, seats=seats,
                       clock=clock, status="waiting" if any(x.get("kind") == "open" for x in seats) else "playing",
                       num_actions=0, turn=0, rated=rated, rematch_of=rematch_of, options=options or None)
        with self.sessions.begin() as s:
            s.add(row)
            if rematch_of is not None:
                s.execute(update(TableRow).where(TableRow.id == rematch_of, TableRow.rematch.is_(None))
                          .values(rematch=id))
            if lease is not None and self.is_postgres:
                s.execute(text(_HEARTBEAT), {"me": lease[0], "ttl": lease[1]})
                s.execute(text("INSERT INTO table_leases (table_id, owner, expires) "
                               "VALUES (:id, :me, now() + make_interval(secs => :ttl))"),
                          {"id": id, "me": lease[0], "ttl": lease[1]})
        return TableInfo.of(row)

    def get_table(self, table_id: str) -> TableInfo | None:
        with self.sessions() as s:
            row = s.get(TableRow, table_id)
            return TableInfo.of(row) if row is not None else None

    def list_tables(self, status: str | None = "playing", limit: int = 50) -> list[TableInfo]:
        with self.sessions() as s:
            q = select(TableRow).order_by(TableRow.created_at.desc()).limit(limit)
            if status is not None:
                q = q.where(TableRow.status == status)
            return [TableInfo.of(r) for r in s.scalars(q)]

    def set_rematch(self, table_id: str, rematch: str) -> str:
        """Link a rematch once; returns the rematch that won (another may have been set first)."""
        with self.sessions.begin() as s:
            s.execute(update(TableRow).where(TableRow.id == table_id, TableRow.rematch.is_(None)).values(rematch=rematch))
            got = s.execute(select(TableRow.rematch).where(TableRow.id == table_id)).scalar()
            if self.is_postgres:  # seq 0: "the table itself changed" for other processes
                s.execute(text("SELECT pg_notify(:ch, :payload)"), {"ch": CHANNEL, "payload": f"{table_id}:0:{self.origin}"})
        return got or rematch

    def change_table(self, table_id: str, change: Callable[[TableChange], bool]) -> TableInfo | None:
        """Change a table's seats, status and options atomically: the row is locked first (a
        write, so PostgreSQL's row lock or SQLite's write lock is held until the commit), so
        two changes of one table, from any process, run one after the other and each sees the
        other's result. ``change`` edits the :class:`TableChange` it is given and returns True
        to store it, or False to leave everything (then None is returned, as for an unknown
        table). Other processes are told (NOTIFY, seq 0)."""
        with self.sessions.begin() as s:
            s.execute(update(TableRow).where(TableRow.id == table_id).values(num_actions=TableRow.num_actions))
            row = s.execute(select(TableRow).where(TableRow.id == table_id)).scalar_one_or_none()  # locked above
            if row is None:
                return None
            c = TableChange([dict(x) for x in row.seats], row.status, dict(row.options or {}))
            if not change(c):
                return None
            row.seats, row.status, row.options = c.seats, c.status, c.options or None
            row.active_at = _now()
            if self.is_postgres:  # seq 0: "the table itself changed" for other processes
                s.execute(text("SELECT pg_notify(:ch, :payload)"), {"ch": CHANNEL, "payload": f"{table_id}:0:{self.origin}"})
        return self.get_table(table_id)

    def change_seats(self, table_id: str,
                     change: Callable[[list[dict[str, Any]], str], tuple[list[dict[str, Any]], str] | None]
                     ) -> TableInfo | None:
        """:meth:`change_table` for the seats and status only: ``change(seats, status)`` gives
        the new ones, or None to leave them."""
        def edit(c: TableChange) -> bool:
            got = change(c.seats, c.status)
            if got is None:
                return False
            c.seats, c.status = got
            return True

        return self.change_table(table_id, edit)

    def close_abandoned(self, before: datetime, limit: int = 500) -> list[str]:
        """Close the unfinished tables where nobody has acted since ``before`` (status
        ``closed``: no more moves); returns their ids."""
        with self.sessions.begin() as s:
            last = func.coalesce(TableRow.active_at, TableRow.created_at)
            ids = list(s.scalars(select(TableRow.id).where(TableRow.status.in_(("waiting", "playing")), last < before)
                                 .limit(limit)))
            if ids:
                s.execute(update(TableRow).where(TableRow.id.in_(ids)).values(status="closed"))
        return ids

    def set_seat_token(self, table_id: str, seat: int, old: str, new: str) -> list[dict[str, Any]] | None:
        """Replace a seat's token digest ``old`` by ``new`` (atomically: None when ``old`` is not
        the seat's digest any more); returns the table's new seats."""
        with self.sessions.begin() as s:
            row = s.execute(select(TableRow).where(TableRow.id == table_id).with_for_update()).scalar_one_or_none()
            if row is None or not 0 <= seat < len(row.seats) or row.seats[seat].get("token_sha256") != old:
                return None
            seats = [dict(x) for x in row.seats]
            seats[seat]["token_sha256"] = new
            s.execute(update(TableRow).where(TableRow.id == table_id).values(seats=seats))
            if self.is_postgres:  # seq 0: "the table itself changed" for other processes
                s.execute(text("SELECT pg_notify(:ch, :payload)"), {"ch": CHANNEL, "payload": f"{table_id}:0:{self.origin}"})
        return seats

    # -- leases (PostgreSQL) ----------------------------------------------------------
    # A table's lease names its owner (a process); it holds while the owner's heartbeat in
    # lease_owners does. A round renews the heartbeat (one row, whatever the number of tables)
    # and writes lease rows only to claim tables: held ones are only read.
    def claim_leases(self, owner: str, ids: Sequence[str], ttl: float, release: Sequence[str] = ()) -> set[str]:
        """Renew ``owner``'s heartbeat and claim the leases on ``ids`` that are free or whose
        owner's heartbeat lapsed (times are the database's, so the processes' clocks do not
        matter); returns the ids ``owner`` holds. ``release``: tables whose leases ``owner``
        gives up (evicted, or their game is over)."""
        with self.engine.begin() as conn:
            conn.execute(text(_HEARTBEAT), {"me": owner, "ttl": ttl})
            got: set[str] = set()
            if ids:
                held: dict[str, bool] = dict(conn.execute(text(
                    "SELECT l.table_id, l.owner = :me OR o.expires IS NULL OR o.expires < now() "
                    "FROM table_leases l LEFT JOIN lease_owners o ON o.owner = l.owner "
                    "WHERE l.table_id = ANY(CAST(:ids AS text[]))"), {"me": owner, "ids": list(ids)}).all())
                # only the tables that are free, or whose owner is gone, are written
                want = sorted(t for t in ids if held.get(t, True))
                mine = {t for t in ids if held.get(t)}
                if want:
                    got = set(conn.execute(text(
                        "INSERT INTO table_leases (table_id, owner, expires) "
                        "SELECT t, :me, now() + make_interval(secs => :ttl) FROM unnest(CAST(:ids AS text[])) AS t "
                        "ON CONFLICT (table_id) DO UPDATE SET owner = EXCLUDED.owner, expires = EXCLUDED.expires "
                        "WHERE table_leases.owner = EXCLUDED.owner OR NOT EXISTS (SELECT 1 FROM lease_owners o "
                        "WHERE o.owner = table_leases.owner AND o.expires >= now()) "
                        "RETURNING table_id"), {"me": owner, "ttl": ttl, "ids": want}).scalars())
                    # sorted: every process locks lease rows in one order, so two processes' rounds
                    # over the same tables cannot deadlock (PostgreSQL would abort one of them)
                got |= {t for t in mine if t not in want}
            if release:
                conn.execute(text("DELETE FROM table_leases WHERE owner = :me AND table_id = ANY(CAST(:ids AS text[]))"),
                             {"me": owner, "ids": list(release)})
        return got

    def release_leases(self, owner: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(text("DELETE FROM table_leases WHERE owner = :me"), {"me": owner})
            conn.execute(text("DELETE FROM lease_owners WHERE owner = :me"), {"me": owner})

    def sweep_lease_owners(self, older_than: float) -> int:
        """Remove the heartbeats of processes gone for ``older_than`` seconds (crashed: a clean
        stop removes its own), with their leases of tables no longer played; returns how many
        heartbeats went. A live process's heartbeat is newer, so it is never touched; a dead
        one that still holds the lease of a table being played is kept until another process
        takes the table over (``orphaned_tables`` finds such tables through it)."""
        stale = "o.expires < " + ("now() - make_interval(secs => :age)" if self.is_postgres else ":cutoff")
        args: dict[str, Any] = {"age": older_than} if self.is_postgres else {
            "cutoff": datetime.now(UTC) - timedelta(seconds=older_than)}
        typed = [] if self.is_postgres else [bindparam("cutoff", type_=DateTime(timezone=True))]
        with self.engine.begin() as conn:
            conn.execute(text(
                "DELETE FROM table_leases WHERE owner IN (SELECT o.owner FROM lease_owners o WHERE " + stale + ") "
                "AND table_id NOT IN (SELECT id FROM tables WHERE status = 'playing')").bindparams(*typed), args)
            gone = conn.execute(text(
                "DELETE FROM lease_owners WHERE owner IN (SELECT o.owner FROM lease_owners o WHERE " + stale + " "
                "AND NOT EXISTS (SELECT 1 FROM table_leases l WHERE l.owner = o.owner))").bindparams(*typed), args)
            return int(gone.rowcount or 0)

    def orphaned_tables(self, limit: int = 20) -> list[str]:
        """Unfinished tables whose owner's heartbeat lapsed (its process died)."""
        with self.engine.connect() as conn:
            return list(conn.execute(text(
                "SELECT l.table_id FROM lease_owners o JOIN table_leases l ON l.owner = o.owner "
                "JOIN tables t ON t.id = l.table_id WHERE o.expires < now() AND t.status = 'playing' "
                "ORDER BY o.expires, l.table_id LIMIT :n"), {"n": limit}).scalars())

    # -- actions ------------------------------------------------------------------
    def load_actions(self, table_id: str, after: int = 0) -> list[StoredAction]:
        with self.sessions() as s:
            q = (select(ActionRow).where(ActionRow.table_id == table_id, ActionRow.seq > after)
                 .order_by(ActionRow.seq))
            return [StoredAction(r.seq, r.seat, r.action, r.client_id, r.by) for r in s.scalars(q)]

    def count_actions(self, table_id: str) -> int:
        with self.sessions() as s:
            return int(s.execute(select(func.count()).select_from(ActionRow)
                                 .where(ActionRow.table_id == table_id)).scalar() or 0)

    def _append_sqlite(self, batch: Sequence[Append]) -> None:
        """SQLite: a batch's actions and its tables' counters in one transaction."""
        now = _now()
        last, humans = _tips(batch)
        with self.engine.begin() as conn:
            conn.execute(insert(ActionRow), [
                {"table_id": a.table_id, "seq": a.seq, "seat": a.seat, "action": a.action, "client_id": a.client_id,
                 "by": a.by, "created_at": now} for a in batch])
            conn.execute(text(
                "UPDATE tables SET num_actions = :n, turn = coalesce(:turn, turn), active_at = coalesce(:active, active_at), "
                "status = CASE WHEN :over THEN 'over' ELSE status END, winner = CASE WHEN :over THEN :winner ELSE winner END "
                "WHERE id = :id").bindparams(bindparam("active", type_=DateTime(timezone=True))),
                [{"id": a.table_id, "n": a.seq, "turn": a.turn, "over": a.over, "winner": a.winner,
                  # someone played here: the table is not abandoned
                  "active": now if a.table_id in humans else None} for a in last])

    def _append_pg(self, batch: Sequence[Append]) -> None:
        """PostgreSQL: a batch's actions, its tables' counters and its notices in one statement
        (data-modifying CTEs, run to completion together), committed on its own (autocommit):
        one round trip to the server and one WAL flush, whatever the batch's size. Under load
        each round trip is a wake-up of the server's backend on a busy machine: four of them
        (BEGIN with the insert, the update, the notices, COMMIT) were most of a commit's time."""
        now = _now()
        ups, humans = _tips(batch)
        params = {
            "now": now, "ch": CHANNEL,
            "t": [a.table_id for a in batch], "s": [a.seq for a in batch], "st": [a.seat for a in batch],
            "a": [json.dumps(a.action) for a in batch], "c": [a.client_id for a in batch], "b": [a.by for a in batch],
            "ui": [a.table_id for a in ups], "un": [a.seq for a in ups], "ut": [a.turn for a in ups],
            "uo": [a.over for a in ups], "uw": [a.winner for a in ups], "uh": [a.table_id in humans for a in ups],
            "ps": [f"{a.table_id}:{a.seq}:{self.origin}" for a in ups],
        }
        stmt = _PG_APPEND.bindparams(bindparam("now", type_=DateTime(timezone=True)))
        # the group commit keeps a connection of its own: a connection taken from the pool
        # would first be pinged (pool_pre_ping), a second round trip for every commit; this
        # one is dropped at its first failure, and the next commit opens a fresh one
        with self._commit_lock:
            conn = self._commit_conn
            if conn is None:
                conn = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
                self._commit_conn = conn
            try:
                conn.execute(stmt, params)
                conn.commit()  # autocommit: ends SQLAlchemy's own transaction, no round trip
            except IntegrityError:
                conn.rollback()  # the statement failed alone; the connection is sound
                raise
            except BaseException:
                self._commit_conn = None
                try:
                    conn.invalidate()
                    conn.close()
                except Exception:  # it is being thrown away
                    pass
                raise

    def _write(self, batch: Sequence[Append]) -> None:
        """Commit a batch, all or nothing (``IntegrityError`` on a taken number or client id)."""
        if self.is_postgres:
            self._append_pg(batch)
        else:
            self._append_sqlite(batch)

    def append(self, a: Append) -> None:
        """Commit one action; raises :class:`ConflictError` when its number or client id is taken."""
        try:
            self._write([a])
        except IntegrityError as e:
            raise ConflictError(f"action {a.seq} of table {a.table_id} conflicts: {e.orig}") from None

    def append_many(self, batch: Sequence[Append]) -> None:
        """Commit a batch in one transaction (group commit); on a conflict, one by one.

        Each item that cannot be stored gets ``error`` set; the others are committed.
        """
        if not batch:
            return
        try:
            self._write(batch)
            return
        except IntegrityError:
            pass
        for a in batch:
            try:
                self.append(a)
            except ConflictError as e:
                a.error = str(e)

    def record(self, table_id: str, upto: int | None = None) -> GameRecord:
        info = self.get_table(table_id)
        if info is None:
            raise StorageError(f"no table {table_id!r}")
        acts = self.load_actions(table_id)
        if upto is not None:
            acts = [a for a in acts if a.seq <= upto]
        return GameRecord(rules=info.ruleset(), seed=info.seed, players=info.player_names(),
                          first=info.first, actions=tuple(action_from_json(a.action) for a in acts))

    # -- notifications (PostgreSQL) -------------------------------------------------
    def listen(self, callback: Callable[[str, int], None], stop: threading.Event) -> threading.Thread:
        """Call ``callback(table_id, seq)`` (from a thread) for every NOTIFY from another process."""
        if not self.is_postgres:
            raise StorageError("LISTEN/NOTIFY needs PostgreSQL")
        import psycopg

        dsn = self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)

        def run() -> None:
            while not stop.is_set():
                try:
                    with psycopg.connect(dsn, autocommit=True) as conn:
                        conn.execute(f"LISTEN {CHANNEL}")
                        while not stop.is_set():
                            for n in conn.notifies(timeout=0.5):
                                tid, seq, origin = [*n.payload.split(":"), "", ""][:3]
                                if origin == self.origin:
                                    continue  # this process's own commit
                                try:  # seq > 0: an action; 0: the table itself; -n: chat line n
                                    callback(tid, int(seq))
                                except Exception:  # a callback error must not stop listening
                                    pass
                except Exception:
                    if stop.wait(1.0):
                        return

        t = threading.Thread(target=run, name="civlite-listen", daemon=True)
        t.start()
        return t


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


__all__ = ["Append", "ConflictError", "Connection", "StorageError", "Store", "TableChange", "TableInfo", "default_db_url"]
