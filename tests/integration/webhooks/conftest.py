"""Fixtures: the workers' (Redis, a per-test queue, a database of the test's own), a
Celery worker that also runs the webhook tasks, and loopback receivers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack

import pytest

from tests.integration.webhooks.receiver import Answer, Receiver
from tests.integration.workers.conftest import (
    WorkerFactory,
    fresh_casino,
    start_worker,
    worker_queue,
)

__all__ = ["fresh_casino", "start_worker", "worker_queue"]

# Retries in tenths of a second, so outages and dead letters fit in a test.
FAST_RETRIES = {
    "CASINO_WEBHOOK_BACKOFF_SECONDS": "0.05",
    "CASINO_WEBHOOK_BACKOFF_CAP_SECONDS": "0.4",
    "CASINO_WEBHOOK_MAX_ATTEMPTS": "50",
    "CASINO_WEBHOOK_TIMEOUT_SECONDS": "5",
    "CASINO_WEBHOOK_JITTER": "0",
}

WebhookWorkerFactory = WorkerFactory


@pytest.fixture
def worker_settings() -> dict[str, str]:
    return FAST_RETRIES


@pytest.fixture
def start_webhook_worker(start_worker: WorkerFactory) -> WorkerFactory:
    """The workers' ``start_worker``, with fast webhook retries."""
    return start_worker


@pytest.fixture
def receiver() -> Iterator[Callable[[Answer], Receiver]]:
    """Start loopback receivers answering as told; all stop at the end of the test."""
    with ExitStack() as running:
        yield lambda answer: running.enter_context(Receiver(answer).running())
