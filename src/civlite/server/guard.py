"""Browser-facing guards, as one ASGI middleware: the Host header (against DNS rebinding), the
Origin of a WebSocket (only the server's own page may play a seat, unless allowed), and the
security headers of every HTTP answer (a strict Content-Security-Policy and friends).

Also the small per-address limiters the app uses (table creation, open connections): each is
bounded in memory whatever the number of addresses that come.
"""

from __future__ import annotations

import ipaddress
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


def has_lone_surrogate(value: Any) -> bool:
    """Whether a parsed JSON value holds a string that is not Unicode (a lone surrogate such as
    ``"\\ud800"``, which JSON's escapes can write but UTF-8 cannot store)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def body_problem(body: bytes, content_type: str | None) -> str | None:
    """Why a request body cannot be read as text (None when it can): not UTF-8, or JSON holding
    a lone surrogate. Malformed JSON is left to the route (it answers 422 naming the place)."""
    if not body:
        return None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"the request body is not valid UTF-8 (byte {e.start})"
    if (content_type is None or "json" in content_type.lower()) and "\\u" in text.lower():
        try:
            parsed = json.loads(text)
        except ValueError:
            return None
        if has_lone_surrogate(parsed):
            return "the request body holds a lone surrogate (a \\uD800-\\uDFFF escape not in a pair), which is not text"
    return None


def parse_trusted(addresses: Iterable[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """The proxies whose ``X-Forwarded-For`` is believed: addresses or networks (``10.0.0.0/8``),
    or a clear error naming the one that is neither."""
    nets = []
    for a in addresses:
        a = a.strip()
        if not a:
            continue
        try:
            nets.append(ipaddress.ip_network(a, strict=False))
        except ValueError:
            raise ValueError(f"a trusted proxy must be an IP address or network, got {a!r}") from None
    return nets


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", ()):
        if k == name:
            return bytes(v).decode("latin-1")
    return None


class Guard:
    """ASGI middleware. ``hosts``: the Host names served (``"*"``: any); ``origins``: other
    origins whose pages may open the WebSocket (``"*"``: any), besides the server's own;
    ``trusted``: the proxies (addresses or networks) whose ``X-Forwarded-For`` names the client
    (none by default: the peer's address is the client's, whatever a header says)."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str], origins: Iterable[str] = (),
                 trusted: Iterable[str] = ()) -> None:
        self.app = app
        self.hosts = {host_name(h) if h != "*" else "*" for h in hosts}
        self.origins = {o.rstrip("/").lower() for o in origins}
        self.trusted = parse_trusted(trusted)

    def is_trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in net for net in self.trusted)

    def client_of(self, scope: Scope) -> None:
        """Behind a trusted proxy, the client is the last address in ``X-Forwarded-For`` that is
        not a trusted proxy itself (each proxy appends the peer it saw)."""
        client = scope.get("client")
        if not self.trusted or not client or not self.is_trusted(client[0]):
            return
        forwarded = _header(scope, b"x-forwarded-for")
        if not forwarded:
            return
        hops = [h.strip() for h in forwarded.split(",") if h.strip()]
        for hop in reversed(hops):
            if not self.is_trusted(hop):
                try:
                    ipaddress.ip_address(hop)
                except ValueError:
                    return  # not an address: the peer is kept
                scope["client"] = (hop, 0)
                return

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
        self.client_of(scope)
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
        chunks: list[bytes] = []
        seen = 0
        while True:  # the body, whole (at most MAX_BODY bytes), so that it is checked before the route
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = bytes(message.get("body", b""))
            seen += len(chunk)
            if seen > MAX_BODY:  # a chunked body past the limit
                await self._refuse(scope, send, 413, "too_large", f"a request body is at most {MAX_BODY} bytes")
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        problem = body_problem(body, _header(scope, b"content-type"))
        if problem is not None:
            await self._refuse(scope, send, 422, "bad_body", problem + "; nothing changed")
            return
        given = False

        async def receive_body() -> Message:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

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

        await self.app(scope, receive_body, send_with_headers)

    @staticmethod
    async def _refuse(scope: Scope, send: Send, status: int, code: str, why: str) -> None:
        if scope["type"] == "websocket":
            # closing before accepting: the handshake is answered 403 (the reason goes to the log)
            await send({"type": "websocket.close", "code": 1008, "reason": why[:120]})
            return
        body = json.dumps(refusal(code, why)).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"content-security-policy", CSP.format(ws="").encode("latin-1")), *HEADERS]})
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
