"""Fixtures for the server tests: a real uvicorn server in a subprocess, real databases, a WS client."""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "server"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProc:
    """``python -m civlite.server`` on 127.0.0.1 and a free port."""

    def __init__(self, db_url: str, bot_delay: float = 0.0, port: int | None = None, log: Path | None = None,
                 rate_limit: float | None = None, args: list[str] | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.db_url = db_url
        self.env = env or {}  # more environment variables (CIVLITE_...)
        self.args = args or []  # more options of python -m civlite.server
        self.bot_delay = bot_delay
        self.rate_limit = rate_limit  # None: the server's default
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = log or Path(tempfile.mkstemp(prefix="civlite-server-", suffix=".log")[1])

    @property
    def tls(self) -> bool:
        return "--ssl-certfile" in self.args

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"{'wss' if self.tls else 'ws'}://127.0.0.1:{self.port}/ws"

    def start(self, timeout: float = 30.0) -> ServerProc:
        env = dict(os.environ, PYTHONUNBUFFERED="1", **self.env)
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "civlite.server", "--host", "127.0.0.1", "--port", str(self.port),
             "--db", self.db_url, "--bot-delay", str(self.bot_delay),
             *(["--rate-limit", str(self.rate_limit)] if self.rate_limit is not None else []), *self.args],
            stdout=self._log, stderr=subprocess.STDOUT, env=env, cwd=str(ROOT))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-3000:]}")
            try:
                if httpx.get(self.url + "/healthz", timeout=1, verify=not self.tls).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"server did not start: {self.log_path.read_text()[-3000:]}")

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "_log", None):
            self._log.close()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def create(self, seats: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
        if "seed" in kw:  # a chosen seed: a practice table
            kw.setdefault("practice", True)
        r = httpx.post(self.url + "/api/tables", json={"seats": seats, **kw}, timeout=10)
        assert r.status_code == 201, r.text
        data: dict[str, Any] = r.json()
        return data


#: a short rule set for rated tables in tests (victory at 5 CT), offered by the server and named
#: as the one its rated tables play (CIVLITE_RATED_RULES): a creator cannot choose a rated table's rules
RATED5_TOML = 'name = "rated5"\nvictory_ct = 5\n'


def rated5_env(tmp: Path) -> dict[str, str]:
    f = tmp / "rated5.toml"
    f.write_text(RATED5_TOML)
    return {"CIVLITE_RULES": str(f), "CIVLITE_RATED_RULES": "rated5"}


def token_of(table: dict[str, Any], seat: int) -> str:
    invite = table["seats"][seat]["invite"]
    assert invite, f"seat {seat} has no invite"
    return str(invite.split("#k=")[1])


class Client:
    """A blocking WebSocket client speaking the protocol."""

    def __init__(self, ws_url: str, headers: dict[str, str] | None = None) -> None:
        self._cm = connect(ws_url, max_size=None, open_timeout=10, additional_headers=headers)
        self.ws: ClientConnection = self._cm.__enter__()
        self.frames: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        self.seq = 0
        self.n = 0

    def send(self, msg: Any) -> None:
        self.ws.send(msg if isinstance(msg, (str, bytes)) else json.dumps(msg))

    def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        m: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        self.frames.append(m)
        if m["type"] in ("welcome", "update"):
            if m["type"] == "welcome" or m["seq"] > self.seq:
                self.state = m["state"]
                self.seq = m["seq"]
        return m

    def until(self, pred: Any, timeout: float = 20.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message")
            m = self.recv(timeout=left)
            if pred(m):
                return m

    def hello(self, table: str, token: str | None) -> dict[str, Any]:
        self.send({"v": 1, "type": "hello", "table": table, "token": token})
        return self.until(lambda m: m["type"] in ("welcome", "error"))

    def act(self, action: dict[str, Any], id: str | None = None) -> str:
        self.n += 1
        aid = id or f"a{self.n}-{uuid.uuid4().hex[:8]}"
        self.send({"v": 1, "type": "action", "id": aid, "action": action})
        return aid

    def act_wait(self, action: dict[str, Any], id: str | None = None) -> dict[str, Any]:
        aid = self.act(action, id)
        return self.until(lambda m: m.get("id") == aid and m["type"] in ("ack", "error"))

    def play(self, action: dict[str, Any], id: str | None = None) -> dict[str, Any]:
        """Act, wait for the ack, then for the update it caused (or the error)."""
        r = self.act_wait(action, id)
        if r["type"] == "ack" and self.seq < r["seq"]:
            self.until(lambda m: self.seq >= r["seq"])
        return r

    def my_turn(self) -> bool:
        s = self.state
        return bool(s and s["pending"] and s["pending"]["player"] == s["seat"])

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


def simple_action(state: dict[str, Any], suits: dict[str, int]) -> dict[str, Any]:
    """A legal, simple choice built only from the seat's view (greedy for CT)."""
    p = state["pending"]
    kind = p["decision"]
    hand = state["hand"]
    by: dict[int, list[str]] = {}
    for c in hand:
        by.setdefault(suits[c], []).append(c)
    if kind == "action":
        if len(by.get(2, [])) >= 3:
            return {"do": "advanced", "cards": by[2][:3]}
        if len(by.get(1, [])) >= 2:
            return {"do": "advanced", "cards": by[1][:2]}
        if by.get(2):
            return {"do": "basic", "cards": by[2][:1]}
        return {"do": "pass"}
    if kind == "meld":
        if all(by.get(s) for s in range(6)) and (by.get(6) or by.get(7)):
            extra = (by.get(6) or by.get(7) or [])[0]
            return {"do": "meld", "cards": [by[s][0] for s in range(6)] + [extra]}
        return {"do": "pass"}
    if kind == "vision":
        return {"do": "take", "card": state["searching"][0]}
    if kind == "foundations":
        return {"do": "take", "card": state["discard"][0]}
    return {"do": "discard", "cards": sorted(hand)[: p.get("count", 1)]}


@pytest.fixture(scope="session")
def suits() -> dict[str, int]:
    from civlite.engine import CARDS

    return {c.name: int(c.suit) for c in CARDS}


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'civlite.db'}"


# -- PostgreSQL ------------------------------------------------------------------------------
def _pg_bin() -> str | None:
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: [int(x) for x in d.split("/")[-2].split(".") if x.isdigit()])
    for d in reversed(dirs):
        if os.path.exists(os.path.join(d, "initdb")):
            return d
    return None


