"""Fixtures: the workers' (Redis, a per-test queue, a database of the test's own), a
Celery worker that also runs the webhook tasks, and loopback receivers."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.integration.webhooks.receiver import Answer, Receiver
from tests.integration.workers.conftest import fresh_casino, worker_queue
from workers.app import app

__all__ = ["fresh_casino", "worker_queue"]

# Retries in tenths of a second, so outages and dead letters fit in a test.
FAST_RETRIES = {
    "CASINO_WEBHOOK_BACKOFF_SECONDS": "0.05",
    "CASINO_WEBHOOK_BACKOFF_CAP_SECONDS": "0.4",
    "CASINO_WEBHOOK_MAX_ATTEMPTS": "50",
    "CASINO_WEBHOOK_TIMEOUT_SECONDS": "5",
    "CASINO_WEBHOOK_JITTER": "0",
}

WebhookWorkerFactory = Callable[[], subprocess.Popen[bytes]]


@pytest.fixture
def start_webhook_worker(
    fresh_database_url: str, redis_url: str, worker_queue: str, tmp_path: Path
) -> Iterator[WebhookWorkerFactory]:
    """Like the workers' ``start_worker``, with the webhook tasks included (``-I``) until
    workers/app.py includes them, and fast retries."""
    started: list[subprocess.Popen[bytes]] = []
    environment = dict(
        os.environ,
        DATABASE_URL=fresh_database_url,
        REDIS_URL=redis_url,
        CASINO_TASK_VISIBILITY_SECONDS="2",
        CASINO_TASK_RESTORE_SECONDS="1",
        **FAST_RETRIES,
    )

    def start() -> subprocess.Popen[bytes]:
        log = open(tmp_path / f"webhook-worker-{len(started)}.log", "wb")  # noqa: SIM115
        process = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "workers.app", "worker",
                "--include", "workers.webhooks", "--pool", "solo", "--queues", worker_queue,
                "--loglevel", "INFO", "--hostname", f"{worker_queue}-{len(started)}@%h",
                "--without-gossip", "--without-mingle", "--without-heartbeat",
            ],
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.terminate()
    for process in started:
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
    if app.conf.broker_url:
        app.control.purge()


@pytest.fixture
def receiver() -> Iterator[Callable[[Answer], Receiver]]:
    """Start loopback receivers answering as told; all stop at the end of the test."""
    with ExitStack() as running:
        yield lambda answer: running.enter_context(Receiver(answer).running())
