"""Issue 29's server findings: bodies that are not text answer 422 with nothing at error level;
listing tables during a PostgreSQL outage answers 503; every refusal (421, 413, 400, a refused
WebSocket handshake) carries the Content-Security-Policy; ``X-Forwarded-For`` is believed only
from the proxies the operator names."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from civlite.server.guard import Guard, body_problem, parse_trusted

from .conftest import PgCluster, ServerProc

SEATS = [{"kind": "human"}, {"kind": "bot", "bot": "random"}]
JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProc]:
    url = f"sqlite:///{tmp_path_factory.mktemp('findings') / 'civlite.db'}"
    s = ServerProc(url, rate_limit=0, args=["--tables-per-minute", "0"]).start()
    try:
        yield s
    finally:
        s.stop()


def _raw(port: int, request: bytes) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
    return out.decode("latin-1")


def _no_error_logged(server: ServerProc) -> None:
    log = server.log_path.read_text()
    assert "ERROR" not in log and "Traceback" not in log, log[-3000:]


@pytest.mark.parametrize("body", [
    b'{"seats": [{"kind": "human", "name": "\xff"}, {"kind": "bot", "bot": "random"}]}',  # not UTF-8
    b'\xfe\xff{"seats": []}',
    b'{"seats": [{"kind": "human", "name": "\\ud800"}, {"kind": "bot", "bot": "random"}]}',  # a lone surrogate
    b'{"seats": [{"kind": "hu\\udc00man"}]}',  # where validation would echo it back
    b'{"seats\\uDBFF": 1}',  # in a key
])
def test_a_body_that_is_not_text_is_refused_422_with_nothing_logged_at_error(live: ServerProc, body: bytes) -> None:
    before = httpx.get(live.url + "/api/tables?status=all").json()
    r = httpx.post(live.url + "/api/tables", content=body, headers=JSON)
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "bad_body" and "nothing changed" in r.json()["detail"]
    assert "content-security-policy" in r.headers
    assert httpx.get(live.url + "/api/tables?status=all").json() == before  # nothing made
    _no_error_logged(live)


def test_a_surrogate_pair_is_text_and_is_taken(live: ServerProc) -> None:
    r = httpx.post(live.url + "/api/tables", content=b'{"seats": [{"kind": "human", "name": "\\ud83d\\ude00"},'
                   b' {"kind": "bot", "bot": "random"}]}', headers=JSON)
    assert r.status_code == 201 and r.json()["seats"][0]["name"] == "\N{GRINNING FACE}"


def test_body_problems_named() -> None:
    assert body_problem(b"", None) is None and body_problem(b'{"a": "\\u00e9"}', "application/json") is None
    assert "UTF-8 (byte 1)" in (body_problem(b"a\xc3", None) or "")
    assert "lone surrogate" in (body_problem(b'["\\ud800"]', "application/json") or "")
    assert body_problem(b'{"a": "\\ud800', "application/json") is None  # malformed JSON: the route names it


def _has_csp(head: str) -> bool:
    return "content-security-policy: default-src 'none'" in head.lower() and "x-content-type-options: nosniff" in head.lower()


def test_every_refusal_carries_the_content_security_policy(live: ServerProc) -> None:
    r = httpx.get(live.url + "/", headers={"Host": "evil.example"})
    assert r.status_code == 421 and "default-src 'none'" in r.headers["content-security-policy"]
    r = httpx.post(live.url + "/api/tables", content=b"{" + b" " * 70000 + b"}", headers=JSON)
    assert r.status_code == 413 and "default-src 'none'" in r.headers["content-security-policy"]

    def chunked() -> Iterator[bytes]:  # no Content-Length: refused once past the limit
        for _ in range(10):
            yield b" " * 10000

    r = httpx.post(live.url + "/api/tables", content=chunked(), headers=JSON)
    assert r.status_code == 413 and "default-src 'none'" in r.headers["content-security-policy"]
    bad = _raw(live.port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon here\r\n\r\n")  # uvicorn's own 400
    assert bad.startswith("HTTP/1.1 400") and _has_csp(bad), bad
    ws = _raw(live.port, b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
    assert ws.startswith("HTTP/1.1 400") and _has_csp(ws), ws
    foreign = _raw(live.port, b"GET /ws HTTP/1.1\r\nHost: evil.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    assert foreign.startswith("HTTP/1.1 403") and _has_csp(foreign), foreign


def test_listing_tables_during_a_postgresql_outage_answers_503(pg_cluster: PgCluster, tmp_path: Path) -> None:
    s = ServerProc(pg_cluster.url, rate_limit=0, log=tmp_path / "server.log").start()
    try:
        assert httpx.post(s.url + "/api/tables", json={"seats": SEATS}).status_code == 201
        assert len(httpx.get(s.url + "/api/tables").json()) == 1
        pg_cluster.stop()
        r = httpx.get(s.url + "/api/tables", timeout=30)
        assert r.status_code == 503 and r.json()["code"] == "unavailable", r.text
        assert "try again later" in r.json()["detail"]
        pg_cluster.start()
        r = httpx.get(s.url + "/api/tables", timeout=30)
        assert r.status_code == 200 and len(r.json()) == 1
        _no_error_logged(s)
    finally:
        s.stop()


# -- X-Forwarded-For -------------------------------------------------------------------------
def _client_seen(guard_kw: dict[str, Any], peer: str, forwarded: str | None) -> str:
    seen: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["client"][0])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    g = Guard(app, hosts=["*"], **guard_kw)
    headers = [(b"host", b"x")] + ([(b"x-forwarded-for", forwarded.encode())] if forwarded else [])
    scope = {"type": "http", "method": "GET", "path": "/", "headers": headers, "client": (peer, 5000)}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        pass

    asyncio.run(g(scope, receive, send))
    return seen[0]


def test_x_forwarded_for_is_believed_only_from_named_proxies() -> None:
    # by default no one is trusted: not even loopback (any local process could reset its limits)
    assert _client_seen({}, "127.0.0.1", "203.0.113.9") == "127.0.0.1"
    trusted = {"trusted": ["127.0.0.1", "10.0.0.0/8"]}
    assert _client_seen(trusted, "127.0.0.1", "203.0.113.9") == "203.0.113.9"
    # the last hop that is not a trusted proxy: what the client wrote before it is not believed
    assert _client_seen(trusted, "127.0.0.1", "1.2.3.4, 203.0.113.9, 10.1.1.1") == "203.0.113.9"
    assert _client_seen(trusted, "192.0.2.7", "203.0.113.9") == "192.0.2.7"  # not from a named proxy
    assert _client_seen(trusted, "127.0.0.1", "not-an-address") == "127.0.0.1"
    assert _client_seen(trusted, "127.0.0.1", None) == "127.0.0.1"
    with pytest.raises(ValueError, match="'localhostt'"):
        parse_trusted(["localhostt"])


@pytest.mark.parametrize("trust", [False, True])
def test_per_address_limits_follow_the_trusted_proxy_setting(tmp_path: Path, trust: bool) -> None:
    args = ["--tables-per-minute", "1", *(["--trust-proxy", "127.0.0.1"] if trust else [])]
    s = ServerProc(f"sqlite:///{tmp_path / 'xff.db'}", rate_limit=0, args=args).start()
    try:
        codes = [httpx.post(s.url + "/api/tables", json={"seats": SEATS},
                            headers={"X-Forwarded-For": f"198.51.100.{i}"}).status_code for i in range(1, 4)]
        # trusted: three clients, one table each; not trusted: one local address, limited
        assert codes == ([201, 201, 201] if trust else [201, 429, 429])
    finally:
        s.stop()
