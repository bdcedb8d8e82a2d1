"""Load benchmark: N concurrent games played through WebSockets by scripted clients.

    .venv/bin/python benchmarks/server_load.py [--games 200] [--victory 20] [--url http://host:port]

Without ``--url`` it starts ``python -m civlite.server`` on a free port with a fresh SQLite
file (bots wait 0 s). Every game has two human seats, each played by its own WebSocket
client that answers from its own view. Reported: moves/s, and the latency from sending
an action to receiving its broadcast ``update`` (at the sender, and at the opponent),
p50/p99; then a check that every game finished and every acknowledged action is in the
stored record (nothing lost, nothing doubled).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

from civlite.engine import CARDS, GameRecord

SUIT = {c.name: int(c.suit) for c in CARDS}


def choose(state: dict[str, Any]) -> dict[str, Any]:
    """A legal, CT-greedy answer from the seat's own view."""
    p = state["pending"]
    kind = p["decision"]
    by: dict[int, list[str]] = {}
    for c in state["hand"]:
        by.setdefault(SUIT[c], []).append(c)
    if kind == "action":
        if len(by.get(2, [])) >= 3:
            return {"do": "advanced", "cards": by[2][:3]}
        if len(by.get(1, [])) >= 2:
            return {"do": "advanced", "cards": by[1][:2]}
        if by.get(2):
            return {"do": "basic", "cards": by[2][:1]}
        if by.get(7):
            return {"do": "basic", "cards": by[7][:1]}
        return {"do": "pass"}
    if kind == "meld":
        if all(by.get(s) for s in range(6)) and (by.get(6) or by.get(7)):
            return {"do": "meld", "cards": [by[s][0] for s in range(6)] + [(by.get(6) or by.get(7) or [])[0]]}
        return {"do": "pass"}
    if kind == "vision":
        return {"do": "take", "card": state["searching"][0]}
    if kind == "foundations":
        return {"do": "take", "card": state["discard"][0]}
    return {"do": "discard", "cards": sorted(state["hand"])[: p.get("count", 1)]}


@dataclass
class GameStats:
    table: str
    sent_at: dict[int, float] = field(default_factory=dict)  # expected seq -> send time
    acked: dict[str, int] = field(default_factory=dict)  # action id -> seq
    final_seq: list[int] = field(default_factory=list)
    over: bool = False
    winner: int | None = None
    errors: list[str] = field(default_factory=list)


async def player(ws_url: str, g: GameStats, token: str, seat: int, lat_self: list[float], lat_other: list[float],
                 think: float = 0.0) -> None:
    async with connect(ws_url, max_size=None) as ws:
        await ws.send(json.dumps({"v": 1, "type": "hello", "table": g.table, "token": token}))
        seq = 0
        n = 0
        mine: dict[str, float] = {}
        waiting: float | None = None
        while True:
            m = json.loads(await ws.recv())
            now = time.perf_counter()
            t = m["type"]
            if t in ("welcome", "update"):
                if t == "update":
                    if m["seq"] <= seq:
                        continue
                    if waiting is not None and m["by"]["seat"] == seat:
                        lat_self.append(now - waiting)
                        waiting = None
                    elif m["seq"] in g.sent_at and m["by"]["seat"] != seat:
                        lat_other.append(now - g.sent_at.pop(m["seq"]))
                seq = m["seq"]
                st = m["state"]
                if st["over"]:
                    g.over, g.winner = True, st["winner"]
                    g.final_seq.append(seq)
                    return
                if st["pending"]["player"] == seat and waiting is None:
                    if think > 0:  # a player's thinking time before answering (uniform 0.5x..1.5x)
                        await asyncio.sleep(think * (0.5 + random.random()))
                    n += 1
                    aid = f"{seat}-{n}"
                    action = choose(st)
                    waiting = time.perf_counter()
                    mine[aid] = waiting
                    g.sent_at[seq + 1] = waiting
                    await ws.send(json.dumps({"v": 1, "type": "action", "id": aid, "action": action}))
            elif t == "ack":
                g.acked[m["id"]] = m["seq"]
            elif t == "error":
                g.errors.append(m["message"])
                waiting = None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


