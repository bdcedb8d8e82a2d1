"""Bots: specs, honesty (a bot sees only a view), the heuristic's sense, ISMCTS determinism."""

from __future__ import annotations

import random

import pytest

from civlite.bots import Bot, RandomBot, decide, make_bot, play_step
from civlite.bots.heuristic import HeuristicBot
from civlite.bots.ismcts import ISMCTSBot
from civlite.engine import Game, GameRecord, RuleSet, View, sample_world


def advance(game: Game, steps: int, seed: int) -> Game:
    rng = random.Random(seed)
    bots = [make_bot("heuristic" if (seed + p) % 2 else "random", seed=seed + p) for p in range(game.n)]
    for _ in range(steps):
        if game.over:
            break
        if rng.random() < 0.5:
            play_step(bots[game.to_move], game)  # type: ignore[index]
        else:
            ids = game.legal_ids()
            game.apply_id(ids[int(rng.random() * len(ids))])
    return game


@pytest.mark.parametrize("spec,cls", [
    ("random", RandomBot), ("heuristic", HeuristicBot), ("ismcts", ISMCTSBot),
    ("ismcts:iterations=2000", ISMCTSBot), ("ismcts:seconds=0.5", ISMCTSBot),
    ("ismcts:rollout=random", ISMCTSBot), ("ismcts:iterations=50,depth=0,rollout=random", ISMCTSBot),
])
def test_specs(spec: str, cls: type[Bot]) -> None:
    bot = make_bot(spec, seed=1)
    assert isinstance(bot, cls)


def test_spec_options() -> None:
    b = make_bot("ismcts:iterations=2000", seed=1)
    assert isinstance(b, ISMCTSBot) and b.iterations == 2000 and b.seconds is None
    b = make_bot("ismcts:seconds=0.5", seed=1)
    assert isinstance(b, ISMCTSBot) and b.seconds == 0.5 and b.iterations is None
    assert make_bot("ismcts:rollout=random").spec == "ismcts:rollout=random"  # type: ignore[attr-defined]


@pytest.mark.parametrize("spec", ["ismcts:rollout=nope", "ismcts:iterations=0", "ismcts:bogus=1",
                                  "heuristic:x=1", "nobot", "ismcts:depth=-1"])
def test_bad_specs(spec: str) -> None:
    with pytest.raises(ValueError):
        make_bot(spec)


def test_an_unknown_option_is_named_with_the_bots_options() -> None:
    with pytest.raises(ValueError, match=r"ismcts has no option 'bogus' \(its options: iterations, seconds, "
                                         r"rollout, depth, .*early_stop\)"):
        make_bot("ismcts:bogus=1")
    with pytest.raises(ValueError, match="heuristic has no option 'x' \\(its options: mistakes\\)"):
        make_bot("heuristic:x=1")
    with pytest.raises(ValueError, match="random has no option 'x' \\(it takes no options\\)"):
        make_bot("random:x=1")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_heuristic_finishes_games(players: int) -> None:
    for seed in range(3):
        g = Game(players=players, seed=seed)
        bots = [make_bot("heuristic", seed=p) for p in range(players)]
        while not g.over:
            play_step(bots[g.to_move], g)  # type: ignore[index]
        assert g.winner is not None or g.drawn


def test_decide_returns_concrete_legal_actions() -> None:
    g = Game(players=3, seed=4)
    bots = [make_bot("heuristic", seed=p) for p in range(3)]
    while not g.over:
        g.apply(decide(bots[g.to_move], g))  # type: ignore[index]
    assert GameRecord.of(g).replay().winner == g.winner


def test_heuristic_beats_random() -> None:
    wins = 0
    for i in range(20):
        g = Game(players=2, seed=100 + i)
        h = i % 2
        bots = [make_bot("random", seed=i), make_bot("random", seed=i)]
        bots[h] = make_bot("heuristic", seed=i)
        while not g.over:
            play_step(bots[g.to_move], g)  # type: ignore[index]
        wins += g.winner == h
    assert wins >= 17


