"""Storage of what surrounds the games: each table's chat, the players' profiles (a name and
the digest of a secret key the browser keeps), whom each profile has muted, and the ratings
that rated games move.

A rated game moves each profile's rating once: one ``ratings`` row per profile and table, so
rating the same finished table again (after a restart, a reload, a second process) changes
nothing."""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import DateTime, Float, ForeignKey, Integer, String, UniqueConstraint, delete, func, select, update
from sqlalchemy import text as sql
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from .storage import CHANNEL, Base, Store, TableRow

#: a new profile's rating (OpenSkill's defaults)
MU, SIGMA = 25.0, 25.0 / 3
#: mutes one profile may keep at most
MAX_MUTES = 200
#: blocks one profile may keep at most
MAX_BLOCKS = 500
#: rated games two profiles may play together in :data:`PAIR_WINDOW_DAYS` (past it their next
#: rated seat together is refused): one player cannot feed another rating from a second profile
PAIR_GAMES = 3
PAIR_WINDOW_DAYS = 7
#: the leaderboard lists profiles with at least this many rated games, against at least
#: :data:`LEADERBOARD_OPPONENTS` different opponents (a bot level counts as one)
LEADERBOARD_GAMES = 5
LEADERBOARD_OPPONENTS = 3


def handle_key(name: str) -> str:
    """What makes two handles the same: compared without case, width or spaces ("Alice",
    "ALICE", "Ａｌｉｃｅ" and "A lice" are one handle)."""
    return "".join(unicodedata.normalize("NFKC", name).casefold().split())


class NameTaken(Exception):
    """The handle belongs to another profile."""


class ChatFull(Exception):
    """The table's chat (its players' or its spectators' part) holds as many lines as it may."""


class ChatRow(Base):
    __tablename__ = "chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str] = mapped_column(String(40))
    text: Mapped[str] = mapped_column(String(400))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: the profile a spectator spoke with (None for a player's line, or a spectator without one)
    profile_id: Mapped[str | None] = mapped_column(String(24), nullable=True)


class ProfileRow(Base):
    __tablename__ = "profiles"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    #: the handle compared case- and width-blind (:func:`handle_key`): unique
    handle_key: Mapped[str] = mapped_column(String(64), unique=True)
    key_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)


