"""The observation page's tables are generated from civlite.rl.spec, and the spec is the code's."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from civlite.engine import Game, RuleSet
from civlite.rl.encoding import encode_game, obs_size
from civlite.rl.spec import EVENT_COLUMNS, EVENT_KINDS, EVENT_RECORD, OBSERVATION, markdown, offset

ROOT = Path(__file__).resolve().parents[2]


def test_the_page_holds_the_generated_tables() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts" / "gen_rl_observation_docs.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    page = (ROOT / "docs" / "researchers" / "observation.md").read_text(encoding="utf-8")
    assert markdown() in page
    assert gen.render(page) == page, "docs/researchers/observation.md is out of date: run scripts/gen_rl_observation_docs.py"


def test_the_slots_tile_the_vector() -> None:
    for n in range(2, 9):
        at = 0
        for formula, width, slot, _ in OBSERVATION:
            w = n if width == "n" else int(width)
            if "k" in formula:
                assert offset(formula, n, 0) == at, slot
                at += w
                if slot == "seat *k*: known":
                    at += 10 * (n - 1)  # the seat block (10 values) repeats for k = 1 .. n-1
                continue
            assert offset(formula, n) == at, (n, slot)
            at += w
        assert at == obs_size(n)
    assert sum(w for _, w, _ in EVENT_COLUMNS) == EVENT_RECORD
    assert [c for c, _, _ in EVENT_COLUMNS] == list(np.cumsum([0] + [w for _, w, _ in EVENT_COLUMNS])[:-1])


def test_the_slots_mean_what_they_say() -> None:
    n = 3
    at = {slot: offset(f, n) for f, _, slot, _ in OBSERVATION}
    rng = random.Random(1)
    g = Game(n, seed=3)
    for _ in range(40):
        v = g.view(0)
        x = encode_game(g, 0)
        assert x[at["hand"]:at["hand"] + 8].sum() == len(v.hand)
        assert x[at["deck"]] == v.deck_size and x[at["victory CT"]] == g.rules.victory_ct
        assert x[at["seat *k*: ct"]] == g.ct[0]
        for k in range(n):
            assert x[offset("9 + 10k", n, k)] == len(g.hands[k % n])
            assert x[offset("8 + 10k", n, k)] == g.ct[k % n]
        assert x[at["decider"] + (g.to_move or 0)] == 1.0
        if g.over:
            break
        g.apply_id(rng.choice(g.legal_ids()))


def test_information_state_columns() -> None:
    pytest.importorskip("pyspiel")
    import pyspiel

    from civlite.rl import openspiel

    assert openspiel.EVENT_KINDS == EVENT_KINDS and openspiel.EVENT_RECORD == EVENT_RECORD
    game = pyspiel.load_game("python_civlite", {"players": 2, "turn_limit": 10})
    assert game.information_state_tensor_size() == openspiel.info_tensor_size(2, RuleSet.default().with_changes(
        turn_limit=10)) == obs_size(2) + 8 + EVENT_RECORD * 161 + 1
    assert f"({obs_size(2) + 9 + EVENT_RECORD * 161:,} numbers at 2 players)" in markdown()
    s = game.new_initial_state()
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    s.apply_action(0)  # seat 0 passes its action phase, then its meld: seat 1's turn 2 starts, it draws 2
    s.apply_action(0)
    while s.is_chance_node():
        s.apply_action(s.chance_outcomes()[0][0])
    for seat, sees in ((0, 0), (1, 2)):
        x = np.asarray(s.information_state_tensor(seat))
        records = [r for r in x[obs_size(2) + 8:-1].reshape(-1, EVENT_RECORD) if r[0]]
        turn = next(i for i, r in enumerate(records) if r[0] == 1 + EVENT_KINDS.index("turn"))
        assert records[turn][1] == (1 - seat) % 2 + 1 and records[turn][5] == 2  # seat 1, relative; turn 2
        draw = records[turn + 1]
        assert draw[0] == 1 + EVENT_KINDS.index("draw") and draw[4] == 2 and draw[14:22].sum() == sees
