"""Train a *world value* network for ``champion``'s leaves: the chance of winning of a dealt world.

``champion`` searches over worlds dealt from its seat's view (``civlite.engine.sample_world``).
Its leaves were scored by ``expert``'s value head from the mover's view alone, as if the
cards it cannot see were still unknown, though the world being searched has dealt them.
A value network that reads the dealt world, with every hand in view
(:func:`civlite.bots.features.encode_table`), judges the position the search is in: the
oracle critic of perfect-information training (PerfectDou, Suphx), used where it is honest,
on worlds the seat guessed. The network has ``expert``'s shape; only its value head is used.

Three resumable stages (each writes whole files, so a stopped run goes on from ``--dir``):

1. **Generate** (numpy): ``--shards`` shards of ``--games`` games at ``--players`` seats,
   every seat played by ``expert``'s network for that size (``--teacher``), drawing from its
   softmax in a share ``--sample-share`` of the games and playing its best move in the
   others. Each decision the search would score (a choice, not a discard) keeps the mover's
   view encoding, its table encoding and, at the end, its result. Shard ``k`` is dealt
   from ``(seed, k)``; ``--part I/N`` lets N processes write the shards side by side.
2. **Train** (torch): from ``--init`` (default: the teacher), the value head and body learn
   the results of the table encodings (binary cross-entropy); the same training on the view
   encodings is run beside it (``--compare``, written beside ``--out`` as ``*-view.npz``) so
   that the log shows what the hands are worth to the value. The shards' last ``--holdout``
   share is held out and its loss logged after each epoch.
3. **Gate**: ``champion:value=OUT`` plays ``--gate-games`` games against ``champion`` at the
   same iterations (``--gate-iterations``), every deal from both seats; ``--ship PATH``
   writes the network only if it scores at least ``--gate``.

Every stage appends one JSON line to ``--log``.

    for part in 0 1; do nice -n 19 python examples/world_value.py --dir artifacts/world2p \\
        --shards 20 --games 500 --out artifacts/world2p/value.npz --part $part/2 & done; wait
    python examples/world_value.py --dir artifacts/world2p --shards 20 --games 500 \\
        --out artifacts/world2p/value.npz --log benchmarks/results/world-value-2p/log.jsonl
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from civlite.bots import make_bot
from civlite.bots.expert import TABLE_WEIGHTS, WEIGHTS, ExpertNet
from civlite.bots.features import SIZE, complete, encode, encode_table
from civlite.engine import DISCARD_BASE, Game

sys.path.insert(0, str(Path(__file__).resolve().parent))
from distil_table_net import log_line  # sibling scripts' helpers
from expert_iteration import decisions, play, result, save_atomic, sub_seed


# -- 1. generation ------------------------------------------------------------------------------
def generate(teacher: ExpertNet, players: int, games: int, seed: int, sample_share: float) -> dict[str, np.ndarray]:
    """``games`` games of ``teacher`` at every seat; its scored positions as arrays."""
    rng = random.Random(seed)
    xs: list[np.ndarray] = []
    ws: list[np.ndarray] = []
    zs: list[float] = []
    for _ in range(games):
        game = Game(players, seed=rng.randrange(2**31))
        sample = rng.random() < sample_share
        rows: list[tuple[int, int]] = []
        for seat, legal in decisions(game):
            x = encode(game.view(seat))
            s = teacher.logits(x)[legal].astype(np.float64)
            choice = legal[0] < DISCARD_BASE  # what the search scores; discards are not kept
            if choice:
                xs.append(x)
                ws.append(encode_table(game, seat))
                rows.append((len(xs) - 1, seat))
            if sample and choice:
                p = np.exp(s - s.max())
                p /= p.sum()
                k = min(int(np.searchsorted(np.cumsum(p), rng.random())), len(legal) - 1)
            else:
                k = int(np.argmax(s))
            game.apply_id(legal[k])
        zs.extend([0.0] * (len(xs) - len(zs)))
        for i, s_ in rows:
            zs[i] = result(game, s_)
    if not xs:
        empty = np.zeros((0, SIZE), np.float16)
        return {"x": empty, "w": empty, "z": np.zeros(0, np.float32)}
    return {"x": np.stack(xs).astype(np.float16), "w": np.stack(ws).astype(np.float16),
            "z": np.array(zs, np.float32)}


# -- 2. training --------------------------------------------------------------------------------
def train(init: ExpertNet, shards: list[Path], args: argparse.Namespace, key: str) -> tuple[ExpertNet, dict[str, Any]]:
    """Fit the value head (and body) of a copy of ``init`` to the results of encodings ``key``."""
    import torch
    import torch.nn.functional as F
    from train_expert import Net  # a sibling script (torch at import)

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    net = Net.from_expert(init)
    data = [np.load(p) for p in shards]
    x = torch.from_numpy(np.concatenate([complete(d[key].astype(np.float32)) for d in data]))  # older shards: + hand summaries
    z = torch.from_numpy(np.concatenate([d["z"] for d in data]))
    total = len(x)
    hold = int(total * args.holdout)
    train_n = total - hold  # the last shards' positions are held out (whole games)
    params = [p for name, p in net.named_parameters() if not name.startswith("pi.")]
    opt = torch.optim.Adam(params, lr=args.lr)
    gen = torch.Generator().manual_seed(args.seed)

    def loss(lo: int, hi: int) -> float:
        with torch.no_grad():
            s = 0.0
            for a in range(lo, hi, 16384):
                b = min(hi, a + 16384)
                _, v = net(x[a:b])
                s += float(F.binary_cross_entropy_with_logits(v, z[a:b], reduction="sum"))
        return s / max(1, hi - lo)

    stats: dict[str, Any] = {"encoding": key, "positions": total, "held_out": hold,
                             "held_out_value_loss_before": round(loss(train_n, total), 4)}
    for epoch in range(args.epochs):
        order = torch.randperm(train_n, generator=gen)
        for a in range(0, train_n, args.batch):
            idx = order[a:a + args.batch]
            _, v = net(x[idx])
            vl = F.binary_cross_entropy_with_logits(v, z[idx])
            opt.zero_grad()
            vl.backward()
            opt.step()
        log_line(args.log, {"stage": "epoch", "encoding": key, "epoch": epoch + 1,
                            "held_out_value_loss": round(loss(train_n, total), 4)})
    stats["held_out_value_loss_after"] = round(loss(train_n, total), 4)
    meta = {"players": args.players, "value": "table" if key == "w" else "view", "positions": total,
            "epochs": args.epochs, "seed": args.seed}
    out: ExpertNet = net.export(meta)
    return out, stats


# -- 3. gate ------------------------------------------------------------------------------------
def duel(a: str, b: str, players: int, games: int, seed: int, log: Path | None, label: str) -> float:
    """The score of one ``a`` seat against ``players - 1`` of ``b``, each deal from every seat."""
    score = 0.0
    for i in range(games):
        me = i % players
        deal = sub_seed(seed, i // players)
        g = play([make_bot(a if s == me else b, seed=deal + s) for s in range(players)], deal)
        score += result(g, me)
        if (i + 1) % 20 == 0:
            log_line(log, {"stage": "progress", "match": label, "games": i + 1, "score": round(score / (i + 1), 4)})
    return score / max(1, games)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, required=True, help="the shards (resumable)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--teacher", type=Path, default=None,
                    help="expert-format weights that play the games (default: expert's network for --players)")
    ap.add_argument("--init", type=Path, default=None, help="weights to start from (default: the teacher)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--log", type=Path, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--shards", type=int, default=20)
    ap.add_argument("--games", type=int, default=500, help="games a shard")
    ap.add_argument("--sample-share", type=float, default=0.5)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--holdout", type=float, default=0.05)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--compare", action="store_true", help="also train on the view encodings and log it")
    ap.add_argument("--gate-games", type=int, default=0, help="games of the gate (0: no gate)")
    ap.add_argument("--gate-iterations", type=int, default=400)
    ap.add_argument("--gate", type=float, default=0.52, help="the score the gate asks for")
    ap.add_argument("--ship", type=Path, default=None, help="where an accepted network is copied")
    ap.add_argument("--part", default="0/1", help="I/N: generate only the shards k with k %% N == I "
                    "(N processes side by side, then one more run to train)")
    args = ap.parse_args(argv)
    if not 2 <= args.players <= 8:
        ap.error(f"--players must be from 2 to 8, got {args.players}")
    for name in ("sample_share", "holdout"):
        if not 0 <= getattr(args, name) <= 1:
            ap.error(f"--{name.replace('_', '-')} must be from 0 to 1")
    try:
        part, parts = (int(v) for v in args.part.split("/"))
        if not 0 <= part < parts:
            raise ValueError
    except ValueError:
        ap.error(f"--part must be I/N with 0 <= I < N, got {args.part!r}")
    teacher_path = args.teacher or TABLE_WEIGHTS.get(args.players, WEIGHTS)
    try:
        teacher = ExpertNet.load(teacher_path)
        init = ExpertNet.load(args.init) if args.init else teacher
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    args.dir.mkdir(parents=True, exist_ok=True)
    shards = []
    for k in range(args.shards):
        path = args.dir / f"shard_{k:04d}.npz"
        shards.append(path)
        if path.exists() or k % parts != part:
            continue
        t0 = time.perf_counter()
        arrays = generate(teacher, args.players, args.games, sub_seed(args.seed, k), args.sample_share)
        save_atomic(path, arrays)
        log_line(args.log, {"stage": "generate", "shard": k, "games": args.games, "positions": len(arrays["z"]),
                            "seconds": round(time.perf_counter() - t0, 1)})
    if parts > 1:
        return 0
    if not args.out.exists():
        t0 = time.perf_counter()
        net, stats = train(init, shards, args, "w")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        net.save(args.out)
        log_line(args.log, {"stage": "train", **stats, "out": str(args.out),
                            "seconds": round(time.perf_counter() - t0, 1)})
        if args.compare:
            t0 = time.perf_counter()
            view_net, stats = train(init, shards, args, "x")
            view_out = args.out.with_name(args.out.stem + "-view.npz")
            view_net.save(view_out)
            log_line(args.log, {"stage": "train", **stats, "out": str(view_out),
                                "seconds": round(time.perf_counter() - t0, 1)})
    if args.gate_games <= 0:
        return 0
    t0 = time.perf_counter()
    it = args.gate_iterations
    score = duel(f"champion:iterations={it},value={args.out}", f"champion:iterations={it}", args.players,
                 args.gate_games, sub_seed(args.seed, "gate"), args.log, "gate")
    accepted = score >= args.gate
    if accepted and args.ship is not None:
        ExpertNet.load(args.out).save(args.ship)
    log_line(args.log, {"stage": "gate", "players": args.players, "games": args.gate_games, "iterations": it,
                        "score": round(score, 4), "gate": args.gate, "accepted": accepted,
                        "shipped": str(args.ship) if accepted and args.ship else None,
                        "seconds": round(time.perf_counter() - t0, 1)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
