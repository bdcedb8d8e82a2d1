"""Browser-facing guards, as one ASGI middleware: the Host header (against DNS rebinding), the
Origin of a WebSocket (only the server's own page may play a seat, unless allowed), and the
security headers of every HTTP answer (a strict Content-Security-Policy and friends).

Also the small per-address limiters the app uses (table creation, open connections): each is
bounded in memory whatever the number of addresses that come.
"""

from __future__ import annotations

import json
import socket
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from .protocol import refusal

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: names a server on this machine is always reachable by
LOOPBACK = ("localhost", "127.0.0.1", "::1", "[::1]")
#: the web client is vendored ES modules and a stylesheet, all from /static: nothing inline, no
#: eval, no other site. ``connect-src`` names ws(s) of the page's own host too (older browsers
#: do not count ws: as 'self')
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
       "connect-src 'self'{ws}; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
#: the largest HTTP request body taken (a table's set-up is well under 2 KiB)
MAX_BODY = 65536
HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),  # an invite link (its token is in the #fragment) never leaks
    (b"x-frame-options", b"DENY"),  # frame-ancestors for browsers that predate it
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
]


def default_hosts(bind: str | None) -> set[str]:
    """Loopback names, plus the bind address; for a wildcard bind (0.0.0.0, ::) this machine's
    name and addresses too (others on the network reach it by those)."""
    hosts = {h.lower() for h in LOOPBACK}
    if bind and bind not in ("0.0.0.0", "::", ""):
        hosts.add(bind.lower().strip("[]"))
    elif bind is not None:
        try:
            name = socket.gethostname()
            hosts.add(name.lower())
            hosts.update(socket.gethostbyname_ex(name)[2])
            hosts.add(socket.getfqdn().lower())
        except OSError:
            pass
    return hosts


def host_name(host_header: str) -> str:
    """``example.org:8000`` -> ``example.org``; ``[::1]:8000`` -> ``::1``."""
    h = host_header.strip().lower()
    if h.startswith("["):
        return h[1:h.index("]")] if "]" in h else h
    return h.rsplit(":", 1)[0] if h.count(":") == 1 else h


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", ()):
        if k == name:
            return bytes(v).decode("latin-1")
    return None


class Guard:
    """ASGI middleware. ``hosts``: the Host names served (``"*"``: any); ``origins``: other
    origins whose pages may open the WebSocket (``"*"``: any), besides the server's own."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str], origins: Iterable[str] = ()) -> None:
        self.app = app
        self.hosts = {host_name(h) if h != "*" else "*" for h in hosts}
        self.origins = {o.rstrip("/").lower() for o in origins}

    def host_ok(self, host: str | None) -> bool:
        if "*" in self.hosts:
            return True
        return host is not None and host_name(host) in self.hosts

    def origin_ok(self, origin: str | None, host: str | None) -> bool:
        """No Origin: not a browser page (browsers always send one on a WebSocket)."""
        if origin is None or "*" in self.origins:
            return True
        o = origin.rstrip("/").lower()
        if o in self.origins:
            return True
        parts = urlsplit(o)
        # the page's own origin: the same host and port as this request (behind a TLS proxy the
        # page is https and the request may be plain, so the scheme is not compared)
        return parts.scheme in ("http", "https") and host is not None and parts.netloc == host.strip().lower()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = _header(scope, b"host")
        if not self.host_ok(host):
            why = (f"this server does not answer to the host name {host!r} (a guard against DNS rebinding); "
                   "start it with --allow-host NAME to serve that name")
            await self._refuse(scope, send, 421 if kind == "http" else 403, "bad_host", why)
            return
        if kind == "websocket":
            origin = _header(scope, b"origin")
            if not self.origin_ok(origin, host):
                why = (f"a page from {origin!r} may not open this server's WebSocket (only its own pages may); "
                       "start the server with --allow-origin ORIGIN to allow it")
                await self._refuse(scope, send, 403, "bad_origin", why)
                return
            await self.app(scope, receive, send)
            return
        length = _header(scope, b"content-length")
        if length is not None and (not length.strip().isdigit() or int(length) > MAX_BODY):
            await self._refuse(scope, send, 413, "too_large", f"a request body is at most {MAX_BODY} bytes")
            return
        seen = 0

        async def receive_bounded() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > MAX_BODY:  # a chunked body past the limit: treated as a disconnect
                    return {"type": "http.disconnect"}
            return message

        ws = ""
        if host:
            h = host.strip().lower()
            ws = f" ws://{h} wss://{h}"
        csp = CSP.format(ws=ws).encode("latin-1")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", ()) if k.lower() != b"content-security-policy"]
                headers.append((b"content-security-policy", csp))
                headers.extend(HEADERS)
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive_bounded, send_with_headers)

    @staticmethod
    async def _refuse(scope: Scope, send: Send, status: int, code: str, why: str) -> None:
        if scope["type"] == "websocket":
            # closing before accepting: the handshake is answered 403 (the reason goes to the log)
            await send({"type": "websocket.close", "code": 1008, "reason": why[:120]})
            return
        body = json.dumps(refusal(code, why)).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                *HEADERS]})
        await send({"type": "http.response.body", "body": body})


class Buckets:
    """Token buckets per key (a client address): ``rate`` a second on average, ``burst`` at once.
    At most ``max_keys`` buckets are kept (the least recently used are forgotten: a forgotten
    bucket comes back full, which is what a long-quiet key would have anyway)."""

    def __init__(self, rate: float, burst: float, max_keys: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.max_keys, self.clock = rate, burst, max_keys, clock
        self._b: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str) -> float:
        """0.0 when one is taken; else the seconds until one is available (nothing taken)."""
        now = self.clock()
        level, stamp = self._b.pop(key, (self.burst, now))
        level = min(self.burst, level + (now - stamp) * self.rate)
        if level >= 1.0:
            level -= 1.0
            wait = 0.0
        else:
            wait = (1.0 - level) / self.rate if self.rate > 0 else float("inf")
        self._b[key] = (level, now)
        while len(self._b) > self.max_keys:
            self._b.popitem(last=False)
        return wait

    def __len__(self) -> int:
        return len(self._b)


class Counter:
    """Open things (connections) per key, with a cap per key and a cap in all."""

    def __init__(self, per_key: int, total: int) -> None:
        self.per_key, self.total = per_key, total
        self.counts: dict[str, int] = {}
        self.n = 0

    def acquire(self, key: str) -> str | None:
        """None when taken; else why not (a sentence)."""
        if self.n >= self.total:
            return f"the server has its maximum of {self.total} connections open: try again later"
        if self.counts.get(key, 0) >= self.per_key:
            return (f"too many connections from your address (at most {self.per_key} at once): "
                    "close another tab or window of this server")
        self.counts[key] = self.counts.get(key, 0) + 1
        self.n += 1
        return None

    def release(self, key: str) -> None:
        c = self.counts.get(key, 0)
        if c <= 1:
            self.counts.pop(key, None)
        else:
            self.counts[key] = c - 1
        if c:
            self.n -= 1
