"""run_batch: a unit of work's statements in one exchange, on a real Postgres."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import Connection

from casino.eventstore import batch
from casino.eventstore.batch import run_batch

pytestmark = pytest.mark.integration

INSERT = "INSERT INTO batch_rows (id, n) VALUES ($1, $2)"
COUNT = "SELECT count(*), coalesce(sum(n), 0) FROM batch_rows WHERE id LIKE $1"


@pytest.fixture
def conn(database_url: str) -> Iterator[Connection[Any]]:
    with psycopg.connect(database_url, autocommit=True) as connection:
        connection.execute(
            "CREATE TABLE IF NOT EXISTS batch_rows (id text PRIMARY KEY, n bigint NOT NULL)"
        )
        yield connection


def prepared_count(conn: Connection[Any]) -> int:
    row = conn.execute(
        "SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'casino\\_%'"
    ).fetchone()
    assert row is not None
    return int(row[0])


def test_statements_run_in_order_in_one_transaction_and_answer_the_chosen_rows(
    conn: Connection[Any],
) -> None:
    tag = uuid.uuid4().hex
    rows = run_batch(
        conn,
        [
            ("BEGIN", ()),
            (INSERT, (f"{tag}-1", 5)),
            (INSERT, (f"{tag}-2", 2**40)),  # another integer size: the same statement
            (COUNT, (f"{tag}-%",)),
            ("COMMIT", ()),
        ],
        3,
    )
    assert rows == [(2, 5 + 2**40)]
    assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


def test_each_statement_is_prepared_once_per_connection(conn: Connection[Any]) -> None:
    for n in (1, 300, 70_000, 2**40):  # int2, int2, int4, int8: one shape
        run_batch(conn, [(INSERT, (uuid.uuid4().hex, n)), (COUNT, ("%",))], 1)
    assert prepared_count(conn) == 2


def test_the_first_error_is_raised_and_nothing_of_the_batch_stays(
    conn: Connection[Any],
) -> None:
    tag = uuid.uuid4().hex
    with pytest.raises(psycopg.errors.UniqueViolation):
        run_batch(
            conn,
            [
                ("BEGIN", ()),
                (INSERT, (f"{tag}-1", 1)),
                (INSERT, (f"{tag}-1", 2)),  # the same key again
                ("SELECT 1 / $1::integer", (0,)),  # behind the error: never run
                ("COMMIT", ()),
            ],
            3,
        )
    assert conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR
    conn.rollback()
    # The statement queued behind the error was never prepared: it runs now.
    with pytest.raises(psycopg.errors.DivisionByZero):
        run_batch(conn, [("SELECT 1 / $1::integer", (0,))], 0)
    assert run_batch(conn, [(COUNT, (f"{tag}-%",))], 0) == [(0, 0)]


def test_prepared_statements_dropped_behind_its_back_are_made_again(
    conn: Connection[Any],
) -> None:
    tag = uuid.uuid4().hex
    run_batch(conn, [("BEGIN", ()), (INSERT, (f"{tag}-1", 1)), ("COMMIT", ())], 1)
    conn.execute("DEALLOCATE ALL")  # as psycopg does on a connection that ran DDL
    statements = [("BEGIN", ()), (INSERT, (f"{tag}-2", 2)), (COUNT, (f"{tag}-%",)), ("COMMIT", ())]
    assert run_batch(conn, statements, 2) == [(2, 3)]
    assert prepared_count(conn) == 4


def test_beyond_the_limit_new_statements_run_unprepared(
    conn: Connection[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(batch, "MAX_PREPARED", 1)
    tag = uuid.uuid4().hex
    rows = run_batch(conn, [(INSERT, (f"{tag}-1", 7)), (COUNT, (f"{tag}-%",))], 1)
    assert rows == [(1, 7)]
    assert prepared_count(conn) == 1


def test_a_connection_cut_off_mid_batch_is_closed(conn: Connection[Any], database_url: str) -> None:
    with psycopg.connect(database_url, autocommit=True) as admin:
        with pytest.raises(psycopg.OperationalError):
            run_batch(
                conn,
                [
                    ("BEGIN", ()),
                    ("SELECT pg_terminate_backend(pg_backend_pid())", ()),
                    ("COMMIT", ()),
                ],
                1,
            )
        assert admin.execute("SELECT 1").fetchone() == (1,)
    assert conn.closed


def test_a_batch_interrupted_half_way_closes_its_connection(
    conn: Connection[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(pgconn: Any) -> Any:
        raise KeyboardInterrupt  # sent, not yet read back: the protocol is mid-way

    monkeypatch.setattr(batch, "_collect", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_batch(conn, [("BEGIN", ()), ("SELECT 1", ()), ("COMMIT", ())], 1)
    assert conn.closed  # so the pool replaces it
