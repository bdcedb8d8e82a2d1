"""``server_load.py`` on SQLite and on PostgreSQL, runs interleaved, with a summary table.

    .venv/bin/python benchmarks/server_load_runs.py [--runs 5] [--games 200] [--think 0.5] [--victory 8]

Starts a throw-away PostgreSQL cluster (fsync on, as a server would run it) from the
binaries under /usr/lib/postgresql, then alternates SQLite and PostgreSQL runs of
``benchmarks/server_load.py`` (a fresh database file or a fresh database each run), so both
stores see the same machine. Each line of the summary carries the load average at the start
of its run: the p99 of a 2-core machine is the scheduler's as soon as anything else runs.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """A throw-away PostgreSQL cluster (fsync on, as a server would run it)."""

    def __init__(self) -> None:
        dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(d.split("/")[-2]))
        if not dirs:
            sys.exit("no PostgreSQL binaries under /usr/lib/postgresql/*/bin")
        self.bin = dirs[-1]
        self.dir = tempfile.mkdtemp(prefix="civlite-pgload-")
        self.as_pg: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
            self.as_pg = ["runuser", "-u", "postgres", "--"]
        self.port = free_port()
        self.data = os.path.join(self.dir, "data")
        subprocess.run([*self.as_pg, f"{self.bin}/initdb", "-D", self.data, "-U", "postgres", "-A", "trust",
                        "-E", "UTF8"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([*self.as_pg, f"{self.bin}/pg_ctl", "-D", self.data, "-l", f"{self.dir}/server.log", "-w",
                        "-o", f"-k {self.dir} -p {self.port} -c listen_addresses=127.0.0.1 -c max_connections=300",
                        "start"], check=True, stdout=subprocess.DEVNULL)

    def fresh(self, name: str) -> str:
        subprocess.run([*self.as_pg, f"{self.bin}/createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U",
                        "postgres", name], check=True)
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def close(self) -> None:
        subprocess.run([*self.as_pg, f"{self.bin}/pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop"],
                       stdout=subprocess.DEVNULL)
        shutil.rmtree(self.dir, ignore_errors=True)


def parse(out: str) -> dict[str, float]:
    def grab(pattern: str) -> float:
        m = re.search(pattern, out)
        return float(m.group(1)) if m else float("nan")
    return {
        "moves_s": grab(r"= (\d+) moves/s"),
        "p50": grab(r"own broadcast update: p50 ([\d.]+) ms"),
        "p99": grab(r"own broadcast update: p50 [\d.]+ ms, p99 ([\d.]+) ms"),
        "max": grab(r"own broadcast update: .* max ([\d.]+) ms"),
        "other_p99": grab(r"opponent's update: +p50 [\d.]+ ms, p99 ([\d.]+) ms"),
        "cpu_ms": grab(r"\(([\d.]+) ms per move\)"),
        "load": grab(r"load average ([\d.]+) ->"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--think", type=float, default=0.5)
    ap.add_argument("--victory", type=int, default=8)
    ap.add_argument("--nice", type=int, default=0, help="niceness of each started server")
    a = ap.parse_args()
    cluster = Cluster()
    rows: list[tuple[str, dict[str, float], int]] = []
    try:
        for i in range(1, a.runs + 1):
            for store in ("sqlite", "postgresql"):
                cmd = [sys.executable, str(HERE / "server_load.py"), "--games", str(a.games), "--think", str(a.think),
                       "--victory", str(a.victory)]
                if a.nice:
                    cmd += ["--nice", str(a.nice)]
                if store == "postgresql":
                    cmd += ["--db", cluster.fresh(f"load{i}")]
                start_load = os.getloadavg()[0]
                p = subprocess.run(cmd, capture_output=True, text=True)
                print(p.stdout, p.stderr, sep="", flush=True)
                r = parse(p.stdout)
                r["load"] = start_load
                rows.append((f"{store} {i}", r, p.returncode))
    finally:
        cluster.close()
    print(f"\n{a.games} concurrent games, players pausing {a.think} s (x0.5-1.5), victory {a.victory} CT, "
          f"{os.cpu_count()} cores; load average at each run's start in brackets")
    print(f"{'run':<18}{'moves/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'opp p99':>9}{'CPU/move':>10}  check")
    for name, r, rc in rows:
        label = f"{name} ({r['load']:.1f})"
        print(f"{label:<18}{r['moves_s']:>8.0f}{r['p50']:>9.1f}{r['p99']:>9.1f}{r['max']:>9.1f}"
              f"{r['other_p99']:>9.1f}{r['cpu_ms']:>9.2f}   {'ok' if rc == 0 else 'FAILED'}")
    for store in ("sqlite", "postgresql"):
        p99s = [r["p99"] for name, r, _ in rows if name.startswith(store)]
        print(f"{store}: p99 median {statistics.median(p99s):.1f} ms, worst {max(p99s):.1f} ms, "
              f"under 50 ms in {sum(x < 50 for x in p99s)} of {len(p99s)} runs")
    sys.exit(0 if all(rc == 0 for _, _, rc in rows) else 1)


if __name__ == "__main__":
    main()
