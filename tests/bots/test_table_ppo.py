"""``examples/train_table_ppo.py``: a few seconds of PPO at 3 players from the shipped
network, widened, with the critic that reads the hands, weight averaging and one seat of
the starting network (slow); the network it writes loads as ``expert`` weights and plays; its
layers round-trip through the trainer's model; widening keeps its play; the critic alone reads the hands; the
starting network's seats rotate over the environments; bad arguments get a clear error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "train_table_ppo.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False)


@pytest.mark.slow
def test_table_ppo_trains_evaluates_and_writes_an_expert_network(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    from civlite.bots import make_bot
    from civlite.bots.expert import ExpertBot, ExpertNet
    from civlite.engine import Game

    out, log = tmp_path / "net.npz", tmp_path / "log.jsonl"
    done = _run("--players", "3", "--minutes", "0.05", "--envs", "2", "--n-steps", "64", "--batch-size", "64",
                "--critic-games", "2", "--eval-every", "128", "--eval-games", "3", "--value-games", "2",
                "--seed", "5", "--oracle-critic", "--average-from", "0", "--shipped-seats", "1", "--widen", "320", "--out", str(out), "--log", str(log))
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert rows[0]["steps"] == 0 and rows[0]["kept"] is True and len(rows) >= 2
    assert all(0 <= r["score"] <= 1 for r in rows)
    averaged = [r for r in rows if r["network"] == "average"]
    assert averaged and [r["averaged"] for r in averaged] == list(range(2, len(averaged) + 2))
    average = ExpertNet.load(tmp_path / "net-average.npz")
    assert average.meta["averaged"]["checkpoints"] == averaged[-1]["averaged"]
    kept = [r for r in rows if r.get("kept")]
    assert kept[-1]["value"]["log_loss_after"] <= kept[-1]["value"]["log_loss_before"] + 1e-6
    bot = make_bot(f"expert:weights={out}", seed=1)
    assert isinstance(bot, ExpertBot) and bot.net.meta["players"] == 3 and bot.net.meta["oracle_critic"] is True
    assert bot.net.meta["shipped_seats"] == 1 and bot.net.meta["hidden"] == 320 and bot.net.w1.shape == (320, 320)
    assert bot.net.meta["eval"]["score"] == max(r["score"] for r in rows)
    g = Game(3, seed=4)
    while not g.over:
        seat = g.to_move
        assert seat is not None
        g.apply_id(bot.act(g.view(seat), g.legal_ids()))


def test_table_ppo_model_holds_the_network_it_starts_from() -> None:
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from civlite.bots.expert import TABLE_WEIGHTS, ExpertNet
    from civlite.bots.features import encode
    from civlite.engine import Game

    sys.path.insert(0, str(SCRIPT.parent))
    import train_table_ppo as mod

    net = ExpertNet.load(TABLE_WEIGHTS[4])
    venv = DummyVecEnv([lambda: mod.ExpertEnv(["heuristic"] * 3)])
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=16, seed=1,
                        policy_kwargs={"net_arch": {"pi": [256, 256], "vf": [256, 256]},
                                       "activation_fn": torch.nn.Tanh})
    mod.load_expert(model, net)
    back = mod.export(model, net, {"players": 4})
    x = encode(Game(4, seed=2).view(0))
    assert np.allclose(back.logits(x), net.logits(x), atol=1e-4)
    with torch.no_grad():
        _, lat_vf = model.policy.mlp_extractor(torch.as_tensor(x[None]))
        v = float(model.policy.value_net(lat_vf)[0, 0])
    logit = float((net.hidden(x) @ net.wv + net.bv)[0])
    assert v == pytest.approx(logit / 2, abs=1e-4)
    obs, _ = mod.ExpertEnv(["heuristic"] * 3).reset(seed=3)
    assert obs.shape == x.shape


def test_table_ppo_refuses_bad_arguments(tmp_path: Path) -> None:
    done = _run("--players", "9", "--out", str(tmp_path / "o.npz"))
    assert done.returncode == 2 and "--players" in done.stderr
    done = _run("--players", "4", "--init", str(tmp_path / "missing.npz"), "--out", str(tmp_path / "o.npz"))
    assert done.returncode == 2 and "missing.npz" in done.stderr
    done = _run("--players", "4", "--opponent", "nosuchbot", "--out", str(tmp_path / "o.npz"))
    assert done.returncode == 2 and "nosuchbot" in done.stderr
    done = _run("--players", "4", "--shipped-seats", "4", "--out", str(tmp_path / "o.npz"))
    assert done.returncode == 2 and "--shipped-seats must be 0 to 3" in done.stderr
    done = _run("--players", "4", "--shaping", "1.5", "--out", str(tmp_path / "o.npz"))
    assert done.returncode == 2 and "--shaping must be from 0 to 1" in done.stderr
    done = _run("--players", "4", "--widen", "100", "--out", str(tmp_path / "o.npz"))
    assert done.returncode == 2 and "cannot widen 256 hidden units to 100" in done.stderr
    assert not (tmp_path / "o.npz").exists()


def test_table_ppo_widening_keeps_the_network_s_play() -> None:
    """``--widen``: the wider network gives the same scores and value on every position of a
    game, its new units take part (their incoming weights are not zero) and the same seed
    widens the same way."""
    from civlite.bots.expert import TABLE_WEIGHTS, ExpertNet
    from civlite.bots.features import encode
    from civlite.engine import Game

    sys.path.insert(0, str(SCRIPT.parent))
    import train_table_ppo as mod

    net = ExpertNet.load(TABLE_WEIGHTS[4])
    wide = mod.widen(net, 384, seed=3)
    assert wide.w0.shape == (net.w0.shape[0], 384) and wide.w1.shape == (384, 384) and wide.wp.shape[0] == 384
    assert np.abs(wide.w0[:, 256:]).min() > 0 and np.abs(wide.w1[:, 256:]).sum() > 0
    assert wide.meta["widened"] == {"from": 256, "to": 384, "seed": 3}
    g = Game(4, seed=9)
    xs = []
    while not g.over:
        seat = g.to_move
        assert seat is not None
        xs.append(encode(g.view(seat)))
        g.apply_id(g.legal_ids()[0])
    x = np.array(xs)
    (l0, v0), (l1, v1) = net.forward(x), wide.forward(x)
    assert np.allclose(l0, l1, atol=1e-5) and np.allclose(v0, v1, atol=1e-6)
    assert np.array_equal(mod.widen(net, 384, seed=3).w1, wide.w1)
    assert mod.widen(net, 256, seed=3) is net


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_table_ppo_shaping_is_potential_based(seed: int) -> None:
    """With ``gamma`` 1 the shaped rewards of a game add up to its result less the first
    potential: the shaping moves credit between steps and changes no policy's worth; the
    potentials are the learner's share of the rollout score, from the true game."""
    sys.path.insert(0, str(SCRIPT.parent))
    import train_table_ppo as mod

    plain = mod.ExpertEnv(["heuristic"] * 3)
    shaped = mod.ExpertEnv(["heuristic"] * 3, shaping=0.5, gamma=1.0)
    plain.reset(seed=seed)
    shaped.reset(seed=seed)
    first = shaped.phi
    g = shaped.env.game
    assert g is not None
    assert -0.5 <= first <= 0.5 and first == mod.potential(g, shaped.env.seat, 0.5)
    total_plain = total_shaped = 0.0
    steps = 0
    while True:
        action = int(np.flatnonzero(plain.action_masks())[0])
        _, r0, done0, cut0, _ = plain.step(action)
        _, r1, done1, cut1, _ = shaped.step(action)
        total_plain += r0
        total_shaped += r1
        steps += 1
        assert (done0, cut0) == (done1, cut1)
        if done0 or cut0:
            break
    assert steps > 3 and shaped.phi == 0.0
    assert total_shaped == pytest.approx(total_plain - first, abs=1e-9)
    assert mod.potential(g, 0, 0.0) == 0.0


