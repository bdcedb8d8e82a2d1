"""Storage on SQLite and (marked postgres) on a real PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from civlite.bots import decide, make_bot
from civlite.engine import Game, RuleSet
from civlite.server.storage import Append, ConflictError, Store


def _table(store: Store, tid: str = "t1", seed: int = 5) -> None:
    rules = RuleSet.default().with_changes(victory_ct=8)
    store.create_table(id=tid, name="test", rules=rules.to_dict(), seed=seed,
                       seats=[{"kind": "human", "name": "a", "token": "x"}, {"kind": "bot", "bot": "random", "name": "b"}],
                       clock=None)


def _old_row(store: Store, tid: str, seats: list[dict[str, object]], seed: int = 1) -> None:
    """A table row as the first release wrote it (its columns only)."""
    import sqlalchemy as sa

    from civlite.server.storage import _now

    cols = ["id", "name", "created_at", "rules", "seed", "first", "seats", "clock", "status", "num_actions"]
    tables = sa.table("tables", *(sa.column(c, sa.JSON() if c in ("rules", "seats") else None) for c in cols))
    with store.engine.begin() as conn:
        conn.execute(sa.insert(tables).values(id=tid, name="old", created_at=_now(), rules=RuleSet.default().to_dict(),
                                              seed=seed, first=0, seats=seats, clock=None, status="playing",
                                              num_actions=0))


def _head() -> str:
    """The newest revision shipped (each migration chains onto the one before)."""
    from alembic.script import ScriptDirectory

    import civlite.server.storage as storage

    head = ScriptDirectory(str(Path(storage.__file__).parent / "migrations")).get_current_head()
    assert head is not None
    return head


def test_migrations_create_the_schema_and_are_idempotent(db_url: str) -> None:
    s = Store(db_url)
    assert s.revision() == _head()
    s.migrate()  # again: nothing to do
    s.close()
    s2 = Store(db_url)  # a second process starting on the same database
    assert s2.revision() == _head()
    s2.close()


def test_a_database_from_before_hashed_tokens_keeps_its_seats(db_url: str) -> None:
    from alembic import command
    from alembic.config import Config

    from civlite.server.state import Table, token_digest
    from civlite.server.storage import __file__ as storage_file

    old = Store(db_url, migrate=False)
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(storage_file).parent / "migrations"))
    with old.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")  # the schema of the first release: tokens kept as they are
    _old_row(old, "t0", [{"kind": "human", "bot": None, "name": "a", "token": "secret-a"},
                         {"kind": "bot", "bot": "random", "name": "b"}])
    old.close()
    s = Store(db_url)  # a new release starting on it
    assert s.revision() == _head()
    info = s.get_table("t0")
    assert info is not None and "secret-a" not in str(info.seats)
    assert info.seed == 1 and not info.seeded  # 0003: an old table keeps dealing from its seed
    assert info.seats[0]["token_sha256"] == token_digest("secret-a") and info.seats[1] == {
        "kind": "bot", "bot": "random", "name": "b"}
    t = Table(info=info, game=Game(players=2, seed=1))
    assert t.seat_of("secret-a") == 0 and t.seat_of("secret-b") is None
    s.close()


def test_actions_are_stored_in_order_and_replay_the_game(db_url: str) -> None:
    store = Store(db_url)
    _table(store)
    rules = RuleSet.default().with_changes(victory_ct=8)
    game = Game(players=["a", "b"], seed=5, rules=rules)
    bot = make_bot("random", seed=1)
    seq = 0
    while not game.is_over:
        a = decide(bot, game)
        p = game.to_move
        assert p is not None
        game.apply(a)
        seq += 1
        store.append(Append("t1", seq, p, a.to_json(), f"c{seq}", over=game.is_over, winner=game.winner))
    info = store.get_table("t1")
    assert info is not None and info.status == "over" and info.winner == game.winner and info.num_actions == seq
    rec = store.record("t1")
    replayed = rec.replay()
    assert replayed.state_json() == game.state_json()
    assert [a.seq for a in store.load_actions("t1", after=seq - 3)] == [seq - 2, seq - 1, seq]
    assert store.count_actions("t1") == seq
    assert [t.id for t in store.list_tables(status="over")] == ["t1"]
    assert store.list_tables(status="playing") == []
    store.close()


def test_a_taken_number_or_client_id_is_a_conflict_and_changes_nothing(db_url: str) -> None:
    store = Store(db_url)
    _table(store)
    store.append(Append("t1", 1, 0, {"do": "pass"}, "c1"))
    with pytest.raises(ConflictError):
        store.append(Append("t1", 1, 0, {"do": "pass"}, "c2"))  # the number is taken
    with pytest.raises(ConflictError):
        store.append(Append("t1", 2, 0, {"do": "pass"}, "c1"))  # the client id was used
    assert store.count_actions("t1") == 1
    # a group commit with one bad item stores the others
    batch = [Append("t1", 2, 0, {"do": "pass"}, "c3"), Append("t1", 2, 1, {"do": "pass"}, "c4"),
             Append("t1", 3, 1, {"do": "pass"}, None)]
    store.append_many(batch)
    assert [b.error is None for b in batch] == [True, False, True]
    assert [a.client_id for a in store.load_actions("t1")] == ["c1", "c3", None]
    store.close()


def test_rematch_link_is_set_once(db_url: str) -> None:
    store = Store(db_url)
    _table(store, "t1")
    _table(store, "t2")
    _table(store, "t3")
    assert store.set_rematch("t1", "t2") == "t2"
    assert store.set_rematch("t1", "t3") == "t2"  # the first one wins
    store.close()


@pytest.mark.postgres
def test_notify_reaches_a_listener(pg_url: str) -> None:
    import threading

    store = Store(pg_url)
    _table(store)
    got: list[tuple[str, int]] = []
    seen = threading.Event()
    stop = threading.Event()

    def cb(tid: str, seq: int) -> None:
        got.append((tid, seq))
        seen.set()

    store.listen(cb, stop)
    other = Store(pg_url)  # another process: its notices are heard, this store's own are not
    # the listener connects asynchronously: append until it has heard one
    seq = 0
    while not seen.is_set() and seq < 50:
        seq += 1
        (other if seq % 2 else store).append(Append("t1", seq, 0, {"do": "pass"}))
        seen.wait(0.2)
    stop.set()
    assert got and got[0][0] == "t1" and all(s % 2 == 1 for _, s in got)
    store.close()
    other.close()


def _heartbeat(store: Store, owner: str, age: float, tables: tuple[str, ...] = ()) -> None:
    """A process's heartbeat row that lapsed ``age`` seconds ago (negative: still live), and its leases."""
    from datetime import UTC, datetime, timedelta

    import sqlalchemy as sa

    when = datetime.now(UTC) - timedelta(seconds=age)
    typed = sa.bindparam("e", type_=sa.DateTime(timezone=True))
    with store.engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO lease_owners (owner, expires) VALUES (:o, :e)").bindparams(typed),
                     {"o": owner, "e": when})
        for tid in tables:
            conn.execute(sa.text("INSERT INTO table_leases (table_id, owner, expires) VALUES (:t, :o, :e)")
                         .bindparams(typed), {"t": tid, "o": owner, "e": when})


