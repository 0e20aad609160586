"""The composition root: the one place that knows every concrete adapter.

Entry points (CLI, web app, workers) call ``bootstrap``; tests call it with their own
settings. Nothing here runs at import time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.keys import KeyStore
from casino.app.service import Casino
from casino.app.stream_cache import StreamCache
from casino.app.upcasters import UPCASTERS
from casino.config import Settings
from casino.db.connection import create_pool
from casino.db.embedded import start_embedded
from casino.db.migrations import upgrade
from casino.embedded_redis import start_embedded_redis
from casino.eventstore.postgres import PostgresEventStore
from casino.jobs import Jobs


def resolve_redis_url(settings: Settings) -> str:
    """``REDIS_URL``, or the embedded Redis (started if need be) in the data folder."""
    if settings.redis_url:
        return settings.redis_url
    return start_embedded_redis(settings.data_dir / "redis")


def resolve_database_url(settings: Settings) -> str:
    """``DATABASE_URL``, or the embedded Postgres (started if need be) in the data folder."""
    if settings.database_url:
        return settings.database_url
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return start_embedded(settings.data_dir / "postgres")


@dataclass
class Database:
    """The log and its read models, without the rest of the stack (for CLI commands)."""

    url: str
    pool: ConnectionPool[Connection[Any]]
    store: PostgresEventStore

    def close(self) -> None:
        self.pool.close()


def open_database(
    settings: Settings | None = None, migrate: bool = True, pool_size: int | None = None
) -> Database:
    settings = settings or Settings.from_environment()
    url = resolve_database_url(settings)
    if migrate:
        upgrade(url)
    pool = create_pool(url, max_size=pool_size or settings.pool_size, name="casino")
    return Database(url, pool, PostgresEventStore(pool, upcasters=UPCASTERS))


@dataclass
class Services:
    settings: Settings
    database_url: str
    redis_url: str
    pool: ConnectionPool[Connection[Any]]
    store: PostgresEventStore
    casino: Casino
    keys: KeyStore
    jobs: Jobs

    def close(self) -> None:
        self.pool.close()


def bootstrap(settings: Settings | None = None, migrate: bool = True) -> Services:
    settings = settings or Settings.from_environment()
    database = open_database(settings, migrate)
    redis_url = resolve_redis_url(settings)
    return Services(
        settings=settings,
        database_url=database.url,
        redis_url=redis_url,
        pool=database.pool,
        store=database.store,
        casino=Casino(
            database.store,
            database.pool.connection,
            streams=StreamCache(settings.stream_cache_size),
        ),
        keys=KeyStore(database.pool.connection),
        jobs=Jobs(redis_url, settings.task_queue),
    )
