"""A rule set's own deck (R10 ``[deck]``) through everything that plays: bots, the
research interfaces, the server's card list and the command line.

The two designs of tests/engine/test_deck.py: a smaller deck (8 cards in each major suit,
no Boons) and a larger one (12 Disasters, 12 Boons, 20 Military, with extra cards).
"""

from __future__ import annotations

import random
import subprocess
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from civlite.bots import make_bot
from civlite.engine import ALL_CARDS, Game, RuleSet
from civlite.engine.cards import MAJOR_SUITS, SUIT_OF
from conftest import civlite_command

SMALL = RuleSet.from_dict({"name": "small-deck", "deck": {**{s.letter: 8 for s in MAJOR_SUITS}, "X": 0}})
LARGE = RuleSet.from_dict({"name": "large-deck", "deck": {"D": 12, "X": 12, "M": 20}})
DECKS = [pytest.param(SMALL, id="small"), pytest.param(LARGE, id="large")]


def _cards(g: Game) -> Counter[int]:
    c = Counter(g.deck) + Counter(g.discard)
    for h in g.hands:
        c.update(h)
    return c


def _play(rules: RuleSet, specs: list[str], seed: int) -> Game:
    g = Game(len(specs), seed=seed, rules=rules)
    bots = [make_bot(s, seed=seed * 10 + i) for i, s in enumerate(specs)]
    while not g.over:
        seat = g.to_move
        assert seat is not None
        legal = g.legal_ids()
        aid = bots[seat].act(g.view(seat), legal)
        assert aid in legal
        g.apply_id(aid)
        assert _cards(g) == Counter(rules.deck)
    return g


@pytest.mark.parametrize("rules", DECKS)
@pytest.mark.parametrize("spec", ["random", "heuristic", "expert", "policy"])
@pytest.mark.parametrize("players", [2, 4])
def test_bots_play_whole_games_on_the_deck(rules: RuleSet, spec: str, players: int) -> None:
    for seed in range(3):
        g = _play(rules, [spec] * players, seed)
        assert g.over


@pytest.mark.parametrize("rules", DECKS)
def test_search_bots_play_on_the_deck(rules: RuleSet) -> None:
    g = _play(rules, ["champion:iterations=20", "ismcts:iterations=20", "heuristic"], 1)
    assert g.over


@pytest.mark.parametrize("rules", DECKS)
def test_the_heuristic_counts_the_decks_unseen_cards(rules: RuleSet) -> None:
    from civlite.bots.heuristic import situation_from_game, situation_from_view

    g = Game(2, seed=3, rules=rules)
    seat = g.to_move
    assert seat is not None
    s = situation_from_view(g.view(seat))
    held = Counter(SUIT_OF[c] for c in g.hands[seat])
    # nothing is public yet: every card not in the seat's hand is unseen
    assert s.unseen == [rules.suit_sizes[k] - held[k] for k in range(8)]
    assert situation_from_game(g, seat, "action").unseen == s.unseen


@pytest.mark.parametrize("rules", DECKS)
def test_pettingzoo_and_gymnasium_on_the_deck(rules: RuleSet) -> None:
    from civlite.rl.gymnasium import SingleAgentEnv
    from civlite.rl.pettingzoo import env as aec_env

    e = aec_env(players=3, rules=rules)
    e.reset(seed=4)
    rng = np.random.default_rng(0)
    steps = 0
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert steps > 20
    g = SingleAgentEnv(opponents=["heuristic"], rules=rules, seat=0)
    obs, _ = g.reset(seed=2)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, term, trunc, _ = g.step(action)
        done = term or trunc
    assert reward in (-1.0, 0.0, 1.0)


def test_openspiel_chance_outcomes_follow_the_deck(tmp_path: Path) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import civlite.rl.openspiel  # noqa: F401  (registers python_civlite)

    f = tmp_path / "large.toml"
    f.write_text(LARGE.to_toml())
    game = pyspiel.load_game("python_civlite", {"players": 2, "rules": str(f)})
    assert game.max_chance_outcomes() == LARGE.deck_span
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = [a for a, _ in state.chance_outcomes()]
    assert sorted(outcomes) == list(LARGE.deck) and max(outcomes) >= 112
    rng = random.Random(1)
    while not state.is_terminal() and state.move_number() < 400:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert state.move_number() > 50


