#!/usr/bin/env python3
"""Engine cost in machine instructions per decision, counted by valgrind's callgrind.

usage: engine_instructions.py [--games N] [--json] [--src DIR]

Wall-clock speed on a shared machine moves by 20% from run to run; the number of
instructions a fixed set of games executes does not. This plays the same games as
``engine_speed.py`` (one uniformly random compact action per decision, N seeded games at
2 and at 4 players) twice under callgrind, with 2 and with N+2 games, and divides the
difference in instructions by the difference in decisions: start-up cancels out. Use it
to compare two versions of the engine (``--src`` picks the ``src`` folder to import, e.g.
a worktree of another commit, built with ``pip install -e`` there), then confirm with
``engine_speed.py --anchor``. Needs ``valgrind`` (``apt-get install valgrind``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

PLAY = """
import random, sys
sys.path.insert(0, {bench!r})
from engine_speed import play
rng = random.Random(7)
decisions = 0
for seed in range(int(sys.argv[1])):
    decisions += play(2, seed, rng) + play(4, seed, rng)
print(decisions)
"""


def count(games: int, src: Path | None) -> tuple[int, int]:
    """(decisions, instructions) of ``games`` games at each of 2 and 4 players."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "play.py"
        script.write_text(PLAY.format(bench=str(HERE)))
        env = dict(os.environ)
        if src is not None:
            env["PYTHONPATH"] = str(src) + os.pathsep + env.get("PYTHONPATH", "")
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out", sys.executable, str(script),
             str(games)], capture_output=True, text=True, env=env, check=False)
        if out.returncode != 0:
            raise SystemExit(f"callgrind failed: {out.stderr.strip()[-300:]}")
        collected = re.search(r"Collected : (\d+)", out.stderr)
        if collected is None:
            raise SystemExit("callgrind printed no instruction count")
        return int(out.stdout.split()[-1]), int(collected.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--games", type=int, default=20, help="seeded games at each of 2 and 4 players")
    ap.add_argument("--src", type=Path, default=None, help="the src folder to import civlite from")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    d0, i0 = count(2, args.src)
    d1, i1 = count(args.games + 2, args.src)
    result = {"instructions_per_decision": round((i1 - i0) / (d1 - d0)), "decisions": d1 - d0,
              "games": 2 * args.games, "src": str(args.src) if args.src else "installed"}
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
