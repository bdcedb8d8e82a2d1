"""Rollout policy improvement, distilled: approximate policy iteration for one table size.

The ``expert`` network at one table size plays one seat against ``heuristic`` in the others.
At each of its decisions with more than one move (the discards aside) a **rollout
improvement** of the network judges every legal move: in ``--worlds`` worlds dealt from the
seat's view (:func:`civlite.engine.sample_world`, so the judge is honest), each move is
played and followed by ``--depth`` steps in which the network plays its own seat and
``heuristic`` the others, and the position reached is scored as ``ismcts`` scores its
rollouts (a finished game by its result, else each seat's CT and hand value). Every move
meets the same worlds. The move of the highest mean score (the network's own move ahead by
``--bonus``) is the improved policy's move, one step of policy iteration (Bertsekas'
rollout algorithm). The network is then trained to play it, and the next round improves
the trained network.

Each **round** has three stages, each resumable (the same command goes on from the files in
``--dir``):

1. **Generate** (numpy only): ``--shards`` shards of ``--games`` games. Each judged position
   is kept with the mean score of every legal move and the network's move; a share
   ``--discard-share`` of the discard steps is kept too, labelled with the network's own
   choice, so that training leaves the discards as they were. The improved move is played
   with probability ``--improve-share`` (else the network's), so the positions are those of
   a mixture of the two policies, as in DAgger. Shard ``k`` of round ``r`` is dealt from
   ``(seed, r, k)`` and written whole (a temporary file renamed).
2. **Train** (torch, one thread): the network, warm-started, learns the judged positions of
   the last ``--window`` rounds (``--target``; by default cross-entropy to its own policy
   raised to ``--prior-power`` times ``exp(score / --tau)``, normalised over the legal moves)
   and the kept discards (to its own choice), while its value head is held to its old
   outputs. A network from before the encoding's hand summaries gains them as inputs (zero
   weights at the start), and shards written before them are completed
   (:func:`civlite.bots.features.complete`).
3. **Gate**: the candidate and the network each play one seat against ``heuristic`` on the
   same ``--gate-games`` fresh deals (seats rotated); the candidate replaces the network
   only if it scores at least ``--gate-margin`` more.

Every stage appends one JSON line to ``--log``.

    nice -n 19 python examples/rollout_distil.py --players 4 --dir artifacts/rollout4 \\
        --log artifacts/rollout4/log.jsonl --seed 1 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from civlite.bots import make_bot
from civlite.bots.expert import TABLE_WEIGHTS, WEIGHTS, ExpertBot, ExpertNet
from civlite.bots.features import SIZE, complete, encode
from civlite.bots.heuristic import Evaluator, discard_on_game, evaluator, policy_on_game
from civlite.bots.ismcts import ISMCTSBot
from civlite.engine import DISCARD_BASE, NUM_ACTIONS, Game, View, sample_world

sys.path.insert(0, str(Path(__file__).resolve().parent))
from expert_iteration import decisions, fit, match, result, save_atomic, sub_seed, torch_net


class RolloutImprover:
    """One step of policy improvement over ``net`` by truncated rollouts in sampled worlds."""

    def __init__(self, net: ExpertNet, seed: int, worlds: int = 32, depth: int = 8, bonus: float = 0.02) -> None:
        self.player = ExpertBot(seed=0, net=net)  # the network's own (best) move
        self.rng = random.Random(seed)
        self.worlds = worlds
        self.depth = depth
        self.bonus = bonus
        self.scorer = ISMCTSBot(seed=seed)

    def own_move(self, view: View, legal: Sequence[int]) -> int:
        return self.player.act(view, legal)

    def _rollout(self, world: Game, me: int, ev: Evaluator) -> float:
        steps = 0
        while not world.over and steps < self.depth:
            legal = world.legal_ids()
            seat = world.to_move
            assert seat is not None
            if len(legal) == 1:
                a = legal[0]
            elif seat == me:
                a = self.own_move(world.view(seat), legal)
            elif legal[0] >= DISCARD_BASE:
                steps += discard_on_game(world, legal, ev)
                continue
            else:
                a = policy_on_game(world, legal, ev)
            world.apply_id(a, check=False)
            steps += 1
        return self.scorer.evaluate(world, ev)[me]

    def scores(self, view: View, legal: Sequence[int]) -> dict[int, float]:
        """The mean rollout score of every legal move (the same worlds for each)."""
        me = view.seat
        assert me is not None
        ev = evaluator(view.rules, view.num_players)
        total = dict.fromkeys(legal, 0.0)
        for _ in range(self.worlds):
            world = sample_world(view, self.rng)
            for a in legal:
                w = world.clone()
                w.apply_id(a, check=False)
                total[a] += self._rollout(w, me, ev)
        return {a: t / self.worlds for a, t in total.items()}

    def best(self, scores: dict[int, float], own: int) -> int:
        return max(scores, key=lambda a: scores[a] + (self.bonus if a == own else 0.0))


def measure(net: ExpertNet, args: argparse.Namespace) -> dict[str, Any]:
    """``--measure-teacher``: the rollout improvement itself as one seat against ``heuristic``
    (seats rotated over the deals ``seed, seed + 1, ...``), beside the network alone on the
    same deals."""
    from statsmodels.stats.proportion import proportion_confint

    n = args.players
    out: dict[str, Any] = {"stage": "measure", "players": n, "games": args.measure_teacher, "seed": args.seed,
                           "worlds": args.worlds, "depth": args.depth, "bonus": args.bonus}
    for who in ("teacher", "network"):
        total = 0.0
        changed = judged = 0
        for i in range(args.measure_teacher):
            me, deal = i % n, args.seed + i // n
            judge = RolloutImprover(net, deal * 8 + me, args.worlds, args.depth, args.bonus)
            bots = [make_bot("heuristic", seed=deal * 8 + s) for s in range(n)]
            game = Game(n, seed=deal)
            while not game.over:
                seat = game.to_move
                assert seat is not None
                legal = game.legal_ids()
                view = game.view(seat)
                if seat != me:
                    game.apply_id(bots[seat].act(view, legal))
                elif who == "network" or len(legal) == 1 or legal[0] >= DISCARD_BASE:
                    game.apply_id(judge.own_move(view, legal))
                else:
                    own = judge.own_move(view, legal)
                    move = judge.best(judge.scores(view, legal), own)
                    judged += 1
                    changed += move != own
                    game.apply_id(move)
            total += result(game, me)
        lo, hi = proportion_confint(round(total), args.measure_teacher, method="wilson")
        out[who] = {"score": round(total / args.measure_teacher, 4), "wilson95": [round(lo, 4), round(hi, 4)]}
        if who == "teacher":
            out[who] |= {"decisions": judged, "changed": changed}
    return out


# -- 1. generation ------------------------------------------------------------------------------
def generate(net: ExpertNet, args: argparse.Namespace, seed: int) -> dict[str, np.ndarray]:
    rng = random.Random(seed)
    n = args.players
    xs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    qs: list[np.ndarray] = []
    owns: list[int] = []
    judged: list[bool] = []
    changed = 0
    for _ in range(args.games):
        game = Game(n, seed=rng.randrange(2**31))
        me = rng.randrange(n)
        judge = RolloutImprover(net, rng.randrange(2**31), args.worlds, args.depth, args.bonus)
        others = make_bot("heuristic", seed=rng.randrange(2**31))
        for seat, legal in decisions(game):
            view = game.view(seat)
            if seat != me:
                game.apply_id(others.act(view, legal))
                continue
            own = judge.own_move(view, legal)
            m = np.zeros(NUM_ACTIONS, bool)
            m[legal] = True
            q = np.zeros(NUM_ACTIONS, np.float16)
            if legal[0] >= DISCARD_BASE:
                if rng.random() < args.discard_share:
                    xs.append(encode(view))
                    masks.append(m)
                    qs.append(q)
                    owns.append(own)
                    judged.append(False)
                game.apply_id(own)
                continue
            sc = judge.scores(view, legal)
            for a, v in sc.items():
                q[a] = v
            move = judge.best(sc, own)
            changed += move != own
            xs.append(encode(view))
            masks.append(m)
            qs.append(q)
            owns.append(own)
            judged.append(True)
            game.apply_id(move if rng.random() < args.improve_share else own)
    if not xs:
        return {"x": np.zeros((0, SIZE), np.float32), "mask": np.zeros((0, NUM_ACTIONS), bool),
                "q": np.zeros((0, NUM_ACTIONS), np.float16), "own": np.zeros(0, np.int16),
                "judged": np.zeros(0, bool), "changed": np.array(changed)}
    return {"x": np.stack(xs), "mask": np.stack(masks), "q": np.stack(qs), "own": np.array(owns, np.int16),
            "judged": np.array(judged), "changed": np.array(changed)}


# -- 2. training --------------------------------------------------------------------------------
def targets(data: dict[str, np.ndarray], bonus: float) -> np.ndarray:
    """The action each kept position is trained to: the improved move, or for a discard the
    network's own."""
    q = data["q"].astype(np.float32)
    mask = data["mask"]
    own = data["own"].astype(np.int64)
    q = np.where(mask, q, -np.inf)
    q[np.arange(len(own)), own] += bonus
    best = q.argmax(-1)
    return np.where(data["judged"], best, own)


