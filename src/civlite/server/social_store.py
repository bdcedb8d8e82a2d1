"""Storage of what surrounds the games: each table's chat, the players' profiles (a name and
the digest of a secret key the browser keeps), whom each profile has muted, and the ratings
that rated games move.

A rated game moves each profile's rating once: one ``ratings`` row per profile and table, so
rating the same finished table again (after a restart, a reload, a second process) changes
nothing."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, Float, ForeignKey, Integer, String, delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from .storage import Base, Store, TableRow

#: a new profile's rating (OpenSkill's defaults)
MU, SIGMA = 25.0, 25.0 / 3
#: mutes one profile may keep at most
MAX_MUTES = 200


class ChatRow(Base):
    __tablename__ = "chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str] = mapped_column(String(40))
    text: Mapped[str] = mapped_column(String(400))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ProfileRow(Base):
    __tablename__ = "profiles"

    id: Mapped[str] = mapped_column(String(24), primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
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
    def add_chat(self, table_id: str, seat: int | None, name: str, text: str) -> ChatLine:
        row = ChatRow(table_id=table_id, seat=seat, name=name, text=text, created_at=_now())
        with self.sessions.begin() as s:
            s.add(row)
            s.flush()
        return ChatLine(row.id, row.seat, row.name, row.text, row.created_at)

    def load_chat(self, table_id: str, limit: int = 200) -> list[ChatLine]:
        """The last ``limit`` lines, oldest first."""
        with self.sessions() as s:
            rows = list(s.scalars(select(ChatRow).where(ChatRow.table_id == table_id)
                                  .order_by(ChatRow.id.desc()).limit(limit)))
        return [ChatLine(r.id, r.seat, r.name, r.text, r.created_at) for r in reversed(rows)]

    def count_chat(self, table_id: str) -> int:
        with self.sessions() as s:
            return int(s.execute(select(func.count()).select_from(ChatRow).where(ChatRow.table_id == table_id))
                       .scalar() or 0)

    # -- profiles -------------------------------------------------------------------
    def create_profile(self, name: str) -> tuple[Profile, str]:
        """A new profile and its secret key (only the key's digest is stored)."""
        key = secrets.token_urlsafe(24)
        row = ProfileRow(id=secrets.token_urlsafe(9).replace("-", "x").replace("_", "y"), name=name,
                         key_sha256=key_digest(key), created_at=_now(), mu=MU, sigma=SIGMA, games=0)
        with self.sessions.begin() as s:
            s.add(row)
        return _profile(row), key

    def profile_by_key(self, key: str) -> Profile | None:
        with self.sessions() as s:
            row = s.scalars(select(ProfileRow).where(ProfileRow.key_sha256 == key_digest(key))).first()
            return _profile(row) if row is not None else None

    def get_profile(self, profile_id: str) -> Profile | None:
        with self.sessions() as s:
            row = s.get(ProfileRow, profile_id)
            return _profile(row) if row is not None else None

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

    def rename(self, key: str, name: str) -> Profile | None:
        with self.sessions.begin() as s:
            s.execute(update(ProfileRow).where(ProfileRow.key_sha256 == key_digest(key)).values(name=name))
        return self.profile_by_key(key)

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
        """Profiles that have played a rated game, best rating (mu - 3 sigma) first."""
        with self.sessions() as s:
            rows = s.scalars(select(ProfileRow).where(ProfileRow.games > 0)
                             .order_by((ProfileRow.mu - 3 * ProfileRow.sigma).desc(), ProfileRow.id).limit(limit))
            return [_profile(r) for r in rows]

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
