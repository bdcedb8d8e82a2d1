"""``python -m civlite.server [--host H] [--port P] [--db URL] ...``: the same as ``civlite serve``."""

from __future__ import annotations

import argparse
from typing import Any

from .lobby import load_rulesets, offered_rulesets
from .run import LOG_LEVELS, serve


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m civlite.server")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--db", default=None)
    p.add_argument("--bot-delay", type=float, default=None)
    p.add_argument("--log-level", default=None, choices=LOG_LEVELS,
                   help="the least level logged (default CIVLITE_LOG_LEVEL, else warning)")
    p.add_argument("--rate-limit", type=float, default=None, help="messages a second per connection (0: off)")
    p.add_argument("--bot-processes", type=int, default=None, help="worker processes for search bots (0: threads)")
    p.add_argument("--allow-host", action="append", default=None,
                   help="a Host name to serve besides loopback and --host (repeatable; '*': any)")
    p.add_argument("--allow-origin", action="append", default=None,
                   help="another origin whose pages may open the WebSocket, e.g. https://example.org (repeatable)")
    p.add_argument("--ssl-keyfile", default=None, help="TLS private key (PEM), with --ssl-certfile")
    p.add_argument("--ssl-certfile", default=None, help="TLS certificate chain (PEM), with --ssl-keyfile")
    p.add_argument("--tables-per-minute", type=float, default=None, help="tables one address may create a minute (0: off)")
    p.add_argument("--connections-per-address", type=int, default=None, help="open WebSockets per address")
    p.add_argument("--idle-seconds", type=float, default=None,
                   help="a table nobody watches and where nothing runs leaves memory after this long")
    p.add_argument("--trust-proxy", action="append", default=None,
                   help="a reverse proxy's address or network whose X-Forwarded-For names the client (repeatable; "
                   "default: none)")
    p.add_argument("--abandoned-seconds", type=float, default=None,
                   help="a table where nobody has acted this long is marked abandoned in the lobby (default 3600)")
    p.add_argument("--close-seconds", type=float, default=None,
                   help="an abandoned table is closed after this long without a move (default 604800; 0: never)")
    p.add_argument("--rules", action="append", default=None,
                   help="a rule-set TOML file the lobby offers beside its own, by its name (repeatable)")
    a = p.parse_args()
    settings: dict[str, Any] = {k: v for k, v in (("tables_per_minute", a.tables_per_minute),
                                  ("connections_per_address", a.connections_per_address),
                                  ("idle_seconds", a.idle_seconds), ("trusted_proxies", a.trust_proxy),
                                  ("abandoned_seconds", a.abandoned_seconds), ("close_seconds", a.close_seconds))
                                 if v is not None}
    if a.rules:
        try:
            rulesets = load_rulesets(a.rules)
            offered_rulesets(rulesets)  # a name that is taken: refused before the server starts
        except ValueError as e:
            p.error(str(e))
        settings["rulesets"] = rulesets
    serve(a.host, a.port, a.db, a.bot_delay, log_level=a.log_level, rate_limit=a.rate_limit, bot_processes=a.bot_processes,
          allow_hosts=a.allow_host, allow_origins=a.allow_origin, ssl_keyfile=a.ssl_keyfile,
          ssl_certfile=a.ssl_certfile, **settings)


if __name__ == "__main__":
    main()
