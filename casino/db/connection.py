"""Connection pools and database URLs."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from psycopg import Connection
from psycopg.conninfo import make_conninfo
from psycopg_pool import ConnectionPool


def create_pool(
    url: str,
    *,
    min_size: int = 1,
    max_size: int = 10,
    name: str | None = None,
    open: bool = True,
    timeout: float = 30.0,
) -> ConnectionPool[Connection[Any]]:
    """A pool of autocommit connections to ``url``.

    Autocommit, because every writer here opens its transaction explicitly (or runs a
    single statement, which is atomic on its own); nothing is left in an implicit
    transaction that idles in the pool holding locks.
    """
    pool: ConnectionPool[Connection[Any]] = ConnectionPool(
        url,
        min_size=min_size,
        max_size=max_size,
        name=name,
        open=open,
        timeout=timeout,
        kwargs={"autocommit": True},
    )
    if open:
        pool.wait(timeout)
    return pool


def with_database(url: str, dbname: str) -> str:
    """``url`` pointing at database ``dbname`` on the same server (URL or key=value form)."""
    parts = urlsplit(url)
    if parts.scheme in ("postgresql", "postgres"):
        return urlunsplit(parts._replace(path="/" + dbname))
    return make_conninfo(url, dbname=dbname)
