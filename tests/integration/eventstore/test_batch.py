"""run_batch: a unit of work's statements in one exchange, on a real Postgres."""

from __future__ import annotations

import gc
import threading
import uuid
import weakref
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import psycopg
import pytest
from psycopg import Connection

from casino.db.connection import create_pool
from casino.eventstore import NewEvent, batch
from casino.eventstore.batch import run_batch
from casino.eventstore.postgres import PostgresEventStore
from casino.eventstore.unit_of_work import PlanEachRun

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
    assert rows() == [(2, 5 + 2**40)]
    assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


def test_each_statement_is_prepared_once_per_connection_on_its_second_run(
    conn: Connection[Any],
) -> None:
    run_batch(conn, [(INSERT, (uuid.uuid4().hex, 1))], 0)
    assert prepared_count(conn) == 0  # run once: a shape that may never come again
    for n in (300, 70_000, 80_000, 2**40, 2**41):  # int2, int4, int8 twice: one shape
        run_batch(conn, [(INSERT, (uuid.uuid4().hex, n)), (COUNT, ("%",))], 1)
    assert prepared_count(conn) == 2


def good_batch(tag: str, n: int) -> list[tuple[str, tuple[Any, ...]]]:
    return [("BEGIN", ()), (INSERT, (f"{tag}-{n}", n)), ("COMMIT", ())]


def test_a_failed_batch_is_rolled_back_here_and_keeps_the_prepared_statements(
    conn: Connection[Any],
) -> None:
    tag = uuid.uuid4().hex
    conn.execute("SELECT 1", prepare=True)  # psycopg's own prepared statement, beside
    run_batch(conn, good_batch(tag, 1), 1)
    run_batch(conn, good_batch(tag, 2), 1)
    assert prepared_count(conn) == 3
    with pytest.raises(psycopg.errors.UniqueViolation):
        run_batch(
            conn,
            [
                ("BEGIN", ()),
                (INSERT, (f"{tag}-3", 3)),
                (INSERT, (f"{tag}-1", 1)),  # taken: the batch fails here
                ("SELECT 1 / $1::integer", (0,)),  # behind the error: never run
                ("COMMIT", ()),
            ],
            3,
        )
    assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    assert run_batch(conn, [(COUNT, (f"{tag}-%",))], 0)() == [(2, 3)]  # no row of it
    # Rolled back without psycopg's rollback(), which would have dropped them all.
    assert prepared_count(conn) == 3


def test_prepared_statements_dropped_behind_its_back_are_made_again(
    conn: Connection[Any],
) -> None:
    tag = uuid.uuid4().hex
    run_batch(conn, good_batch(tag, 1), 1)
    run_batch(conn, good_batch(tag, 2), 1)
    conn.execute("DEALLOCATE ALL")  # as psycopg does on a connection that ran DDL
    run_batch(conn, good_batch(tag, 3), 1)
    assert run_batch(conn, [(COUNT, (f"{tag}-%",))], 0)() == [(3, 6)]
    assert prepared_count(conn) == 3


def test_a_stale_prepared_statement_is_replaced_not_leaked(conn: Connection[Any]) -> None:
    table = f"batch_{uuid.uuid4().hex[:12]}"
    conn.execute(f"CREATE TABLE {table} (a integer)")
    conn.execute(f"INSERT INTO {table} VALUES (1)")
    select = f"SELECT * FROM {table}"
    run_batch(conn, [(select, ())], 0)
    assert run_batch(conn, [(select, ())], 0)() == [(1,)]
    assert prepared_count(conn) == 1
    conn.execute(f"ALTER TABLE {table} ADD COLUMN b integer DEFAULT 2")
    # The prepared plan's result type changed (0A000): deallocated, prepared anew.
    assert run_batch(conn, [(select, ())], 0)() == [(1, 2)]
    assert prepared_count(conn) == 1


def test_rows_are_parsed_when_loaded_in_the_zone_of_the_batch(conn: Connection[Any]) -> None:
    # Loading is left to the caller, who may do it after the connection has gone on to
    # other work, even on another thread: the rows still read as they were answered,
    # a timestamp in the session's zone of the time of the batch.
    conn.execute("SET TIME ZONE 'Europe/Paris'")
    rows = run_batch(conn, [("SELECT 7, '2026-01-01 12:00+00'::timestamptz", ())], 0)
    conn.execute("SET TIME ZONE 'UTC'")
    assert run_batch(conn, [("SELECT 8 WHERE false", ())], 0)() == []
    loaded: list[tuple[Any, ...]] = []
    loader = threading.Thread(target=lambda: loaded.extend(rows()))
    loader.start()
    loader.join()
    paris = ZoneInfo("Europe/Paris")
    assert loaded == [(7, datetime(2026, 1, 1, 13, 0, tzinfo=paris))]
    assert loaded[0][1].tzinfo == paris
    assert run_batch(conn, [("SET TIME ZONE 'UTC'", ())], 0)() == []  # no rows at all


