"""The log's column rules hold for any writer, not only for events_commit(): a direct
INSERT with a value that breaks one is refused, and nothing is written. Since 0021 the
rules live on one domain per column, named after it (event_stream_id, ..., event_hash)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from tests.integration.eventstore.helpers import (
    COLUMN_TYPES,
    EVENT_COLUMN_TYPES,
    HASH,
    INSERT_EVENT_ROW,
    event_row,
)

pytestmark = pytest.mark.integration

CHECK_VIOLATION = "23514"
INVALID_PARAMETER = "22023"  # decode() of text that is not hex


BROKEN = [
    ("stream_id", "", CHECK_VIOLATION, "event_stream_id_not_empty"),
    ("type", "", CHECK_VIOLATION, "event_type_not_empty"),
    ("version", 0, CHECK_VIOLATION, "event_version_from_1"),
    ("version", -3, CHECK_VIOLATION, "event_version_from_1"),
    ("schema_version", 0, CHECK_VIOLATION, "event_schema_version_from_1"),
    ("data", "[]", CHECK_VIOLATION, "event_data_is_an_object"),
    ("data", "7", CHECK_VIOLATION, "event_data_is_an_object"),
    ("metadata", '"text"', CHECK_VIOLATION, "event_metadata_is_an_object"),
    ("metadata", "null", CHECK_VIOLATION, "event_metadata_is_an_object"),
    ("hash", "ab" * 31, CHECK_VIOLATION, "event_hash_is_32_bytes"),
    ("hash", "ab" * 33, CHECK_VIOLATION, "event_hash_is_32_bytes"),
    ("previous_hash", "", CHECK_VIOLATION, "event_previous_hash_is_32_bytes"),
    ("hash", "zz" * 32, INVALID_PARAMETER, None),
    ("previous_hash", "abc", INVALID_PARAMETER, None),
]


@pytest.mark.parametrize(("column", "value", "sqlstate", "constraint"), BROKEN)
def test_a_direct_insert_breaking_a_column_rule_is_refused(
    pool: ConnectionPool[Connection[Any]],
    column: str,
    value: object,
    sqlstate: str,
    constraint: str | None,
) -> None:
    row = event_row(**{column: value})
    with pool.connection() as conn:
        with pytest.raises(psycopg.Error) as refused:
            conn.execute(INSERT_EVENT_ROW, row)
        assert refused.value.sqlstate == sqlstate
        if constraint is not None:  # the domain, so the column, is named in the refusal
            assert refused.value.diag.constraint_name == constraint
            assert f"domain event_{column} violates" in str(refused.value)
        conn.rollback()
        count = conn.execute(
            "SELECT count(*) FROM events WHERE stream_id = %s", (row["stream_id"],)
        ).fetchone()
    assert count == (0,)


def test_a_direct_insert_keeping_every_rule_is_taken(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    row = event_row()
    with pool.connection() as conn:
        conn.execute(INSERT_EVENT_ROW, row)
        stored = conn.execute(
            "SELECT stream_id, version, type, schema_version, data, metadata, previous_hash,"
            " hash FROM events WHERE stream_id = %s",
            (row["stream_id"],),
        ).fetchone()
    assert stored == (row["stream_id"], 1, "A", 1, {}, {}, "0" * 64, HASH)


def test_the_table_keeps_no_check_constraint_of_its_own(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    """The rules are the domains' (read once per connection), not table CHECKs (read
    again by every INSERT statement): 0021 moved them, and none came back."""
    with pool.connection() as conn:
        checks = conn.execute(
            "SELECT count(*) FROM pg_constraint"
            " WHERE conrelid = 'events'::regclass AND contype = 'c'"
        ).fetchone()
        types = conn.execute(COLUMN_TYPES).fetchall()
    assert checks == (0,)
    assert types == EVENT_COLUMN_TYPES


def test_a_new_log_is_left_unanalyzed_so_the_head_probe_plans_an_index_scan(
    fresh_database_url: str,
) -> None:
    """0021 re-analyzes the log only when it has events. Analyzed while empty, the planner
    would trust "empty" and give events_commit()'s head probe a sequential scan as its
    generic plan, which it keeps while the log grows."""
    with psycopg.connect(fresh_database_url, autocommit=True) as conn:
        analyzed = conn.execute(
            "SELECT reltuples FROM pg_class WHERE oid = 'events'::regclass"
        ).fetchone()
        conn.execute(
            "INSERT INTO events (stream_id, version, type, schema_version, data, metadata,"
            " previous_hash, hash) SELECT 'test-' || n, 1, 'A', 1, '{}', '{}', %s, %s"
            " FROM generate_series(1, 30) AS n",
            ("0" * 64, HASH),
        )
        conn.execute("SET plan_cache_mode = force_generic_plan")
        conn.execute(
            "PREPARE head (text) AS SELECT e.version, e.hash FROM events e"
            " WHERE e.stream_id = $1 ORDER BY e.version DESC LIMIT 1"
        )
        plan = "\n".join(row[0] for row in conn.execute("EXPLAIN EXECUTE head ('test-7')"))
    assert analyzed == (-1.0,)  # never analyzed
    assert "Index Scan Backward using events_stream_version_key" in plan, plan
    assert "Seq Scan" not in plan, plan
