"""SQLite commit cost with synchronous=FULL (the server's setting) against NORMAL.

    python benchmarks/sqlite_sync.py [--commits 1000] [--rounds 3] [--dir DIR]

Each round times ``--commits`` one-action commits (``Store.append``, as a lone move is
committed) into a fresh database per setting, the two settings interleaved so that load
hits both. Prints commits a second and the median per commit.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from sqlalchemy import event

from civlite.engine import RuleSet
from civlite.server.storage import Append, Store


def run(directory: Path, sync: str, commits: int) -> list[float]:
    path = directory / f"{sync}-{time.monotonic_ns()}.db"
    store = Store(f"sqlite:///{path}")

    @event.listens_for(store.engine, "connect")
    def _sync(dbapi_conn: object, _rec: object) -> None:  # runs after the store's own pragmas
        dbapi_conn.execute(f"PRAGMA synchronous={sync}")  # type: ignore[attr-defined]

    store.engine.dispose()
    store.create_table(id="t", name="b", rules=RuleSet.default().to_dict(), seed=1, seats=[], clock=None)
    times = []
    for seq in range(1, commits + 1):
        t0 = time.perf_counter()
        store.append(Append("t", seq, 0, {"do": "pass"}, f"c{seq}"))
        times.append(time.perf_counter() - t0)
    store.close()
    return times


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--commits", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--dir", default=None, help="where the databases go (default: a temporary folder)")
    a = p.parse_args()
    with tempfile.TemporaryDirectory(dir=a.dir) as d:
        got: dict[str, list[float]] = {"FULL": [], "NORMAL": []}
        for _ in range(a.rounds):
            for sync in got:
                got[sync].extend(run(Path(d), sync, a.commits))
        for sync, times in got.items():
            print(f"synchronous={sync:6}  {len(times) / sum(times):8.0f} commits/s  "
                  f"median {statistics.median(times) * 1000:.3f} ms  p99 {sorted(times)[int(len(times) * .99)] * 1000:.3f} ms")


if __name__ == "__main__":
    main()
