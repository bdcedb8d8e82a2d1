"""E-mail that tells a player it is their turn at a turn-based table they are not connected to.

Only when the operator names an SMTP server (``CIVLITE_SMTP_HOST``; unset: no mail is ever
sent), and only to a profile that opted in with an address and confirmed it from the mail
that the opt-in sends. Every mail carries a one-click unsubscribe link (a random token that
works without signing in; only its digest is stored) and the ``List-Unsubscribe`` headers.

Bounded: at most one mail a profile, table and game turn (a unique row in ``mail_sent``, so
two processes cannot both send it), and at most ``CIVLITE_MAIL_DAILY`` mails a profile in 24
hours (confirmation mails included). Mail is sent from a worker thread, one at a time in the
order asked, never on the event loop; a failure is logged at WARNING and changes nothing else (a move never waits for mail).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import re
import secrets
import smtplib
import ssl
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String, UniqueConstraint, delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from .protocol import ProtocolError
from .social_store import Profile, SocialStore
from .state import Table
from .storage import Base, Store

log = logging.getLogger("civlite.server")

#: mails one profile may be sent in 24 hours (turns and confirmations together)
MAIL_DAILY = 10
#: an address as the opt-in takes it: one @, no spaces or angle brackets, at most 254 characters
ADDRESS = re.compile(r"^[^@\s<>,;\"]{1,64}@[^@\s<>,;\"]{1,189}\.[^@\s<>,;\".]{1,63}$")


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


class MailAddressRow(Base):
    """A profile's address for turn mails (never shown to anyone but the profile)."""

    __tablename__ = "mail_addresses"

    profile_id: Mapped[str] = mapped_column(String(24), ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    address: Mapped[str] = mapped_column(String(254))
    confirmed: Mapped[bool] = mapped_column(Boolean, default=False)
    confirm_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True, unique=True)
    unsubscribe_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class MailSentRow(Base):
    """One mail sent (``kind``: ``turn`` or ``confirm``); a turn mail once a profile, table and turn."""

    __tablename__ = "mail_sent"
    __table_args__ = (UniqueConstraint("profile_id", "table_id", "turn", name="uq_mail_sent_turn"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    profile_id: Mapped[str] = mapped_column(String(24), ForeignKey("profiles.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))
    table_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    turn: Mapped[int | None] = mapped_column(Integer, nullable=True)
    sent_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


@dataclass(frozen=True, slots=True)
class SmtpSettings:
    """The operator's SMTP server (``CIVLITE_SMTP_*``) and the server's public address for links."""

    host: str
    port: int
    sender: str
    public_url: str
    user: str | None = None
    password: str | None = None
    starttls: bool = False
    daily: int = MAIL_DAILY

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> SmtpSettings | None:
        """The settings of the environment; None when ``CIVLITE_SMTP_HOST`` is unset (no mail)."""
        e = dict(os.environ) if env is None else env
        host = e.get("CIVLITE_SMTP_HOST", "").strip()
        if not host:
            return None
        starttls = e.get("CIVLITE_SMTP_STARTTLS", "0").strip().lower() in ("1", "true", "yes")
        port_text = e.get("CIVLITE_SMTP_PORT", "").strip() or ("587" if starttls else "25")
        daily_text = e.get("CIVLITE_MAIL_DAILY", "").strip() or str(MAIL_DAILY)
        try:
            port, daily = int(port_text), int(daily_text)
        except ValueError:
            raise ValueError(f"CIVLITE_SMTP_PORT and CIVLITE_MAIL_DAILY must be whole numbers, got {port_text!r} "
                             f"and {daily_text!r}") from None
        sender = e.get("CIVLITE_SMTP_FROM", "").strip()
        if not ADDRESS.match(sender):
            raise ValueError(f"CIVLITE_SMTP_FROM must be the address mail is sent from, got {sender!r}")
        public = e.get("CIVLITE_PUBLIC_URL", "").strip().rstrip("/")
        if not public.startswith(("http://", "https://")):
            raise ValueError("CIVLITE_PUBLIC_URL must be the server's address as players reach it "
                             f"(http:// or https://), for the links in mails; got {public!r}")
        return cls(host=host, port=port, sender=sender, public_url=public,
                   user=e.get("CIVLITE_SMTP_USER") or None, password=e.get("CIVLITE_SMTP_PASSWORD") or None,
                   starttls=starttls, daily=max(0, daily))


class MailStore:
    """The addresses and the mails sent, in the database of ``store`` (blocking: run in a thread)."""

    def __init__(self, store: Store) -> None:
        self.sessions = store.sessions

    def set_address(self, profile_id: str, address: str) -> tuple[str, str]:
        """Opt in (or change the address): unconfirmed until the confirmation token comes back.
        Returns the confirmation and the unsubscribe tokens."""
        confirm, unsub = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        with self.sessions.begin() as s:
            s.execute(delete(MailAddressRow).where(MailAddressRow.profile_id == profile_id))
            s.add(MailAddressRow(profile_id=profile_id, address=address, confirmed=False,
                                 confirm_sha256=_digest(confirm), unsubscribe_sha256=_digest(unsub),
                                 created_at=_now()))
        return confirm, unsub

    def address(self, profile_id: str) -> tuple[str, bool] | None:
        """The profile's address and whether it is confirmed (None: not opted in)."""
        with self.sessions() as s:
            row = s.get(MailAddressRow, profile_id)
            return (row.address, row.confirmed) if row is not None else None

    def remove(self, profile_id: str) -> None:
        with self.sessions.begin() as s:
            s.execute(delete(MailAddressRow).where(MailAddressRow.profile_id == profile_id))

    def confirm(self, token: str) -> bool:
        with self.sessions.begin() as s:
            row = s.scalars(select(MailAddressRow).where(MailAddressRow.confirm_sha256 == _digest(token))).first()
            if row is None:
                return False
            row.confirmed, row.confirm_sha256 = True, None
            return True

    def unsubscribe(self, token: str) -> bool:
        """Forget the address whose unsubscribe token this is (True: there was one)."""
        with self.sessions.begin() as s:
            done = s.execute(delete(MailAddressRow).where(MailAddressRow.unsubscribe_sha256 == _digest(token)))
            return bool(done.rowcount)  # type: ignore[attr-defined]

    def new_unsubscribe(self, profile_id: str) -> tuple[str, str] | None:
        """A confirmed address and a fresh unsubscribe token for it (each mail carries its own;
        every earlier one keeps working until one is used). None: no confirmed address."""
        token = secrets.token_urlsafe(24)
        with self.sessions.begin() as s:
            row = s.get(MailAddressRow, profile_id)
            if row is None or not row.confirmed:
                return None
            row.unsubscribe_sha256 = _digest(token)
            return row.address, token

    def claim(self, profile_id: str, kind: str, daily: int, table_id: str | None = None,
              turn: int | None = None) -> bool:
        """Note a mail about to be sent; False (nothing noted) when the profile had ``daily``
        mails in the last 24 hours or this table's turn was mailed already."""
        since = _now() - timedelta(days=1)
        try:
            with self.sessions.begin() as s:
                sent = s.execute(select(func.count()).select_from(MailSentRow).where(
                    MailSentRow.profile_id == profile_id, MailSentRow.sent_at > since)).scalar() or 0
                if sent >= daily:
                    return False
                s.add(MailSentRow(profile_id=profile_id, kind=kind, table_id=table_id, turn=turn, sent_at=_now()))
        except IntegrityError:
            return False
        return True


Send = Callable[[EmailMessage], None]


def smtp_sender(cfg: SmtpSettings) -> Send:
    """Sends one message through the operator's SMTP server (blocking)."""
    def send(msg: EmailMessage) -> None:
        with smtplib.SMTP(cfg.host, cfg.port, timeout=30) as smtp:
            if cfg.starttls:
                smtp.starttls(context=ssl.create_default_context())
            if cfg.user:
                smtp.login(cfg.user, cfg.password or "")
            smtp.send_message(msg)
    return send


class Notifier:
    """Turn mails and the opt-in's confirmation mails. ``cfg`` None: nothing is ever sent (the
    opt-in is refused)."""

    def __init__(self, store: Store, social: SocialStore, cfg: SmtpSettings | None, send: Send | None = None) -> None:
        self.cfg = cfg
        self.mail = MailStore(store)
        self.social = social
        self.send = send or (smtp_sender(cfg) if cfg is not None else None)
        # one worker: mail goes out one at a time, in the order it was asked for
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="civlite-mail")
        self.tasks: set[asyncio.Task[None]] = set()

    def stop(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _thread(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    def _message(self, to: str, subject: str, body: str, unsubscribe: str | None) -> EmailMessage:
        assert self.cfg is not None
        msg = EmailMessage()
        msg["From"] = self.cfg.sender
        msg["To"] = to
        msg["Subject"] = subject
        msg["Date"] = formatdate(localtime=False)
        msg["Message-ID"] = make_msgid(domain=self.cfg.sender.rsplit("@", 1)[1])
        msg["Auto-Submitted"] = "auto-generated"
        if unsubscribe is not None:
            msg["List-Unsubscribe"] = f"<{unsubscribe}>"
            msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        msg.set_content(body)
        return msg

    # -- the opt-in ---------------------------------------------------------------
    async def opt_in(self, p: Profile, address: str | None) -> dict[str, Any]:
        """Set (``address``), remove (``""``) or read (None) the profile's address; a new
        address gets a confirmation mail and no turn mail until it is confirmed."""
        if address is not None:
            address = address.strip()
            if not address:
                await self._thread(self.mail.remove, p.id)
            else:
                if self.cfg is None or self.send is None:
                    raise ProtocolError("no_mail", "this server sends no e-mail (its operator has set no SMTP server)")
                if len(address) > 254 or not ADDRESS.match(address):
                    raise ProtocolError("bad_address", "this is not an e-mail address")
                confirm, unsub = await self._thread(self.mail.set_address, p.id, address)
                self._spawn(self._confirmation(p, address, confirm, unsub))
        now = await self._thread(self.mail.address, p.id)
        return {"address": now[0] if now else None, "confirmed": bool(now and now[1]),
                "available": self.cfg is not None}

    async def _confirmation(self, p: Profile, address: str, confirm: str, unsub: str) -> None:
        assert self.cfg is not None and self.send is not None
        try:
            if not await self._thread(self.mail.claim, p.id, "confirm", self.cfg.daily):
                log.warning("mail: no confirmation mail for profile %s: its daily mails are spent", p.id)
                return
            base = self.cfg.public_url
            body = (f"Someone (we hope you) asked the Civ Lite server at {base} to send this address a mail when it "
                    f"is {p.name}'s turn at a turn-based table.\n\nTo confirm, open:\n{base}/mail/confirm/{confirm}\n\n"
                    f"If it was not you, ignore this mail: nothing more will be sent. Or stop it now:\n"
                    f"{base}/mail/unsubscribe/{unsub}\n")
            msg = self._message(address, "Civ Lite: confirm your turn notifications", body,
                                f"{base}/mail/unsubscribe/{unsub}")
            await self._thread(self.send, msg)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.warning("mail: the confirmation mail for profile %s was not sent: %s: %s", p.id, type(e).__name__, e)

    # -- turns --------------------------------------------------------------------
    def turn(self, t: Table, seat: int) -> None:
        """It is ``seat``'s turn at the turn-based table ``t``: mail its profile if it opted in
        and is not connected here (sent later, off the event loop)."""
        if self.cfg is None or self.send is None:
            return
        profile = t.info.seats[seat].get("profile")
        if not profile or any(c.seat == seat for c in t.conns):
            return
        self._spawn(self._turn_mail(str(profile), t.id, t.info.name, t.game.turn, t.deadline))

    async def _turn_mail(self, profile_id: str, table_id: str, name: str, turn: int, deadline: float | None) -> None:
        assert self.cfg is not None and self.send is not None
        try:
            to = await self._thread(self.mail.new_unsubscribe, profile_id)
            if to is None:  # not opted in, or not confirmed
                return
            if not await self._thread(self.mail.claim, profile_id, "turn", self.cfg.daily, table_id, turn):
                return
            address, unsub = to
            base = self.cfg.public_url
            due = ("" if deadline is None else
                   f"Your clock runs out at {datetime.fromtimestamp(deadline, UTC):%Y-%m-%d %H:%M} UTC.\n")
            body = (f"It is your turn at the table \"{name}\".\n{due}\nPlay it: {base}/t/{table_id}\n\n"
                    f"You get this mail because you asked for turn notifications. One click stops them:\n"
                    f"{base}/mail/unsubscribe/{unsub}\n")
            msg = self._message(address, f"Civ Lite: your turn at {name}", body, f"{base}/mail/unsubscribe/{unsub}")
            await self._thread(self.send, msg)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.warning("mail: the turn mail for profile %s at table %s was not sent: %s: %s", profile_id,
                        table_id, type(e).__name__, e)