def _moves(bot: Bot, seed: int) -> list[int]:
    g = Game(players=2, seed=seed)
    moves: list[int] = []
    while not g.over:
        moves.append(bot.act(g.view(g.to_move), g.legal_ids()))  # type: ignore[arg-type]
        g.apply_id(moves[-1])
    return moves


def test_heuristic_mistakes_option() -> None:
    """``mistakes=p`` plays a random legal move with chance p (the easy level); 0 is the plain bot."""
    assert make_bot("heuristic:mistakes=0", seed=1).spec == "heuristic"
    assert make_bot("heuristic:mistakes=0.5", seed=1).spec == "heuristic:mistakes=0.5"
    assert _moves(make_bot("heuristic:mistakes=0", seed=1), 7) == _moves(make_bot("heuristic", seed=9), 7)
    noisy = [_moves(make_bot("heuristic:mistakes=0.5", seed=s), 7) for s in (1, 1, 2)]
    assert noisy[0] == noisy[1] and noisy[0] != noisy[2]
    for bad in ("-0.1", "1.5"):
        with pytest.raises(ValueError, match="mistakes must be a probability"):
            make_bot(f"heuristic:mistakes={bad}", seed=1)


def test_mistakes_weaken_the_heuristic() -> None:
    wins = 0
    for i in range(20):
        g = Game(players=2, seed=300 + i)
        h = i % 2
        bots = [make_bot("heuristic:mistakes=0.5", seed=i) for _ in range(2)]
        bots[h] = make_bot("heuristic", seed=i)
        while not g.over:
            play_step(bots[g.to_move], g)  # type: ignore[index]
        wins += g.winner == h
    assert wins >= 15


class Spy(Bot):
    """Records what it is given."""

    name = "spy"

    def __init__(self) -> None:
        super().__init__(0)
        self.seen: list[tuple[object, object]] = []

    def act(self, view: View, legal: object) -> int:
        self.seen.append((view, legal))
        return next(iter(legal))  # type: ignore[call-overload]


def test_bots_receive_only_a_view_and_ids() -> None:
    g = Game(players=2, seed=3)
    spy = Spy()
    for _ in range(30):
        if g.over:
            break
        play_step(spy, g)
    g2 = Game(players=2, seed=3)
    spy2 = Spy()
    decide(spy2, g2)
    for view, legal in spy.seen + spy2.seen:
        assert type(view) is View
        assert all(type(a) is int for a in legal)  # type: ignore[attr-defined]
        assert not isinstance(view, Game)


def _twin(game: Game, seed: int) -> Game:
    """A game identical in ``game``'s current seat's view, with the hidden cards dealt anew."""
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    for k in range(50):
        twin = sample_world(view, random.Random(seed * 100 + k))
        if [sorted(h) for h in twin.hands] != [sorted(h) for h in game.hands] or twin.deck != game.deck:
            return twin
    return twin


@pytest.mark.parametrize("spec", ["random", "heuristic", "ismcts:iterations=25", "ismcts:iterations=25,rollout=random"])
def test_hidden_cards_do_not_change_decisions(spec: str) -> None:
    """Two games the seat cannot tell apart get the same decision from a bot with the same seed."""
    checked = 0
    for seed in range(12):
        players = 2 + seed % 3
        g = advance(Game(players=players, seed=seed), 15 + 7 * seed, seed)
        if g.over:
            continue
        seat = g.to_move
        assert seat is not None
        twin = _twin(g, seed)
        assert twin.view(seat) == g.view(seat)
        hidden_differs = any(sorted(a) != sorted(b) for a, b in zip(twin.hands, g.hands, strict=True)) or (
            sorted(twin.deck) != sorted(g.deck))
        assert hidden_differs or not any(
            p.hand_size - len(p.known) for p in g.view(seat).players)
        a = make_bot(spec, seed=seed).act(g.view(seat), g.legal_ids())
        b = make_bot(spec, seed=seed).act(twin.view(seat), twin.legal_ids())
        assert a == b
        checked += 1
    assert checked >= 8


