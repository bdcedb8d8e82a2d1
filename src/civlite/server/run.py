"""Start the server (used by ``civlite serve`` and ``python -m civlite.server``).

Every log line names its level (``INFO``, ``WARNING``, ``ERROR``) and its logger: uvicorn's,
civlite's and asyncio's, on standard error. An exception nobody handled in the event loop (a
task's, a callback's) is logged at ERROR with its traceback by :func:`on_loop_exception`; a
connection a client broke is a WARNING."""

from __future__ import annotations

import asyncio
import gc
import logging
import logging.config
import os
import socket
import sys
from typing import Any

from .storage import default_db_url, normalize_url

#: the largest WebSocket frame taken (bytes); a bigger one closes the connection (1009). A
#: client message is at most 16384 characters (checked again, with an error reply, when parsed)
WS_MAX_SIZE = 65536


#: the collector's thresholds on a server (Python's are 700, 10, 10): young collections 30
#: times rarer. Under 200 games they cost about a third of the server's CPU and stalled every
#: table several times a second (benchmarks/results/server_gc.txt)
GC_THRESHOLDS = (20_000, 20, 20)


def tune_gc() -> None:
    """Set the server process's garbage collector up for many long-lived games: everything
    loaded so far is frozen out of the collector's scans (``gc.freeze``), and collections
    come rarer (:data:`GC_THRESHOLDS`). ``CIVLITE_GC_TUNING=0`` keeps Python's defaults."""
    if os.environ.get("CIVLITE_GC_TUNING", "1").strip() == "0":
        return
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


#: every log line: when, the level's name, the logger, the message
LOG_FORMAT = "%(asctime)s %(levelname)s [%(name)s] %(message)s"
ACCESS_FORMAT = '%(asctime)s %(levelname)s [%(name)s] %(client_addr)s "%(request_line)s" %(status_code)s'
LOG_LEVELS = ("critical", "error", "warning", "info", "debug")

log = logging.getLogger("civlite.server")


def log_config(level: str = "warning") -> dict[str, Any]:
    """The server's logging (:func:`logging.config.dictConfig`): uvicorn's, civlite's and
    asyncio's loggers at ``level`` and above, each line with its level's name."""
    if level.lower() not in LOG_LEVELS:
        raise ValueError(f"unknown log level {level!r}: one of {', '.join(LOG_LEVELS)}")
    lvl = level.upper()
    plain = {"handlers": ["default"], "level": lvl, "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "default": {"format": LOG_FORMAT},
            "access": {"()": "uvicorn.logging.AccessFormatter", "fmt": ACCESS_FORMAT, "use_colors": False},
        },
        "handlers": {
            "default": {"class": "logging.StreamHandler", "formatter": "default", "stream": "ext://sys.stderr"},
            "access": {"class": "logging.StreamHandler", "formatter": "access", "stream": "ext://sys.stderr"},
        },
        "loggers": {
            "uvicorn": plain, "uvicorn.error": {"level": lvl}, "civlite": plain, "asyncio": plain, "py.warnings": plain,
            "uvicorn.access": {"handlers": ["access"], "level": lvl, "propagate": False},
        },
    }


def on_loop_exception(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The event loop's handler of what nobody handled: a task's or a callback's exception is
    logged at ERROR with its traceback; a connection that failed on the client's side (reset,
    broken pipe, a bad TLS handshake) at WARNING, without one."""
    exc = context.get("exception")
    message = str(context.get("message") or "unhandled exception in the event loop")
    task = context.get("task") or context.get("future")
    where = f" ({task.get_name()})" if isinstance(task, asyncio.Task) else ""
    if isinstance(exc, OSError) and ("transport" in context or "protocol" in context or "socket" in context):
        log.warning("%s%s: %s", message, where, exc)
        return
    log.error("%s%s", message, where, exc_info=(type(exc), exc, exc.__traceback__) if exc is not None else None)


def serve(host: str = "127.0.0.1", port: int = 8000, db: str | None = None, bot_delay: float | None = None,
          log_level: str | None = None, rate_limit: float | None = None, bot_processes: int | None = None,
          allow_hosts: list[str] | None = None, allow_origins: list[str] | None = None,
          ssl_keyfile: str | None = None, ssl_certfile: str | None = None, **settings: Any) -> None:
    """``allow_hosts`` are added to the default Host names (loopback and ``host``);
    ``settings``: more keyword arguments of :func:`create_app` (limits); ``log_level``: the
    least level logged (default CIVLITE_LOG_LEVEL, else ``warning``)."""
    import uvicorn

    from .app import create_app
    from .guard import default_hosts
    from .wire import GuardedH11, GuardedWebSocket

    if (ssl_keyfile is None) != (ssl_certfile is None):
        raise SystemExit("TLS needs both --ssl-keyfile and --ssl-certfile")
    level = (log_level or os.environ.get("CIVLITE_LOG_LEVEL", "") or "warning").strip().lower()
    try:
        logging.config.dictConfig(log_config(level))  # before the app is made: its lines too
        logging.captureWarnings(True)  # Python's warnings from now on: WARNING [py.warnings]
    except ValueError as e:
        raise SystemExit(str(e)) from None
    url = db or default_db_url()
    hosts = None
    if allow_hosts:
        hosts = sorted(default_hosts(host) | {h.strip() for h in allow_hosts if h.strip()})
    app = create_app(url, bot_delay=bot_delay, rate_limit=rate_limit, bot_processes=bot_processes,
                     allow_hosts=hosts, allow_origins=allow_origins, bind_host=host, **settings)
    tune_gc()
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    where = normalize_url(url)
    if "@" in where:  # hide a password
        where = where.split("://")[0] + "://…@" + where.rsplit("@", 1)[1]
    scheme = "https" if ssl_certfile else "http"
    sys.stdout.write(f"Civ Lite server: open {scheme}://{shown}:{port}/  (storage: {where})\n")
    sys.stdout.flush()
    # no per-message deflate: frames are small, and compressing each costs more CPU than it saves.
    # No proxy headers here: the app's guard believes X-Forwarded-For only from the proxies named
    # by --trust-proxy (uvicorn would believe it from 127.0.0.1, i.e. from any local process)
    config = uvicorn.Config(app, host=host, port=port, log_config=None, log_level=level, ws_ping_interval=20,
                            ws_ping_timeout=20, ws_per_message_deflate=False, http=GuardedH11, ws=GuardedWebSocket,
                            ws_max_size=WS_MAX_SIZE, ssl_keyfile=ssl_keyfile, ssl_certfile=ssl_certfile,
                            proxy_headers=False)
    server = _server(config)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    if not server.started:
        raise SystemExit(3)  # uvicorn's exit status when the server could not start


def _server(config: Any) -> Any:
    """A uvicorn server whose event loop logs what nobody handled (:func:`on_loop_exception`)."""
    import uvicorn

    class LoggedServer(uvicorn.Server):
        async def serve(self, sockets: list[socket.socket] | None = None) -> None:
            asyncio.get_running_loop().set_exception_handler(on_loop_exception)
            await super().serve(sockets)

    return LoggedServer(config)