def test_text_is_written_in_the_client_encoding_whatever_it_was_before(
    conn: Connection[Any],
) -> None:
    # Parameters are adapted by a transformer kept per connection while the client
    # encoding is UTF8; in another encoding, text must still reach the server intact.
    tag = uuid.uuid4().hex
    run_batch(conn, [(INSERT, (f"{tag}-\u00e9t\u00e9", 1))], 0)
    conn.execute("SET client_encoding TO 'LATIN1'")
    run_batch(conn, [(INSERT, (f"{tag}-\u00e0 la", 2))], 0)
    conn.execute("SET client_encoding TO 'UTF8'")
    run_batch(conn, [(INSERT, (f"{tag}-na\u00efve", 3))], 0)
    rows = conn.execute(
        "SELECT id, octet_length(id) FROM batch_rows WHERE id LIKE %s ORDER BY n", (f"{tag}-%",)
    ).fetchall()
    ids = [f"{tag}-\u00e9t\u00e9", f"{tag}-\u00e0 la", f"{tag}-na\u00efve"]
    assert rows == [(id_, len(id_.encode())) for id_ in ids]


def test_parameters_that_need_the_connection_are_adapted_by_it(conn: Connection[Any]) -> None:
    # bytes are escaped as the connection says: the transformer kept for plain
    # parameters (made without the connection) must not be the one that writes them.
    run_batch(conn, [("SELECT $1::text, $2", ("plain", 1))], 0)  # the kept one is made
    seed = bytes(range(256))
    when = datetime(2026, 11, 25, 9, 30, tzinfo=ZoneInfo("Europe/Paris"))
    rows = run_batch(
        conn,
        [
            ("SELECT $1::text", ("plain again",)),
            ("SELECT octet_length($1::bytea), $1::bytea, $2::timestamptz = $3", (seed, when, when)),
        ],
        1,
    )
    assert rows() == [(256, seed, True)]


def test_the_kept_transformer_does_not_keep_its_connection_alive(database_url: str) -> None:
    connection = psycopg.connect(database_url, autocommit=True)
    run_batch(connection, [("SELECT $1::text", ("kept",))], 0)
    assert connection in batch._kept
    gone = weakref.ref(connection)
    connection.close()
    del connection
    gc.collect()
    assert gone() is None


def test_beyond_the_limit_new_statements_run_unprepared(
    conn: Connection[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(batch, "MAX_PREPARED", 1)
    tag = uuid.uuid4().hex
    for n in (1, 2):
        rows = run_batch(conn, [(INSERT, (f"{tag}-{n}", n)), (COUNT, (f"{tag}-%",))], 1)
    assert rows() == [(2, 3)]
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


def test_a_statement_to_plan_each_run_is_never_prepared(conn: Connection[Any]) -> None:
    tag = uuid.uuid4().hex
    count = PlanEachRun(COUNT)
    for n in (1, 2, 3):
        assert run_batch(conn, [(INSERT, (f"{tag}-{n}", n)), (count, (f"{tag}-%",))], 1)() == [
            (n, n * (n + 1) // 2)
        ]
    assert prepared_count(conn) == 1  # the INSERT only


def test_the_store_keeps_a_statement_to_plan_each_run_unprepared(database_url: str) -> None:
    update = PlanEachRun("UPDATE batch_rows SET n = n + 1 WHERE id = %s")
    key = uuid.uuid4().hex
    with create_pool(database_url, min_size=1, max_size=1) as pool:
        store = PostgresEventStore(pool)
        with pool.connection() as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS batch_rows (id text PRIMARY KEY, n bigint)")
            conn.execute("INSERT INTO batch_rows VALUES (%s, 0)", (key,))
        stream = f"batch-{key}"
        for version in range(3):
            with store.transaction() as uow:
                uow.append(stream, version, [NewEvent("Counted", {"n": version})])
                uow.execute(update, (key,))
        with pool.connection() as conn:
            assert conn.execute("SELECT n FROM batch_rows WHERE id = %s", (key,)).fetchone() == (3,)
            statements = [row[0] for row in conn.execute(
                "SELECT statement FROM pg_prepared_statements"
            )]  # fmt: skip
    assert any(s.startswith("SELECT out_stream_id") for s in statements)  # prepared, as usual
    assert not any(s.startswith("UPDATE batch_rows") for s in statements)
