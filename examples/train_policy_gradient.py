"""Train a linear softmax policy on Civ Lite with REINFORCE, in numpy, on the CPU.

One learning seat plays against bots in :class:`civlite.rl.gymnasium.SingleAgentEnv`
(default: one ``random`` opponent). The policy scores each of the 153 compact
actions with a linear function of the seat's view encoding, masks the illegal
ones and samples; at the end of each game every decision gets the game's reward
(+1 win, -1 loss, 0 draw) minus a running baseline. No shaping: it learns from
wins alone. Every ``--eval-every`` episodes it plays the same ``--eval-games``
games with the current (sampling) policy and prints its score (win 1, draw 1/2),
which rises from the untrained policy's (about 50% against one random bot: its
initial weights are near zero, so it plays about uniformly) within a few minutes.
``--greedy`` evaluates the arg-max policy instead.

    .venv/bin/python examples/train_policy_gradient.py --episodes 3000
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from civlite.engine import NUM_ACTIONS
from civlite.rl.gymnasium import SingleAgentEnv


class LinearPolicy:
    """logits = W @ features + b, illegal actions masked out."""

    def __init__(self, obs_dim: int, rng: np.random.Generator) -> None:
        self.dim = obs_dim + 1
        self.w = rng.normal(0.0, 0.01, (NUM_ACTIONS, self.dim))
        self.rng = rng

    @staticmethod
    def features(obs: np.ndarray) -> np.ndarray:
        x = np.empty(obs.shape[0] + 1)
        x[:-1] = np.minimum(obs, 30.0) / 10.0  # counts to a small scale
        x[-1] = 1.0  # bias
        return x

    def probs(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = self.w @ x
        logits[mask == 0] = -np.inf
        logits -= logits.max()
        p = np.exp(logits)
        out: np.ndarray = p / p.sum()
        return out

    def act(self, obs: dict[str, np.ndarray], greedy: bool = False) -> tuple[int, np.ndarray, np.ndarray]:
        x = self.features(obs["observation"])
        p = self.probs(x, obs["action_mask"])
        a = int(np.argmax(p)) if greedy else int(self.rng.choice(NUM_ACTIONS, p=p))
        return a, x, p


def play(env: SingleAgentEnv, policy: LinearPolicy, seed: int, greedy: bool = False
         ) -> tuple[float, list[tuple[int, np.ndarray, np.ndarray]]]:
    obs, _ = env.reset(seed=seed)
    steps = []
    reward = 0.0
    done = False
    while not done:
        a, x, p = policy.act(obs, greedy)
        steps.append((a, x, p))
        obs, reward, done, _, _ = env.step(a)
    return reward, steps


def evaluate(env: SingleAgentEnv, policy: LinearPolicy, games: int, seed: int, greedy: bool) -> float:
    wins = 0.0
    for i in range(games):
        r, _ = play(env, policy, seed=seed + i, greedy=greedy)
        wins += 1.0 if r > 0 else (0.5 if r == 0 else 0.0)
    return wins / games


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--episodes", type=int, default=3000)
    ap.add_argument("--opponents", default="random", help="comma-separated bot specs, one per opponent")
    ap.add_argument("--lr", type=float, default=0.02)
    ap.add_argument("--eval-every", type=int, default=500)
    ap.add_argument("--eval-games", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--greedy", action="store_true", help="evaluate the arg-max policy")
    ap.add_argument("--save", default="", help="write the weights to this .npy file")
    a = ap.parse_args(argv)

    opponents = [s.strip() for s in a.opponents.split(",") if s.strip()]
    env = SingleAgentEnv(opponents=opponents, seat="random")
    eval_env = SingleAgentEnv(opponents=opponents, seat="random")
    rng = np.random.default_rng(a.seed)
    obs_dim = env.observation_space["observation"].shape[0]  # type: ignore[index]
    policy = LinearPolicy(obs_dim, rng)
    baseline = 0.0
    eval_seed = 10_000_000  # the same evaluation games every time
    t0 = time.perf_counter()
    print(f"REINFORCE, linear policy, {obs_dim + 1} features x {NUM_ACTIONS} actions, vs {opponents}")
    kind = "greedy" if a.greedy else "sampling"
    print(f"episode {0:>6}: {kind} policy score {evaluate(eval_env, policy, a.eval_games, eval_seed, a.greedy):6.1%} "
          f"over {a.eval_games} games  ({time.perf_counter() - t0:5.0f}s)")
    recent: list[float] = []
    for ep in range(1, a.episodes + 1):
        reward, steps = play(env, policy, seed=a.seed * 1_000_003 + ep)
        recent.append(reward)
        adv = reward - baseline
        baseline += 0.01 * (reward - baseline)
        if adv != 0.0:
            grad = np.zeros_like(policy.w)
            for act, x, p in steps:
                # d log softmax / d W = (onehot(a) - p) x^T, over the legal actions only
                g = -p
                g[act] += 1.0
                grad += np.outer(g, x)
            policy.w += a.lr * adv * grad / max(1, len(steps)) ** 0.5
        if ep % a.eval_every == 0:
            train = (np.mean(recent) + 1) / 2
            recent = []
            score = evaluate(eval_env, policy, a.eval_games, eval_seed, a.greedy)
            print(f"episode {ep:>6}: {kind} policy score {score:6.1%} over {a.eval_games} games; "
                  f"training score {train:6.1%}  ({time.perf_counter() - t0:5.0f}s)", flush=True)
    if a.save:
        np.save(a.save, policy.w)
        print(f"weights written to {a.save}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
