"""Shared set-up of the benchmarks: a fresh, migrated database that is dropped afterwards."""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import psycopg
from psycopg import sql

from casino.db.connection import with_database
from casino.db.embedded import embedded_postgres
from casino.db.migrations import upgrade


@contextmanager
def fresh_database() -> Iterator[str]:
    """A new database on ``DATABASE_URL``'s server (or an embedded one), migrated."""
    with ExitStack() as stack:
        server = os.environ.get("DATABASE_URL")
        if not server:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="casino-bench-"))
            server = stack.enter_context(embedded_postgres(Path(folder) / "pgdata"))
        name = f"casino_bench_{secrets.token_hex(4)}"
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        try:
            url = with_database(server, name)
            upgrade(url)
            yield url
        finally:
            with psycopg.connect(server, autocommit=True) as admin:
                admin.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
                )
