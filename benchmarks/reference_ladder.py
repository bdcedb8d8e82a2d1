"""The levels' ladder with its references: the strongest known play on the same Elo scale.

``civlite ladder`` rates the named levels (``benchmarks/results/ladder/ladder.json``).
This benchmark puts references on that scale, so that a level's distance from
the strongest play civlite knows is visible:

* ``ismcts:seconds=0.5``: the honest rollout search at half a second a move;
* ``peeking-ismcts-N`` (the defaults: 300 and 1,000): ``ismcts``'s search run on the
  *true* game (every hand and the deck's order in view; only reshuffles and random steals
  stay random), N iterations a decision (``luck_ceiling.py``'s ``PeekingISMCTS``);
* ``hands-ismcts-N``: the same search seeing every hand but not the deck's order (each
  iteration shuffles the deck), N iterations a decision;
* ``hands-br-N``: a best response to ``hard`` (``best_response.py``'s
  ``HandsBestResponse``): a search that sees every hand but not the deck's order and
  plays ``hard``'s own moves for its opponent, N iterations a decision; its score bounds
  what an honest bot scores against ``hard``. ``peeking-br-N`` the same seeing the deck's
  order too (the control: what the search makes of every card); ``hands-brd-N`` the same
  searching its own discards too (``search_discards``); ``view-br-N`` the same
  search from the seat's view alone (``ViewBestResponse``: honest; each iteration deals
  the unseen cards at random, the opponent still played as ``hard``);
* ``peeking-champion-N``: ``champion``'s network-guided search run on the true game
  (``PeekingChampion``, ``endgame=0``), N iterations a decision; its discards stay the
  network's; ``hands-champion-N`` the same seeing every hand but not the deck's order.

The peeking searches cheat, live in the benchmarks only and are never offered to players.

It plays each reference against each bot of ``--against`` (default ``hard``) at 2
players, seats alternated, game *i* dealt from ``seed + i``, one JSON line a game under
``OUT/games/`` (a stopped run goes on where it was). The references' earlier runs
against ``heuristic`` (``medium``) are read from their result files (``--imports``).
One Bradley–Terry fit (``civlite.sim.ladder.fit_ratings``, ``medium`` at 1500) then
rates the level ladder's pairs and the references' pairs together. The 4-player table
sets the level ladder's field (one seat against three ``medium``) beside the
references' runs against three ``heuristic``.

    nice -n 19 python benchmarks/reference_ladder.py --games 200 --seed 46000 \\
        --out benchmarks/results/ladder-references
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from best_response import HandsBestResponse, ViewBestResponse
from luck_ceiling import PeekingChampion, PeekingISMCTS, play
from statsmodels.stats.proportion import proportion_confint

from civlite.bots import Bot, make_bot, resolve_level
from civlite.sim.ladder import PairResult, fit_ratings

RESULTS = Path(__file__).resolve().parent / "results"
REFERENCES = ("ismcts:seconds=0.5", "peeking-ismcts-300", "peeking-ismcts-1000")
#: the references' earlier 2-player runs against heuristic (medium): (reference, file, kind)
IMPORTS_2P = (
    ("ismcts:seconds=0.5", "ismcts05s-vs-heuristic-2p-1000/summary.json", "sim"),
    ("peeking-ismcts-300", "luck_ceiling_ismcts_2p_300.json", "peek"),
    ("peeking-ismcts-1000", "luck_ceiling_ismcts_2p_1000.json", "peek"),
)
#: ... and at 4 players, one seat against three heuristic
IMPORTS_4P = (
    ("ismcts:seconds=0.5", "ismcts05s-vs-3heuristic-4p/summary.json", "sim"),
    ("peeking-ismcts-300", "luck_ceiling_ismcts_4p_300.json", "peek"),
    ("peeking-ismcts-1000", "luck_ceiling_ismcts_4p_1000.json", "peek"),
)


def reference_bot(name: str, seed: int) -> Bot:
    """A reference by name: a peeking search, or any bot spec."""
    kind, _, budget = name.rpartition("-")
    if kind in ("peeking-ismcts", "hands-ismcts", "peeking-champion", "hands-champion"):
        bot: PeekingISMCTS | PeekingChampion
        if kind.endswith("ismcts"):
            bot = PeekingISMCTS(seed=seed, iterations=int(budget))
        else:  # the network's search to the end (endgame=0), every move of it on the true game
            bot = PeekingChampion(seed=seed, iterations=int(budget), endgame=0)
        bot.deck_seen = kind.startswith("peeking-")  # hands-: each iteration shuffles the deck
        return bot
    if kind in ("hands-br", "hands-brd", "peeking-br"):  # a best response to hard (best_response.py)
        br = HandsBestResponse(seed=seed, iterations=int(budget), search_discards=kind == "hands-brd")
        br.deck_seen = kind == "peeking-br"  # hands-br: the hands alone, never the deck's order
        return br
    if kind == "view-br":  # the same search from the seat's view alone: honest, modelling hard
        return ViewBestResponse(seed=seed, iterations=int(budget))
    return make_bot(name, seed=seed)


def slug(*names: str) -> str:
    keep = "abcdefghijklmnopqrstuvwxyz0123456789.-"
    return "--".join("".join(c if c in keep else "_" for c in s.lower()) for s in names)


def recorded(path: Path, seed: int) -> dict[int, dict[str, Any]]:
    """The games ``path`` holds, by number (none if it does not exist yet)."""
    done: dict[int, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                if rec["seed"] != seed + rec["game"]:
                    raise SystemExit(f"{path} holds games of another seed; use another --out")
                done[rec["game"]] = rec
    return done


def pair_result(ref: str, against: str, recs: list[dict[str, Any]]) -> PairResult:
    """The pair's result over the game records ``recs``."""
    wins = sum(1 for r in recs if r["score"] == 1.0)
    draws = sum(1 for r in recs if 0 < r["score"] < 1)
    return PairResult(ref, against, len(recs), wins, len(recs) - wins - draws, draws,
                      round(sum(r["seconds"] for r in recs), 1))


