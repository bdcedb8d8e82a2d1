"""The server's log: every line names its level and its logger (uvicorn's, civlite's); a
client's mistakes are never logged at ERROR; an exception nobody handled in the event loop
is logged at ERROR with its traceback."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import re
import socket
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from civlite.server.run import LOG_FORMAT, log_config, on_loop_exception

from .conftest import ServerProc

#: a log line as the server writes it: time, level, [logger], message
LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) \[[\w.]+\] \S")


def client_mistakes(s: ServerProc) -> None:
    """What clients get wrong: malformed requests and frames, unknown tables, bad tokens."""
    assert httpx.post(s.url + "/api/tables", content=b"{not json", timeout=10,
                      headers={"content-type": "application/json"}).status_code == 422
    assert httpx.post(s.url + "/api/tables", json={"seats": "three"}, timeout=10).status_code == 422
    assert httpx.get(s.url + "/api/tables/nosuchtable", timeout=10).status_code == 404
    assert httpx.post(s.url + "/api/tables/nosuchtable/hint", json={"token": "x"}, timeout=10).status_code == 404
    t = s.create([{"kind": "human"}, {"kind": "human"}], victory_ct=4)
    assert httpx.post(f"{s.url}/api/tables/{t['id']}/hint", json={"token": "x"}, timeout=10).status_code == 403
    assert httpx.post(f"{s.url}/api/tables/{t['id']}/reviews/0", timeout=10).status_code == 409
    with socket.create_connection(("127.0.0.1", s.port), timeout=10) as raw:  # not HTTP at all
        raw.sendall(b"HELLO THERE\r\n\r\n")
        raw.recv(1024)
    with connect(s.ws_url, open_timeout=10) as ws:
        for frame in ("{not json", json.dumps({"v": 1, "type": "nonsense"}),
                      json.dumps({"v": 1, "type": "hello", "table": t["id"], "token": "wrong"})):
            ws.send(frame)
            ws.recv(timeout=10)
    with connect(s.ws_url, open_timeout=10, max_size=None) as ws:  # a frame over the size limit
        ws.send("x" * 100_000)
        try:
            ws.recv(timeout=10)
        except Exception:  # closed by the server (1009)
            pass


def test_log_lines_name_their_level_and_client_mistakes_are_not_errors(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # no warning at import, before logging is set up, when the compiled engine is older than its source
    monkeypatch.setenv("CIVLITE_PURE", "1")
    s = ServerProc(f"sqlite:///{tmp_path / 'civlite.db'}", rate_limit=0, log=tmp_path / "server.log",
                   args=["--log-level", "info", "--tables-per-minute", "0"]).start()
    try:
        client_mistakes(s)
    finally:
        s.stop()
    lines = [ln for ln in (tmp_path / "server.log").read_text().splitlines()
             if ln.strip() and not ln.startswith("Civ Lite server: open")]  # the banner, on stdout
    assert lines
    unmarked = [ln for ln in lines if not LINE.match(ln)]
    assert not unmarked, unmarked[:5]
    levels = {LINE.match(ln).group(1) for ln in lines}  # type: ignore[union-attr]
    assert "INFO" in levels  # uvicorn's start, the access log
    assert any("[uvicorn.access]" in ln and '"GET /api/tables/nosuchtable' in ln and " 404" in ln for ln in lines)
    assert any(" WARNING [uvicorn.error] Invalid HTTP request" in ln for ln in lines), lines
    assert not levels & {"ERROR", "CRITICAL"}, [ln for ln in lines if " ERROR " in ln or " CRITICAL " in ln]


_CONFIGURED = ("", "civlite", "civlite.server", "uvicorn", "uvicorn.error", "uvicorn.access", "asyncio", "py.warnings")


def test_an_unhandled_task_exception_is_logged_at_error(caplog: pytest.LogCaptureFixture) -> None:
    # the logging set-up is the process's: what this test changes is put back, so that later
    # tests in this process (caplog) see civlite's records as before
    saved = {n: (lg.handlers[:], lg.level, lg.propagate, lg.disabled)
             for n in _CONFIGURED for lg in [logging.getLogger(n)]}
    logging.config.dictConfig(log_config("warning"))  # as the server sets it up
    logging.getLogger("civlite").propagate = True  # for caplog
    try:
        loop = asyncio.new_event_loop()
        loop.set_exception_handler(on_loop_exception)

        async def fails() -> None:
            raise ValueError("something went wrong in a task")

        async def main() -> None:
            task = asyncio.create_task(fails(), name="the-failing-task")
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            assert task.done()

        with caplog.at_level(logging.WARNING, logger="civlite"):
            loop.run_until_complete(main())  # the task, never awaited, is dropped: its exception unread
            gc.collect()
            loop.call_exception_handler({"message": "a connection broke", "exception": ConnectionResetError(104, "reset"),
                                         "transport": object()})
        loop.close()
    finally:
        for n, (handlers, level, propagate, disabled) in saved.items():
            lg = logging.getLogger(n)
            lg.handlers[:] = handlers
            lg.setLevel(level)
            lg.propagate, lg.disabled = propagate, disabled
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1, caplog.records
    r = errors[0]
    assert r.name == "civlite.server" and "the-failing-task" in r.getMessage()
    assert r.exc_info is not None and isinstance(r.exc_info[1], ValueError)
    text = logging.Formatter(LOG_FORMAT).format(r)
    assert " ERROR [civlite.server] Task exception was never retrieved" in text
    assert "ValueError: something went wrong in a task" in text  # with its traceback
    warned = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 1 and "a connection broke" in warned[0].getMessage() and warned[0].exc_info is None
