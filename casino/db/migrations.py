"""Numbered plain-SQL migrations (``sql/NNNN_name.sql``), applied in order.

Each migration runs in its own transaction together with its row in
``schema_migrations``, so it is applied entirely or not at all. Running ``upgrade``
again changes nothing. A session-independent advisory lock lets several processes
(web workers, Celery) start at once: the first applies, the others find nothing to do.
An applied migration's file must not change afterwards; ``upgrade`` refuses to run
when one has (its checksum is recorded), and ``status`` lists it as modified.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg import Connection

# The repository's sql/ folder: migrations ship beside the code, not inside the package.
# An installed copy (the Docker image) names its folder with CASINO_SQL_DIR.
SQL_DIR = Path(os.environ.get("CASINO_SQL_DIR") or Path(__file__).resolve().parents[2] / "sql")

_FILE_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_LOCK_KEY = 7310293372818011002  # serialises concurrent upgrades; reserved for this

_CREATE_TABLE = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    checksum   text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)
"""


class MigrationError(Exception):
    """The migrations on disk and in the database disagree."""


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class AppliedMigration:
    version: int
    name: str
    checksum: str
    applied_at: datetime


@dataclass(frozen=True, slots=True)
class MigrationStatus:
    applied: list[AppliedMigration]
    pending: list[Migration]
    modified: list[Migration]  # applied, but the file changed since


def discover(directory: Path = SQL_DIR) -> list[Migration]:
    """The migrations in ``directory``, by version; other files are refused, not skipped."""
    migrations: dict[int, Migration] = {}
    for path in sorted(directory.glob("*.sql")):
        match = _FILE_NAME.match(path.name)
        if match is None:
            raise MigrationError(f"{path.name}: migrations are named NNNN_lowercase_name.sql")
        version = int(match.group(1))
        if version in migrations:
            raise MigrationError(f"two migrations numbered {version:04d}")
        migrations[version] = Migration(version, match.group(2), path.read_text("utf-8"))
    return [migrations[version] for version in sorted(migrations)]


@contextmanager
def _connect(target: str | Connection[Any]) -> Iterator[Connection[Any]]:
    if isinstance(target, Connection):
        yield target
        return
    with psycopg.connect(target, autocommit=True) as conn:
        yield conn


def _applied(conn: Connection[Any]) -> dict[int, AppliedMigration]:
    exists = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return {}
    rows = conn.execute(
        "SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version"
    ).fetchall()
    return {row[0]: AppliedMigration(*row) for row in rows}


def _status(conn: Connection[Any], migrations: list[Migration]) -> MigrationStatus:
    applied = _applied(conn)
    pending = [m for m in migrations if m.version not in applied]
    modified = [
        m for m in migrations if m.version in applied and applied[m.version].checksum != m.checksum
    ]
    return MigrationStatus(list(applied.values()), pending, modified)


def status(target: str | Connection[Any], directory: Path = SQL_DIR) -> MigrationStatus:
    """Which migrations are applied, pending, or changed since they were applied."""
    with _connect(target) as conn:
        return _status(conn, discover(directory))


def upgrade(target: str | Connection[Any], directory: Path = SQL_DIR) -> list[Migration]:
    """Apply every pending migration in order; return those applied by this call.

    ``target`` is a URL or an autocommit connection.
    """
    migrations = discover(directory)
    applied_now: list[Migration] = []
    with _connect(target) as conn:
        if not conn.autocommit:
            raise MigrationError("upgrade needs an autocommit connection")
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            # Made only when missing: even CREATE TABLE IF NOT EXISTS needs the right to
            # create, which the service's own role (sql/0025) does not have, and it
            # runs this at start-up to find nothing pending.
            if conn.execute("SELECT to_regclass('schema_migrations')").fetchone() == (None,):
                conn.execute(_CREATE_TABLE)
        modified = _status(conn, migrations).modified
        if modified:
            names = ", ".join(f"{m.version:04d}_{m.name}" for m in modified)
            raise MigrationError(f"applied migrations changed on disk: {names}")
        for migration in migrations:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
                # Another process may have applied it while we waited for the lock.
                done = conn.execute(
                    "SELECT 1 FROM schema_migrations WHERE version = %s", (migration.version,)
                ).fetchone()
                if done:
                    continue
                with _owner_needed(conn, f"{migration.version:04d}_{migration.name}"):
                    conn.execute(migration.sql)
                    conn.execute(
                        "INSERT INTO schema_migrations (version, name, checksum)"
                        " VALUES (%s, %s, %s)",
                        (migration.version, migration.name, migration.checksum),
                    )
            applied_now.append(migration)
        if applied_now:
            _grant_service_role(conn)
    return applied_now


def _grant_service_role(conn: Connection[Any]) -> None:
    """Grant the service's role (sql/0025) the tables and sequences any migration of
    this run made, whichever role made them."""
    with conn.transaction(), _owner_needed(conn, "the service role's grants"):
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        found = conn.execute("SELECT to_regprocedure('grant_service_role()')").fetchone()
        if found != (None,):
            conn.execute("SELECT grant_service_role()")


@contextmanager
def _owner_needed(conn: Connection[Any], what: str) -> Iterator[None]:
    """A refusal for want of privilege, as a MigrationError that says who tried and
    who may."""
    try:
        yield
    except psycopg.errors.InsufficientPrivilege as error:
        hint = f" ({error.diag.message_hint})" if error.diag.message_hint else ""
        raise MigrationError(
            f"{what}: {error.diag.message_primary or error}{hint}; connected as"
            f" {conn.info.user}: run `casino db upgrade` as the role that owns the schema,"
            " not as the service's role (README.md, Database roles)"
        ) from error