def recorded_pair(ref: str, against: str, seed: int, out: Path) -> PairResult | None:
    """The pair's result over the games ``out`` holds, whichever they are (``--fit-only``:
    plays nothing, so a run still writing the file is never doubled); ``None`` if none."""
    recs = list(recorded(out / "games" / f"{slug(ref, against)}.jsonl", seed).values())
    return pair_result(ref, against, recs) if recs else None


def play_pair(ref: str, against: str, games: int, seed: int, out: Path,
              part: tuple[int, int] = (0, 1)) -> PairResult | None:
    """``games`` games of ``ref`` against ``against``, resumed from ``out``'s lines.

    ``part`` ``(k, n)`` plays only the games ``i`` with ``i % n == k`` (n processes share
    one file, a line a game); it returns the pair's result once every game is in the file,
    else ``None``."""
    path = out / "games" / f"{slug(ref, against)}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    done = recorded(path, seed)
    with path.open("a") as f:
        for i in range(games):
            if i in done or i % part[1] != part[0]:
                continue
            t0 = time.perf_counter()
            s = play(seed + i, reference_bot(ref, seed + i), 2, i % 2, opponent=against)
            rec = {"game": i, "seed": seed + i, "seat": i % 2, "score": s,
                   "seconds": round(time.perf_counter() - t0, 2)}
            f.write(json.dumps(rec) + "\n")
            f.flush()
            done[i] = rec
            if (i + 1) % 25 == 0:
                n = len(done)
                print(f"{ref} vs {against}: {sum(r['score'] for r in done.values()) / n:.3f} of {n}", flush=True)
    if part[1] > 1:  # with the other parts' games, written meanwhile
        done = recorded(path, seed)
    if any(i not in done for i in range(games)):
        return None
    return pair_result(ref, against, [done[i] for i in range(games)])


