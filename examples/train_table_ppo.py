"""Train an ``expert``-format network for one table size with MaskablePPO (sb3-contrib).

One learning seat (a different one each game) against ``--opponent`` in every other seat of
a ``--players``-seat table (:class:`civlite.rl.gymnasium.SingleAgentEnv`); the network reads
:func:`civlite.bots.features.encode` of the seat's view, as ``expert`` does, and picks among
the legal compact actions (MaskablePPO reads ``action_masks()``). Reward: +1 win, -1 loss,
0 at the turn limit. With ``--shaping B`` (B > 0) every step of the learner also earns
``gamma * phi(next) - phi(now)``, a potential-based shaping (Ng, Harada and Russell 1999:
it leaves the best policy unchanged) with ``phi = B * (2 p - 1)``, where ``p`` is the
learner's share of ``ismcts``'s rollout score (CT and hand value) of the true game and
``phi`` is 0 once the game is over: training reads the hidden hands, play does not. With
``--shipped-seats K``, K of the other seats play the network the run starts from, frozen
(their places rotate over the parallel environments): a head-to-head term, so that what
the learner finds is not only a way to exploit ``--opponent``.

The actor starts from an ``expert``-format network (``--init``; by default the one that
ships for that size): its two ``tanh`` layers and policy head become the actor's layers,
and the critic is first fitted to the returns of ``--critic-games`` of its games. Every
``--eval-every`` steps the actor is copied into an :class:`~civlite.bots.expert.ExpertNet`
and plays ``--eval-games`` games as one seat against ``--opponent`` (each deal from every
seat, the same deals every time); the best so far is written to ``--out``. Because that
choice is made on the same deals each time, the kept network's score there overrates it:
measure it again on fresh deals (``benchmarks/network_gate.py``) before it ships.

The value head of a written network is refitted to the new body (a logistic regression of
the results of ``--value-games`` games of that network against ``--opponent``), so that a
search that reads it (``champion:search=network``) gets a calibrated win probability.

Needs the ``train`` extra (sb3-contrib and torch)::

    python examples/train_table_ppo.py --players 4 --minutes 60 --out artifacts/ppo4/net.npz
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from civlite.bots import Bot, make_bot
from civlite.bots.expert import TABLE_WEIGHTS, WEIGHTS, ExpertBot, ExpertNet
from civlite.bots.features import SIZE, encode, encode_table
from civlite.bots.heuristic import evaluator
from civlite.bots.ismcts import ISMCTSBot
from civlite.engine import Game
from civlite.rl.gymnasium import SingleAgentEnv

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
from distil_table_net import log_line  # noqa: E402  (sibling scripts' helpers)
from expert_iteration import match, sub_seed  # noqa: E402
from train_policy import budget_callback, fit_critic_to  # noqa: E402


def observe(g: Game, seat: int, oracle: bool) -> np.ndarray:
    """The seat's view encoding; with ``oracle``, followed by :func:`encode_table` of the
    true game (every opponent's hand), which only the critic reads."""
    x = encode(g.view(seat))
    return np.concatenate([x, encode_table(g, seat)]) if oracle else x


_SCORER = ISMCTSBot(seed=0)


def potential(g: Game, seat: int, scale: float) -> float:
    """The shaping potential of ``seat`` in the true game ``g``: ``scale * (2 p - 1)``, ``p``
    its share of ``ismcts``'s rollout score; 0 once the game is over (or ``scale`` is 0)."""
    if scale == 0.0 or g.over:
        return 0.0
    return scale * (2.0 * _SCORER.evaluate(g, evaluator(g.rules, g.n))[seat] - 1.0)


class ExpertEnv(gymnasium.Env[np.ndarray, np.int64]):
    """:class:`SingleAgentEnv` with ``expert``'s encoding of the learner's view as the
    observation, and ``action_masks()`` for MaskablePPO; with ``shaping`` > 0 the reward
    also carries the potential-based term of :func:`potential`."""

    def __init__(self, opponents: list[str], oracle: bool = False, shaping: float = 0.0, gamma: float = 1.0) -> None:
        self.env = SingleAgentEnv(opponents=opponents, seat="random", copy=False)
        self.oracle = oracle
        self.shaping = float(shaping)
        self.gamma = float(gamma)
        self.phi = 0.0
        self.observation_space = gymnasium.spaces.Box(-10.0, 10.0, (2 * SIZE if oracle else SIZE,), np.float32)
        self.action_space = self.env.action_space

    def _obs(self) -> np.ndarray:
        g = self.env.game
        assert g is not None
        return observe(g, self.env.seat, self.oracle)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        _, info = self.env.reset(seed=seed, options=options)
        self.phi = self._potential()
        return self._obs(), info

    def _potential(self) -> float:
        g = self.env.game
        assert g is not None
        return potential(g, self.env.seat, self.shaping)

    def step(self, action: np.int64 | int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        _, r, term, trunc, info = self.env.step(action)
        if self.shaping:
            phi = 0.0 if term or trunc else self._potential()
            r = float(r) + self.gamma * phi - self.phi
            self.phi = phi
        return self._obs(), r, term, trunc, info

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()


def oracle_policy() -> type:
    """A MaskablePPO policy whose actor reads the first :data:`SIZE` values of the
    observation (the seat's view) and whose critic reads all of it (the view and the true
    hands): the hidden cards guide training only, as in PerfectDou's perfect-training,
    imperfect-execution; the network that plays is the actor alone."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from torch import nn

    class Split(nn.Module):
        def __init__(self, hidden: list[int]) -> None:
            super().__init__()
            self.policy_net = nn.Sequential(nn.Linear(SIZE, hidden[0]), nn.Tanh(), nn.Linear(hidden[0], hidden[1]),
                                            nn.Tanh())
            self.value_net = nn.Sequential(nn.Linear(2 * SIZE, hidden[0]), nn.Tanh(),
                                           nn.Linear(hidden[0], hidden[1]), nn.Tanh())
            self.latent_dim_pi = self.latent_dim_vf = hidden[1]

        def forward(self, f: Any) -> tuple[Any, Any]:
            return self.forward_actor(f), self.forward_critic(f)

        def forward_actor(self, f: Any) -> Any:
            return self.policy_net(f[..., :SIZE])

        def forward_critic(self, f: Any) -> Any:
            return self.value_net(f)

    class OraclePolicy(MaskableActorCriticPolicy):  # type: ignore[misc]
        def _build_mlp_extractor(self) -> None:
            arch = self.net_arch
            self.mlp_extractor = Split(list(arch["pi"]) if isinstance(arch, dict) else list(arch))

    return OraclePolicy


def _linears(model: Any, part: str) -> list[Any]:
    import torch

    mods = ([*model.policy.mlp_extractor.policy_net, model.policy.action_net] if part == "pi"
            else [*model.policy.mlp_extractor.value_net, model.policy.value_net])
    return [m for m in mods if isinstance(m, torch.nn.Linear)]


def load_expert(model: Any, net: ExpertNet) -> None:
    """Put ``net``'s layers into the actor (body and policy head) and its body and value
    head into the critic (the value head halved: a logit ``v`` is a return of about
    ``tanh(v / 2)``)."""
    import torch

    pairs = [(net.w0, net.b0), (net.w1, net.b1)]
    with torch.no_grad():
        for m, (w, b) in zip(_linears(model, "pi"), [*pairs, (net.wp, net.bp)], strict=True):
            m.weight.copy_(torch.as_tensor(w.T))
            m.bias.copy_(torch.as_tensor(b))
        for m, (w, b) in zip(_linears(model, "vf"), [*pairs, (net.wv / 2, net.bv / 2)], strict=True):
            if m.weight.shape[1] == 2 * w.shape[0]:  # the oracle critic: the true hands start unread
                w = np.concatenate([w, np.zeros_like(w)])
            m.weight.copy_(torch.as_tensor(w.T))
            m.bias.copy_(torch.as_tensor(b))


def widen(net: ExpertNet, width: int, seed: int) -> ExpertNet:
    """``net`` with ``width`` units in each hidden layer, computing the same function: the
    new units' incoming weights are random (as torch draws a fresh layer's), their outgoing
    weights zero, so the widened network plays exactly as ``net`` until training moves
    them (a function-preserving widening, as in Net2Net's)."""
    old = int(net.w0.shape[1])
    if net.w1.shape[1] != old:
        raise ValueError("widening needs hidden layers of one width")
    if width < old:
        raise ValueError(f"cannot widen {old} hidden units to {width}")
    if width == old:
        return net
    rng = np.random.default_rng(seed)
    extra = width - old

    def fresh(fan_in: int, cols: int) -> np.ndarray:
        bound = 1.0 / np.sqrt(fan_in)
        return rng.uniform(-bound, bound, (fan_in, cols)).astype(np.float32)

    w0 = np.concatenate([net.w0, fresh(net.w0.shape[0], extra)], axis=1)
    b0 = np.concatenate([net.b0, np.zeros(extra, np.float32)])
    # old units of the second layer ignore the new first-layer units; new ones read every unit
    w1 = np.concatenate([np.concatenate([net.w1, np.zeros((extra, old), np.float32)]), fresh(width, extra)], axis=1)
    b1 = np.concatenate([net.b1, np.zeros(extra, np.float32)])
    wp = np.concatenate([net.wp, np.zeros((extra, net.wp.shape[1]), np.float32)])
    wv = np.concatenate([net.wv, np.zeros((extra, net.wv.shape[1]), np.float32)])
    return ExpertNet({"w0": w0, "b0": b0, "w1": w1, "b1": b1, "wp": wp, "bp": net.bp, "wv": wv, "bv": net.bv},
                     {**net.meta, "widened": {"from": old, "to": width, "seed": seed}})


def export(model: Any, value_from: ExpertNet, meta: dict[str, Any]) -> ExpertNet:
    """The actor as an :class:`ExpertNet` (its value head copied from ``value_from``, to be
    refitted by :func:`fit_value`)."""
    (w0, b0), (w1, b1), (wp, bp) = [(m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy())
                                    for m in _linears(model, "pi")]
    return ExpertNet({"w0": w0, "b0": b0, "w1": w1, "b1": b1, "wp": wp, "bp": bp,
                      "wv": value_from.wv, "bv": value_from.bv}, meta)


def positions(net: ExpertNet, players: int, games: int, opponent: str, seed: int, oracle: bool = False,
              shaping: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The learner's observations (:func:`observe`), its results (1 win, 0 else) and the
    shaping potentials there (:func:`potential`) in ``games`` games of ``net`` as one seat
    against ``opponent``."""
    xs: list[np.ndarray] = []
    ys: list[float] = []
    phis: list[float] = []
    for i in range(games):
        me = i % players
        deal = sub_seed(seed, i)
        bots: list[Bot] = [ExpertBot(seed=deal, net=net) if s == me else make_bot(opponent, seed=deal + s)
                           for s in range(players)]
        g = Game(players, seed=deal)
        mine: list[np.ndarray] = []
        while not g.over:
            s = g.to_move
            assert s is not None
            legal = g.legal_ids()
            if s == me and len(legal) > 1:
                mine.append(observe(g, s, oracle))
                phis.append(potential(g, s, shaping))
            g.apply_id(bots[s].act(g.view(s), legal), check=False)
        xs += mine
        ys += [1.0 if g.winner == me else 0.0] * len(mine)
    return np.array(xs, np.float32), np.array(ys, np.float32), np.array(phis, np.float32)


def fit_value(net: ExpertNet, players: int, games: int, opponent: str, seed: int, epochs: int = 30) -> dict[str, float]:
    """Refit ``net``'s value head (in place) by logistic regression of its results on its
    last hidden layer; returns the log loss before and after."""
    import torch

    x, y, _ = positions(net, players, games, opponent, seed)
    h = torch.as_tensor(net.hidden(x))
    yt = torch.as_tensor(y)
    w = torch.nn.Parameter(torch.as_tensor(net.wv[:, 0].copy()))
    b = torch.nn.Parameter(torch.as_tensor(net.bv.copy()))
    opt = torch.optim.LBFGS([w, b], lr=0.5, max_iter=epochs)
    loss_fn = torch.nn.functional.binary_cross_entropy_with_logits

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = loss_fn(h @ w + b, yt) + 1e-4 * (w * w).sum()
        loss.backward()
        return loss

    with torch.no_grad():
        before = float(loss_fn(h @ w + b, yt))
    opt.step(closure)  # type: ignore[no-untyped-call]
    with torch.no_grad():
        after = float(loss_fn(h @ w + b, yt))
    net.wv = w.detach().numpy().reshape(-1, 1).astype(np.float32)
    net.bv = b.detach().numpy().astype(np.float32)
    return {"positions": float(len(y)), "log_loss_before": before, "log_loss_after": after}


def fit_critic(model: Any, net: ExpertNet, players: int, games: int, gamma: float, opponent: str, seed: int,
               oracle: bool = False, epochs: int = 5, shaping: float = 0.0) -> None:
    """Fit the critic to the discounted returns (+1 win, -1 else) of ``net``'s games, so that
    PPO's first updates have sensible advantages; with ``shaping``, to the shaped returns
    (the return less the potential where it is taken)."""
    xs: list[np.ndarray] = []
    rets: list[float] = []
    for i in range(games):  # one game at a time: the discount counts the learner's decisions
        x, y, phi = positions(net, players, 1, opponent, sub_seed(seed, i) + i, oracle, shaping)
        k = len(y)
        xs += list(x)
        rets += [(2 * float(y[j]) - 1) * gamma ** (k - 1 - j) - float(phi[j]) for j in range(k)]
    fit_critic_to(model, xs, rets, epochs, lr=3e-4)


def lineup(opponent: str, shipped: str, players: int, shipped_seats: int, env: int) -> list[str]:
    """The bots of the other seats in environment ``env``: ``shipped_seats`` of them
    ``shipped``, at places that rotate with ``env``, the rest ``opponent``."""
    others = players - 1
    places = {(env + k) % others for k in range(shipped_seats)}
    return [shipped if i in places else opponent for i in range(others)]


def shown(path: Path) -> str:
    """``path`` relative to the repository when it lies inside it (a weights file's meta
    names no machine's directories)."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return path.name


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, required=True, help="the table size (2 to 8)")
    ap.add_argument("--init", type=Path, default=None,
                    help="expert-format weights to start from (default: the network that ships for --players)")
    ap.add_argument("--opponent", default="heuristic",
                    help="the bot in every other seat (less --shipped-seats), and the evaluations' opponent")
    ap.add_argument("--shipped-seats", type=int, default=0,
                    help="of the other seats, how many play the network the run starts from (frozen), "
                         "their places rotating over the environments: a head-to-head term, so that the "
                         "learner does not only learn to exploit --opponent")
    ap.add_argument("--minutes", type=float, default=60.0, help="wall-clock budget")
    ap.add_argument("--timesteps", type=int, default=100_000_000)
    ap.add_argument("--envs", type=int, default=16)
    ap.add_argument("--n-steps", type=int, default=256)
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--gamma", type=float, default=0.995)
    ap.add_argument("--ent-coef", type=float, default=0.003)
    ap.add_argument("--critic-games", type=int, default=300)
    ap.add_argument("--eval-every", type=int, default=100_000)
    ap.add_argument("--eval-games", type=int, default=400)
    ap.add_argument("--eval-seed", type=int, default=471_000_000)
    ap.add_argument("--value-games", type=int, default=400, help="games to refit the written network's value head")
    ap.add_argument("--oracle-critic", action="store_true",
                    help="the critic also reads every opponent's hand (training only; the actor reads the view)")
    ap.add_argument("--shaping", type=float, default=0.0,
                    help="weight B of a potential-based shaping reward, phi = B (2 p - 1) with p the learner's "
                         "share of ismcts's rollout score of the true game (training only); 0: none")
    ap.add_argument("--average-from", type=int, default=None,
                    help="from this step on, also evaluate the mean of the actor's weights at every evaluation "
                         "since (a weight average, as in stochastic weight averaging); the latest is written "
                         "beside --out as NAME-average.npz")
    ap.add_argument("--widen", type=int, default=None,
                    help="start from --init widened to this many units a hidden layer (the same play at the start, "
                         "more capacity to learn)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch threads")
    ap.add_argument("--out", type=Path, required=True, help="where the best network so far is written")
    ap.add_argument("--log", type=Path, default=None, help="one JSON line per evaluation")
    a = ap.parse_args(argv)
    if not 2 <= a.players <= 8:
        ap.error(f"--players must be 2 to 8, got {a.players}")
    if not 0 <= a.shaping <= 1:
        ap.error(f"--shaping must be from 0 to 1, got {a.shaping}")
    if not 0 <= a.shipped_seats < a.players:
        ap.error(f"--shipped-seats must be 0 to {a.players - 1} (the other seats), got {a.shipped_seats}")
    init_path = a.init or TABLE_WEIGHTS.get(a.players, WEIGHTS)
    try:
        init = ExpertNet.load(init_path)
        if a.widen is not None:
            init = widen(init, a.widen, sub_seed(a.seed, "widen"))
        make_bot(a.opponent, seed=0)
    except ValueError as e:
        ap.error(str(e))

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(a.threads)
    random.seed(a.seed)
    np.random.seed(a.seed)
    torch.manual_seed(a.seed)
    lineups = [lineup(a.opponent, f"expert:weights={init_path}", a.players, a.shipped_seats, i)
               for i in range(a.envs)]
    venv = DummyVecEnv([lambda seats=seats: ExpertEnv(seats, a.oracle_critic, a.shaping, a.gamma) for seats in lineups])
    venv.seed(a.seed)
    hidden = [int(init.w0.shape[1]), int(init.w1.shape[1])]
    model = MaskablePPO(
        oracle_policy() if a.oracle_critic else "MlpPolicy", venv, n_steps=a.n_steps, batch_size=a.batch_size, n_epochs=a.epochs,
        learning_rate=a.lr, gamma=a.gamma, gae_lambda=0.95, ent_coef=a.ent_coef, seed=a.seed, verbose=0,
        policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}, "activation_fn": torch.nn.Tanh},
    )
    load_expert(model, init)
    t0 = time.perf_counter()
    fit_critic(model, init, a.players, a.critic_games, a.gamma, a.opponent, seed=sub_seed(a.seed, "critic"),
               oracle=a.oracle_critic, shaping=a.shaping)
    deadline = t0 + 60.0 * a.minutes
    best = [-1.0]
    print(f"MaskablePPO from {shown(init_path)} at {a.players} players against {a.opponent}"
          f"{f' ({a.shipped_seats} seats the starting network)' if a.shipped_seats else ''}; "
          f"evaluating every {a.eval_every} steps on {a.eval_games} games", flush=True)

    #: the running sum of the actor's weights at the evaluations from --average-from on
    avg: dict[str, Any] = {"sum": None, "count": 0}

    def consider(net: ExpertNet, steps: int, kind: str, value: dict[str, float] | None = None) -> None:
        """Evaluate ``net``; keep it in ``--out`` if it is the best so far (its value head
        refitted unless ``value`` gives that refit's log already)."""
        score = match(net, a.opponent, a.players, a.eval_games, a.eval_seed)
        line: dict[str, Any] = {"steps": steps, "seconds": round(time.perf_counter() - t0, 1),
                                "network": kind, "eval_games": a.eval_games, "score": score}
        if kind == "average":
            line["averaged"] = avg["count"]
        if score > best[0]:
            best[0] = score
            line["value"] = value or fit_value(net, a.players, a.value_games, a.opponent,
                                               sub_seed(a.seed, "value", steps))
            net.meta["eval"] = {"opponent": a.opponent, "games": a.eval_games, "score": score, "steps": steps,
                                "network": kind}
            a.out.parent.mkdir(parents=True, exist_ok=True)
            net.save(a.out)
            line["kept"] = True
        log_line(a.log, line)

    def checkpoint(steps: int) -> None:
        meta = {"players": a.players, "trained_by": "examples/train_table_ppo.py", "init": shown(init_path),
                "steps": steps, "seed": a.seed,
                "oracle_critic": a.oracle_critic, "shipped_seats": a.shipped_seats, "shaping": a.shaping,
                "hidden": int(init.w0.shape[1])}
        net = export(model, init, meta)
        consider(net, steps, "current")
        if a.average_from is None or steps < a.average_from:
            return
        arrays = {k: getattr(net, k).astype(np.float64) for k in ("w0", "b0", "w1", "b1", "wp", "bp")}
        avg["sum"] = arrays if avg["sum"] is None else {k: avg["sum"][k] + v for k, v in arrays.items()}
        avg["count"] += 1
        if avg["count"] > 1:
            mean = {k: v / avg["count"] for k, v in avg["sum"].items()}
            average = ExpertNet({**mean, "wv": init.wv, "bv": init.bv},
                                {**meta, "averaged": {"from": a.average_from, "checkpoints": avg["count"]}})
            # the latest average is written whatever its score, its value head refitted
            value = fit_value(average, a.players, a.value_games, a.opponent, sub_seed(a.seed, "value", steps))
            consider(average, steps, "average", value)
            average.save(a.out.with_name(a.out.stem + "-average.npz"))

    checkpoint(0)

    model.learn(total_timesteps=a.timesteps, callback=budget_callback(a.eval_every, deadline, checkpoint))
    checkpoint(int(model.num_timesteps))
    print(f"done: {model.num_timesteps} steps in {time.perf_counter() - t0:.0f}s; best score {best[0]:.1%}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
