"""A league with exploiters for the ``expert`` network (AlphaStar's main agent and exploiters).

Each round:

1. **Exploit.** A MaskablePPO exploiter starts from the shipped 2-player ``policy`` weights and
   trains ``--exploit-minutes`` against the current network (``examples/train_policy.py
   --init ... --opponent expert:weights=CURRENT``), keeping its best checkpoint against it.
   It then plays ``--measure-games`` fresh 2-player deals against the current network, seats
   alternated: its score is the current network's *exploitability* (what ten minutes of PPO
   find in it).
2. **Harden.** The current network is fine-tuned ``--harden-minutes`` by
   ``examples/train_expert.py --init CURRENT --exploiters ...``: a share of its games are
   2-player games against every exploiter found so far, the rest its usual league
   (self-play, past versions, ``heuristic``) at every table size.
3. **Gate.** The candidate replaces the current network only if it scores at least
   ``--gate`` head to head against it (``--gate-games`` 2-player deals, seats alternated) and
   is not significantly worse (by more than two standard errors) against this round's
   exploiter nor against ``heuristic`` at 2 players and at 4 (one seat against three).

After ``--rounds`` hardenings a last exploiter measures the final network. Everything is in
``--dir``: the networks, the exploiters, the training logs and ``state.json``; a stopped run
goes on from its last finished stage when started again with the same arguments, and the
JSON-lines ``log.jsonl`` records every stage. Reproducible from ``--seed`` up to the
wall-clock budgets of the two training stages.

    nice -n 19 .venv/bin/python examples/league.py --dir league --rounds 3
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from train_expert import play_out, result

from civlite.bots import Bot, make_bot
from civlite.bots.expert import WEIGHTS as EXPERT_WEIGHTS
from civlite.bots.policy import WEIGHTS as POLICY_WEIGHTS
from civlite.bots.policy import Network
from civlite.engine import Game

HERE = Path(__file__).resolve().parent


def match(me: str, other: str, games: int, seed: int, players: int = 2) -> float:
    """``me``'s mean score in one seat against ``other`` in every other seat, ``games`` deals
    from ``seed`` on, the seat rotated from deal to deal."""
    total = 0.0
    for i in range(games):
        g = Game(players, seed=seed + i)
        mine = i % players
        bots: list[Bot] = [make_bot(me if s == mine else other, seed=(seed + i) * 8 + s) for s in range(players)]
        play_out(g, bots)
        total += result(g, mine)
    return total / games


def significantly_worse(current: float, candidate: float, games: int) -> bool:
    """Whether ``candidate`` scored below ``current`` by more than two standard errors of the
    difference of two scores over ``games`` games each."""
    var = sum(max(p * (1.0 - p), 0.0625 / games) for p in (current, candidate)) / games
    return current - candidate > 2.0 * math.sqrt(var)


def exploiter_command(init: Path | str, opponent: str, minutes: float, seed: int, eval_seed: int, out: Path | str,
                      eval_games: int = 200, eval_every: int = 200_000, steps: int = 0) -> list[str]:
    """The ``train_policy.py`` command that trains an exploiter: MaskablePPO from the policy
    weights ``init`` (its layers' sizes kept) against ``opponent`` for ``minutes`` (or
    ``steps``), its best checkpoint on ``eval_games``-game evaluations kept in ``out``."""
    hidden = ",".join(str(w.shape[1]) for w, _ in Network.load(init).layers[:-1])
    return [sys.executable, str(HERE / "train_policy.py"), "--init", str(init), "--hidden", hidden,
            "--opponent", opponent, "--random-envs", "0", "--minutes", str(minutes),
            "--eval-opponent", opponent, "--eval-games", str(eval_games), "--eval-every", str(eval_every),
            "--eval-seed", str(eval_seed), *(["--timesteps", str(steps)] if steps else []),
            "--seed", str(seed), "--out", str(out)]


def policy(path: Path | str) -> str:
    return f"policy:weights={path}"


class League:
    def __init__(self, args: argparse.Namespace) -> None:
        self.a = args
        self.dir: Path = args.dir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.state_path = self.dir / "state.json"
        self.log_path = self.dir / "log.jsonl"
        if self.state_path.exists():
            self.state: dict[str, Any] = json.loads(self.state_path.read_text())
        else:
            first = self.dir / "net-0.npz"
            shutil.copyfile(args.init, first)
            self.state = {"round": 0, "stage": "exploit", "current": str(first), "exploiters": [],
                          "measures": {}, "seed": args.seed}
            self.save()

    def expert(self, path: Path | str) -> str:
        """The bot spec of the network in ``path`` as it plays in every game (``--play``)."""
        return f"expert:weights={path}" + (f",{self.a.play}" if self.a.play else "")

    def save(self) -> None:
        tmp = self.state_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.state, indent=1))
        tmp.replace(self.state_path)

    def emit(self, rec: dict[str, Any]) -> None:
        rec = {"time": time.strftime("%Y-%m-%dT%H:%M:%S"), **rec}
        with self.log_path.open("a") as f:
            f.write(json.dumps(rec) + "\n")
        print(json.dumps(rec), flush=True)

    def seed(self, k: int, stage: int) -> int:
        return int(self.a.seed) * 1_000_000 + k * 50_000 + stage * 5_000

    def run(self, cmd: list[str], log: Path) -> None:
        with log.open("w") as f:
            subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, check=True)

    def measures(self, net: str) -> dict[str, float]:
        """The network's scores against heuristic (2 and 4 players), computed once per network
        on deals that stay the same for every network."""
        cached = self.state["measures"].get(net)
        if cached is None:
            base = self.a.seed * 1_000_000 + 900_000
            cached = {"heuristic_2p": match(self.expert(net), "heuristic", self.a.gate_games, base),
                      "heuristic_4p": match(self.expert(net), "heuristic", self.a.gate_games4, base + 50_000, 4)}
            self.state["measures"][net] = cached
            self.save()
        return dict(cached)

    def exploit(self, k: int) -> None:
        cur = self.state["current"]
        out = self.dir / f"exploiter-{k}.npz"
        t0 = time.perf_counter()
        self.run(exploiter_command(self.a.exploiter_init, self.expert(cur), self.a.exploit_minutes, self.seed(k, 0),
                                   self.seed(k, 1), out, eval_games=self.a.exploit_eval_games,
                                   eval_every=self.a.exploit_eval_every, steps=self.a.exploit_steps),
                 self.dir / f"exploiter-{k}.log")
        exploitability = match(policy(out), self.expert(cur), self.a.measure_games, self.seed(k, 2))
        self.state["exploiters"].append(str(out))
        self.emit({"round": k, "stage": "exploit", "network": cur, "exploiter": str(out),
                   "train_s": round(time.perf_counter() - t0), "games": self.a.measure_games,
                   "exploiter_score": exploitability})

    def harden(self, k: int) -> None:
        cur = self.state["current"]
        cand = self.dir / f"candidate-{k}.npz"
        t0 = time.perf_counter()
        self.run([sys.executable, str(HERE / "train_expert.py"), "--init", cur, "--out", str(cand),
                  "--log", str(self.dir / f"candidate-{k}.log.jsonl"), "--minutes", str(self.a.harden_minutes),
                  "--exploiters", ",".join(self.state["exploiters"]),
                  "--exploiter-share", str(self.a.exploiter_share), "--lr", str(self.a.lr),
                  "--seed", str(self.seed(k, 3)),
                  *(["--updates", str(self.a.harden_updates)] if self.a.harden_updates else []),
                  "--eval-games", str(self.a.harden_eval_games),
                  *(["--steps", str(self.a.harden_steps), "--parallel", str(self.a.harden_parallel)]
                    if self.a.harden_steps else [])],
                 self.dir / f"candidate-{k}.log")
        self.emit({"round": k, "stage": "harden", "candidate": str(cand), "train_s": round(time.perf_counter() - t0)})

    def gate(self, k: int) -> None:
        a = self.a
        cur = self.state["current"]
        cand = str(self.dir / f"candidate-{k}.npz")
        exploiter = self.state["exploiters"][-1]
        mc, mn = self.measures(cur), self.measures(cand)
        head = match(self.expert(cand), self.expert(cur), a.gate_games, self.seed(k, 4))
        seed5 = self.seed(k, 5)
        vs_cur = 1.0 - match(policy(exploiter), self.expert(cur), a.measure_games, seed5)
        vs_cand = 1.0 - match(policy(exploiter), self.expert(cand), a.measure_games, seed5)
        guards = {"exploiter": (vs_cur, vs_cand, a.measure_games),
                  "heuristic_2p": (mc["heuristic_2p"], mn["heuristic_2p"], a.gate_games),
                  "heuristic_4p": (mc["heuristic_4p"], mn["heuristic_4p"], a.gate_games4)}
        worse = [k for k, (c, n, games) in guards.items() if significantly_worse(c, n, games)]
        accepted = head >= a.gate and not worse
        if accepted:
            net = self.dir / f"net-{k + 1}.npz"
            shutil.copyfile(cand, net)
            self.state["measures"][str(net)] = mn
            self.state["current"] = str(net)
            if a.ship is not None:
                shutil.copyfile(net, a.ship)
        self.emit({"round": k, "stage": "gate", "candidate": cand, "against": cur, "head_to_head": head,
                   "games": a.gate_games, "vs_exploiter": {"current": vs_cur, "candidate": vs_cand},
                   "vs_heuristic_2p": {"current": mc["heuristic_2p"], "candidate": mn["heuristic_2p"]},
                   "vs_heuristic_4p": {"current": mc["heuristic_4p"], "candidate": mn["heuristic_4p"]},
                   "significantly_worse": worse, "accepted": accepted, "current_after": self.state["current"]})

    def go(self) -> None:
        st = self.state
        while True:
            k = st["round"]
            if st["stage"] == "exploit":
                self.exploit(k)
                st["stage"] = "done" if k >= self.a.rounds else "harden"
            elif st["stage"] == "harden":
                self.harden(k)
                st["stage"] = "gate"
            elif st["stage"] == "gate":
                self.gate(k)
                st["round"], st["stage"] = k + 1, "exploit"
            elif k < self.a.rounds:  # a finished run given more rounds goes on
                st["stage"] = "harden"
            else:
                return
            self.save()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, required=True, help="the run's files; an existing run goes on")
    ap.add_argument("--rounds", type=int, default=3, help="hardenings (a last exploiter measures the final network)")
    ap.add_argument("--seed", type=int, default=1, help="0 to 4000")
    ap.add_argument("--init", type=Path, default=EXPERT_WEIGHTS, help="the first network (expert weights)")
    ap.add_argument("--exploiter-init", type=Path, default=POLICY_WEIGHTS, help="where each exploiter starts")
    ap.add_argument("--exploit-minutes", type=float, default=10.0)
    ap.add_argument("--exploit-steps", type=int, default=0, help="stop each exploiter after this many steps "
                    "(0: by --exploit-minutes)")
    ap.add_argument("--exploit-eval-every", type=int, default=200_000)
    ap.add_argument("--exploit-eval-games", type=int, default=200)
    ap.add_argument("--measure-games", type=int, default=400)
    ap.add_argument("--harden-minutes", type=float, default=15.0)
    ap.add_argument("--harden-updates", type=int, default=0, help="stop each hardening after this many "
                    "updates (0: by --harden-minutes)")
    ap.add_argument("--harden-steps", type=int, default=0, help="decisions per update (0: train_expert's default)")
    ap.add_argument("--harden-parallel", type=int, default=8, help="games side by side, with --harden-steps")
    ap.add_argument("--harden-eval-games", type=int, default=200, help="train_expert's evaluation games")
    ap.add_argument("--exploiter-share", type=float, default=0.5)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--gate", type=float, default=0.52, help="the candidate's least head-to-head score")
    ap.add_argument("--gate-games", type=int, default=1000)
    ap.add_argument("--gate-games4", type=int, default=400)
    ap.add_argument("--play", default="", help="options of the network's bot wherever it plays, e.g. "
                    "'sample=1,temperature=0.5' (default: its arg-max move)")
    ap.add_argument("--ship", type=Path, default=None, help="also copy each accepted network here")
    args = ap.parse_args(argv)
    if not 0 <= args.seed <= 4000:
        ap.error("--seed must be 0 to 4000 (the deals of each stage are numbered from it)")
    League(args).go()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
