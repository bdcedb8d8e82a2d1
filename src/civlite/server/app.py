"""The FastAPI application: REST lobby, WebSocket play, the static browser client."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import os
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import SQLAlchemyError

from ..engine import RuleSet
from . import protocol, reviews
from .bodies import (
    BlockChange,
    CreateTable,
    MailOptIn,
    MuteChange,
    NewProfile,
    ProfileKey,
    Reissue,
    Report,
    StartTable,
    TakeSeat,
)
from .botspecs import BOT_LEVELS, OFFERED_LEVELS
from .guard import Buckets, Counter, Guard, default_hosts, parse_trusted
from .housekeeping import ABANDONED_SECONDS, CLOSE_SECONDS
from .leaving import STALL_SECONDS
from .lobby import RATED_RULES, load_rulesets, offered_rulesets
from .notify import SmtpSettings
from .protocol import VERSION, ProtocolError, error
from .run import on_loop_exception
from .state import Conn
from .storage import Store, default_db_url
from .tables import Manager

WEB = Path(__file__).resolve().parent.parent / "web"
#: messages a second one connection may send on average (twice that in a burst); a person
#: playing sends a few a minute
RATE_LIMIT = 20.0
#: tables one client address may create a minute (and at once, after a quiet minute)
TABLES_PER_MINUTE = 10.0
#: WebSocket connections open at once from one client address, and in all
CONNECTIONS_PER_ADDRESS = 32
MAX_CONNECTIONS = 5000


#: the operator's page: the reported chat lines, read with the token in the address's fragment
#: (``/operator#token=...``, which browsers never send); every value is shown as text
OPERATOR_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Reported chat lines</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body><main>
<h1>Reported chat lines</h1><p id="status">Loading…</p><table><thead><tr><th>When</th><th>Table</th><th>Said by</th>
<th>Line</th><th>Reported by</th><th>Why</th></tr></thead><tbody id="rows"></tbody></table></main><script>
const token = new URLSearchParams(location.hash.slice(1)).get("token") || "";
fetch("/api/reports", {headers: {Authorization: "Bearer " + token}}).then(async (r) => {
  const body = await r.json(); const status = document.getElementById("status");
  if (!r.ok) { status.textContent = body.detail || "refused"; return; }
  status.textContent = body.length + " reports";
  for (const x of body) { const tr = document.createElement("tr");
    for (const v of [x.at, x.table, x.name, x.text, x.reporter_name, x.reason]) {
      const td = document.createElement("td"); td.textContent = String(v); tr.appendChild(td); }
    document.getElementById("rows").appendChild(tr); } });
</script></body></html>"""


