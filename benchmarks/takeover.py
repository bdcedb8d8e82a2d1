"""Multi-process takeover time: two ``python -m civlite.server`` processes on one PostgreSQL;
the one running a table's bot is killed (SIGKILL) and a player connected to the other moves.

    python benchmarks/takeover.py [--rounds 5] [--bot-delay 0.8] [--pg postgresql://...]

Without ``--pg`` it starts a throw-away cluster (``initdb`` from /usr/lib/postgresql/*/bin).
Each round: a table (a human and a bot) is made on process A, which then runs its bot; the
player's client is on process B. A is killed while the player is to move; the player moves
through B at once; the time until the bot's answer reaches the same client (no reconnect)
is the takeover time (lease lapse + claim + the bot's own move). A is restarted for the
next round. Prints each round and the median and worst.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import httpx
from websockets.sync.client import connect

LOG = open(os.environ.get("TAKEOVER_LOG", os.devnull), "ab")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_pg() -> tuple[str, str, list[str], str]:
    pgbin = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]
    d = tempfile.mkdtemp(prefix="civlite-takeover-")
    as_pg: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(d, "postgres")
        as_pg = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    subprocess.run([*as_pg, f"{pgbin}/initdb", "-D", f"{d}/data", "-U", "postgres", "-A", "trust", "--no-sync"],
                   check=True, capture_output=True)
    subprocess.run([*as_pg, f"{pgbin}/pg_ctl", "-D", f"{d}/data", "-l", f"{d}/log", "-w", "-o",
                    f"-k {d} -p {port} -c listen_addresses=127.0.0.1 -c fsync=off", "start"], check=True, capture_output=True)
    return f"postgresql://postgres@127.0.0.1:{port}/postgres", d, as_pg, pgbin


def server(db: str, bot_delay: float) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    p = subprocess.Popen([sys.executable, "-m", "civlite.server", "--port", str(port), "--db", db,
                          "--bot-delay", str(bot_delay)], stdout=LOG, stderr=subprocess.STDOUT)
    for _ in range(300):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return p, port
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


def pass_or_discard(state: dict[str, Any]) -> dict[str, Any]:
    p = state["pending"]
    if p["decision"] in ("action", "meld"):
        return {"do": "pass"}
    if p["decision"] == "vision":
        return {"do": "take", "card": state["searching"][0]}
    if p["decision"] == "foundations":
        return {"do": "take", "card": state["discard"][0]}
    return {"do": "discard", "cards": sorted(state["hand"])[: p.get("count", 1)]}


def one_round(db: str, bot_delay: float, b_port: int) -> float:
    a, a_port = server(db, bot_delay)
    try:
        t = httpx.post(f"http://127.0.0.1:{a_port}/api/tables",
                       json={"seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}], "victory_ct": 40}).json()
        token = t["seats"][0]["invite"].split("#k=")[1]
        with connect(f"ws://127.0.0.1:{b_port}/ws", open_timeout=10) as ws:
            ws.send(json.dumps({"v": 1, "type": "hello", "table": t["id"], "token": token}))
            state: dict[str, Any] = {}
            while not state:
                m = json.loads(ws.recv(timeout=20))
                if m["type"] == "welcome":
                    state = m["state"]
            while not (state["pending"] and state["pending"]["player"] == 0):
                m = json.loads(ws.recv(timeout=20))
                if m["type"] in ("update", "welcome"):
                    state = m["state"]
            os.kill(a.pid, signal.SIGKILL)
            a.wait()
            n = 0
            while True:  # the player's moves (an action, then maybe a meld or a discard) until the bot's turn
                n += 1
                ws.send(json.dumps({"v": 1, "type": "action", "id": f"k{n}", "action": pass_or_discard(state)}))
                sent = time.monotonic()
                while True:
                    m = json.loads(ws.recv(timeout=30))
                    if m["type"] == "error":
                        raise RuntimeError(m["message"])
                    if m["type"] == "update":
                        state = m["state"]
                        break
                if m["by"]["via"] == "bot":
                    return time.monotonic() - sent
                if not (state["pending"] and state["pending"]["player"] == 0):
                    while True:
                        m = json.loads(ws.recv(timeout=30))
                        if m["type"] == "update" and m["by"]["via"] == "bot":
                            return time.monotonic() - sent
    finally:
        if a.poll() is None:
            a.kill()
            a.wait()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--bot-delay", type=float, default=0.8)
    ap.add_argument("--pg", default=None)
    args = ap.parse_args()
    pg = None
    db = args.pg
    if db is None:
        pg = start_pg()
        db = pg[0]
    b, b_port = server(db, args.bot_delay)
    times: list[float] = []
    try:
        for i in range(args.rounds):
            took = one_round(db, args.bot_delay, b_port)
            times.append(took)
            print(f"round {i + 1}: the bot answered {took:.2f} s after the move that followed kill -9", flush=True)
    finally:
        b.terminate()
        b.wait()
        if pg is not None:
            _, d, as_pg, pgbin = pg
            subprocess.run([*as_pg, f"{pgbin}/pg_ctl", "-D", f"{d}/data", "-m", "immediate", "-w", "stop"],
                           capture_output=True)
            shutil.rmtree(d, ignore_errors=True)
    print(f"takeover (bot delay {args.bot_delay} s): median {statistics.median(times):.2f} s, "
          f"worst {max(times):.2f} s over {len(times)} rounds")


if __name__ == "__main__":
    main()
