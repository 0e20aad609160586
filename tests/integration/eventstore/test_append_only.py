"""Invariant 1: the database itself refuses to change the log, whoever asks."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.eventstore import NewEvent
from casino.eventstore.postgres import APPEND_ONLY, PostgresEventStore

pytestmark = pytest.mark.integration

CHANGES = [
    "UPDATE {table} SET {column} = {column}",
    "UPDATE {table} SET {column} = {column} WHERE false",  # even when no row matches
    "DELETE FROM {table}",
    "DELETE FROM {table} WHERE false",
    "TRUNCATE {table}",
    "TRUNCATE {table} CASCADE",
]


@pytest.mark.parametrize("change", CHANGES)
@pytest.mark.parametrize(("table", "column"), [("events", "data"), ("log_checkpoints", "hash")])
def test_the_service_connection_cannot_change_the_log(
    pool: ConnectionPool[Connection[Any]],
    event_store: PostgresEventStore,
    change: str,
    table: str,
    column: str,
) -> None:
    stream = f"test-{uuid.uuid4()}"
    [event] = event_store.append(stream, 0, [NewEvent("A", {"n": 1})])
    with pool.connection() as conn:
        with pytest.raises(psycopg.Error) as refused:
            conn.execute(change.format(table=table, column=column))
        assert refused.value.sqlstate == APPEND_ONLY
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    assert event_store.read_stream(stream) == [event]


def test_appending_stays_possible(event_store: PostgresEventStore) -> None:
    stream = f"test-{uuid.uuid4()}"
    event_store.append(stream, 0, [NewEvent("A", {})])
    assert event_store.stream_version(stream) == 1
