"""Invariant 5: verify finds edited, reordered and removed events; checkpoints prove that
later logs only extend earlier ones. Tampering is done as a superuser with the log's
triggers bypassed, each test in a database of its own."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from psycopg import Connection

from casino.db.connection import create_pool
from casino.eventstore import RecordedEvent
from casino.eventstore.canonical import ZERO_HASH, canonical_json, chain_hash
from casino.eventstore.postgres import PostgresEventStore
from casino.eventstore.verify import (
    Checkpoint,
    create_checkpoint,
    stored_checkpoints,
    verify_chains,
    verify_checkpoints,
)
from tests.integration.eventstore.helpers import events, new_stream

pytestmark = pytest.mark.integration


@pytest.fixture
def store(fresh_database_url: str) -> Iterator[PostgresEventStore]:
    with create_pool(fresh_database_url, max_size=2) as pool:
        yield PostgresEventStore(pool)


@pytest.fixture
def conn(fresh_database_url: str) -> Iterator[Connection[Any]]:
    with psycopg.connect(fresh_database_url, autocommit=True) as conn:
        yield conn


@pytest.fixture
def superuser(fresh_database_url: str) -> Iterator[Connection[Any]]:
    with psycopg.connect(fresh_database_url, autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")  # triggers do not fire
        yield conn


def stream_of_four(store: PostgresEventStore) -> tuple[str, list[RecordedEvent]]:
    stream = new_stream()
    other = new_stream()
    written = store.append(stream, 0, events("A", "B"), {"actor": "t"})
    store.append(other, 0, events("X"))
    written += store.append(stream, 2, events("C", "D"), {"actor": "t"})
    return stream, written


def test_untouched_chains_verify(store: PostgresEventStore, conn: Connection[Any]) -> None:
    stream_of_four(store)
    report = verify_chains(conn)
    assert (report.ok, report.streams, report.events, report.first) == (True, 2, 5, None)


def test_an_edited_event_is_found(
    store: PostgresEventStore, conn: Connection[Any], superuser: Connection[Any]
) -> None:
    stream, written = stream_of_four(store)
    superuser.execute(
        'UPDATE events SET data = \'{"id": "forged"}\' WHERE stream_id = %s AND version = 2',
        (stream,),
    )
    [found] = verify_chains(conn).breaks
    assert (found.stream_id, found.version, found.position) == (stream, 2, written[1].position)
    assert found.problem == "hash does not match the event's content"
    assert found.found == written[1].hash and found.expected != written[1].hash


@pytest.mark.parametrize("field", ["metadata", "type", "schema_version"])
def test_every_hashed_field_is_watched(
    store: PostgresEventStore,
    conn: Connection[Any],
    superuser: Connection[Any],
    field: str,
) -> None:
    stream, _ = stream_of_four(store)
    value = {"metadata": '{"actor": "x"}', "type": "Forged", "schema_version": 9}[field]
    superuser.execute(
        f"UPDATE events SET {field} = %s WHERE stream_id = %s AND version = 3", (value, stream)
    )
    report = verify_chains(conn)
    assert report.first is not None and report.first.version == 3


def test_an_edit_with_a_recomputed_hash_breaks_the_link_to_the_next_event(
    store: PostgresEventStore, conn: Connection[Any], superuser: Connection[Any]
) -> None:
    stream, written = stream_of_four(store)
    forged = chain_hash(
        stream_id=stream,
        version=2,
        event_type="B",
        schema_version=1,
        data_json=canonical_json({"id": "forged"}),
        metadata_json=canonical_json({"actor": "t"}),
        previous_hash=written[0].hash,
    )
    superuser.execute(
        'UPDATE events SET data = \'{"id": "forged"}\', hash = %s'
        " WHERE stream_id = %s AND version = 2",
        (forged, stream),
    )
    [found] = verify_chains(conn).breaks
    assert (found.version, found.expected, found.found) == (3, forged, written[1].hash)
    assert found.problem == "previous_hash does not link to the previous event"


def test_reordered_events_are_found(
    store: PostgresEventStore, conn: Connection[Any], superuser: Connection[Any]
) -> None:
    stream, _ = stream_of_four(store)
    for old, new in ((2, 99), (3, 2), (99, 3)):  # swap versions 2 and 3
        superuser.execute(
            "UPDATE events SET version = %s WHERE stream_id = %s AND version = %s",
            (new, stream, old),
        )
    report = verify_chains(conn)
    assert report.first is not None and (report.first.stream_id, report.first.version) == (
        stream,
        2,
    )


def test_a_removed_event_is_found(
    store: PostgresEventStore, conn: Connection[Any], superuser: Connection[Any]
) -> None:
    stream, written = stream_of_four(store)
    superuser.execute("DELETE FROM events WHERE stream_id = %s AND version = 2", (stream,))
    [found] = verify_chains(conn).breaks
    assert (found.version, found.position, found.expected, found.found) == (
        3,
        written[2].position,
        "2",
        "3",
    )


def test_checkpoints_extend_each_other_and_match_an_independent_fold(
    store: PostgresEventStore, conn: Connection[Any]
) -> None:
    assert create_checkpoint(conn).position == 0  # an empty log: the genesis
    stream_of_four(store)
    first = create_checkpoint(conn)
    assert create_checkpoint(conn) == first  # nothing new, no new checkpoint
    stream_of_four(store)
    second = create_checkpoint(conn)
    assert (second.previous_position, second.event_count) == (first.position, 10)
    assert stored_checkpoints(conn) == [first, second]

    running = ZERO_HASH  # the fold as an auditor would write it, from the feed
    for event in store.read_all(0):
        at = (event.recorded_at - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
        text = f"{running} {event.position} {at} {event.hash}"
        running = hashlib.sha256(text.encode("ascii")).hexdigest()
    assert running == second.hash
    assert verify_checkpoints(conn).ok


def test_a_checkpoint_kept_elsewhere_still_verifies_after_the_log_grew(
    store: PostgresEventStore, conn: Connection[Any]
) -> None:
    stream_of_four(store)
    kept = create_checkpoint(conn)
    auditors_copy = Checkpoint(kept.position, kept.event_count, kept.hash)
    stream_of_four(store)
    create_checkpoint(conn)
    report = verify_checkpoints(conn, trusted=[auditors_copy])
    assert (report.ok, report.checkpoints, report.events) == (True, 2, 10)


def test_a_cut_off_stream_tail_passes_the_chains_but_not_the_checkpoints(
    store: PostgresEventStore, conn: Connection[Any], superuser: Connection[Any]
) -> None:
    stream, written = stream_of_four(store)
    checkpoint = create_checkpoint(conn)
    superuser.execute("DELETE FROM events WHERE stream_id = %s AND version = 4", (stream,))
    assert verify_chains(conn).ok  # the chain alone cannot tell
    [mismatch] = verify_checkpoints(conn).mismatches
    assert mismatch.position == checkpoint.position == written[-1].position


def test_a_changed_recorded_at_is_caught_by_the_checkpoints(
    store: PostgresEventStore, conn: Connection[Any], superuser: Connection[Any]
) -> None:
    stream, _ = stream_of_four(store)
    checkpoint = create_checkpoint(conn)
    superuser.execute(
        "UPDATE events SET recorded_at = recorded_at - interval '1 hour'"
        " WHERE stream_id = %s AND version = 1",
        (stream,),
    )
    assert verify_chains(conn).ok  # not part of the chain: the database sets it
    [mismatch] = verify_checkpoints(conn).mismatches
    assert mismatch.position == checkpoint.position


def test_a_rewritten_history_is_caught_by_an_auditors_checkpoint(
    store: PostgresEventStore, conn: Connection[Any], superuser: Connection[Any]
) -> None:
    """A forger who rewrites a stream's tail with fresh, consistent hashes and drops the
    stored checkpoints passes every chain; the auditor's copy of a checkpoint does not."""
    stream, written = stream_of_four(store)
    kept = create_checkpoint(conn)
    superuser.execute("DELETE FROM events WHERE stream_id = %s AND version >= 3", (stream,))
    superuser.execute("DELETE FROM log_checkpoints")
    store.append(stream, 2, events("C2", "D2"), {"actor": "t"})
    assert verify_chains(conn).ok
    assert verify_checkpoints(conn).ok  # nothing stored left to compare with
    report = verify_checkpoints(conn, trusted=[kept])
    assert [m.position for m in report.mismatches] == [written[-1].position]
