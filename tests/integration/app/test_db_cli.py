"""``casino db upgrade``, ``status`` and ``rebuild`` as an operator runs them: on a
database of the test's own (``DATABASE_URL``), their printed lines and exit codes."""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino.app.service import Casino
from casino.cli.main import main
from casino.db.migrations import SQL_DIR, discover
from casino.domain.tables import OpenTable
from tests.integration.app.conftest import ADMIN, play_rounds
from tests.integration.conftest import DatabaseFactory

pytestmark = pytest.mark.integration


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    """The exit code and the printed lines of ``casino db ARGV``."""
    try:
        status = main(["db", *argv])
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    return status, capsys.readouterr().out.splitlines()


def names() -> list[str]:
    """Every migration's name, in the order of its number: the files in sql/."""
    found = [f"{m.version:04d}_{m.name}" for m in discover()]
    assert found == sorted(path.stem for path in SQL_DIR.glob("*.sql"))
    return found


def test_upgrade_applies_every_migration_in_order_once_and_status_lists_them(
    make_database: DatabaseFactory,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DATABASE_URL", make_database(migrated=False))
    migrations = names()
    assert migrations[0] == "0001_event_log"

    status, lines = run(capsys, "status")
    assert status == 0
    assert lines == [f"pending  {name}" for name in migrations]

    status, lines = run(capsys, "upgrade")
    assert status == 0
    assert lines == [f"applied {name}" for name in migrations]

    status, lines = run(capsys, "upgrade")  # again: nothing left to do
    assert (status, lines) == (0, ["up to date"])

    status, lines = run(capsys, "status")
    assert status == 0
    assert [line.split()[:2] for line in lines] == [["applied", name] for name in migrations]


def test_status_names_a_migration_changed_since_it_was_applied(
    make_database: DatabaseFactory,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = make_database()
    monkeypatch.setenv("DATABASE_URL", url)
    first = names()[0]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1")

    status, lines = run(capsys, "status")
    assert status == 1
    assert f"MODIFIED {first} (changed since it was applied)" in lines


def test_rebuild_reports_equal_read_models_then_a_drifted_one_then_repairs_it(
    fresh_casino: tuple[Casino, ConnectionPool[Connection[Any]]],
    fresh_database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    casino, pool = fresh_casino
    monkeypatch.setenv("DATABASE_URL", fresh_database_url)
    for player in ("alice", "bob"):
        casino.move_funds(player, "EUR", 100_000, "opening", True, ADMIN)
    casino.open_table(OpenTable("T", "CLI", "EUR", 4, 1, 1, 100, 5_000, 100, 1_000, None), ADMIN)
    play_rounds(casino, "T", ["alice", "bob"], 2)
    with pool.connection() as conn:
        (events,) = conn.execute("SELECT count(*) FROM events").fetchone() or (0,)

    status, lines = run(capsys, "rebuild", "--json")
    report = json.loads(lines[0])
    assert status == 0
    assert (report["events"], report["equal"], report["replaced"]) == (events, True, False)
    balances = next(t for t in report["tables"] if t["table"] == "rm_balances")
    assert balances == {
        "table": "rm_balances", "live_rows": 2, "rebuilt_rows": 2,
        "differing_rows": 0, "equal": True,
    }  # fmt: skip

    with pool.connection() as conn:
        conn.execute("UPDATE rm_balances SET balance = balance + 1 WHERE player_id = 'bob'")
    status, lines = run(capsys, "rebuild")
    assert status == 1
    assert lines[0] == f"replayed {events} events"
    differing = [line.split()[0] for line in lines[1:] if "DIFFERS" in line]
    assert differing == ["rm_balances"]
    assert any(line.split()[0] == "rm_balances" and "DIFFERS (2 rows)" in line for line in lines)

    status, lines = run(capsys, "rebuild", "--replace")
    assert status == 0
    assert lines[-1].startswith("the rebuilt read models are now live")
    status, lines = run(capsys, "rebuild")
    assert status == 0
    assert all(line.endswith("equal") for line in lines[1:])