class MuteRow(Base):
    """One profile's mute: ``target`` is ``p:<profile id>`` (that player, at every table),
    ``t:<table id>:<seat>`` (a seat without a profile) or ``t:<table id>:w`` (its spectators)."""

    __tablename__ = "mutes"

    profile_id: Mapped[str] = mapped_column(String(24), ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    target: Mapped[str] = mapped_column(String(64), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class BlockRow(Base):
    """``profile_id`` has blocked ``blocked``: never seated at one table, and its chat hidden."""

    __tablename__ = "blocks"

    profile_id: Mapped[str] = mapped_column(String(24), ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    blocked: Mapped[str] = mapped_column(String(24), ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ReportRow(Base):
    """A chat line reported by a player (one report a line and reporter)."""

    __tablename__ = "reports"
    __table_args__ = (UniqueConstraint("reporter", "chat_id", name="uq_reports_reporter_chat"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    reporter: Mapped[str] = mapped_column(String(24), ForeignKey("profiles.id", ondelete="CASCADE"))
    chat_id: Mapped[int] = mapped_column(Integer, ForeignKey("chat.id", ondelete="CASCADE"))
    reason: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingRow(Base):
    __tablename__ = "ratings"

    profile_id: Mapped[str] = mapped_column(String(24), ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    rank: Mapped[int] = mapped_column(Integer)
    players: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


@dataclass(frozen=True, slots=True)
class ChatLine:
    n: int
    seat: int | None  # None: a spectator
    name: str
    text: str
    at: datetime
    profile: str | None = None  # a spectator's profile id


def _line(r: ChatRow) -> ChatLine:
    return ChatLine(r.id, r.seat, r.name, r.text, r.created_at, r.profile_id)


@dataclass(frozen=True, slots=True)
class Profile:
    id: str
    name: str
    mu: float
    sigma: float
    games: int
    created_at: datetime

    @property
    def rating(self) -> float:
        """What is shown and ranked: the conservative estimate mu - 3 sigma (OpenSkill's ordinal)."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class Result:
    """One seat's place in a finished rated game: its profile (None: a bot or a seat without a
    profile, whose rating is fixed) and its rating before the game."""

    seat: int
    rank: int
    profile_id: str | None
    mu: float
    sigma: float


class _OverLimit(Exception):
    """A change of mutes past the bound (its transaction is rolled back)."""


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


def _profile(r: ProfileRow) -> Profile:
    return Profile(r.id, r.name, r.mu, r.sigma, r.games, r.created_at)


class SocialStore:
    """Chat, profiles and ratings, in the database of ``store`` (blocking: run in a thread)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.sessions = store.sessions

    # -- chat ---------------------------------------------------------------------
    def add_chat(self, table_id: str, seat: int | None, name: str, text: str, limit: int | None = None,
                 profile: str | None = None) -> ChatLine:
        """Store a line; with ``limit``, raise :class:`ChatFull` (nothing stored) when its part of
        the chat (players' lines, or spectators' when ``seat`` is None) holds ``limit`` lines.
        The count and the insert are one transaction behind the table row's lock, so the cap
        holds whatever the number of writers and processes."""
        row = ChatRow(table_id=table_id, seat=seat, name=name, text=text, created_at=_now(), profile_id=profile)
        with self.sessions.begin() as s:
            if limit is not None:
                # a write first: the table's row is locked (PostgreSQL) or the database's write lock
                # taken (SQLite) until the line is in, so two writers cannot both pass the cap
                s.execute(update(TableRow).where(TableRow.id == table_id).values(num_actions=TableRow.num_actions))
                part = ChatRow.seat.is_(None) if seat is None else ChatRow.seat.is_not(None)
                n = s.execute(select(func.count()).select_from(ChatRow)
                              .where(ChatRow.table_id == table_id, part)).scalar() or 0
                if n >= limit:
                    raise ChatFull
            s.add(row)
            s.flush()
            if self.store.is_postgres:  # other processes send it to their connections (seq -id: a chat line)
                s.execute(sql("SELECT pg_notify(:ch, :payload)"),
                          {"ch": CHANNEL, "payload": f"{table_id}:-{row.id}:{self.store.origin}"})
        return _line(row)

    def chat_after(self, table_id: str, after: int, limit: int = 200) -> list[ChatLine]:
        """The table's lines numbered above ``after``, oldest first."""
        with self.sessions() as s:
            rows = list(s.scalars(select(ChatRow).where(ChatRow.table_id == table_id, ChatRow.id > after)
                                  .order_by(ChatRow.id).limit(limit)))
        return [_line(r) for r in rows]

    def chat_line(self, line_id: int) -> tuple[str, ChatLine] | None:
        """A line by its number, with its table's id."""
        with self.sessions() as s:
            r = s.get(ChatRow, line_id)
            return (r.table_id, _line(r)) if r is not None else None

    def load_chat(self, table_id: str, limit: int = 200) -> list[ChatLine]:
        """The last ``limit`` lines, oldest first."""
        with self.sessions() as s:
            rows = list(s.scalars(select(ChatRow).where(ChatRow.table_id == table_id)
                                  .order_by(ChatRow.id.desc()).limit(limit)))
        return [_line(r) for r in reversed(rows)]

    def count_chat(self, table_id: str) -> int:
        with self.sessions() as s:
            return int(s.execute(select(func.count()).select_from(ChatRow).where(ChatRow.table_id == table_id))
                       .scalar() or 0)

    # -- profiles -------------------------------------------------------------------
    def create_profile(self, name: str) -> tuple[Profile, str]:
        """A new profile and its secret key (only the key's digest is stored); raises
        :class:`NameTaken` when another profile has this handle (:func:`handle_key`)."""
        key = secrets.token_urlsafe(24)
        row = ProfileRow(id=secrets.token_urlsafe(9).replace("-", "x").replace("_", "y"), name=name,
                         handle_key=handle_key(name), key_sha256=key_digest(key), created_at=_now(), mu=MU,
                         sigma=SIGMA, games=0)
        try:
            with self.sessions.begin() as s:
                s.add(row)
        except IntegrityError:
            if self.handle_taken(name):
                raise NameTaken(name) from None
            raise
        return _profile(row), key

    def handle_taken(self, name: str) -> bool:
        """Whether a profile has this handle (case-, width- and space-blind)."""
        with self.sessions() as s:
            return s.execute(select(ProfileRow.id).where(ProfileRow.handle_key == handle_key(name))).first() is not None

    def profile_by_key(self, key: str) -> Profile | None:
        with self.sessions() as s:
            row = s.scalars(select(ProfileRow).where(ProfileRow.key_sha256 == key_digest(key))).first()
            return _profile(row) if row is not None else None

    def get_profile(self, profile_id: str) -> Profile | None:
        with self.sessions() as s:
            row = s.get(ProfileRow, profile_id)
            return _profile(row) if row is not None else None

    def seats_in_play(self, profile_id: str, limit: int = 200) -> list[tuple[str, int]]:
        """The unfinished tables (waiting or playing) where the profile holds a seat, and its seat."""
        like = f'"profile": "{profile_id}"'
        with self.sessions() as s:
            rows = s.execute(select(TableRow.id, TableRow.seats).where(
                TableRow.status.in_(("waiting", "playing")), func.cast(TableRow.seats, String).contains(like))
                .limit(limit)).all()
        out = []
        for table_id, seats in rows:
            for i, x in enumerate(seats):
                if x.get("profile") == profile_id and x.get("kind") == "human":
                    out.append((table_id, i))
        return out

    def new_key(self, key: str) -> str | None:
        """Replace a profile's key (the old one, and every restore link holding it, stop
        working); None when ``key`` is not a profile's current key."""
        new = secrets.token_urlsafe(24)
        with self.sessions.begin() as s:
            done = s.execute(update(ProfileRow).where(ProfileRow.key_sha256 == key_digest(key))
                             .values(key_sha256=key_digest(new)))
            if not done.rowcount:  # type: ignore[attr-defined]
                return None
        return new

    # -- blocks and reports ----------------------------------------------------------
    def blocks(self, profile_id: str) -> list[str]:
        """The profiles ``profile_id`` has blocked, sorted."""
        with self.sessions() as s:
            return list(s.scalars(select(BlockRow.blocked).where(BlockRow.profile_id == profile_id)
                                  .order_by(BlockRow.blocked)))

    def change_blocks(self, profile_id: str, block: Sequence[str], unblock: Sequence[str],
                      limit: int = MAX_BLOCKS) -> tuple[bool, list[str]]:
        """Unblock ``unblock`` then block ``block`` (profiles that exist, never oneself) in one
        transaction; returns whether it was done (not past ``limit``) and the blocks after."""
        try:
            with self.sessions.begin() as s:
                s.execute(update(ProfileRow).where(ProfileRow.id == profile_id).values(games=ProfileRow.games))
                if unblock:
                    s.execute(delete(BlockRow).where(BlockRow.profile_id == profile_id,
                                                     BlockRow.blocked.in_(set(unblock))))
                have = set(s.scalars(select(BlockRow.blocked).where(BlockRow.profile_id == profile_id)))
                real = set(s.scalars(select(ProfileRow.id).where(ProfileRow.id.in_(set(block))))) if block else set()
                new = real - have - {profile_id}
                if len(have) + len(new) > limit:
                    raise _OverLimit
                now = _now()
                s.add_all(BlockRow(profile_id=profile_id, blocked=b, created_at=now) for b in sorted(new))
        except _OverLimit:
            return False, self.blocks(profile_id)
        return True, sorted(have | new)

    def blocked_among(self, profile_ids: Sequence[str]) -> bool:
        """Whether any of these profiles has blocked another of them."""
        ids = set(profile_ids)
        if len(ids) < 2:
            return False
        with self.sessions() as s:
            return s.execute(select(BlockRow.profile_id).where(BlockRow.profile_id.in_(ids), BlockRow.blocked.in_(ids))
                             .limit(1)).first() is not None

    def report(self, reporter: str, chat_id: int, reason: str) -> bool:
        """Report a chat line; False when this reporter reported it already."""
        try:
            with self.sessions.begin() as s:
                s.add(ReportRow(reporter=reporter, chat_id=chat_id, reason=reason, created_at=_now()))
        except IntegrityError:
            return False
        return True

    def reports(self, limit: int = 200) -> list[dict[str, Any]]:
        """The reported lines, newest report first: the line, its table, who reported it and why."""
        with self.sessions() as s:
            q = (select(ReportRow, ChatRow, ProfileRow.name).join(ChatRow, ChatRow.id == ReportRow.chat_id)
                 .join(ProfileRow, ProfileRow.id == ReportRow.reporter)
                 .order_by(ReportRow.created_at.desc(), ReportRow.id.desc()).limit(limit))
            return [{"id": r.id, "table": c.table_id, "line": c.id, "seat": c.seat, "name": c.name, "text": c.text,
                     "reporter": r.reporter, "reporter_name": name, "reason": r.reason,
                     "at": r.created_at.isoformat()} for r, c, name in s.execute(q)]

    # -- fair rating ------------------------------------------------------------------
    def pair_games(self, profile_ids: Sequence[str], days: float = PAIR_WINDOW_DAYS) -> int:
        """The most rated games any two of these profiles played together in the last ``days``."""
        ids = sorted(set(profile_ids))
        if len(ids) < 2:
            return 0
        since = _now() - timedelta(days=days)
        with self.sessions() as s:
            rows = s.execute(select(RatingRow.table_id, RatingRow.profile_id)
                             .where(RatingRow.profile_id.in_(ids), RatingRow.created_at >= since)).all()
        by_table: dict[str, set[str]] = {}
        for table_id, pid in rows:
            by_table.setdefault(table_id, set()).add(pid)
        pairs: dict[tuple[str, str], int] = {}
        for who in by_table.values():
            w = sorted(who)
            for i, a in enumerate(w):
                for b in w[i + 1:]:
                    pairs[(a, b)] = pairs.get((a, b), 0) + 1
        return max(pairs.values(), default=0)

    def opponents(self, profile_ids: Sequence[str]) -> dict[str, int]:
        """How many different opponents each profile has met in rated games (each other
        profile, and each bot level, counts once)."""
        ids = set(profile_ids)
        if not ids:
            return {}
        with self.sessions() as s:
            mine = s.execute(select(RatingRow.profile_id, RatingRow.table_id).where(RatingRow.profile_id.in_(ids))).all()
            tables = {t for _, t in mine}
            seats: dict[str, list[dict[str, Any]]] = (
                {k: v for k, v in s.execute(select(TableRow.id, TableRow.seats).where(TableRow.id.in_(tables)))}
                if tables else {})
        met: dict[str, set[str]] = {p: set() for p in ids}
        for pid, table_id in mine:
            for seat in seats.get(table_id) or []:
                other = seat.get("profile")
                if other and other != pid:
                    met[pid].add("p:" + str(other))
                elif seat.get("kind") == "bot" and not other:
                    met[pid].add("b:" + str(seat.get("bot")))
        return {p: len(m) for p, m in met.items()}

    # -- mutes ----------------------------------------------------------------------
    def mutes(self, profile_id: str) -> list[str]:
        """The profile's mutes, sorted."""
        with self.sessions() as s:
            return list(s.scalars(select(MuteRow.target).where(MuteRow.profile_id == profile_id)
                                  .order_by(MuteRow.target)))

    def change_mutes(self, profile_id: str, mute: Sequence[str], unmute: Sequence[str],
                     limit: int = MAX_MUTES) -> tuple[bool, list[str]]:
        """Unmute ``unmute`` then mute ``mute`` (already muted: kept) in one transaction; returns
        whether it was done and the mutes after. Not done (nothing changed) when the profile
        would keep more than ``limit``."""
        try:
            with self.sessions.begin() as s:
                # a write first: the profile's row is locked (PostgreSQL) or the database's write
                # lock taken (SQLite), so two changes of one profile's mutes cannot both pass the bound
                s.execute(update(ProfileRow).where(ProfileRow.id == profile_id).values(games=ProfileRow.games))
                if unmute:
                    s.execute(delete(MuteRow).where(MuteRow.profile_id == profile_id, MuteRow.target.in_(set(unmute))))
                have = set(s.scalars(select(MuteRow.target).where(MuteRow.profile_id == profile_id)))
                new = set(mute) - have
                if len(have) + len(new) > limit:
                    raise _OverLimit  # rolled back: the unmutes too
                now = _now()
                s.add_all(MuteRow(profile_id=profile_id, target=t, created_at=now) for t in sorted(new))
        except _OverLimit:
            return False, self.mutes(profile_id)
        return True, sorted(have | new)

    def leaderboard(self, limit: int = 100) -> list[Profile]:
        """Established profiles, best rating (mu - 3 sigma) first: at least :data:`LEADERBOARD_GAMES`
        rated games against at least :data:`LEADERBOARD_OPPONENTS` different opponents (so a
        rating fed by one second profile never ranks)."""
        out: list[Profile] = []
        offset = 0
        while len(out) < limit:
            with self.sessions() as s:
                rows = [_profile(r) for r in s.scalars(
                    select(ProfileRow).where(ProfileRow.games >= LEADERBOARD_GAMES)
                    .order_by((ProfileRow.mu - 3 * ProfileRow.sigma).desc(), ProfileRow.id)
                    .offset(offset).limit(limit * 2))]
            if not rows:
                break
            offset += len(rows)
            met = self.opponents([p.id for p in rows])
            out.extend(p for p in rows if met.get(p.id, 0) >= LEADERBOARD_OPPONENTS)
        return out[:limit]

    def history(self, profile_id: str, limit: int = 200) -> list[dict[str, Any]]:
        """The profile's rated games, newest first: table, seat, place, rating before and after."""
        with self.sessions() as s:
            q = (select(RatingRow, TableRow.name).join(TableRow, TableRow.id == RatingRow.table_id)
                 .where(RatingRow.profile_id == profile_id).order_by(RatingRow.created_at.desc()).limit(limit))
            return [{"table": r.table_id, "name": name, "seat": r.seat, "rank": r.rank, "players": r.players,
                     "before": round(r.mu_before - 3 * r.sigma_before, 2), "after": round(r.mu - 3 * r.sigma, 2),
                     "mu": round(r.mu, 3), "sigma": round(r.sigma, 3), "at": r.created_at.isoformat()}
                    for r, name in s.execute(q)]

    def games(self, profile_id: str, seats_like: str, limit: int = 50) -> list[dict[str, Any]]:
        """The tables where the profile holds a seat, newest first (rated or not)."""
        with self.sessions() as s:
            rows = s.scalars(select(TableRow).where(func.cast(TableRow.seats, String).contains(seats_like))
                             .order_by(TableRow.created_at.desc()).limit(limit))
            out = []
            for r in rows:
                seat = next((i for i, x in enumerate(r.seats) if x.get("profile") == profile_id), None)
                if seat is None:
                    continue
                out.append({"table": r.id, "name": r.name, "seat": seat, "status": r.status, "winner": r.winner,
                            "players": len(r.seats), "rated": bool(r.rated), "at": r.created_at.isoformat()})
            return out

    def rate(self, table_id: str, results: Sequence[Result], new: Sequence[tuple[float, float]]) -> bool:
        """Store a rated game's new ratings (``new[i]`` for ``results[i]``) in one transaction;
        False (and nothing changed) when this game was rated already."""
        now = _now()
        try:
            with self.sessions.begin() as s:
                for r, (mu, sigma) in zip(results, new, strict=True):
                    if r.profile_id is None:
                        continue
                    s.add(RatingRow(profile_id=r.profile_id, table_id=table_id, seat=r.seat, rank=r.rank,
                                    players=len(results), mu_before=r.mu, sigma_before=r.sigma, mu=mu, sigma=sigma,
                                    created_at=now))
                    s.flush()  # a second rating of this game stops here (primary key)
                    s.execute(update(ProfileRow).where(ProfileRow.id == r.profile_id)
                              .values(mu=mu, sigma=sigma, games=ProfileRow.games + 1))
        except IntegrityError:
            return False
        return True

    def rated_already(self, table_id: str) -> bool:
        with self.sessions() as s:
            return s.execute(select(RatingRow.table_id).where(RatingRow.table_id == table_id).limit(1)).first() is not None
