"""What a budget step adds, paired by deal: the games of two references on the same deals.

``reference_ladder.py`` deals game *i* of every reference from ``seed + i`` with the same
seats, so two references' results on one deal differ only by how they played it. This
compares their game files in turn (each with the one before it) on the deals both have
played:

    .venv/bin/python benchmarks/paired_gain.py \\
        benchmarks/results/clairvoyant-bound-2p/games/hands-br-{300,1000,3000}--hard.jsonl

For each step it prints the deals both played, both scores on them, the difference with
its standard error and 95% interval (normal, from the per-deal differences), and the exact
McNemar test's p-value (a two-sided binomial test on the deals where exactly one of them
won). ``--json`` prints the rows as JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from itertools import pairwise
from pathlib import Path
from typing import Any

from scipy.stats import binomtest


def games(path: Path) -> dict[int, float]:
    """The scores of a file of ``reference_ladder.py``'s games, by game number."""
    if not path.exists():
        raise SystemExit(f"no games: {path} does not exist")
    scores: dict[int, float] = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            scores[int(rec["game"])] = float(rec["score"])
        except (ValueError, KeyError, TypeError) as e:
            raise SystemExit(f"{path}:{n}: not a game record ({e})") from None
    return scores


def step(a: dict[int, float], b: dict[int, float]) -> dict[str, Any]:
    """``b`` against ``a`` on the deals both played."""
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        raise SystemExit(f"only {len(common)} deals played by both: nothing to compare")
    diffs = [b[i] - a[i] for i in common]
    mean = statistics.fmean(diffs)
    se = statistics.stdev(diffs) / math.sqrt(len(diffs))
    up = sum(1 for d in diffs if d > 0)
    down = sum(1 for d in diffs if d < 0)
    p = binomtest(up, up + down).pvalue if up + down else 1.0
    return {"deals": len(common), "before": statistics.fmean(a[i] for i in common),
            "after": statistics.fmean(b[i] for i in common), "gain": mean, "se": se,
            "interval95": [mean - 1.96 * se, mean + 1.96 * se], "won_only_after": up,
            "won_only_before": down, "mcnemar_p": p}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path,
                    help="two or more game files of one run, each compared with the one before")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if len(a.files) < 2:
        raise SystemExit("name at least two game files")
    names = [f.name.removesuffix(".jsonl") for f in a.files]
    scores = [games(f) for f in a.files]
    rows = []
    for (ra, sa), (rb, sb) in pairwise(zip(names, scores, strict=True)):
        rows.append({"from": ra, "to": rb, **step(sa, sb)})
    if a.json:
        print(json.dumps(rows, indent=1))
        return 0
    print("| from | to | deals | before | after | gain | 95% interval | McNemar p |")
    print("|---|---|---:|---:|---:|---:|---|---:|")
    for r in rows:
        lo, hi = r["interval95"]
        print(f"| `{r['from']}` | `{r['to']}` | {r['deals']} | {100 * r['before']:.2f}% | {100 * r['after']:.2f}% "
              f"| {100 * r['gain']:+.2f} ± {100 * r['se']:.2f} | {100 * lo:+.1f} to {100 * hi:+.1f} | {r['mcnemar_p']:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
