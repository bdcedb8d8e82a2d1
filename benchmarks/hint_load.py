"""Hint askers against bot moves at another table: does one practice table's crowd of askers
slow the bots elsewhere?

    .venv/bin/python benchmarks/hint_load.py [--askers 20] [--seconds 20] [--bot hard] [--json]

Starts ``python -m civlite.server`` (SQLite in a temporary folder, no bot delay, worker
processes as by default, ``--trust-proxy 127.0.0.1`` so that each asker may speak for an
address of its own through ``X-Forwarded-For``). Table A: two ``--bot`` bots playing each
other; a spectator's WebSocket stamps each of their moves, and the time between two moves
is what a player waits for a bot. Table B: a practice table whose human seat is to move.
Three phases of ``--seconds`` each (each with a new table A): nobody asks for hints; ``--askers`` askers at table B
each from an address of its own, asking again as soon as answered; the same askers all from
one address. Reported per phase: the bot's move time at table A (p50 / p90, seconds), and
the hints answered and refused (429).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(db: Path, port: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "civlite.server", "--port", str(port), "--db", f"sqlite:///{db}",
                             "--bot-delay", "0", "--trust-proxy", "127.0.0.1", "--tables-per-minute", "0",
                             "--rate-limit", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--askers", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--bot", default="ismcts:iterations=400")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(Path(tmp) / "hints.db", port)
        try:
            out = run(url, a.askers, a.seconds, a.bot)
        finally:
            proc.terminate()
            proc.wait(30)
    out["load"] = os.getloadavg()
    out["cpus"] = os.cpu_count()
    if a.json:
        print(json.dumps(out, indent=1))
        return
    print(f"{out['cpus']} cores, load {out['load'][0]:.2f} {out['load'][1]:.2f} {out['load'][2]:.2f}; bot {a.bot}")
    for name, r in out["phases"].items():
        print(f"{name:>28}: bot move p50 {r['p50']:.2f} s, p90 {r['p90']:.2f} s ({r['moves']} moves); "
              f"hints answered {r['answered']}, refused {r['refused']}")


def bot_moves(url: str, bot: str, stamps: list[float], done: threading.Event) -> None:
    """A new table of two ``bot`` bots; each of their moves stamped until ``done``."""
    a = httpx.post(url + "/api/tables", json={"seats": [{"kind": "bot", "bot": bot}] * 2, "victory_ct": 1000},
                   timeout=10).json()
    with connect(url.replace("http", "ws") + "/ws", max_size=None) as ws:
        ws.send(json.dumps({"v": 1, "type": "hello", "table": a["id"], "token": None}))
        while not done.is_set():
            try:
                m = json.loads(ws.recv(timeout=1))
            except TimeoutError:
                continue
            except ConnectionClosed:
                return
            if m.get("type") == "update":
                stamps.append(time.perf_counter())


def run(url: str, askers: int, seconds: float, bot: str) -> dict[str, Any]:
    b = httpx.post(url + "/api/tables", json={"seats": [{"kind": "human"}, {"kind": "human"}], "victory_ct": 20,
                                              "practice": True, "seed": 5}, timeout=10).json()
    tokens = [s["invite"].split("#k=")[1] for s in b["seats"]]
    phases: dict[str, Any] = {}
    for name, n, own in (("no askers", 0, True), (f"{askers} askers, own addresses", askers, True),
                         (f"{askers} askers, one address", askers, False)):
        stamps: list[float] = []
        done = threading.Event()
        watcher = threading.Thread(target=bot_moves, args=(url, bot, stamps, done), daemon=True)
        watcher.start()
        time.sleep(3.0)  # the worker processes start and the bots warm up
        phases[name] = phase(url, b["id"], tokens, stamps, n, own, seconds)
        done.set()
        watcher.join(30)
    return {"phases": phases}


def phase(url: str, table: str, tokens: list[str], stamps: list[float], n: int, own: bool,
          seconds: float) -> dict[str, Any]:
    """``n`` askers at ``table`` for ``seconds`` (each from an address of its own when ``own``):
    the bot moves stamped meanwhile, and the hints answered and refused."""
    counts = {"answered": 0, "refused": 0}
    lock = threading.Lock()
    stop = threading.Event()

    def ask(i: int) -> None:
        with httpx.Client(timeout=60) as c:
            while not stop.is_set():
                for tok in tokens:  # one of the two seats is to move
                    r = c.post(f"{url}/api/tables/{table}/hint", json={"token": tok},
                               headers={"X-Forwarded-For": f"10.1.{i // 250}.{i % 250 + 1}" if own else "10.2.0.1"})
                    if r.status_code == 200:
                        with lock:
                            counts["answered"] += 1
                    elif r.status_code == 429:
                        with lock:
                            counts["refused"] += 1
                        stop.wait(min(5.0, float(r.headers.get("Retry-After", "1"))))

    threads = [threading.Thread(target=ask, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    t0 = time.perf_counter()
    time.sleep(seconds)
    t1 = time.perf_counter()
    stop.set()
    for t in threads:
        t.join(60)
    window = [s for s in stamps if t0 <= s <= t1]
    gaps = sorted(y - x for x, y in itertools.pairwise(window))
    return {"moves": len(gaps), "p50": statistics.median(gaps) if gaps else float("nan"),
            "p90": gaps[int(0.9 * (len(gaps) - 1))] if gaps else float("nan"), **counts}


if __name__ == "__main__":
    main()
