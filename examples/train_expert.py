"""Train the ``expert`` bot: imitation of ``heuristic``, then PPO self-play against a league.

Runs on the CPU (torch, one process). Reproducible from ``--seed`` (one process, seeded
games, seeded torch and numpy). Every table size plays: each game's size is drawn from
``--sizes`` (2 to 8 seats), so the one network learns all of them through the
size-independent encoding of :mod:`civlite.bots.features`.

1. **Imitation** (``--imitation-games``): ``heuristic`` plays itself; the network learns its
   choices (cross-entropy) and each seat's final result (the value head).
2. **Self-play with a league** (``--minutes`` or ``--updates``): in every game the learner
   holds one seat or, with ``--self-share``, all of them; each other seat is drawn from the
   league: ``heuristic``, a past version of the learner (a snapshot is added every
   ``--snapshot-every`` updates; the last ``--league`` are kept) or ``ismcts`` at a small
   budget. PPO (clipped, GAE) on the result alone: 1 for a win, a share of a draw, else 0.

``--init WEIGHTS`` starts from a trained network instead (no imitation): a fine-tuning run,
e.g. with ``--self-share 0 --past-share 0 --ismcts-share 0`` against ``heuristic`` alone.

Every ``--eval-every`` updates it plays ``--eval-games`` games against ``heuristic`` at
``--eval-players`` seats (2 by default; one seat against the rest, seats rotated, fixed
seeds) and logs the score. It writes the network (``--out``, the format
:class:`civlite.bots.expert.ExpertNet` loads) at every evaluation, the best-scoring one so far
to ``--keep-best`` if given, and a JSON-lines log (``--log``). The evaluation's seeds are
fixed, so the best of many evaluations overrates its network: gate it on fresh deals
(``benchmarks/network_gate.py``).

    .venv/bin/python examples/train_expert.py --minutes 40 --out src/civlite/bots/expert.npz
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from civlite.bots import Bot, make_bot
from civlite.bots.expert import ExpertBot, ExpertNet
from civlite.bots.features import SIZE, encode
from civlite.engine import NUM_ACTIONS, Game


class Net(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.l0 = nn.Linear(SIZE, hidden)
        self.l1 = nn.Linear(hidden, hidden)
        self.pi = nn.Linear(hidden, NUM_ACTIONS)
        self.v = nn.Linear(hidden, 1)
        nn.init.zeros_(self.pi.bias)
        with torch.no_grad():
            self.pi.weight.mul_(0.1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = torch.tanh(self.l1(torch.tanh(self.l0(x))))
        return self.pi(h), self.v(h).squeeze(-1)

    @classmethod
    def from_expert(cls, exp: ExpertNet) -> Net:
        """A network holding ``exp``'s weights (the inverse of :meth:`export`)."""
        net = cls(exp.w0.shape[1])
        with torch.no_grad():
            for layer, w, b in ((net.l0, exp.w0, exp.b0), (net.l1, exp.w1, exp.b1), (net.pi, exp.wp, exp.bp),
                                (net.v, exp.wv, exp.bv)):
                layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
                layer.bias.copy_(torch.from_numpy(np.ascontiguousarray(b)))
        return net

    def export(self, meta: dict[str, Any]) -> ExpertNet:
        def t(p: torch.Tensor) -> np.ndarray:
            return p.detach().cpu().numpy().astype(np.float32)
        return ExpertNet({"w0": t(self.l0.weight).T, "b0": t(self.l0.bias), "w1": t(self.l1.weight).T,
                          "b1": t(self.l1.bias), "wp": t(self.pi.weight).T, "bp": t(self.pi.bias),
                          "wv": t(self.v.weight).T, "bv": t(self.v.bias)}, meta)


