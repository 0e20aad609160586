"""The composition root: the one place that knows every concrete adapter.

Entry points (CLI, web app, workers) call ``bootstrap``; tests call it with their own
settings. Nothing here runs at import time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.service import Casino
from casino.app.upcasters import UPCASTERS
from casino.config import Settings
from casino.db.connection import create_pool
from casino.db.embedded import start_embedded
from casino.db.migrations import upgrade
from casino.eventstore.postgres import PostgresEventStore


def resolve_database_url(settings: Settings) -> str:
    """``DATABASE_URL``, or the embedded Postgres (started if need be) in the data folder."""
    if settings.database_url:
        return settings.database_url
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return start_embedded(settings.data_dir / "postgres")


@dataclass
class Services:
    settings: Settings
    database_url: str
    pool: ConnectionPool[Connection[Any]]
    store: PostgresEventStore
    casino: Casino

    def close(self) -> None:
        self.pool.close()


def bootstrap(settings: Settings | None = None, migrate: bool = True) -> Services:
    settings = settings or Settings.from_environment()
    url = resolve_database_url(settings)
    if migrate:
        upgrade(url)
    pool = create_pool(url, max_size=settings.pool_size, name="casino")
    store = PostgresEventStore(pool, upcasters=UPCASTERS)
    return Services(settings, url, pool, store, Casino(store, pool.connection))
