"""Fixtures for tests against a real Postgres (never a mock of one).

The server is ``DATABASE_URL`` when set, otherwise an embedded ``pgserver`` in a temporary
folder. Each test session (each pytest-xdist worker) migrates a template database of its
own, ``casino_test_<hex>``, and tests share a clone of it, separated by unique stream ids;
a test that changes what the whole log looks like (checkpoints, tampering) takes a fresh
clone of its own. Everything this session created is dropped at its end, so the suite
runs beside any data the server already holds.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import psycopg
import pytest
from psycopg import Connection, sql
from psycopg_pool import ConnectionPool

from casino.db.connection import create_pool, with_database
from casino.db.embedded import embedded_postgres
from casino.db.migrations import upgrade
from casino.embedded_redis import start_embedded_redis, stop_embedded_redis
from casino.eventstore.postgres import PostgresEventStore


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    """A Postgres server this session may create databases on (as a superuser).

    The embedded server's folder is not under pytest's temporary folders: run as root,
    pgserver runs Postgres as another user and opens the folders above its data for
    it, and a concurrent pytest session closes /tmp/pytest-of-<user> again.
    """
    url = os.environ.get("DATABASE_URL")
    if url:
        yield url
        return
    with (
        tempfile.TemporaryDirectory(prefix="casino-test-pg-") as folder,
        embedded_postgres(Path(folder) / "data") as url,
    ):
        yield url


def _admin(server_url: str, statement: sql.Composed) -> None:
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(statement)


class DatabaseFactory(Protocol):
    def __call__(self, *, migrated: bool = True) -> str:
        """The URL of a new database, migrated or empty."""
        ...


@pytest.fixture(scope="session")
def make_database(server_url: str) -> Iterator[DatabaseFactory]:
    """A factory of fresh databases; each is dropped when the session ends."""
    session = secrets.token_hex(4)
    template = f"casino_test_{session}_template"
    _admin(server_url, sql.SQL("CREATE DATABASE {}").format(sql.Identifier(template)))
    created = [template]
    upgrade(with_database(server_url, template))

    def make(*, migrated: bool = True) -> str:
        name = f"casino_test_{session}_{len(created)}"
        statement = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if migrated:  # a copy of the migrated template: much faster than migrating
            statement += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
        _admin(server_url, statement)
        created.append(name)
        return with_database(server_url, name)

    yield make
    for name in reversed(created):
        _admin(
            server_url,
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)),
        )


@pytest.fixture(scope="session")
def database_url(make_database: DatabaseFactory) -> str:
    """The session's migrated database, shared by tests (use unique stream ids)."""
    return make_database()


@pytest.fixture(scope="session")
def pool(database_url: str) -> Iterator[ConnectionPool[Connection[Any]]]:
    pool = create_pool(database_url, min_size=2, max_size=24, name="tests")
    yield pool
    pool.close()


@pytest.fixture
def event_store(pool: ConnectionPool[Connection[Any]]) -> PostgresEventStore:
    return PostgresEventStore(pool)


@pytest.fixture
def fresh_database_url(make_database: DatabaseFactory) -> str:
    """A migrated database of this test's own, for tests about the whole log."""
    return make_database()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``REDIS_URL``, or one embedded Redis for the whole session (one, so that every
    Celery client in the process talks to the same broker)."""
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    folder = tmp_path_factory.mktemp("redis")
    yield start_embedded_redis(Path(folder))
    stop_embedded_redis(Path(folder))
