"""``python -m civlite.server [--host H] [--port P] [--db URL]``: the same as ``civlite serve``."""

from __future__ import annotations

import argparse

from .run import serve


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m civlite.server")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--db", default=None)
    p.add_argument("--bot-delay", type=float, default=None)
    p.add_argument("--rate-limit", type=float, default=None, help="messages a second per connection (0: off)")
    p.add_argument("--bot-processes", type=int, default=None, help="worker processes for search bots (0: threads)")
    a = p.parse_args()
    serve(a.host, a.port, a.db, a.bot_delay, rate_limit=a.rate_limit, bot_processes=a.bot_processes)


if __name__ == "__main__":
    main()
