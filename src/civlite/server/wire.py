"""uvicorn's own answers (a request it cannot parse, a WebSocket handshake it refuses) carry the
same security headers as the app's: these answers never reach the ASGI app, so the guard's
middleware cannot add them."""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .guard import CSP, HEADERS

#: what every answer uvicorn writes by itself carries (no page is served, so no WebSocket source)
SECURITY = [(b"content-security-policy", CSP.format(ws="").encode("latin-1")), *HEADERS]


class GuardedH11(H11Protocol):
    """HTTP/1.1 whose "400 Invalid HTTP request" carries the security headers."""

    def send_400_response(self, msg: str) -> None:
        import h11

        body = msg.encode("ascii")
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                   (b"connection", b"close"), *SECURITY]
        self.transport.write(self.conn.send(h11.Response(status_code=400, headers=headers, reason=b"Bad Request")))
        self.transport.write(self.conn.send(h11.Data(data=body)))
        self.transport.write(self.conn.send(h11.EndOfMessage()))
        self.transport.close()


class GuardedWebSocket(WebSocketsSansIOProtocol):
    """WebSockets whose refused handshakes (400 for a malformed one, 403 when the guard closes
    it before accepting) carry the security headers."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        reject = self.conn.reject

        def guarded_reject(*a: Any, **k: Any) -> Any:
            response = reject(*a, **k)
            for name, value in SECURITY:
                response.headers[name.decode()] = value.decode("latin-1")
            return response

        self.conn.reject = guarded_reject  # type: ignore[method-assign]
