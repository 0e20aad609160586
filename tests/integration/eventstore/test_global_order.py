"""Invariant 3: a consumer reading "everything after P" never misses a later commit."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from casino.eventstore import RecordedEvent
from casino.eventstore.postgres import PostgresEventStore
from tests.integration.eventstore.helpers import (
    append_lock_waiters,
    events,
    new_stream,
    wait_until,
)

pytestmark = pytest.mark.integration


class Consumer:
    """Follows the global feed the way every consumer does: after the last position seen."""

    def __init__(self, store: PostgresEventStore) -> None:
        self.store = store
        last = store.read_all(0, limit=1_000_000)
        self.position = last[-1].position if last else 0
        self.seen: list[RecordedEvent] = []

    def poll(self) -> None:
        while batch := self.store.read_all(self.position, limit=500):
            self.seen.extend(batch)
            self.position = batch[-1].position


def test_a_slow_transaction_holding_a_position_is_not_overtaken(
    database_url: str, event_store: PostgresEventStore
) -> None:
    consumer = Consumer(event_store)
    slow_stream, fast_stream = new_stream("slow"), new_stream("fast")
    with psycopg.connect(database_url) as slow, ThreadPoolExecutor(1) as executor:
        # The slow command has drawn its position and not committed yet.
        [slow_event] = event_store.append(slow_stream, 0, events("Slow"), connection=slow)
        fast = executor.submit(event_store.append, fast_stream, 0, events("Fast"))
        wait_until(lambda: fast.done() or append_lock_waiters(database_url) > 0)

        consumer.poll()  # must not move past the slow event's position
        assert consumer.seen == []
        assert not fast.done(), "a faster append committed while an earlier one was open"

        slow.commit()
        [fast_event] = fast.result(timeout=10)

    consumer.poll()
    assert [e.stream_id for e in consumer.seen] == [slow_stream, fast_stream]
    assert slow_event.position < fast_event.position


def test_a_consumer_tailing_busy_writers_sees_every_event_once_in_order(
    event_store: PostgresEventStore,
) -> None:
    consumer = Consumer(event_store)
    streams = [new_stream() for _ in range(6)]
    done = threading.Event()

    def writer(stream: str) -> list[RecordedEvent]:
        written: list[RecordedEvent] = []
        for version in range(0, 60, 2):
            written += event_store.append(stream, version, events("A", "B"))
        return written

    def tail() -> None:
        while not done.is_set():
            consumer.poll()
        consumer.poll()

    with ThreadPoolExecutor(len(streams) + 1) as executor:
        tailing = executor.submit(tail)
        written = [e for w in executor.map(writer, streams) for e in w]
        done.set()
        tailing.result(timeout=30)

    seen = [(e.stream_id, e.version) for e in consumer.seen]
    assert sorted(seen) == sorted((e.stream_id, e.version) for e in written)
    positions = [e.position for e in consumer.seen]
    assert positions == sorted(set(positions))