#: the page of a mail's confirmation or unsubscribe link (``text``: what happened)
MAIL_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Civ Lite: mail</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body><main><h1>Turn mails</h1>
<p>{text}</p><p><a href="/">Back to the lobby</a></p></main></body></html>"""


def _env_number(name: str, default: float) -> float:
    """A number from the environment, or a clear error naming the variable."""
    text = os.environ.get(name)
    if text is None or not text.strip():
        return default
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {text!r}") from None
    if value < 0 or value != value:
        raise ValueError(f"{name} must be 0 or more, got {text!r}")
    return value


def _env_list(name: str) -> list[str] | None:
    text = os.environ.get(name)
    if text is None or not text.strip():
        return None
    return [x.strip() for x in text.split(",") if x.strip()]


def create_app(db_url: str | None = None, bot_delay: float | None = None, listen: bool | None = None,
               rate_limit: float | None = None, bot_processes: int | None = None,
               allow_hosts: list[str] | None = None, allow_origins: list[str] | None = None,
               bind_host: str | None = None, tables_per_minute: float | None = None,
               connections_per_address: int | None = None, max_connections: int | None = None,
               idle_seconds: float | None = None, leases: bool | None = None,
               trusted_proxies: list[str] | None = None, abandoned_seconds: float | None = None,
               close_seconds: float | None = None, rulesets: Sequence[RuleSet] | None = None,
               stall_seconds: float | None = None, operator_token: str | None = None,
               rated_rules: str | None = None, smtp: SmtpSettings | None = None) -> FastAPI:
    """The app. Settings default to the environment: CIVLITE_DB, CIVLITE_BOT_DELAY (seconds),
    CIVLITE_RATE_LIMIT (messages a second per connection, default 20; 0 turns it off),
    CIVLITE_BOT_PROCESSES (worker processes for search bots, default one per core; 0: threads),
    CIVLITE_ALLOW_HOSTS (Host names served, comma-separated; default: loopback names and the bind
    host CIVLITE_HOST; ``*``: any), CIVLITE_ALLOW_ORIGINS (other origins whose pages may open the
    WebSocket; ``*``: any), CIVLITE_TABLES_PER_MINUTE (per client address, default 10; 0: no
    limit), CIVLITE_CONNECTIONS_PER_ADDRESS (open WebSockets per client address, default 32),
    CIVLITE_IDLE_SECONDS (a table nobody watches and where nothing runs leaves memory after this
    long, default 60), CIVLITE_TRUSTED_PROXIES (addresses or networks of reverse proxies whose
    ``X-Forwarded-For`` names the client, comma-separated; default none: no header is believed),
    CIVLITE_ABANDONED_SECONDS (a table where nobody has acted this long is marked abandoned,
    default 3600) and CIVLITE_CLOSE_SECONDS (then closed after this long, default a week; 0:
    never), CIVLITE_STALL_SECONDS (a player away who has sat on a decision this long may be voted
    out of the game by the others, default 300) and CIVLITE_OPERATOR_TOKEN (the secret that
    opens the operator's list of reported chat lines, ``/operator``; unset: the list is closed)
    and CIVLITE_RATED_RULES (the offered rule set every rated table plays, default ``default``).
    ``smtp``: the SMTP server of turn mails (default: CIVLITE_SMTP_HOST, CIVLITE_SMTP_PORT,
    CIVLITE_SMTP_USER, CIVLITE_SMTP_PASSWORD, CIVLITE_SMTP_FROM, CIVLITE_SMTP_STARTTLS,
    CIVLITE_PUBLIC_URL and CIVLITE_MAIL_DAILY; CIVLITE_SMTP_HOST unset: no mail).
    ``rulesets``: rule sets offered beside the lobby's own, each by its name (default
    CIVLITE_RULES: rule-set TOML files, comma-separated); raises ``ValueError`` naming a file or
    a name that is taken."""
    url = db_url or os.environ.get("CIVLITE_DB") or default_db_url()
    delay = bot_delay if bot_delay is not None else _env_number("CIVLITE_BOT_DELAY", 0.8)
    rate = rate_limit if rate_limit is not None else _env_number("CIVLITE_RATE_LIMIT", RATE_LIMIT)
    procs = bot_processes
    if procs is None and os.environ.get("CIVLITE_BOT_PROCESSES", "").strip():  # unset: one per core
        procs = int(_env_number("CIVLITE_BOT_PROCESSES", 0))
    hosts = allow_hosts if allow_hosts is not None else _env_list("CIVLITE_ALLOW_HOSTS")
    if hosts is None:
        hosts = sorted(default_hosts(bind_host if bind_host is not None else os.environ.get("CIVLITE_HOST")))
    origins = allow_origins if allow_origins is not None else (_env_list("CIVLITE_ALLOW_ORIGINS") or [])
    per_min = tables_per_minute if tables_per_minute is not None else _env_number("CIVLITE_TABLES_PER_MINUTE",
                                                                                  TABLES_PER_MINUTE)
    creations = Buckets(per_min / 60.0, max(1.0, per_min)) if per_min > 0 else None
    per_addr = (connections_per_address if connections_per_address is not None
                else int(_env_number("CIVLITE_CONNECTIONS_PER_ADDRESS", CONNECTIONS_PER_ADDRESS)))
    conns = Counter(per_addr, max_connections if max_connections is not None else MAX_CONNECTIONS)
    idle = idle_seconds if idle_seconds is not None else _env_number("CIVLITE_IDLE_SECONDS", 60.0)
    proxies = trusted_proxies if trusted_proxies is not None else (_env_list("CIVLITE_TRUSTED_PROXIES") or [])
    abandoned = (abandoned_seconds if abandoned_seconds is not None
                 else _env_number("CIVLITE_ABANDONED_SECONDS", ABANDONED_SECONDS))
    close = close_seconds if close_seconds is not None else _env_number("CIVLITE_CLOSE_SECONDS", CLOSE_SECONDS)
    stall = stall_seconds if stall_seconds is not None else _env_number("CIVLITE_STALL_SECONDS", STALL_SECONDS)
    operator = operator_token if operator_token is not None else os.environ.get("CIVLITE_OPERATOR_TOKEN", "")
    offered = offered_rulesets(rulesets if rulesets is not None else load_rulesets(_env_list("CIVLITE_RULES") or []))
    rated = rated_rules or os.environ.get("CIVLITE_RATED_RULES", "").strip() or RATED_RULES
    if rated not in offered:
        raise ValueError(f"CIVLITE_RATED_RULES: the rule set {rated!r} is not offered; the rule sets are: "
                         f"{', '.join(offered)}")

    mail = smtp if smtp is not None else SmtpSettings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # an exception no task handled is logged at ERROR with its traceback, however the app is run
        asyncio.get_running_loop().set_exception_handler(on_loop_exception)
        store = Store(url)
        manager = Manager(store, bot_delay=delay, listen=listen, rate_limit=rate, bot_processes=procs,
                          idle_seconds=idle, leases=leases, abandoned_seconds=abandoned, close_seconds=close,
                          rulesets=offered, stall_seconds=stall, rated_rules=rated, smtp=mail)
        await manager.start()
        app.state.manager = manager
        try:
            yield
        finally:
            await manager.stop()
            store.close()

    app = FastAPI(title="Civ Lite: Ancients", version=str(VERSION), lifespan=lifespan)
    app.add_middleware(Guard, hosts=hosts, origins=origins, trusted=proxies)
    parse_trusted(proxies)  # a bad address is named now, not at the first request
    app.state.connections = conns

    @app.exception_handler(ProtocolError)
    async def refused(request: Request, e: ProtocolError) -> JSONResponse:
        return JSONResponse(protocol.refusal(e.code, e.message), status_code=protocol.HTTP_STATUS.get(e.code, 422))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, e: RequestValidationError) -> JSONResponse:
        """422 naming each problem; the input is not echoed (it may hold what JSON cannot carry)."""
        problems = [{"loc": list(err.get("loc", ())), "msg": str(err.get("msg", "")), "type": str(err.get("type", ""))}
                    for err in e.errors()]
        body = json.loads(json.dumps({"detail": problems}, ensure_ascii=True, default=str))
        return JSONResponse(body, status_code=422)

    def mgr(request: Request) -> Manager:
        m: Manager = request.app.state.manager
        return m

    @app.get("/api/meta")
    async def meta() -> dict[str, Any]:
        # rated_rules: the offered rule set every rated table plays (a creator cannot choose it)
        return {**protocol.meta(offered, BOT_LEVELS, OFFERED_LEVELS), "rated_rules": rated}

    def limited(request: Request, what: str) -> JSONResponse | None:
        """A 429 when this address has made too many tables or new links lately (one budget)."""
        if creations is None:
            return None
        wait = creations.take(request.client.host if request.client else "?")
        if wait <= 0:
            return None
        return JSONResponse(protocol.refusal("rate_limited", f"too many {what} from your address (at most "
                                             f"{per_min:g} tables or new links a minute): try again in {wait:.0f} s"),
                            status_code=429, headers={"Retry-After": str(max(1, round(wait)))})

    app.state.limited = limited  # for the routes of other modules (the tutorial's table)

    @app.post("/api/tables", status_code=201)
    async def create(spec: CreateTable, request: Request) -> Any:
        refused = limited(request, "tables created")
        if refused is not None:
            return refused
        info, tokens, host = await mgr(request).create(spec)
        return protocol.table_created(info, tokens, host)

    @app.get("/api/tables")
    async def tables(request: Request, status: str = "playing") -> list[dict[str, Any]]:
        """The tables being played (``status=open``: those with open seats; ``over``, ``closed``,
        ``all``), each with its live figures: from memory, or from storage for a table that is
        not in memory (its turn included); an abandoned one is marked."""
        m = mgr(request)
        wanted = {"open": "waiting", "all": None}.get(status, status)
        try:
            infos = await asyncio.to_thread(m.store.list_tables, wanted)
        except SQLAlchemyError as e:  # storage down: told, as every route does
            raise ProtocolError("unavailable", f"the tables could not be listed now ({type(e).__name__}): "
                                "storage is not answering; try again later") from None
        out = []
        for info in infos:
            t = m.tables.get(info.id)
            # the stored row is the newer when another process plays the table
            fresh = t is not None and t.info.status == info.status and t.seq >= info.num_actions
            row = protocol.table_json(t) if fresh and t is not None else protocol.summary(info)
            # a turn-based table's player may take its clock's days to move
            row["abandoned"] = m.housekeeping.abandoned(info) and not (
                info.options.get("turn_based") and time.time() - info.last_active.timestamp() < (info.clock or 0))
            out.append(row)
        return out

    @app.post("/api/tables/{table_id}/take")
    async def take(table_id: str, body: TakeSeat, request: Request) -> Any:
        """An open seat for whoever asks first: its invite link (the seat's token) is theirs."""
        seat, token = await mgr(request).take_seat(table_id, body.seat, body.name, body.profile)
        return protocol.invite(table_id, seat, token)

    @app.post("/api/tables/{table_id}/start")
    async def start(table_id: str, body: StartTable, request: Request) -> dict[str, Any]:
        """The creator starts a table before its open seats are taken: bots sit in them."""
        m = mgr(request)
        await m.start_table(table_id, body.token, body.bot)
        t = await m.get(table_id)
        assert t is not None
        return protocol.table_json(t)

    @app.post("/api/profiles", status_code=201)
    async def new_profile(body: NewProfile, request: Request) -> Any:
        """A profile: a name and a secret key, which only the browser keeps."""
        refused = limited(request, "profiles made")
        if refused is not None:
            return refused
        return await mgr(request).profiles.create(body.name)

    @app.post("/api/profiles/me")
    async def my_profile(body: ProfileKey, request: Request) -> dict[str, Any]:
        """The profile of a key (``name``: rename it first)."""
        return await mgr(request).profiles.mine(body.key, body.name)

    @app.post("/api/profiles/me/key")
    async def new_key(body: ProfileKey, request: Request) -> dict[str, Any]:
        """A new key for the profile: the old one, and every restore link holding it, stop working."""
        return await mgr(request).profiles.new_key(body.key)

    @app.post("/api/profiles/me/mutes")
    async def my_mutes(body: MuteChange, request: Request) -> dict[str, Any]:
        """The profile's chat mutes (``mute``, ``unmute``: change them first), so they follow the
        profile to every device; at most ``MAX_MUTES``."""
        return await mgr(request).profiles.mutes(body.key, body.mute, body.unmute)

    @app.post("/api/profiles/me/blocks")
    async def my_blocks(body: BlockChange, request: Request) -> dict[str, Any]:
        """The profile's blocks (``block``, ``unblock``: change them first): a blocked profile is
        never seated at a table with this one, and its chat is hidden from it."""
        return await mgr(request).profiles.blocks(body.key, body.block, body.unblock)

    @app.post("/api/profiles/me/turns")
    async def my_turns(body: ProfileKey, request: Request) -> list[dict[str, Any]]:
        """The tables being played where it is the profile's decision now (the key in the body,
        never in the address)."""
        m = mgr(request)
        p = await m.profiles.of_key(body.key)
        return await m.turn_based.turns(p.id)

    @app.post("/api/profiles/me/mail")
    async def my_mail(body: MailOptIn, request: Request) -> Any:
        """The profile's address for turn mails: set (a confirmation mail is sent), removed
        (``""``) or read; shown to nobody else."""
        if body.address:
            refused = limited(request, "mail addresses set")
            if refused is not None:
                return refused
        m = mgr(request)
        return await m.notifier.opt_in(await m.profiles.of_key(body.key), body.address)

    @app.get("/mail/confirm/{token}", include_in_schema=False)
    async def mail_confirm(token: str, request: Request) -> HTMLResponse:
        done = await asyncio.to_thread(mgr(request).notifier.mail.confirm, token[:64])
        return HTMLResponse(MAIL_PAGE.format(
            text="Your address is confirmed: you will get a mail when it is your turn at a turn-based table "
                 "and you are away." if done else "This confirmation link is not valid (used already, or the "
                 "address was changed since)."), status_code=200 if done else 404)

    @app.api_route("/mail/unsubscribe/{token}", methods=["GET", "POST"], include_in_schema=False)
    async def mail_unsubscribe(token: str, request: Request) -> HTMLResponse:
        """One click (or the mail client's one-click POST) stops every turn mail to the address."""
        done = await asyncio.to_thread(mgr(request).notifier.mail.unsubscribe, token[:64])
        return HTMLResponse(MAIL_PAGE.format(
            text="You are unsubscribed: this server will send your address no more mail." if done else
                 "This address gets no mail from this server (already unsubscribed, or the link is not valid)."))

    @app.post("/api/reports", status_code=201)
    async def report(body: Report, request: Request) -> dict[str, Any]:
        """A profile reports a chat line to the server's operator."""
        return await mgr(request).profiles.report(body.key, body.line, body.reason)

    @app.get("/api/reports")
    async def reports(request: Request) -> list[dict[str, Any]]:
        """The reported chat lines, for the operator (``Authorization: Bearer <CIVLITE_OPERATOR_TOKEN>``)."""
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not operator or not hmac.compare_digest(given.encode(), operator.encode()):
            raise ProtocolError("not_operator", "the reports are for the server's operator (its CIVLITE_OPERATOR_TOKEN)")
        return await mgr(request).profiles.reports()

    @app.get("/operator", include_in_schema=False)
    async def operator_page() -> HTMLResponse:
        return HTMLResponse(OPERATOR_PAGE)

    @app.get("/api/profiles/{profile_id}")
    async def profile(profile_id: str, request: Request) -> dict[str, Any]:
        """A profile's public page: its name, rating, games and rating history."""
        return await mgr(request).profiles.public(profile_id)

    @app.get("/api/leaderboard")
    async def leaderboard(request: Request) -> list[dict[str, Any]]:
        return await mgr(request).profiles.leaderboard()

    @app.get("/api/tables/{table_id}")
    async def table(table_id: str, request: Request) -> dict[str, Any]:
        t = await mgr(request).get(table_id)
        if t is None:
            raise HTTPException(404, f"there is no table {table_id!r}")
        return protocol.table_json(t)

    @app.post("/api/tables/{table_id}/seats/{seat}/invite")
    async def reissue(table_id: str, seat: int, body: Reissue, request: Request) -> Any:
        """A new invite link for a seat, asked by its holder (with the seat's current token): the
        old link stops working and connections made with it are closed."""
        refused = limited(request, "new invite links")
        if refused is not None:
            return refused
        token = await mgr(request).reissue(table_id, seat, body.token)
        return protocol.invite(table_id, seat, token)

    @app.get("/api/tables/{table_id}/record")
    async def record(table_id: str, request: Request) -> dict[str, Any]:
        """The full game record, once the game is over (before that it would show hidden cards)."""
        t = await mgr(request).get(table_id)
        if t is None:
            raise HTTPException(404, f"there is no table {table_id!r}")
        if not t.game.is_over:
            raise HTTPException(409, "the record is published when the game is over")
        return protocol.record(t)

    @app.get("/api/tables/{table_id}/replay")
    async def replay(table_id: str, request: Request, seat: int | None = None) -> dict[str, Any]:
        """A finished game step by step as one seat saw it (no ``seat``: as a spectator)."""
        t = await mgr(request).get(table_id)
        if t is None:
            raise HTTPException(404, f"there is no table {table_id!r}")
        try:
            return await asyncio.to_thread(protocol.replay, t, seat)
        except ProtocolError as e:
            raise HTTPException(409 if e.code == "not_over" else 422, e.message) from None

    app.include_router(reviews.router)  # game reviews and hints (civlite.review)

    @app.get("/healthz")
    async def health() -> dict[str, str]:
        return protocol.health()

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        addr = websocket.client.host if websocket.client else "?"
        refused = conns.acquire(addr)
        await websocket.accept()
        if refused is not None:  # told in a frame (a browser cannot read a refused handshake), then closed
            with contextlib.suppress(Exception):
                await websocket.send_json(error("too_many_connections", refused))
                await websocket.close(1013, "too many connections")
            return
        try:
            await _serve(websocket)
        finally:
            conns.release(addr)

    async def _serve(websocket: WebSocket) -> None:
        m: Manager = websocket.app.state.manager
        conn = Conn(websocket.client.host if websocket.client else "?")

        async def writer() -> None:
            while True:
                text = await conn.queue.get()
                if text is None:
                    with contextlib.suppress(Exception):
                        await websocket.close()
                    return
                await websocket.send_text(text)

        wtask = asyncio.create_task(writer())
        try:
            while True:
                msg = await websocket.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                data = msg.get("text")
                if data is None:
                    data = msg.get("bytes") or b""
                await m.handle(conn, data)
                if conn.closed:
                    break
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            m.disconnect(conn)
            conn.close()
            wtask.cancel()
            with contextlib.suppress(BaseException):
                await wtask

    index = WEB / "index.html"

    @app.get("/")
    async def root() -> FileResponse:
        return FileResponse(index)

    @app.get("/t/{table_id}")
    async def table_page(table_id: str) -> FileResponse:
        return FileResponse(index)

    @app.get("/p/{profile_id}")
    async def profile_page(profile_id: str) -> FileResponse:
        return FileResponse(index)

    for page in ("/profile", "/leaderboard", "/restore"):
        app.add_api_route(page, root, methods=["GET"], include_in_schema=False)

    app.mount("/static", StaticFiles(directory=WEB), name="static")
    return app


def app_from_env() -> FastAPI:
    """``uvicorn --factory civlite.server.app:app_from_env`` (settings from the environment)."""
    return create_app()
