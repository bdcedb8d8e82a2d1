"""Leak test: every frame a seat or a spectator receives over 100 bot-played games holds only
cards that receiver can know at that moment.

Runs in-process with the server's own table manager and message builder (the same code
the WebSocket endpoint uses), with SQLite storage. A frame for seat ``s`` may name a card
only if it is in ``s``'s hand, on the discard pile, among ``s``'s known cards of other
hands, in the deck while ``s`` searches it (Vision), or in the public payload of an event of
that very frame. A (re)connect's log may also repeat what the seat legitimately saw before.
Once the game is over a frame's ``final`` part reveals every hand (as the record does then).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from civlite.bots import decide, make_bot
from civlite.engine import CARDS, Game
from civlite.server.bodies import CreateTable, SeatSpec
from civlite.server.state import Conn
from civlite.server.storage import Store
from civlite.server.tables import Manager

NAMES = sorted((c.name for c in CARDS), key=len, reverse=True)
NAMESET = set(NAMES)
NAME_RE = re.compile("|".join(re.escape(n) for n in NAMES))  # longest first: "Horse Archers" before "Archers"


def names_in(frame: Any) -> set[str]:
    """Every card name anywhere in a frame (exact strings, and inside texts, longest names first)."""
    found: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, str):
            if x in NAMESET:
                found.add(x)
                return
            found.update(NAME_RE.findall(x))

    walk(frame)
    return found


def allowed_now(game: Game, seat: int | None, public_event_cards: set[str]) -> set[str]:
    """What ``seat`` may know now, from the game's truth."""
    truth = game.state_json()
    ok = set(truth["discard"]) | public_event_cards
    if seat is None:
        return ok
    ok |= set(truth["players"][seat]["hand"])
    for p in game.view(seat).players:
        ok |= {c.name for c in p.known}
    pending = game.pending
    if pending is not None and pending.player == seat and pending.kind == "vision":
        ok |= set(truth["deck"])
    return ok


class Checker:
    def __init__(self) -> None:
        self.frames = 0
        self.cards_seen = 0
        self.ever: dict[tuple[str, int | None], set[str]] = {}
        self.problems: list[str] = []

    def __call__(self, conn: Conn, frame: dict[str, Any]) -> None:
        t = conn.table
        assert t is not None
        seat = conn.seat
        game = t.game  # the truth at the moment the frame is built
        key = (t.id, seat)
        ever = self.ever.setdefault(key, set())
        self.frames += 1
        if "final" in frame:  # every hand revealed: only once the game is over (the record is public then)
            if not game.is_over:
                self.problems.append(f"{key} {frame['type']} reveals the hands before the game is over")
            frame = {k: v for k, v in frame.items() if k != "final"}
        if frame["type"] == "update":
            public: set[str] = set()
            for e in frame["events"]:
                public |= set(e.get("cards", []))
            ok = allowed_now(game, seat, public)
            # the events' public payload must really be public in the truth
            truth_public = {CARDS[c].name for s, e in t.log if s == frame["seq"] for c in e.cards}
            if not public <= truth_public:
                self.problems.append(f"{key}: public payload {sorted(public - truth_public)} is not public")
            got = names_in(frame)
        else:  # welcome: the state must fit now; the log may repeat what was seen earlier
            ok = allowed_now(game, seat, set())
            got = names_in({k: v for k, v in frame.items() if k != "log"})
            log_cards = names_in(frame["log"])
            bad_log = log_cards - ever - ok
            if bad_log:
                self.problems.append(f"{key} welcome log names {sorted(bad_log)} never shown to it")
        self.cards_seen += len(got)
        bad = got - ok
        if bad:
            self.problems.append(f"{key} {frame['type']} seq {frame.get('seq')}: {sorted(bad)} not knowable")
        ever |= got | ok


async def play_games(tmp: Path, n_games: int, victory_ct: int = 6) -> Checker:
    store = Store(f"sqlite:///{tmp / 'leak.db'}")
    m = Manager(store, bot_delay=0.0)
    checker = Checker()
    m.on_frame = checker
    await m.start()
    rng = random.Random(7)
    try:
        for g in range(n_games):
            n = rng.choice([2, 2, 3, 4, 5])
            humans = rng.sample(range(n), rng.randint(1, n))  # the rest are server-side bots
            seats = [SeatSpec(kind="human") if i in humans else SeatSpec(kind="bot", bot="random") for i in range(n)]
            info, tokens = await m.create_table(CreateTable(seats=seats, victory_ct=victory_ct, practice=True, seed=1000 + g))
            conns: dict[int | None, Conn] = {}
            for s in [*range(n), None]:
                c = Conn()
                conns[s] = c
                await m.handle(c, json.dumps({"v": 1, "type": "hello", "table": info.id,
                                              "token": tokens[s] if s is not None else None}))
            t = m.tables[info.id]
            bot = make_bot("random", seed=g)
            k = 0
            while not t.game.is_over:
                p = t.game.to_move
                assert p is not None
                if p in humans:
                    k += 1
                    action = decide(bot, t.game).to_json()
                    await m.handle(conns[p], json.dumps({"v": 1, "type": "action", "id": f"g{g}-{k}", "action": action}))
                    if rng.random() < 0.05:  # a reconnect: a fresh welcome with the seat's log
                        s = rng.choice([*range(n), None])
                        await m.handle(conns[s], json.dumps({"v": 1, "type": "hello", "table": info.id,
                                                             "token": tokens[s] if s is not None else None}))
                else:
                    await asyncio.sleep(0.0005)  # the bot's turn: let its task run
            for c in conns.values():
                m.disconnect(c)
            m.tables.pop(info.id, None)
    finally:
        await m.stop()
        store.close()
    return checker


def test_no_frame_holds_a_card_the_receiver_cannot_know_100_games(tmp_path: Path) -> None:
    # the store commits with synchronous=FULL: on a RAM disk its fsyncs cost nothing (a third of
    # the wall time on a disk), and durability is not what this test is about
    shm = Path("/dev/shm")
    where = Path(tempfile.mkdtemp(prefix="civlite-leak-", dir=shm)) if shm.is_dir() and os.access(shm, os.W_OK) else tmp_path
    try:
        checker = asyncio.run(play_games(where, 100, victory_ct=6))
    finally:
        if where != tmp_path:
            shutil.rmtree(where, ignore_errors=True)
    assert checker.problems == [], checker.problems[:10]
    assert checker.frames > 20000 and checker.cards_seen > 100000  # the test saw real traffic
