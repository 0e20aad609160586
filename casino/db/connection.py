"""Connection pools and database URLs."""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import Connection
from psycopg.conninfo import make_conninfo
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool

logger = logging.getLogger(__name__)


class Pool(ConnectionPool[Connection[Any]]):
    """psycopg's pool, with two changes to lending a connection (``connection()``).

    A connection on which a prepared statement was refused because a schema change
    altered its result type (0A000, "cached plan must not change result type") has its
    prepared statements dropped before it goes back to the pool. psycopg prepares any
    query run five times, and Postgres refuses such a statement for as long as the
    connection lives: without this, a migration like 0021 would fail every pooled
    connection's reads of the changed columns until the connection is replaced. The
    request that met the refusal still fails; the event store's own reads run again
    (casino/eventstore/postgres.py).

    And the loan is a plain object, not psycopg's two nested generator-based context
    managers (the pool's and the connection's own): every command borrows a connection,
    and those cost more than the rest of the loan. What happens is the same: a
    transaction left open is committed, or rolled back after an error, before the
    connection goes back; the pool keeps no usage time (nothing here reads its stats).
    """

    def connection(self, timeout: float | None = None) -> _Loan:  # type: ignore[override]
        return _Loan(self, timeout)


class _Loan:
    """A connection of ``pool`` for the length of a ``with`` block."""

    __slots__ = ("_conn", "_pool", "_timeout")

    def __init__(self, pool: Pool, timeout: float | None) -> None:
        self._pool = pool
        self._timeout = timeout

    def __enter__(self) -> Connection[Any]:
        self._conn = self._pool.getconn(self._timeout)
        return self._conn

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        conn = self._conn
        try:
            if conn.closed:
                pass
            elif kind is None:
                # (the status as libpq has it: conn.info would build an object for it)
                if conn.pgconn.transaction_status != TransactionStatus.IDLE:
                    conn.commit()
            else:
                # The block's own error is what the caller must see: a failing rollback
                # (the server gone, say) is logged, and the pool replaces a broken
                # connection, as psycopg's own loan does.
                try:
                    if conn.info.transaction_status != TransactionStatus.IDLE:
                        conn.rollback()
                    if issubclass(kind, psycopg.errors.FeatureNotSupported):
                        drop_prepared_statements(conn)
                except psycopg.Error as failure:
                    logger.warning("error ignored in rollback of a pooled connection: %s", failure)
        finally:
            self._pool.putconn(conn)


def drop_prepared_statements(conn: Connection[Any]) -> bool:
    """Drop every prepared statement of ``conn`` (DEALLOCATE ALL, by which psycopg forgets
    its own too) when it is outside a transaction; whether it was. In a transaction, the
    rollback that must come drops them: psycopg forgets its prepared statements on
    ROLLBACK."""
    if conn.closed or conn.info.transaction_status != TransactionStatus.IDLE:
        return False
    conn.execute("DEALLOCATE ALL")
    return True


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
    pool = Pool(
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
