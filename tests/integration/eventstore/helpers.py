"""Shared bits of the event store's integration tests."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import psycopg

from casino.eventstore import NewEvent

# One row of the log written directly, not through events_commit(), as any writer could.
HASH = "ab" * 32
INSERT_EVENT_ROW = (
    "INSERT INTO events (stream_id, version, type, schema_version, data, metadata,"
    " previous_hash, hash) VALUES (%(stream_id)s, %(version)s, %(type)s,"
    " %(schema_version)s, %(data)s::jsonb, %(metadata)s::jsonb, %(previous_hash)s, %(hash)s)"
)


def event_row(**values: Any) -> dict[str, Any]:
    """The parameters of ``INSERT_EVENT_ROW``: a first event that keeps every rule of the
    log, on a new stream, but for ``values``."""
    return {
        "stream_id": new_stream(),
        "version": 1,
        "type": "A",
        "schema_version": 1,
        "data": "{}",
        "metadata": "{}",
        "previous_hash": "0" * 64,
        "hash": HASH,
    } | values


# The log's columns and their types since 0021: a domain per column that has a rule.
EVENT_COLUMN_TYPES = [
    ("position", "bigint"),
    ("stream_id", "event_stream_id"),
    ("version", "event_version"),
    ("type", "event_type"),
    ("schema_version", "event_schema_version"),
    ("data", "event_data"),
    ("metadata", "event_metadata"),
    ("recorded_at", "timestamp with time zone"),
    ("previous_hash", "event_previous_hash"),
    ("hash", "event_hash"),
]
COLUMN_TYPES = """
SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
 WHERE a.attrelid = 'events'::regclass AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY a.attnum
"""

APPEND_LOCK_WAITERS = """
SELECT count(*) FROM pg_locks
 WHERE locktype = 'advisory' AND NOT granted
   AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
"""


def new_stream(prefix: str = "test") -> str:
    return f"{prefix}-{uuid.uuid4()}"


def events(*types: str) -> list[NewEvent]:
    return [NewEvent(t, {"id": str(uuid.uuid4())}) for t in types]


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll ``condition`` until it holds; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.005)  # a poll interval, not a wait for something to happen


def append_lock_waiters(url: str) -> int:
    """How many sessions of this database wait for an advisory lock."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(APPEND_LOCK_WAITERS).fetchone()
    return int(row[0]) if row else 0
