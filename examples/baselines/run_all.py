"""Every baseline in turn, with one seed and one budget each, then the results table.

Runs ``bc.py``, ``ppo.py`` (from scratch), ``ppo.py --init`` (from the cloned policy),
``selfplay.py``, ``nfsp.py`` and ``ismcts.py`` one after the other (each on one core),
each writing ``--out/<name>.json``, then writes ``--out/table.md``: win rate against
random, heuristic and expert with 95% Wilson intervals. ``--table-only`` rewrites the
table from the JSON files already there.

    nice .venv/bin/python examples/baselines/run_all.py --seconds 240 --eval-games 100 --seed 0
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDER = ("bc", "ppo", "ppo_from_bc", "selfplay", "nfsp", "ismcts")


def table(out: Path) -> str:
    rows = ["| baseline | variant | training | vs random | vs heuristic | vs expert |", "|---|---|---|---|---|---|"]
    for name in ORDER:
        f = out / f"{name}.json"
        if not f.exists():
            continue
        r = json.loads(f.read_text())
        cells = []
        for opp in ("random", "heuristic", "expert"):
            t = r["against"].get(opp)
            if t is None:
                cells.append("—")
                continue
            lo, hi = t["interval95"]
            draws = f", {t['draws']} drawn" if t["draws"] else ""
            cells.append(f"{t['win_rate']:.0%} ({lo:.0%}–{hi:.0%}) of {t['games']}{draws}")
        if "steps" in r:
            training = f"{r['steps']:,} steps, {r['train_seconds']:.0f} s"
        elif "epochs" in r:
            training = f"{r['data_games']} games, {r['epochs']} epochs, {r['train_seconds']:.0f} s"
        else:
            training = f"none ({r['sims']} simulations a move)"
        rows.append(f"| {r['method']} | {r['variant']} | {training} | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=240.0, help="training budget of each baseline")
    ap.add_argument("--eval-games", type=int, default=100)
    ap.add_argument("--ismcts-games", type=int, default=10, help="ISMCTS's games per opponent (slow)")
    ap.add_argument("--bc-games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/baselines"))
    ap.add_argument("--table-only", action="store_true")
    a = ap.parse_args(argv)
    if not a.table_only:
        common = ["--seed", str(a.seed), "--out", str(a.out)]
        ev = ["--eval-games", str(a.eval_games)]
        s = ["--seconds", str(a.seconds)]
        runs = [
            ["bc.py", "--games", str(a.bc_games), *s, *ev],
            ["ppo.py", *s, *ev],
            ["ppo.py", "--init", str(a.out / "bc_model.zip"), *s, *ev],
            ["selfplay.py", *s, *ev],
            ["nfsp.py", *s, *ev],
            ["ismcts.py", "--eval-games", str(a.ismcts_games), "--seconds", str(3 * a.seconds)],
        ]
        for run in runs:
            print("==", " ".join(run), flush=True)
            subprocess.run([sys.executable, str(HERE / run[0]), *run[1:], *common], check=True)
    text = table(a.out)
    (a.out / "table.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
