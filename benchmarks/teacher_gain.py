"""Where a rollout teacher disagrees with the network it improves, and by how much.

Reads the shards ``examples/rollout_distil.py`` writes (``r*_s*.npz`` in a run's
directory) and tabulates, over the judged positions:

* by the pending decision (action, meld, vision, foundations, discards): how many were
  judged, the mean gain of the teacher's move over the network's (the difference of their
  mean rollout scores) and the share where the teacher leads by more than ``--margin``;
* at action decisions where it leads by more than ``--margin``, what the change is: another
  kind of move (an advanced ability for a basic one, a pass), the same kind of another suit,
  or the same ability aimed at another seat, with the commonest exchanges.

The gains are measured on the worlds the teacher chose its move on, so they are biased
upward (the teacher takes the highest of noisy means): they show where its choices differ,
not what each difference is worth in play.

With ``--nets``, each network given is scored on the same judged positions: how often its
best move is the teacher's, and the mean rollout score of the move it would play. A network
that never saw these positions in training does not choose by the rollouts' noise, so the
mean score of its moves is an unbiased measure of its one-step choices against the
network that played the rollouts; on shards a network was trained on it flatters it.

    python benchmarks/teacher_gain.py artifacts/rd6big --shards 30 --out FILE.json
    python benchmarks/teacher_gain.py artifacts/rd6w96 --nets A.npz B.npz
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from civlite.bots.expert import ExpertNet
from civlite.bots.features import KINDS, complete, offset
from civlite.engine.codec import DECODED, Compact

LETTERS = "CLWAMBDX"


def name(c: Compact) -> str:
    """``advanced M+3``, ``basic X``, ``pass``: a compact action in a few characters."""
    if c.suit is None:
        return c.op
    aim = f"+{c.offset}" if c.offset else ""
    return f"{c.op} {LETTERS[int(c.suit)]}{aim}"


def change(own: Compact, best: Compact) -> str:
    if own.op != best.op:
        return f"{own.op} -> {best.op}"
    if own.suit != best.suit:
        return f"{own.op}: another suit"
    return f"{own.op}: another target"


def judged_positions(f: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A shard's judged positions: (encodings, scores with the illegal moves at -inf, legal
    masks, the network's moves)."""
    with np.load(f) as d:
        judged = d["judged"]
        x, q, mask, own = d["x"][judged], d["q"][judged].astype(np.float32), d["mask"][judged], d["own"][judged]
    return x, np.where(mask, q, -np.inf), mask, own


def tabulate(files: list[Path], margin: float, top: int) -> dict[str, Any]:
    pending = offset("pending")
    kinds: dict[str, list[float]] = {}
    changes: Counter[str] = Counter()
    change_gain: Counter[str] = Counter()
    pairs: Counter[str] = Counter()
    pair_gain: Counter[str] = Counter()
    for f in files:
        x, q, mask, own = judged_positions(f)
        best = q.argmax(axis=1)
        gain = q.max(axis=1) - q[np.arange(len(own)), own]
        kind = x[:, pending:pending + len(KINDS)].argmax(axis=1)
        for k, label in enumerate(KINDS):
            s = kind == k
            row = kinds.setdefault(label, [0, 0.0, 0, 0])
            row[0] += int(s.sum())
            row[1] += float(gain[s].sum())
            row[2] += int((gain[s] > margin).sum())
            row[3] += int(mask[s].sum())
        for i in np.nonzero((kind == KINDS.index("action")) & (gain > margin))[0]:
            a, b = DECODED[int(own[i])], DECODED[int(best[i])]
            c = change(a, b)
            changes[c] += 1
            change_gain[c] += float(gain[i])
            p = f"{name(a)} -> {name(b)}"
            pairs[p] += 1
            pair_gain[p] += float(gain[i])
    total_gain = sum(r[1] for r in kinds.values()) or 1.0
    return {
        "shards": len(files),
        "margin": margin,
        "by_decision": [
            {"decision": k, "judged": n, "legal_moves": round(legal / n, 1), "mean_gain": round(g / n, 4),
             "share_of_gain": round(g / total_gain, 3), "leads_by_margin": round(c / n, 3)}
            for k, (n, g, c, legal) in kinds.items() if n
        ],
        "action_changes": [
            {"change": c, "positions": n, "gain": round(change_gain[c], 1)} for c, n in changes.most_common()
        ],
        "action_pairs": [
            {"network": p.split(" -> ")[0], "teacher": p.split(" -> ")[1], "positions": n,
             "mean_gain": round(pair_gain[p] / n, 3)}
            for p, n in pairs.most_common(top)
        ],
    }


def score_nets(files: list[Path], nets: list[Path]) -> list[dict[str, Any]]:
    """Each network's agreement with the teacher and the mean score of its moves, over the
    judged positions of ``files``."""
    loaded = [ExpertNet.load(p) for p in nets]
    hits = [0] * len(nets)
    scores = [0.0] * len(nets)
    own_score = best_score = 0.0
    n = 0
    for f in files:
        x, q, mask, own = judged_positions(f)
        x = complete(x)
        rows = np.arange(len(own))
        best = q.argmax(axis=1)
        own_score += float(q[rows, own].sum())
        best_score += float(q.max(axis=1).sum())
        n += len(own)
        for i, net in enumerate(loaded):
            pick = np.where(mask, net.logits(x), -np.inf).argmax(axis=1)
            hits[i] += int((pick == best).sum())
            scores[i] += float(q[rows, pick].sum())
    out = [{"net": "the move played in the games", "mean_score": round(own_score / max(1, n), 5)},
           {"net": "the teacher (biased upward)", "mean_score": round(best_score / max(1, n), 5)}]
    for p, h, sc in zip(nets, hits, scores, strict=True):
        out.append({"net": str(p), "agrees_with_teacher": round(h / max(1, n), 4),
                    "mean_score": round(sc / max(1, n), 5)})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", type=Path, help="a rollout_distil run's directory")
    ap.add_argument("--shards", type=int, default=0, help="read the first N shards (0: all)")
    ap.add_argument("--margin", type=float, default=0.03, help="a lead that counts as a change")
    ap.add_argument("--top", type=int, default=15, help="exchanges listed")
    ap.add_argument("--nets", type=Path, nargs="*", default=[], help="expert networks to score on the positions")
    ap.add_argument("--out", type=Path, help="write the tables as JSON here too")
    args = ap.parse_args(argv)
    files = sorted(args.dir.glob("r*_s*.npz"))
    if args.shards:
        files = files[: args.shards]
    if not files:
        ap.error(f"no shards (r*_s*.npz) in {args.dir}")
    out = tabulate(files, args.margin, args.top)
    out["dir"] = args.dir.name
    if args.nets:
        out["nets"] = score_nets(files, args.nets)
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
