"""Which search plays the end of a 2-player game best: paired continuations.

The network (``expert`` at 2 players) plays one seat against ``--opponent`` (``heuristic``)
until some seat is within ``--within`` CT of victory with the seats at most ``--close`` CT
apart; from that position each variant plays the rest of the game for the same seat, against
the same opponent, on the same deck (a clone of the game, every bot seeded alike). The
variants differ only in how the seat chooses its actions from there: discards are the
network's in every variant. Each continuation's result is appended to ``OUT`` (JSON lines)
as it ends, so a stopped run resumes; ``--part K/N`` splits the deals between processes.

    nice -n 19 .venv/bin/python benchmarks/endgame_search.py --positions 1500 --seed 61000 \
        --variants "expert;champion:iterations=1000,endgame=0;ismcts:iterations=1500" --out OUT.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint

from civlite.bots import make_bot
from civlite.engine import DISCARD_BASE, Game


def endgame_position(seed: int, within: int, close: int, opponent: str) -> tuple[Game, int] | None:
    """The first position, in a game of the network (seat ``seed % 2``) against ``opponent``,
    at which the network's seat has an action to choose, some seat is within ``within`` CT of
    victory and the two seats' CT differ by at most ``close``; ``None`` if the game ends
    first."""
    seat = seed % 2
    g = Game(2, seed=seed)
    bots = {seat: make_bot("expert", seed=seed), 1 - seat: make_bot(opponent, seed=seed + 1)}
    target = g.rules.victory_ct
    while not g.over:
        s = g.to_move
        assert s is not None
        legal = g.legal_ids()
        if (s == seat and len(legal) > 1 and legal[0] < DISCARD_BASE
                and max(g.ct) >= target - within and abs(g.ct[0] - g.ct[1]) <= close):
            return g, seat
        g.apply_id(bots[s].act(g.view(s), legal))
    return None


def play_out(g: Game, seat: int, variant: str, seed: int, opponent: str) -> float:
    """The seat's result (1 a win, 0 a loss, a share of a draw) when ``variant`` chooses its
    actions from ``g`` on (the network its discards) and ``opponent`` plays the other seat."""
    g = g.clone()
    me = make_bot(variant, seed=seed)
    net = make_bot("expert", seed=seed)
    other = make_bot(opponent, seed=seed + 1)
    while (s := g.to_move) is not None:
        legal = g.legal_ids()
        chooser = other if s != seat else net if len(legal) == 1 or legal[0] >= DISCARD_BASE else me
        g.apply_id(chooser.act(g.view(s), legal))
    winners = (g.winner,) if g.winner is not None else (g.drawn or (0, 1))
    return 1.0 / len(winners) if seat in winners else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=400)
    ap.add_argument("--seed", type=int, default=61000)
    ap.add_argument("--within", type=int, default=3, help="CT from victory at which the end begins")
    ap.add_argument("--close", type=int, default=3, help="at most this CT between the seats (a close end)")
    ap.add_argument("--opponent", default="heuristic", help="the other seat's bot (to the end of the game)")
    ap.add_argument("--variants", default="expert;champion:iterations=1000,endgame=0;ismcts:iterations=1500")
    ap.add_argument("--part", default="0/1", help="K/N: this process plays every N-th deal from the K-th")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--summary", type=Path, help="write the summary (JSON) here; with --summary-only, "
                    "only summarise --out and these other files")
    ap.add_argument("--summary-only", nargs="*", type=Path, help="summarise, play nothing")
    args = ap.parse_args()
    variants = [v.strip() for v in args.variants.split(";") if v.strip()]
    if args.summary_only is None:
        play(args, variants)
    result = summary([args.out, *(args.summary_only or [])], variants)
    if args.summary:
        args.summary.write_text(json.dumps(result, indent=1) + "\n")


def play(args: argparse.Namespace, variants: list[str]) -> None:
    """Play this part's deals that ``--out`` does not hold yet, appending each result."""
    k, n = (int(x) for x in args.part.split("/"))
    done: set[tuple[int, str]] = set()
    if args.out.exists():
        for line in args.out.read_text().splitlines():
            r = json.loads(line)
            done.add((r["deal"], r["variant"]))
    rng = random.Random(args.seed)
    deals = [rng.randrange(2**31) for _ in range(args.positions)]
    with args.out.open("a") as f:
        for i, deal in enumerate(deals):
            if i % n != k or all((deal, v) in done for v in variants):
                continue
            found = endgame_position(deal, args.within, args.close, args.opponent)
            for v in variants:
                if (deal, v) in done:
                    continue
                rec: dict[str, Any] = {"deal": deal, "variant": v}
                if found is None:
                    rec["result"] = None
                else:
                    g, seat = found
                    rec.update(seat=seat, ct=list(g.ct), result=play_out(g, seat, v, deal, args.opponent))
                f.write(json.dumps(rec) + "\n")
                f.flush()


def summary(paths: list[Path], variants: list[str]) -> dict[str, Any]:
    """Each variant's score on the positions every variant played, and for each two variants
    the positions each won where the other did not, with a two-sided sign test."""
    by: dict[str, dict[int, float]] = {v: {} for v in variants}
    for path in paths:
        for line in path.read_text().splitlines():
            r = json.loads(line)
            if r["result"] is not None and r["variant"] in by:
                by[r["variant"]][r["deal"]] = r["result"]
    common = set.intersection(*(set(d) for d in by.values())) if by else set()
    out: dict[str, Any] = {"positions": len(common), "variants": {}, "pairs": []}
    for v in variants:
        wins = sum(by[v][d] for d in common)
        lo, hi = proportion_confint(round(wins), len(common), method="wilson") if common else (0.0, 0.0)
        out["variants"][v] = {"wins": wins, "score": round(wins / max(1, len(common)), 4),
                              "wilson95": [round(lo, 4), round(hi, 4)]}
        print(f"{v:45s} {wins:6.1f}/{len(common)}  {wins / max(1, len(common)):.1%} ({lo:.1%}-{hi:.1%})")
    for i, a in enumerate(variants):
        for b in variants[i + 1:]:
            a_only = sum(by[a][d] > by[b][d] for d in common)
            b_only = sum(by[b][d] > by[a][d] for d in common)
            p = binomtest(a_only, a_only + b_only).pvalue if a_only + b_only else 1.0
            out["pairs"].append({"a": a, "b": b, "a_better": a_only, "b_better": b_only, "sign_test_p": round(p, 4)})
            print(f"{a} better on {a_only}, {b} better on {b_only} (sign test p = {p:.3f})")
    return out


if __name__ == "__main__":
    main()
