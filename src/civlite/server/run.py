"""Start the server (used by ``civlite serve`` and ``python -m civlite.server``)."""

from __future__ import annotations

import sys

from .storage import default_db_url, normalize_url


def serve(host: str = "127.0.0.1", port: int = 8000, db: str | None = None, bot_delay: float | None = None,
          log_level: str = "warning", rate_limit: float | None = None, bot_processes: int | None = None) -> None:
    import uvicorn

    from .app import create_app

    url = db or default_db_url()
    app = create_app(url, bot_delay=bot_delay, rate_limit=rate_limit, bot_processes=bot_processes)
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    where = normalize_url(url)
    if "@" in where:  # hide a password
        where = where.split("://")[0] + "://…@" + where.rsplit("@", 1)[1]
    sys.stdout.write(f"Civ Lite server: open http://{shown}:{port}/  (storage: {where})\n")
    sys.stdout.flush()
    # no per-message deflate: frames are small, and compressing each costs more CPU than it saves
    uvicorn.run(app, host=host, port=port, log_level=log_level, ws_ping_interval=20, ws_ping_timeout=20,
                ws_per_message_deflate=False, ws="websockets-sansio")
