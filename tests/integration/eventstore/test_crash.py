"""A crash mid-transaction leaves nothing half-written (invariant 2, invariant 8)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from casino.eventstore import IdempotencyRecord
from casino.eventstore.postgres import PostgresEventStore
from tests.integration.eventstore.helpers import (
    append_lock_waiters,
    events,
    new_stream,
    wait_until,
)

pytestmark = pytest.mark.integration

WAITING_BACKEND = """
SELECT pid FROM pg_locks
 WHERE locktype = 'advisory' AND NOT granted
   AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
"""


def kill(url: str, pid: int) -> None:
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))


def assert_nothing_written(store: PostgresEventStore, streams: list[str], key: str) -> None:
    assert [store.stream_version(s) for s in streams] == [0] * len(streams)
    assert store.find_idempotent("deals", key) is None
    # and the streams are usable: no lock, version or key was left behind
    for stream in streams:
        store.append(stream, 0, events("Retried"))


@pytest.mark.parametrize("crash", ["backend killed", "client gone"])
def test_a_unit_of_work_cut_off_before_commit_writes_nothing(
    database_url: str, event_store: PostgresEventStore, crash: str
) -> None:
    round_id, player, key = new_stream("round"), new_stream("player"), new_stream("key")
    conn = psycopg.connect(database_url)
    try:
        with event_store.transaction(connection=conn) as uow:
            uow.append(round_id, 0, events("Dealt", "Settled"))
            uow.append(player, 0, events("Paid"))
            uow.save_idempotency(IdempotencyRecord("deals", key, "f", {"ok": True}, 200))
        assert len(uow.recorded) == 3  # inserted, holding the append lock, not committed
        if crash == "backend killed":
            kill(database_url, conn.info.backend_pid)
            with pytest.raises(psycopg.OperationalError):
                conn.commit()
        else:
            conn.close()
    finally:
        conn.close()
    assert_nothing_written(event_store, [round_id, player], key)


def test_a_commit_killed_while_waiting_for_the_append_lock_writes_nothing(
    database_url: str, event_store: PostgresEventStore
) -> None:
    blocker_stream, stream, key = new_stream(), new_stream(), new_stream("key")
    record = IdempotencyRecord("deals", key, "f", {"ok": True}, 200)
    with psycopg.connect(database_url) as blocker, ThreadPoolExecutor(1) as executor:
        event_store.append(blocker_stream, 0, events("Holds"), connection=blocker)
        victim = executor.submit(event_store.append, stream, 0, events("A"), idempotency=record)
        wait_until(lambda: append_lock_waiters(database_url) > 0)
        with psycopg.connect(database_url, autocommit=True) as admin:
            row = admin.execute(WAITING_BACKEND).fetchone()
        assert row is not None
        kill(database_url, row[0])
        with pytest.raises(psycopg.OperationalError):
            victim.result(timeout=10)
        blocker.rollback()
    assert_nothing_written(event_store, [stream, blocker_stream], key)
