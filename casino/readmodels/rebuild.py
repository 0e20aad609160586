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

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg import sql

from casino.eventstore.upcasting import UpcasterRegistry
from casino.readmodels.apply_memory import MemoryReadModels
from casino.readmodels.changes import TABLE_COLUMNS, TABLE_KEYS
from casino.readmodels.projection import Fact, project

APPEND_LOCK = 7310293372818011001  # the log's append lock (sql/0001_event_log.sql)
BATCH = 5_000


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
    registry = upcasters or UpcasterRegistry()
    count = 0
    for stream_id, version, event_type, schema_version, stored, at in _events(connection):
        _, data = registry.upcast(event_type, schema_version, stored)
        models.apply(
            project(Fact(stream_id, version, event_type, data, datetime.fromisoformat(at)))
        )
        count += 1
    return models, count


def _events(connection: psycopg.Connection[Any]) -> Iterator[tuple[Any, ...]]:
    with connection.cursor(name="replay_events") as cursor:
        cursor.itersize = BATCH
        cursor.execute(
            "SELECT stream_id, version, type, schema_version, data, metadata->>'at'"
            " FROM events ORDER BY position"
        )
        yield from cursor


def _rebuilt(table: str) -> str:
    return f"rebuilt_{table}"


def _load(connection: psycopg.Connection[Any], models: MemoryReadModels) -> None:
    for table, rows in models.tables.items():
        target = sql.Identifier(_rebuilt(table))
        connection.execute(
            sql.SQL("CREATE TEMP TABLE {} (LIKE {} INCLUDING DEFAULTS) ON COMMIT DROP").format(
                target, sql.Identifier(table)
            )
        )
        columns = TABLE_COLUMNS[table]
        copy = sql.SQL("COPY {} ({}) FROM STDIN").format(
            target, sql.SQL(", ").join(map(sql.Identifier, columns))
        )
        with connection.cursor() as cursor, cursor.copy(copy) as writer:
            for row in rows.values():
                writer.write_row([row[c] for c in columns])


def _compare(connection: psycopg.Connection[Any], table: str) -> TableComparison:
    live, rebuilt = sql.Identifier(table), sql.Identifier(_rebuilt(table))
    order = sql.SQL(", ").join(map(sql.Identifier, TABLE_KEYS[table]))
    digest = sql.SQL(
        "SELECT count(*), md5(coalesce(string_agg(t::text, E'\\n' ORDER BY {order}), ''))"
        " FROM {table} t"
    )
    differing = sql.SQL(
        "SELECT count(*) FROM ((TABLE {a} EXCEPT ALL TABLE {b}) UNION ALL"
        " (TABLE {b} EXCEPT ALL TABLE {a})) d"
    ).format(a=live, b=rebuilt)
    live_rows, live_digest = connection.execute(digest.format(order=order, table=live)).fetchone()  # type: ignore[misc]
    rebuilt_rows, rebuilt_digest = connection.execute(  # type: ignore[misc]
        digest.format(order=order, table=rebuilt)
    ).fetchone()
    (differing_rows,) = connection.execute(differing).fetchone()  # type: ignore[misc]
    return TableComparison(
        table, live_rows, rebuilt_rows, differing_rows, live_digest, rebuilt_digest
    )


def rebuild(
    connection: psycopg.Connection[Any],
    replace: bool = False,
    upcasters: UpcasterRegistry | None = None,
) -> RebuildReport:
    """Replay the log into fresh read models and compare them with the live ones; with
    ``replace``, make the rebuilt ones live. ``connection`` must be in autocommit mode."""
    with connection.transaction():
        if replace:
            tables = sql.SQL(", ").join(map(sql.Identifier, TABLE_KEYS))
            connection.execute(sql.SQL("LOCK TABLE {} IN EXCLUSIVE MODE").format(tables))
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (APPEND_LOCK,))
        else:
            connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        models, events = replay(connection, upcasters)
        _load(connection, models)
        comparisons = [_compare(connection, table) for table in TABLE_KEYS]
        if replace:
            for table in TABLE_KEYS:
                live, rebuilt = sql.Identifier(table), sql.Identifier(_rebuilt(table))
                connection.execute(sql.SQL("DELETE FROM {}").format(live))
                connection.execute(sql.SQL("INSERT INTO {} TABLE {}").format(live, rebuilt))
    return RebuildReport(events=events, tables=comparisons, replaced=replace)