def imported(ref: str, file: str, kind: str) -> tuple[int, int, int]:
    """(games, wins, draws) of ``ref`` in an earlier result file."""
    d = json.loads((RESULTS / file).read_text())
    if kind == "sim":
        if d["bots"][0] != ref:
            raise SystemExit(f"{file}: expected {ref!r} first, found {d['bots']}")
        return d["games"], d["wins"][ref], d.get("draws", 0)
    s = d["peeking_ismcts"]
    if d.get("opponent") != "heuristic" or f"--iterations {ref.rsplit('-', 1)[1]} " not in d["command"]:
        raise SystemExit(f"{file}: not {ref} against heuristic")
    return s["games"], round(s["score"] * s["games"]), 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=46000)
    ap.add_argument("--references", default=",".join(REFERENCES))
    ap.add_argument("--against", default="hard", help="the level bots each reference plays (comma-separated)")
    ap.add_argument("--ladder", type=Path, default=RESULTS / "ladder" / "ladder.json",
                    help="the level ladder (civlite ladder's ladder.json)")
    ap.add_argument("--field", type=Path, default=None,
                    help="a ladder.json whose 4-player field gives the levels' 4-player rows (default: --ladder's)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--fit-only", action="store_true", help="fit the games already played, play none")
    ap.add_argument("--part", default="0/1", help="K/N: play only the games i with i %% N == K (N processes, "
                    "one file); the fit waits for a run with every game")
    a = ap.parse_args()
    refs = [r.strip() for r in a.references.split(",") if r.strip()]
    against = [b.strip() for b in a.against.split(",") if b.strip()]
    try:
        k, n = (int(x) for x in a.part.split("/"))
        if not 0 <= k < n:
            raise ValueError
    except ValueError:
        raise SystemExit(f"--part must be K/N with 0 <= K < N, got {a.part!r}") from None
    a.out.mkdir(parents=True, exist_ok=True)
    lad = json.loads(a.ladder.read_text())
    pairs = [PairResult(p["a"], p["b"], p["games"], p["wins_a"], p["wins_b"], p["draws"], p["seconds"])
             for p in lad["pairs"]]
    played: list[PairResult] = []
    for ref in refs:
        for b in against:
            if a.fit_only:  # the games recorded, whichever they are: never plays one
                fitted = recorded_pair(ref, b, a.seed, a.out)
                if fitted is not None:
                    played.append(fitted)
                continue
            result = play_pair(ref, b, a.games, a.seed, a.out, (k, n))
            if result is None:
                print(f"{ref} vs {b}: part {k}/{n} done; other parts still to play", flush=True)
                return 0
            played.append(result)
    for ref, file, kind in IMPORTS_2P:
        if ref in refs:
            n, w, d = imported(ref, file, kind)
            played.append(PairResult(ref, "medium", n, w, n - w - d, d, 0.0))
    names = list(lad["bots"]) + refs
    ratings = fit_ratings(names, pairs + played, lad["anchor"], lad["anchor_rating"], 1.0)
    field = []
    field_path = (a.field or a.ladder).resolve()
    for r in json.loads(field_path.read_text())["field"]["results"]:
        field.append({"bot": r["bot"], "games": r["games"], "wins": r["wins"], "low": r["low"], "high": r["high"],
                      "source": str(field_path.relative_to(RESULTS.parent.parent)) if field_path.is_relative_to(
                          RESULTS.parent.parent) else str(field_path)})
    for ref, file, kind in IMPORTS_4P:
        if ref in refs:
            n, w, _ = imported(ref, file, kind)
            lo, hi = proportion_confint(w, n, method="wilson")
            field.append({"bot": ref, "games": n, "wins": w, "low": lo, "high": hi,
                          "source": f"benchmarks/results/{file}"})
    res = {
        "machine": platform.machine(), "python": platform.python_version(),
        "command": f"benchmarks/reference_ladder.py --games {a.games} --seed {a.seed} "
                   f"--references {','.join(refs)} --against {','.join(against)}"
                   + (f" --field {a.field}" if a.field else ""),
        "anchor": lad["anchor"], "anchor_rating": lad["anchor_rating"],
        "references": refs, "levels": lad["bots"],
        "ratings": [{"bot": r.bot, "elo": r.elo, "se": r.se, "low": r.low, "high": r.high, "games": r.games,
                     "score": r.score, "reference": r.bot in refs} for r in ratings],
        "pairs": [{"a": p.a, "b": p.b, "games": p.games, "wins_a": p.wins_a, "wins_b": p.wins_b,
                   "draws": p.draws, "seconds": p.seconds} for p in pairs + played],
        "field_4p": sorted(field, key=lambda f: -f["wins"] / f["games"]),
    }
    (a.out / "ladder.json").write_text(json.dumps(res, indent=1) + "\n")
    (a.out / "ladder.md").write_text(markdown(res) + "\n")
    print(markdown(res))
    return 0