class PgCluster:
    """A throw-away PostgreSQL cluster of its own (initdb in a temporary folder), which a test
    may stop and start again (``pg_ctl``)."""

    def __init__(self, pgbin: str) -> None:
        self.pgbin = pgbin
        self.dir = tempfile.mkdtemp(prefix="civlite-pg-")
        self.as_pg: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
            self.as_pg = ["runuser", "-u", "postgres", "--"]
        self.port = free_port()
        self.data = os.path.join(self.dir, "data")
        subprocess.run([*self.as_pg, f"{pgbin}/initdb", "-D", self.data, "-U", "postgres", "-A", "trust", "-E",
                        "UTF8", "--no-sync"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> PgCluster:
        subprocess.run([*self.as_pg, f"{self.pgbin}/pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "server.log"),
                        "-w", "-o", f"-k {self.dir} -p {self.port} -c listen_addresses=127.0.0.1 -c fsync=off "
                        "-c max_connections=200", "start"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return self

    def stop(self, mode: str = "fast") -> None:
        subprocess.run([*self.as_pg, f"{self.pgbin}/pg_ctl", "-D", self.data, "-m", mode, "-w", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A throw-away PostgreSQL cluster (skips when no binaries); yields its admin URL."""
    env_url = os.environ.get("CIVLITE_TEST_PG")
    if env_url:
        yield env_url
        return
    pgbin = _pg_bin()
    if pgbin is None:
        pytest.skip("no PostgreSQL binaries under /usr/lib/postgresql/*/bin")
    cluster = PgCluster(pgbin).start()
    try:
        yield cluster.url
    finally:
        cluster.remove()


@pytest.fixture
def pg_cluster() -> Iterator[PgCluster]:
    """A PostgreSQL cluster of this test's own, to stop and start (skips when no binaries)."""
    pgbin = _pg_bin()
    if pgbin is None:
        pytest.skip("no PostgreSQL binaries under /usr/lib/postgresql/*/bin")
    cluster = PgCluster(pgbin).start()
    try:
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture
def pg_url(pg_server: str) -> str:
    """A fresh database on the test cluster."""
    import psycopg

    name = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return pg_server.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'civlite.db'}"
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProc]:
    """One server per test module (SQLite); tests make their own tables. No rate limit: the
    hostile-input test sends thousands of frames as fast as it can (``test_rate_limit_*``
    checks the default limit on a server of its own)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('live') / 'civlite.db'}"
    # nor per-address limits: these tests open many connections and tables from one address
    # (test_guard checks the limits on a server of its own)
    s = ServerProc(url, rate_limit=0, args=["--connections-per-address", "10000", "--tables-per-minute", "0"]).start()
    try:
        yield s
    finally:
        s.stop()


# -- browser (pytest-playwright) -------------------------------------------------------------
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, "executable_path": os.environ.get("CIVLITE_CHROMIUM", "/usr/bin/chromium"),
            "args": BROWSER_ARGS}


class _CspFreeBrowser:
    """Playwright's ``wait_for_function`` evaluates a string in the page, which the server's
    Content-Security-Policy forbids (no eval): the browser tests' contexts bypass the policy
    unless a test asks for it (``bypass_csp=False``, as the CSP test does)."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def new_context(self, **kw: Any) -> Any:
        kw.setdefault("bypass_csp", True)
        return self._browser.new_context(**kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


@pytest.fixture
def browser(browser: Any) -> Any:
    return _CspFreeBrowser(browser)
