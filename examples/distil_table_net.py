"""Distil a one-table-size ``policy`` network into an ``expert``-format network with a value head.

The 2-player ``policy`` network (``examples/train_policy.py``) plays better than ``expert`` at
its table size, but it has no value head, so ``champion``'s search cannot score its leaves
with it. This script gives it one, in two resumable stages (each writes whole files, so a
stopped run goes on from the files in ``--dir``):

1. **Generate** (numpy only): ``--shards`` shards of ``--games`` games each, every seat
   played by the teacher network (``--teacher``, a ``policy`` weights file). In a share
   ``--sample-share`` of the games the seats draw their moves from the teacher's softmax,
   in the others they play its best move, so that the positions differ from game to game.
   In a share ``--heuristic-share`` of the games one seat is ``heuristic`` (its positions are
   not kept: the value learns the outcome of the teacher's play). Each kept position holds the
   seat's ``expert`` encoding, the legal actions, the teacher's softmax over them and, at
   the game's end, the seat's result. Shard ``k`` is dealt from ``(seed, k)``.
2. **Train** (torch, one thread): an ``expert``-format network, warm-started from ``--init``
   (default: the shipped ``expert``), learns the teacher's policy (cross-entropy) and the
   results (binary cross-entropy on the value head) for ``--epochs`` passes; the shards'
   last ``--holdout`` share is kept aside and its losses logged. The network is written to
   ``--out`` with ``meta.players`` set to the table size (an ``--out`` that exists is
   kept: the run goes on to the gate).
3. **Gate**: the network plays ``--gate-games`` games at its table size against the one it
   would replace (``--gate-against``: by default the shipped ``expert`` at that size, the
   table network included), each deal from both seats, and as many against ``heuristic``
   (logged too). Only if it scores at least ``--gate`` is it copied to ``--ship PATH``.

Every stage appends one JSON line to ``--log``. The network plays as ``expert:weights=OUT``
and guides ``champion:weights=OUT`` (policy and value).

    nice -n 19 .venv/bin/python examples/distil_table_net.py --dir artifacts/distil2p \\
        --teacher benchmarks/results/policy-continued/policy.npz --shards 40 --games 500 \\
        --out benchmarks/results/distil-2p/net.npz --log benchmarks/results/distil-2p/log.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from civlite.bots import make_bot
from civlite.bots.encoding import encode_view
from civlite.bots.expert import WEIGHTS, ExpertNet
from civlite.bots.features import SIZE, complete, encode
from civlite.bots.policy import Network, features
from civlite.engine import NUM_ACTIONS, Game, obs_size

sys.path.insert(0, str(Path(__file__).resolve().parent))
from expert_iteration import decisions, match, result, save_atomic, sub_seed  # a sibling script's helpers


def log_line(path: Path | None, row: dict[str, Any]) -> None:
    row = {"time": time.strftime("%Y-%m-%dT%H:%M:%S"), **row}
    print(json.dumps(row), flush=True)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as f:
            f.write(json.dumps(row) + "\n")


# -- 1. generation ------------------------------------------------------------------------------
def generate(teacher: Network, games: int, seed: int, sample_share: float,
             heuristic_share: float) -> dict[str, np.ndarray]:
    """``games`` games of the teacher; its kept positions as arrays."""
    rng = random.Random(seed)
    n = teacher.players
    buf = np.zeros(obs_size(n), np.float32)
    xs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    pis: list[np.ndarray] = []
    zs: list[float] = []
    for _ in range(games):
        game = Game(n, seed=rng.randrange(2**31))
        sample = rng.random() < sample_share
        other = rng.randrange(n) if rng.random() < heuristic_share else -1
        heur = make_bot("heuristic", seed=rng.randrange(2**31)) if other >= 0 else None
        rows: list[tuple[int, int]] = []
        for seat, legal in decisions(game):
            view = game.view(seat)
            if seat == other:
                assert heur is not None
                game.apply_id(heur.act(view, legal))
                continue
            s = teacher.logits(features(encode_view(view, out=buf)))[legal].astype(np.float64)
            p = np.exp(s - s.max())
            p /= p.sum()
            pi = np.zeros(NUM_ACTIONS, np.float16)
            pi[legal] = p
            m = np.zeros(NUM_ACTIONS, bool)
            m[legal] = True
            xs.append(encode(view))
            masks.append(m)
            pis.append(pi)
            rows.append((len(xs) - 1, seat))
            if sample:
                k = min(int(np.searchsorted(np.cumsum(p), rng.random())), len(legal) - 1)
            else:
                k = int(np.argmax(p))
            game.apply_id(legal[k])
        zs.extend([0.0] * (len(xs) - len(zs)))
        for i, s_ in rows:
            zs[i] = result(game, s_)
    if not xs:
        return {"x": np.zeros((0, SIZE), np.float32), "mask": np.zeros((0, NUM_ACTIONS), bool),
                "pi": np.zeros((0, NUM_ACTIONS), np.float16), "z": np.zeros(0, np.float32)}
    return {"x": np.stack(xs).astype(np.float32), "mask": np.stack(masks), "pi": np.stack(pis),
            "z": np.array(zs, np.float32)}


# -- 2. training --------------------------------------------------------------------------------
def train(init: ExpertNet, shards: list[Path], args: argparse.Namespace, players: int) -> tuple[ExpertNet, dict[str, Any]]:
    import torch
    import torch.nn.functional as F
    from train_expert import Net  # a sibling script (torch at import)

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)

    net = Net.from_expert(init)
    data = [np.load(p) for p in shards]
    x = torch.from_numpy(np.concatenate([complete(d["x"]) for d in data]))  # older shards: + hand summaries
    mask = torch.from_numpy(np.concatenate([d["mask"] for d in data]))
    pi = torch.from_numpy(np.concatenate([d["pi"] for d in data]).astype(np.float32))
    z = torch.from_numpy(np.concatenate([d["z"] for d in data]))
    total = len(x)
    hold = int(total * args.holdout)
    train_n = total - hold  # the last shards' positions are held out (whole games)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    gen = torch.Generator().manual_seed(args.seed)

    def losses(lo: int, hi: int) -> tuple[float, float]:
        with torch.no_grad():
            pl_sum = vl_sum = 0.0
            for a in range(lo, hi, 8192):
                b = min(hi, a + 8192)
                logits, v = net(x[a:b])
                logp = F.log_softmax(logits.masked_fill(~mask[a:b], -1e9), -1)
                pl_sum += float(-(pi[a:b] * logp.clamp_min(-1e4)).sum())
                vl_sum += float(F.binary_cross_entropy_with_logits(v, z[a:b], reduction="sum"))
        return pl_sum / max(1, hi - lo), vl_sum / max(1, hi - lo)

    stats: dict[str, Any] = {"positions": total, "held_out": hold}
    stats["before"] = dict(zip(("policy_loss", "value_loss"), losses(train_n, total), strict=True))
    for epoch in range(args.epochs):
        order = torch.randperm(train_n, generator=gen)
        for a in range(0, train_n, args.batch):
            idx = order[a:a + args.batch]
            logits, v = net(x[idx])
            logp = F.log_softmax(logits.masked_fill(~mask[idx], -1e9), -1)
            pl = -(pi[idx] * logp.clamp_min(-1e4)).sum(-1).mean()
            vl = F.binary_cross_entropy_with_logits(v, z[idx])
            loss = pl + args.value_weight * vl
            opt.zero_grad()
            loss.backward()
            opt.step()
        pl_h, vl_h = losses(train_n, total)
        log_line(args.log, {"stage": "epoch", "epoch": epoch + 1, "held_out_policy_loss": round(pl_h, 4),
                            "held_out_value_loss": round(vl_h, 4)})
    stats["after"] = dict(zip(("policy_loss", "value_loss"), losses(train_n, total), strict=True))

    meta = {"players": players, "teacher": str(args.teacher), "positions": total, "epochs": args.epochs,
            "seed": args.seed}
    out: ExpertNet = net.export(meta)
    return out, stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, required=True, help="the shards (resumable)")
    ap.add_argument("--teacher", type=Path, required=True, help="a policy weights file (one table size)")
    ap.add_argument("--init", type=Path, default=WEIGHTS, help="expert-format weights to start from")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--log", type=Path, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--shards", type=int, default=40)
    ap.add_argument("--games", type=int, default=500, help="games a shard")
    ap.add_argument("--sample-share", type=float, default=0.5)
    ap.add_argument("--heuristic-share", type=float, default=0.2)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--value-weight", type=float, default=1.0)
    ap.add_argument("--holdout", type=float, default=0.05)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--gate-games", type=int, default=1000, help="games of the gate (0: no gate)")
    ap.add_argument("--gate-against", default="expert", help="the bot spec it must beat")
    ap.add_argument("--gate", type=float, default=0.52, help="the score the gate asks for")
    ap.add_argument("--ship", type=Path, default=None, help="where an accepted network is copied")
    ap.add_argument("--generate-only", action="store_true")
    ap.add_argument("--part", default="0/1", help="I/N: generate only the shards k with k %% N == I "
                    "(N processes side by side, then one more run to train)")
    args = ap.parse_args(argv)
    for name in ("sample_share", "heuristic_share", "holdout"):
        if not 0 <= getattr(args, name) <= 1:
            ap.error(f"--{name.replace('_', '-')} must be from 0 to 1")
    try:
        teacher = Network.load(args.teacher)
        init = ExpertNet.load(args.init)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        part, parts = (int(v) for v in args.part.split("/"))
        if not 0 <= part < parts:
            raise ValueError
    except ValueError:
        ap.error(f"--part must be I/N with 0 <= I < N, got {args.part!r}")
    args.dir.mkdir(parents=True, exist_ok=True)
    shards = []
    for k in range(args.shards):
        path = args.dir / f"shard_{k:04d}.npz"
        shards.append(path)
        if path.exists() or k % parts != part:
            continue
        t0 = time.perf_counter()
        arrays = generate(teacher, args.games, sub_seed(args.seed, k), args.sample_share, args.heuristic_share)
        save_atomic(path, arrays)
        log_line(args.log, {"stage": "generate", "shard": k, "games": args.games, "positions": len(arrays["z"]),
                            "seconds": round(time.perf_counter() - t0, 1)})
    if args.generate_only or parts > 1:
        return 0
    t0 = time.perf_counter()
    if args.out.exists():  # trained by an earlier run: go on to the gate
        net = ExpertNet.load(args.out)
    else:
        net, stats = train(init, shards, args, teacher.players)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        net.save(args.out)
        log_line(args.log, {"stage": "train", **stats, "out": str(args.out),
                            "seconds": round(time.perf_counter() - t0, 1)})
    if args.gate_games <= 0:
        return 0
    t0 = time.perf_counter()
    n = teacher.players
    head = match(net, args.gate_against, n, args.gate_games, sub_seed(args.seed, "gate"))
    heuristic = match(net, "heuristic", n, args.gate_games, sub_seed(args.seed, "heuristic"))
    accepted = head >= args.gate
    if accepted and args.ship is not None:
        net.save(args.ship)
    log_line(args.log, {"stage": "gate", "players": n, "games": args.gate_games, "against": args.gate_against,
                        "score": round(head, 4), "vs_heuristic": round(heuristic, 4), "gate": args.gate,
                        "accepted": accepted, "shipped": str(args.ship) if accepted and args.ship else None,
                        "seconds": round(time.perf_counter() - t0, 1)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