async def run(url: str, games: int, victory: int, server_pid: int | None = None, think: float = 0.0) -> int:
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        tables = []
        for i in range(games):
            r = await http.post("/api/tables", json={"name": f"load {i}", "seats": [{"kind": "human"}, {"kind": "human"}],
                                                     "victory_ct": victory, "practice": True, "seed": 10_000 + i})
            r.raise_for_status()
            tables.append(r.json())
        ws_url = url.replace("http", "ws", 1) + "/ws"
        stats = [GameStats(t["id"]) for t in tables]
        lat_self: list[float] = []
        lat_other: list[float] = []
        load0 = os.getloadavg()[0]
        cpu0 = cpu_seconds(server_pid) if server_pid else float("nan")
        me0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        tasks = []
        for t, g in zip(tables, stats, strict=True):
            for seat in (0, 1):
                tok = t["seats"][seat]["invite"].split("#k=")[1]
                tasks.append(player(ws_url, g, tok, seat, lat_self, lat_other, think))
        await asyncio.gather(*tasks)
        wall = time.perf_counter() - t0
        server_cpu = (cpu_seconds(server_pid) - cpu0) if server_pid else float("nan")
        me1 = resource.getrusage(resource.RUSAGE_SELF)
        client_cpu = (me1.ru_utime - me0.ru_utime) + (me1.ru_stime - me0.ru_stime)
        load1 = os.getloadavg()[0]
        # nothing lost: every acknowledged action is stored at its number, the record replays to the end seen
        lost = doubled = unfinished = mismatched = 0
        moves = 0
        for g in stats:
            rec_json = (await http.get(f"/api/tables/{g.table}/record")).json()
            rec = GameRecord.from_json(rec_json)
            game = rec.replay()
            moves += len(rec.actions)
            if not (g.over and game.is_over and game.winner == g.winner):
                unfinished += 1
            if set(g.final_seq) != {len(rec.actions)}:
                mismatched += 1
            seqs = sorted(g.acked.values())
            if len(seqs) != len(set(seqs)):
                doubled += 1
            if len(seqs) != len(rec.actions) or seqs != list(range(1, len(rec.actions) + 1)):
                lost += 1
        errors = sum(len(g.errors) for g in stats)
    print(f"games: {games} concurrent (2 WebSocket clients each), victory target {victory} CT, "
          f"think time {think * 1000:.0f} ms")
    print(f"moves: {moves} in {wall:.1f} s = {moves / wall:.0f} moves/s")
    print(f"send -> own broadcast update: p50 {pct(lat_self, .5):.1f} ms, p99 {pct(lat_self, .99):.1f} ms, "
          f"max {max(lat_self) * 1000:.1f} ms (n={len(lat_self)})")
    print(f"send -> opponent's update:    p50 {pct(lat_other, .5):.1f} ms, p99 {pct(lat_other, .99):.1f} ms, "
          f"max {max(lat_other) * 1000:.1f} ms (n={len(lat_other)})")
    print(f"mean {statistics.mean(lat_self) * 1000:.1f} ms")
    print(f"CPU: server {server_cpu:.1f} s ({server_cpu / max(moves, 1) * 1000:.2f} ms per move), "
          f"clients {client_cpu:.1f} s; {os.cpu_count()} cores, load average {load0:.1f} -> {load1:.1f}")
    print(f"finished: {games - unfinished}/{games}; lost or unacknowledged actions in {lost} games; "
          f"doubled in {doubled}; seq mismatches {mismatched}; error replies {errors}")
    return 0 if unfinished == lost == doubled == mismatched == errors == 0 else 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--victory", type=int, default=20)
    ap.add_argument("--think", type=float, default=0.0,
                    help="seconds a scripted player waits before answering (0: as fast as possible)")
    ap.add_argument("--nice", type=int, default=0,
                    help="niceness of the started server (negative needs root: a busy shared machine)")
    ap.add_argument("--url", default=None, help="an already running server (default: start one)")
    ap.add_argument("--db", default=None, help="database URL for the started server (default: a fresh SQLite file)")
    ap.add_argument("--server-log", default=None, help="append the started server's own output to this file")
    a = ap.parse_args()
    proc = None
    url = a.url
    if url is None:
        port = free_port()
        db = a.db or f"sqlite:///{tempfile.mkdtemp(prefix='civlite-load-')}/load.db"
        proc = subprocess.Popen([sys.executable, "-m", "civlite.server", "--port", str(port), "--db", db,
                                 "--bot-delay", "0",
                                 # every simulated player comes from this one address
                                 "--tables-per-minute", "0", "--connections-per-address", "100000"], stdout=subprocess.DEVNULL, stderr=open(a.server_log or os.devnull, "ab"),
                                env=dict(os.environ),
                                preexec_fn=(lambda: os.nice(a.nice)) if a.nice else None)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 180  # a loaded machine may take long to start it
        while True:
            if proc.poll() is not None:
                sys.exit(f"the server exited at start (code {proc.returncode})")
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
            if time.monotonic() > deadline:
                proc.terminate()
                sys.exit("the server did not answer within 180 s")
        print(f"server: {url} ({db}){f', nice {a.nice}' if a.nice else ''}")
    try:
        code = asyncio.run(run(url, a.games, a.victory, proc.pid if proc else None, a.think))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
    sys.exit(code)


if __name__ == "__main__":
    main()
