"""Issue 13.4-5: the Host header (DNS rebinding), the WebSocket's Origin, security headers on
every answer, and the per-address limits (tables created, connections open, frame and body
sizes), on a live server."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from civlite.server.guard import Buckets, Counter, Guard, default_hosts, host_name

from .conftest import Client, ServerProc, token_of

SEATS = [{"kind": "human"}, {"kind": "bot", "bot": "random"}]


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProc]:
    url = f"sqlite:///{tmp_path_factory.mktemp('guard') / 'civlite.db'}"
    s = ServerProc(url, rate_limit=0, args=["--allow-host", "play.example", "--allow-origin", "https://friend.example",
                                            "--tables-per-minute", "3", "--connections-per-address", "4"]).start()
    try:
        yield s
    finally:
        s.stop()


def test_every_page_carries_the_security_headers(guarded: ServerProc) -> None:
    for path in ("/", "/t/abc", "/static/app.js", "/static/style.css", "/api/meta", "/api/tables/nosuch", "/healthz"):
        r = httpx.get(guarded.url + path)
        h = r.headers
        csp = h["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp and "style-src 'self'" in csp, path
        assert "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert f"ws://127.0.0.1:{guarded.port}" in csp  # the page's own WebSocket
        assert h["x-content-type-options"] == "nosniff" and h["referrer-policy"] == "no-referrer", path
        assert h["x-frame-options"] == "DENY"
    # the page has no inline script or style for the policy to block
    page = httpx.get(guarded.url + "/").text
    assert "<script>" not in page and "<style" not in page and " style=" not in page and "onload=" not in page


def test_a_foreign_host_name_is_refused_dns_rebinding(guarded: ServerProc) -> None:
    r = httpx.get(guarded.url + "/", headers={"Host": "evil.example"})
    assert r.status_code == 421 and r.json()["code"] == "bad_host" and "--allow-host" in r.json()["detail"]
    assert r.headers["x-content-type-options"] == "nosniff"
    assert httpx.post(guarded.url + "/api/tables", json={"seats": SEATS}, headers={"Host": "evil.example:80"}).status_code == 421
    with pytest.raises(InvalidStatus) as e:
        # the name resolves to this server (as a rebinding DNS would make it)
        connect(f"ws://evil.example:{guarded.port}/ws", sock=socket.create_connection(("127.0.0.1", guarded.port)),
                open_timeout=10)
    assert e.value.response.status_code == 403
    # loopback names, and the names it was told to serve
    for host in (f"localhost:{guarded.port}", f"127.0.0.1:{guarded.port}", "play.example", "PLAY.example:443"):
        assert httpx.get(guarded.url + "/healthz", headers={"Host": host}).status_code == 200, host


def test_only_the_servers_own_pages_may_open_the_websocket(guarded: ServerProc) -> None:
    for origin in ("https://evil.example", f"http://127.0.0.1:{guarded.port + 1}", "null", "http://play.example.evil"):
        with pytest.raises(InvalidStatus) as e:
            connect(guarded.ws_url, additional_headers={"Origin": origin}, open_timeout=10)
        assert e.value.response.status_code == 403, origin
    for origin in (f"http://127.0.0.1:{guarded.port}", "https://friend.example"):
        with connect(guarded.ws_url, additional_headers={"Origin": origin}, open_timeout=10) as ws:
            ws.send(json.dumps({"v": 1, "type": "ping"}))
            assert json.loads(ws.recv(timeout=10))["type"] == "pong"
    with connect(guarded.ws_url, open_timeout=10) as ws:  # not a browser (no Origin): a bot, a script
        ws.send(json.dumps({"v": 1, "type": "ping"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "pong"


def test_connections_per_address_are_capped(guarded: ServerProc) -> None:
    open_ = [Client(guarded.ws_url) for _ in range(4)]
    try:
        extra = Client(guarded.ws_url)
        m = extra.recv()
        assert m["type"] == "error" and m["code"] == "too_many_connections" and "at most 4" in m["message"]
        with pytest.raises(ConnectionClosed):
            extra.recv()
        open_.pop().close()  # one closed: one may come
        again = Client(guarded.ws_url)
        again.send({"v": 1, "type": "ping"})
        assert again.recv()["type"] == "pong"
        open_.append(again)
    finally:
        for c in open_:
            c.close()


def test_table_creation_is_limited_per_address(guarded: ServerProc) -> None:
    made = [httpx.post(guarded.url + "/api/tables", json={"seats": SEATS}) for _ in range(5)]
    codes = [r.status_code for r in made]
    assert codes.count(201) <= 3 and codes[-1] == 429, codes  # 3 a minute (other tests here made some too)
    r = made[-1]
    assert r.json()["code"] == "rate_limited" and "at most 3 tables or new links a minute" in r.json()["detail"]
    assert int(r.headers["retry-after"]) >= 1
    # new invite links share the budget (each is a write too): refused, and the old link still works
    t = made[0].json() if made[0].status_code == 201 else None
    if t is not None:
        r = httpx.post(guarded.url + f"/api/tables/{t['id']}/seats/0/invite", json={"token": token_of(t, 0)})
        assert r.status_code == 429 and "new invite links" in r.json()["detail"]
        c = Client(guarded.ws_url)
        assert c.hello(t["id"], token_of(t, 0))["seat"] == 0
        c.close()
    assert httpx.get(guarded.url + "/api/tables").status_code == 200  # reading is not limited


def test_frames_and_bodies_are_bounded(guarded: ServerProc) -> None:
    c = Client(guarded.ws_url)
    c.send("x" * 20000)  # past a message's 16384 characters, under the frame limit: an error reply
    m = c.recv()
    assert m["type"] == "error" and "too long" in m["message"]
    c.send("x" * 70000)  # past the frame limit (64 KiB): the connection is closed (1009)
    with pytest.raises(ConnectionClosed) as e:
        c.recv()
    assert e.value.rcvd is not None and e.value.rcvd.code == 1009
    r = httpx.post(guarded.url + "/api/tables", content=b"{" + b" " * 70000 + b"}",
                   headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "too_large"


def test_limiters_stay_bounded() -> None:
    now = [0.0]
    b = Buckets(rate=1.0, burst=2.0, max_keys=100, clock=lambda: now[0])
    assert b.take("a") == 0 and b.take("a") == 0 and b.take("a") == pytest.approx(1.0)
    assert b.take("b") == 0  # another address has its own bucket
    now[0] += 1.0
    assert b.take("a") == 0
    for i in range(1000):
        b.take(f"k{i}")
    assert len(b) == 100
    c = Counter(per_key=2, total=3)
    assert c.acquire("a") is None and c.acquire("a") is None
    assert "at most 2" in (c.acquire("a") or "")
    assert c.acquire("b") is None and "maximum of 3" in (c.acquire("c") or "")
    for k in ("a", "a", "b"):
        c.release(k)
    assert c.n == 0 and not c.counts


def test_host_names() -> None:
    assert host_name("Example.org:8000") == "example.org" and host_name("[::1]:80") == "::1" and host_name("::1") == "::1"
    assert {"localhost", "127.0.0.1", "::1"} <= default_hosts("127.0.0.1")
    assert "10.1.2.3" in default_hosts("10.1.2.3") and "evil.example" not in default_hosts("0.0.0.0")
    g = Guard(lambda *a: None, hosts=["*"])  # type: ignore[arg-type, return-value]
    assert g.host_ok("anything") and g.origin_ok(None, "x") and not g.origin_ok("https://a.example", "b.example")


def test_an_invite_link_can_be_replaced_by_its_holder(server: ServerProc, tmp_path: Path) -> None:
    t = server.create([{"kind": "human"}, {"kind": "human"}])
    old, other = token_of(t, 0), token_of(t, 1)
    a, spectator = Client(server.ws_url), Client(server.ws_url)
    assert a.hello(t["id"], old)["seat"] == 0
    spectator.hello(t["id"], None)
    path = f"/api/tables/{t['id']}/seats/0/invite"
    # only the seat's holder may: another seat's token, a made-up one, a bot's or a missing seat
    assert httpx.post(server.url + path, json={"token": other}).status_code == 403
    assert httpx.post(server.url + path, json={"token": "x" * 24}).status_code == 403
    assert httpx.post(server.url + f"/api/tables/{t['id']}/seats/5/invite", json={"token": old}).status_code == 422
    assert httpx.post(server.url + "/api/tables/nosuch/seats/0/invite", json={"token": old}).status_code == 404
    r = httpx.post(server.url + path, json={"token": old})
    assert r.status_code == 200, r.text
    invite = r.json()["invite"]
    new = invite.split("#k=")[1]
    assert invite.startswith(f"/t/{t['id']}#k=") and new != old
    # the socket that held the seat with the old link is told and closed; the spectator stays
    m = a.until(lambda m: m["type"] == "error")
    assert m["code"] == "revoked" and "replaced" in m["message"]
    with pytest.raises(ConnectionClosed):
        a.until(lambda m: False, timeout=10)
    spectator.send({"v": 1, "type": "ping"})
    assert spectator.until(lambda m: m["type"] == "pong")
    # the old link no longer opens the seat (nor replaces it again); the new one does
    assert Client(server.ws_url).hello(t["id"], old)["code"] == "bad_token"
    assert httpx.post(server.url + path, json={"token": old}).status_code == 403
    assert Client(server.ws_url).hello(t["id"], new)["seat"] == 0
    assert Client(server.ws_url).hello(t["id"], other)["seat"] == 1  # the other seat is untouched
    spectator.close()


def test_serve_speaks_tls_with_a_key_and_certificate(tmp_path: Path) -> None:
    import ssl
    import subprocess

    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    s = ServerProc(f"sqlite:///{tmp_path / 'tls.db'}", args=["--ssl-keyfile", str(key), "--ssl-certfile", str(cert)])
    s.start()
    try:
        ctx = ssl.create_default_context(cafile=str(cert))
        r = httpx.get(s.url + "/", verify=ctx)
        assert r.status_code == 200 and "frame-ancestors 'none'" in r.headers["content-security-policy"]
        assert f"wss://127.0.0.1:{s.port}" in r.headers["content-security-policy"]
        with connect(s.ws_url, ssl=ctx, additional_headers={"Origin": s.url}, open_timeout=10) as ws:
            ws.send(json.dumps({"v": 1, "type": "ping"}))
            assert json.loads(ws.recv(timeout=10))["type"] == "pong"
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{s.port}/healthz", timeout=5)  # no plain HTTP on that port
    finally:
        s.stop()
