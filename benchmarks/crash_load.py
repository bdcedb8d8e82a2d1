"""Nothing acknowledged is lost when the server is killed (SIGKILL) again and again while
players move, chat, take seats and concede.

    .venv/bin/python benchmarks/crash_load.py [--store sqlite|postgresql] [--tables 16] [--kills 16]

It starts ``python -m civlite.server`` (a fresh SQLite file, or a throw-away PostgreSQL
cluster with fsync on), makes tables of three seats (two invited players and one open seat,
which a third client takes through ``POST /take`` while the others wait), and plays them
with scripted clients that move from their own view, chat, and in every other table concede
part-way through (a bot plays on in the seat). Every 1.5 to 3.5 s the server is killed with
SIGKILL and started again on the same port and database; the clients reconnect with their
tokens and go on from what the server says.

Acknowledged means what the client was told: an ``ack`` for a move (its number), its own
chat line broadcast back, a 200 answer to a take (the seat's token), the ``left`` notice of
its own concession. At the end the store is read directly and each acknowledgement is
checked: the move at its number, the chat line, the seat with its token, the seat left.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import choose
from server_load_runs import Cluster, free_port

from civlite.engine import action_from_json
from civlite.server.social_store import SocialStore
from civlite.server.state import token_digest
from civlite.server.storage import Store


class Server:
    def __init__(self, db: str, log: Path) -> None:
        self.db, self.port, self.log = db, free_port(), log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "civlite.server", "--host", "127.0.0.1", "--port", str(self.port), "--db", self.db,
                 "--bot-delay", "0", "--tables-per-minute", "0", "--connections-per-address", "100000"],
                stdout=log, stderr=subprocess.STDOUT)

    async def ready(self) -> None:
        deadline = time.monotonic() + 120
        async with httpx.AsyncClient(timeout=1) as http:
            while time.monotonic() < deadline:
                assert self.proc is not None
                if self.proc.poll() is not None:
                    sys.exit(f"the server exited (code {self.proc.returncode}); see {self.log}")
                try:
                    if (await http.get(self.url + "/healthz")).status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
                await asyncio.sleep(0.05)
        sys.exit("the server did not answer within 120 s")

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(20)


@dataclass
class Acks:
    """What the clients were told was done, per table."""

    moves: dict[int, dict[str, Any]] = field(default_factory=dict)  # seq -> the action sent
    chat: set[str] = field(default_factory=set)
    took: dict[int, str] = field(default_factory=dict)  # seat -> token
    conceded: set[int] = field(default_factory=set)
    sent_moves: int = 0
    sent_chat: int = 0


class Run:
    def __init__(self, server: Server, rng: random.Random, think: float) -> None:
        self.server = server
        self.think = think  # a player's pause before answering (x0.5-1.5)
        self.rng = rng
        self.up = asyncio.Event()
        self.done = False
        self.reconnects = 0
        self.refusals: dict[str, int] = {}  # error replies by code

    async def player(self, table: str, seat: int, token: str, acks: Acks, concede_at: int | None) -> None:
        """Plays ``seat`` until the game ends, reconnecting after each crash."""
        sent: dict[str, dict[str, Any]] = {}
        n = 0
        while not self.done:
            await self.up.wait()
            try:
                async with connect(self.server.url.replace("http", "ws", 1) + "/ws", max_size=None, open_timeout=10) as ws:
                    await ws.send(json.dumps({"v": 1, "type": "hello", "table": table, "token": token}))
                    waiting = False
                    while True:
                        m = json.loads(await ws.recv())
                        t = m["type"]
                        if t == "ack":
                            acks.moves[m["seq"]] = sent[m["id"]]
                            waiting = False
                        elif t == "error":
                            self.refusals[m.get("code", "?")] = self.refusals.get(m.get("code", "?"), 0) + 1
                            if m.get("code") in ("bad_token", "no_table"):
                                return  # the seat was left (a concession whose notice the crash cut off)
                            waiting = False
                        elif t == "chat":
                            line = m["line"]
                            if line.get("seat") == seat and line["text"].startswith(f"{table}/{seat}/"):
                                acks.chat.add(line["text"])
                        elif t == "notice" and m.get("kind") == "left" and m.get("seat") == seat:
                            acks.conceded.add(seat)
                        if t in ("welcome", "update"):
                            st = m["state"]
                            if st["over"] or m.get("table", {}).get("status") == "closed":
                                return
                            if seat in acks.conceded:
                                return  # a bot plays on in the seat
                            if t == "welcome":
                                waiting = False
                            if concede_at is not None and n >= concede_at:
                                await ws.send(json.dumps({"v": 1, "type": "concede"}))
                                concede_at = None
                            pending = st.get("pending")
                            if pending and pending["player"] == seat and not waiting:
                                await asyncio.sleep(self.think * (0.5 + self.rng.random()))
                                n += 1
                                if self.rng.random() < 0.3:
                                    acks.sent_chat += 1
                                    await ws.send(json.dumps({"v": 1, "type": "chat", "text": f"{table}/{seat}/{n}"}))
                                aid = f"{seat}-{n}-{self.reconnects}"
                                sent[aid] = choose(st)
                                acks.sent_moves += 1
                                waiting = True
                                await ws.send(json.dumps({"v": 1, "type": "action", "id": aid, "action": sent[aid],
                                                          "decision": m.get("decision_number")}))
            except (TimeoutError, OSError, WebSocketException):
                self.reconnects += 1
                await asyncio.sleep(0.05)

    async def taker(self, http: httpx.AsyncClient, table: str, seat: int, acks: Acks, concede_at: int | None) -> None:
        """Takes the open seat (retrying through crashes), then plays it."""
        await asyncio.sleep(self.rng.uniform(0.2, 3.0))  # the others wait in the room meanwhile
        while not self.done:
            await self.up.wait()
            try:
                r = await http.post(f"{self.server.url}/api/tables/{table}/take", json={"seat": seat})
            except httpx.HTTPError:
                await asyncio.sleep(0.05)
                continue
            if r.status_code == 200:
                token = r.json()["invite"].split("#k=")[1]
                acks.took[seat] = token
                await self.player(table, seat, token, acks, concede_at)
                return
            if 400 <= r.status_code < 500 and r.status_code != 429:
                return  # taken by our own earlier try whose answer the crash cut off
            await asyncio.sleep(0.1)

    async def killer(self, kills: int, lo: float, hi: float) -> None:
        for _ in range(kills):
            await asyncio.sleep(self.rng.uniform(lo, hi))
            self.up.clear()
            self.server.kill9()
            self.server.start()
            await self.server.ready()
            self.up.set()


async def main_async(a: argparse.Namespace, db: str, log: Path) -> int:
    rng = random.Random(a.seed)
    server = Server(db, log)
    server.start()
    await server.ready()
    run = Run(server, rng, a.think)
    run.up.set()
    async with httpx.AsyncClient(timeout=30) as http:
        tables: list[tuple[str, dict[str, Any]]] = []
        for i in range(a.tables):
            r = await http.post(server.url + "/api/tables", json={
                # a clock: a seat whose take the crash answered with nothing is played by its clock
                "name": f"crash {i}", "victory_ct": a.victory, "clock": 5,
                "seats": [{"kind": "human", "name": f"A{i}"}, {"kind": "human", "name": f"B{i}"}, {"kind": "open"}]})
            r.raise_for_status()
            tables.append((r.json()["id"], r.json()))
        acks = {tid: Acks() for tid, _ in tables}
        jobs = []
        for i, (tid, t) in enumerate(tables):
            concede_seat = i % 3 if i % 2 == 0 else None  # every other table: one seat concedes
            for seat in (0, 1):
                tok = t["seats"][seat]["invite"].split("#k=")[1]
                jobs.append(run.player(tid, seat, tok, acks[tid], rng.randint(4, 12) if seat == concede_seat else None))
            jobs.append(run.taker(http, tid, 2, acks[tid], rng.randint(4, 12) if concede_seat == 2 else None))
        players = asyncio.gather(*jobs)
        t0 = time.perf_counter()
        await run.killer(a.kills, a.min_gap, a.max_gap)
        try:
            await asyncio.wait_for(players, timeout=a.finish)
        except TimeoutError:
            print(f"(games still running {a.finish:.0f} s after the last restart: stopped)")
        run.done = True
        wall = time.perf_counter() - t0
    server.stop()
    # the store, read directly
    store = Store(db, migrate=False)
    social = SocialStore(store)
    lost_moves = lost_chat = lost_takes = lost_concessions = 0
    n_moves = n_chat = n_takes = n_conc = finished = 0
    for tid, _ in tables:
        ack = acks[tid]
        rows = {r.seq: r for r in store.load_actions(tid)}
        for seq, action in ack.moves.items():
            n_moves += 1
            if seq not in rows or action_from_json(rows[seq].action) != action_from_json(action):
                lost_moves += 1
        texts = {line.text for line in social.load_chat(tid, 10_000)}
        n_chat += len(ack.chat)
        lost_chat += len(ack.chat - texts)
        info = store.get_table(tid)
        assert info is not None
        for seat, token in ack.took.items():
            n_takes += 1
            s = info.seats[seat]
            # the seat is the taker's (or was, until a concession of theirs made it a bot's)
            if s.get("token_sha256") != token_digest(token) and not s.get("left"):
                lost_takes += 1
        for seat in ack.conceded:
            n_conc += 1
            if not info.seats[seat].get("left"):
                lost_concessions += 1
        rec = store.record(tid)
        finished += rec.replay().is_over or info.status == "closed"
    store.close()
    print(f"store: {db.split(':')[0]}; {a.tables} tables of 3 seats, {a.kills} kill -9 restarts "
          f"every {a.min_gap}-{a.max_gap} s, {wall:.0f} s; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"acknowledged: {n_moves} moves, {n_chat} chat lines, {n_takes} seats taken, {n_conc} concessions "
          f"(sent {sum(x.sent_moves for x in acks.values())} moves, {sum(x.sent_chat for x in acks.values())} chat lines); "
          f"{run.reconnects} reconnects; error replies {run.refusals or 'none'}")
    print(f"lost: {lost_moves} moves, {lost_chat} chat lines, {lost_takes} seats, {lost_concessions} concessions; "
          f"games finished {finished}/{a.tables}")
    return 0 if lost_moves == lost_chat == lost_takes == lost_concessions == 0 else 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", choices=("sqlite", "postgresql"), default="sqlite")
    ap.add_argument("--tables", type=int, default=16)
    ap.add_argument("--kills", type=int, default=16)
    ap.add_argument("--victory", type=int, default=20)
    ap.add_argument("--min-gap", type=float, default=1.5, help="least seconds between two kills")
    ap.add_argument("--max-gap", type=float, default=3.5, help="most seconds between two kills")
    ap.add_argument("--finish", type=float, default=180, help="seconds the games may take after the last restart")
    ap.add_argument("--think", type=float, default=0.3, help="seconds a player pauses before answering (x0.5-1.5)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log", default=None, help="the server's output (default: a temporary file)")
    a = ap.parse_args()
    log = Path(a.log or tempfile.mkstemp(prefix="civlite-crash-", suffix=".log")[1])
    cluster = None
    if a.store == "postgresql":
        cluster = Cluster()
        db = cluster.fresh("crash")
    else:
        db = f"sqlite:///{tempfile.mkdtemp(prefix='civlite-crash-')}/crash.db"
    try:
        code = asyncio.run(main_async(a, db, log))
    finally:
        if cluster is not None:
            cluster.close()
    sys.exit(code)


if __name__ == "__main__":
    main()