def train(net: ExpertNet, shards: list[Path], args: argparse.Namespace, seed: int) -> tuple[ExpertNet, dict[str, Any]]:
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(seed)
    data = [dict(np.load(p)) for p in shards]
    x = torch.from_numpy(np.concatenate([complete(d["x"]) for d in data]))  # older shards: + hand summaries
    mask = torch.from_numpy(np.concatenate([d["mask"] for d in data]))
    y = torch.from_numpy(np.concatenate([targets(d, args.bonus) for d in data]))
    judged = torch.from_numpy(np.concatenate([d["judged"] for d in data]))
    params, forward = torch_net(net)
    trained = ("wp", "bp") if args.train == "policy-head" else tuple(params)

    with torch.no_grad():
        logits_old, v_old = forward(x)
        p_old = torch.softmax(logits_old.masked_fill(~mask, -1e9), dim=-1)
    own = torch.from_numpy(np.concatenate([d["own"] for d in data]).astype(np.int64))
    if args.target == "swap":
        # the network's own distribution, with the probabilities of its move and the improved
        # one exchanged where they differ: the improved move becomes its best, nothing else moves
        rows = torch.arange(len(y))
        soft = p_old.clone()
        soft[rows, y], soft[rows, own] = p_old[rows, own], p_old[rows, y]
    elif args.target in ("weighted", "scores"):
        # the network's own distribution reweighted by the scores (MPO's improved policy):
        # p_new(a) proportional to p_old(a) * exp(score(a) / tau); discards unchanged
        q = torch.from_numpy(np.concatenate([d["q"] for d in data]).astype(np.float32))
        w = torch.exp((q - q.max(-1, keepdim=True).values) / args.tau).masked_fill(~mask, 0.0)
        prior = p_old ** args.prior_power if args.prior_power != 1.0 else p_old
        soft = torch.where(judged[:, None], (prior if args.target == "weighted" else 1.0) * w, p_old)
        soft = soft / soft.sum(-1, keepdim=True).clamp_min(1e-12)
    else:
        soft = torch.nn.functional.one_hot(y, p_old.shape[1]).float()

    def agreement() -> dict[str, float]:
        with torch.no_grad():
            logits, _ = forward(x)
            mine = logits.masked_fill(~mask, -1e9).argmax(-1)
        hit = (mine == y).float()
        return {"judged": round(float(hit[judged].mean()), 4),
                "discards": round(float(hit[~judged].mean()), 4) if bool((~judged).any()) else 1.0}

    n = x.shape[0]
    stats: dict[str, Any] = {"samples": int(n), "judged": int(judged.sum()), "shards": len(shards),
                             "agreement_before": agreement()}
    epochs = fit(params, trained, forward, x, mask, soft, lambda v, idx: ((v - v_old[idx]) ** 2).mean(), args, gen)
    for epoch, (ce, vl) in enumerate(epochs):
        stats[f"epoch{epoch}"] = {"cross_entropy": round(ce, 4), "value_drift": round(vl, 5)}
    stats["agreement_after"] = agreement()
    arrays = {k: p.detach().numpy().copy() for k, p in params.items()}
    return ExpertNet(arrays, {**net.meta, "trainer": "examples/rollout_distil.py"}), stats


