"""Search bots on the server: threads or worker processes.

    .venv/bin/python benchmarks/server_bots.py [--tables 4] [--seconds 20] [--bot ismcts:iterations=400] [--json]

Runs the table manager in-process (SQLite in a temporary folder, no bot delay) with
``--tables`` tables of two search bots each, for ``--seconds``, twice: with the bots
thinking in threads of the server process (``bot_processes=0``), then in worker processes
(one per core, the default). Reported for each: bot moves committed per second, and how
late a 10 ms timer on the server's event loop fires (p50 / p99 / max), which is what every
human at every table waits on for an answer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from civlite.server.bodies import CreateTable, SeatSpec
from civlite.server.storage import Store
from civlite.server.tables import Manager


async def run(processes: int, tables: int, seconds: float, bot: str, db: Path) -> dict[str, Any]:
    store = Store(f"sqlite:///{db}")
    m = Manager(store, bot_delay=0, bot_processes=processes)
    await m.start()
    late: list[float] = []
    stop = False

    async def ticker() -> None:
        while not stop:
            t0 = time.perf_counter()
            await asyncio.sleep(0.01)
            late.append((time.perf_counter() - t0 - 0.01) * 1000)

    tick = asyncio.create_task(ticker())
    ids = []
    for i in range(tables):
        info, _ = await m.create_table(CreateTable(seats=[SeatSpec(kind="bot", bot=bot)] * 2, practice=True, seed=i,
                                                   victory_ct=1000))
        ids.append(info.id)
    await asyncio.sleep(1.0)  # worker processes start (spawn) and the first searches warm up
    start = sum(m.tables[i].seq for i in ids)
    t0 = time.perf_counter()
    await asyncio.sleep(seconds)
    moves = sum(m.tables[i].seq for i in ids) - start
    dt = time.perf_counter() - t0
    stop = True
    await tick
    await m.stop()
    store.close()
    late.sort()
    return {"bot_processes": processes, "tables": tables, "bot": bot, "seconds": round(dt, 1),
            "moves": moves, "moves_per_s": round(moves / dt, 2),
            "loop_late_ms": {"p50": round(statistics.median(late), 2), "p99": round(late[int(0.99 * (len(late) - 1))], 2),
                             "max": round(late[-1], 2)}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--bot", default="ismcts:iterations=400")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    out = {"cpus": os.cpu_count(), "load_avg_1m": os.getloadavg()[0], "runs": []}
    with tempfile.TemporaryDirectory() as d:
        for procs in (0, os.cpu_count() or 1):
            r = asyncio.run(run(procs, a.tables, a.seconds, a.bot, Path(d) / f"b{procs}.db"))
            out["runs"].append(r)
            if not a.json:
                late = r["loop_late_ms"]
                print(f"{'threads' if not procs else f'{procs} worker processes':<20} {r['moves_per_s']:>7.2f} bot moves/s; "
                      f"event loop late p50 {late['p50']} ms, p99 {late['p99']} ms, max {late['max']} ms")
    if a.json:
        sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
