"""0021 on a log that already has events: the columns become domains without a rewrite,
the events read back and verify as before, and a log holding a value that breaks a rule
is not migrated at all."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import psycopg
import pytest

from casino.db.connection import create_pool
from casino.db.migrations import SQL_DIR, discover, status, upgrade
from casino.eventstore import NewEvent
from casino.eventstore.canonical import ZERO_HASH, canonical_json, chain_hash
from casino.eventstore.postgres import PostgresEventStore
from casino.eventstore.verify import verify_chains
from tests.integration.conftest import DatabaseFactory
from tests.integration.eventstore.helpers import (
    COLUMN_TYPES,
    EVENT_COLUMN_TYPES,
    INSERT_EVENT_ROW,
    event_row,
    new_stream,
)

pytestmark = pytest.mark.integration

DOMAINS_VERSION = 21
STORAGE = """
SELECT c.relname, c.relfilenode FROM pg_class c
 WHERE c.oid = 'events'::regclass
    OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'events'::regclass)
 ORDER BY c.relname
"""


def migrations_up_to(folder: Path, last: int) -> Path:
    """``folder``, holding a copy of every migration up to version ``last``."""
    folder.mkdir()
    for migration in discover():
        if migration.version <= last:
            name = f"{migration.version:04d}_{migration.name}.sql"
            shutil.copy(SQL_DIR / name, folder / name)
    return folder


def migrated_before_domains(make_database: DatabaseFactory, folder: Path) -> str:
    """A new database with every migration before 0021 applied."""
    url = make_database(migrated=False)
    upgrade(url, migrations_up_to(folder, DOMAINS_VERSION - 1))
    return url


def write_chain(conn: psycopg.Connection[Any], stream: str, events: list[NewEvent]) -> None:
    """``events`` as versions 1, 2, ... of a new ``stream``, chained, written directly:
    the store of today calls an events_commit() that a log migrated only this far
    does not have."""
    previous = ZERO_HASH
    for version, event in enumerate(events, start=1):
        data_json = canonical_json(event.data)
        digest = chain_hash(
            stream_id=stream,
            version=version,
            event_type=event.type,
            schema_version=event.schema_version,
            data_json=data_json,
            metadata_json=b"{}",
            previous_hash=previous,
        )
        row = event_row(
            stream_id=stream,
            version=version,
            type=event.type,
            data=data_json.decode(),
            previous_hash=previous,
            hash=digest,
        )
        conn.execute(INSERT_EVENT_ROW, row)
        previous = digest


def query(url: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql).fetchall()


def test_a_log_with_events_is_migrated_in_place(
    make_database: DatabaseFactory, tmp_path: Path
) -> None:
    url = migrated_before_domains(make_database, tmp_path / "before")
    streams = [new_stream() for _ in range(3)]
    with psycopg.connect(url) as conn:  # as the store of that time wrote them
        for number, stream in enumerate(streams):
            opened = NewEvent("Opened", {"n": number, "text": "café ✓"})
            moved, shut = NewEvent("Moved", {"to": [1, 2]}), NewEvent("Shut", {})
            write_chain(conn, stream, [opened, moved, shut])
    with create_pool(url, max_size=2) as pool:
        before = [PostgresEventStore(pool).read_stream(stream) for stream in streams]
    storage = query(url, STORAGE)
    assert query(url, "SELECT reltuples FROM pg_class WHERE oid = 'events'::regclass") == [(-1.0,)]

    through_domains = migrations_up_to(tmp_path / "through", DOMAINS_VERSION)
    assert [m.version for m in upgrade(url, through_domains)] == [DOMAINS_VERSION]
    assert query(url, STORAGE) == storage  # no row rewritten, every index kept
    assert [m.version for m in upgrade(url)] == [
        m.version for m in discover() if m.version > DOMAINS_VERSION
    ]

    assert query(url, COLUMN_TYPES) == EVENT_COLUMN_TYPES
    # the log had events, so it was analyzed again: its statistics are back
    [(rows,)] = query(url, "SELECT reltuples FROM pg_class WHERE oid = 'events'::regclass")
    assert rows >= 9
    [(columns_with_statistics,)] = query(
        url,
        "SELECT count(*) FROM pg_stats WHERE schemaname = 'public' AND tablename = 'events'"
        " AND attname IN ('stream_id', 'version', 'type', 'hash')",
    )
    assert columns_with_statistics == 4
    with create_pool(url, max_size=2) as pool:
        store = PostgresEventStore(pool)
        assert [store.read_stream(stream) for stream in streams] == before
        [last] = store.append(streams[0], 3, [NewEvent("Reopened", {})])
        assert (last.version, last.previous_hash) == (4, before[0][-1].hash)
        with pool.connection() as conn:
            report = verify_chains(conn, streams)
    assert report.ok, report.first


def test_a_log_breaking_a_rule_is_not_migrated(
    make_database: DatabaseFactory, tmp_path: Path
) -> None:
    """Adding a constraint to a domain checks every stored value: a row that slipped past
    the table's CHECK (dropped and put back NOT VALID, as a superuser could) stops 0021,
    and the migration leaves nothing of itself."""
    url = migrated_before_domains(make_database, tmp_path / "before")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("ALTER TABLE events DROP CONSTRAINT events_data_check")
        conn.execute(INSERT_EVENT_ROW, event_row(data="[1]"))
        # back as it was, but not checked against the row already there
        conn.execute(
            "ALTER TABLE events ADD CONSTRAINT events_data_check"
            " CHECK (jsonb_typeof(data) = 'object') NOT VALID"
        )

    with pytest.raises(psycopg.errors.CheckViolation) as refused:
        upgrade(url)

    assert 'column "data" of table "events"' in str(refused.value)
    assert [m.version for m in status(url).pending] == [
        m.version for m in discover() if m.version >= DOMAINS_VERSION
    ]
    types = dict(query(url, COLUMN_TYPES))
    assert (types["data"], types["hash"]) == ("jsonb", "text")
    [(domains,)] = query(
        url, "SELECT count(*) FROM pg_type WHERE typname LIKE 'event\\_%' AND typtype = 'd'"
    )
    assert domains == 0


def test_the_store_reads_on_after_0021_changes_the_types_its_reads_return(
    make_database: DatabaseFactory, tmp_path: Path
) -> None:
    """A running process has prepared its reads of the log with the old column types;
    Postgres refuses those statements after 0021 (0A000). The store drops the prepared
    statements and reads again: no read fails, on the very connection that prepared them."""
    url = migrated_before_domains(make_database, tmp_path / "before")
    stream = new_stream()
    with create_pool(url, min_size=1, max_size=1) as pool:  # one connection, reused
        store = PostgresEventStore(pool)
        with pool.connection() as conn:
            write_chain(conn, stream, [NewEvent("Opened", {"n": 1})])
        before = store.read_stream(stream)
        latest = store.read_latest([stream])
        feed = store.read_all(0)
        with pool.connection() as conn:
            pid = conn.info.backend_pid
            prepared = conn.execute("SELECT count(*) FROM pg_prepared_statements").fetchone()

        upgrade(url)

        assert store.read_stream(stream) == before
        assert store.read_latest([stream]) == latest
        assert store.read_all(0) == feed
        [appended] = store.append(stream, 1, [NewEvent("Moved", {})])
        assert appended.previous_hash == before[-1].hash
        with pool.connection() as conn:
            assert conn.info.backend_pid == pid  # the same connection throughout
    assert prepared is not None and prepared[0] >= 3
