"""What the in-memory store adds to the shared contract (tests/integration/eventstore)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from casino.eventstore import ConcurrencyError, NewEvent
from casino.eventstore.memory import InMemoryEventStore


def test_read_model_statements_are_kept_only_when_committed() -> None:
    store = InMemoryEventStore()
    with store.transaction() as uow:
        uow.append("s", 0, [NewEvent("A", {})])
        uow.execute("INSERT INTO rm VALUES (%s)", (1,))
    with pytest.raises(ConcurrencyError), store.transaction() as uow:
        uow.execute("INSERT INTO rm VALUES (%s)", (2,))
        uow.append("s", 0, [NewEvent("B", {})])
    assert store.statements == [("INSERT INTO rm VALUES (%s)", (1,))]


def test_racing_threads_one_wins() -> None:
    store = InMemoryEventStore()
    barrier = threading.Barrier(8)

    def attempt(i: int) -> bool:
        barrier.wait(timeout=10)
        try:
            store.append("s", 0, [NewEvent("A", {"i": i})])
        except ConcurrencyError:
            return False
        return True

    with ThreadPoolExecutor(8) as executor:
        assert sorted(executor.map(attempt, range(8))) == [False] * 7 + [True]
    assert [e.position for e in store.read_all()] == [1]
