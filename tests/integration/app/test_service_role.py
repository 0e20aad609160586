"""The service's own database role (sql/0025_service_role.sql): a login role that is a
member of ``casino_service`` runs everything the API and the workers do, and cannot do
what would let it rewrite the log: change it, switch its guards off, or change the
schema."""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from casino.app.actors import Actor, Role
from casino.app.keys import KeyStore
from casino.app.service import Casino
from casino.db.connection import create_pool
from casino.db.migrations import SQL_DIR, MigrationError, discover, upgrade
from casino.domain.rounds import SeatWager
from casino.domain.tables import OpenTable
from casino.eventstore.postgres import PostgresEventStore
from casino.readmodels.rebuild import rebuild
from casino.reconcile.run import reconcile
from tests.integration.app.conftest import ADMIN, play_rounds
from tests.integration.conftest import DatabaseFactory

pytestmark = pytest.mark.integration


@dataclass(frozen=True)
class Database:
    owner_url: str  # as the migrations run: the server's superuser here
    service_url: str  # as the service runs: a login role in casino_service


@pytest.fixture
def database(server_url: str, make_database: DatabaseFactory) -> Iterator[Database]:
    """A migrated database of this test's own, and a new login role that is a member of
    casino_service and nothing else (with a password, for servers that ask for one)."""
    url = make_database()
    role, password = f"casino_test_service_{secrets.token_hex(4)}", secrets.token_hex(16)
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(
            sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE casino_service").format(
                sql.Identifier(role), sql.Literal(password)
            )
        )
    try:
        yield Database(url, make_conninfo(url, user=role, password=password))
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


@pytest.fixture
def service_url(database: Database) -> str:
    return database.service_url


def test_the_service_role_is_not_the_owner_nor_a_superuser(service_url: str) -> None:
    with psycopg.connect(service_url) as conn:
        row = conn.execute(
            "SELECT rolsuper, pg_has_role(current_user, 'casino_service', 'MEMBER'),"
            " pg_get_userbyid(c.relowner) = current_user FROM pg_roles r, pg_class c"
            " WHERE r.rolname = current_user AND c.oid = 'events'::regclass"
        ).fetchone()
    assert row == (False, True, False)


PRIVILEGES = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE")


def privileges(conn: psycopg.Connection[Any], table: str) -> set[str]:
    return {
        privilege
        for privilege in PRIVILEGES
        if conn.execute("SELECT has_table_privilege(%s, %s)", (table, privilege)).fetchone()
        == (True,)
    }


def test_the_service_role_may_read_every_table_and_write_all_but_the_log(
    service_url: str,
) -> None:
    with psycopg.connect(service_url) as conn:
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
            )
        ]
        granted = {table: privileges(conn, table) for table in tables}
    assert len(tables) >= 15
    assert granted.pop("events") == {"SELECT", "INSERT"}
    assert granted.pop("log_checkpoints") == {"SELECT", "INSERT"}
    assert granted.pop("schema_migrations") == {"SELECT"}
    assert granted == {table: {"SELECT", "INSERT", "UPDATE", "DELETE"} for table in granted}


def test_a_table_a_later_migration_makes_is_the_service_roles_to_use(
    database: Database, tmp_path: Path
) -> None:
    later = "CREATE TABLE later_read_model (id integer PRIMARY KEY);"
    directory = migrations_and(tmp_path, ("9998_later_read_model.sql", later))
    assert [m.name for m in upgrade(database.owner_url, directory)] == ["later_read_model"]
    with psycopg.connect(database.service_url) as conn:
        assert privileges(conn, "later_read_model") == {"SELECT", "INSERT", "UPDATE", "DELETE"}
        assert privileges(conn, "events") == {"SELECT", "INSERT"}


def migrations_and(folder: Path, *more: tuple[str, str]) -> Path:
    """``folder`` holding the project's migrations and ``more`` (name, SQL) after them."""
    for migration in SQL_DIR.glob("*.sql"):
        shutil.copy(migration, folder)
    for name, text in more:
        (folder / name).write_text(text)
    return folder


