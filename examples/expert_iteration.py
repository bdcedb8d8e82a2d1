"""Expert iteration for the ``expert`` network: distil what a strong honest search decides.

Each **round** has three stages, each resumable (a run can stop at any point and go on
later from the files in ``--dir``):

1. **Generate** (numpy only): ``--shards`` shards of ``--games`` games each. The current
   best network plays every seat (with ``--opponents heuristic``: one seat, a different one
   each game, against ``heuristic`` in the others); at each decision of more than one move (discards aside) a
   share ``--label-share`` of the positions is searched by ``ismcts`` with heuristic
   rollouts (``--search``, by default 1,000 iterations a decision, an honest search: it
   samples worlds from the seat's view) and the search's move is played; the other positions
   are played by the network (drawn from its policy, so that the games differ). Each searched
   position is kept with its **policy target** (the search's visit counts, normalised), its
   **search value** (the mean reward of the seat at the root) and, at the game's end, the
   seat's **result**. A shard is written whole (a temporary file renamed), so an interrupted
   shard is simply played again: shard ``k`` of round ``r`` is dealt from ``(seed, r, k)``.
2. **Train** (torch, one thread): the best network, warm-started, learns the searched
   positions of the last ``--window`` rounds: cross-entropy to the search's visit
   distribution (raised to ``--target-power`` and normalised: ISMCTS spreads its visits
   widely), and a value loss to ``(1 - q_share) * result + q_share * search value``.
   Seeded from ``(seed, r)``; the candidate is written as ``cand_RRR.npz``.
3. **Gate**: the candidate plays the best network ``--gate-games`` 2-player games (seats
   alternated, each deal played twice) and one seat against three of it at 4 players; it
   replaces the best network (``best.npz``; with ``--ship PATH`` that file too) only if its
   score over both (:func:`gate_score`: 0.5 at parity) is at least ``--gate``. Both are also scored against ``heuristic``.
   With ``--gate-by heuristic`` the gate is instead both networks' score against
   ``heuristic`` at the sizes trained, on the same deals (:func:`gate_heuristic`).

Every stage appends one JSON line to ``--log``. Generation is the slow part (about one
search a second on a free core); run it under ``nice``:

    nice -n 19 .venv/bin/python examples/expert_iteration.py --dir artifacts/expert_iteration \\
        --log benchmarks/results/expert_iteration/log.jsonl --seed 1 --hours 10

The same command resumes a stopped run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from civlite.bots import Bot, make_bot
from civlite.bots.expert import WEIGHTS, ExpertBot, ExpertNet
from civlite.bots.features import SIZE, complete, encode
from civlite.bots.ismcts import ISMCTSBot
from civlite.engine import DISCARD_BASE, NUM_ACTIONS, Game


def result(game: Game, seat: int) -> float:
    if game.winner is not None:
        return 1.0 if game.winner == seat else 0.0
    drawn = game.drawn or tuple(range(game.n))
    return 1.0 / len(drawn) if seat in drawn else 0.0


def decisions(game: Game) -> Iterator[tuple[int, list[int]]]:
    """The decisions of ``game`` that have a choice, as (seat, legal ids), until it ends;
    a forced move is played here. The caller plays a move for each one it is given."""
    while not game.over:
        seat = game.to_move
        assert seat is not None
        legal = game.legal_ids()
        if len(legal) == 1:
            game.apply_id(legal[0])
            continue
        yield seat, legal


def sub_seed(*parts: object) -> int:
    """A seed from the run's seed and a stage's indices (the same on every machine)."""
    return random.Random("/".join(map(str, parts))).randrange(2**31)


# -- 1. generation ------------------------------------------------------------------------------
def generate(net: ExpertNet, args: argparse.Namespace, seed: int, games: int) -> dict[str, np.ndarray]:
    """``games`` games of ``net`` with searched positions; the labelled positions as arrays."""
    rng = random.Random(seed)
    xs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    pis: list[np.ndarray] = []
    qs: list[float] = []
    zs: list[float] = []
    ns: list[int] = []
    for _ in range(games):
        n = rng.choices(args.sizes, args.size_weights)[0]
        game = Game(n, seed=rng.randrange(2**31))
        player = ExpertBot(seed=rng.randrange(2**31), sample=1, temperature=args.temperature, net=net)
        greedy = ExpertBot(seed=0, net=net)
        search = make_bot(args.search, seed=rng.randrange(2**31))
        assert isinstance(search, ISMCTSBot)
        # --opponents heuristic: one seat (a different one each game) is the network, the
        # others heuristic, whose positions are not kept
        me = rng.randrange(n) if args.opponents == "heuristic" else -1
        others = make_bot("heuristic", seed=rng.randrange(2**31)) if me >= 0 else None
        rows: list[tuple[int, int]] = []
        for seat, legal in decisions(game):
            view = game.view(seat)
            if others is not None and seat != me:
                game.apply_id(others.act(view, legal))
                continue
            if legal[0] >= DISCARD_BASE:
                game.apply_id(greedy.act(view, legal))
                continue
            if rng.random() >= args.label_share:
                game.apply_id(player.act(view, legal))
                continue
            move, stats = search.root_stats(view, legal)
            if stats:
                pi = np.zeros(NUM_ACTIONS, np.float32)
                total = sum(v for v, _ in stats.values())
                for a, (v, _) in stats.items():
                    pi[a] = v / total
                m = np.zeros(NUM_ACTIONS, bool)
                m[legal] = True
                xs.append(encode(view))
                masks.append(m)
                pis.append(pi)
                qs.append(sum(v * q for v, q in stats.values()) / total)
                ns.append(n)
                rows.append((len(xs) - 1, seat))
            game.apply_id(move)
        zs.extend([0.0] * (len(xs) - len(zs)))
        for i, s in rows:
            zs[i] = result(game, s)
    if not xs:
        return {"x": np.zeros((0, SIZE), np.float32), "mask": np.zeros((0, NUM_ACTIONS), bool),
                "pi": np.zeros((0, NUM_ACTIONS), np.float16), "q": np.zeros(0, np.float32),
                "z": np.zeros(0, np.float32), "n": np.zeros(0, np.int8)}
    return {"x": np.stack(xs), "mask": np.stack(masks), "pi": np.stack(pis).astype(np.float16),
            "q": np.array(qs, np.float32), "z": np.array(zs, np.float32), "n": np.array(ns, np.int8)}


def save_atomic(path: Path, arrays: dict[str, np.ndarray]) -> None:
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, **arrays)  # type: ignore[arg-type]
    os.replace(tmp, path)


# -- 2. training --------------------------------------------------------------------------------
def torch_net(net: ExpertNet) -> tuple[dict[str, Any], Callable[[Any], tuple[Any, Any]]]:
    """``net``'s weights as torch parameters, and its forward pass on them: (action scores,
    value logit) for a batch of encodings."""
    import torch
    from torch import nn

    params = {k: nn.Parameter(torch.from_numpy(np.array(getattr(net, k), np.float32)))
              for k in ("w0", "b0", "w1", "b1", "wp", "bp", "wv", "bv")}

    def forward(xb: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = torch.tanh(torch.tanh(xb @ params["w0"] + params["b0"]) @ params["w1"] + params["b1"])
        return h @ params["wp"] + params["bp"], (h @ params["wv"] + params["bv"])[:, 0]

    return params, forward


def fit(params: dict[str, Any], trained: Sequence[str], forward: Callable[[Any], tuple[Any, Any]], x: Any,
        mask: Any, soft: Any, value_loss: Callable[[Any, Any], Any], args: argparse.Namespace,
        gen: Any) -> list[tuple[float, float]]:
    """Adam on the ``trained`` parameters for ``args.epochs`` epochs of ``args.minibatch``
    positions: cross-entropy of the legal moves' scores to the ``soft`` targets, plus
    ``args.vf`` times ``value_loss(value logits, batch indices)``. The mean of both terms
    for each epoch."""
    import torch

    opt = torch.optim.Adam([params[k] for k in trained], lr=args.lr)
    n = x.shape[0]
    out: list[tuple[float, float]] = []
    for _ in range(args.epochs):
        perm = torch.randperm(n, generator=gen)
        tot_ce = tot_v = 0.0
        for k in range(0, n, args.minibatch):
            idx = perm[k:k + args.minibatch]
            logits, v = forward(x[idx])
            logp = torch.log_softmax(logits.masked_fill(~mask[idx], -1e9), dim=-1)
            ce = -(soft[idx] * logp).sum(-1).mean()
            vl = value_loss(v, idx)
            loss = ce + args.vf * vl
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot_ce += ce.item() * len(idx)
            tot_v += vl.item() * len(idx)
        out.append((tot_ce / max(1, n), tot_v / max(1, n)))
    return out


def train(best: ExpertNet, shards: list[Path], args: argparse.Namespace, seed: int) -> tuple[ExpertNet, dict[str, Any]]:
    import torch
    from torch import nn

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(seed)
    data = [np.load(p) for p in shards]
    x = torch.from_numpy(np.concatenate([complete(d["x"]) for d in data]))  # older shards: + hand summaries
    mask = torch.from_numpy(np.concatenate([d["mask"] for d in data]))
    pi_np = np.concatenate([d["pi"] for d in data]).astype(np.float32) ** args.target_power
    pi = torch.from_numpy(pi_np / np.maximum(pi_np.sum(-1, keepdims=True), 1e-12))
    q = np.concatenate([d["q"] for d in data])
    z = np.concatenate([d["z"] for d in data])
    target_v = torch.from_numpy(((1 - args.q_share) * z + args.q_share * q).astype(np.float32))
    params, forward = torch_net(best)
    # --train policy-head: the body and the value head stay as they were, and the scores of
    # the actions never searched (the discards) with them: only the policy head's columns of
    # the searched actions move
    trained = ("wp", "bp") if args.train == "policy-head" else tuple(params)
    n = x.shape[0]
    stats: dict[str, Any] = {"samples": int(n), "shards": len(shards)}

    def agreement() -> float:
        """How often the network's best move is the search's most visited one."""
        with torch.no_grad():
            logits, _ = forward(x)
            mine = logits.masked_fill(~mask, -1e9).argmax(-1)
        return round(float((mine == pi.argmax(-1)).float().mean()), 4)

    stats["agreement_before"] = agreement()
    epochs = fit(params, trained, forward, x, mask, pi,
                 lambda v, idx: nn.functional.binary_cross_entropy_with_logits(v, target_v[idx]), args, gen)
    for epoch, (ce, vl) in enumerate(epochs):
        stats[f"epoch{epoch}"] = {"cross_entropy": round(ce, 4), "value_bce": round(vl, 4)}
    stats["agreement_after"] = agreement()
    arrays = {k: p.detach().numpy().copy() for k, p in params.items()}
    return ExpertNet(arrays, {**best.meta, "trainer": "examples/expert_iteration.py"}), stats


# -- 3. gating ----------------------------------------------------------------------------------
def play(bots: list[Bot], seed: int) -> Game:
    g = Game(len(bots), seed=seed)
    while not g.over:
        s = g.to_move
        assert s is not None
        g.apply_id(bots[s].act(g.view(s), g.legal_ids()))
    return g


def match(a: ExpertNet | str, b: ExpertNet | str, players: int, games: int, seed: int) -> float:
    """The score of one ``a`` seat against ``players - 1`` of ``b`` (seats rotated)."""

    def bot(x: ExpertNet | str, s: int) -> Bot:
        return ExpertBot(seed=s, net=x) if isinstance(x, ExpertNet) else make_bot(x, seed=s)

    score = 0.0
    for i in range(games):
        me = i % players
        deal = sub_seed(seed, i // players)  # each deal played from every seat
        g = play([bot(a if s == me else b, deal + s) for s in range(players)], deal)
        score += result(g, me)
    return score / games


def gate_score(score2: float, games2: int, score4: float, games4: int) -> float:
    """One score from both tables, 0.5 at parity: the 2-player score and twice the 4-player
    share (a fair share is 25%), weighted by their games."""
    return (score2 * games2 + 2 * score4 * games4) / max(1, games2 + games4)


def gate(cand: ExpertNet, best: ExpertNet, args: argparse.Namespace, seed: int) -> dict[str, Any]:
    if args.gate_by == "heuristic":
        return gate_heuristic(cand, best, args, seed)
    h2h2 = match(cand, best, 2, args.gate_games, sub_seed(seed, "2p"))
    h2h4 = match(cand, best, 4, args.gate_games4, sub_seed(seed, "4p"))
    score = gate_score(h2h2, args.gate_games, h2h4, args.gate_games4)
    rec: dict[str, Any] = {"vs_best_2p": round(h2h2, 4), "vs_best_4p": round(h2h4, 4),
                           "gate_score": round(score, 4), "accepted": score >= args.gate}
    if args.eval_games:
        rec["cand_vs_heuristic_2p"] = round(match(cand, "heuristic", 2, args.eval_games, 77), 4)
        rec["best_vs_heuristic_2p"] = round(match(best, "heuristic", 2, args.eval_games, 77), 4)
    return rec


def gate_heuristic(cand: ExpertNet, best: ExpertNet, args: argparse.Namespace, seed: int) -> dict[str, Any]:
    """``--gate-by heuristic``: both networks as one seat against ``heuristic`` at every size of
    ``--sizes``, on the same ``--gate-games`` deals; the candidate replaces the best one only if
    its mean score, each size's divided by its fair share, beats the best one's by at least
    ``--gate-margin`` (a share of the fair share)."""
    rec: dict[str, Any] = {}
    gain = 0.0
    for n in args.sizes:
        c = match(cand, "heuristic", n, args.gate_games, sub_seed(seed, n))
        b = match(best, "heuristic", n, args.gate_games, sub_seed(seed, n))
        rec[f"cand_vs_heuristic_{n}p"], rec[f"best_vs_heuristic_{n}p"] = round(c, 4), round(b, 4)
        gain += (c - b) * n / len(args.sizes)
    rec["gain_over_fair_share"] = round(gain, 4)
    rec["accepted"] = gain >= args.gate_margin
    return rec


# -- the loop -----------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, required=True, help="the run's files (data, networks, state)")
    ap.add_argument("--log", type=Path, default=None, help="JSON-lines log (default: DIR/log.jsonl)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--init", type=Path, default=WEIGHTS, help="the first best network")
    ap.add_argument("--ship", type=Path, default=None, help="also write each accepted network here")
    ap.add_argument("--hours", type=float, default=0.0, help="stop after this long (0: by --rounds)")
    ap.add_argument("--rounds", type=int, default=0, help="stop after this round (0: by --hours)")
    ap.add_argument("--shards", type=int, default=8, help="shards a round")
    ap.add_argument("--games", type=int, default=4, help="games a shard")
    ap.add_argument("--search", default="ismcts:iterations=1000", help="the labelling search (an ismcts spec)")
    ap.add_argument("--label-share", type=float, default=0.5)
    ap.add_argument("--temperature", type=float, default=1.0, help="of the network's own moves")
    ap.add_argument("--opponents", choices=("self", "heuristic"), default="self",
                    help="who plays the other seats: the network (self-play) or heuristic")
    ap.add_argument("--sizes", default="2,3,4,5,6,7,8")
    ap.add_argument("--size-weights", default="4,2,3,1,2,1,1")
    ap.add_argument("--window", type=int, default=4, help="rounds of data each training reads")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--minibatch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--vf", type=float, default=0.5)
    ap.add_argument("--train", choices=("all", "policy-head"), default="all",
                    help="what learns: the whole network, or the policy head alone (the body, the value "
                    "head and the discards' scores kept)")
    ap.add_argument("--q-share", type=float, default=0.5)
    ap.add_argument("--target-power", type=float, default=2.0,
                    help="policy target: the visit counts to this power, normalised (1: the counts)")
    ap.add_argument("--gate", type=float, default=0.52)
    ap.add_argument("--gate-by", choices=("head-to-head", "heuristic"), default="head-to-head",
                    help="head-to-head: the candidate against the best network at 2 and 4 players; "
                    "heuristic: both against heuristic at the sizes trained")
    ap.add_argument("--gate-margin", type=float, default=0.02,
                    help="--gate-by heuristic: the gain over the best network needed, in fair shares")
    ap.add_argument("--gate-games", type=int, default=1000)
    ap.add_argument("--gate-games4", type=int, default=400)
    ap.add_argument("--eval-games", type=int, default=400)
    args = ap.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.size_weights = [float(w) for w in args.size_weights.split(",")]
    if not args.search.startswith("ismcts"):
        ap.error(f"--search must be an ismcts spec, got {args.search!r}")
    d: Path = args.dir
    (d / "data").mkdir(parents=True, exist_ok=True)
    log_path = args.log or d / "log.jsonl"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    state_path = d / "state.json"
    state: dict[str, Any] = json.loads(state_path.read_text()) if state_path.exists() else {"round": 0, "accepted": []}
    if not (d / "best.npz").exists():
        ExpertNet.load(args.init).save(d / "best.npz")
    t0 = time.perf_counter()

    def emit(rec: dict[str, Any]) -> None:
        rec = {"round": state["round"], **rec, "session_s": round(time.perf_counter() - t0, 1)}
        with log_path.open("a") as f:
            f.write(json.dumps(rec) + "\n")
        print(json.dumps(rec), file=sys.stderr, flush=True)

    def out_of_time() -> bool:
        return bool(args.hours) and time.perf_counter() - t0 > args.hours * 3600

    emit({"stage": "start", "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()
                                     if k not in ("dir", "log", "ship", "init")}})
    while not (args.rounds and state["round"] >= args.rounds):
        r = state["round"]
        best = ExpertNet.load(d / "best.npz")
        for k in range(args.shards):
            path = d / "data" / f"r{r:03d}_s{k:03d}.npz"
            if path.exists():
                continue
            if out_of_time():
                emit({"stage": "stopped"})
                return 0
            t = time.perf_counter()
            arrays = generate(best, args, sub_seed(args.seed, r, k), args.games)
            save_atomic(path, arrays)
            emit({"stage": "generate", "shard": k, "positions": len(arrays["x"]),
                  "mean_search_value": round(float(arrays["q"].mean()), 4) if len(arrays["q"]) else None,
                  "seconds": round(time.perf_counter() - t, 1)})
        cand_path = d / f"cand_{r:03d}.npz"
        if not cand_path.exists():
            t = time.perf_counter()
            shards = sorted(p for p in (d / "data").glob("r*_s*.npz") if not p.name.endswith(".tmp.npz")
                            and r - args.window < int(p.name[1:4]) <= r)
            cand, stats = train(best, shards, args, sub_seed(args.seed, r, "train"))
            cand.save(cand_path)  # float16, as shipped: the gate plays what would ship
            emit({"stage": "train", **stats, "seconds": round(time.perf_counter() - t, 1)})
        gate_path = d / f"gate_{r:03d}.json"
        if gate_path.exists():
            g = json.loads(gate_path.read_text())
        else:
            t = time.perf_counter()
            g = gate(ExpertNet.load(cand_path), best, args, sub_seed(args.seed, r, "gate"))
            g["seconds"] = round(time.perf_counter() - t, 1)
            gate_path.write_text(json.dumps(g) + "\n")
            emit({"stage": "gate", **g})
        if g["accepted"]:
            net = ExpertNet.load(cand_path)
            net.meta = {**net.meta, "expert_iteration_round": r, "seed": args.seed}
            net.save(d / "best.npz")  # written beside it, then renamed
            if args.ship:
                shutil.copyfile(d / "best.npz", args.ship)
            state["accepted"].append(r)
        state["round"] = r + 1
        state_path.write_text(json.dumps(state) + "\n")
        if out_of_time():
            emit({"stage": "stopped"})
            return 0
    emit({"stage": "done", "accepted": state["accepted"]})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