# -- the loop -----------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, required=True, help="the table size trained")
    ap.add_argument("--dir", type=Path, required=True, help="the run's files (data, networks, state)")
    ap.add_argument("--log", type=Path, default=None, help="JSON-lines log (default: DIR/log.jsonl)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--init", type=Path, default=None, help="the first network (default: the shipped one of that size)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--shards", type=int, default=8, help="shards a round")
    ap.add_argument("--games", type=int, default=50, help="games a shard")
    ap.add_argument("--only-shards", default="", help="generate only these shards (k,k,...), e.g. one process a core")
    ap.add_argument("--worlds", type=int, default=32)
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--bonus", type=float, default=0.02, help="the network's own move's head start")
    ap.add_argument("--improve-share", type=float, default=0.5)
    ap.add_argument("--discard-share", type=float, default=0.5)
    ap.add_argument("--window", type=int, default=2, help="rounds of data each training reads")
    ap.add_argument("--target", choices=("weighted", "scores", "swap", "move"), default="weighted",
                    help="weighted: the network's policy times exp(score / tau) (MPO's improved policy); "
                    "scores: exp(score / tau) alone (a softmax of the scores); "
                    "swap: the network's policy with its move's and the improved move's probabilities "
                    "exchanged; move: the improved move alone")
    ap.add_argument("--tau", type=float, default=0.05, help="the weighted target's temperature")
    ap.add_argument("--prior-power", type=float, default=1.0,
                    help="the weighted target takes the network's policy to this power (below 1: further "
                         "from it where the scores disagree)")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--minibatch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--train", choices=("all", "policy-head"), default="all")
    ap.add_argument("--vf", type=float, default=1.0, help="weight of holding the value head to its old outputs")
    ap.add_argument("--gate-games", type=int, default=4000)
    ap.add_argument("--gate-margin", type=float, default=0.005)
    ap.add_argument("--measure-teacher", type=int, default=0, metavar="GAMES",
                    help="only measure: the rollout improvement of the current network as one seat "
                    "against heuristic over GAMES games, and the network alone on the same deals")
    ap.add_argument("--present", action="store_true",
                    help="train on the shards written so far instead of generating the rest (a round "
                         "stopped early, its generation split over processes)")
    ap.add_argument("--stop-after", choices=("generate", "train", "gate"), default="gate",
                    help="stop the round after this stage (for running generation in several processes)")
    args = ap.parse_args(argv)
    d: Path = args.dir
    d.mkdir(parents=True, exist_ok=True)
    log_path: Path = args.log or d / "log.jsonl"
    log_path.parent.mkdir(parents=True, exist_ok=True)

    def log(rec: dict[str, Any]) -> None:
        rec = {"time": time.strftime("%Y-%m-%dT%H:%M:%S"), **rec}
        with log_path.open("a") as f:
            f.write(json.dumps(rec) + "\n")
        print(json.dumps(rec), flush=True)

    state_path = d / "state.json"
    state = json.loads(state_path.read_text()) if state_path.exists() else {"round": 0}
    best_path = d / "best.npz"
    if not best_path.exists():
        init = args.init or TABLE_WEIGHTS.get(args.players, WEIGHTS)
        ExpertNet.load(init).save(best_path, half=False)
        root = Path(__file__).resolve().parents[1]
        shown = init.resolve().relative_to(root) if init.resolve().is_relative_to(root) else init
        log({"stage": "init", "from": str(shown), "players": args.players})
    if args.measure_teacher:
        log(measure(ExpertNet.load(best_path), args))
        return 0
    only = {int(k) for k in args.only_shards.split(",") if k}
    while state["round"] < args.rounds:
        r = state["round"]
        net = ExpertNet.load(best_path)
        for k in range(0 if args.present else args.shards):  # --present: no more generated
            p = d / f"r{r:03d}_s{k:03d}.npz"
            if p.exists() or (only and k not in only):
                continue
            t0 = time.time()
            arrays = generate(net, args, sub_seed(args.seed, r, k))
            save_atomic(p, arrays)
            log({"stage": "generate", "round": r, "shard": k, "positions": len(arrays["x"]),
                 "judged": int(arrays["judged"].sum()), "changed": int(arrays["changed"]),
                 "seconds": round(time.time() - t0, 1)})
        shards = [d / f"r{q:03d}_s{k:03d}.npz" for q in range(max(0, r - args.window + 1), r + 1)
                  for k in range(args.shards)]
        if args.present:
            shards = [p for p in shards if p.exists()]
        if args.stop_after == "generate" or not shards or not all(p.exists() for p in shards):
            return 0
        cand_path = d / f"cand_{r:03d}.npz"
        if not cand_path.exists():
            t0 = time.time()
            cand, stats = train(net, shards, args, sub_seed(args.seed, r, "train"))
            cand.save(cand_path, half=False)
            present = {"present": [p.stem for p in shards]} if args.present else {}
            log({"stage": "train", "round": r, "target": args.target, "tau": args.tau,
                 "prior_power": args.prior_power, "lr": args.lr,
                 "epochs": args.epochs, "train": args.train, **stats, **present,
                 "seconds": round(time.time() - t0, 1)})
        if args.stop_after == "train":
            return 0
        cand = ExpertNet.load(cand_path)
        t0 = time.time()
        seed = sub_seed(args.seed, r, "gate")
        c = match(cand, "heuristic", args.players, args.gate_games, seed)
        b = match(net, "heuristic", args.players, args.gate_games, seed)
        accepted = c - b >= args.gate_margin
        log({"stage": "gate", "round": r, "players": args.players, "games": args.gate_games,
             "candidate": round(c, 4), "best": round(b, 4), "accepted": accepted,
             "seconds": round(time.time() - t0, 1)})
        if accepted:
            cand.save(best_path, half=False)
        state["round"] = r + 1
        state_path.write_text(json.dumps(state))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
