"""The learned ``policy`` bot: shipped weights, numpy inference, a legal player; its
training script (MaskablePPO) and the ladder's rating fit."""

from __future__ import annotations

import fnmatch
import math
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT, load_script

np = pytest.importorskip("numpy")

from civlite.bots import decide, make_bot  # noqa: E402
from civlite.bots.policy import WEIGHTS, Network, PolicyBot, features, load_network  # noqa: E402
from civlite.engine import NUM_ACTIONS, Game  # noqa: E402
from civlite.rl.encoding import encode_game, encode_view, obs_size  # noqa: E402


def play(specs: list[str], seed: int) -> Game:
    g = Game(len(specs), seed=seed)
    bots = [make_bot(s, seed=seed * 10 + i) for i, s in enumerate(specs)]
    while not g.over:
        seat = g.to_move
        assert seat is not None
        g.apply(decide(bots[seat], g))
    return g


def test_weights_ship_in_the_package_and_are_small() -> None:
    assert WEIGHTS.is_file()
    assert WEIGHTS.stat().st_size < 400_000
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = data["tool"]["setuptools"]["package-data"]["civlite"]
    assert any(fnmatch.fnmatch("bots/policy.npz", p) for p in patterns)
    net = load_network(str(WEIGHTS))
    assert net.players == 2
    assert net.layers[0][0].shape[0] == obs_size(2) and net.layers[-1][0].shape[1] == NUM_ACTIONS


def test_policy_is_a_registered_bot_that_plays_legal_games() -> None:
    bot = make_bot("policy", seed=1)
    assert isinstance(bot, PolicyBot) and bot.spec == "policy"
    for seed in range(3):
        g = play(["policy", "heuristic"] if seed % 2 else ["heuristic", "policy"], seed)
        assert g.over  # every action it chose was legal: Game.apply checks them


def test_policy_chooses_the_best_scored_legal_action() -> None:
    g = Game(2, seed=7)
    bot = make_bot("policy", seed=0)
    assert isinstance(bot, PolicyBot)
    for _ in range(40):
        seat = g.to_move
        assert seat is not None
        legal = g.legal_ids()
        view = g.view(seat)
        a = bot.act(view, legal)
        assert a in legal
        if len(legal) > 1:
            scores = bot.net.logits(features(encode_view(view)))
            assert scores[a] == max(scores[i] for i in legal)
            # what an environment encodes from the game is what the bot encodes from the view
            assert np.array_equal(encode_game(g, seat), encode_view(view))
        g.apply_id(a)
        if g.over:
            break


def test_sampling_is_seeded() -> None:
    def moves(seed: int) -> list[int]:
        g = Game(2, seed=3)
        bot = make_bot("policy:sample=1", seed=seed)
        out = []
        for _ in range(30):
            seat = g.to_move
            assert seat is not None
            a = bot.act(g.view(seat), g.legal_ids())
            out.append(a)
            g.apply_id(a)
        return out

    assert moves(5) == moves(5)


def test_other_game_sizes_fall_back_to_the_heuristic_or_raise() -> None:
    g = play(["policy", "random", "random"], seed=2)
    assert g.over
    bot = make_bot("policy:fallback=0", seed=0)
    g = Game(3, seed=1)
    while len(g.legal_ids()) < 2:
        g.apply_id(g.legal_ids()[0])
    seat = g.to_move
    assert seat is not None
    with pytest.raises(ValueError, match="trained for 2 players"):
        bot.act(g.view(seat), g.legal_ids())


def test_weights_round_trip_and_bad_files_are_named(tmp_path: Path) -> None:
    net = load_network(str(WEIGHTS))
    p = tmp_path / "copy.npz"
    net.save(p)
    again = Network.load(p)
    x = features(encode_game(Game(2, seed=1), 0))
    assert np.allclose(net.logits(x), again.logits(x))
    half = tmp_path / "half.npz"
    net.save(half, half=True)
    small = Network.load(half)
    assert small.layers[0][0].dtype == np.float32 and half.stat().st_size < p.stat().st_size
    assert np.allclose(net.logits(x), small.logits(x), atol=0.05)
    bot = make_bot(f"policy:weights={p}", seed=0)
    assert "weights=" in bot.spec
    with pytest.raises(ValueError, match="not found"):
        make_bot(f"policy:weights={tmp_path / 'missing.npz'}", seed=0)
    with pytest.raises(ValueError, match="inputs"):
        Network([(np.zeros((3, NUM_ACTIONS), np.float32), np.zeros(NUM_ACTIONS, np.float32))], {"players": 2})


def test_ladder_fit_recovers_a_known_rating_gap() -> None:
    lad = load_script(ROOT / "benchmarks" / "ladder.py")
    # a scores 30 of 40 against b: the maximum-likelihood gap is 400 log10(3)
    elo, se = lad.fit_bradley_terry(["b", "a"], {("a", "b"): (30.0, 40)}, prior_draws=0.0, anchor="b")
    assert elo["b"] == 0.0 and math.isclose(elo["a"], 400 * math.log10(3), rel_tol=1e-6)
    assert 0 < se["a"] < 200
    # a never loses: the virtual draw keeps it finite; order follows the results
    names = ["random", "mid", "top"]
    res = {("mid", "random"): (10.0, 10), ("top", "random"): (10.0, 10), ("top", "mid"): (7.0, 10)}
    elo, _ = lad.fit_bradley_terry(names, res, anchor="random")
    assert 0 < elo["mid"] < elo["top"] < 2000
    table = lad.table(names, elo, _, res)
    assert table.splitlines()[2].startswith("| 1 | `top`")


def test_ladder_runs_through_the_simulator(tmp_path: Path) -> None:
    lad = load_script(ROOT / "benchmarks" / "ladder.py")
    assert lad.main(["--bots", "random;policy", "--games", "2", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "ladder.md").read_text().count("|") > 10
    assert '"random": 0.0' in (tmp_path / "ladder.json").read_text()


@pytest.mark.slow
def test_maskable_ppo_example_trains_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sb3_contrib")
    mod = load_script(ROOT / "examples" / "train_policy.py")
    out = tmp_path / "p.npz"
    assert mod.main(["--timesteps", "64", "--n-steps", "16", "--batch-size", "32", "--envs", "2", "--epochs", "1",
                     "--eval-every", "64", "--eval-games", "2", "--imitate-games", "2", "--imitate-epochs", "1",
                     "--out", str(out)]) == 0
    assert "imitation epoch 1" in capsys.readouterr().out
    bot = make_bot(f"policy:weights={out}", seed=0)
    assert play(["random", f"policy:weights={out}"], 1).over and isinstance(bot, PolicyBot)