def test_the_servers_card_list_names_every_deck_card() -> None:
    from civlite.server.protocol import meta, rules_json

    m = meta({"large": LARGE}, ["heuristic"], [])
    suit = {c["name"]: c["suit"] for c in m["cards"]}
    assert all(suit[ALL_CARDS[c].name] == SUIT_OF[c] for c in LARGE.deck)
    assert suit["Military 20"] == 4 and suit["Greeks"] == 0
    assert m["rulesets"]["large"]["deck"] == [16, 16, 16, 16, 20, 16, 12, 12]
    assert rules_json(SMALL)["deck"] == [8, 8, 8, 8, 8, 8, 8, 0]


def _civlite(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*civlite_command(), *args], capture_output=True, text=True, timeout=300)


def test_command_line_checks_prints_and_plays_a_deck(tmp_path: Path) -> None:
    f = tmp_path / "large.toml"
    f.write_text('name = "large-deck"\n[deck]\nD = 12\nX = 12\nM = 20\n')
    run = _civlite("rules", str(f))
    assert run.returncode == 0, run.stderr
    assert "[deck]" in run.stdout and "M = 20" in run.stdout
    demo = _civlite("demo", "--rules", str(f), "--players", "2", "--seed", "3", "--bots", "heuristic")
    assert demo.returncode == 0, demo.stderr
    assert "wins" in demo.stdout or "draw" in demo.stdout
    out = tmp_path / "sim"
    sim = _civlite("sim", "--rules", str(f), "--bots", "heuristic,heuristic", "--games", "40", "--out", str(out))
    assert sim.returncode == 0, sim.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("[deck]\nD = 40\n")
    run = _civlite("rules", str(bad))
    assert run.returncode == 2 and "deck.D: a suit holds 0 to 32 cards, got 40" in run.stderr
    assert "Traceback" not in run.stderr


def test_the_docs_deck_example_parses() -> None:
    text = (Path(__file__).parents[1] / "docs" / "designers" / "rules.md").read_text()
    block = text.split("```toml\n[deck]\n", 1)[1].split("```", 1)[0]
    r = RuleSet.from_dict({"deck": __import__("tomllib").loads("[deck]\n" + block)["deck"]})
    assert r.suit_sizes == (16, 16, 16, 16, 20, 3, 12, 0)


def test_a_scenario_on_a_deck_with_extra_cards(tmp_path: Path) -> None:
    """civlite's own scenario key ``rules.deck`` (beyond SCENARIOS.md): a position may name
    a deck's extra cards, and only with it."""
    import json

    state = {"active": 0, "phase": "action", "deck": ["Disaster 9"], "discard": [],
             "players": [{"hand": ["Military 17", "Spearmen"], "ct": 0}, {"hand": ["Greeks", "Romans"], "ct": 0}]}
    scenario = {"rules": {"deck": {"M": 17, "D": 9}, "victory_ct": 20}, "state": state,
                "actions": [{"do": "basic", "cards": ["Military 17"], "target": 1}]}
    f = tmp_path / "raid.json"
    f.write_text(json.dumps(scenario))
    run = _civlite("scenario", str(f))
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["applied"] == 1 and out["error"] is None, out
    hands = [sorted(p["hand"]) for p in out["state"]["players"]]
    assert "Military 17" not in hands[0] and len(hands[0]) == 2  # paid Raid, took one of seat 1's cards
    assert "Military 17" in out["state"]["discard"]
    for rules, needle in (({}, "'Military 17' is not a card of this rule set's deck"),
                          ({"deck": {"M": 40}}, "rules: deck.M: a suit holds 0 to 32 cards, got 40"),
                          ({"deck": {"M": 17}, "colour": 1}, "unknown name 'colour'")):
        f.write_text(json.dumps({**scenario, "rules": rules}))
        bad = _civlite("scenario", str(f))
        assert bad.returncode == 2 and needle in bad.stderr, bad.stderr
