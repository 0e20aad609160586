"""Rebuild every read model from the log, and prove it equals the live one.

Rows are folded in memory by the same projection the live path uses, copied into
temporary tables, and compared with the live tables row for row on their text form.

To compare, the replay runs in one REPEATABLE READ transaction, so the events it folds
and the live read models it compares with are one snapshot (read models are written in
the same transaction as their events). To replace, it first locks the read-model tables
against writes (commands in flight finish, new ones wait at their first read-model
write), then takes the append lock, and replays what is then committed.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
import psycopg
from psycopg import sql

from casino.eventstore.upcasting import UpcasterRegistry
from casino.readmodels.apply_memory import MemoryReadModels
from casino.readmodels.changes import TABLE_COLUMNS, TABLE_KEYS
from casino.readmodels.projection import Fact, project

APPEND_LOCK = 7310293372818011001  # the log's append lock (sql/0001_event_log.sql)


@dataclass(frozen=True)
class TableComparison:
    table: str
    live_rows: int
    rebuilt_rows: int
    differing_rows: int
    live_digest: str
    rebuilt_digest: str

    @property
    def equal(self) -> bool:
        return self.differing_rows == 0 and self.live_digest == self.rebuilt_digest


@dataclass(frozen=True)
class RebuildReport:
    events: int
    tables: list[TableComparison]
    replaced: bool

    @property
    def equal(self) -> bool:
        return all(t.equal for t in self.tables)


def replay(
    connection: psycopg.Connection[Any], upcasters: UpcasterRegistry | None = None
) -> tuple[MemoryReadModels, int]:
    """Fold every event of the log, in global order, into read-model rows in memory."""
    models = MemoryReadModels()
    upcast = (upcasters or UpcasterRegistry()).upcast
    count = 0
    last_at, when = None, datetime.min
    # The fold allocates millions of small objects and frees none: the cyclic garbage
    # collector would rescan the whole growing heap again and again for nothing.
    collecting = gc.isenabled()
    gc.disable()
    try:
        for stream_id, version, event_type, schema_version, stored, at in _events(connection):
            _, data = upcast(event_type, schema_version, stored)
            if at != last_at and at is not None:  # the events of one command share a time
                last_at, when = at, datetime.fromisoformat(at)
            models.apply(project(Fact(stream_id, version, event_type, data, when)))
            count += 1
    finally:
        if collecting:
            gc.enable()
    return models, count


def _events(connection: psycopg.Connection[Any]) -> Iterator[list[Any]]:
    """Every event in global order, as ``[stream_id, version, type, schema_version, data,
    at]``.

    Each row comes as one JSON text decoded by orjson: per-row driver work, not the data,
    was most of a replay's time, and one text column is the cheapest row there is. The
    rows stream out of one COPY: Postgres builds the next rows (on the other core) while
    these are folded, where a cursor's FETCH left the server idle while the client
    worked and the client idle while the server worked (a replay of 200,000 events went
    from 76,000-83,000 to 112,000-116,000 events per second; bench/rebuild.py's rebuild
    of 1,000,000 from 45,179 to 58,489). (A fetching thread was tried too and was slower:
    decoding holds the GIL either way.)
    Read it to the end, or give up the transaction with it: psycopg cancels a COPY left
    half-way, and the transaction it ran in then fails.
    """
    query = (
        "COPY (SELECT json_build_array(stream_id, version, type, schema_version, data,"
        " metadata->'at')::text FROM events ORDER BY position) TO STDOUT (FORMAT BINARY)"
    )
    with connection.cursor() as cursor, cursor.copy(query) as copy:
        copy.set_types(["text"])
        loads = orjson.loads
        for (row,) in copy.rows():
            yield loads(row)


def _rebuilt(table: str) -> str:
    return f"rebuilt_{table}"


def _column_types(connection: psycopg.Connection[Any], table: str) -> list[str]:
    query = (
        "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute"
        " WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped"
    )
    types = dict(connection.execute(query, (table,)).fetchall())
    return [types[column] for column in TABLE_COLUMNS[table]]


def _create_rebuilt_tables(connection: psycopg.Connection[Any]) -> None:
    for table in TABLE_KEYS:
        connection.execute(
            sql.SQL("CREATE TEMP TABLE {} (LIKE {} INCLUDING DEFAULTS) ON COMMIT DROP").format(
                sql.Identifier(_rebuilt(table)), sql.Identifier(table)
            )
        )


def _load(connection: psycopg.Connection[Any], models: MemoryReadModels, into_live: bool) -> None:
    """Copy the rebuilt rows into the rebuilt_* temporary tables, or straight into the
    (emptied) live tables: binary COPY, typed by the live tables' own column types."""
    for table, rows in models.tables.items():
        target = sql.Identifier(table if into_live else _rebuilt(table))
        columns = TABLE_COLUMNS[table]
        copy = sql.SQL("COPY {} ({}) FROM STDIN (FORMAT BINARY)").format(
            target, sql.SQL(", ").join(map(sql.Identifier, columns))
        )
        types = _column_types(connection, table)
        with connection.cursor() as cursor, cursor.copy(copy) as writer:
            writer.set_types(types)
            for row in rows.values():
                writer.write_row([row[c] for c in columns])