def test_the_service_role_runs_what_the_api_and_the_workers_do(service_url: str) -> None:
    pool = create_pool(service_url, min_size=1, max_size=4, name="service-role")
    try:
        store = PostgresEventStore(pool)
        casino = Casino(store, pool.connection)
        assert upgrade(service_url) == []  # start-up: finds nothing pending
        issued = KeyStore(pool.connection).create(Role.TABLE, ["T"], "dealer terminal")
        assert KeyStore(pool.connection).authenticate(issued.secret) is not None
        for player in ("alice", "bob"):
            casino.move_funds(player, "EUR", 100_000, "opening", True, ADMIN)
        casino.move_funds("alice", "EUR", 5_000, "cash-out", False, ADMIN)
        table = OpenTable("T", "Roles", "EUR", 4, 1, 1, 100, 5_000, 100, 1_000, None)
        casino.open_table(table, ADMIN)
        played = play_rounds(casino, "T", ["alice", "bob"], 3)
        key = Actor(Role.TABLE, "dealer", frozenset({"T"}))
        voided = casino.open_round("T", "", key).body["round_id"]
        casino.place_wagers(voided, [SeatWager(1, "alice", 300)], key)
        casino.void_round(voided, "power cut", key)
        reversed_round = casino.void_round(played[0], "misdeal", ADMIN).body
        assert reversed_round["status"] == "reversed"

        with pool.connection() as conn:
            assert rebuild(conn).equal  # temporary tables, a REPEATABLE READ snapshot
            outcome = reconcile(conn, store)  # every check, a checkpoint, its own events
        assert outcome.clean, [r for r in outcome.results if not r.ok]
        with pool.connection() as conn:
            (checkpoints,) = conn.execute("SELECT count(*) FROM log_checkpoints").fetchone() or (0,)
        assert checkpoints == 1
    finally:
        pool.close()


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET type = 'Rewritten'",
        "DELETE FROM events",
        "TRUNCATE events",
        "UPDATE log_checkpoints SET hash = hash",
        "DELETE FROM log_checkpoints",
        "ALTER TABLE events DISABLE TRIGGER events_refuse_update_delete",
        "ALTER TABLE events DISABLE TRIGGER ALL",
        "SET session_replication_role = replica",
        "DROP TABLE events",
        "CREATE OR REPLACE FUNCTION refuse_change_to_append_only_table() RETURNS trigger"
        " LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$",
        "INSERT INTO schema_migrations (version, name, checksum) VALUES (9999, 'x', 'x')",
        "DELETE FROM schema_migrations",
    ],
)
def test_the_service_role_cannot_rewrite_the_log_or_switch_its_guards_off(
    service_url: str, statement: str
) -> None:
    guards = (
        "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'events'::regclass"
        " AND NOT tgisinternal AND tgenabled = 'O'"
    )
    with psycopg.connect(service_url, autocommit=True) as conn:
        before = conn.execute(guards).fetchone()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(statement)
        assert conn.execute(guards).fetchone() == before != (0,)  # still guarded


def test_a_pending_migration_under_the_service_role_names_the_owner(
    service_url: str, tmp_path: Path
) -> None:
    directory = migrations_and(tmp_path, ("9999_one_more_table.sql", "CREATE TABLE one_more ();"))
    refusal = (
        r"^9999_one_more_table: permission denied for schema public; connected as"
        r" casino_test_service_\w+: run `casino db upgrade` as the role that owns the schema"
    )
    with pytest.raises(MigrationError, match=refusal):
        upgrade(service_url, directory)
    with psycopg.connect(service_url) as conn:
        assert conn.execute("SELECT to_regclass('one_more')").fetchone() == (None,)
        latest = max(m.version for m in discover())
        assert conn.execute("SELECT max(version) FROM schema_migrations").fetchone() == (latest,)