def luce_elo(rate: float, players: int = 4, anchor: float = 1500.0) -> float:
    """The Elo at which a seat wins ``rate`` of the games against ``players - 1`` copies of
    the anchor under the Luce choice model (the winner drawn with chance proportional to
    strength, strength 10^(Elo / 400)): the 4-player scale, as Bradley–Terry is at 2."""
    rate = min(max(rate, 1e-6), 1 - 1e-6)
    return anchor + 400 * math.log10((players - 1) * rate / (1 - rate))


def markdown(res: dict[str, Any]) -> str:
    refs = set(res["references"])

    def label(b: str) -> str:
        spec = resolve_level(b)
        return f"`{b}`" + (" (reference)" if b in refs else f" (`{spec}`)" if spec != b else "")

    out = ["2 players; Elo with `medium` at 1500; ± one standard error of the difference from the anchor.", "",
           "| rank | bot | Elo | ± | 95% interval | games | score |", "|---:|---|---:|---:|---|---:|---:|"]
    for i, r in enumerate(sorted(res["ratings"], key=lambda r: -r["elo"]), 1):
        if r["bot"] == res["anchor"]:
            pm, iv = "", "anchor"
        else:
            pm, iv = f"{r['se']:.0f}", f"{r['low']:.0f} to {r['high']:.0f}"
        out.append(f"| {i} | {label(r['bot'])} | {r['elo']:.0f} | {pm} | {iv} | {r['games']} | {r['score']:.1%} |")
    out += ["", "| pair | games | wins | losses | draws | score |", "|---|---:|---:|---:|---:|---:|"]
    for p in res["pairs"]:
        out.append(f"| `{p['a']}` vs `{p['b']}` | {p['games']} | {p['wins_a']} | {p['wins_b']} | {p['draws']} | "
                   f"{(p['wins_a'] + p['draws'] / 2) / max(1, p['games']):.1%} |")
    out += ["", "4 players: one seat against three `medium` (`heuristic`), seats rotated; fair share 25%; "
            "95% Wilson intervals; Elo at 4 players by the Luce model (`medium` at 1500), its interval "
            "from the win rate's.", "",
            "| bot | games | wins | win rate | 95% interval | × fair share | Elo at 4 players | 95% interval |",
            "|---|---:|---:|---:|---|---:|---:|---|"]
    for f in res["field_4p"]:
        rate = f["wins"] / f["games"]
        out.append(f"| {label(f['bot'])} | {f['games']} | {f['wins']} | {rate:.1%} | "
                   f"{f['low']:.1%} to {f['high']:.1%} | {rate * 4:.2f} | {luce_elo(rate):.0f} | "
                   f"{luce_elo(f['low']):.0f} to {luce_elo(f['high']):.0f} |")
    return "\n".join(out)


if __name__ == "__main__":
    raise SystemExit(main())