def masked(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return logits.masked_fill(~mask, -1e9)


def result(game: Game, seat: int) -> float:
    if game.winner is not None:
        return 1.0 if game.winner == seat else 0.0
    drawn = game.drawn or tuple(range(game.n))
    return 1.0 / len(drawn) if seat in drawn else 0.0


def mask_of(legal: list[int]) -> np.ndarray:
    m = np.zeros(NUM_ACTIONS, dtype=bool)
    m[legal] = True
    return m


# -- imitation ------------------------------------------------------------------------
def imitation_data(games: int, sizes: list[int], weights: list[float], rng: random.Random
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    xs, ms, acts, outs = [], [], [], []
    for g_i in range(games):
        n = rng.choices(sizes, weights)[0]
        game = Game(n, seed=rng.randrange(2**31))
        bots = [make_bot("heuristic", seed=rng.randrange(2**31)) for _ in range(n)]
        rows: list[tuple[int, int]] = []
        while not game.over:
            s = game.to_move
            assert s is not None
            view = game.view(s)
            legal = game.legal_ids()
            a = bots[s].act(view, legal)
            if len(legal) > 1:
                xs.append(encode(view))
                ms.append(mask_of(legal))
                acts.append(a)
                rows.append((len(xs) - 1, s))
            game.apply_id(a)
        for i, s in rows:
            outs.append((i, result(game, s)))
        if (g_i + 1) % 500 == 0:
            print(f"  imitation games {g_i + 1}/{games}", file=sys.stderr, flush=True)
    out = np.zeros(len(xs), np.float32)
    for i, r in outs:
        out[i] = r
    return np.stack(xs), np.stack(ms), np.array(acts, np.int64), out


def imitate(net: Net, opt: torch.optim.Optimizer, data: tuple[np.ndarray, ...], epochs: int, batch: int,
            gen: torch.Generator) -> float:
    x, m, a, r = (torch.from_numpy(d) for d in data)
    n = x.shape[0]
    loss_v = 0.0
    for _ in range(epochs):
        perm = torch.randperm(n, generator=gen)
        for k in range(0, n, batch):
            idx = perm[k:k + batch]
            logits, v = net(x[idx])
            ce = nn.functional.cross_entropy(masked(logits, m[idx]), a[idx])
            vl = nn.functional.binary_cross_entropy_with_logits(v, r[idx])
            loss = ce + 0.5 * vl
            opt.zero_grad()
            loss.backward()
            opt.step()
            loss_v = float(ce)
    return loss_v


# -- self-play --------------------------------------------------------------------------
@dataclass
class Slot:
    game: Game
    learners: set[int]
    opponents: dict[int, Bot]
    traj: dict[int, list[int]] = field(default_factory=dict)  # seat -> step indices


class Collector:
    def __init__(self, args: argparse.Namespace, rng: random.Random) -> None:
        self.args = args
        self.rng = rng
        self.league: list[ExpertNet] = []
        self.slots: list[Slot] = []
        self.games_done = 0
        self.wins_vs: dict[str, list[float]] = {}
        # exploiters: 2-player policy networks (arg-max, so one bot each serves every game)
        self.exploiters: list[Bot] = [make_bot(f"policy:weights={p}") for p in args.exploiters]

    def new_slot(self) -> Slot:
        a, rng = self.args, self.rng
        if self.exploiters and rng.random() < a.exploiter_share:
            game = Game(2, seed=rng.randrange(2**31))
            me = rng.randrange(2)
            return Slot(game, {me}, {1 - me: rng.choice(self.exploiters)})
        n = rng.choices(a.sizes, a.size_weights)[0]
        game = Game(n, seed=rng.randrange(2**31))
        if rng.random() < a.self_share:
            return Slot(game, set(range(n)), {})
        me = rng.randrange(n)
        opps: dict[int, Bot] = {}
        for s in range(n):
            if s == me:
                continue
            u = rng.random()
            if u < a.ismcts_share:
                opps[s] = make_bot(f"ismcts:iterations={a.ismcts_iterations}", seed=rng.randrange(2**31))
            elif u < a.ismcts_share + a.past_share and self.league:
                opps[s] = ExpertBot(seed=rng.randrange(2**31), sample=1, net=rng.choice(self.league))
            else:
                opps[s] = make_bot("heuristic", seed=rng.randrange(2**31))
        return Slot(game, {me}, opps)

    def label(self, slot: Slot) -> str:
        if not slot.opponents:
            return "self"
        kinds = {b.name for b in slot.opponents.values()}
        return "+".join(sorted(kinds)) + f"@{slot.game.n}"

    def collect(self, net: Net, steps: int) -> dict[str, np.ndarray]:
        a = self.args
        if not self.slots:
            self.slots = [self.new_slot() for _ in range(a.parallel)]
        X: list[np.ndarray] = []
        M: list[np.ndarray] = []
        A: list[int] = []
        LP: list[float] = []
        V: list[float] = []
        done_traj: list[tuple[list[int], float | None]] = []
        while len(X) < steps:
            batch: list[tuple[int, int, np.ndarray, np.ndarray, list[int]]] = []
            for i, slot in enumerate(self.slots):
                g = slot.game
                while True:
                    if g.over:
                        for s, idx in slot.traj.items():
                            done_traj.append((idx, result(g, s)))
                            if slot.opponents:
                                self.wins_vs.setdefault(self.label(slot), []).append(result(g, s))
                        self.games_done += 1
                        slot = self.slots[i] = self.new_slot()
                        g = slot.game
                        continue
                    s = g.to_move
                    assert s is not None
                    legal = g.legal_ids()
                    if s in slot.learners:
                        if len(legal) == 1:
                            g.apply_id(legal[0])
                            continue
                        view = g.view(s)
                        batch.append((i, s, encode(view), mask_of(legal), legal))
                        break
                    g.apply_id(slot.opponents[s].act(g.view(s), legal))
            xb = torch.from_numpy(np.stack([b[2] for b in batch]))
            mb = torch.from_numpy(np.stack([b[3] for b in batch]))
            with torch.no_grad():
                logits, v = net(xb)
                dist = torch.distributions.Categorical(logits=masked(logits, mb))
                act = dist.sample()
                lp = dist.log_prob(act)
            for k, (i, s, x, m, _legal) in enumerate(batch):
                aid = int(act[k])
                X.append(x)
                M.append(m)
                A.append(aid)
                LP.append(float(lp[k]))
                V.append(float(torch.sigmoid(v[k])))
                self.slots[i].traj.setdefault(s, []).append(len(X) - 1)
                self.slots[i].game.apply_id(aid)
        # games still running: their steps so far end the batch, bootstrapped with the value of
        # their last step; the games go on and their later steps start afresh in the next batch
        for slot in self.slots:
            for idx in slot.traj.values():
                if idx:
                    done_traj.append((idx, None))
            slot.traj = {}
        # advantages (GAE, gamma 1)
        keep = np.zeros(len(X), bool)
        adv = np.zeros(len(X), np.float32)
        ret = np.zeros(len(X), np.float32)
        lam = a.lam
        for idx, r in done_traj:
            nxt_v = V[idx[-1]] if r is None else r
            g_acc = 0.0
            for j in reversed(idx):
                if j >= len(X):
                    continue
                delta = nxt_v - V[j]
                g_acc = delta + lam * g_acc
                adv[j] = g_acc
                ret[j] = g_acc + V[j]
                keep[j] = True
                nxt_v = V[j]
        sel = np.nonzero(keep)[0]
        return {"x": np.stack(X)[sel], "m": np.stack(M)[sel], "a": np.array(A, np.int64)[sel],
                "lp": np.array(LP, np.float32)[sel], "adv": adv[sel], "ret": ret[sel]}


def ppo_update(net: Net, opt: torch.optim.Optimizer, data: dict[str, np.ndarray], args: argparse.Namespace,
               gen: torch.Generator) -> dict[str, float]:
    x, m, a = torch.from_numpy(data["x"]), torch.from_numpy(data["m"]), torch.from_numpy(data["a"])
    old_lp, adv, ret = torch.from_numpy(data["lp"]), torch.from_numpy(data["adv"]), torch.from_numpy(data["ret"])
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    n = x.shape[0]
    stats: dict[str, float] = {}
    for _ in range(args.epochs):
        perm = torch.randperm(n, generator=gen)
        for k in range(0, n, args.minibatch):
            idx = perm[k:k + args.minibatch]
            logits, v = net(x[idx])
            dist = torch.distributions.Categorical(logits=masked(logits, m[idx]))
            lp = dist.log_prob(a[idx])
            ratio = torch.exp(lp - old_lp[idx])
            s1 = ratio * adv[idx]
            s2 = torch.clamp(ratio, 1 - args.clip, 1 + args.clip) * adv[idx]
            pl = -torch.min(s1, s2).mean()
            vl = nn.functional.mse_loss(torch.sigmoid(v), ret[idx])
            ent = dist.entropy().mean()
            loss = pl + args.vf * vl - args.ent * ent
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            opt.step()
            stats = {"policy_loss": float(pl), "value_loss": float(vl), "entropy": float(ent)}
    return stats


def evaluate(exp: ExpertNet, games: int, players: int = 2, opponent: str = "heuristic") -> float:
    score = 0.0
    for i in range(games):
        g = Game(players, seed=900_000 + i)
        me = i % players
        bots: list[Bot] = []
        for s in range(players):
            if s == me:
                bots.append(ExpertBot(seed=i, net=exp))
            else:
                bots.append(make_bot(opponent, seed=i * 8 + s))
        play_out(g, bots)
        score += result(g, me)
    return score / games


def play_out(g: Game, bots: list[Bot]) -> None:
    """Play ``g`` to its end, each seat's move chosen by its bot."""
    while not g.over:
        s = g.to_move
        assert s is not None
        g.apply_id(bots[s].act(g.view(s), g.legal_ids()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("expert.npz"))
    ap.add_argument("--log", type=Path, default=None, help="JSON-lines log (default: OUT with .log.jsonl)")
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--init", type=Path, default=None,
                    help="start from these expert weights (their hidden size; no imitation stage)")
    ap.add_argument("--sizes", default="2,3,4,5,6,7,8")
    ap.add_argument("--size-weights", default="4,2,3,1,2,1,1")
    ap.add_argument("--imitation-games", type=int, default=2000)
    ap.add_argument("--imitation-epochs", type=int, default=4)
    ap.add_argument("--minutes", type=float, default=30.0, help="wall-time budget of the self-play stage")
    ap.add_argument("--updates", type=int, default=0, help="stop after this many updates (0: by --minutes)")
    ap.add_argument("--steps", type=int, default=8192, help="learner decisions per update")
    ap.add_argument("--parallel", type=int, default=64, help="games played side by side")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--minibatch", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--clip", type=float, default=0.2)
    ap.add_argument("--lam", type=float, default=0.95)
    ap.add_argument("--vf", type=float, default=1.0)
    ap.add_argument("--ent", type=float, default=0.01)
    ap.add_argument("--self-share", type=float, default=0.3, help="games where the learner holds every seat")
    ap.add_argument("--past-share", type=float, default=0.35, help="opponent seats held by past versions")
    ap.add_argument("--ismcts-share", type=float, default=0.01, help="opponent seats held by ismcts")
    ap.add_argument("--ismcts-iterations", type=int, default=20)
    ap.add_argument("--exploiters", default="",
                    help="comma-separated 2-player policy weights (examples/train_policy.py) trained to beat "
                         "this network: a share of the games is played against them")
    ap.add_argument("--exploiter-share", type=float, default=0.5,
                    help="of the games, how many are 2-player games against one of --exploiters")
    ap.add_argument("--league", type=int, default=12)
    ap.add_argument("--snapshot-every", type=int, default=5)
    ap.add_argument("--eval-every", type=int, default=10)
    ap.add_argument("--eval-games", type=int, default=200)
    ap.add_argument("--eval-players", type=int, default=2, help="table size of the evaluation games")
    ap.add_argument("--keep-best", type=Path, default=None,
                    help="also write the best-evaluated network here")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.size_weights = [float(w) for w in args.size_weights.split(",")]
    args.exploiters = [p for p in args.exploiters.split(",") if p]
    if len(args.size_weights) != len(args.sizes):
        ap.error(f"--size-weights has {len(args.size_weights)} weights for {len(args.sizes)} --sizes")
    if not 2 <= args.eval_players <= 8:
        ap.error(f"--eval-players must be 2 to 8, not {args.eval_players}")
    log_path = args.log or args.out.with_suffix(".log.jsonl")
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    gen = torch.Generator().manual_seed(args.seed)
    rng = random.Random(args.seed)
    if args.init is not None:
        net = Net.from_expert(ExpertNet.load(args.init))
        args.hidden = net.l0.out_features
        args.imitation_games = 0
    else:
        net = Net(args.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    t0 = time.perf_counter()
    log = log_path.open("w")

    def emit(rec: dict[str, Any]) -> None:
        rec["wall_s"] = round(time.perf_counter() - t0, 1)
        log.write(json.dumps(rec) + "\n")
        log.flush()
        print(json.dumps(rec), file=sys.stderr, flush=True)

    eval_key = f"vs_heuristic_{args.eval_players}p"
    meta: dict[str, Any] = {"trainer": "examples/train_expert.py", "seed": args.seed, "hidden": args.hidden,
                            "sizes": args.sizes}
    if args.init is not None:
        meta["init"] = str(args.init)
    emit({"stage": "start", "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}})
    if args.imitation_games:
        data = imitation_data(args.imitation_games, args.sizes, args.size_weights, rng)
        ce = imitate(net, opt, data, args.imitation_epochs, 512, gen)
        exp = net.export(meta)
        emit({"stage": "imitation", "samples": len(data[0]), "cross_entropy": round(ce, 4),
              eval_key: evaluate(exp, args.eval_games, args.eval_players)})
        exp.save(args.out)
    col = Collector(args, rng)
    best = -1.0
    col.league.append(net.export(meta))
    start = time.perf_counter()
    upd = 0
    while True:
        if args.updates and upd >= args.updates:
            break
        if not args.updates and time.perf_counter() - start > args.minutes * 60:
            break
        data = col.collect(net, args.steps)
        stats = ppo_update(net, opt, data, args, gen)
        upd += 1
        rec: dict[str, Any] = {"stage": "selfplay", "update": upd, "samples": len(data["x"]),
                               "games": col.games_done, **{k: round(v, 4) for k, v in stats.items()}}
        if upd % args.snapshot_every == 0:
            col.league.append(net.export(meta))
            col.league = col.league[-args.league:]
        if upd % args.eval_every == 0:
            exp = net.export({**meta, "updates": upd, "games": col.games_done})
            score = evaluate(exp, args.eval_games, args.eval_players)
            rec[eval_key] = score
            if args.keep_best is not None and score > best:
                best = score
                exp.meta["eval"] = {eval_key: score, "games": args.eval_games, "update": upd}
                exp.save(args.keep_best)
                rec["best"] = True
            rec["train_scores"] = {k: round(float(np.mean(v[-400:])), 3) for k, v in sorted(col.wins_vs.items())
                                   if len(v) >= 20}
            exp.save(args.out)
        emit(rec)
    exp = net.export({**meta, "updates": upd, "games": col.games_done,
                      "wall_s": round(time.perf_counter() - t0)})
    exp.save(args.out)
    emit({"stage": "done", "updates": upd, "games": col.games_done,
          eval_key: evaluate(exp, args.eval_games, args.eval_players)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
