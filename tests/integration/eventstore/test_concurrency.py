"""Invariants 2 and 4 under real concurrency: racers, many writers, idempotent retries."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.eventstore import (
    ConcurrencyError,
    IdempotencyConflict,
    IdempotencyRecord,
    IdempotentReplay,
    RecordedEvent,
)
from casino.eventstore.postgres import PostgresEventStore
from casino.eventstore.verify import verify_chains
from tests.integration.eventstore.helpers import events, new_stream

pytestmark = pytest.mark.integration

T = TypeVar("T")


def race(count: int, attempt: Callable[[int], T]) -> list[T | Exception]:
    """Run ``attempt(i)`` in ``count`` threads released at the same instant."""
    barrier = threading.Barrier(count)

    def run(i: int) -> T | Exception:
        barrier.wait(timeout=10)
        try:
            return attempt(i)
        except Exception as error:  # the outcome under test
            return error

    with ThreadPoolExecutor(count) as executor:
        return list(executor.map(run, range(count)))


def positions_drawn(pool: ConnectionPool[Connection[Any]]) -> int:
    with pool.connection() as conn:
        row = conn.execute(
            "SELECT coalesce(pg_sequence_last_value("
            "pg_get_serial_sequence('events', 'position')), 0)"
        ).fetchone()
    return int(row[0]) if row else 0


def test_racers_on_one_version_exactly_one_wins_and_losers_draw_no_position(
    pool: ConnectionPool[Connection[Any]], event_store: PostgresEventStore
) -> None:
    stream = new_stream()
    event_store.append(stream, 0, events("Opened"))
    before = positions_drawn(pool)

    outcomes = race(16, lambda i: event_store.append(stream, 1, events("A", "B", "C")))

    winners = [o for o in outcomes if isinstance(o, list)]
    losers = [o for o in outcomes if isinstance(o, ConcurrencyError)]
    assert (len(winners), len(losers)) == (1, 15), outcomes
    assert all((e.expected, e.actual) == (1, 4) for e in losers)
    assert event_store.read_stream(stream)[1:] == winners[0]
    assert [e.version for e in event_store.read_stream(stream)] == [1, 2, 3, 4]
    # The version check ran before the INSERT: only the winner's events drew positions.
    assert positions_drawn(pool) - before == 3


def test_racers_with_a_cold_cache_are_refused_the_same_way(
    pool: ConnectionPool[Connection[Any]], event_store: PostgresEventStore
) -> None:
    stream = new_stream()
    event_store.append(stream, 0, events("Opened"))
    stores = [PostgresEventStore(pool) for _ in range(8)]  # each reads the head itself

    outcomes = race(8, lambda i: stores[i].append(stream, 1, events("A")))

    assert sum(isinstance(o, list) for o in outcomes) == 1
    assert sum(isinstance(o, ConcurrencyError) for o in outcomes) == 7
    assert event_store.stream_version(stream) == 2


def test_many_writers_retrying_lose_and_duplicate_nothing(
    pool: ConnectionPool[Connection[Any]], event_store: PostgresEventStore
) -> None:
    """8 writers, 20 commands each, every command touching two shared streams in either
    order (as a round and a player account would): no deadlock, no gap, no loss."""
    table, cage = new_stream("table"), new_stream("cage")
    written: list[RecordedEvent] = []
    lock = threading.Lock()

    def writer(i: int) -> int:
        retries = 0
        for n in range(20):
            first, second = (table, cage) if (i + n) % 2 else (cage, table)
            while True:
                try:
                    with event_store.transaction() as uow:
                        uow.append(first, event_store.stream_version(first), events("Posted"))
                        uow.append(second, event_store.stream_version(second), events("Posted"))
                    break
                except ConcurrencyError:
                    retries += 1
            with lock:
                written.extend(uow.recorded)
        return retries

    outcomes = race(8, writer)

    assert all(isinstance(o, int) for o in outcomes), outcomes
    for stream in (table, cage):
        stored = event_store.read_stream(stream)
        assert [e.version for e in stored] == list(range(1, 161))
        assert sorted(e.position for e in stored) == [e.position for e in stored]
    stored_ids = [e.data["id"] for s in (table, cage) for e in event_store.read_stream(s)]
    assert sorted(stored_ids) == sorted(e.data["id"] for e in written)
    assert len(set(stored_ids)) == 320
    with pool.connection() as conn:
        assert verify_chains(conn, [table, cage]).ok


def test_idempotent_racers_one_wins_and_the_others_get_its_answer(
    event_store: PostgresEventStore,
) -> None:
    key = new_stream("key")
    streams = [new_stream() for _ in range(10)]

    def command(i: int) -> list[RecordedEvent]:
        record = IdempotencyRecord("wagers", key, "same-body", {"answered_by": i}, 201)
        return event_store.append(streams[i], 0, events("WagerPlaced"), idempotency=record)

    outcomes = race(10, command)

    winners = [i for i, o in enumerate(outcomes) if isinstance(o, list)]
    replays = [o for o in outcomes if isinstance(o, IdempotentReplay)]
    assert len(winners) == 1 and len(replays) == 9, outcomes
    assert all(r.record.response == {"answered_by": winners[0]} for r in replays)
    assert [event_store.stream_version(s) for s in streams].count(1) == 1


def test_racers_with_one_key_and_different_bodies_all_but_one_conflict(
    event_store: PostgresEventStore,
) -> None:
    key = new_stream("key")
    streams = [new_stream() for _ in range(6)]

    def command(i: int) -> list[RecordedEvent]:
        record = IdempotencyRecord("wagers", key, f"body-{i}", {"i": i}, 201)
        return event_store.append(streams[i], 0, events("WagerPlaced"), idempotency=record)

    outcomes = race(6, command)

    assert sum(isinstance(o, list) for o in outcomes) == 1
    assert sum(isinstance(o, IdempotencyConflict) for o in outcomes) == 5
