"""The read models checked against the log in constant memory, a table at a time.

Every read-model row is derived from the events of one group, and the groups can be
visited in the order of the table's key: a round's rows from its own stream, a player's
balance and ledger lines from their account stream, a round's player totals from the
account events that name that round. So the log is read (sorted by the server) one
group at a time, each group folded alone by the live projection, and its rows compared
with the live table read in the same key order: a merge of two sorted streams.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
import psycopg
from psycopg import sql

from casino.readmodels.apply_memory import MemoryReadModels
from casino.readmodels.changes import TABLE_COLUMNS, TABLE_KEYS
from casino.readmodels.projection import Fact, project

BATCH = 5_000
_NUMERIC_KEYS = frozenset({"seat", "version", "line"})

# For each table: the events its rows come from, what groups them, and the order that
# brings the groups in the order of the table's key (byte order, as Python's).
_SOURCES: dict[str, tuple[str, str, str]] = {
    "rm_tables": ("stream_id LIKE 'table-%'", "stream_id", 'stream_id COLLATE "C"'),
    "rm_shoes": ("stream_id LIKE 'shoe-%'", "stream_id", 'stream_id COLLATE "C"'),
    "rm_rounds": ("stream_id LIKE 'round-%'", "stream_id", 'stream_id COLLATE "C"'),
    "rm_seats": ("stream_id LIKE 'round-%'", "stream_id", 'stream_id COLLATE "C"'),
    "rm_balances": (
        "stream_id LIKE 'account-%'",
        "stream_id",
        "data->>'player_id' COLLATE \"C\", data->>'currency' COLLATE \"C\"",
    ),
    # A ledger line depends on its own event alone: one event is one group.
    "ledger_postings": (
        "stream_id LIKE 'account-%'",
        "stream_id || '@' || version",
        'stream_id COLLATE "C"',
    ),
    "rm_round_players": (
        "stream_id LIKE 'account-%' AND data ? 'round_id'",
        "data->>'round_id'",
        "data->>'round_id' COLLATE \"C\"",
    ),
}


@dataclass(frozen=True)
class TableCheck:
    table: str
    rows: int  # live rows compared
    missing: list[Any]  # keys the log gives and the table lacks (the first few)
    extra: list[Any]  # keys the table has and the log does not give (the first few)
    differing: list[Any]  # keys whose rows differ (the first few)

    @property
    def equal(self) -> bool:
        return not (self.missing or self.extra or self.differing)


def _events(connection: psycopg.Connection[Any], table: str) -> Iterator[tuple[Any, list[Any]]]:
    """The table's source events as (group, event), groups contiguous and in order."""
    where, group, order = _SOURCES[table]
    query = (
        f"SELECT {group}, json_build_array(stream_id, version, type, data, metadata->'at')::text"
        f" FROM events WHERE {where} ORDER BY {order}, position"
    )
    with connection.cursor(name=f"check_{table}") as cursor:
        cursor.itersize = BATCH
        cursor.execute(query.encode())
        for key, text in cursor:
            yield key, orjson.loads(text)


def _rebuilt_rows(connection: psycopg.Connection[Any], table: str) -> Iterator[tuple[Any, ...]]:
    """The rows the log gives for ``table``, in key order.

    Each group is folded as its events stream by, applying only the changes to this
    table (a table's rows never depend on another's), so memory holds one group's rows
    of one table: one balance for a player's whole account, one row for a table's
    whole history.
    """
    models = MemoryReadModels()
    current: Any = None
    for key, (stream_id, version, event_type, data, at) in _events(connection, table):
        if key != current:
            yield from _sorted_rows(models, table)
            models = MemoryReadModels()
            current = key
        when = datetime.fromisoformat(at) if at else datetime.min
        changes = project(Fact(stream_id, version, event_type, data, when))
        models.apply([change for change in changes if change.table == table])
    yield from _sorted_rows(models, table)


def _sorted_rows(models: MemoryReadModels, table: str) -> Iterator[tuple[Any, ...]]:
    rows = models.tables[table]
    for key in sorted(rows):
        yield key, tuple(rows[key][c] for c in TABLE_COLUMNS[table])


def _live_rows(connection: psycopg.Connection[Any], table: str) -> Iterator[tuple[Any, ...]]:
    keys = TABLE_KEYS[table]
    query = sql.SQL("SELECT {cols} FROM {table} ORDER BY {keys}").format(
        cols=sql.SQL(", ").join(map(sql.Identifier, TABLE_COLUMNS[table])),
        table=sql.Identifier(table),
        keys=sql.SQL(", ").join(
            sql.SQL('{} COLLATE "C"').format(sql.Identifier(k))
            if k not in _NUMERIC_KEYS
            else sql.Identifier(k)
            for k in keys
        ),
    )
    positions = [TABLE_COLUMNS[table].index(k) for k in keys]
    with connection.cursor(name=f"live_{table}") as cursor:
        cursor.itersize = BATCH
        cursor.execute(query)
        for row in cursor:
            key = row[positions[0]] if len(positions) == 1 else tuple(row[p] for p in positions)
            yield key, tuple(row)


def check_table(connection: psycopg.Connection[Any], table: str, keep: int = 10) -> TableCheck:
    """Merge the rows the log gives with the live rows, both in key order."""
    rebuilt, live = _rebuilt_rows(connection, table), _live_rows(connection, table)
    missing: list[Any] = []
    extra: list[Any] = []
    differing: list[Any] = []
    rows = 0
    want, have = next(rebuilt, None), next(live, None)
    while want is not None or have is not None:
        if have is None or (want is not None and want[0] < have[0]):
            assert want is not None
            missing.append(want[0])
            want = next(rebuilt, None)
        elif want is None or have[0] < want[0]:
            extra.append(have[0])
            rows += 1
            have = next(live, None)
        else:
            if want[1] != have[1]:
                differing.append(want[0])
            rows += 1
            want, have = next(rebuilt, None), next(live, None)
    return TableCheck(table, rows, missing[:keep], extra[:keep], differing[:keep])


def check_read_models(connection: psycopg.Connection[Any]) -> list[TableCheck]:
    """Every read model against the log, in one REPEATABLE READ snapshot."""
    with connection.transaction():
        connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        return [check_table(connection, table) for table in TABLE_KEYS]
