"""Where a move's time goes on PostgreSQL: the storage calls the server makes, timed one by one.

    .venv/bin/python benchmarks/pg_commit_path.py --db postgresql://postgres@127.0.0.1:5433/postgres [--tables 200]

Creates a fresh database beside the one named, then times (median and p99 of ``--rounds``):
a round trip (``SELECT 1``), a bare commit of one row (the WAL flush), one move's append
(``Store.append_many`` of 1 action: insert, table update, notice, commit), a group commit of
8 tables' moves, and a lease round at ``--tables`` tables (``Store.claim_leases`` with every
table held, as every 0.3 s in a process that runs them)."""

from __future__ import annotations

import argparse
import statistics
import time
import uuid
from collections.abc import Callable

from sqlalchemy import text

from civlite.engine import RuleSet
from civlite.server.storage import Append, Store


def timed(fn: Callable[[int], object], rounds: int) -> tuple[float, float]:
    xs = []
    for i in range(rounds):
        t0 = time.perf_counter()
        fn(i)
        xs.append((time.perf_counter() - t0) * 1000)
    xs.sort()
    return statistics.median(xs), xs[min(len(xs) - 1, int(0.99 * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True, help="a PostgreSQL URL (a fresh database is made beside it)")
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=200)
    a = ap.parse_args()
    import psycopg

    name = "bench_" + uuid.uuid4().hex[:10]
    with psycopg.connect(a.db, autocommit=True) as c:
        c.execute(f"CREATE DATABASE {name}")
    url = a.db.rsplit("/", 1)[0] + "/" + name
    store = Store(url)
    rules = RuleSet.default().to_dict()
    ids = [f"t{i}" for i in range(a.tables)]
    for tid in ids:
        store.create_table(id=tid, name=tid, rules=rules, seed=1, clock=None, lease=("me", 30.0),
                           seats=[{"kind": "human", "name": "a"}, {"kind": "human", "name": "b"}])
    seq = {tid: 0 for tid in ids}

    def append(k: int) -> Callable[[int], object]:
        def run(i: int) -> None:
            batch = []
            for j in range(k):
                tid = ids[(i * k + j) % len(ids)]
                seq[tid] += 1
                batch.append(Append(tid, seq[tid], 0, {"do": "pass", "player": 0}, None, "human", turn=seq[tid]))
            store.append_many(batch)
        return run

    def round_trip(i: int) -> None:
        with store.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    def bare_commit(i: int) -> None:
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE tables SET name = name WHERE id = :id"), {"id": ids[i % len(ids)]})

    rows = [
        ("round trip (SELECT 1, pooled connection)", round_trip),
        ("bare commit of one row (WAL flush)", bare_commit),
        ("one move appended (1 action)", append(1)),
        ("group commit of 8 tables' moves", append(8)),
        (f"lease round at {a.tables} tables held", lambda i: store.claim_leases("me", ids, 1.2)),
    ]
    print(f"PostgreSQL commit path, {a.rounds} rounds each (ms, median / p99)")
    for label, fn in rows:
        med, p99 = timed(fn, a.rounds)
        print(f"  {label:<42} {med:7.2f} / {p99:7.2f}")
    store.close()
    with psycopg.connect(a.db, autocommit=True) as c:
        c.execute(f"DROP DATABASE {name}")


if __name__ == "__main__":
    main()
