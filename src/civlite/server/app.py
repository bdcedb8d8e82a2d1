"""The FastAPI application: REST lobby, WebSocket play, the static browser client."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from ..engine import CARDS, SUITS
from .protocol import VERSION, CreateTable, ProtocolError
from .storage import Store, default_db_url
from .tables import BOT_LEVELS, RULESETS, Conn, Manager, rules_json, summary

WEB = Path(__file__).resolve().parent.parent / "web"
#: messages a second one connection may send on average (twice that in a burst); a person
#: playing sends a few a minute
RATE_LIMIT = 20.0


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


def create_app(db_url: str | None = None, bot_delay: float | None = None, listen: bool | None = None,
               rate_limit: float | None = None, bot_processes: int | None = None) -> FastAPI:
    """The app. Settings default to the environment: CIVLITE_DB, CIVLITE_BOT_DELAY (seconds),
    CIVLITE_RATE_LIMIT (messages a second per connection, default 20; 0 turns it off),
    CIVLITE_BOT_PROCESSES (worker processes for search bots, default one per core; 0: threads)."""
    url = db_url or os.environ.get("CIVLITE_DB") or default_db_url()
    delay = bot_delay if bot_delay is not None else _env_number("CIVLITE_BOT_DELAY", 0.8)
    rate = rate_limit if rate_limit is not None else _env_number("CIVLITE_RATE_LIMIT", RATE_LIMIT)
    procs = bot_processes
    if procs is None and os.environ.get("CIVLITE_BOT_PROCESSES", "").strip():  # unset: one per core
        procs = int(_env_number("CIVLITE_BOT_PROCESSES", 0))

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(url)
        manager = Manager(store, bot_delay=delay, listen=listen, rate_limit=rate, bot_processes=procs)
        await manager.start()
        app.state.manager = manager
        try:
            yield
        finally:
            await manager.stop()
            store.close()

    app = FastAPI(title="Civ Lite: Ancients", version=str(VERSION), lifespan=lifespan)

    @app.exception_handler(ProtocolError)
    async def refused(request: Request, e: ProtocolError) -> JSONResponse:
        status = 503 if e.code in ("unavailable", "not_stored") else 422
        return JSONResponse({"code": e.code, "detail": e.message}, status_code=status)

    def mgr(request: Request) -> Manager:
        m: Manager = request.app.state.manager
        return m

    @app.get("/api/meta")
    async def meta() -> dict[str, Any]:
        return {
            "protocol": VERSION,
            "cards": [{"name": c.name, "suit": int(c.suit)} for c in CARDS],
            "suits": [{"index": int(s), "name": s.name.title(), "letter": s.name[0]} for s in SUITS],
            "rulesets": {k: rules_json(r) for k, r in RULESETS.items()},
            "bots": list(BOT_LEVELS),
        }

    @app.post("/api/tables", status_code=201)
    async def create(spec: CreateTable, request: Request) -> Any:
        info, tokens = await mgr(request).create_table(spec)
        out = summary(info)
        for s, tok in zip(out["seats"], tokens, strict=True):
            s["invite"] = f"/t/{info.id}#k={tok}" if tok else None
        out["spectate"] = f"/t/{info.id}"
        return out

    @app.get("/api/tables")
    async def tables(request: Request, status: str = "playing") -> list[dict[str, Any]]:
        m = mgr(request)
        infos = await asyncio.to_thread(m.store.list_tables, status if status != "all" else None)
        out = []
        for info in infos:
            t = m.tables.get(info.id)
            out.append(t.summary() if t is not None else summary(info, turn=0))
        return out

    @app.get("/api/tables/{table_id}")
    async def table(table_id: str, request: Request) -> dict[str, Any]:
        t = await mgr(request).get(table_id)
        if t is None:
            raise HTTPException(404, f"there is no table {table_id!r}")
        return t.summary()

    @app.get("/api/tables/{table_id}/record")
    async def record(table_id: str, request: Request) -> dict[str, Any]:
        """The full game record, once the game is over (before that it would show hidden cards)."""
        t = await mgr(request).get(table_id)
        if t is None:
            raise HTTPException(404, f"there is no table {table_id!r}")
        if not t.game.is_over:
            raise HTTPException(409, "the record is published when the game is over")
        rec: dict[str, Any] = t.game.record().to_json()
        return rec

    @app.get("/api/tables/{table_id}/replay")
    async def replay(table_id: str, request: Request, seat: int | None = None) -> dict[str, Any]:
        """A finished game step by step as one seat saw it (no ``seat``: as a spectator)."""
        m = mgr(request)
        t = await m.get(table_id)
        if t is None:
            raise HTTPException(404, f"there is no table {table_id!r}")
        try:
            return await asyncio.to_thread(m.replay_json, t, seat)
        except ProtocolError as e:
            raise HTTPException(409 if e.code == "not_over" else 422, e.message) from None

    @app.get("/healthz")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        m: Manager = websocket.app.state.manager
        conn = Conn()

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

    app.mount("/static", StaticFiles(directory=WEB), name="static")
    return app


def app_from_env() -> FastAPI:
    """``uvicorn --factory civlite.server.app:app_from_env`` (settings from the environment)."""
    return create_app()
