"""The webhook tasks on a real Celery worker (a subprocess) and a real Redis."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from casino.webhooks.subscriptions import create_subscription
from tests.integration.webhooks.conftest import WebhookWorkerFactory
from tests.integration.webhooks.receiver import Answer, Receiver, fail_for
from tests.integration.webhooks.scene import (
    DEADLINE,
    Fresh,
    Pool,
    expected,
    log,
    play,
    scalar,
    versions_by_stream,
    wait_until,
)
from workers.webhooks import fanout, send_due

pytestmark = pytest.mark.integration


def test_a_real_worker_fans_out_and_delivers_through_an_outage(
    fresh_casino: Fresh,
    start_webhook_worker: WebhookWorkerFactory,
    worker_queue: str,
    receiver: Callable[[Answer], Receiver],
) -> None:
    casino, pool = fresh_casino
    play(casino, rounds=2)
    start_webhook_worker()
    outage = receiver(fail_for(0.6))
    with pool.connection() as connection:
        made = create_subscription(connection, outage.url, from_position=0)
    outage.secret = made["secret"]
    want = expected(log(pool))
    report = fanout.apply_async(queue=worker_queue).get(timeout=DEADLINE)
    assert report["deliveries"] == len(want)

    def send() -> None:
        send_due.apply_async(kwargs={"max_seconds": 2}, queue=worker_queue).get(timeout=DEADLINE)

    wait_until(lambda: len(outage.accepted()) >= len(want), send)
    assert outage.forgeries == []
    assert len(outage.accepted()) == len(want)
    assert outage.by_stream() == versions_by_stream(want)
    assert any(not r.accepted for r in outage.requests)  # the outage was felt


def delivered_positions(pool: Pool, subscription_id: str) -> list[int]:
    with pool.connection() as connection:
        rows = connection.execute(
            "SELECT position FROM webhook_deliveries WHERE subscription_id = %s ORDER BY position",
            (subscription_id,),
        ).fetchall()
    return [row[0] for row in rows]


def test_a_worker_killed_mid_fanout_loses_and_doubles_nothing(
    fresh_casino: Fresh, start_webhook_worker: WebhookWorkerFactory, worker_queue: str
) -> None:
    casino, pool = fresh_casino
    play(casino, rounds=8)
    with pool.connection() as connection:
        made = [
            create_subscription(connection, "https://tables.example.com/", from_position=0)
            for _ in range(8)
        ]
    total = len(made) * len(log(pool))
    count = "SELECT count(*) FROM webhook_deliveries"
    first = start_webhook_worker()
    # One event per transaction: thousands of commits, so the kill lands mid-way.
    result = fanout.apply_async(kwargs={"batch_size": 1, "max_batches": 10**6}, queue=worker_queue)
    wait_until(lambda: scalar(pool, count) > 0)
    first.kill()  # no chance to finish a batch, acknowledge or clean up
    first.wait(10)
    at_kill = scalar(pool, count)
    assert 0 < at_kill < total, (at_kill, total)
    start_webhook_worker()  # the unacknowledged task is delivered to it again
    started = time.monotonic()
    result.get(timeout=DEADLINE)
    assert time.monotonic() - started < DEADLINE
    everything = [e.position for e in log(pool)]
    for subscription in made:
        assert delivered_positions(pool, subscription["id"]) == everything
    head = "SELECT min(last_position) FROM webhook_subscriptions"
    assert scalar(pool, head) == everything[-1]