def test_heuristic_takes_the_win() -> None:
    state = {"active": 0, "phase": "action", "players": [
        {"hand": ["Stonehenge", "Spearmen", "Axemen", "Flood"], "ct": 19},
        {"hand": ["Greeks", "Romans"], "ct": 3}], "deck": ["Tribute", "Wealth", "Peace"], "discard": []}
    g = Game.from_position(state)
    aid = make_bot("heuristic").act(g.view(0), g.legal_ids())
    g.apply_id(aid)
    assert g.over and g.winner == 0


def test_heuristic_melds_when_it_can() -> None:
    hand = ["Greeks", "Gilgamesh", "Stonehenge", "Religion", "Spearmen", "Granaries", "Flood", "Tribute"]
    state = {"active": 0, "phase": "meld", "players": [{"hand": hand, "ct": 0}, {"hand": ["Romans"], "ct": 0}],
             "deck": ["Wealth", "Peace", "Empire", "Vitality", "Exploration", "Famine"], "discard": []}
    g = Game.from_position(state)
    aid = make_bot("heuristic").act(g.view(0), g.legal_ids())
    assert 137 <= aid < 145
    g.apply_id(aid)
    assert g.ct[0] == 5


def test_heuristic_fall_discard_keeps_the_meld() -> None:
    # 9 cards, no minor card so no meld: at Fall it must drop two of its four Civilizations
    hand = ["Greeks", "Gilgamesh", "Stonehenge", "Religion", "Spearmen", "Granaries", "Romans", "Celts", "Huns"]
    state = {"active": 0, "phase": "meld", "players": [{"hand": hand, "ct": 0}, {"hand": ["Menes"], "ct": 0}],
             "deck": ["Wealth", "Peace", "Tribute"], "discard": []}
    g = Game.from_position(state)
    bot = make_bot("heuristic")
    g.apply(decide(bot, g))  # meld decision: only pass
    assert g.pending is not None and g.pending.kind == "fall_discard" and g.pending.count == 2
    d = decide(bot, g)
    assert sorted(c.suit.letter for c in d.cards) == ["C", "C"]  # type: ignore[attr-defined]


def test_heuristic_targets_the_dangerous_opponent() -> None:
    # Remake (steal 1 CT): seat 2 has the CT, seat 1 has none
    state = {"active": 0, "phase": "action", "players": [
        {"hand": ["Greeks", "Romans", "Celts"], "ct": 2},
        {"hand": ["Menes", "Homer"], "ct": 0},
        {"hand": ["Flood", "Famine"], "ct": 14}], "deck": ["Tribute", "Wealth", "Peace", "Empire"], "discard": []}
    g = Game.from_position(state)
    aid = make_bot("heuristic").act(g.view(0), g.legal_ids())
    action = g.action_for_id(aid)
    assert getattr(action, "target", None) == 2


def test_heuristic_under_another_rule_set() -> None:
    rules = RuleSet.from_dict({"victory_ct": 12, "advanced": {"B": False}, "basic": {"W": {"effects": ["gain_ct 2"]}}})
    g = Game(players=3, seed=2, rules=rules)
    bots = [make_bot("heuristic", seed=p) for p in range(3)]
    while not g.over:
        play_step(bots[g.to_move], g)  # type: ignore[index]
    assert g.winner is not None or g.drawn


def test_ismcts_deterministic_for_seed_and_iterations() -> None:
    g = advance(Game(players=3, seed=11), 40, 11)
    assert not g.over
    seat = g.to_move
    assert seat is not None
    view, legal = g.view(seat), g.legal_ids()
    runs = []
    for _ in range(2):
        bot = make_bot("ismcts:iterations=60", seed=42)
        assert isinstance(bot, ISMCTSBot)
        runs.append(bot.search(view, legal))
    assert runs[0] == runs[1] and runs[0] in legal


def test_ismcts_seconds_budget_and_full_games() -> None:
    g = Game(players=2, seed=5)
    bots = [make_bot("ismcts:seconds=0.002", seed=1), make_bot("ismcts:iterations=8,rollout=random,depth=0", seed=2)]
    steps = 0
    while not g.over and steps < 400:
        play_step(bots[g.to_move], g)  # type: ignore[index]
        steps += 1
    assert steps > 10


