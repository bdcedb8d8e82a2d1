"""The parts behind fair play, without a server: names made safe, the ranks of a game some
players left, the chat's cap under racing writers, and a catch-up that fails during an outage."""

from __future__ import annotations

import asyncio
import logging
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from civlite.engine import Game, RuleSet
from civlite.server.catchup import CatchUp
from civlite.server.names import safe_name
from civlite.server.ratings import decided, ranks
from civlite.server.registry import Registry
from civlite.server.social_store import ChatFull, SocialStore
from civlite.server.state import Table
from civlite.server.storage import Store, TableInfo


def test_names_keep_joiners_and_drop_what_shows_nothing() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert safe_name(family) == family  # one emoji, not three
    assert safe_name("می\u200cخواهم") == "می\u200cخواهم"  # Persian keeps its non-joiner
    for invisible in ("\u3164", "\u115f\u1160", "\u200d", " \u200b ", "\ufeff", "\u202e\u202c"):
        assert safe_name(invisible) == "", repr(invisible)
    assert safe_name("An\u202en") == "Ann" and safe_name("\u200dAnn\u200c") == "Ann"


def _table(n: int, seats: list[dict[str, Any]], status: str = "playing", over: bool = False) -> Table:
    g = Game(n, seed=5, rules=RuleSet.default().with_changes(victory_ct=3))
    if over:
        while not g.is_over:
            g.apply(g.legal_actions()[0])
    info = TableInfo("t", "t", datetime.now(UTC), {}, 0, 0, seats, None, status, 0, None, None, None, rated=True)
    return Table(info=info, game=g)


def test_players_who_left_rank_last_the_earliest_lowest() -> None:
    human = {"kind": "human"}
    t = _table(4, [human, {"kind": "bot", "bot": "medium", "left": 2}, human, {"kind": "bot", "bot": "medium", "left": 1}],
               over=True)
    r = ranks(t)
    assert sorted(r[i] for i in (0, 2)) in ([1, 2], [1, 1]) and r[1] == 3 and r[3] == 4
    # a table closed before its end: the seat whose decision it was stalled it, and is last
    t = _table(3, [human, human, human], status="closed")
    assert t.game.pending is not None
    stalled = t.game.pending.player
    assert decided(t) and ranks(t)[stalled] == 3 and all(ranks(t)[i] == 1 for i in range(3) if i != stalled)
    # closed with nobody to blame (a bot's turn): not decided, not rated
    bots = [{"kind": "bot", "bot": "random"}] * 3
    assert not decided(_table(3, bots, status="closed"))
    assert not decided(_table(3, [human] * 3))  # still being played


def test_the_chat_cap_holds_exactly_under_racing_writers(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'c.db'}")
    social = SocialStore(store)
    try:
        store.create_table(id="t", name="t", rules={}, seed=1, seats=[{"kind": "human"}], clock=None)
        stored, full = [], []
        lock = threading.Lock()

        def write(k: int) -> None:
            for i in range(10):
                try:
                    social.add_chat("t", None if k % 2 else 0, "x", f"{k}-{i}", limit=12)
                    with lock:
                        stored.append((k, i))
                except ChatFull:
                    with lock:
                        full.append((k, i))

        threads = [threading.Thread(target=write, args=(k,)) for k in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(60)
        lines = social.load_chat("t", 1000)
        # 12 players' lines and 12 spectators' lines, never one more
        assert len([x for x in lines if x.seat is None]) == 12 and len([x for x in lines if x.seat == 0]) == 12
        assert len(stored) == 24 and len(full) == 80 - 24
    finally:
        store.close()


class _Down:
    """A store whose every read fails (an outage)."""

    is_postgres = False
    sessions = None

    def get_table(self, table_id: str) -> Any:
        raise OSError("connection refused")

    def load_actions(self, table_id: str, after: int = 0) -> Any:
        raise OSError("connection refused")


def test_a_catch_up_that_fails_in_an_outage_is_logged_not_raised(caplog: pytest.LogCaptureFixture,
                                                                  tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'd.db'}")
    try:
        t = _table(2, [{"kind": "human"}, {"kind": "human"}])
        registry = Registry(store, None, 60.0, claim=None, schedule=None, forget=None)  # type: ignore[arg-type]
        registry.tables["t"] = t

        async def changed(t: Table) -> None:
            raise AssertionError("nothing was read, so nothing changes")

        cu = CatchUp(_Down(), registry, None, None, None, None, changed, listen=False, leases=False)  # type: ignore[arg-type]
        with caplog.at_level(logging.WARNING, logger="civlite.server"):
            for seq in (0, 5, -3):
                asyncio.run(cu.catch_up("t", seq))
        warned = [r for r in caplog.records if r.levelno == logging.WARNING and "could not be read" in r.getMessage()]
        assert len(warned) == 2  # the table and the moves (a chat line needs the chat loaded first)
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    finally:
        store.close()
