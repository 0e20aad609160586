from __future__ import annotations

import time
from typing import Any

import pytest
from celery.result import AsyncResult
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.service import Casino
from casino.domain.tables import OpenTable
from casino.readmodels.rebuild import APPEND_LOCK
from tests.integration.app.conftest import ADMIN, play_rounds
from tests.integration.workers.conftest import WorkerFactory
from workers.tasks import reconcile

pytestmark = pytest.mark.integration

Fresh = tuple[Casino, ConnectionPool[Connection[Any]]]
DEADLINE = 60.0


def play(casino: Casino, rounds: int) -> None:
    casino.move_funds("ann", "EUR", 10**9, "", True, ADMIN)
    casino.open_table(OpenTable("T", "Worked", "EUR", 1, 1, 1, 100, 5_000, 100, 1_000), ADMIN)
    play_rounds(casino, "T", ["ann"], rounds)


def wait_for(result: AsyncResult, state: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while result.state != state:
        assert time.monotonic() < deadline, f"task still {result.state}, not {state}"
        time.sleep(0.05)


def completed_runs(pool: ConnectionPool[Connection[Any]], run_id: str) -> int:
    with pool.connection() as conn:
        row = conn.execute(
            "SELECT count(*) FROM events WHERE stream_id = %s AND type = 'ReconciliationCompleted'",
            (f"reconciliation-{run_id}",),
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_a_real_worker_reconciles_and_records_the_run(
    fresh_casino: Fresh, start_worker: WorkerFactory, worker_queue: str
) -> None:
    casino, pool = fresh_casino
    play(casino, 3)
    start_worker()
    result = reconcile.apply_async(queue=worker_queue)
    summary = result.get(timeout=DEADLINE)
    assert summary["clean"] is True
    assert {c["name"]: c["examined"] for c in summary["checks"]}["payouts"] == 3
    assert completed_runs(pool, result.id) == 1


def test_a_worker_killed_mid_task_is_replaced_and_the_run_is_recorded_once(
    fresh_casino: Fresh, start_worker: WorkerFactory, worker_queue: str
) -> None:
    casino, pool = fresh_casino
    play(casino, 40)
    # The test holds the log's append lock, so the run cannot record its outcome: it is
    # still running when the worker is killed, however fast it checks the log.
    with pool.connection() as holder:
        holder.execute("SELECT pg_advisory_lock(%s)", (APPEND_LOCK,))
        first = start_worker()
        result = reconcile.apply_async(queue=worker_queue)
        wait_for(result, "STARTED")
        first.kill()  # no chance to finish, acknowledge or clean up
        first.wait(10)
        holder.execute("SELECT pg_advisory_unlock(%s)", (APPEND_LOCK,))
    start_worker()
    summary = result.get(timeout=DEADLINE)
    assert summary["clean"] is True
    assert completed_runs(pool, result.id) == 1