def _owners(store: Store) -> set[str]:
    from sqlalchemy import text

    with store.engine.connect() as conn:
        return set(conn.execute(text("SELECT owner FROM lease_owners")).scalars())


def test_heartbeats_of_dead_processes_are_swept_and_live_ones_kept(db_url: str) -> None:
    """Only heartbeats older than the bound go, with their leases of tables no longer played; a
    live heartbeat, a fresh dead one, and a dead one still holding a played table's lease (which
    is how another process finds that table to take it over) are kept."""
    from sqlalchemy import text

    store = Store(db_url)
    for tid in ("play", "over", "over2"):
        _table(store, tid)
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE tables SET status = 'over' WHERE id IN ('over', 'over2')"))
    _heartbeat(store, "live", -60.0, ("over2",))  # renewed a minute ahead
    _heartbeat(store, "fresh", 1.0)  # lapsed a second ago: within the bound
    _heartbeat(store, "dead", 3600.0)
    _heartbeat(store, "deadover", 3600.0, ("over",))
    _heartbeat(store, "deadplay", 3600.0, ("play",))
    assert store.sweep_lease_owners(12.0) == 2
    assert _owners(store) == {"live", "fresh", "deadplay"}
    with store.engine.connect() as conn:
        leases: dict[str, str] = dict(conn.execute(text("SELECT table_id, owner FROM table_leases")).all())
    assert leases == {"over2": "live", "play": "deadplay"}
    if store.is_postgres:
        assert store.orphaned_tables() == ["play"]  # still found, to be taken over
        assert store.claim_leases("taker", ["play"], 5.0) == {"play"}
        assert store.sweep_lease_owners(12.0) == 1  # taken over: the dead heartbeat goes now
        assert _owners(store) == {"live", "fresh", "taker"}
    assert store.sweep_lease_owners(12.0) == 0
    store.close()
