"""The service under gunicorn, over real HTTP, on a database of this session's own.

Postgres comes from tests/integration/conftest.py (``DATABASE_URL``, or an embedded
server); Redis is ``REDIS_URL`` when set, otherwise an embedded one. Each session
(each xdist worker) starts its own gunicorn on a free loopback port and waits for
/readyz to answer 200, watching the process so a server that dies fails at once.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import requests

from casino.app.actors import Role
from casino.app.keys import KeyStore
from casino.embedded_redis import start_embedded_redis, stop_embedded_redis
from tests.e2e.client import Client, Keys, Server
from tests.integration.conftest import make_database, server_url

__all__ = ["make_database", "server_url"]  # fixtures shared with the integration tests

REPOSITORY = Path(__file__).resolve().parents[2]
START_DEADLINE = 60.0  # seconds for gunicorn to import, migrate and answer /readyz


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    folder = tmp_path_factory.mktemp("redis")
    yield start_embedded_redis(folder)
    stop_embedded_redis(folder)


def _wait_until_ready(base_url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_DEADLINE
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{base_url}/readyz", timeout=2).status_code == 200:
                return
        except requests.RequestException:  # not listening yet, or no worker booted yet
            pass
        try:  # waits a little between polls, and notices a server that died
            process.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            continue
        pytest.fail(f"gunicorn exited with {process.returncode}:\n{log.read_text()}")
    process.kill()
    pytest.fail(f"gunicorn was not ready within {START_DEADLINE}s:\n{log.read_text()}")


@pytest.fixture(scope="session")
def server(
    make_database: object, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    database_url = make_database()  # type: ignore[operator]
    task_queue = f"casino-e2e-{secrets.token_hex(4)}"  # sessions sharing a Redis stay apart
    folder = tmp_path_factory.mktemp("api")
    log = folder / "gunicorn.log"
    metrics = folder / "metrics"
    metrics.mkdir()
    base_url = f"http://127.0.0.1:{_free_port()}"
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CASINO_DATA_DIR": str(folder),
        "CASINO_DB_POOL_SIZE": "8",
        "CASINO_TASK_QUEUE": task_queue,
        # Both workers write their metrics here, so /metrics counts the whole server.
        "PROMETHEUS_MULTIPROC_DIR": str(metrics),
    }
    command = [
        sys.executable, "-m", "gunicorn", "casino.api.wsgi:app",
        "--config", "python:casino.api.gunicorn_config",
        "--bind", base_url.removeprefix("http://"), "--workers", "2",
        "--access-logfile", "-", "--error-logfile", "-", "--log-level", "info",
    ]  # fmt: skip
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, cwd=REPOSITORY, env=env, stdout=output, stderr=subprocess.STDOUT
        )
    try:
        _wait_until_ready(base_url, process, log)
        yield Server(base_url, database_url, log, redis_url, task_queue)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def keys(server: Server) -> Keys:
    """An admin and an auditor key, made the way the CLI makes the first admin key."""
    store = KeyStore(lambda: psycopg.connect(server.database_url, autocommit=True))
    return Keys(
        admin=store.create(Role.ADMIN, label="e2e admin").secret,
        auditor=store.create(Role.AUDITOR, label="e2e auditor").secret,
    )


@pytest.fixture
def api(server: Server) -> Iterator[Client]:
    with requests.Session() as session:
        yield Client(server.base_url, session)


@pytest.fixture
def worker(server: Server, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A real Celery worker on the server's database and queue."""
    environment = dict(
        os.environ,
        DATABASE_URL=server.database_url,
        REDIS_URL=server.redis_url,
        CASINO_TASK_QUEUE=server.task_queue,
    )
    log = (tmp_path / "worker.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "workers.app", "worker", "--pool", "solo",
         "--without-gossip", "--without-mingle", "--without-heartbeat"],
        env=environment, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    yield process
    process.terminate()
    process.wait(15)
    log.close()