def _compare(connection: psycopg.Connection[Any], table: str) -> TableComparison:
    """Row counts and an MD5 of each table's rows as text, in key order; the differing
    rows are counted (both ways) only when the digests differ."""
    live, rebuilt = sql.Identifier(table), sql.Identifier(_rebuilt(table))
    order = sql.SQL(", ").join(map(sql.Identifier, TABLE_KEYS[table]))
    digest = sql.SQL(
        "SELECT count(*), md5(coalesce(string_agg(t::text, E'\\n' ORDER BY {order}), ''))"
        " FROM {table} t"
    )
    live_rows, live_digest = _row(connection, digest.format(order=order, table=live))
    rebuilt_rows, rebuilt_digest = _row(connection, digest.format(order=order, table=rebuilt))
    differing_rows = 0
    if live_digest != rebuilt_digest:
        (differing_rows,) = _row(
            connection,
            sql.SQL(
                "SELECT count(*) FROM ((TABLE {a} EXCEPT ALL TABLE {b}) UNION ALL"
                " (TABLE {b} EXCEPT ALL TABLE {a})) d"
            ).format(a=live, b=rebuilt),
        )
    return TableComparison(
        table, live_rows, rebuilt_rows, differing_rows, live_digest, rebuilt_digest
    )


def _row(
    connection: psycopg.Connection[Any],
    query: sql.Composed,
    params: tuple[Any, ...] | None = None,
) -> tuple[Any, ...]:
    row = connection.execute(query, params).fetchone()
    assert row is not None  # an aggregate always answers one row
    return tuple(row)


def rebuild(
    connection: psycopg.Connection[Any],
    replace: bool = False,
    upcasters: UpcasterRegistry | None = None,
) -> RebuildReport:
    """Replay the log into fresh read models and compare them with the live ones, or, with
    ``replace``, make the rebuilt ones live instead (run a comparison again afterwards to
    see them equal). ``connection`` must be in autocommit mode."""
    with connection.transaction():
        if replace:
            tables = sql.SQL(", ").join(map(sql.Identifier, TABLE_KEYS))
            connection.execute(sql.SQL("LOCK TABLE {} IN EXCLUSIVE MODE").format(tables))
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (APPEND_LOCK,))
            models, events = replay(connection, upcasters)
            connection.execute(sql.SQL("TRUNCATE {}").format(tables))
            _load(connection, models, into_live=True)
            return RebuildReport(events=events, tables=[], replaced=True)
        connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        models, events = replay(connection, upcasters)
        _create_rebuilt_tables(connection)
        _load(connection, models, into_live=False)
        comparisons = [_compare(connection, table) for table in TABLE_KEYS]
    return RebuildReport(events=events, tables=comparisons, replaced=False)
