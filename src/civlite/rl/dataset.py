"""Game records as learning data: one Parquet row per decision.

``civlite export RUN --out DIR`` (or :func:`export_run`) reads the records of a
``civlite sim`` run (``RUN/games.jsonl``), replays each game and writes
``DIR/decisions.parquet``; ``civlite dataset`` plays a run of strong self-play games and
exports it in one command. :func:`load` reads the file back as numpy arrays.

One row per *compact* decision, the decisions an agent of the research interfaces
makes: a recorded discard of k cards is k rows (k steps, in suit order, the
"selecting" slot of the observation filling as they go), every other action one row.
The columns (:data:`SCHEMA`):

==============  ===========================  ================================================
column          type                         meaning
==============  ===========================  ================================================
game            int32                        the game's index in the run
decision        int32                        the row's number within its game, from 0
seat            int8                         the deciding seat
players         int8                         seats at the table
turn            int16                        the turn number (R4)
bot             string                       the bot that played the seat
observation     fixed_size_list<float32>     the seat's numeric view (``obs_size(players)``
                                             values, :func:`civlite.rl.encoding.encode_game`:
                                             the interfaces' observation, every slot in the
                                             observation page)
legal_mask      fixed_size_list<bool>[153]   the legal compact actions
action          int16                        the compact action taken (``describe_id``)
outcome         float32                      the seat's final return: +1 win, -1 loss, 0 draw
winner          int8                         the winning seat, -1 for a draw (turn limit)
game_seed       int64                        the game's seed (``Game(players, seed=...)``)
==============  ===========================  ================================================

The file holds one table size: a run has one player count. Only the views are stored,
so no row holds a card its seat could not see; the records (``games.jsonl``) keep the
whole truth.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..engine import DISCARD_BASE, NUM_ACTIONS, SUIT_OF, Discard, GameRecord
from .encoding import encode_game, obs_size

__all__ = ["FILE", "SCHEMA_DOC", "ExportResult", "decision_rows", "export_run", "load", "schema"]

FILE = "decisions.parquet"
#: the columns and their meaning, in order (the module's table)
SCHEMA_DOC: dict[str, str] = {
    "game": "the game's index in the run",
    "decision": "the row's number within its game, from 0",
    "seat": "the deciding seat",
    "players": "seats at the table",
    "turn": "the turn number (R4)",
    "bot": "the bot that played the seat",
    "observation": "the seat's numeric view (obs_size(players) float32 values)",
    "legal_mask": "the legal compact actions (153 booleans)",
    "action": "the compact action taken",
    "outcome": "the seat's final return: +1 win, -1 loss, 0 draw",
    "winner": "the winning seat, -1 for a draw (turn limit)",
    "game_seed": "the game's seed",
}


def schema(players: int) -> Any:
    """The Parquet schema of a run of ``players`` seats."""
    import pyarrow as pa

    return pa.schema([
        ("game", pa.int32()), ("decision", pa.int32()), ("seat", pa.int8()), ("players", pa.int8()),
        ("turn", pa.int16()), ("bot", pa.string()),
        ("observation", pa.list_(pa.float32(), obs_size(players))),
        ("legal_mask", pa.list_(pa.bool_(), NUM_ACTIONS)),
        ("action", pa.int16()), ("outcome", pa.float32()), ("winner", pa.int8()), ("game_seed", pa.int64()),
    ])


@dataclass
class ExportResult:
    path: Path
    games: int
    rows: int


def decision_rows(record: GameRecord) -> Iterator[tuple[int, int, np.ndarray, list[int], int]]:
    """Each compact decision of a recorded game: (seat, turn, observation, legal ids, action id).

    The game is replayed from the record (so the result is the recorded game); a discard of
    k cards is split into its k steps on a copy, in suit order."""
    g = record.initial()
    g.quiet = True
    for action in record.actions:
        seat = g.to_move
        assert seat is not None
        if type(action) is Discard:  # (a Meld is a Discard too, but one compact action)
            step = g.clone()
            step.quiet = True
            for aid in sorted(DISCARD_BASE + SUIT_OF[c.id] for c in action.cards):
                yield seat, step.turn, encode_game(step, seat), step.legal_ids(), aid
                step.apply_id(aid)
        else:
            yield seat, g.turn, encode_game(g, seat), g.legal_ids(), g.id_for_action(action)
        g.apply(action)
    if not g.over:
        raise ValueError("the record's game is not finished: no outcome to learn from")


def _records(run: Path) -> Iterator[tuple[int, GameRecord, list[str]]]:
    path = run / "games.jsonl" if run.is_dir() else run
    with path.open(encoding="utf-8") as f:
        for i, line in enumerate(f):
            if not line.strip():
                continue
            data = json.loads(line)
            yield int(data.get("index", i)), GameRecord.from_json(data), list(data.get("bots") or [])


def export_run(run: Path, out: Path, games_per_group: int = 256) -> ExportResult:
    """Write ``out/decisions.parquet`` from the run ``run`` (a ``civlite sim --out`` folder or its
    ``games.jsonl``); one row group per ``games_per_group`` games."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out.mkdir(parents=True, exist_ok=True)
    path = out / FILE
    writer: Any = None
    n_games = n_rows = 0
    cols: dict[str, list[Any]] = {}
    players = 0

    def flush() -> None:
        nonlocal writer
        if not cols.get("game"):
            return
        sch = schema(players)
        obs = np.concatenate(cols["observation"]).astype(np.float32)
        mask = np.concatenate(cols["legal_mask"])
        arrays = [
            pa.array(cols[name], type=sch.field(name).type)
            for name in ("game", "decision", "seat", "players", "turn", "bot")
        ] + [
            pa.FixedSizeListArray.from_arrays(pa.array(obs), obs_size(players)),
            pa.FixedSizeListArray.from_arrays(pa.array(mask), NUM_ACTIONS),
        ] + [pa.array(cols[name], type=sch.field(name).type) for name in ("action", "outcome", "winner", "game_seed")]
        table = pa.Table.from_arrays(arrays, schema=sch)
        if writer is None:
            writer = pq.ParquetWriter(path, sch, compression="zstd")
        writer.write_table(table)
        for v in cols.values():
            v.clear()

    try:
        for index, record, bots in _records(run):
            n = len(record.players)
            if players and n != players:
                raise ValueError(f"game {index} has {n} players, the run's earlier games {players}: "
                                 "one file holds one table size")
            players = n
            if not cols:
                cols = {name: [] for name in SCHEMA_DOC}
            rows = list(decision_rows(record))
            final = record.replay()
            returns = final.returns()
            winner = -1 if final.winner is None else final.winner
            for k, (seat, turn, obs, legal, aid) in enumerate(rows):
                mask = np.zeros(NUM_ACTIONS, bool)
                mask[legal] = True
                for name, value in (("game", index), ("decision", k), ("seat", seat), ("players", n),
                                    ("turn", turn), ("bot", bots[seat] if seat < len(bots) else ""),
                                    ("observation", obs), ("legal_mask", mask), ("action", aid),
                                    ("outcome", returns[seat]), ("winner", winner), ("game_seed", record.seed)):
                    cols[name].append(value)
            n_games += 1
            n_rows += len(rows)
            if n_games % games_per_group == 0:
                flush()
        flush()
    finally:
        if writer is not None:
            writer.close()
    if writer is None:
        raise ValueError(f"{run}: no games to export")
    return ExportResult(path=path, games=n_games, rows=n_rows)


def load(path: Path | str) -> dict[str, np.ndarray]:
    """A ``decisions.parquet`` file (or the folder holding it) as numpy arrays, one per column:
    ``observation`` is ``(rows, obs_size)`` float32, ``legal_mask`` ``(rows, 153)`` bool, the
    others one value a row."""
    import pyarrow.parquet as pq

    p = Path(path)
    table = pq.read_table(p / FILE if p.is_dir() else p)
    out: dict[str, np.ndarray] = {}
    for name in table.column_names:
        col = table.column(name).combine_chunks()
        if name in ("observation", "legal_mask"):
            width = col.type.list_size
            out[name] = col.flatten().to_numpy(zero_copy_only=False).reshape(-1, width)
        else:
            out[name] = col.to_numpy(zero_copy_only=False)
    return out
