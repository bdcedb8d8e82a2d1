"""Train the ``policy`` bot with MaskablePPO (sb3-contrib), end to end, on the CPU.

One learning seat (drawn per game) against bots in
:class:`civlite.rl.gymnasium.SingleAgentEnv`, 2 players; the network sees
:func:`civlite.bots.policy.features` of the seat's view encoding and picks among the
legal compact actions (MaskablePPO reads ``action_masks()``). Reward: +1 win, -1 loss,
0 at the turn limit; nothing else. Every ``--eval-every`` steps the actor network is
copied into numpy (:class:`civlite.bots.policy.Network`, what the bot runs) and plays
``--eval-games`` games against ``heuristic`` (seats alternated, arg-max actions); the
best so far is written to ``--out``. Training stops after ``--timesteps`` or
``--minutes``, whichever comes first.

Needs the ``train`` extra (``pip install 'civlite[train]'``: sb3-contrib and
``torch==2.13.0``, the CPU build). The shipped ``src/civlite/bots/policy.npz`` came from

    nice -n 10 .venv/bin/python examples/train_policy.py --minutes 50 \\
        --out src/civlite/bots/policy.npz

(see benchmarks/results/policy_training.log for that run).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

from civlite.bots import make_bot
from civlite.bots.policy import Network, features
from civlite.engine import NUM_ACTIONS, Game
from civlite.rl.encoding import encode_game, obs_size
from civlite.rl.gymnasium import SingleAgentEnv


class FeatureEnv(gymnasium.Env[np.ndarray, np.int64]):
    """:class:`SingleAgentEnv` with the policy's features as a flat observation and
    ``action_masks()`` for MaskablePPO."""

    def __init__(self, opponents: list[str]) -> None:
        self.env = SingleAgentEnv(opponents=opponents, seat="random")
        n = obs_size(self.env.num_players)
        self.observation_space = gymnasium.spaces.Box(0.0, 10.0, (n,), np.float32)
        self.action_space = self.env.action_space

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        return features(obs["observation"]), info

    def step(self, action: np.int64 | int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        obs, r, term, trunc, info = self.env.step(action)
        return features(obs["observation"]), r, term, trunc, info

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()


def export(model: Any, players: int, note: str) -> Network:
    """The actor of a MaskablePPO ``MlpPolicy`` (Linear/Tanh layers, then the action head)
    as a numpy :class:`Network`."""
    import torch

    layers = []
    mods = [*model.policy.mlp_extractor.policy_net, model.policy.action_net]
    for m in mods:
        if isinstance(m, torch.nn.Linear):
            layers.append((m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy()))
        elif not isinstance(m, torch.nn.Tanh):
            raise ValueError(f"cannot export layer {m!r}: only Linear and Tanh")
    return Network(layers, {"players": players, "activation": "tanh", "trained_by": "examples/train_policy.py",
                            "note": note})


def load_actor(model: Any, net: Network) -> None:
    """Put a numpy :class:`Network`'s layers into the actor of a MaskablePPO ``MlpPolicy`` of
    the same shape (to continue training a shipped or saved policy)."""
    import torch

    lins = [m for m in [*model.policy.mlp_extractor.policy_net, model.policy.action_net]
            if isinstance(m, torch.nn.Linear)]
    if len(lins) != len(net.layers):
        raise ValueError(f"the network has {len(net.layers)} layers, the model's actor {len(lins)}: give --hidden to match")
    with torch.no_grad():
        for m, (w, b) in zip(lins, net.layers, strict=True):
            if tuple(m.weight.shape) != w.T.shape:
                raise ValueError(f"layer shape {w.shape} does not fit {tuple(m.weight.shape)}: give --hidden to match")
            m.weight.copy_(torch.as_tensor(w.T))
            m.bias.copy_(torch.as_tensor(b))


def fit_critic(model: Any, net: Network, games: int, gamma: float, seed: int, epochs: int = 5,
               opponent: str = "heuristic") -> None:
    """Fit the critic to the discounted returns of ``net`` (arg-max) against ``opponent``, so
    that PPO's first updates of a loaded actor have sensible advantages."""
    xs: list[np.ndarray] = []
    rets: list[float] = []
    for i in range(games):
        g = Game(2, seed=seed + i)
        me = i % 2
        bot = make_bot(opponent, seed=seed + i)
        mine: list[np.ndarray] = []
        while not g.is_over:
            seat = g.to_move
            assert seat is not None
            legal = g.legal_ids()
            if seat == me:
                x = features(encode_game(g, seat))
                a = legal[int(np.argmax(net.logits(x)[legal]))] if len(legal) > 1 else legal[0]
                mine.append(x)
            else:
                a = bot.act(g.view(seat), legal)
            g.apply_id(a, check=False)
        r = g.returns()[me]
        xs += mine
        rets += [r * gamma ** (len(mine) - 1 - j) for j in range(len(mine))]
    fit_critic_to(model, xs, rets, epochs, lr=1e-3)