def test_ismcts_takes_the_win() -> None:
    state = {"active": 0, "phase": "action", "players": [
        {"hand": ["Stonehenge", "Spearmen", "Axemen", "Flood"], "ct": 19},
        {"hand": ["Greeks", "Romans"], "ct": 3}], "deck": ["Tribute", "Wealth", "Peace"], "discard": []}
    g = Game.from_position(state)
    aid = make_bot("ismcts:iterations=100", seed=3).act(g.view(0), g.legal_ids())
    g.apply_id(aid)
    assert g.over and g.winner == 0


def test_ismcts_early_stop_keeps_the_choice() -> None:
    """Stopping once the leader cannot be caught picks what the full budget picks, sooner."""
    saved = 0
    for seed in range(6):
        g = advance(Game(players=2 + seed % 3, seed=100 + seed), 30 + 7 * seed, seed)
        if g.over or g.pending_kind != "action":
            continue
        seat = g.to_move
        assert seat is not None
        view, legal = g.view(seat), g.legal_ids()
        full = make_bot("ismcts:iterations=600,early_stop=off", seed=seed)
        quick = make_bot("ismcts:iterations=600", seed=seed)
        assert isinstance(full, ISMCTSBot) and isinstance(quick, ISMCTSBot)
        assert quick.search(view, legal) == full.search(view, legal)
        assert full.last_iterations == 600 and quick.last_iterations <= 600
        saved += 600 - quick.last_iterations
    assert saved > 0


@pytest.mark.parametrize("text,value", [("on", True), ("off", False), ("1", True), ("0", False),
                                        ("false", False), ("yes", True)])
def test_ismcts_early_stop_flag(text: str, value: bool) -> None:
    bot = make_bot(f"ismcts:early_stop={text}")
    assert isinstance(bot, ISMCTSBot) and bot.early_stop is value


def test_ismcts_bad_flag() -> None:
    with pytest.raises(ValueError, match="early_stop"):
        make_bot("ismcts:early_stop=maybe")


def test_discard_on_game_takes_the_policys_steps() -> None:
    """The rollouts' whole-decision discard equals the step-by-step policy, and honours a limit."""
    from civlite.bots.heuristic import discard_on_game, evaluator, policy_on_game

    checked = 0
    for seed in range(40):
        g = Game(players=3, seed=seed)
        rng = random.Random(seed)
        while not g.over and checked < 25:
            if g.discard_steps_left > 1:
                a, b = g.clone(), g.clone()
                ev = evaluator(g.rules, g.n)
                k = g.discard_steps_left
                assert discard_on_game(a, a.legal_ids(), ev) == k
                for _ in range(k):
                    b.apply_id(policy_on_game(b, b.legal_ids(), ev))
                assert GameRecord.of(a).to_json() == GameRecord.of(b).to_json()
                c = g.clone()
                assert discard_on_game(c, c.legal_ids(), ev, limit=1) == 1 and c.discard_steps_left == k - 1
                checked += 1
            ids = g.legal_ids()
            g.apply_id(ids[int(rng.random() * len(ids))])
    assert checked >= 10


def test_ismcts_search_leaves_no_cycles_and_restores_the_collector() -> None:
    """The search pauses the cyclic collector; that is only sound if it makes no cycles."""
    import gc

    g = advance(Game(players=4, seed=9), 60, 9)
    assert not g.over and g.to_move is not None
    gc.collect()
    assert gc.isenabled()
    gc.disable()
    try:
        bot = make_bot("ismcts:iterations=300", seed=2)
        assert isinstance(bot, ISMCTSBot)
        bot.search(g.view(g.to_move), g.legal_ids())
        assert not gc.isenabled()  # left as it was found
        assert gc.collect() == 0
    finally:
        gc.enable()
    bot.search(g.view(g.to_move), g.legal_ids())
    assert gc.isenabled()
