"""A real Celery worker (subprocess) on a real Redis and a database of the test's own.

Redis is ``REDIS_URL`` when set, otherwise the embedded one. Each worker consumes a
queue named for its test, so concurrent test sessions sharing a Redis never take each
other's tasks.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.integration.app.conftest import fresh_casino
from workers.app import app, use_broker

__all__ = ["fresh_casino"]


WorkerFactory = Callable[[], subprocess.Popen[bytes]]


@pytest.fixture
def worker_queue(redis_url: str) -> str:
    use_broker(redis_url)
    return f"casino-test-{secrets.token_hex(4)}"


@pytest.fixture
def worker_settings() -> dict[str, str]:
    """Extra environment for the workers (a test folder may override this fixture)."""
    return {}


@pytest.fixture
def start_worker(
    fresh_database_url: str,
    redis_url: str,
    worker_queue: str,
    worker_settings: dict[str, str],
    tmp_path: Path,
) -> Iterator[WorkerFactory]:
    """Start Celery workers on the test's database and queue; all are stopped at the end."""
    started: list[subprocess.Popen[bytes]] = []
    environment = dict(
        os.environ,
        DATABASE_URL=fresh_database_url,
        REDIS_URL=redis_url,
        CASINO_TASK_VISIBILITY_SECONDS="2",
        CASINO_TASK_RESTORE_SECONDS="1",
        **worker_settings,
    )

    def start() -> subprocess.Popen[bytes]:
        log = open(tmp_path / f"worker-{len(started)}.log", "wb")  # noqa: SIM115
        process = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "workers.app", "worker",
                "--pool", "solo", "--queues", worker_queue, "--loglevel", "INFO",
                "--hostname", f"{worker_queue}-{len(started)}@%h", "--without-gossip",
                "--without-mingle", "--without-heartbeat",
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
        app.control.purge()  # nothing of this test's queue outlives it
