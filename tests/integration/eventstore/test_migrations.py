"""casino.db.migrations against real, empty databases."""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest

from casino.db.migrations import SQL_DIR, MigrationError, discover, status, upgrade
from tests.integration.conftest import DatabaseFactory

pytestmark = pytest.mark.integration


def write(directory: Path, name: str, text: str) -> None:
    (directory / name).write_text(text, "utf-8")


def tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        return {row[0] for row in rows}


def test_the_project_migrations_apply_once(make_database: DatabaseFactory) -> None:
    url = make_database(migrated=False)
    assert [m.version for m in status(url).pending] == [m.version for m in discover()]
    applied = upgrade(url)
    assert [m.version for m in applied] == [m.version for m in discover(SQL_DIR)]
    assert {"events", "idempotency_keys", "log_checkpoints", "schema_migrations"} <= tables(url)
    assert upgrade(url) == []
    after = status(url)
    assert (after.pending, after.modified) == ([], [])
    assert [a.version for a in after.applied] == [m.version for m in applied]


def test_new_migrations_are_pending_until_applied_in_order(
    make_database: DatabaseFactory, tmp_path: Path
) -> None:
    url = make_database(migrated=False)
    write(tmp_path, "0001_first.sql", "CREATE TABLE first (id int);")
    upgrade(url, tmp_path)
    write(tmp_path, "0003_third.sql", "ALTER TABLE second ADD COLUMN note text;")
    write(tmp_path, "0002_second.sql", "CREATE TABLE second (id int);")
    assert [m.name for m in status(url, tmp_path).pending] == ["second", "third"]
    assert [m.name for m in upgrade(url, tmp_path)] == ["second", "third"]
    assert {"first", "second"} <= tables(url)


def test_a_failing_migration_leaves_nothing_of_itself(
    make_database: DatabaseFactory, tmp_path: Path
) -> None:
    url = make_database(migrated=False)
    write(tmp_path, "0001_good.sql", "CREATE TABLE good (id int);")
    write(tmp_path, "0002_bad.sql", "CREATE TABLE half (id int);\nCREATE TABLE broken (;")
    with pytest.raises(psycopg.errors.SyntaxError):
        upgrade(url, tmp_path)
    assert "good" in tables(url) and "half" not in tables(url)
    assert [m.name for m in status(url, tmp_path).pending] == ["bad"]


def test_an_applied_migration_must_not_change(
    make_database: DatabaseFactory, tmp_path: Path
) -> None:
    url = make_database(migrated=False)
    write(tmp_path, "0001_first.sql", "CREATE TABLE first (id int);")
    upgrade(url, tmp_path)
    write(tmp_path, "0001_first.sql", "CREATE TABLE first (id bigint);")
    assert [m.name for m in status(url, tmp_path).modified] == ["first"]
    with pytest.raises(MigrationError):
        upgrade(url, tmp_path)


def test_processes_starting_together_apply_each_migration_once(
    make_database: DatabaseFactory, tmp_path: Path
) -> None:
    url = make_database(migrated=False)
    for path in SQL_DIR.glob("*.sql"):
        shutil.copy(path, tmp_path)
    with ThreadPoolExecutor(4) as executor:
        results = list(executor.map(lambda _: upgrade(url, tmp_path), range(4)))
    applied = sorted(m.version for result in results for m in result)
    assert applied == [m.version for m in discover(tmp_path)]


@pytest.mark.parametrize("name", ["1_short.sql", "0001-dash.sql", "0001_Upper.sql"])
def test_badly_named_files_are_refused(tmp_path: Path, name: str) -> None:
    write(tmp_path, name, "SELECT 1;")
    with pytest.raises(MigrationError):
        discover(tmp_path)


def test_two_files_with_one_number_are_refused(tmp_path: Path) -> None:
    write(tmp_path, "0001_a.sql", "SELECT 1;")
    write(tmp_path, "0001_b.sql", "SELECT 1;")
    with pytest.raises(MigrationError):
        discover(tmp_path)
