"""Redis down: the API still takes wagers and deals (commands need only Postgres), and
the workers catch up with everything logged meanwhile once Redis is back."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from celery import Celery
from celery.exceptions import TimeoutError as CeleryTimeout

from casino.api import create_app
from casino.app.actors import Role
from casino.bootstrap import bootstrap
from casino.config import Settings
from casino.embedded_redis import start_embedded_redis, stop_embedded_redis
from casino.webhooks.subscriptions import create_subscription
from tests.integration.webhooks.conftest import WebhookWorkerFactory
from tests.integration.webhooks.receiver import Answer, Receiver, always
from tests.integration.webhooks.scene import Fresh, expected, log, play, wait_until

pytestmark = pytest.mark.integration


@pytest.fixture
def redis_folder(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "private-redis"
    yield folder
    stop_embedded_redis(folder)


@pytest.fixture
def redis_url(redis_folder: Path) -> str:
    """A Redis of this test's own (overriding the shared one): it is going to be stopped."""
    return start_embedded_redis(redis_folder)


@pytest.fixture
def worker_queue() -> str:
    """This test's queue (overriding the shared fixture, which points the process-wide
    Celery app at the shared Redis)."""
    return f"casino-test-{secrets.token_hex(4)}"


def ask(client: Celery, task: str, queue: str, **kwargs: Any) -> None:
    """Send a task and wait for it; while the worker is still reconnecting, ask again."""
    with contextlib.suppress(CeleryTimeout):
        client.send_task(task, kwargs=kwargs, queue=queue).get(timeout=5)


def test_commands_go_on_without_redis_and_the_workers_catch_up(
    fresh_casino: Fresh,
    fresh_database_url: str,
    redis_url: str,
    redis_folder: Path,
    start_webhook_worker: WebhookWorkerFactory,
    worker_queue: str,
    receiver: Callable[[Answer], Receiver],
    tmp_path: Path,
) -> None:
    casino, pool = fresh_casino
    play(casino, tables=("T1",), rounds=1)
    hooks = receiver(always(200))
    with pool.connection() as connection:
        hooks.secret = create_subscription(connection, hooks.url, from_position=0)["secret"]
    start_webhook_worker()
    settings = Settings(fresh_database_url, redis_url, tmp_path, 4, worker_queue)
    services = bootstrap(settings, migrate=False)
    client = create_app(services).test_client()
    admin = {"Authorization": f"Bearer {services.keys.create(Role.ADMIN).secret}"}

    stop_embedded_redis(redis_folder)
    try:
        assert client.get("/readyz").status_code == 503
        opened = client.post("/v1/tables/T1/rounds", json={}, headers=admin)
        assert opened.status_code == 201, opened.json
        round_id = opened.json["round_id"]  # type: ignore[index]
        wager = {"seat": 1, "player_id": "ann", "main": 500, "doubles": 100}
        placed = client.post(f"/v1/rounds/{round_id}/wagers", json=wager, headers=admin)
        assert placed.status_code == 201, placed.json
        dealt = client.post(f"/v1/rounds/{round_id}/deal", json={}, headers=admin)
        assert dealt.status_code == 200, dealt.json
    finally:
        start_embedded_redis(redis_folder)  # the same folder: the same port
    wait_until(lambda: client.get("/readyz").status_code == 200)  # a probe reconnects

    want = expected(log(pool))
    assert any(e.data.get("round_id") == round_id for e in want)

    # A client of its own, so the process-wide Celery app keeps the shared broker.
    client = Celery("outage-test", broker=redis_url, backend=redis_url)

    def catch_up() -> None:
        ask(client, "workers.webhooks.fanout", worker_queue)
        ask(client, "workers.webhooks.send_due", worker_queue, max_seconds=2)

    wait_until(lambda: len(hooks.accepted()) >= len(want), catch_up)
    delivered = sorted({r.event["position"] for r in hooks.accepted()})
    assert delivered == [e.position for e in want]
    services.close()