def fit_critic_to(model: Any, xs: list[np.ndarray], rets: list[float], epochs: int, lr: float) -> None:
    """Fit a MaskablePPO model's critic (its value layers alone) to the returns ``rets`` of
    the observations ``xs`` by squared error."""
    import torch

    x_t = torch.as_tensor(np.array(xs))
    r_t = torch.as_tensor(np.array(rets, np.float32))
    pol = model.policy
    params = [*pol.mlp_extractor.value_net.parameters(), *pol.value_net.parameters()]
    opt = torch.optim.Adam(params, lr=lr)
    for ep in range(epochs):
        perm = torch.randperm(len(r_t))
        tot = 0.0
        for k in range(0, len(r_t), 512):
            idx = perm[k:k + 512]
            _, lat_vf = pol.mlp_extractor(x_t[idx])
            loss = torch.nn.functional.mse_loss(pol.value_net(lat_vf).squeeze(-1), r_t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += float(loss.detach()) * len(idx)
        print(f"critic epoch {ep + 1}: squared error {tot / len(r_t):.3f} on {len(r_t)} decisions", flush=True)


def budget_callback(every: int, deadline: float, checkpoint: Callable[[int], None]) -> Any:
    """An sb3 callback that calls ``checkpoint(steps)`` every ``every`` steps and stops the
    training at ``deadline`` (a :func:`time.perf_counter` time)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Budget(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.next_eval = every

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_eval:
                self.next_eval += every
                checkpoint(self.num_timesteps)
            return time.perf_counter() < deadline

    return Budget()


def evaluate(net: Network, games: int, opponent: str = "heuristic", seed: int = 10_000_000) -> float:
    """Score (win 1, draw 1/2) of the arg-max policy against ``opponent`` over ``games``
    2-player games, seats alternated, the same deals every time."""
    score = 0.0
    for i in range(games):
        g = Game(2, seed=seed + i)
        me = i % 2
        bot = make_bot(opponent, seed=seed + i)
        while not g.is_over:
            seat = g.to_move
            assert seat is not None
            legal = g.legal_ids()
            if seat == me:
                if len(legal) == 1:
                    a = legal[0]
                else:
                    s = net.logits(features(encode_game(g, seat)))
                    a = legal[int(np.argmax(s[legal]))]
            else:
                a = bot.act(g.view(seat), legal)
            g.apply_id(a, check=False)
        score += 1.0 if g.winner == me else (0.5 if g.winner is None else 0.0)
    return score / games


def imitation_data(games: int, teacher: str, gamma: float, seed: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``games`` 2-player games of ``teacher`` against itself: every decision's features,
    the teacher's action, the legal mask and the decider's discounted return."""
    xs: list[np.ndarray] = []
    acts: list[int] = []
    masks: list[np.ndarray] = []
    rets: list[float] = []
    for i in range(games):
        g = Game(2, seed=seed + i)
        bots = [make_bot(teacher, seed=seed + 2 * i), make_bot(teacher, seed=seed + 2 * i + 1)]
        seats: list[int] = []
        while not g.is_over:
            seat = g.to_move
            assert seat is not None
            legal = g.legal_ids()
            a = bots[seat].act(g.view(seat), legal)
            if len(legal) > 1:
                xs.append(features(encode_game(g, seat)))
                m = np.zeros(NUM_ACTIONS, bool)
                m[legal] = True
                masks.append(m)
                acts.append(a)
                seats.append(seat)
            g.apply_id(a, check=False)
        ret = g.returns()
        k = len(seats)
        for j, s in enumerate(seats):
            rets.append(ret[s] * gamma ** ((k - 1 - j) / 2))  # about half the decisions are the learner's
    return np.array(xs), np.array(acts), np.array(masks), np.array(rets, np.float32)


def imitate(model: Any, data: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], epochs: int) -> None:
    """Behaviour cloning: fit the actor to the teacher's actions (masked cross-entropy) and
    the critic to the returns, before reinforcement learning starts."""
    import torch

    x, a, m, r = (torch.as_tensor(v) for v in data)
    pol = model.policy
    params = [*pol.mlp_extractor.parameters(), *pol.action_net.parameters(), *pol.value_net.parameters()]
    opt = torch.optim.Adam(params, lr=1e-3)
    n = len(a)
    for ep in range(epochs):
        perm = torch.randperm(n)
        tot = acc = 0.0
        for k in range(0, n, 512):
            idx = perm[k:k + 512]
            lat_pi, lat_vf = pol.mlp_extractor(x[idx])
            logits = pol.action_net(lat_pi).masked_fill(~m[idx], -1e9)
            loss_pi = torch.nn.functional.cross_entropy(logits, a[idx])
            loss_vf = torch.nn.functional.mse_loss(pol.value_net(lat_vf).squeeze(-1), r[idx])
            opt.zero_grad()
            (loss_pi + 0.5 * loss_vf).backward()
            opt.step()
            tot += float(loss_pi.detach()) * len(idx)
            acc += float((logits.argmax(-1) == a[idx]).sum())
        print(f"imitation epoch {ep + 1}: cross-entropy {tot / n:.3f}, agreement {acc / n:.1%} on {n} decisions",
              flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--timesteps", type=int, default=10_000_000)
    ap.add_argument("--minutes", type=float, default=50.0, help="wall-clock budget")
    ap.add_argument("--envs", type=int, default=8)
    ap.add_argument("--random-envs", type=int, default=1, help="of --envs, how many face 'random' (the rest: --opponent)")
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--hidden", default="128,128", help="hidden layer sizes")
    ap.add_argument("--n-steps", type=int, default=512)
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--gamma", type=float, default=0.995)
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--eval-every", type=int, default=100_000)
    ap.add_argument("--eval-games", type=int, default=200)
    ap.add_argument("--eval-opponent", default="heuristic",
                    help="the bot each evaluation plays (the best network against it is kept)")
    ap.add_argument("--eval-seed", type=int, default=10_000_000, help="the first deal of the evaluation games")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--imitate-games", type=int, default=0,
                    help="first clone the heuristic on this many of its self-play games (0: start from scratch)")
    ap.add_argument("--imitate-epochs", type=int, default=10)
    ap.add_argument("--init", default="", help="start the actor from this .npz (e.g. the shipped policy); "
                    "the critic is first fitted on --critic-games of its games against --opponent")
    ap.add_argument("--critic-games", type=int, default=300)
    ap.add_argument("--out", default="policy.npz", help="where the best network so far is written")
    ap.add_argument("--threads", type=int, default=1, help="torch threads")
    a = ap.parse_args(argv)

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(a.threads)
    random.seed(a.seed)
    np.random.seed(a.seed)
    torch.manual_seed(a.seed)
    specs = [["random"] if i < a.random_envs else [a.opponent] for i in range(a.envs)]
    venv = DummyVecEnv([lambda s=s: FeatureEnv(s) for s in specs])  # type: ignore[misc]
    venv.seed(a.seed)
    hidden = [int(h) for h in a.hidden.split(",") if h.strip()]
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=a.n_steps, batch_size=a.batch_size, n_epochs=a.epochs,
        learning_rate=a.lr, gamma=a.gamma, gae_lambda=0.95, ent_coef=a.ent_coef, seed=a.seed, verbose=0,
        policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}, "activation_fn": torch.nn.Tanh},
    )
    t0 = time.perf_counter()
    deadline = t0 + 60.0 * a.minutes
    best = [-1.0]
    print(f"MaskablePPO, {hidden} tanh, {a.envs} envs ({a.random_envs} vs random, the rest vs {a.opponent}); "
          f"evaluating every {a.eval_every} steps on {a.eval_games} games vs {a.eval_opponent}", flush=True)

    def checkpoint(steps: int) -> None:
        net = export(model, 2, f"{steps} steps")
        score = evaluate(net, a.eval_games, a.eval_opponent, a.eval_seed)
        mark = ""
        if score > best[0]:
            best[0] = score
            net.meta["eval"] = {"opponent": a.eval_opponent, "games": a.eval_games, "score": score, "steps": steps}
            net.save(a.out)
            mark = f"  -> {a.out}"
        print(f"{steps:>9} steps {time.perf_counter() - t0:6.0f}s: score vs {a.eval_opponent} {score:6.1%}{mark}",
              flush=True)

    if a.imitate_games:
        data = imitation_data(a.imitate_games, "heuristic", a.gamma, seed=a.seed * 1_000_003 + 20_000_000)
        print(f"imitation data: {a.imitate_games} games, {len(data[1])} decisions ({time.perf_counter() - t0:.0f}s)",
              flush=True)
        imitate(model, data, a.imitate_epochs)
        checkpoint(0)
    if a.init:
        init = Network.load(a.init)
        load_actor(model, init)
        fit_critic(model, init, a.critic_games, a.gamma, seed=a.seed * 1_000_003 + 30_000_000,
                   opponent=a.opponent)
        checkpoint(0)

    model.learn(total_timesteps=a.timesteps, callback=budget_callback(a.eval_every, deadline, checkpoint))
    checkpoint(int(model.num_timesteps))
    print(f"done: {model.num_timesteps} steps in {time.perf_counter() - t0:.0f}s; best score {best[0]:.1%}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
