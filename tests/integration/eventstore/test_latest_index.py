"""The log's partial index of the latest event of each type (sql/0023_...): it covers the
types a table's state is folded from, the store reads those through it and any other
type by walking the stream back, and both give the latest event of the type."""

from __future__ import annotations

from typing import Any

import pytest
from psycopg import Connection, sql
from psycopg_pool import ConnectionPool

from casino.domain.tables import STATE_EVENT_TYPES
from casino.eventstore import NewEvent
from casino.eventstore.postgres import _READ_LATEST_OF_TYPES, PostgresEventStore
from tests.integration.eventstore.helpers import new_stream

pytestmark = pytest.mark.integration

INDEX = "events_stream_state_type_version"


def test_the_index_covers_exactly_the_types_a_tables_state_is_folded_from(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    # A state type left out would make every command fold its table by walking the
    # table's whole stream back; this is where the domain and the schema meet.
    with pool.connection() as conn:
        [(indexed,)] = conn.execute("SELECT events_latest_indexed_types()").fetchall()
    assert sorted(indexed) == sorted(STATE_EVENT_TYPES)


def test_latest_events_of_indexed_and_other_types_are_the_latest_of_each(
    event_store: PostgresEventStore,
) -> None:
    stream, quiet = new_stream(), new_stream()
    pattern = ["TableOpened", "RoundStarted", "WagerPlaced", "RoundStarted", "WagerPlaced"]
    pattern += ["ShoeStarted", "WagerPlaced", "Settled", "RoundStarted", "WagerPlaced"]
    events = [NewEvent(kind, {"n": n}) for n, kind in enumerate(pattern)]
    event_store.append(stream, 0, events)
    event_store.append(quiet, 0, [NewEvent("TableOpened", {"n": 0})])
    wanted = ["TableOpened", "RoundStarted", "ShoeStarted", "TableReconfigured"]
    wanted += ["WagerPlaced", "Settled", "Nothing"]

    tails = event_store.read_latest([stream, quiet], wanted)

    log = event_store.read_stream(stream)
    latest = {event.type: event for event in log}  # the last of each type wins
    expected = sorted((latest[kind] for kind in wanted if kind in latest), key=lambda e: e.version)
    assert tails[stream].version == len(pattern)
    assert [(e.type, e.data["n"]) for e in tails[stream].events] == [
        ("TableOpened", 0), ("ShoeStarted", 5), ("Settled", 7), ("RoundStarted", 8),
        ("WagerPlaced", 9),
    ]  # fmt: skip
    assert tails[stream].events == expected
    assert [(e.type, e.data["n"]) for e in tails[quiet].events] == [("TableOpened", 0)]


def plan(conn: Connection[Any], stream: str, kind: str) -> str:
    conn.execute("SET plan_cache_mode = force_generic_plan")  # as once prepared
    query = _READ_LATEST_OF_TYPES.replace("%s", "$1", 1).replace("%s", "$2", 1)
    conn.execute(f"PREPARE latest (text[], text[]) AS {query}")
    try:
        explain = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE latest ({}, {})"
        arguments = sql.SQL(explain).format(sql.Literal([stream]), sql.Literal([kind]))
        rows = conn.execute(arguments).fetchall()
    finally:
        conn.execute("DEALLOCATE latest")
        conn.execute("RESET plan_cache_mode")
    return "\n".join(row[0] for row in rows)


def test_an_indexed_type_is_one_probe_of_the_index_and_no_walk_of_the_stream(
    event_store: PostgresEventStore, pool: ConnectionPool[Connection[Any]]
) -> None:
    stream = new_stream()
    event_store.append(stream, 0, [NewEvent("TableOpened", {})])
    event_store.append(stream, 1, [NewEvent("WagerPlaced", {"n": n}) for n in range(50)])
    with pool.connection() as conn:
        indexed = plan(conn, stream, "TableOpened")
        other = plan(conn, stream, "WagerPlaced")
    # The walk through the stream's key is the second branch; its one-time filter stops
    # it before it starts (never executed) for an indexed type.
    probe, walk = indexed.split("One-Time Filter")
    assert f"Index Scan using {INDEX} on events x (actual rows=1 loops=1)" in probe, indexed
    assert "never executed" in walk.splitlines()[1], indexed
    # Any other type finds nothing in the index and walks the stream (by its key).
    probe, walk = other.split("One-Time Filter")
    assert f"Index Scan using {INDEX} on events x (actual rows=0 loops=1)" in probe, other
    assert "never executed" not in walk.splitlines()[1], other
    assert "events_stream_version_key" in walk.split("SubPlan")[0], other


def test_the_log_keeps_one_index_by_type_and_only_for_the_indexed_types(
    pool: ConnectionPool[Connection[Any]],
) -> None:
    with pool.connection() as conn:
        rows = conn.execute(
            "SELECT indexrelid::regclass::text, pg_get_expr(indpred, indrelid)"
            " FROM pg_index WHERE indrelid = 'events'::regclass"
            " AND pg_get_indexdef(indexrelid) LIKE '%(stream_id, type%'"
        ).fetchall()
    assert rows == [(INDEX, "((type)::text = ANY (events_latest_indexed_types()))")]
