"""The bot worker processes end with their server: when it stops (the search in progress is
not waited for) and when it dies abruptly (``kill -9``: each worker watches its parent).

A real server in a subprocess reviews a finished game with a search budget far larger than
the test waits for, so its workers are busy when the server goes."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from .conftest import ServerProc

#: how long the test waits for an event (a bound on polling, not a timing assertion)
PATIENCE = 60.0


def until(pred: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {PATIENCE:g} s: {what}")
        time.sleep(0.1)


def _ppid(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # after the command's name, which may hold spaces
    return None if fields[0] == "Z" else int(fields[1])  # a zombie has ended


def workers_of(server_pid: int) -> set[int]:
    """The multiprocessing workers whose parent is ``server_pid`` (not its resource tracker)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or _ppid(int(entry)) != server_pid:
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if b"multiprocessing.spawn" in cmdline:
            found.add(int(entry))
    return found


def alive(pids: set[int]) -> set[int]:
    return {p for p in pids if _ppid(p) is not None}


@pytest.fixture
def busy_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ServerProc, set[int]]]:
    """A server whose worker processes are computing a review that takes minutes (the largest budget)."""
    monkeypatch.setenv("CIVLITE_REVIEW_BUDGET", "50000")
    s = ServerProc(f"sqlite:///{tmp_path / 'civlite.db'}", rate_limit=0,
                   args=["--bot-processes", "1", "--tables-per-minute", "0"]).start()
    workers: set[int] = set()
    try:
        assert s.proc is not None
        t = s.create([{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}], victory_ct=4)
        until(lambda: httpx.get(f"{s.url}/api/tables/{t['id']}", timeout=10).json()["status"] == "over",
              "the bots' game to end")
        r = httpx.post(f"{s.url}/api/tables/{t['id']}/reviews/0", timeout=10)
        assert r.status_code == 200 and r.json()["status"] == "running", r.text

        def spawned() -> bool:
            workers.update(workers_of(s.proc.pid))  # type: ignore[union-attr]
            return bool(workers)

        until(spawned, "a worker process to start")
        until(lambda: httpx.get(f"{s.url}/api/tables/{t['id']}/reviews/0", timeout=10).json()["total"] > 0,
              "the review to be under way in the workers")
        yield s, workers
    finally:
        s.stop()
        for p in alive(workers):  # a failed test leaves nothing behind
            os.kill(p, signal.SIGKILL)


def test_workers_end_when_the_server_stops(busy_server: tuple[ServerProc, set[int]]) -> None:
    s, workers = busy_server
    assert s.proc is not None and alive(workers)
    s.proc.send_signal(signal.SIGTERM)
    until(lambda: s.proc is not None and s.proc.poll() is not None, "the server to exit")
    until(lambda: not alive(workers), f"the workers {sorted(alive(workers))} to exit after their server")
    assert "Traceback" not in s.log_path.read_text()


def test_workers_end_when_the_server_is_killed(busy_server: tuple[ServerProc, set[int]]) -> None:
    s, workers = busy_server
    assert alive(workers)
    s.kill9()
    until(lambda: not alive(workers), f"the workers {sorted(alive(workers))} to exit after their server's kill -9")
