"""Start the server (used by ``civlite serve`` and ``python -m civlite.server``)."""

from __future__ import annotations

import gc
import os
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


def serve(host: str = "127.0.0.1", port: int = 8000, db: str | None = None, bot_delay: float | None = None,
          log_level: str = "warning", rate_limit: float | None = None, bot_processes: int | None = None,
          allow_hosts: list[str] | None = None, allow_origins: list[str] | None = None,
          ssl_keyfile: str | None = None, ssl_certfile: str | None = None, **settings: Any) -> None:
    """``allow_hosts`` are added to the default Host names (loopback and ``host``);
    ``settings``: more keyword arguments of :func:`create_app` (limits)."""
    import uvicorn

    from .app import create_app
    from .guard import default_hosts
    from .wire import GuardedH11, GuardedWebSocket

    if (ssl_keyfile is None) != (ssl_certfile is None):
        raise SystemExit("TLS needs both --ssl-keyfile and --ssl-certfile")
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
    uvicorn.run(app, host=host, port=port, log_level=log_level, ws_ping_interval=20, ws_ping_timeout=20,
                ws_per_message_deflate=False, http=GuardedH11, ws=GuardedWebSocket, ws_max_size=WS_MAX_SIZE,
                ssl_keyfile=ssl_keyfile, ssl_certfile=ssl_certfile, proxy_headers=False)