def test_table_ppo_oracle_critic_reads_the_hands_and_the_actor_only_the_view() -> None:
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from civlite.bots.expert import TABLE_WEIGHTS, ExpertNet
    from civlite.bots.features import SIZE, encode, encode_table
    from civlite.engine import Game

    sys.path.insert(0, str(SCRIPT.parent))
    import train_table_ppo as mod

    net = ExpertNet.load(TABLE_WEIGHTS[3])
    env = mod.ExpertEnv(["heuristic"] * 2, oracle=True)
    model = MaskablePPO(mod.oracle_policy(), DummyVecEnv([lambda: env]), n_steps=16, batch_size=16, seed=1,
                        policy_kwargs={"net_arch": {"pi": [256, 256], "vf": [256, 256]},
                                       "activation_fn": torch.nn.Tanh})
    mod.load_expert(model, net)
    g = Game(3, seed=7)
    obs = mod.observe(g, 0, oracle=True)
    assert obs.shape == (2 * SIZE,)
    assert np.array_equal(obs[:SIZE], encode(g.view(0))) and np.array_equal(obs[SIZE:], encode_table(g, 0))
    x = torch.as_tensor(obs[None])
    other = x.clone()
    other[0, SIZE:] += 1.0  # other hands: the actor must not notice
    with torch.no_grad():
        pol = model.policy
        logits = pol.action_net(pol.mlp_extractor.forward_actor(x))
        assert torch.equal(logits, pol.action_net(pol.mlp_extractor.forward_actor(other)))
        v = float(pol.value_net(pol.mlp_extractor.forward_critic(x))[0, 0])
    assert np.allclose(logits.numpy()[0], net.logits(obs[:SIZE]), atol=1e-4)
    assert v == pytest.approx(float((net.hidden(obs[:SIZE]) @ net.wv + net.bv)[0]) / 2, abs=1e-4)
    back = mod.export(model, net, {"players": 3})
    assert back.w0.shape == (SIZE, 256) and np.allclose(back.logits(obs[:SIZE]), net.logits(obs[:SIZE]), atol=1e-4)


def test_table_ppo_shipped_seats_rotate_over_the_environments() -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    import train_table_ppo as mod

    seats = [mod.lineup("heuristic", "expert:weights=x.npz", 4, 1, env) for env in range(4)]
    assert seats[0] == ["expert:weights=x.npz", "heuristic", "heuristic"]
    assert seats[1] == ["heuristic", "expert:weights=x.npz", "heuristic"]
    assert seats[3] == seats[0]
    assert all(s.count("expert:weights=x.npz") == 1 for s in seats)
    assert mod.lineup("heuristic", "expert", 4, 0, 2) == ["heuristic"] * 3
    assert mod.lineup("heuristic", "expert", 3, 2, 1) == ["expert", "expert"]
